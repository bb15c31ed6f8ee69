"""The 16 vectors of the TF adapter's own partition test (hicann/tensorflow
tf_adapter/tests/ut/optimizers/testcase/om_partition_subgraphs_pass_test.cc, commit 82957b9),
each graph rebuilt here from its description, partitioned by npu_bridge.ge.partition, and
checked against what that test asserts (the edge string, or the substring it looks for) plus
what the reference notes say of the GeOps. docs/partition.md lists them."""
import json
import os

import pytest

from npu_bridge.ge import partition as P
from npu_bridge.ge.partition_graph import PGraph, node
from npu_bridge.ge.supported_ops import SupportedOps
from tests._reference import REFERENCE

# the adapter's UT stub list (tf_adapter/tests/depends/support_json/.../npu_supported_ops.json):
# 37 op types, none gray, none heavy
STUB_OPS = ("Abs AccumulateNV2 Add AddV2 ApplyMomentum ArgMax Cast Const Enter Exit Floor "
            "Greater Identity If IsVariableInitialized Less LogicalNot LoopCond MatMul Merge Mul "
            "NextIteration NoOp Pack Placeholder PlaceholderWithDefault RandomUniformInt Softmax "
            "Squeeze StridedSlice Sub Sum Switch Unique VariableV2 Where _Retval").split()
STUB = SupportedOps({op: {"isGray": False, "isHeavy": False} for op in STUB_OPS},
                    "adapter UT stub list", True)
BASE = {"mix_compile_mode": "0", "iterations_per_loop": "1", "enable_dp": "0",
        "use_off_line": "1", "job": "localhost", "in_out_pair": "", "in_out_pair_flag": "1",
        "variable_location": "Device", "dynamic_input": "0",
        "dynamic_graph_execute_mode": "dynamic_execute"}


def run(nodes, graph_num, functions=None, **opts):
    g = PGraph("v%d" % graph_num, tuple(nodes), functions or {})
    return P.partition(g, P.PassOptions.from_adapter(dict(BASE, **opts)), STUB, graph_num)


def geop_of(part, name):
    return [g.name for g in part.geops if any(n == name for n, _ in g.ops)]


def var_add_graph():
    return [node("Const_1", "Const", out=[((2,), "float32")]),
            node("Variable", "VariableV2", out="float32_ref"),
            node("Variable/read", "Identity", ["Variable"], out="float32"),
            node("Add", "Add", ["Const_1", "Variable/read"], out="float32"),
            node("retval_Add_0_0", "_Retval", ["Add"])]


def test_1_build_geop():
    part = run(var_add_graph(), 1)
    assert part.edges == "GeOp1_0->retval_Add_0_0"
    assert sorted(n for n, _ in part.geops[0].ops) == ["Add", "Const_1", "Variable",
                                                       "Variable/read"]
    assert [(h.name, h.rule) for h in part.host_ops] == [("retval_Add_0_0", "boundary")]


