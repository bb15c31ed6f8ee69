"""npu_plugin.npu_resource_init: the GEInitialize options the real plugin sends, checked by
the catalog, recorded like every other resolution.

Expected dicts are what hicann/tensorflow tf_adapter/python/npu_bridge/estimator/npu/
npu_plugin.py hands to PluginInit for the same arguments (PluginInit in tf_adapter/util/
ge_plugin.cc passes them to GEInitialize unchanged, adding only device/env keys of its own).
"""
import inspect
import os

import pytest

from npu_bridge.ge import plugin_args as _plugin_args, records as _records
from npu_bridge.estimator.npu import npu_plugin
from npu_bridge.ge import NpuConfigError, catalog, resolve
from npu_bridge.ge.products import forced_product

# npu_resource_init() with every argument at its default.
REAL_DEFAULTS = {
    "ge.graphRunMode": "1",
    "ge.opDebugLevel": "0",
    "ge.exec.profilingMode": "0",
    "ge.exec.enable_exception_dump": "2",
    "ge.hcomMultiMode": "0",
    "ge.aoe_config_file": "None",      # str(None): the real plugin always sends it
    "ge.exportCompileStat": "1",
    "ge.oo.constantFolding": "true",
    "ge.inputBatchCpy": "false",
    "ge.oo.level": "O3",
}


@pytest.fixture(autouse=True)
def _no_target_product(monkeypatch):
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    monkeypatch.delenv("GE_USE_STATIC_MEMORY", raising=False)
    with forced_product(None):
        yield


def _last_record():
    return _records.records()[-1]


def test_signature_and_defaults_are_the_real_ones():
    params = inspect.signature(npu_plugin.npu_resource_init).parameters
    assert [(n, p.default) for n, p in params.items()] == [
        ("graph_run_mode", 1), ("op_debug_level", 0), ("enable_profiling", False),
        ("profiling_options", None), ("precision_mode", None),
        ("enable_scope_fusion_passes", None), ("enable_exception_dump", 2), ("aoe_mode", None),
        ("work_path", None), ("op_compiler_cache_mode", None), ("op_compiler_cache_dir", None),
        ("debug_dir", None), ("hcom_multi_mode", False), ("distribute_config", None),
        ("aoe_config_file", None), ("precision_mode_v2", None), ("export_compile_stat", 1),
        ("aicore_num", None), ("oo_constant_folding", True), ("input_batch_cpy", False),
        ("oo_level", "O3"), ("optimization_switch", None)]


def test_signature_is_the_shared_table():
    # npu_plugin spells the signature out; lint and the checks read _plugin_args.SIGNATURE
    params = inspect.signature(npu_plugin.npu_resource_init).parameters
    assert [(n, p.default) for n, p in params.items()] == list(_plugin_args.SIGNATURE)
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params.values())
    spec = _plugin_args.spec()
    assert list(spec.rows) == list(params)
    assert spec.rows == {arg: catalog.find(arg) for arg in params}
    assert spec.defaults == {n: p.default for n, p in params.items()}


def test_every_argument_is_one_catalog_row_with_a_global_route_to_its_ge_key():
    for arg in inspect.signature(npu_plugin.npu_resource_init).parameters:
        row = catalog.find(arg)
        assert row is not None and row.key, arg
        assert any(r.level == "global" and r.key == row.ge_key for r in row.routes), arg


def test_defaults_send_what_the_real_plugin_sends():
    _records.clear()
    assert npu_plugin.npu_resource_init() == REAL_DEFAULTS
    rec = _last_record()
    assert rec["kind"] == "options" and rec["refused"] is False
    assert "npu_resource_init" in rec["name"]
    assert rec["options"].global_options == REAL_DEFAULTS
    assert rec["options"].session_options == {} and rec["options"].graph_options == {}
    assert rec["options"].errors == []
    # op_debug_level=0 is the function's default, not the user's choice: no deprecation note
    assert not [d for d in rec["options"].diagnostics if d.code == "NPB105"]


