"""Issue 22's graph: 36 layers of h = tanh(h * scale + shift) over a [8192, 32768] float32
batch from a tf.data pipeline, one GradientDescent training step, written as the graph GE
sees (shapes and dtypes; the gradient helpers of static shapes already folded, the Add
gradient an identity of its input). GE plans about 38 GiB for it: it must fit
atlas-a2-training (52 GiB budget) and not atlas-training (26 GiB) with GE's message.

One [8192, 32768] float32 tensor: 2**30 bytes -> 2**30 + 32 (GE size) -> block 2**30 + 512.
"""
from npu_bridge.ge import memory_plan as mp
from npu_bridge.ge import resolve

GIB = 1024 ** 3
B, N, LAYERS = 8192, 32768, 36
F = "float32"
BIG = ((B, N), F)
VEC = ((N,), F)


def training_graph():
    nodes = [mp.Node("IteratorGetNext", "GetNext", (BIG,)),
             mp.Node("lr", "Const", (((), F),))]
    h = ("IteratorGetNext", 0)
    hs = [h]
    for i in range(1, LAYERS + 1):
        nodes += [mp.Node("scale%d" % i, "VariableV2", (VEC,)),
                  mp.Node("shift%d" % i, "VariableV2", (VEC,)),
                  mp.Node("mul%d" % i, "Mul", (BIG,), (h, ("scale%d" % i, 0))),
                  mp.Node("add%d" % i, "AddV2", (BIG,), (("mul%d" % i, 0), ("shift%d" % i, 0))),
                  mp.Node("tanh%d" % i, "Tanh", (BIG,), (("add%d" % i, 0),))]
        h = ("tanh%d" % i, 0)
        hs.append(h)
    nodes += [mp.Node("loss", "Mean", (((), F),), (h,)),
              mp.Node("grad/Tile", "Tile", (BIG,), (("loss", 0),)),
              mp.Node("grad/truediv", "RealDiv", (BIG,), (("grad/Tile", 0),))]
    dh = ("grad/truediv", 0)
    updates = []
    for i in range(LAYERS, 0, -1):
        g = "grad%d/" % i
        nodes += [mp.Node(g + "TanhGrad", "TanhGrad", (BIG,), (hs[i], dh)),
                  mp.Node(g + "add_grad", "Identity", (BIG,), ((g + "TanhGrad", 0),)),
                  mp.Node(g + "dshift", "Sum", (VEC,), ((g + "TanhGrad", 0),)),
                  mp.Node(g + "mul_x", "Mul", (BIG,), ((g + "add_grad", 0), hs[i - 1])),
                  mp.Node(g + "dscale", "Sum", (VEC,), ((g + "mul_x", 0),)),
                  mp.Node(g + "update_scale", "ApplyGradientDescent", (VEC,),
                          (("scale%d" % i, 0), ("lr", 0), (g + "dscale", 0)), alias=(0,)),
                  mp.Node(g + "update_shift", "ApplyGradientDescent", (VEC,),
                          (("shift%d" % i, 0), ("lr", 0), (g + "dshift", 0)), alias=(0,))]
        updates += [g + "update_scale", g + "update_shift"]
        if i > 1:
            nodes.append(mp.Node(g + "dh", "Mul", (BIG,), ((g + "add_grad", 0),
                                                          ("scale%d" % i, 0))))
            dh = (g + "dh", 0)
    nodes.append(mp.Node("train", "NoOp", (), tuple((u, 0) for u in updates)))
    return mp.Graph("Session#1/2", tuple(nodes), (), (("loss", 0),))


def _opts(product):
    return mp.MemoryOptions.from_ge(resolve({}, product=product, env={}), env={})


def test_36_layer_training_graph_fits_a2_not_atlas_training():
    graph = training_graph()
    a2 = _opts("atlas-a2-training")
    assert a2.train and a2.graph_budget == 52 * GIB     # graph_run_mode 1: GE sorts BFS
    plan = mp.plan_graph(graph, a2)
    blk = 2 ** 30 + 512
    # the batch and the 36 activations stay for the backward pass; at the last layer's
    # TanhGrad the incoming gradient and its own output are alive too: 39 blocks
    assert plan.topo_mode == "BFS"
    assert plan.largest_live <= 40 * GIB
    assert plan.largest_live >= 39 * blk
    theory_min = plan.imas["theory_min"]
    assert theory_min <= plan.feature_map <= theory_min * 1.05
    s = mp.plan_session([plan], a2)
    assert s.session_verdict.fits is True
    s = mp.plan_session([mp.plan_graph(graph, _opts("atlas-training"))], _opts("atlas-training"))
    assert s.session_verdict.fits is False
    assert s.session_verdict.message.startswith("Sum of total_mem_offset:")
    assert s.session_verdict.message.endswith(
        "is greater than memory manager malloc max size %d" % (26 * GIB))
    print("36 layers: total_hbm %d (%s), theory_min %d, largest live %d, strategy %s, "
          "reuse off %d" % (plan.feature_map, mp.mib(plan.feature_map), theory_min,
                            plan.largest_live, plan.strategy, plan.reuse_off))