def test_2_accumulate_n_is_fused_back():
    i32 = "@int32"
    nodes = [node("random_uniform/shape", "Const", out=[((2,), "int32")]),
             node("random_uniform/min", "Const", out="int32"),
             node("random_uniform/max", "Const", out="int32"),
             node("random_uniform_1/min", "Const", out="int32"),
             node("random_uniform_1/max", "Const", out="int32"),
             node("AccumulateNV2/Internal/_0", "TemporaryVariable", out="int32_ref"),
             node("random_uniform", "RandomUniformInt", ["random_uniform/shape" + i32,
                  "random_uniform/min" + i32, "random_uniform/max" + i32], out="int32"),
             node("random_uniform_1", "RandomUniformInt", ["random_uniform/shape" + i32,
                  "random_uniform_1/min" + i32, "random_uniform_1/max" + i32], out="int32"),
             node("AccumulateNV2/Internal/_3", "Const", ["^random_uniform"], out="int32"),
             node("AccumulateNV2/Internal/_4", "Assign", ["AccumulateNV2/Internal/_0@int32_ref",
                  "AccumulateNV2/Internal/_3" + i32], out="int32_ref"),
             node("AccumulateNV2/Internal/_6", "AssignAdd", ["AccumulateNV2/Internal/_4@int32_ref",
                  "random_uniform_1" + i32], out="int32_ref"),
             node("AccumulateNV2/Internal/_5", "AssignAdd", ["AccumulateNV2/Internal/_4@int32_ref",
                  "random_uniform" + i32], out="int32_ref"),
             node("AccumulateNV2", "DestroyTemporaryVariable", ["AccumulateNV2/Internal/_4@int32_ref",
                  "^AccumulateNV2/Internal/_5", "^AccumulateNV2/Internal/_6"], out="int32")]
    part = run(nodes, 2)
    assert "AccumulateNV2" in "|".join(part.functions.values())   # the test's assertion
    assert len(part.geops) == 1
    ops = dict(part.geops[0].ops)
    assert ops["AccumulateNV2"] == "AccumulateNV2"
    assert not any(o in ("Assign", "AssignAdd", "TemporaryVariable") for o in ops.values())


def copy_variables_graph():
    ref = "@float32_ref"
    return [node("Placeholder", "Placeholder", out="float32"),
            node("const1", "Const", out="float32"), node("const2", "Const", out="float32"),
            node("Variable", "VariableV2", out="float32_ref"),
            node("Variable_1", "VariableV2", out="float32_ref"),
            node("Variable/Momentum", "VariableV2", out="float32_ref"),
            node("Momentum/learning_rate", "Const", out="float32"),
            node("gradients/Softmax_grad/Sum/reduction_indices", "Const", out="int32"),
            node("Momentum/momentum", "Const", out="float32"),
            node("Variable_1/Momentum", "VariableV2", out="float32_ref"),
            node("gradients/add_grad/Sum/reduction_indices", "Const", out="int32"),
            node("gradients/sub_grad/tuple/control_dependency", "Const", out="float32"),
            node("Variable/read", "Identity", ["Variable", "^const1"], out="float32"),
            node("Variable_1/read", "Identity", ["Variable_1", "^const2"], out="float32"),
            node("MatMul", "MatMul", ["Placeholder", "Variable/read"], out="float32"),
            node("SliceNum-1-NpuGraphSlicing/NpuRecompute/add", "AddV2",
                 ["MatMul", "Variable_1/read"], out="float32", _without_npu_compile=True),
            node("Softmax", "Softmax", ["SliceNum-1-NpuGraphSlicing/NpuRecompute/add"],
                 out="float32"),
            node("gradients/Softmax_grad/mul", "Mul",
                 ["Softmax", "gradients/sub_grad/tuple/control_dependency"], out="float32"),
            node("gradients/Softmax_grad/Sum", "Sum", ["gradients/Softmax_grad/mul",
                 "gradients/Softmax_grad/Sum/reduction_indices@int32"], out="float32"),
            node("gradients/Softmax_grad/sub", "Sub", ["gradients/sub_grad/tuple/control_dependency",
                 "gradients/Softmax_grad/Sum"], out="float32"),
            node("gradients/Softmax_grad/mul_1", "Mul", ["Softmax", "gradients/Softmax_grad/sub"],
                 out="float32"),
            node("gradients/add_grad/Sum", "Sum", ["gradients/Softmax_grad/mul_1",
                 "gradients/add_grad/Sum/reduction_indices@int32"], out="float32"),
            node("Momentum/update_Variable_1/ApplyMomentum", "ApplyMomentum",
                 ["Variable_1" + ref, "Variable_1/Momentum" + ref, "Momentum/learning_rate",
                  "gradients/add_grad/Sum", "Momentum/momentum", "^const2"], out="float32_ref"),
            node("gradients/MatMul_grad/MatMul_1", "MatMul", ["Placeholder",
                 "gradients/Softmax_grad/mul_1", "^gradients/add_grad/Sum"], out="float32"),
            node("Momentum/update_Variable/ApplyMomentum", "ApplyMomentum",
                 ["Variable" + ref, "Variable/Momentum" + ref, "Momentum/learning_rate",
                  "gradients/MatMul_grad/MatMul_1", "Momentum/momentum", "^const1"],
                 out="float32_ref"),
            node("Momentum", "NoOp", ["^Momentum/update_Variable/ApplyMomentum",
                                      "^Momentum/update_Variable_1/ApplyMomentum"])]


