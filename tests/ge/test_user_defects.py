"""Regression tests for the defects a user test found (one section per defect)."""
import threading

import pytest

from npu_bridge.ge import (CODES, NpuConfigError, check_graph, forced_product, resolve,
                           resolve_ge)
from npu_bridge.ge import catalog, products


def codes(opts):
    return [d.code for d in opts.diagnostics]


def err_of(call):
    with pytest.raises(NpuConfigError) as info:
        call()
    return info.value


# ---- 1. forced_product()
def test_forced_product_acts_like_product_argument_and_beats_soc_and_env():
    env = {"NPU_BRIDGE_PRODUCT": "atlas-training"}
    assert resolve({}, env=env).product == "atlas-training"
    with forced_product("atlas-a3-training"):
        assert resolve({}, env=env).product == "atlas-a3-training"
        assert resolve({"soc_config": "Ascend910B1"}, env=env).product == "atlas-a3-training"
        assert resolve_ge(env=env).product == "atlas-a3-training"
        # an explicit product= still wins over the override
        assert resolve({}, product="atlas-inference", env=env).product == "atlas-inference"
    assert resolve({}, env=env).product == "atlas-training"


def test_forced_product_nesting_restores_and_exceptions_restore():
    with forced_product("atlas-training"):
        with forced_product("Ascend910B2"):
            assert resolve({}, env={}).product == "atlas-a2-training"
        assert resolve({}, env={}).product == "atlas-training"
        with pytest.raises(RuntimeError):
            with forced_product("atlas-inference"):
                raise RuntimeError("boom")
        assert resolve({}, env={}).product == "atlas-training"
        with forced_product(None):
            assert resolve({}, env={}).product is None
    assert products.current_forced_product() is None


def test_forced_product_seen_from_other_threads_and_rules_apply():
    seen = []
    with forced_product("atlas-inference"):
        t = threading.Thread(target=lambda: seen.append(resolve({}, env={}).product))
        t.start()
        t.join()
        err = err_of(lambda: resolve({"variable_use_1g_huge_page": 1}, env={}))
        assert "NPB112" in [d.code for d in err.diagnostics]
    assert seen == ["atlas-inference"]


def test_forced_product_unknown_and_bad_type():
    with forced_product("atlas-nope"):
        err = err_of(lambda: resolve({}, env={}))
    d = [d for d in err.diagnostics if d.code == "NPB111"][0]
    assert d.value == "atlas-nope" and "--product" in d.message
    with pytest.raises(TypeError, match="forced_product.*5"):
        with forced_product(5):
            pass


def test_explicit_product_disagreeing_with_soc_config_warns_naming_both():
    opts = resolve({"soc_config": "Ascend910B1"}, product="atlas-training", env={})
    (w,) = [d for d in opts.diagnostics if d.code == "NPB115"]
    assert w.severity == "warning" and "atlas-training" in w.message and "Ascend910B1" in w.message
    assert "atlas-a2-training" in w.message
    with forced_product("atlas-a3-training"):
        opts = resolve({"soc_config": "Ascend910B1"}, env={})
    assert "NPB115" in codes(opts)
    opts = resolve_ge(global_options={"ge.socVersion": "Ascend910B1"}, product="atlas-training",
                      env={})
    assert "NPB115" in codes(opts)
    # agreeing names: no warning
    assert "NPB115" not in codes(resolve({"soc_config": "Ascend910B1"},
                                         product="atlas-a2-training", env={}))


def test_unknown_soc_config_is_npb111_also_when_a_product_is_forced():
    # the explicit product decides the rules, but GE would refuse an unknown SoC name
    def npb111(call):
        return [d for d in err_of(call).diagnostics if d.code == "NPB111"]
    for call in (lambda: resolve({"soc_config": "Ascend999"}, product="atlas-training", env={}),
                 lambda: resolve_ge(global_options={"ge.socVersion": "Ascend999"},
                                    product="atlas-training", env={})):
        (d,) = npb111(call)
        assert d.option == "soc_config" and d.value == "Ascend999"
        assert "from soc_config" in d.message and "Ascend910B1/B2" in d.message
    with forced_product("atlas-inference"):
        (d,) = npb111(lambda: resolve({"soc_config": "Ascend910B9"}, env={}))
    assert d.value == "Ascend910B9" and d.option == "soc_config"
    # an unknown forced product and an unknown soc_config: both reported
    with forced_product("atlas-nope"):
        found = npb111(lambda: resolve({"soc_config": "Ascend999"}, env={}))
    assert sorted(d.value for d in found) == ["Ascend999", "atlas-nope"]
    # the product still wins for the rules; a known SoC of that product: no finding
    opts = resolve({"soc_config": "Ascend910B1"}, product="atlas-a2-training", env={})
    assert opts.product == "atlas-a2-training" and "NPB111" not in codes(opts)