def test_training_set_profiling_mixed_precision_batch_copy():
    _records.clear()
    prof = '{"output":"/tmp/prof","training_trace":"on","task_time":"on"}'
    got = npu_plugin.npu_resource_init(
        precision_mode="allow_mix_precision", enable_profiling=True, profiling_options=prof,
        op_compiler_cache_mode="enable", op_compiler_cache_dir="/data/cache",
        debug_dir="/data/debug", hcom_multi_mode=True, input_batch_cpy=True,
        enable_scope_fusion_passes="ScopeLayerNormPass",
        optimization_switch="forbidden_close_pass:on",
        work_path="/not/sent/without/aoe_mode", distribute_config="not_sent_either.json")
    assert got == dict(REAL_DEFAULTS, **{
        "ge.exec.profilingMode": "1",
        "ge.exec.profilingOptions": prof,
        "ge.exec.precision_mode": "allow_mix_precision",
        "ge.exec.enableScopeFusionPasses": "ScopeLayerNormPass",
        "ge.op_compiler_cache_mode": "enable",
        "ge.op_compiler_cache_dir": "/data/cache",
        "ge.debugDir": "/data/debug",
        "ge.hcomMultiMode": "1",
        "ge.inputBatchCpy": "true",
        # the real plugin module spells this key itself, unlike GE and the session path
        "ge.optimization_switch": "forbidden_close_pass:on",
    })
    opts = _last_record()["options"]
    assert opts.global_options == got
    # GE reads ge.optimizationSwitch: the key the plugin sends is not one GE knows
    warn = [d for d in opts.warnings if d.code == "NPB135"]
    assert [d.option for d in warn] == ["ge.optimization_switch"]
    assert "ge.optimizationSwitch" in warn[0].message
    assert "ge.optimization_switch" not in opts.effective
    assert opts.sources["ge.exec.precision_mode"] == "npu_resource_init:precision_mode"


def test_aoe_tuning_set(tmp_path):
    got = npu_plugin.npu_resource_init(
        graph_run_mode=0, op_debug_level=1, enable_exception_dump=1, aoe_mode="2",
        work_path=str(tmp_path), distribute_config="dist.json",
        aoe_config_file="/data/aoe.json", precision_mode_v2="mixed_float16",
        export_compile_stat=2, aicore_num="2|4", oo_constant_folding=False, oo_level="O1")
    assert got == {
        "ge.graphRunMode": "0",
        "ge.opDebugLevel": "1",
        "ge.exec.profilingMode": "0",
        "ge.exec.enable_exception_dump": "1",
        "ge.jobType": "2",
        "ge.tuningPath": os.path.realpath(str(tmp_path)),
        "distribute_config": "dist.json",
        "ge.hcomMultiMode": "0",
        "ge.aoe_config_file": "/data/aoe.json",
        "ge.exec.precision_mode_v2": "mixed_float16",
        "ge.exportCompileStat": "2",
        "ge.aicoreNum": "2|4",
        "ge.oo.constantFolding": "false",
        "ge.inputBatchCpy": "false",
        "ge.oo.level": "O1",
    }
    # an explicitly chosen deprecated option is noted
    codes = [(d.code, d.option) for d in _last_record()["options"].diagnostics]
    assert ("NPB105", "op_debug_level") in codes


def test_aoe_mode_without_work_path_tunes_in_the_current_directory():
    got = npu_plugin.npu_resource_init(aoe_mode="4")
    assert got["ge.jobType"] == "4"
    assert got["ge.tuningPath"] == os.path.realpath("./")


