"""GE's memory plan on small graphs, each figure computed by hand in the comments.

A float32 [1024] tensor: 4096 bytes -> 4096 + 32 = 4128 (GE tensor size) -> block 4608
(9 x 512). Called B below. GE's rules (docs/memory.md): graph inputs (Data) and tensors that
flow to the graph's output once are zero-copy blocks laid out after the reusable region and
never reused at level 1; a freed block is taken only by a request of the same 512-aligned
size; a block is freed after its last consumer. Without ge.graphRunMode the order is DFS.
"""
import pytest
from hypothesis import given, settings, strategies as st

from npu_bridge.ge import memory_plan as mp
from npu_bridge.ge import resolve, resolve_ge

F = "float32"
V = ((1024,), F)
B = 4608
GIB = 1024 ** 3


def chain(n=3, name="chain"):
    """x(Data) -> r0 -> r1 -> ... -> r{n-1} (graph output)."""
    nodes = [mp.Node("x", "Data", (V,))]
    prev = "x"
    for i in range(n):
        nodes.append(mp.Node("r%d" % i, "Relu", (V,), ((prev, 0),)))
        prev = "r%d" % i
    return mp.Graph(name, tuple(nodes), ("x",), ((prev, 0),))


def test_sizes_follow_ge_rule():
    assert mp.tensor_bytes((1024,), F) == 4128
    assert mp.tensor_bytes((3,), "float16") == 32 + 32      # 6 -> 32, + 32
    assert mp.tensor_bytes((), "int64") == 64                # scalar: 1 element
    assert mp.tensor_bytes((None, 3), F) is None
    assert mp.tensor_bytes((2,), "string") == 0
    assert mp.block_bytes(4128) == B
    assert mp.block_bytes(512) == 512


def test_chain_reuse_on():
    # x (graph input) and r2 (graph output) are zero-copy blocks; r0 takes a reusable block,
    # r1 another (r0 is freed only after r1 ran): 2 reusable + 2 zero-copy blocks.
    p = mp.plan_graph(chain())
    assert p.blocks == [B] * 2 and p.feature_map == 4 * B
    assert p.assignment.zero_copy == 2 * B and p.checked == 2 * B
    # live (x and r2 for the whole graph): x + r2 + r0 + r1 at r1 = 4B; theory_min alike
    assert p.largest_live == 4 * B and p.peak_node == "r1" and p.theory_min == 4 * B
    assert [s[0] for s in p.steps] == ["x", "r0", "r1", "r2", "NetOutput"]
    assert [s[1] for s in p.steps] == [2 * B, 3 * B, 4 * B, 3 * B, 2 * B]
    assert p.topo_mode == "DFS" and p.strategy == "binary-block"


def test_longer_chain_reuses_blocks():
    # 5 relus: r2 takes r0's freed block, r3 takes r1's; r4 (output) is zero-copy.
    p = mp.plan_graph(chain(5))
    assert len(p.blocks) == 2 and p.feature_map == 4 * B
    assert p.reuse_off == 6 * B


def test_chain_reuse_off_is_sum_of_blocks():
    for opts in (mp.MemoryOptions(reuse=False),
                 mp.MemoryOptions.from_ge({"ge.exec.disableReuseMemory": "1"})):
        p = mp.plan_graph(chain(5), opts)
        assert p.feature_map == p.reuse_off == 6 * B == sum(p.blocks) + \
            p.assignment.zero_copy


def test_reuse_off_from_resolver_ir_option_and_env():
    ge = resolve_ge(ir_options={"EXEC_DISABLE_REUSED_MEMORY": "1"})
    assert not mp.MemoryOptions.from_ge(ge).reuse
    ge = resolve_ge(graph_options={"ge.exec.disableReuseMemory": "1"})
    assert not mp.MemoryOptions.from_ge(ge).reuse
    assert mp.MemoryOptions.from_ge(resolve({})).reuse
    # OP_NO_REUSE_MEM names r2 (by name) and Relu (by type) in turn
    by_name = mp.MemoryOptions.from_ge(resolve({}), env={"OP_NO_REUSE_MEM": "r2"})
    assert mp.plan_graph(chain(5), by_name).feature_map == 5 * B   # r2 cannot take r0's block
    by_type = mp.MemoryOptions.from_ge(resolve({}), env={"OP_NO_REUSE_MEM": "Relu"})
    assert mp.plan_graph(chain(5), by_type).feature_map == 6 * B