def test_unknown_env_product_is_reported_when_another_source_wins():
    # issue 25 item 5: $NPU_BRIDGE_PRODUCT=typo went unnoticed under --product or soc_config
    env = {"NPU_BRIDGE_PRODUCT": "atlas-a2-trainig"}
    for opts in (resolve({}, product="atlas-a2-training", env=env),
                 resolve({"soc_config": "Ascend910B1"}, env=env),
                 resolve_ge(global_options={"ge.socVersion": "Ascend910B1"}, env=env)):
        assert opts.product == "atlas-a2-training"
        (d,) = [d for d in opts.diagnostics if d.code == "NPB117"]
        assert d.severity == "warning" and d.option == "NPU_BRIDGE_PRODUCT"
        assert d.value == "atlas-a2-trainig"
        assert "not used" in d.message and "atlas-a2-training" in d.message
        assert "known product ids: ascend-950" in d.message
    # a known one that loses is not reported; alone an unknown one stays error NPB111
    assert "NPB117" not in codes(resolve({}, product="atlas-training",
                                         env={"NPU_BRIDGE_PRODUCT": "atlas-a2-training"}))
    assert [d.code for d in err_of(lambda: resolve({}, env=env)).diagnostics
            if d.code.startswith("NPB11")] == ["NPB111"]


# ---- 9. messages name a source a user's clone has
def test_product_messages_point_to_readme_not_design():
    err = err_of(lambda: resolve({}, product="nope", env={}))
    msg = [d for d in err.diagnostics if d.code == "NPB111"][0].message
    assert "DESIGN.md" not in msg and "docs/reference.md" in msg and "docs/options.md" in msg
    for code, row in CODES.items():
        source = row.source
        assert "DESIGN.md" not in source, code


def test_unknown_key_and_external_weight_dir_messages_name_a_source():
    err = err_of(lambda: resolve({"static_memory_polcy": 2}, env={}))
    (d,) = [d for d in err.diagnostics if d.code == "NPB100"]
    assert "source:" in d.message
    err = err_of(lambda: resolve_ge(session_options={"ge.externalWeightDir": "/tmp/w"}, env={}))
    (d,) = [d for d in err.diagnostics if d.code == "NPB133"]
    assert "source:" in d.message and "vendor page" in d.message


def test_seed_citations_name_the_vendor_page():
    err = err_of(lambda: resolve({"static_memory_policy": 7}, env={}))
    msg = err.diagnostics[0].message
    assert "vendor page 'MemoryConfig构造函数 (MemoryConfig constructor)'" in msg
    assert "docs/zh/tfadapter_1/apiref/npu_config/memoryconfig_constructor.md" in msg
    assert "vendor page" in CODES["NPB120"][2] and "memoryconfig_constructor.md" in CODES["NPB120"][2]


# ---- 2. cross-option rules of the reference (checked_by_adapter), as data
def test_optypelist_for_implmode_needs_op_select_implmode():
    err = err_of(lambda: resolve({"optypelist_for_implmode": "Pooling,SoftmaxV2"}, env={}))
    (d,) = [d for d in err.diagnostics if d.severity == "error"]
    assert (d.code, d.option) == ("NPB143", "optypelist_for_implmode")
    assert "op_select_implmode" in d.message and "LOG(FATAL)" in d.message
    resolve({"optypelist_for_implmode": "Pooling", "op_select_implmode": "high_precision"},
            env={})


@pytest.mark.parametrize("step, problem", [("5-1", "5-1"), ("0|3-3", "3-3"),
                                           ("|".join(["1"] * 101), "101 groups")])