def test_3_mix_compile_copies_variables_between_geops():
    part = run(copy_variables_graph(), 3, mix_compile_mode="1")
    assert [(h.name, h.rule) for h in part.host_ops] == [
        ("SliceNum-1-NpuGraphSlicing/NpuRecompute/add", "without_npu_compile")]
    assert len(part.geops) == 2     # the host AddV2 splits the training graph
    consumers = [g.name for g in part.geops
                 if any(n == "Momentum/update_Variable_1/ApplyMomentum" or n == "Variable_1/read"
                        for n, _ in g.ops)]
    assert len(consumers) == 2
    for name in consumers:          # every GeOp reading Variable_1 holds a Variable_1
        assert "Variable_1->" in part.functions[name]
        assert ("Variable_1", "VariableV2") in dict(
            (g.name, g.ops) for g in part.geops)[name]


def test_4_getnext_sinks_with_its_iterator_under_enable_data_pre_proc():
    nodes = [node("IteratorV2", "IteratorV2", out="resource"),
             node("IteratorGetNext", "IteratorGetNext", ["IteratorV2@resource"], out="float64")]
    part = run(nodes, 4, enable_dp="1")
    assert "IteratorGetNext" in "|".join(part.functions.values())
    assert sorted(n for n, _ in part.geops[0].ops) == ["IteratorGetNext", "IteratorV2"]
    # without enable_data_pre_proc neither is compiled (not in the list)
    off = run(nodes, 4)
    assert not off.geops and {h.rule for h in off.host_ops} == {"not_supported"}


def test_5_dataset_init_graph_is_left_unchanged():
    nodes = [node("normalize_element/component_0", "Const", out=[((5,), "float64")]),
             node("optimizations", "Const", out=[((3,), "string")]),
             node("IteratorV2", "IteratorV2", out="resource"),
             node("TensorSliceDataset", "TensorSliceDataset",
                  ["normalize_element/component_0@float64"], out="variant"),
             node("OptimizeDataset", "OptimizeDataset",
                  ["TensorSliceDataset@variant", "optimizations@string"], out="variant"),
             node("ModelDataset", "ModelDataset", ["OptimizeDataset@variant"], out="variant"),
             node("MakeIterator", "MakeIterator", ["ModelDataset@variant", "IteratorV2@resource"])]
    part = run(nodes, 5, enable_dp="1")
    assert part.edges == ("normalize_element/component_0->TensorSliceDataset;TensorSliceDataset->"
                          "OptimizeDataset;optimizations->OptimizeDataset:1;OptimizeDataset->"
                          "ModelDataset;ModelDataset->MakeIterator;IteratorV2->MakeIterator:1")
    assert not part.geops and {h.rule for h in part.host_ops} == {"dataset_init"}


def merge_clusters_graph():
    s = "@string"
    return [node("save/SaveV2/shape_and_slices", "Const", out=[((3,), "string")]),
            node("v1", "VariableV2", out="float32_ref"),
            node("save/filename/input", "Const", out="string"),
            node("v2", "VariableV2", out="float32_ref"),
            node("save/SaveV2/tensor_names", "Const", out=[((3,), "string")]),
            node("v3", "VariableV2", out="float32_ref"),
            node("save/filename", "PlaceholderWithDefault", ["save/filename/input" + s],
                 out="string"),
            node("save/Const", "PlaceholderWithDefault", ["save/filename" + s], out="string"),
            node("save/SaveV2", "SaveV2", ["save/Const" + s, "save/SaveV2/tensor_names" + s,
                                           "save/SaveV2/shape_and_slices" + s, "v1", "v2", "v3"]),
            node("save/control_dependency", "Identity", ["save/Const" + s, "^save/SaveV2"],
                 out="string")]