def test_branch():
    # x -> a = Relu(x), b = Sigmoid(x), c = Add(a, b) -> d = Relu(c) (output)
    # DFS: x, a, b, c, e, d. a: B1; b: B2; c: B3 (a, b freed after c); e takes a's block;
    # d (output) zero-copy; x zero-copy.
    nodes = (mp.Node("x", "Data", (V,)), mp.Node("a", "Relu", (V,), (("x", 0),)),
             mp.Node("b", "Sigmoid", (V,), (("x", 0),)),
             mp.Node("c", "Add", (V,), (("a", 0), ("b", 0))),
             mp.Node("e", "Relu", (V,), (("c", 0),)),
             mp.Node("d", "Relu", (V,), (("e", 0),)))
    g = mp.Graph("branch", nodes, ("x",), (("d", 0),))
    p = mp.plan_graph(g)
    assert p.blocks == [B] * 3 and p.feature_map == 5 * B
    assert p.largest_live == 5 * B and p.peak_node == "c"   # x, d (whole graph), a, b, c
    assert p.reuse_off == 6 * B


def test_input_reuse_index():
    # x named: post-reusable, freed after r0. Its zero-copy block takes no tenant at level 1,
    # but level 2 nests r1 (which starts after x's end) in it (AddZeroCopyLifeReuseBlock):
    # reusable r0; zero-copy x (+ r1) and r2: 3 blocks.
    opts = mp.MemoryOptions.from_ge({"ge.exec.inputReuseMemIndexes": "0"})
    p = mp.plan_graph(chain(), opts)
    assert p.feature_map == 3 * B and p.largest_live == 3 * B   # x, r0, r2 at r0
    # an index beyond the inputs is ignored (GE: "does not take effect")
    opts = mp.MemoryOptions.from_ge({"ge.exec.inputReuseMemIndexes": "3"})
    assert mp.plan_graph(chain(), opts).feature_map == 4 * B


def test_output_reuse_index():
    # r2 (output 0) named: pre-reusable; level 2 makes r0's block a child of r2's zero-copy
    # block (r2 starts after r0 ends): reusable r1; zero-copy x, r2 (+ r0): 3 blocks.
    opts = mp.MemoryOptions.from_ge({"ge.exec.outputReuseMemIndexes": "0"})
    p = mp.plan_graph(chain(), opts)
    assert p.feature_map == 3 * B
    # reuse off wins over the index
    opts = mp.MemoryOptions.from_ge({"ge.exec.outputReuseMemIndexes": "0",
                                     "ge.exec.disableReuseMemory": "1"})
    assert mp.plan_graph(chain(), opts).feature_map == 4 * B


def test_output_reuse_input_pair():
    # ge.exec.outputReuseInputMemIndexes only becomes a model attribute for the runtime
    # (model_builder.cc L600): GE's plan is unchanged.
    opts = mp.MemoryOptions.from_ge({"ge.exec.outputReuseInputMemIndexes": "0,0"})
    p = mp.plan_graph(chain(), opts)
    assert p.feature_map == mp.plan_graph(chain()).feature_map == 4 * B


def two_graphs():
    # graph 1: chain of 3 (4 blocks); graph 2: chain of 1 (x, r0 output: 2 blocks); both
    # read variable w (float32 [256, 256]: 262144 + 32 -> block 262656).
    w = mp.Node("w", "VarHandleOp", ((None, "resource"),))
    g1 = chain(3, "train")
    g1 = mp.Graph(g1.name, (w, mp.Node("wv", "VariableV2", (((256, 256), F),), var_name="w"))
                  + g1.nodes, g1.inputs, g1.outputs)
    g2 = chain(1, "eval")
    g2 = mp.Graph(g2.name, (mp.Node("wv", "VariableV2", (((256, 256), F),), var_name="w"),)
                  + g2.nodes, g2.inputs, g2.outputs)
    return g1, g2