def test_dump_step_ranges_ascend_and_at_most_100_groups(step, problem):
    err = err_of(lambda: resolve({"dump_step": step}, env={}))
    (d,) = [d for d in err.diagnostics if d.severity == "error"]
    assert (d.code, d.option, d.value) == ("E10001", "dump_step", step)
    assert problem in d.message


def test_dump_step_good_ranges_pass():
    resolve({"dump_step": "0|5|10-20|" + "|".join(["1"] * 96)}, env={})


def test_dump_path_and_work_path_must_be_existing_writable_dirs_warning(tmp_path):
    missing = str(tmp_path / "nope")
    for gate in ("enable_dump", "enable_dump_debug"):
        opts = resolve({gate: True, "dump_path": missing}, env={})
        (w,) = [d for d in opts.diagnostics if d.code == "NPB144"]
        assert w.severity == "warning" and w.option == "dump_path" and w.value == missing
        assert "machine that runs the script" in w.message
        assert "NPB144" not in codes(resolve({gate: True, "dump_path": str(tmp_path)}, env={}))
    # not read when dumping is off
    assert "NPB144" not in codes(resolve({"dump_path": missing}, env={}))
    opts = resolve({"aoe_mode": "2", "work_path": missing}, env={})
    assert [d.option for d in opts.diagnostics if d.code == "NPB144"] == ["work_path"]
    assert "NPB144" not in codes(resolve({"work_path": missing}, env={}))


def test_dynamic_profile_trio_must_be_set_together_and_hybrid_mode():
    trio = {"input_shape": "data:-1,3", "dynamic_dims": "1;2", "dynamic_node_type": 1}
    resolve(dict(trio), env={})
    resolve(dict(trio, compile_hybrid_mode=1), env={})
    err = err_of(lambda: resolve({"input_shape": "data:-1,3"}, env={}))
    (d,) = [d for d in err.diagnostics if d.severity == "error"]
    assert d.code == "NPB143" and "dynamic_dims" in d.message and "dynamic_node_type" in d.message
    err = err_of(lambda: resolve(dict(trio, dynamic_node_type=0, compile_hybrid_mode=1), env={}))
    assert [(d.code, d.option) for d in err.diagnostics if d.severity == "error"] == [
        ("NPB143", "compile_hybrid_mode")]
    # an invalid companion is reported once (E10001), not also as missing
    err = err_of(lambda: resolve(dict(trio, dynamic_dims="x"), env={}))
    assert [d.code for d in err.diagnostics if d.severity == "error"] == ["E10001"]


def test_modify_mixlist_needs_a_mixed_precision_mode():
    err = err_of(lambda: resolve({"modify_mixlist": "/tmp/ops.json"}, env={}))
    assert [d.code for d in err.diagnostics if d.severity == "error"] == ["NPB143"]
    err = err_of(lambda: resolve({"modify_mixlist": "/tmp/ops.json", "precision_mode": "force_fp16"},
                                 env={}))
    assert "allow_mix_precision" in err.diagnostics[-1].message or any(
        "allow_mix_precision" in d.message for d in err.diagnostics)
    resolve({"modify_mixlist": "/tmp/ops.json", "precision_mode": "allow_mix_precision"}, env={})
    resolve({"modify_mixlist": "/tmp/ops.json", "precision_mode_v2": "mixed_float16"}, env={})


def test_docs_only_rules_are_warnings():
    opts = resolve({"enable_dump": True, "enable_dump_debug": True, "dump_path": "/tmp"}, env={})
    assert [(d.code, d.severity) for d in opts.diagnostics if d.code == "NPB142"] == [
        ("NPB142", "warning")]
    opts = resolve({"variable_placement": "Host"}, env={})
    assert [(d.code, d.severity) for d in opts.diagnostics if d.code == "NPB143"] == [
        ("NPB143", "warning")]


def test_existing_exclusions_still_errors():
    for pm in ({"precision_mode": "force_fp16", "precision_mode_v2": "fp16"},
               {"enable_compress_weight": True, "compress_weight_conf": "/tmp/c.cfg"}):
        err = err_of(lambda: resolve(pm, env={}))
        assert [d.code for d in err.diagnostics if d.severity == "error"] == ["NPB142"]


