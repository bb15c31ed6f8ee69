"""A fixed corpus of GE graphs and what GE's assigner (`mem_assign.assign`) plans for each:
the regression data of tests/ge/test_memplan_golden.py (tests/data/memplans.json).

How the data file was made: `python tests/_memplan_corpus.py --write` on the planner as it
was before the level-2 speed work of issue 22 (commit recorded in the file). Re-run it only
when a change of the plans is intended (a GE rule modelled anew), and say so in the commit.

The corpus (every graph rebuilt here from fixed seeds, nothing random at test time):
- the handed GE cases (tests/data/ge_memtests.json) and our transcriptions
  (tests/data/ge_cases/*.json), each also under MemoryPriority (the four range assigners,
  which run level 2 with both sort orders) and the other topological modes;
- `small` random graphs (2-40 nodes) using every attribute the assigner reads (ref outputs,
  workspaces with reuse flags and session scope, atomic outputs and workspaces, continuous
  inputs/outputs and separately cleaned inputs, no_reuse_mem_flag, assign_var_name,
  control edges, Data/Const/Variable/Enter/GetNext/Merge/Reshape) under random options;
- `medium` random graphs of 100-300 nodes (long lives, many level-2 splits);
- bench/gen_memgraph.py training graphs (200-2000 nodes) and `generated_graph`s (plan_10k's
  kind) of 300-2000 nodes through `memory_graph.to_ge_graph`.
Per graph: the `[IMAS]` figures, the regions, the winning strategy, every strategy's
figures, the largest live set, and a SHA-256 (96 bits kept) of every placed tensor (offset, size, region,
life) of the plan and of every strategy's whole block layout (each block's offset, size,
tenants and nested children), so any change of any offset or size shows.
"""
import glob
import hashlib
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for _p in (REPO, os.path.join(REPO, "bench")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from npu_bridge.ge import block_assigner as ba  # noqa: E402
from npu_bridge.ge import mem_assign  # noqa: E402
from npu_bridge.ge.ge_graph import GeGraph, GeNode, NotModelled  # noqa: E402

DATA = os.path.join(HERE, "data", "memplans.json")
SIZES = [32, 512, 1000, 1024, 1536, 2048, 4096, 4100, 65536, 100000, 1 << 20, 3 << 20]


# ------------------------------------------------------------------ the graphs
def _case_graphs():
    cases = []
    with open(os.path.join(HERE, "data", "ge_memtests.json")) as f:
        for c in json.load(f)["cases"]:
            cases.append((c["test"].rsplit(":", 1)[1], c))
    for path in sorted(glob.glob(os.path.join(HERE, "data", "ge_cases", "*.json"))):
        with open(path) as f:
            cases.append((os.path.basename(path)[:-5], json.load(f)))
    for name, case in cases:
        try:
            graph = GeGraph.from_case(case)
        except NotModelled:
            continue
        yield "case/" + name, graph, None
        for extra, opts in (("mp", {"ge.exec.memoryOptimizationPolicy": "MemoryPriority"}),
                            ("bfs", {"ge.topoSortingMode": "0"}),
                            ("rdfs", {"ge.topoSortingMode": "2"}),
                            ("srdfs", {"ge.topoSortingMode": "3"})):
            g = GeGraph.from_case(case)
            g.options.update(opts)
            yield "case/%s/%s" % (name, extra), g, None


def random_graph(seed, n, name=None):
    """A seeded random GeGraph of `n` nodes (plus a NetOutput) and its environment."""
    rng = random.Random(seed)
    nodes, edges, control = [], [], []
    n_data = rng.randint(0, 3)
    types = ["Op"] * 12 + ["Add"] * 6 + ["Conv2D"] * 4 + ["Merge", "Reshape", "Enter",
                                                            "GetNext", "DropOutGenMaskV3"]
    long_range = n > 60
    for i in range(n):
        nm = "n%d" % i
        if i < n_data:
            nodes.append(GeNode(nm, "Data", [rng.choice(SIZES)], [], 0, 0, {"index": i}))
            continue
        roll = rng.random()
        if i and roll < 0.08:
            nodes.append(GeNode(nm, rng.choice(["Const", "Variable"]), [rng.choice(SIZES)],
                                [], 0, 0, {}))
            continue
        typ = rng.choice(types)
        outs = [rng.choice(SIZES) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        ws = [rng.choice([0, -1] + SIZES) for _ in range(rng.choice([0, 0, 1, 2]))]
        k = min(i, rng.choice([0, 1, 1, 2, 2, 3]))
        srcs = []
        for _ in range(k):
            if long_range and rng.random() < 0.8:
                j = max(0, i - 1 - int(rng.expovariate(0.15)))
            else:
                j = rng.randrange(i)
            if j not in srcs:
                srcs.append(j)
        attrs = {}
        if srcs and nodes[srcs[0]].type not in ("Const", "Variable") and rng.random() < 0.2:
            attrs["ref_output_to_input"] = {"0": 0}
        if rng.random() < 0.08:
            attrs["atomic_output_index"] = [rng.randrange(len(outs))]
        if ws and rng.random() < 0.1:
            attrs["atomic_workspace_info"] = {nm: {"0": max(ws[0], 1)}}
        if ws and rng.random() < 0.1:
            attrs["workspace_reuse_flag"] = [rng.random() < 0.5 for _ in ws]
        if ws and rng.random() < 0.05:
            attrs["workspace_no_reuse_scope"] = [rng.choice([0, 1]) for _ in ws]
        if rng.random() < 0.03:
            attrs["no_reuse_mem_flag"] = True
        if len(outs) > 1 and rng.random() < 0.05:
            attrs["assign_var_name"] = {"1": "var%d" % i}
        if len(srcs) > 1 and rng.random() < 0.08:
            attrs["continuous_input"] = True
            if rng.random() < 0.5:
                attrs["need_gentask_atomic"] = True
                attrs["atomic_input_index"] = list(range(len(srcs)))
        elif len(outs) > 1 and "assign_var_name" not in attrs and rng.random() < 0.06:
            attrs["continuous_output"] = True
            attrs.pop("ref_output_to_input", None)
        nodes.append(GeNode(nm, typ, outs, ws, len(srcs), 0, attrs))
        for slot, j in enumerate(srcs):
            edges.append(("n%d" % j, rng.randrange(len(nodes[j].outputs)), nm, slot))
        if i > 1 and rng.random() < 0.1:
            c = rng.randrange(i)
            if c not in srcs:
                control.append(("n%d" % c, nm))
    sinks = []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        j = rng.randrange(n)
        if j not in sinks and nodes[j].type not in ("Const", "Variable"):
            sinks.append(j)
    if sinks:
        for slot, j in enumerate(sinks):
            edges.append(("n%d" % j, 0, "out", slot))
        nodes.append(GeNode("out", "NetOutput", [], [], len(sinks), 0, {}))
    options = {"ge.exec.disableReuseMemory": "1" if rng.random() < 0.05 else "0",
               "ge.topoSortingMode": rng.choice(["", "", "0", "1", "2", "3"]),
               "ge.exec.atomicCleanPolicy": rng.choice(["0", "1"]),
               "ge.graphRunMode": rng.choice(["0", "1"])}
    if rng.random() < 0.3:
        options["ge.exec.memoryOptimizationPolicy"] = "MemoryPriority"
    if rng.random() < 0.2:
        options["ge.exec.inputReuseMemIndexes"] = "0"
    if rng.random() < 0.2:
        options["ge.exec.outputReuseMemIndexes"] = "0,1"
    env = None
    if rng.random() < 0.1:
        env = {"OP_NO_REUSE_MEM": rng.choice(["Add", "n%d" % rng.randrange(n), "Conv2D,Op"])}
    graph = GeGraph(name or "random%d" % seed, nodes, edges, control, options)
    assert not graph.problems(), graph.problems()
    return graph, env


def _random_graphs():
    for seed in range(250):
        n = random.Random(seed * 7919).randint(2, 40)
        g, env = random_graph(seed, n)
        yield "small/%d" % seed, g, env
    for seed in range(1000, 1012):
        n = random.Random(seed).randint(100, 300)
        g, env = random_graph(seed, n)
        yield "medium/%d" % seed, g, env


def _generated_graphs():
    import gen_memgraph
    from npu_bridge.ge import memory_graph
    from npu_bridge.ge import memory_plan as mp
    for nodes, seed in ((200, 1), (600, 2), (1200, 3), (2000, 0)):
        yield "train/%d/%d" % (nodes, seed), gen_memgraph.training_graph(nodes, seed), None
    yield "train/600/2/mp", gen_memgraph.training_graph(
        600, 2, {"ge.exec.memoryOptimizationPolicy": "MemoryPriority"}), None
    yield "train/600/2/dfs", gen_memgraph.training_graph(
        600, 2, {"ge.topoSortingMode": "1"}), None
    yield "train/400/5/clean1", gen_memgraph.training_graph(
        400, 5, {"ge.exec.atomicCleanPolicy": "1"}), None
    for n, seed in ((300, 1), (1000, 2), (2000, 0)):
        g = gen_memgraph.generated_graph(n, seed)
        ge = memory_graph.to_ge_graph(memory_graph.fold_constants(g),
                                      mp.MemoryOptions(train=True), mp.Assumptions())
        yield "generated/%d/%d" % (n, seed), ge, None


def corpus():
    """(id, GeGraph, env or None) of every graph of the corpus, in a fixed order."""
    yield from _case_graphs()
    yield from _random_graphs()
    yield from _generated_graphs()


# ------------------------------------------------------------------ what is recorded
def _digest(obj):
    return hashlib.sha256(json.dumps(obj, separators=(",", ":")).encode()).hexdigest()[:24]


def _block_tree(block):
    return [block.offset, block.size, block.memory_type, bool(block.is_zero_copy),
            [[t.node, t.kind, t.index, t.real_size, t.life_begin(), t.end]
             for t in block.tenants],
            [_block_tree(c) for c in block.children]]


def _assign(graph, env):
    """mem_assign.assign, keeping each strategy's BlockAssigner run (in GE's order)."""
    runs = []
    real = ba.BlockAssigner.assign

    def kept(self):
        runs.append(real(self))
        return runs[-1]
    ba.BlockAssigner.assign = kept
    try:
        return mem_assign.assign(graph, env), runs
    finally:
        ba.BlockAssigner.assign = real


def record(graph, env=None):
    """What the planner gives for `graph`: a JSON-ready dict (an exception: its type)."""
    try:
        a, runs = _assign(graph, env)
    except Exception as exc:    # recorded, so a change in what fails shows too
        return {"error": type(exc).__name__}
    layouts = [[r.s.name, _digest([_block_tree(b) for b in r.blocks if not b.child_block])]
               for r in runs]
    tensors = [[t.node, t.kind, t.index, t.size, t.offset, t.region, t.begin, t.end]
               for t in a.tensors]
    return {"total_hbm": a.total_hbm, "reusable": a.reusable, "atomic": a.atomic,
            "zero_copy": a.zero_copy, "session_scope": a.session_scope,
            "imas": {"memoffset": a.total_hbm, "theory_min": a.theory_min,
                     "total_size": a.total_size, "no_reuse": a.no_reuse},
            "strategy": a.strategy, "strategies": [s.to_dict() for s in a.strategies],
            "largest_live": a.largest_live, "peak_node": a.peak_node,
            "reuse_off": a.reuse_off, "blocks": len(a.blocks),
            "blocks_digest": _digest(a.blocks), "tensors": len(tensors),
            "tensors_digest": _digest(tensors), "layouts": layouts}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--write"]:
        print(__doc__.strip().splitlines()[0])
        print("usage: python tests/_memplan_corpus.py --write   (rewrites %s)"
              % os.path.relpath(DATA, REPO))
        return 2
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    plans = {}
    for key, graph, env in corpus():
        assert key not in plans, key
        plans[key] = record(graph, env)
    head = {"generated_by": "python tests/_memplan_corpus.py --write",
            "planner_commit": commit, "graphs": len(plans)}
    with open(DATA, "w") as f:     # one plan a line: a changed plan is a one-line diff
        f.write(json.dumps(head, sort_keys=True)[:-1] + ', "plans": {\n')
        f.write(",\n".join("%s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True,
                                                                 separators=(",", ":")))
                           for k, v in plans.items()))
        f.write("\n}}\n")
    print("wrote %d plans to %s" % (len(plans), os.path.relpath(DATA, REPO)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