def test_policy_0_against_2_over_two_graphs():
    g1, g2 = two_graphs()
    var = mp.block_bytes(256 * 256 * 4 + 32)
    assert var == 262656
    s0 = mp.plan_session([g1, g2], mp.MemoryOptions(policy=0))
    assert s0.feature_map == 4 * B + 2 * B
    assert s0.variables == var            # one variable, counted once across the graphs
    s2 = mp.plan_session([g1, g2], mp.MemoryOptions.from_ge(
        {"ge.exec.staticMemoryPolicy": "2"}))
    assert s2.feature_map == 4 * B
    assert s2.policy_alternatives == {"0": 6 * B, "2": 4 * B}
    # legacy 1 runs as 2; 4 too; 3 expands dynamic graphs only
    assert mp.MemoryOptions.from_ge({"ge.exec.staticMemoryPolicy": "1"}).policy == 2
    assert mp.plan_session([g1, g2], mp.MemoryOptions(policy=4)).feature_map == 4 * B
    s3 = mp.plan_session([g1, g2], mp.MemoryOptions(policy=3))
    assert s3.feature_map == 6 * B and s3.dynamic_expansion


def test_policy_from_resolved_configuration():
    opts = mp.MemoryOptions.from_ge(resolve({"static_memory_policy": 2}))
    assert opts.policy == 2
    opts = mp.MemoryOptions.from_ge(resolve({"static_memory_policy": 0},
                                            env={"GE_USE_STATIC_MEMORY": "2"}))
    assert opts.policy == 2   # GE merges the environment variable


def graph_with_const():
    # const c float32 [1024, 1024]: 4 MiB + 32 -> block 4194816; x + c -> y (output)
    nodes = (mp.Node("x", "Data", (((1024, 1024), F),)),
             mp.Node("c", "Const", (((1024, 1024), F),)),
             mp.Node("y", "Add", (((1024, 1024), F),), (("x", 0), ("c", 0))))
    return mp.Graph("w", nodes, ("x",), (("y", 0),))


def test_external_weights():
    cb = mp.block_bytes(1024 * 1024 * 4 + 32)
    assert cb == 4194816
    p = mp.plan_graph(graph_with_const())
    assert p.weights == cb and p.external_weights == 0
    assert p.feature_map == 2 * cb        # x and y; the constant is not feature map
    for value in ("1", "2"):
        opts = mp.MemoryOptions.from_ge(resolve({"external_weight": True}) if value == "1"
                                        else {"ge.externalWeight": value})
        p = mp.plan_graph(graph_with_const(), opts)
        assert p.weights == 0 and p.external_weights == cb


def test_huge_pages_round_variables_to_gib():
    g1, g2 = two_graphs()
    opts = mp.MemoryOptions.from_ge({"ge.variableUse1gHugePage": "2"})
    s = mp.plan_session([g1, g2], opts)
    assert s.variables == GIB
    assert mp.plan_graph(graph_with_const(), opts).weights == GIB
    # 1.5 GiB of variables -> 2 GiB
    big = mp.Graph("v", (mp.Node("v", "VariableV2", (((3 * 2 ** 27,), F),)),), (), ())
    assert mp.plan_graph(big, opts).variables == 2 * GIB
    assert mp.plan_graph(big).variables == mp.block_bytes(3 * 2 ** 29 + 32)


def big_activations():
    # float32 [2**30] activations of 4 GiB (+ 32 bytes -> 4 GiB + 512): a chain of 8 relus;
    # with reuse r0..r6 alternate between 2 reusable blocks, x and r7 are zero-copy.
    n = 2 ** 30
    nodes = [mp.Node("x", "Data", (((n,), F),))]
    prev = "x"
    for i in range(8):
        nodes.append(mp.Node("r%d" % i, "Relu", (((n,), F),), ((prev, 0),)))
        prev = "r%d" % i
    return mp.Graph("big", tuple(nodes), ("x",), ((prev, 0),))


def test_activations_over_budget_on_atlas_training_fit_on_a2():
    g = big_activations()
    blk = 4 * GIB + 512
    p = mp.plan_graph(g)
    assert p.feature_map == 4 * blk and p.reuse_off == 9 * blk
    # reuse off: GE checks the 7 reusable-region blocks (28 GiB + 3.5 KiB; the zero-copy
    # x and r7 come after the check) > 26 GiB budget of atlas-training (26/32 of 32 GiB)
    off = mp.MemoryOptions.from_ge(resolve({}, product="atlas-training"), env={})
    off = mp.MemoryOptions(**dict(off.__dict__, reuse=False))
    s = mp.plan_session([g], off)
    assert off.graph_budget == 26 * GIB
    assert s.session_verdict.fits is False
    assert s.session_verdict.message == (
        "Sum of total_mem_offset:%d and var_mem_size:0 is greater than memory manager malloc "
        "max size %d" % (7 * blk, 26 * GIB))
    a2 = mp.MemoryOptions(**dict(mp.MemoryOptions.from_ge(
        resolve({}, product="atlas-a2-training")).__dict__, reuse=False))
    assert a2.graph_budget == 52 * GIB
    assert mp.plan_session([g], a2).session_verdict.fits is True


