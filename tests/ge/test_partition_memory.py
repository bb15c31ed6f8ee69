"""GE plans what it compiles: one memory plan per GeOp, cut from the captured graph
(npu_bridge.ge.partition_report.geop_graphs)."""
from npu_bridge.ge import memory_plan as mp
from npu_bridge.ge import partition as P
from npu_bridge.ge.partition_graph import PGraph, node
from npu_bridge.ge.partition_report import geop_graphs
from npu_bridge.ge.supported_ops import SupportedOps

OPS = SupportedOps({op: {} for op in ("MatMul", "Relu", "VariableV2", "Identity", "Sum")},
                   "test list", True)
F = "float32"


def captured():
    s = (64, 256)
    return mp.Graph("g", (
        mp.Node("x", "Data", (((64, 128), F),)),
        mp.Node("w", "VariableV2", (((128, 256), F),)),
        mp.Node("mm", "MatMul", ((s, F),), (("x", 0), ("w", 0))),
        mp.Node("relu", "Relu", ((s, F),), (("mm", 0),)),
        mp.Node("mm2", "MatMul", ((s, F),), (("relu", 0), ("w", 0))),
        mp.Node("out", "Sum", (((), F),), (("mm2", 0),))), ("x",), (("out", 0),))


def pgraph():
    return PGraph("g", (
        node("_arg_x_0", "_Arg", out=[((64, 128), F)]),
        node("w", "VariableV2", out=[((128, 256), "float32_ref")]),
        node("mm", "MatMul", ["_arg_x_0", "w"], out=[((64, 256), F)]),
        node("relu", "Relu", ["mm"], out=[((64, 256), F)], _without_npu_compile=True),
        node("mm2", "MatMul", ["relu", "w"], out=[((64, 256), F)]),
        node("out", "Sum", ["mm2"], out=[((), F)]),
        node("_retval_out_0", "_Retval", ["out"])))


def test_one_plan_per_geop_with_the_host_tensor_as_data():
    part = P.partition(pgraph(), P.PassOptions(mix_compile_mode=True), OPS, 1)
    assert [g.name for g in part.geops] == ["GeOp1_0", "GeOp1_1"]
    first, second = geop_graphs(captured(), part)
    assert first.name == "g/GeOp1_0" and second.name == "g/GeOp1_1"
    # the run's input x stays the Data input it is
    assert [n.name for n in first.nodes] == ["w", "x", "mm"]
    assert first.inputs == ("x",) and first.nodes[1].outputs == (((64, 128), F),)
    assert first.outputs == (("mm", 0), ("w", 0))   # w's value goes on to mm2 (no Ref input)
    # relu and w come from outside: Data inputs, as the partition's transfers say
    assert [n.name for n in second.nodes] == ["relu_0_arg", "w_0_arg", "mm2", "out"]
    assert [(t.src, t.slot) for t in part.geops[1].inputs] == [("relu", 0), ("w", 0)]
    whole = mp.plan_graph(captured())
    plans = [mp.plan_graph(g) for g in (first, second)]
    assert plans[0].feature_map < whole.feature_map
    assert plans[0].variables == whole.variables and plans[1].variables == 0
    # the weight reaches the second GeOp as an input tensor: feature-map memory, not a variable
    assert plans[1].feature_map >= 128 * 256 * 4


def test_full_offload_single_geop_keeps_the_graph_name():
    part = P.partition(pgraph(), P.PassOptions(), OPS, 1)
    (g,) = geop_graphs(captured(), part)
    # full offload keeps one GeOp (the first of the two equal clusters): mm2 and out go back
    # to the host; the GE graph is named as the captured graph
    assert g.name == "g" and [n.name for n in g.nodes] == ["w", "x", "mm"]
    assert {"mm2", "out"} <= {h.name for h in part.host_ops if h.rule == "not_merged"}