def test_6_full_offload_merges_unreachable_clusters_into_one_geop():
    part = run(merge_clusters_graph(), 6)
    funcs = "|".join(part.functions.values())
    assert all(v + "->" in funcs for v in ("v1", "v2", "v3"))   # the test's assertion
    assert len(part.geops) == 1
    assert {"v1", "v2", "v3"} <= {n for n, _ in part.geops[0].ops}
    assert "v1->v1_dummyIdentity" in funcs                    # Ref outputs leave via Identity
    rules = {h.name: h.rule for h in part.host_ops}
    assert rules["save/SaveV2"] == "not_supported"
    assert rules["save/control_dependency"] == "not_merged"  # cycle through SaveV2
    assert [d.code for d in part.diagnostics] == ["NPB197"]


def test_7_mix_compile_keeps_two_geops_around_a_host_op():
    nodes = [node("random_uniform/shape", "Const", out=[((1,), "int32")]),
             node("random_uniform/min", "Const", out="int64"),
             node("random_uniform/max", "Const", out="int64"),
             node("ArgMax/dimension", "Const", out="int32"),
             node("random_uniform", "RandomUniformInt", ["random_uniform/shape@int32",
                  "random_uniform/min@int64", "random_uniform/max@int64"], out="int64"),
             node("Unique", "Unique", ["random_uniform@int64"], out=["int64", "int32"],
                  _without_npu_compile=True),
             node("ArgMax", "ArgMax", ["Unique@int64", "ArgMax/dimension@int32"], out="int64")]
    part = run(nodes, 7, mix_compile_mode="1")
    assert part.edges == "GeOp7_0->Unique;Unique->GeOp7_1"
    # the same graph in full offload: one GeOp, the other cluster back to the host
    full = run(nodes, 7)
    assert len(full.geops) == 1 and any(h.rule == "not_merged" for h in full.host_ops)


def test_8_unary_ops_composition_is_split():
    nodes = [node("random_uniform/shape", "Const", out=[((1,), "int32")]),
             node("random_uniform/sub", "Const", out="float32"),
             node("random_uniform/RandomUniform", "RandomUniform", ["random_uniform/shape@int32"],
                  out="float32"),
             node("random_uniform/mul", "Mul", ["random_uniform/RandomUniform",
                                                "random_uniform/sub"], out="float32"),
             node("Floor/unary_ops_composition", "_UnaryOpsComposition", ["random_uniform/mul"],
                  out="float32", op_names=("Abs", "Floor")),
             node("Abs_1", "Abs", ["Floor/unary_ops_composition"], out="float32")]
    part = run(nodes, 8)
    funcs = "|".join(part.functions.values())
    assert "_Floor" in funcs and "_Abs" in funcs                 # the test's assertion
    assert "Floor/unary_ops_composition_0_Abs->Floor/unary_ops_composition_1_Floor" in funcs
    rules = {h.name: h.rule for h in part.host_ops}
    assert rules == {"random_uniform/RandomUniform": "not_supported",
                     "random_uniform/shape": "const"}


def test_9_in_out_pair_flag_1_compiles_the_paths():
    part = run(var_add_graph(), 9, mix_compile_mode="1",
               in_out_pair="[[['Variable', 'Const_1'],['Add']]]", in_out_pair_flag="1")
    assert part.edges == "GeOp9_0->retval_Add_0_0"