def test_budget_options_override_product_share():
    opts = mp.MemoryOptions.from_ge(resolve({"graph_memory_max_size": str(10 * B),
                                             "variable_memory_max_size": "1000"},
                                            product="atlas-training"))
    assert opts.graph_budget == 10 * B and opts.var_budget == 1000
    g1, _ = two_graphs()
    s = mp.plan_session([g1], opts)
    # 4B + 262656 > 10B = 46080: GE's message
    assert s.session_verdict.fits is False and "var_mem_size:262656" in s.session_verdict.message
    opts = mp.MemoryOptions.from_ge(resolve({"variable_memory_max_size": "1000"},
                                            product="atlas-training"))
    s = mp.plan_session([g1], opts)
    assert s.session_verdict.fits is False
    assert s.session_verdict.message.startswith("variable memory 262656 bytes")
    assert mp.plan_session([g1], mp.MemoryOptions()).session_verdict.fits is None


def test_dynamic_graph_has_no_size():
    nodes = (mp.Node("x", "Data", (((None, 8), F),)),
             mp.Node("y", "Relu", (((None, 8), F),), (("x", 0),)))
    p = mp.plan_graph(mp.Graph("d", nodes, ("x",), (("y", 0),)))
    assert p.dynamic and p.feature_map is None and p.dynamic_inputs == ["x"]
    assert mp.verdict(p.feature_map, 0, mp.MemoryOptions(graph_budget=1)).fits is None


def test_alias_ops_share_memory():
    # x -> Reshape (alias of x) -> Relu y (output): x block, y block.
    nodes = (mp.Node("x", "Data", (V,)), mp.Node("s", "Reshape", (((32, 32), F),), (("x", 0),)),
             mp.Node("y", "Relu", (((32, 32), F),), (("s", 0),)))
    assert mp.plan_graph(mp.Graph("a", nodes, ("x",), (("y", 0),))).feature_map == 2 * B


def test_workspace_assumption():
    # 1000 bytes of workspace per node: a block of 1024, freed after the node.
    p = mp.plan_graph(chain(), assumptions=mp.Assumptions(workspace_bytes=1000))
    # step0 x + ws0 (new 1024); step1 r0 (new B) + ws takes the 1024 block again ...
    assert p.feature_map == 4 * B + 1024


def test_topological_order_is_checked():
    nodes = (mp.Node("y", "Relu", (V,), (("x", 0),)), mp.Node("x", "Data", (V,)))
    with pytest.raises(ValueError, match="'y'.*x:0.*topological"):
        mp.plan_graph(mp.Graph("bad", nodes, ("x",), (("y", 0),)))


@st.composite
def dags(draw):
    n = draw(st.integers(2, 14))
    nodes = [mp.Node("n0", "Data", (((draw(st.integers(1, 5000)),), F),))]
    for i in range(1, n):
        k = draw(st.integers(1, min(3, i)))
        ins = draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k, unique=True))
        nodes.append(mp.Node("n%d" % i, "Op", (((draw(st.integers(1, 5000)),), F),),
                             tuple(("n%d" % j, 0) for j in ins)))
    return mp.Graph("r", tuple(nodes), ("n0",), (("n%d" % (n - 1), 0),))


@settings(max_examples=60, deadline=None)
@given(dags(), st.booleans(), st.booleans())
def test_reuse_figure_bounds(graph, reuse_in, reuse_out):
    opts = mp.MemoryOptions(input_reuse=frozenset({0}) if reuse_in else frozenset(),
                            output_reuse=frozenset({0}) if reuse_out else frozenset())
    p = mp.plan_graph(graph, opts)
    assert p.largest_live <= p.feature_map <= p.reuse_off
    assert p.theory_min <= p.feature_map
    off = mp.plan_graph(graph, mp.MemoryOptions(reuse=False))
    assert off.feature_map == off.reuse_off == p.reuse_off == off.imas["total_size"] == \
        sum(off.blocks) + off.assignment.zero_copy