def test_every_adapter_enforced_cross_rule_of_the_reference_is_a_catalog_row():
    import json
    import os
    from _reference import REFERENCE   # tests/_reference.py
    path = os.path.join(REFERENCE, "option_values.json")
    if not os.path.exists(path):
        pytest.skip("reference not available")
    ref = json.load(open(path))["options"]
    ref = ref if isinstance(ref, dict) else {o["key"]: o for o in ref}
    from npu_bridge.ge import cross
    ruled = {k for rule in cross.CROSS_RULES for k in rule.keys}
    for key, info in ref.items():
        check = info.get("checked_by_adapter") or {}
        allowed = check.get("allowed")
        if check.get("failure") in ("error", "fatal") and isinstance(allowed, str) and (
                "requires" in allowed or "together" in allowed or "existing directory" in allowed):
            assert key in ruled, key


# ---- 5. NPB140 counts the default share of the unset size
GIB = 1024 ** 3


def test_graph_plus_default_variable_memory_exceeds_device_memory():
    # atlas-training: 32 GiB; variable unset -> 5/32 of it = 5 GiB; 28 + 5 > 32
    err = err_of(lambda: resolve({"graph_memory_max_size": str(28 * GIB)},
                                 product="atlas-training", env={}))
    (d,) = [d for d in err.diagnostics if d.code == "NPB140"]
    assert d.value == 33 * GIB and "5/32" in d.message
    # variable set, graph unset -> 26/32 = 26 GiB; 7 + 26 > 32
    err = err_of(lambda: resolve({"variable_memory_max_size": str(7 * GIB)},
                                 product="atlas-training", env={}))
    assert [d.value for d in err.diagnostics if d.code == "NPB140"] == [33 * GIB]
    # fits with the default share
    resolve({"graph_memory_max_size": str(27 * GIB)}, product="atlas-training", env={})
    resolve({"variable_memory_max_size": str(6 * GIB)}, product="atlas-training", env={})


# ---- 8. check_graph keeps graph_options as sent; drops bad indices only in effective
def test_check_graph_keeps_what_the_adapter_sends():
    opts = resolve_ge(graph_options={"ge.exec.inputReuseMemIndexes": "0,1,5",
                                     "ge.exec.outputReuseMemIndexes": "7"}, env={})
    out = check_graph(opts, 2, 2)
    assert out.graph_options["ge.exec.inputReuseMemIndexes"] == "0,1,5"
    assert out.graph_options["ge.exec.outputReuseMemIndexes"] == "7"
    assert out.effective["ge.exec.inputReuseMemIndexes"] == "0,1"
    assert "ge.exec.outputReuseMemIndexes" not in out.effective
    warns = [d for d in out.diagnostics if d.code == "NPB131"]
    assert [d.option for d in warns] == ["ge.exec.inputReuseMemIndexes",
                                         "ge.exec.outputReuseMemIndexes"]


# ---- 7. bad argument types: clear errors naming the argument, the value, what is allowed
@pytest.mark.parametrize("n_in, exc", [("3", TypeError), (3.0, TypeError), (True, TypeError),
                                       (None, TypeError), (-1, NpuConfigError)])
def test_check_graph_counts(n_in, exc):
    opts = resolve_ge(env={})
    with pytest.raises(exc) as info:
        check_graph(opts, n_in, 2)
    assert "num_inputs" in str(info.value) and repr(n_in) in str(info.value) + repr(n_in)
    assert ">= 0" in str(info.value)
    with pytest.raises(TypeError, match="ge_options"):
        check_graph({"graph_options": {}}, 1, 1)


@pytest.mark.parametrize("kwargs, names", [
    ({"session_options": [("a", "b")]}, ["session_options", "[('a', 'b')]", "mapping"]),
    ({"global_options": "ge.x=1"}, ["global_options", "mapping"]),
    ({"graph_options": {5: "1"}}, ["graph_options", "5", "string"]),
    ({"ir_options": [1]}, ["ir_options", "mapping"]),
    ({"product": 5}, ["product=5", "str"]),
])
def test_resolve_ge_bad_argument_types(kwargs, names):
    with pytest.raises(TypeError) as info:
        resolve_ge(env={}, **kwargs)
    for name in names:
        assert name in str(info.value)