def test_10_in_out_pair_flag_0_excludes_the_paths():
    part = run(var_add_graph(), 10, mix_compile_mode="1",
               in_out_pair="[[['Variable'],['Add']]]", in_out_pair_flag="0")
    assert part.edges == "Variable->Variable/read;GeOp10_0->Add;Variable/read->Add:1;Add->retval_Add_0_0"


def getnext_graph(mode):
    return [node("arg_arg_Placeholder_0_0", "_Arg", out="int32"),
            node("IteratorV2", "IteratorV2", out="resource"),
            node("IteratorGetNext", "IteratorGetNext", ["IteratorV2@resource"],
                 out=["int64", "int64"]),
            node("Cast", "Cast", ["IteratorGetNext@int64"], out="int32"),
            node("Cast_1", "Cast", ["IteratorGetNext:1@int64"], out="int32"),
            node("Add", "Add", ["Cast@int32", "Cast_1@int32"], out="int32"),
            node("Mul", "Mul", ["Add@int32", "arg_arg_Placeholder_0_0@int32"], out="int32",
                 _graph_dynamic_input=True, _graph_dynamic_graph_execute_mode=mode)]


def test_11_lazy_recompile_does_not_contract_getnext_edges():
    part = run(getnext_graph("lazy_recompile"), 11, enable_dp="1")
    assert len(part.geops) == 2
    assert ("IteratorV2->IteratorGetNext;IteratorGetNext->IteratorGetNext_0_retval_RetVal;"
            "IteratorGetNext:1->IteratorGetNext_1_retval_RetVal") in part.functions.values()


def test_12_if_with_supported_branches_is_compiled():
    nodes = [node("Greater/y", "Const", out="float32"),
             node("Greater", "Greater", ["arg_Placeholder_0_0", "Greater/y"], out="bool"),
             node("IF_branch_1", "If", ["Greater@bool", "arg_Placeholder_0_0"], out="float32",
                  funcs=("finall_branch1",)),
             node("arg_Placeholder_0_0", "_Arg", out="float32"),
             node("retval_IF_branch_1_0_0", "_Retval", ["IF_branch_1"])]
    funcs = {"finall_branch1": (("Const", ()), ("Greater", ()), ("If", ("finall_branch2",))),
             "finall_branch2": ()}
    part = run(nodes, 12, functions=funcs)
    assert part.edges == "arg_Placeholder_0_0->GeOp12_0;GeOp12_0->retval_IF_branch_1_0_0"
    # a branch calling an op outside the list keeps the If on the host
    bad = dict(funcs, finall_branch2=(("DecodeJpeg", ()),))
    part = run(nodes, 12, functions=bad)
    assert {h.name: h.rule for h in part.host_ops}["IF_branch_1"] == "function"


def while_graph():
    i = "@int32"
    return [node("Const", "Const", out="int32"),
            node("retval_Exit_0_0", "_Retval", ["while/Exit" + i]),
            node("while/Enter", "Enter", ["Const" + i], out="int32", frame_name="while/while_context"),
            node("while/Merge", "Merge", ["while/Enter" + i, "while/NextIteration" + i],
                 out=["int32", "int32"]),
            node("while/Less/y", "Const", ["^while/Merge"], out="int32"),
            node("while/Less", "Less", ["while/Merge" + i, "while/Less/y" + i], out="bool"),
            node("while/LoopCond", "LoopCond", ["while/Less@bool"], out="bool"),
            node("while/Switch", "Switch", ["while/Merge" + i, "while/LoopCond@bool"],
                 out=["int32", "int32"]),
            node("while/Exit", "Exit", ["while/Switch" + i], out="int32"),
            node("while/Identity", "Identity", ["while/Switch:1" + i], out="int32"),
            node("while/Add/y", "Const", ["^while/Identity"], out="int32"),
            node("while/Add", "Add", ["while/Add/y" + i, "while/Identity" + i], out="int32"),
            node("while/NextIteration", "NextIteration", ["while/Add" + i], out="int32")]