def test_bad_value_names_option_value_and_allowed_values():
    with pytest.raises(NpuConfigError) as info:
        npu_plugin.npu_resource_init(precision_mode="fp17")
    assert isinstance(info.value, ValueError)
    (diag,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert (diag.code, diag.option, diag.value) == ("E10001", "precision_mode", "fp17")
    assert "allow_mix_precision" in diag.message and "must_keep_origin_dtype" in diag.message
    assert "precision_mode" in str(info.value) and "fp17" in str(info.value)


def test_every_error_at_once():
    with pytest.raises(NpuConfigError) as info:
        npu_plugin.npu_resource_init(graph_run_mode=2, precision_mode="fp17", oo_level="O2",
                                     aicore_num="all", enable_exception_dump=5,
                                     enable_profiling=1, hcom_multi_mode="yes")
    errors = {(d.code, d.option) for d in info.value.diagnostics if d.severity == "error"}
    assert errors == {("E10001", "graph_run_mode"), ("E10001", "precision_mode"),
                      ("E10001", "oo_level"), ("E10001", "aicore_num"),
                      ("E10001", "enable_exception_dump"),
                      ("NPB160", "enable_profiling"), ("NPB160", "hcom_multi_mode")}
    # the real plugin raises TypeError for a non-bool flag, ValueError for a bad value
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    for part in ("graph_run_mode", "0, 1", "oo_level", "O1, O3", "enable_profiling"):
        assert part in str(info.value)


def test_profiling_without_options_is_refused_as_the_real_one_does():
    with pytest.raises(ValueError, match="profiling_options") as info:
        npu_plugin.npu_resource_init(enable_profiling=True)
    assert [(d.code, d.option) for d in info.value.diagnostics if d.severity == "error"] == [
        ("NPB143", "profiling_options")]


def test_invalid_aoe_mode_type_and_value():
    with pytest.raises(NpuConfigError) as info:
        npu_plugin.npu_resource_init(aoe_mode=2)        # the real check wants '1', '2' or '4'
    assert [(d.code, d.option) for d in info.value.diagnostics if d.severity == "error"] == [
        ("NPB160", "aoe_mode")]
    with pytest.raises(NpuConfigError) as info:
        npu_plugin.npu_resource_init(aoe_mode="3")
    assert [(d.code, d.option, d.value) for d in info.value.diagnostics
            if d.severity == "error"] == [("E10001", "aoe_mode", "3")]


def test_product_rules_apply():
    with forced_product("atlas-training"):
        with pytest.raises(NpuConfigError) as info:
            npu_plugin.npu_resource_init(input_batch_cpy=True)
        assert [(d.code, d.option) for d in info.value.diagnostics
                if d.severity == "error"] == [("NPB112", "input_batch_cpy")]
        # the default False is not a use of the option
        assert npu_plugin.npu_resource_init()["ge.inputBatchCpy"] == "false"


def test_failure_leaves_no_state_and_is_recorded_as_refused():
    good = npu_plugin.npu_resource_init(precision_mode="force_fp16")
    _records.clear()
    with pytest.raises(NpuConfigError):
        npu_plugin.npu_resource_init(precision_mode="fp17", oo_level="O9")
    assert npu_plugin.last_init_options() == good
    (rec,) = _records.records()
    assert rec["refused"] is True and rec["kind"] == "options"
    assert {d.option for d in rec["options"].errors} == {"precision_mode", "oo_level"}
    # a refused call changes nothing for the next one
    assert npu_plugin.npu_resource_init(precision_mode="force_fp16") == good


def test_returned_dict_is_a_copy():
    got = npu_plugin.npu_resource_init()
    got["ge.graphRunMode"] = "0"
    assert npu_plugin.last_init_options()["ge.graphRunMode"] == "1"
    assert _last_record()["options"].global_options["ge.graphRunMode"] == "1"


def test_input_batch_cpy_reaches_ge_initialize_from_a_parameter_map_too():
    # npu_attrs.cc SetNpuOptimizerAttr: when the key is present, GEInitialize gets
    # input_batch_cpy / ge.inputBatchCpy as 'true'/'false'; the session always '1'/'0'.
    opts = resolve({"input_batch_cpy": True}, env={})
    assert opts.global_options["input_batch_cpy"] == "true"
    assert opts.global_options["ge.inputBatchCpy"] == "true"
    assert opts.session_options["ge.inputBatchCpy"] == "1"
    assert opts.effective["ge.inputBatchCpy"] == "1"   # the session value is the one GE reads
    assert "ge.inputBatchCpy" not in resolve({}, env={}).global_options


def test_missing_work_path_is_a_warning_here_and_still_sent_as_its_real_path():
    # The real util.check_path refuses a missing directory on the NPU machine; this run may be
    # elsewhere, so the catalog's rule (NPB144, warning) applies, as for the parameter_map.
    got = npu_plugin.npu_resource_init(aoe_mode="2", work_path="/no/such/aoe_dir")
    assert got["ge.tuningPath"] == os.path.realpath("/no/such/aoe_dir")
    diags = _last_record()["options"].diagnostics
    assert [(d.code, d.severity) for d in diags if d.option == "work_path"] == [
        ("NPB144", "warning")]


def test_unknown_keyword_is_pythons_type_error_with_lints_did_you_mean():
    # issue 25 item 5: lint's NBL012 had the hint, the call itself only Python's bare TypeError
    from npu_bridge.tools.lint import lint_source
    with pytest.raises(TypeError) as info:
        npu_plugin.npu_resource_init(precison_mode="allow_fp32_to_fp16")
    assert str(info.value) == ("npu_resource_init() got an unexpected keyword argument "
                               "'precison_mode'; did you mean 'precision_mode' or "
                               "'precision_mode_v2'?")
    src = ("from npu_bridge.estimator.npu import npu_plugin\n"
           "npu_plugin.npu_resource_init(precison_mode='allow_fp32_to_fp16')\n")
    lint = [f for f in lint_source(src, "s.py") if f.code == "NBL012"]
    assert [f.message for f in lint] == [str(info.value).replace(
        "'precison_mode';", "'precison_mode' (TypeError at run time);")]
    with pytest.raises(TypeError) as info:
        npu_plugin.npu_resource_init(*range(23))
    assert str(info.value) == "npu_resource_init() takes from 0 to 22 positional arguments " \
                              "but 23 were given"
    assert list(inspect.signature(npu_plugin.npu_resource_init).parameters) == \
        list(_plugin_args.PARAMS)