def test_resolve_bad_product_type_and_non_string_key():
    with pytest.raises(TypeError, match=r"product=\[.atlas-training.\].*str"):
        resolve({}, product=["atlas-training"], env={})
    from tensorflow.core.framework.attr_value_pb2 import AttrValue
    err = err_of(lambda: resolve({5: AttrValue(i=2)}, env={}))
    (d,) = err.diagnostics[:1]
    assert d.code == "NPB100" and d.option == "5" and d.message == (
        "parameter_map key 5 (int) is not a string: the real adapter only reads string keys; "
        "source: the parameter_map keys the real adapter reads (hicann/tensorflow "
        "tf_adapter/util/npu_attrs.cc:1917 NpuAttrs::SetNpuOptimizerAttr; docs/options.md)")
    # the diagnostic survives the JSON round trip of the error's partial result
    assert "5 (int)" in str(err)


@pytest.mark.parametrize("text, what", [
    ("{}", "missing key"), ("[]", "not an object"),
    ('{"product": 5, "global_options": {}, "session_options": {}, "graph_options": {}, '
     '"effective": {}, "diagnostics": []}', "product=5"),
    ('{"product": null, "global_options": {"a": 1}, "session_options": {}, "graph_options": {}, '
     '"effective": {}, "diagnostics": []}', "global_options"),
    ('{"product": null, "global_options": {}, "session_options": {}, "graph_options": {}, '
     '"effective": {}, "diagnostics": [{"code": "E10001"}]}', "diagnostics item"),
])
def test_ge_options_from_json_refuses_what_to_json_never_writes(text, what):
    from npu_bridge.ge import GeOptions
    with pytest.raises(TypeError) as info:
        GeOptions.from_json(text)
    assert what in str(info.value) and "GeOptions" in str(info.value)
    with pytest.raises(TypeError, match="from_json"):
        GeOptions.from_json(None)


# ---- 6. ge.externalWeightDir: not empty; unsafe paths refused (paths.py, NPB136)
@pytest.mark.parametrize("level", ["global_options", "session_options"])
def test_empty_external_weight_dir_is_an_error(level):
    err = err_of(lambda: resolve_ge(env={}, **{level: {"ge.externalWeight": "1",
                                                       "ge.externalWeightDir": ""}}))
    (d,) = [d for d in err.diagnostics if d.severity == "error"]
    assert (d.code, d.option, d.value) == ("E10001", "ge.externalWeightDir", "")
    assert "non-empty" in d.message or "empty" in d.message


def test_unsafe_external_weight_dirs_are_refused(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    for bad in (str(tmp_path / "a" / ".." / "b"), str(link)):
        err = err_of(lambda: resolve_ge(session_options={"ge.externalWeight": "1",
                                                         "ge.externalWeightDir": bad}, env={}))
        assert [d.code for d in err.diagnostics if d.severity == "error"] == ["NPB136"]
    err = err_of(lambda: resolve_ge(session_options={"ge.externalWeight": "1"},
                                    env={"ASCEND_WORK_PATH": str(link)}))
    assert [d.option for d in err.diagnostics if d.code == "NPB136"] == ["ASCEND_WORK_PATH"]


# ---- session 2 tester findings: message wording
def test_npb120_says_runs_as_only_when_the_policy_changes():
    for given, runs_as in ((2, None), (1, 2), (4, None)):
        with pytest.raises(NpuConfigError) as err:
            resolve({"static_memory_policy": given, "graph_max_parallel_model_num": 2}, env={})
        (d,) = [d for d in err.value.diagnostics if d.code == "NPB120"]
        assert ("static_memory_policy=%d " % given) in d.message
        assert ("runs as %d" % runs_as in d.message) if runs_as else "runs as" not in d.message


def test_npb104_for_a_ge_key_given_directly_does_not_claim_the_adapter_clamped_it():
    out = resolve_ge(graph_options={"ge.exec.input_fusion_size": "40000000"}, env={})
    (d,) = [d for d in out.diagnostics if d.code == "NPB104"]
    assert "not documented" in d.message and "33554432" in d.message
    (d,) = [d for d in resolve({"input_fusion_size": 40000000}, env={}).diagnostics
            if d.code == "NPB104"]
    assert "as the real adapter does" in d.message
