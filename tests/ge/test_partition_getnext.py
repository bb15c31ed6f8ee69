"""IteratorGetNext and its iterator under the default list: the adapter sinks them only under
enable_data_pre_proc (om_partition_subgraphs_pass.cc:641-663, whatever the list says);
without it GetNext is not offloaded (the option's page: deprecated_options.md
enable_data_pre_proc, 'False (default): disabled'), so they stay on the host: decided,
not "unknown to the list"."""
from npu_bridge.ge import partition as P
from npu_bridge.ge import supported_ops
from npu_bridge.ge.partition_graph import PGraph, node

F = "float32"


def _graph():
    return PGraph("Session#1/3", (
        node("IteratorV2", "IteratorV2", out=["resource"]),
        node("IteratorGetNext", "IteratorGetNext", ["IteratorV2@resource"],
             out=[((8, 4), F)]),
        node("w", "VariableV2", out=[((4, 1), "float32_ref")]),
        node("w/read", "Identity", ["w"], out=[((4, 1), F)]),
        node("mm", "MatMul", ["IteratorGetNext", "w/read"], out=[((8, 1), F)]),
        node("_retval_mm_0", "_Retval", ["mm"])))


def test_getnext_stays_on_the_host_without_enable_data_pre_proc():
    part = P.partition(_graph(), P.PassOptions(), supported_ops.default(), 1)
    rules = {h.name: h.rule for h in part.host_ops}
    assert rules["IteratorGetNext"] == rules["IteratorV2"] == "not_supported"
    assert not {"IteratorGetNext", "IteratorV2"} & set(part.unknown_ops)
    assert [t.src for g in part.geops for t in g.inputs] == ["IteratorGetNext"]


def test_getnext_is_sunk_with_enable_data_pre_proc():
    part = P.partition(_graph(), P.PassOptions(enable_dp=True), supported_ops.default(), 1)
    (geop,) = part.geops
    names = {name for name, _ in geop.ops}
    assert {"IteratorV2", "IteratorGetNext", "mm"} <= names
    assert not {"IteratorGetNext", "IteratorV2"} & set(part.unknown_ops)


def test_the_getnext_host_rule_names_the_option_that_sinks_it():
    from npu_bridge.ge import partition_report
    part = P.partition(_graph(), P.PassOptions(), supported_ops.default(), 1)
    details = {h.name: h.detail for h in part.host_ops}
    for name in ("IteratorGetNext", "IteratorV2"):
        d = details[name]
        assert 'custom_op.parameter_map["enable_data_pre_proc"].b = True' in d, d
        assert "NPURunConfig(enable_data_pre_proc=True)" in d, d
        # where the adapter decides it: the pass's candidate rule and the option's defaults
        assert "om_partition_subgraphs_pass.cc:641-663" in d and "npu_attrs.cc:897" in d, d
        assert "npu_config.py:47" in d, d
    # the partition command's host-op line carries it
    text = "\n".join(partition_report.full_lines(part.to_dict(), top=5))
    assert "IteratorGetNext (IteratorGetNext): not_supported - enable_data_pre_proc off" in text
    # with the option on nothing is left to explain; an op the option does not move has none
    on = P.partition(_graph(), P.PassOptions(enable_dp=True), supported_ops.default(), 1)
    assert not [h for h in on.host_ops if "enable_data_pre_proc" in h.detail]