def test_13_while_loop_is_one_geop():
    part = run(while_graph(), 13)
    assert part.edges == "GeOp13_0->retval_Exit_0_0"


def test_13b_mix_compile_host_op_in_a_loop_keeps_the_frame_on_the_host():
    nodes = [n._replace(attrs={"_without_npu_compile": True}) if n.name == "while/Add" else n
             for n in while_graph()]
    part = run(nodes, 13, mix_compile_mode="1")
    rules = {h.name: h.rule for h in part.host_ops}
    assert rules["while/Add"] == "without_npu_compile"
    assert rules["while/Less"] == "frame" and rules["while/Merge"] == "frame"
    assert not part.geops or all(not n.startswith("while/") or n.endswith("/y")
                                 for g in part.geops for n, _ in g.ops)


def test_14_dynamic_execute_contracts_getnext_edges():
    part = run(getnext_graph("dynamic_execute"), 14, enable_dp="1")
    assert part.edges == "arg_arg_Placeholder_0_0->GeOp14_0"


def test_15_string_input_of_an_op_outside_the_list():
    nodes = [node("DecodeJpeg", "DecodeJpeg", ["arg_input_0_0@string"], out="uint8",
                  _op_max_size=(180000,)),
             node("arg_input_0_0", "_Arg", out="string"),
             node("retval_DecodeJpeg_0_0", "_Retval", ["DecodeJpeg@uint8"])]
    part = run(nodes, 15)
    assert part.edges == "arg_input_0_0->DecodeJpeg;DecodeJpeg->retval_DecodeJpeg_0_0"
    # with DecodeJpeg in the list and iterations_per_loop > 1 the string edge would pull it
    # off the device, but _op_max_size exempts it
    listed = SupportedOps(dict(STUB.table, DecodeJpeg={}), "stub+DecodeJpeg", True)
    g = PGraph("v15", tuple(nodes))
    for max_size, expect in ((True, ["DecodeJpeg"]), (False, [])):
        ns = nodes if max_size else [n._replace(attrs={}) if n.name == "DecodeJpeg" else n
                                     for n in nodes]
        p = P.partition(g._replace(nodes=tuple(ns)), P.PassOptions.from_adapter(
            dict(BASE, iterations_per_loop="10")), listed, 15)
        assert [n for g2 in p.geops for n, _ in g2.ops] == expect


def test_16_mix_compile_routes_save_v2_inputs_through_identity_n():
    s = "@string"
    nodes = [node("save/const0", "Const", out=[((1,), "string")]),
             node("save/SaveV2/tensor_names", "Const", out="string"),
             node("save/SaveV2/shape_and_slices", "Const", out="string"),
             node("biases1", "VariableV2", out="float32_ref"),
             node("weights1", "VariableV2", out="float32_ref"),
             node("save/SaveV2", "SaveV2", ["save/const0" + s, "save/SaveV2/tensor_names" + s,
                                            "save/SaveV2/shape_and_slices" + s, "biases1",
                                            "weights1"])]
    part = run(nodes, 16, mix_compile_mode="1")
    assert "IdentityN" in part.edges                                   # the test's assertion
    assert len(part.geops) == 1 and {n for n, _ in part.geops[0].ops} == {"biases1", "weights1"}


@pytest.mark.skipif(not os.path.isfile(os.path.join(REFERENCE, "partition_vectors.json")),
                    reason="reference facts not beside this checkout")
def test_expected_strings_are_the_reference_ones():
    """The exact strings asserted above are the reference's (the adapter test's) strings."""
    with open(os.path.join(REFERENCE, "partition_vectors.json"), encoding="utf-8") as f:
        vectors = json.load(f)["vectors"]
    assert len(vectors) == 16
    source = open(__file__, encoding="utf-8").read().replace('"\n                          "', "")
    source = source.replace('"\n            "', "")
    for v in vectors:
        if v["expected"] is not None:
            assert v["expected"] in source, v["test"]
