"""Generate a GE graph (no TensorFlow) shaped like a training graph, for the memory planner's
speed benchmark and golden comparisons: a Data input, per layer a few variables, a forward
chain with residual branches (outputs of varied sizes, some workspaces), a loss, and the
backward pass in reverse (gradients that read the forward activations, so those live long),
optimizer updates that are their variable's memory (`ref_output_to_input`), a few
atomic-clean outputs, and a NetOutput. Deterministic for (nodes, seed).

`training_graph(nodes, seed=0, options=None) -> GeGraph` with about `nodes` nodes;
`generated_graph(n=10000, seed=0) -> memory_plan.Graph` (shapes and dtypes: the plan_10k row).
Usage: python bench/gen_memgraph.py NODES [--seed S]   (prints nodes, edges)
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from npu_bridge.ge import memory_plan as mp  # noqa: E402
from npu_bridge.ge.ge_graph import GeGraph, GeNode  # noqa: E402

_SIZES = [512, 4096, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 25088 * 4, 802816 * 4,
          3211264 * 4, 1000 * 32 * 4]


def training_graph(nodes, seed=0, options=None):
    """A GeGraph of about `nodes` nodes (sizes in bytes); `options` GE keys (default: a
    training graph, ge.graphRunMode=1)."""
    rng = random.Random(seed)
    out, edges = [], []

    def add(name, typ, outputs, srcs, ws=(), attrs=None):
        out.append(GeNode(name, typ, list(outputs), list(ws), len(srcs), 0, attrs or {}))
        for k, (s, o) in enumerate(srcs):
            edges.append((s, o, name, k))
        return (name, 0)

    add("data", "Data", [rng.choice(_SIZES)], [], attrs={"index": 0})
    add("lr", "Const", [512], [])
    per_layer = 11          # variables 2, forward 3-4, backward 3-4, updates 2
    layers = max(1, (nodes - 4) // per_layer)
    h = ("data", 0)
    acts, params = [h], []
    for i in range(layers):
        w, b = "w%d" % i, "b%d" % i
        add(w, "Variable", [rng.choice(_SIZES[:6])], [])
        add(b, "Variable", [rng.choice(_SIZES[:3])], [])
        size = rng.choice(_SIZES)
        ws = [rng.choice(_SIZES[:5])] if rng.random() < 0.3 else []
        conv = add("conv%d" % i, "Conv2D", [size], [h, (w, 0)], ws)
        bias = add("bias%d" % i, "BiasAdd", [size], [conv, (b, 0)])
        if i and rng.random() < 0.3:     # a residual branch from an earlier activation
            bias = add("res%d" % i, "AddV2", [size], [bias, rng.choice(acts[-4:])])
        attrs = {"atomic_output_index": [0]} if rng.random() < 0.05 else {}
        h = add("relu%d" % i, "Relu", [size], [bias], attrs=attrs)
        acts.append(h)
        params.append((w, b, size))
    loss = add("loss", "SoftmaxCrossEntropy", [512, rng.choice(_SIZES)], [h])
    dh = ("loss", 1)
    updates = []
    for i in range(layers - 1, -1, -1):
        w, b, size = params[i]
        g = "grad%d/" % i
        d = add(g + "ReluGrad", "ReluGrad", [size], [dh, acts[i + 1]])
        db = add(g + "BiasAddGrad", "BiasAddGrad", [512], [d])
        ws = [rng.choice(_SIZES[:5])] if rng.random() < 0.3 else []
        dw = add(g + "Conv2DBackpropFilter", "Conv2DBackpropFilter", [1024], [acts[i], d], ws)
        for var, grad in ((w, dw), (b, db)):
            u = add(g + "Apply_" + var, "ApplyMomentum", [512], [(var, 0), ("lr", 0), grad],
                    attrs={"ref_output_to_input": {"0": 0}})
            updates.append(u)
        if i:
            dh = add(g + "Conv2DBackpropInput", "Conv2DBackpropInput",
                     [rng.choice(_SIZES)], [d, (w, 0)])
    add("NetOutput", "NetOutput", [], [loss] + updates[:1])
    opts = {"ge.graphRunMode": "1"}
    opts.update(options or {})
    return GeGraph("generated_%d" % nodes, out, edges, [], opts)


def generated_graph(n=10000, seed=0):
    """A generated `memory_plan.Graph` of `n` nodes in topological order (seeded): each node
    reads one or two recent nodes (distance exponential, mean 5, so lives overlap as in a real
    network) and has one output of one of five shapes (float32/float16, 4 KiB to 9 MiB)."""
    rng = random.Random(seed)
    shapes = [((64, 1024), "float32"), ((64, 4096), "float32"), ((256, 256), "float16"),
              ((1024,), "float32"), ((32, 3, 224, 224), "float16")]
    nodes = [mp.Node("x", "Data", (shapes[0],))]
    for i in range(1, n):
        reads = 1 if rng.random() < 0.6 else 2
        ins = tuple(sorted({(nodes[max(0, i - 1 - int(rng.expovariate(0.2)))].name, 0)
                            for _ in range(reads)}))
        nodes.append(mp.Node("n%d" % i, rng.choice(("Mul", "Add", "Relu", "MatMul", "Conv2D")),
                             (rng.choice(shapes),), ins))
    return mp.Graph("generated%d" % n, tuple(nodes), ("x",), (("n%d" % (n - 1), 0),))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", type=int)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    g = training_graph(args.nodes, args.seed)
    print(len(g.nodes), len(g.edges))


if __name__ == "__main__":
    main()
