"""Explicit tests for each DESIGN.md rule and for cases 1-7, 9, 10 of
/work/shared/acceptance/bad_configs.py (ConfigProto built with TF's own protobuf classes)."""
import os
import subprocess
import sys

import pytest

from npu_bridge.ge import (GeOptions, NpuConfigError, check_graph, products, resolve,
                           resolve_ge)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


from npu_protos import proto  # noqa: E402


def errors_of(call):
    with pytest.raises(NpuConfigError) as info:
        call()
    return [d for d in info.value.diagnostics if d.severity == "error"]


# ---- acceptance bad_configs.py cases
def test_case1_policy_value_that_does_not_exist():
    errs = errors_of(lambda: resolve(proto(static_memory_policy=7), env={}))
    assert [(d.code, d.option, d.value) for d in errs] == [("E10001", "static_memory_policy", 7)]
    assert "0, 2, 3, 4" in errs[0].message and "memoryconfig_constructor.md" in errs[0].message


@pytest.mark.parametrize("policy", [1, 2, 4])
def test_case2_policy_2_or_4_with_parallel_graphs(policy):
    errs = errors_of(lambda: resolve(proto(static_memory_policy=policy,
                                           graph_max_parallel_model_num=4), env={}))
    assert [d.code for d in errs] == ["NPB120"]


@pytest.mark.parametrize("policy", [0, 3])
def test_policies_0_and_3_allow_parallel_graphs(policy):
    resolve(proto(static_memory_policy=policy, graph_max_parallel_model_num=4), env={})


def test_case3_legacy_policy_1_runs_as_2_with_a_warning():
    opts = resolve(proto(static_memory_policy=1), env={})
    assert opts.effective["ge.exec.staticMemoryPolicy"] == "2"
    assert opts.global_options["ge.exec.staticMemoryPolicy"] == "1"  # sent as given
    assert opts.global_options["static_memory_policy"] == "1"  # the adapter's duplicate key
    warns = [d for d in opts.diagnostics if d.severity == "warning"]
    assert [(d.code, d.option) for d in warns] == [("NPB103", "static_memory_policy")]


def test_case4_typo_suggests_the_right_key():
    errs = errors_of(lambda: resolve(proto(sump_mode="all"), env={}))
    assert errs[0].code == "NPB100" and "'dump_mode'" in errs[0].message
    # the source names the catalog, not its size: a new row changes no message (issue 14)
    assert errs[0].message == (
        "parameter_map key 'sump_mode' is unknown: the real adapter ignores it; did you mean "
        "'dump_mode' or 'dump_debug_mode'?; source: the parameter_map keys the real adapter "
        "reads (hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 NpuAttrs::SetNpuOptimizerAttr; "
        "docs/options.md)")


