"""Properties of GE's assigner over random graphs (hypothesis), each strategy on its own:
no plan below its theory_min, never below the largest live set, and with reuse off the total
is the sum of the blocks (every request its own block: GE's total_size) plus the atomic
region. Graphs as GE builds them: constants are sources without attributes, and no output
aliases a constant input (a symbol holding a Const output is pre-charged to GE's theory_min
by InitReuseFlag L1065-1071 although no block holds it: GE's theory_min then exceeds its
plan, the "abnormal" case of reference ge_memory_assigner.md §11)."""
from hypothesis import given, settings, strategies as st

from npu_bridge.ge import block_assigner as ba
from npu_bridge.ge import mem_assign
from npu_bridge.ge.ge_graph import GeGraph, GeNode
from npu_bridge.ge.topo_order import topological_order

SIZES = [512, 1000, 1024, 2048, 4096, 4100, 65536, 100000]


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 16))
    nodes, edges = [], []
    n_data = draw(st.integers(0, 2))
    for i in range(n):
        if i < n_data:
            nodes.append(GeNode("n%d" % i, "Data", [draw(st.sampled_from(SIZES))], [], 0, 0,
                                {"index": i}))
            continue
        if i and draw(st.integers(0, 6)) == 0:     # a constant: a source, no memory
            nodes.append(GeNode("n%d" % i, "Const", [draw(st.sampled_from(SIZES))], [], 0, 0,
                                {}))
            continue
        outs = draw(st.lists(st.sampled_from(SIZES), min_size=1, max_size=2))
        ws = draw(st.lists(st.sampled_from([0, -1] + SIZES), max_size=2))
        attrs = {}
        k = draw(st.integers(0, min(3, i)))
        srcs = draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k, unique=True)) \
            if i else []
        if srcs and nodes[srcs[0]].type != "Const" and draw(st.booleans()):
            attrs["ref_output_to_input"] = {"0": 0}
        if draw(st.integers(0, 5)) == 0:
            attrs["atomic_output_index"] = [0]
        if ws and draw(st.integers(0, 5)) == 0:
            attrs["atomic_workspace_info"] = {"n%d" % i: {"0": max(ws[0], 1)}}
        nodes.append(GeNode("n%d" % i, draw(st.sampled_from(["Op", "Add"])), outs, ws,
                            len(srcs), 0, attrs))
        for k, j in enumerate(srcs):
            o = draw(st.integers(0, len(nodes[j].outputs) - 1))
            edges.append(("n%d" % j, o, "n%d" % i, k))
    sinks = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    if sinks:
        for k, j in enumerate(sinks):
            edges.append(("n%d" % j, 0, "out", k))
        nodes.append(GeNode("out", "NetOutput", [], [], len(sinks), 0, {}))
    options = {"ge.exec.disableReuseMemory": "0",
               "ge.topoSortingMode": draw(st.sampled_from(["", "0", "1", "2", "3"])),
               "ge.exec.atomicCleanPolicy": draw(st.sampled_from(["0", "1"])),
               "ge.graphRunMode": draw(st.sampled_from(["0", "1"]))}
    if draw(st.booleans()):
        options["ge.exec.memoryOptimizationPolicy"] = "MemoryPriority"
    if draw(st.booleans()):
        options["ge.exec.inputReuseMemIndexes"] = "0"
    if draw(st.booleans()):
        options["ge.exec.outputReuseMemIndexes"] = "0"
    g = GeGraph("random", nodes, edges, [], options)
    assert not g.problems(), g.problems()
    return g


def _runs(graph):
    order = topological_order(graph)[0]
    prep = ba.Prepared(graph, order)
    return prep, [ba.BlockAssigner(prep, s).assign() for s in ba.strategies(prep.memory_priority)]


def _total(run):
    zero_copy = 0
    for b in run.zero_copy_blocks:
        b.resize()
        zero_copy += b.size
    return run.mem_offset + zero_copy


@settings(max_examples=100, deadline=None)
@given(graphs())
def test_no_strategy_below_its_theory_min(graph):
    a = mem_assign.assign(graph)
    assert a.total_hbm >= a.theory_min
    assert a.total_hbm >= a.largest_live
    assert a.total_hbm == a.reusable + a.atomic + a.zero_copy
    prep, runs = _runs(graph)
    assert [r.s.name for r in runs][:2] == ["binary-block", "max-block"]
    for run in runs:
        assert _total(run) >= run.theory_min, run.s.name
    assert a.reusable == min(r.mem_offset for r in runs)
    off = dict(graph.options, **{"ge.exec.disableReuseMemory": "1"})
    assert a.reuse_off == mem_assign.assign(GeGraph(graph.name, graph.nodes, graph.edges,
                                                    graph.control, off)).total_hbm


@settings(max_examples=100, deadline=None)
@given(graphs())
def test_reuse_off_is_the_sum_of_the_blocks(graph):
    graph.options["ge.exec.disableReuseMemory"] = "1"
    a = mem_assign.assign(graph)
    prep, runs = _runs(graph)
    for run in runs:
        total = _total(run)          # lays out the zero-copy blocks too
        blocks = [b for b in run.blocks if not b.child_block]
        assert all(not b.children for b in run.blocks)      # no level 2 with reuse off
        assert sum(b.size for b in blocks) == run.total_size == total, run.s.name
    assert a.total_hbm == a.total_size + a.atomic
