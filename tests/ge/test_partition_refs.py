"""NPB193: a Ref input crossing between a GeOp and the host fails the graph in the adapter
(om_partition_subgraphs_pass.cc:1913-1944, :2546-2555); the finding names the graph and the
op whose Ref input crosses (the adapter's own message: "dst is <op>"), not the variable."""
from npu_bridge.ge import partition as P
from npu_bridge.ge.partition_graph import PGraph, node
from npu_bridge.ge.supported_ops import SupportedOps

OPS = SupportedOps({op: {} for op in ("VariableV2", "Identity", "Assign", "Mul", "Relu")},
                   "test list", True)
F = "float32"


def _ref_result_graph():
    # h (kept on the host) splits {w, x, x2} from {y, as}: contracting w -> as would close
    # a cycle through h; full offload keeps the larger cluster, so `as` goes back to the host
    # and reads w's Ref out of the GeOp
    return PGraph("Session#1/3", (
        node("w", "VariableV2", out=[((4, 4), "float32_ref")]),
        node("x", "Identity", ["w"], out=[((4, 4), F)]),
        node("x2", "Mul", ["x", "x"], out=[((4, 4), F)]),
        node("h", "Relu", ["x2"], out=[((4, 4), F)], _without_npu_compile=True),
        node("y", "Mul", ["h", "h"], out=[((4, 4), F)]),
        node("as", "Assign", ["w@float32_ref", "y"], out=[((4, 4), "float32_ref")]),
        node("_retval_as_0", "_Retval", ["as"])))


def test_ref_result_names_the_graph_and_the_op_whose_ref_input_crosses():
    part = P.partition(_ref_result_graph(), P.PassOptions(), OPS, 1)
    (d,) = part.diagnostics
    assert (d.code, d.option, d.value) == ("NPB193", "Session#1/3", "as")
    assert d.message.startswith("the Ref input 0 of as (Assign, on the host) reads w:0 "
                                "from GeOp GeOp1_0"), d.message
    assert part.geops == ()


def test_host_consumer_of_a_variable_under_mix_compile_names_that_op():
    g = PGraph("Session#1/4", (
        node("w", "VariableV2", out=[((4, 4), "float32_ref")]),
        node("y", "Mul", ["w", "w"], out=[((4, 4), F)]),
        node("as", "Assign", ["w@float32_ref", "y"], out=[((4, 4), "float32_ref")],
             _without_npu_compile=True),
        node("_retval_as_0", "_Retval", ["as"])))
    part = P.partition(g, P.PassOptions(mix_compile_mode=True), OPS, 1)
    (d,) = part.diagnostics
    assert (d.code, d.option, d.value) == ("NPB193", "Session#1/4", "as")
    assert d.message.startswith("the Ref input 0 of as (Assign, on the host) reads variable "
                                "w"), d.message