def test_case5_value_in_the_wrong_attr_value_field():
    errs = errors_of(lambda: resolve(proto(precision_mode=True), env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB101", "precision_mode")]


def test_jit_compile_in_b_is_refused_as_the_adapter_refuses_it():
    # npu_attrs.cc:2635: NPU_REQUIRES value_case == kS (tests/ge/test_adapter_fields.py)
    errs = errors_of(lambda: resolve(proto(jit_compile=False), env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB102", "jit_compile")]


def test_what_the_estimator_writes_is_never_an_error():
    opts = resolve(proto(min_group_size=True, enable_reduce_precision=False), env={})
    assert opts.errors == []


def test_case6_huge_pages_product_rule():
    errs = errors_of(lambda: resolve(proto(variable_use_1g_huge_page=1),
                                     product="atlas-inference", env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB112", "variable_use_1g_huge_page")]
    # seed: A3 training/inference and A2 training only (docs also list A2 inference: seed wins)
    errors_of(lambda: resolve(proto(variable_use_1g_huge_page=1), product="atlas-a2-inference",
                              env={}))
    opts = resolve(proto(variable_use_1g_huge_page=1), product="atlas-a2-training", env={})
    assert opts.global_options["ge.variableUse1gHugePage"] == "1"
    assert opts.session_options["ge.variableUse1gHugePage"] == "1"


def test_case7_input_fusion_size_clamped_with_a_warning_and_an_info():
    opts = resolve(proto(input_fusion_size=64 * 1024 * 1024), env={})
    assert opts.effective["ge.exec.input_fusion_size"] == "33554432"
    assert opts.session_options["input_fusion_size"] == "33554432"
    assert [d.code for d in opts.warnings] == ["NPB104"]
    assert "NPB122" in [d.code for d in opts.diagnostics if d.severity == "info"]


def test_case9_every_error_at_once():
    errs = errors_of(lambda: resolve(proto(static_memory_policy=9, atomic_clean_policy=5,
                                           variable_use_1g_huge_page=3), env={}))
    assert {d.option for d in errs} == {"static_memory_policy", "atomic_clean_policy",
                                        "variable_use_1g_huge_page"}


def test_case10_good_config_at_the_right_levels():
    opts = resolve(proto(static_memory_policy=2, atomic_clean_policy=1, external_weight=True,
                         input_batch_cpy=False), env={})
    assert opts.global_options["ge.exec.staticMemoryPolicy"] == "2"
    assert opts.session_options["ge.exec.atomicCleanPolicy"] == "1"
    assert opts.session_options["ge.externalWeight"] == "1"
    assert opts.session_options["ge.inputBatchCpy"] == "0"
    assert opts.errors == []


# ---- other DESIGN rules
def test_ge_use_static_memory_merge_and_warning():
    opts = resolve(proto(static_memory_policy=3), env={"GE_USE_STATIC_MEMORY": "2"})
    assert opts.effective["ge.exec.staticMemoryPolicy"] == "4"
    warn = [d for d in opts.warnings if d.code == "NPB121"][0]
    assert "GE_USE_STATIC_MEMORY" in warn.message and "static_memory_policy" in warn.message
    assert resolve(proto(), env={"GE_USE_STATIC_MEMORY": "1"}).effective[
        "ge.exec.staticMemoryPolicy"] == "2"
    assert resolve(proto(), env={}).effective["ge.exec.staticMemoryPolicy"] == "0"


def test_memory_config_class_product_rule():
    class RunConfig:
        def _npu_resolve_input(self):
            return {"atomic_clean_policy": 0}, frozenset({"MemoryConfig"})
    errs = errors_of(lambda: resolve(RunConfig(), product="atlas-a2-inference", env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB114", "MemoryConfig")]
    resolve(RunConfig(), product="atlas-training", env={})


def test_input_batch_cpy_product_rule_from_the_seed():
    errs = errors_of(lambda: resolve(proto(input_batch_cpy=True), product="atlas-training",
                                     env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB112", "input_batch_cpy")]


def test_docs_rules():
    errs = errors_of(lambda: resolve(proto(iterations_per_loop=0), env={}))
    assert errs[0].option == "iterations_per_loop"
    errs = errors_of(lambda: resolve(proto(mix_compile_mode=True, iterations_per_loop=10), env={}))
    assert [d.code for d in errs] == ["NPB141"]
    errs = errors_of(lambda: resolve(proto(graph_run_mode=2), env={}))
    assert errs[0].option == "graph_run_mode"
    size = str(20 * 1024 ** 3)
    errs = errors_of(lambda: resolve(proto(graph_memory_max_size=size,
                                           variable_memory_max_size=size),
                                     product="atlas-training", env={}))
    assert [d.code for d in errs] == ["NPB140"]
    resolve(proto(graph_memory_max_size=size, variable_memory_max_size=size),
            product="atlas-a2-training", env={})


def test_product_precedence_and_unknown_names():
    pm = {"soc_config": "Ascend910B1"}
    assert resolve(pm, env={"NPU_BRIDGE_PRODUCT": "atlas-inference"}).product == "atlas-a2-training"
    assert resolve(pm, product="atlas-training", env={}).product == "atlas-training"
    assert resolve({}, env={"NPU_BRIDGE_PRODUCT": "atlas-inference"}).product == "atlas-inference"
    none = resolve({}, env={})
    assert none.product is None and [d.code for d in none.diagnostics] == ["NPB110"]
    errs = errors_of(lambda: resolve({}, product="atlas-9000", env={}))
    assert errs[0].code == "NPB111" and "atlas-a2-training" in errs[0].message


@pytest.mark.parametrize("soc,pid", [("Ascend910A", "atlas-training"),
                                     ("Ascend910B", "atlas-training"),
                                     ("Ascend910ProB", "atlas-training"),
                                     ("Ascend910B3", "atlas-a2-training"),
                                     ("Ascend910B4-1", "atlas-a2-training"),
                                     ("Ascend910_9391", "atlas-a3-training"),
                                     ("Ascend310P3", "atlas-inference"),
                                     ("Ascend310B1", "atlas-200i-500-a2"),
                                     ("Ascend950PR_9599", "ascend-950"),
                                     ("Ascend310", None), ("Ascend910B9", None)])
def test_soc_mapping(soc, pid):
    assert products.product_from_soc(soc) == pid


def test_graph_level_options_and_levels():
    errs = errors_of(lambda: resolve_ge(session_options={"ge.exec.inputReuseMemIndexes": "0,1"},
                                        env={}))
    assert [(d.code, d.option) for d in errs] == [("NPB130", "ge.exec.inputReuseMemIndexes")]
    opts = resolve_ge(graph_options={"ge.exec.inputReuseMemIndexes": "0,1,5",
                                     "ge.exec.outputReuseInputMemIndexes": "0,1|6,8"}, env={})
    assert "NPB132" in [d.code for d in opts.diagnostics]
    errs = errors_of(lambda: resolve_ge(graph_options={
        "ge.exec.outputReuseInputMemIndexes": "0,1;6,8"}, env={}))
    assert errs[0].code == "E10001"
    checked = check_graph(opts, num_inputs=7, num_outputs=9)
    assert checked.effective["ge.exec.inputReuseMemIndexes"] == "0,1,5"
    assert checked.effective["ge.exec.outputReuseInputMemIndexes"] == "0,1|6,8"
    assert not checked.errors and not checked.warnings
    # inputReuseMemIndexes: the adapter still sends an out-of-range index; GE ignores it
    # (seed: "该index配置不生效"), a warning
    opts = resolve_ge(graph_options={"ge.exec.inputReuseMemIndexes": "0,1,5",
                                     "ge.exec.outputReuseInputMemIndexes": "0,1"}, env={})
    checked = check_graph(opts, num_inputs=3, num_outputs=4)
    assert checked.effective["ge.exec.inputReuseMemIndexes"] == "0,1"
    assert checked.graph_options["ge.exec.inputReuseMemIndexes"] == "0,1,5"
    assert [d.code for d in checked.warnings] == ["NPB131"]
    assert opts.graph_options["ge.exec.inputReuseMemIndexes"] == "0,1,5"  # input unchanged


def test_output_reuse_input_pairs_out_of_range_are_an_error():
    # seed: the declared input/output indices must be within the model's range ("必须属于模型
    # 定义的合法范围"); not "ignored" as for the other two reuse options
    opts = resolve_ge(graph_options={"ge.exec.outputReuseInputMemIndexes": "0,1|6,8",
                                     "ge.exec.inputReuseMemIndexes": "0,9"}, env={})
    errs = errors_of(lambda: check_graph(opts, num_inputs=3, num_outputs=4))
    assert [(d.code, d.option) for d in errs] == [("E10001", "ge.exec.outputReuseInputMemIndexes")]
    assert "6,8" in errs[0].message and "3 inputs" in errs[0].message and "options_params/memory_management.md" in errs[0].message
    with pytest.raises(NpuConfigError) as err:   # every diagnostic, the warning too
        check_graph(opts, num_inputs=3, num_outputs=4)
    assert {d.code for d in err.value.diagnostics} >= {"E10001", "NPB131"}


def test_atomic_clean_policy_ge_key_is_session_only_per_the_seed():
    errs = errors_of(lambda: resolve_ge(global_options={"ge.exec.atomicCleanPolicy": "1"}, env={}))
    assert errs[0].code == "NPB130"
    resolve_ge(session_options={"ge.exec.atomicCleanPolicy": "1"}, env={})


def test_external_weight_rules_and_directory():
    errs = errors_of(lambda: resolve_ge(session_options={"ge.externalWeightDir": "/w"}, env={}))
    assert [d.code for d in errs] == ["NPB133"]
    errs = errors_of(lambda: resolve_ge(session_options={"ge.externalWeight": "3"}, env={}))
    assert errs[0].code == "E10001"
    opts = resolve_ge(session_options={"ge.externalWeight": "2", "ge.externalWeightDir": "/w"},
                      env={})
    assert opts.effective["ge.externalWeightDir"] == "/w"
    opts = resolve_ge(session_options={"ge.externalWeight": "1"}, env={"ASCEND_WORK_PATH": "/aw"})
    assert opts.effective["ge.externalWeightDir"] == "/aw/tmp_weight_%d_<sessionid>" % os.getpid()
    opts = resolve(proto(external_weight=True), env={})
    assert opts.effective["ge.externalWeightDir"] == "./tmp_weight_%d_<sessionid>" % os.getpid()


def test_ir_options_map_to_ge_keys():
    opts = resolve_ge(ir_options={"EXEC_DISABLE_REUSED_MEMORY": "1", "EXTERNAL_WEIGHT": "1"},
                      env={})
    assert opts.global_options == {"ge.exec.disableReuseMemory": "1", "ge.externalWeight": "1"}
    assert opts.sources["ge.exec.disableReuseMemory"] == "ir_option:EXEC_DISABLE_REUSED_MEMORY"
    errs = errors_of(lambda: resolve_ge(ir_options={"EXTERNAL_WEIGHT": "5"}, env={}))
    assert [(d.code, d.option) for d in errs] == [("E10001", "EXTERNAL_WEIGHT")]


def test_json_round_trip_with_stable_key_order():
    opts = resolve(proto(static_memory_policy=1), product="atlas-a2-training", env={})
    text = opts.to_json()
    again = GeOptions.from_json(text)
    assert again == opts and again.to_json() == text
    assert list(again.to_dict()) == ["product", "global_options", "session_options",
                                     "graph_options", "adapter_options", "effective", "sources",
                                     "diagnostics"]


def test_plain_dict_parameter_map_and_custom_optimizer_inputs():
    config = proto(static_memory_policy=3)
    op = config.graph_options.rewrite_options.custom_optimizers[0]
    assert resolve(op, env={}).global_options["ge.exec.staticMemoryPolicy"] == "3"
    assert resolve(op.parameter_map, env={}).global_options["static_memory_policy"] == "3"
    assert resolve({"static_memory_policy": 3, "precision_mode": b"force_fp32"}, env={}) \
        .global_options["ge.exec.precision_mode"] == "force_fp32"
    with pytest.raises(TypeError):
        resolve(42, env={})


def test_layer1_imports_without_tensorflow():
    code = "import sys, npu_bridge.ge; assert 'tensorflow' not in sys.modules, 'tf imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=ROOT))


def test_generated_docs_are_up_to_date():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_catalog_doc.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_whole_map_memo_follows_every_change():
    """Resolving a parameter_map again after changing it (a value in place, a field, a key, or
    a plain value's type) gives a fresh resolution (the resolver keeps no memo of maps), and
    the returned dicts are the caller's own (mutating one does not leak into the next call)."""
    config = proto(precision_mode="allow_mix_precision", iterations_per_loop=1)
    pmap = config.graph_options.rewrite_options.custom_optimizers[0].parameter_map
    first = resolve(pmap, env={})
    assert first.global_options["ge.exec.precision_mode"] == "allow_mix_precision"
    first.global_options["ge.exec.precision_mode"] = "tampered"
    first.sources.clear()
    again = resolve(pmap, env={})
    assert again.global_options["ge.exec.precision_mode"] == "allow_mix_precision"
    assert again.sources
    pmap["precision_mode"].s = b"force_fp16"
    assert resolve(pmap, env={}).global_options["ge.exec.precision_mode"] == "force_fp16"
    pmap["precision_mode"].s = b"not_a_mode"
    errs = errors_of(lambda: resolve(pmap, env={}))
    assert [d.option for d in errs] == ["precision_mode"]
    pmap["precision_mode"].i = 1   # a different field: the adapter ignores it (NPB101)
    assert [d.code for d in errors_of(lambda: resolve(pmap, env={}))] == ["NPB101"]
    del pmap["precision_mode"]
    assert resolve(pmap, env={}).sources.get("ge.exec.precision_mode") != \
        "parameter_map:precision_mode"
    # plain dicts: True == 1, but a bool is not an int here
    ok = resolve({"iterations_per_loop": 1}, env={})
    assert not ok.errors
    assert [d.code for d in errors_of(lambda: resolve({"iterations_per_loop": True},
                                                      env={}))] == ["NPB101"]


def test_memoized_map_still_checks_the_file_system_each_call(tmp_path):
    """The rules that look at the machine (existing_dir) look again at each call: removing
    dump_path between two calls of the same parameter_map is reported."""
    dump = tmp_path / "dump"
    dump.mkdir()
    config = proto(enable_dump=True, dump_path=str(dump))
    pmap = config.graph_options.rewrite_options.custom_optimizers[0].parameter_map
    def npb144():
        return [d.option for d in resolve(pmap, env={}).diagnostics if d.code == "NPB144"]
    assert npb144() == [] and npb144() == []
    dump.rmdir()
    assert npb144() == ["dump_path"]
    dump.mkdir()
    assert npb144() == []


def test_existing_dir_rule_refuses_a_file_and_a_missing_path_and_takes_a_directory(tmp_path):
    """NPB144 (existing_dir): dump_path must be an existing directory; a regular file, a path
    through a file and a missing path are reported, a directory (with or without a trailing
    slash) is not."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    def npb144(path):
        got = resolve({"enable_dump": True, "dump_path": path}, env={}).diagnostics
        return [d.value for d in got if d.code == "NPB144"]
    assert npb144(str(afile)) == [str(afile)]
    assert npb144(str(afile / "sub")) == [str(afile / "sub")]
    assert npb144(str(tmp_path / "missing")) == [str(tmp_path / "missing")]
    assert npb144(str(tmp_path)) == [] and npb144(str(tmp_path) + "/") == []
