"""Tests of npu_bridge.estimator.npu.npu_config (layer 2).

Expected parameter_maps are written out by hand from what the real NPUEstimator
(hicann/tensorflow npu_estimator.py, __load_graph_optimizers) writes; signatures come from
the reference npu_options.json.
"""
import ast
import inspect
import json
import os

import pytest
import tensorflow as tf
from google.protobuf import text_format

from npu_bridge.estimator.npu import npu_config as nc
from npu_bridge.estimator.npu.npu_config import (
    DumpConfig, DynamicInputConfig, ExperimentalConfig, GraphMemoryOptimizeConfig,
    MemoryConfig, NpuArgumentError, NpuExecutePlacement, NPURunConfig, ProfilingConfig,
    render_parameter_map, render_session_config)

from _reference import REFERENCE  # noqa: E402  (tests/_reference.py)
_OPTIONS_JSON = os.path.join(REFERENCE, "npu_options.json")


def _classes():
    if not os.path.exists(_OPTIONS_JSON):
        return []
    with open(_OPTIONS_JSON) as f:
        return sorted(json.load(f)["classes"].items())


@pytest.fixture(autouse=True)
def _no_tf_config(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)


def _render(run_config):
    """{key: (field, value)} of the rendered NpuOptimizer parameter_map."""
    op = render_parameter_map(run_config, tf.compat.v1.ConfigProto().graph_options
                              .rewrite_options.custom_optimizers.add())
    assert op.name == "NpuOptimizer"
    out = {}
    for key, attr in op.parameter_map.items():
        field = attr.WhichOneof("value")
        value = getattr(attr, field)
        out[key] = (field, value.decode() if isinstance(value, bytes) else value)
    return out


# What the real estimator writes for NPURunConfig() with no TF_CONFIG.
DEFAULT_MAP = {
    "enable_data_pre_proc": ("b", True), "mix_compile_mode": ("b", False),
    "use_off_line": ("b", True), "iterations_per_loop": ("i", 1),
    "is_tailing_optimization": ("b", False), "min_group_size": ("b", True),
    "hcom_parallel": ("b", True), "graph_run_mode": ("i", 1),
    "enable_exception_dump": ("i", 2), "buffer_optimize": ("s", "l2_optimize"),
    "enable_small_channel": ("i", 0), "deterministic": ("i", 0),
    "enable_compress_weight": ("b", False), "hcom_multi_mode": ("b", False),
    "dynamic_graph_execute_mode": ("s", "dynamic_execute"),
    "device_type": ("s", "default_device_type"), "graph_max_parallel_model_num": ("i", 1),
    "jit_compile": ("s", "auto"), "input_fusion_size": ("i", 131072),
    "stream_sync_timeout": ("i", -1), "event_sync_timeout": ("i", -1),
    "external_weight": ("b", False), "frozen_variable": ("b", False),
    "variable_placement": ("s", "Device"), "shape_generalization_mode": ("s", "STRICT"),
    "all_tensor_not_empty": ("b", False), "enable_reduce_precision": ("b", False),
    "enable_dump": ("b", False), "enable_dump_debug": ("b", False),
    "job": ("s", "localhost"), "task_index": ("i", 0),
    "experimental_logical_device_cluster_deploy_mode": ("s", "LB"),
    "export_compile_stat": ("i", 1), "oo_constant_folding": ("b", True),
    "input_batch_cpy": ("b", False), "oo_level": ("s", "O3"),
}


# ---------------------------------------------------------------------------------------------
# Signatures and defaults

@pytest.mark.skipif(not os.path.exists(_OPTIONS_JSON), reason="reference npu_options.json absent")
@pytest.mark.parametrize("name,params", _classes(), ids=[n for n, _ in _classes()])
def test_signature_matches_reference(name, params):
    cls = getattr(nc, name)
    got = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in got] == [p["name"] for p in params]
    for param, ref in zip(got, params):
        if ref["default"] == "<required>":
            assert param.default is inspect.Parameter.empty, param.name
        else:
            assert param.default == ast.literal_eval(ref["default"]), param.name


def test_npurunconfig_has_88_arguments_and_is_a_runconfig():
    assert len(inspect.signature(NPURunConfig.__init__).parameters) - 1 == 88
    config = NPURunConfig()
    assert isinstance(config, tf.estimator.RunConfig)
    assert isinstance(config, tf.compat.v1.estimator.RunConfig)


def test_defaults_stored_under_real_attribute_names():
    config = NPURunConfig()
    assert config.iterations_per_loop == 1 and config._iterations_per_loop == 1
    assert config._precision_mode is None and config._memory_config is None
    assert config.enable_data_pre_proc is True and config.mix_compile_mode is False
    assert config._hcom_parallel is True and config.graph_run_mode == 1
    assert config._input_fusion_size == 131072 and config._jit_compile == "auto"
    # Real class: save_summary_steps 0; checkpoints every 100 steps when neither is given.
    assert config.save_summary_steps == 0
    assert config.save_checkpoints_steps == 100 and config.save_checkpoints_secs is None


def test_save_checkpoints_secs_alone_and_both_refused():
    assert NPURunConfig(save_checkpoints_secs=60).save_checkpoints_steps is None
    with pytest.raises(ValueError, match="save_checkpoints"):
        NPURunConfig(save_checkpoints_steps=10, save_checkpoints_secs=60)


def test_npu_execute_placement_enum():
    assert {m.name: m.value for m in NpuExecutePlacement} == {
        "ALL": "all", "CUBE": "cube", "VECTOR": "vector", "TAISHAN": "taishan",
        "DVPP": "dvpp", "HOST": "host"}


# ---------------------------------------------------------------------------------------------
# Type checks

def test_all_type_errors_reported_at_once():
    with pytest.raises(NpuArgumentError) as info:
        NPURunConfig(iterations_per_loop="10", precision_mode=3, hcom_parallel=None,
                     horovod_mode=1, memory_config={"static_memory_policy": 2},
                     input_fusion_size="big")
    err = info.value
    assert isinstance(err, TypeError) and isinstance(err, ValueError)
    assert len(err.problems) == 6
    text = str(err)
    for needle in ("iterations_per_loop='10'", "precision_mode=3", "hcom_parallel=None",
                   "horovod_mode=1", "memory_config=", "input_fusion_size='big'",
                   "expected a MemoryConfig", "parameter_map['precision_mode'].s"):
        assert needle in text, needle


def _codes(info):
    return [(d.code, d.option) for d in info.value.diagnostics if d.severity == "error"]


def test_real_python_value_checks_carry_the_resolver_codes():
    with pytest.raises(NpuArgumentError, match="needs iterations_per_loop == 1") as info:
        NPURunConfig(mix_compile_mode=True, iterations_per_loop=10)
    assert _codes(info) == [("NPB141", "mix_compile_mode")]
    with pytest.raises(NpuArgumentError, match=r"graph_run_mode: 2") as info:
        NPURunConfig(graph_run_mode=2)
    assert _codes(info) == [("E10001", "graph_run_mode")]
    with pytest.raises(NpuArgumentError, match=r"iterations_per_loop: 0") as info:
        NPURunConfig(iterations_per_loop=0)
    assert _codes(info) == [("E10001", "iterations_per_loop")]   # as lint / options say
    with pytest.raises(NpuArgumentError, match="enable_exception_dump: -1"):
        NPURunConfig(enable_exception_dump=-1)


def test_every_value_and_type_problem_reported_at_once():
    from npu_bridge.ge import NpuConfigError
    with pytest.raises(NpuConfigError) as info:
        NPURunConfig(iterations_per_loop=0, graph_run_mode=2,
                     memory_config=MemoryConfig(static_memory_policy=9), precision_mode="bogus")
    err = info.value
    assert isinstance(err, NpuArgumentError) and isinstance(err, TypeError)
    assert isinstance(err, ValueError)
    assert sorted(_codes(info)) == [("E10001", "graph_run_mode"), ("E10001", "iterations_per_loop"),
                                    ("E10001", "precision_mode"), ("E10001", "static_memory_policy")]
    assert len(err.problems) == 4
    # a type problem: the class's own checks, every one with a code
    with pytest.raises(NpuArgumentError) as info:
        NPURunConfig(iterations_per_loop=0, precision_mode=3)
    assert sorted(_codes(info)) == [("E10001", "iterations_per_loop"), ("NPB160", "precision_mode")]


def test_value_rules_are_the_resolvers():
    # Out-of-range values of the right type: refused with the resolver's codes; a clamp
    # (input_fusion_size) is only a warning, so the config is built.
    with pytest.raises(NpuArgumentError) as info:
        NPURunConfig(memory_config=MemoryConfig(static_memory_policy=7),
                     precision_mode="no_such_mode")
    assert sorted(_codes(info)) == [("E10001", "precision_mode"), ("E10001", "static_memory_policy")]
    config = NPURunConfig(input_fusion_size=10 ** 9)
    assert config._input_fusion_size == 10 ** 9


def test_ps_mode_needs_cluster_and_strategy(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}}))
    with pytest.raises(NpuArgumentError, match="ParameterServerStrategy"):
        NPURunConfig()


def test_config_class_type_errors():
    with pytest.raises(NpuArgumentError) as info:
        DumpConfig(enable_dump="yes", dump_path=3, dump_mode=None)
    assert len(info.value.problems) == 2  # dump_mode None is fine (not written)
    assert "enable_dump='yes'" in str(info.value) and "dump_path=3" in str(info.value)
    with pytest.raises(NpuArgumentError, match="atomic_clean_policy=None"):
        MemoryConfig(atomic_clean_policy=None)
    with pytest.raises(NpuArgumentError, match="graph_memory_optimize_config"):
        ExperimentalConfig(graph_memory_optimize_config="auto")
    with pytest.raises(NpuArgumentError, match=r"graph_slice: 'on'.*'auto', 'manual'"):
        GraphMemoryOptimizeConfig(graph_slice="on")
    with pytest.raises(NpuArgumentError, match="dynamic_node_type='1'"):
        DynamicInputConfig("x:-1,3", "1;2", "1", 0)
    with pytest.raises(NpuArgumentError, match="enable_profiling=None"):
        ProfilingConfig(enable_profiling=None)
    with pytest.raises(TypeError):
        DynamicInputConfig("x:-1,3")  # all four are required, as in the real class


def test_memoryconfig_positional_third_both_call_styles():
    seed_form = MemoryConfig(0, 2, 1)            # the seed's prototype: huge page third
    assert seed_form._variable_use_1g_huge_page == 1
    assert seed_form._memory_optimization_policy is None
    real_form = MemoryConfig(0, 2, "MemoryPriority")   # the real signature
    assert real_form._memory_optimization_policy == "MemoryPriority"
    assert real_form._variable_use_1g_huge_page == 0
    both = MemoryConfig(0, 2, "MemoryPriority", 2)
    assert (both._memory_optimization_policy, both._variable_use_1g_huge_page) == (
        "MemoryPriority", 2)
    for ambiguous in ((0, 2, 5), (0, 2, 1, 2)):
        with pytest.raises(NpuArgumentError) as info:
            MemoryConfig(*ambiguous)
        assert "variable_use_1g_huge_page" in str(info.value)
        assert "memory_optimization_policy" in str(info.value)


def test_iterations_per_loop_property_setter_checks():
    config = NPURunConfig(iterations_per_loop=5)
    config.iterations_per_loop = 7
    assert config._iterations_per_loop == 7
    with pytest.raises(NpuArgumentError):
        config.iterations_per_loop = -1


# ---------------------------------------------------------------------------------------------
# replace()

def test_replace_keeps_npu_fields():
    mem = MemoryConfig(static_memory_policy=2)
    config = NPURunConfig(iterations_per_loop=10, precision_mode="allow_mix_precision",
                          memory_config=mem, save_checkpoints_steps=300)
    new = config.replace(session_config=tf.compat.v1.ConfigProto(), model_dir="/tmp/m")
    assert isinstance(new, NPURunConfig) and new is not config
    assert new.iterations_per_loop == 10 and new._precision_mode == "allow_mix_precision"
    assert new._memory_config._static_memory_policy == 2
    assert new.model_dir == "/tmp/m" and new.save_checkpoints_steps == 300
    assert config.model_dir is None
    assert _render(new) == _render(config)


def test_replace_npu_fields_rechecked():
    config = NPURunConfig(iterations_per_loop=10)
    new = config.replace(iterations_per_loop=3, memory_config=MemoryConfig(atomic_clean_policy=1))
    assert new.iterations_per_loop == 3 and config.iterations_per_loop == 10
    assert _render(new)["atomic_clean_policy"] == ("i", 1)
    assert "atomic_clean_policy" not in _render(config)
    with pytest.raises(NpuArgumentError, match="iterations_per_loop: 0"):
        config.replace(iterations_per_loop=0)
    with pytest.raises(ValueError, match="not supported"):
        config.replace(no_such_property=1)


# ---------------------------------------------------------------------------------------------
# render_parameter_map

def test_default_parameter_map():
    assert _render(NPURunConfig()) == DEFAULT_MAP


def test_non_default_parameter_map():
    config = NPURunConfig(
        iterations_per_loop=10, precision_mode="allow_mix_precision",
        graph_memory_max_size=26 * 1024 ** 3, variable_memory_max_size="5368709120",
        memory_config=MemoryConfig(atomic_clean_policy=1, static_memory_policy=2,
                                   memory_optimization_policy="MemoryPriority"),
        dump_config=DumpConfig(enable_dump=True, dump_path="/tmp/dump", dump_step="0|5"),
        profiling_config=ProfilingConfig(enable_profiling=True),
        experimental_config=ExperimentalConfig(
            logical_device_id="0,1",
            graph_memory_optimize_config=GraphMemoryOptimizeConfig(graph_slice="auto")),
        op_debug_level=1, hccl_timeout=600, variable_format_optimize=False,
        session_device_id=3, jit_compile="true")
    got = _render(config)
    expected = dict(DEFAULT_MAP)
    expected.update({
        "iterations_per_loop": ("i", 10),
        "precision_mode": ("s", "allow_mix_precision"),
        "graph_memory_max_size": ("s", "27917287424"),
        "variable_memory_max_size": ("s", "5368709120"),
        "atomic_clean_policy": ("i", 1), "static_memory_policy": ("i", 2),
        "memory_optimization_policy": ("s", "MemoryPriority"),
        "variable_use_1g_huge_page": ("i", 0),
        "enable_dump": ("b", True), "enable_dump_debug": ("b", False),
        "dump_path": ("s", "/tmp/dump"), "dump_step": ("s", "0|5"),
        "dump_mode": ("s", "output"), "dump_debug_mode": ("s", "all"),
        "dump_data": ("s", "tensor"),
        # Profiling on without options: the real estimator writes "".
        "profiling_mode": ("b", True), "profiling_options": ("s", ""),
        "experimental_logical_device_cluster_deploy_mode": ("s", "LB"),
        "experimental_logical_device_id": ("s", "0,1"),
        "graph_slice": ("s", "auto"),
        "op_debug_level": ("i", 1), "hccl_timeout": ("i", 600),
        "variable_format_optimize": ("b", False), "session_device_id": ("i", 3),
        # Older adapters' bool form lands in .b (the resolver converts it with a warning).
        "jit_compile": ("s", "true"),
    })
    assert got == expected


def test_profiling_disabled_writes_only_mode():
    got = _render(NPURunConfig(profiling_config=ProfilingConfig(
        enable_profiling=False, profiling_options='{"output":"/tmp"}')))
    assert got["profiling_mode"] == ("b", False) and "profiling_options" not in got


def test_dump_debug_mode_needs_dump_mode():
    got = _render(NPURunConfig(dump_config=DumpConfig(dump_mode=None, dump_debug_mode="all")))
    assert "dump_mode" not in got and "dump_debug_mode" not in got


def test_dynamic_input_config_written_only_when_all_four_set():
    full = _render(NPURunConfig(dynamic_input_config=DynamicInputConfig(
        "data:-1,224,224,3", "1;2;4", 1, 0)))
    assert full["input_shape"] == ("s", "data:-1,224,224,3")
    assert full["dynamic_dims"] == ("s", "1;2;4")
    assert full["dynamic_node_type"] == ("i", 1) and full["compile_hybrid_mode"] == ("i", 0)
    partial = _render(NPURunConfig(dynamic_input_config=DynamicInputConfig(
        "data:-1,224,224,3", "1;2;4", 1, None)))
    for key in ("input_shape", "dynamic_dims", "dynamic_node_type", "compile_hybrid_mode"):
        assert key not in partial


def test_aoe_work_path_default_and_requirement():
    got = _render(NPURunConfig(aoe_mode="2", distribute_config="/tmp/nca.json"))
    assert got["aoe_mode"] == ("s", "2") and got["work_path"] == ("s", "./")
    assert got["distribute_config"] == ("s", "/tmp/nca.json")
    # Without aoe_mode, work_path and distribute_config are not written.
    got = _render(NPURunConfig(work_path="/tmp/w", distribute_config="/tmp/nca.json"))
    assert "work_path" not in got and "distribute_config" not in got


def test_job_and_task_index_from_tf_config(monkeypatch):
    # The real estimator reads TF_CONFIG when it is built, not when the config is.
    config = NPURunConfig()
    monkeypatch.setenv("TF_CONFIG", json.dumps({"task": {"type": "ps", "index": 3}}))
    got = _render(config)
    assert got["job"] == ("s", "ps") and got["task_index"] == ("i", 3)


def test_render_does_not_change_run_config():
    prof = ProfilingConfig(enable_profiling=True)
    config = NPURunConfig(profiling_config=prof)
    _render(config)
    assert prof._profiling_options is None


def test_render_refuses_other_objects():
    with pytest.raises(TypeError, match="NPURunConfig"):
        render_parameter_map(tf.estimator.RunConfig(), tf.compat.v1.ConfigProto()
                             .graph_options.rewrite_options.custom_optimizers.add())


# ---------------------------------------------------------------------------------------------
# render_session_config

def test_session_config_does_not_mutate_user_proto():
    user = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=2)
    user.gpu_options.allow_growth = True
    before = user.SerializeToString(deterministic=True)
    config = NPURunConfig(session_config=user, precision_mode="allow_mix_precision")
    rendered = render_session_config(config)
    assert user.SerializeToString(deterministic=True) == before
    assert config.session_config is user
    assert rendered is not user
    assert rendered.inter_op_parallelism_threads == 2 and rendered.gpu_options.allow_growth
    rewrite = rendered.graph_options.rewrite_options
    assert list(rewrite.optimizers) == ["pruning", "function", "constfold", "shape",
                                        "arithmetic", "loop", "dependency", "layout",
                                        "GradFusionOptimizer"]
    names = [c.name for c in rewrite.custom_optimizers]
    assert names == ["NpuOptimizer"]
    npu = rewrite.custom_optimizers[0]
    assert npu.parameter_map["precision_mode"].s == b"allow_mix_precision"
    assert rendered.allow_soft_placement and not rendered.log_device_placement
    assert rewrite.remapping == tf.compat.v1.ConfigProto().graph_options.rewrite_options.OFF
    assert rendered.graph_options.optimizer_options.global_jit_level == \
        tf.compat.v1.OptimizerOptions.OFF


def test_session_config_new_when_none_and_without_defaults():
    rendered = render_session_config(NPURunConfig(), session_defaults=False)
    assert not rendered.allow_soft_placement
    assert rendered.graph_options.rewrite_options.remapping == 0  # DEFAULT
    text = text_format.MessageToString(rendered)
    assert 'name: "NpuOptimizer"' in text


# ---------------------------------------------------------------------------------------------
# _npu_resolve_input and the resolver

def test_npu_resolve_input():
    config = NPURunConfig(memory_config=MemoryConfig(static_memory_policy=2),
                          experimental_config=ExperimentalConfig(
                              graph_memory_optimize_config=GraphMemoryOptimizeConfig()))
    parameter_map, used, arguments = config._npu_resolve_input()
    assert used == frozenset({"MemoryConfig", "ExperimentalConfig",
                              "GraphMemoryOptimizeConfig"})
    assert parameter_map["static_memory_policy"].i == 2
    assert parameter_map["use_off_line"].b is True
    assert set(parameter_map) == set(DEFAULT_MAP) | {
        "static_memory_policy", "atomic_clean_policy", "variable_use_1g_huge_page"}
    assert NPURunConfig()._npu_resolve_input()[1] == frozenset()
    # its RunConfig arguments as it keeps them (the "run_config" rules: NPB172)
    assert arguments["save_checkpoints_steps"] == 100 and arguments["save_summary_steps"] == 0
    assert NPURunConfig(save_checkpoints_secs=60)._npu_resolve_input()[2][
        "save_checkpoints_steps"] is None


def _resolve():
    try:
        from npu_bridge.ge import resolve
    except ImportError:
        return None
    return resolve


@pytest.mark.skipif(_resolve() is None, reason="npu_bridge.ge.resolve not available yet")
def test_resolver_refuses_bad_atomic_clean_policy():
    from npu_bridge.ge import NpuConfigError
    with pytest.raises(NpuConfigError) as info:  # now at construction (NpuArgumentError)
        _resolve()(NPURunConfig(memory_config=MemoryConfig(atomic_clean_policy=3)))
    errors = [d for d in info.value.diagnostics if d.severity == "error"]
    assert any(d.option == "atomic_clean_policy" for d in errors)
    assert "atomic_clean_policy" in str(info.value)


@pytest.mark.skipif(_resolve() is None, reason="npu_bridge.ge.resolve not available yet")
def test_resolver_accepts_default_config():
    ge = _resolve()(NPURunConfig(memory_config=MemoryConfig(static_memory_policy=2)))
    assert not ge.errors
    assert ge.global_options.get("ge.exec.staticMemoryPolicy") == "2"


# --- bool where an int is written (.i = value): protobuf stores 0/1 -------------------------
# The real NPUEstimator writes every int argument with `parameter_map[KEY].i = value`
# (hicann/tensorflow npu_estimator.py, no int() around it) and protobuf stores True as 1;
# the real util.check_positive_integer / check_nonnegative_integer test
# isinstance(value, six.integer_types), which a bool passes.

@pytest.mark.parametrize("arg", ["static_memory_policy", "atomic_clean_policy",
                                 "variable_use_1g_huge_page"])
def test_memoryconfig_accepts_bool_for_int_as_protobuf_does(arg):
    mem = MemoryConfig(**{arg: True})
    custom_op = tf.compat.v1.ConfigProto().graph_options.rewrite_options.custom_optimizers.add()
    nc.render_parameter_map(NPURunConfig(memory_config=mem), custom_op)
    assert custom_op.parameter_map[arg].WhichOneof("value") == "i"
    assert custom_op.parameter_map[arg].i == 1


def test_npurunconfig_int_arguments_accept_bool():
    config = NPURunConfig(iterations_per_loop=True, graph_run_mode=False,
                          enable_exception_dump=True, deterministic=True, hccl_timeout=True)
    custom_op = tf.compat.v1.ConfigProto().graph_options.rewrite_options.custom_optimizers.add()
    nc.render_parameter_map(config, custom_op)
    pm = custom_op.parameter_map
    assert (pm["iterations_per_loop"].i, pm["graph_run_mode"].i, pm["enable_exception_dump"].i,
            pm["deterministic"].i, pm["hccl_timeout"].i) == (1, 0, 1, 1, 1)
    # the value rules still apply to the 0/1 it stands for (real: ValueError, must be positive)
    with pytest.raises(NpuArgumentError) as info:
        NPURunConfig(iterations_per_loop=False)
    assert [d.code for d in info.value.diagnostics if d.severity == "error"] == ["E10001"]


def test_int_argument_of_another_type_names_protobufs_error():
    with pytest.raises(NpuArgumentError) as info:
        MemoryConfig(static_memory_policy=2.0)
    diag = info.value.diagnostics[0]
    assert diag.code == "NPB160" and diag.option == "static_memory_policy"
    text = diag.message
    assert "static_memory_policy=2.0" in text and "float" in text
    assert "TypeError" in text and ".i" in text          # what protobuf does with it
    assert "an int" in text and "bool" in text           # what is allowed (a bool counts)
    assert "npu_estimator.py" in text                    # the source


# --- bool arguments given another int: protobuf stores True (one rule: NPB162) ---------------

def _estimator_diags(tmp_path, **kwargs):
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator

    def model_fn(features, labels, mode):
        raise AssertionError("not called")
    est = NPUEstimator(model_fn=model_fn, config=NPURunConfig(model_dir=str(tmp_path), **kwargs))
    return est._npu_ge_options


def test_external_weight_2_warns_what_is_sent_and_how_to_get_ges_2(tmp_path):
    ge = _estimator_diags(tmp_path, external_weight=2)
    assert ge.session_options["ge.externalWeight"] == "1"
    found = [d for d in ge.diagnostics if d.code == "NPB162"]
    assert len(found) == 1
    diag = found[0]
    assert diag.severity == "warning" and diag.option == "external_weight" and diag.value == 2
    text = diag.message
    assert "external_weight=2" in text
    assert "True, False" in text                              # allowed
    assert "ge.externalWeight '1'" in text                    # what GE gets
    assert "2" in text and "ge.externalWeight" in text and "directly" in text  # GE's own 2
    assert "options_params/memory_management.md" in text      # the GE value's source
    assert "npu_estimator.py" in text                         # the .b write's source


@pytest.mark.parametrize("kwargs,option", [
    ({"enable_reduce_precision": -1}, "enable_reduce_precision"),
    ({"hcom_parallel": 5}, "hcom_parallel"),
    ({"dump_config": "DUMP"}, "enable_dump"),
])
def test_any_bool_argument_given_another_int_warns(tmp_path, kwargs, option):
    if kwargs.get("dump_config") == "DUMP":
        kwargs = {"dump_config": DumpConfig(enable_dump=3, dump_path=str(tmp_path))}
    ge = _estimator_diags(tmp_path, **kwargs)
    found = [d for d in ge.diagnostics if d.code == "NPB162"]
    assert [d.option for d in found] == [option]
    assert "%s=" % option in found[0].message and "True" in found[0].message


def test_bool_argument_given_0_or_1_does_not_warn(tmp_path):
    ge = _estimator_diags(tmp_path, external_weight=1, enable_reduce_precision=0)
    assert [d for d in ge.diagnostics if d.code == "NPB162"] == []


def test_bool_conversion_warning_travels_with_a_refused_config():
    with pytest.raises(NpuArgumentError) as info:
        NPURunConfig(external_weight=2, iterations_per_loop=0)
    assert "NPB162" in [d.code for d in info.value.diagnostics]


def test_numpy_integers_and_bools_are_accepted_as_protobuf_accepts_them():
    # protobuf's integer fields take any object with __index__ (numpy's bool_ and integers),
    # so the real NPUEstimator writes them; a float is still refused (NPB160)
    import warnings
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # numpy: bool_.__index__
        memory = MemoryConfig(atomic_clean_policy=np.bool_(True))
        config = NPURunConfig(external_weight=np.bool_(True), iterations_per_loop=np.int64(2),
                              memory_config=memory)
        pmap = config._npu_resolve_input()[0]  # pylint: disable=protected-access
    pmap = pmap[0] if isinstance(pmap, tuple) else pmap
    assert pmap["atomic_clean_policy"].i == 1
    assert pmap["external_weight"].b is True
    assert pmap["iterations_per_loop"].i == 2
    with pytest.raises(NpuArgumentError) as err:
        MemoryConfig(atomic_clean_policy=2.0)
    assert "NPB160" in str(err.value)


# ---------------------------------------------------------------------------------------------
# Deprecations only for what the user set (issue 17 defect 4)

def _deprecated(config):
    from npu_bridge.ge import resolve
    return sorted(d.option for d in resolve(config).diagnostics if d.code == "NPB105")


def test_no_deprecation_for_values_npurunconfig_writes_itself():
    # NPURunConfig writes dynamic_graph_execute_mode and enable_data_pre_proc by default
    pm = NPURunConfig()._npu_resolve_input()[0]
    assert "dynamic_graph_execute_mode" in pm and "enable_data_pre_proc" in pm
    assert _deprecated(NPURunConfig()) == []
    assert _deprecated(NPURunConfig(precision_mode="allow_mix_precision")) == []


def test_deprecation_for_arguments_the_user_set():
    assert _deprecated(NPURunConfig(dynamic_graph_execute_mode="dynamic_execute")) == [
        "dynamic_graph_execute_mode"]
    # positional: enable_data_pre_proc is the 13th argument
    assert _deprecated(NPURunConfig(1, None, None, None, 0, None, None, None, 5, 10000, 100,
                                    None, True)) == ["enable_data_pre_proc"]
    # replace() keeps what was set and adds what it replaces
    config = NPURunConfig(dynamic_graph_execute_mode="dynamic_execute")
    assert _deprecated(config.replace(enable_data_pre_proc=False)) == [
        "dynamic_graph_execute_mode", "enable_data_pre_proc"]
    assert _deprecated(NPURunConfig().replace(model_dir="/tmp/x")) == []


def test_user_keys_of_a_run_config():
    config = NPURunConfig(memory_config=MemoryConfig(static_memory_policy=2), precision_mode="must_keep_origin_dtype")
    keys = config._npu_user_keys()
    assert {"static_memory_policy", "precision_mode"} <= keys
    assert "atomic_clean_policy" not in keys     # MemoryConfig's own default
    assert "dynamic_graph_execute_mode" not in keys and "use_off_line" not in keys


def test_hand_written_parameter_map_counts_every_key_as_set():
    config = tf.compat.v1.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["dynamic_graph_execute_mode"].s = b"dynamic_execute"
    assert _deprecated(config) == ["dynamic_graph_execute_mode"]
    # an NPURunConfig's session_config NpuOptimizer is the user's too
    assert _deprecated(NPURunConfig(session_config=config)) == ["dynamic_graph_execute_mode"]


def test_sources_tell_argument_config_default_and_adapter_default_apart():
    # issue 17 defect 3: the user's argument, an NPURunConfig default, an adapter default
    from npu_bridge.ge import resolve
    from npu_bridge.tools.report import configuration_dict, configuration_lines
    config = NPURunConfig(precision_mode="allow_mix_precision",
                          memory_config=MemoryConfig(static_memory_policy=2))
    ge = resolve(config, product="atlas-a2-training")
    sources = ge.sources
    assert sources["ge.exec.precision_mode"] == "argument:precision_mode"
    assert sources["ge.exec.staticMemoryPolicy"] == "argument:memory_config.static_memory_policy"
    assert sources["ge.exec.atomicCleanPolicy"] == "NPURunConfig default:atomic_clean_policy"
    assert sources["use_off_line"] == "NPURunConfig default:use_off_line"
    assert "adapter default" in sources.values()
    # the summary shows the arguments; NPURunConfig's own defaults only with --all
    shown = "\n".join(configuration_lines(configuration_dict(ge)))
    assert "argument:precision_mode" in shown and "NPURunConfig default" not in shown
    assert "NPURunConfig default:use_off_line" in "\n".join(
        configuration_lines(configuration_dict(ge), show_defaults=True))
    # a hand-written map keeps parameter_map:KEY
    assert resolve({"precision_mode": "allow_mix_precision"}).sources[
        "ge.exec.precision_mode"] == "parameter_map:precision_mode"


def test_session_config_keys_stay_parameter_map_sources():
    from npu_bridge.ge import resolve
    session_config = tf.compat.v1.ConfigProto()
    custom_op = session_config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["op_debug_level"].i = 1
    sources = resolve(NPURunConfig(session_config=session_config)).sources
    assert sources["op_debug_level"].startswith("parameter_map:op_debug_level (NpuOptimizer #0 of 2")


def test_estimator_sessions_report_only_what_the_user_set():
    # the sessions of an NPUEstimator read the ConfigProto it rendered (issue 17 defect 4)
    from npu_bridge.hooks.session_patch import resolve_session_config
    rendered = render_session_config(NPURunConfig(enable_data_pre_proc=True))
    ge = resolve_session_config(rendered)
    assert sorted(d.option for d in ge.diagnostics if d.code == "NPB105") == ["enable_data_pre_proc"]
    assert ge.sources["use_off_line"] == "NPURunConfig default:use_off_line"
    assert ge.sources["enable_data_pre_proc"] == "argument:enable_data_pre_proc"


def test_notes_and_deprecations_only_for_what_the_user_set():
    # issue 17: every NPUEstimator user got NPB122 for the input_fusion_size NPURunConfig
    # writes itself; one rule (diagnostics.USER_SET_ONLY) read by the resolver from its input
    from npu_bridge.ge import UserSet, resolve
    from npu_bridge.ge.diagnostics import USER_SET_ONLY
    assert {"NPB105", "NPB122"} <= USER_SET_ONLY

    def codes(config, **kw):
        return sorted((d.code, d.option) for d in resolve(config, env={}, **kw).diagnostics
                      if d.code in USER_SET_ONLY)

    assert codes(NPURunConfig()) == []
    assert codes(NPURunConfig(input_fusion_size=25600, enable_data_pre_proc=True)) == [
        ("NPB105", "enable_data_pre_proc"), ("NPB122", "input_fusion_size")]
    hand = {"input_fusion_size": 25600, "enable_data_pre_proc": True}
    assert codes(hand) == [("NPB105", "enable_data_pre_proc"), ("NPB122", "input_fusion_size")]
    assert codes({"input_fusion_size": 131072}) == []   # the rule's quiet value: the default
    # the resolver told which keys the user set (a map a class or function wrote)
    assert codes(hand, user_set=UserSet("npu_resource_init", frozenset())) == []
    assert codes(hand, user_set=("NPURunConfig", {"input_fusion_size"})) == [
        ("NPB122", "input_fusion_size")]
    ge = resolve(hand, env={}, user_set=("NPURunConfig", {"input_fusion_size"}))
    assert ge.sources["enable_data_pre_proc"] == "NPURunConfig default:enable_data_pre_proc"
    assert ge.sources["input_fusion_size"] == "argument:input_fusion_size"


def test_an_estimator_session_config_tells_the_resolver_its_user_keys():
    from npu_bridge.estimator.npu.npu_config import rendered_user_set
    run_config = NPURunConfig(enable_data_pre_proc=True, input_fusion_size=131072 // 2)
    rendered = render_session_config(run_config)
    user_set = rendered_user_set(rendered)
    assert user_set.owner == "NPURunConfig"
    assert user_set.keys == run_config._npu_user_keys()
    assert {"enable_data_pre_proc", "input_fusion_size"} <= user_set.keys
    assert "use_off_line" not in user_set.keys
    assert rendered_user_set(tf.compat.v1.ConfigProto()) is None
    hand = tf.compat.v1.ConfigProto()
    hand.CopyFrom(rendered)
    hand.graph_options.rewrite_options.custom_optimizers[-1].parameter_map["use_off_line"].b = False
    assert rendered_user_set(hand) is None   # edited: a map of the user's own


def test_configs_rendering_the_same_map_keep_their_own_user_keys():
    # one passes enable_data_pre_proc at its default, the other leaves it: byte-identical
    # NpuOptimizers, different user keys; the later render must not take the earlier's place
    from npu_bridge.estimator.npu.npu_config import rendered_user_set
    explicit, unset = NPURunConfig(enable_data_pre_proc=True), NPURunConfig()
    first, second = render_session_config(explicit), render_session_config(unset)
    assert first.SerializeToString(deterministic=True) == \
        second.SerializeToString(deterministic=True)
    assert rendered_user_set(first).keys == explicit._npu_user_keys() == {"enable_data_pre_proc"}
    assert rendered_user_set(second).keys == unset._npu_user_keys() == frozenset()
    # a copy is no longer known by identity: by content, only the keys both renders say the
    # user set count as the user's (so no notice for a key one of them left to its default)
    copy = tf.compat.v1.ConfigProto()
    copy.CopyFrom(first)
    assert rendered_user_set(copy).keys == frozenset()
    edited = render_session_config(explicit)
    edited.graph_options.rewrite_options.custom_optimizers[-1].parameter_map["use_off_line"].b = \
        False
    assert rendered_user_set(edited) is None   # edited since: a map of the user's own


def test_estimators_rendering_the_same_map_give_their_sessions_their_own_user_keys(tmp_path):
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
    from npu_bridge.ge import records as _records
    from npu_bridge.hooks.session_patch import RESOLUTIONS

    def model_fn(features, labels, mode):
        loss = tf.reduce_mean(tf.compat.v1.layers.dense(features, 1) - labels)
        step = tf.compat.v1.train.get_or_create_global_step()
        return NPUEstimatorSpec(mode=mode, loss=loss,
                                train_op=tf.compat.v1.assign_add(step, 1))

    def input_fn():
        return tf.compat.v1.data.Dataset.from_tensors(([[1.0]], [[0.0]])).repeat()

    def estimator(name, **kwargs):
        return NPUEstimator(model_fn=model_fn, config=NPURunConfig(
            model_dir=str(tmp_path / name), save_checkpoints_steps=1000, **kwargs))

    explicit = estimator("explicit", enable_data_pre_proc=True)
    unset = estimator("unset")
    RESOLUTIONS.clear()

    def session_deprecations(est):
        count = len(_records.records())
        with tf.Graph().as_default():
            est.train(input_fn, steps=1)
        found = [r for r in _records.records()[count:] if r["kind"] == "session"]
        assert found
        return {d.option for r in found for d in r["options"].diagnostics if d.code == "NPB105"}

    assert session_deprecations(explicit) == {"enable_data_pre_proc"}
    assert session_deprecations(unset) == set()
    assert session_deprecations(explicit) == {"enable_data_pre_proc"}


# ---------------------------------------------------------------------------------------------
# A refused NPURunConfig is reported with the user keys of an accepted one (fresh-user try-out)

def _refused(call):
    from npu_bridge.ge import records as _records
    with pytest.raises(NpuArgumentError) as info:
        call()
    rec = _records.record_of(info.value)
    return info.value, rec


def _user_only(diags):
    from npu_bridge.ge.diagnostics import USER_SET_ONLY
    return sorted((d.code, d.option) for d in diags if d.code in USER_SET_ONLY)


def test_a_refused_run_config_has_the_sources_and_notices_of_an_accepted_one():
    from npu_bridge.ge import resolve
    error, rec = _refused(lambda: NPURunConfig(
        model_dir="/tmp/x_refused", memory_config=MemoryConfig(static_memory_policy=7)))
    assert [(d.code, d.option) for d in error.diagnostics if d.severity == "error"] == [
        ("E10001", "static_memory_policy")]
    assert rec is not None and rec["refused"]
    sources = rec["options"].sources
    assert error.ge_options.sources == sources
    assert sources["use_off_line"] == "NPURunConfig default:use_off_line"
    assert sources["device_type"] == "NPURunConfig default:device_type"
    assert sources["enable_data_pre_proc"] == "NPURunConfig default:enable_data_pre_proc"
    assert sources["ge.exec.atomicCleanPolicy"] == "NPURunConfig default:atomic_clean_policy"
    assert not [k for k, s in sources.items() if s.startswith("argument:")]   # only 7 given
    assert _user_only(error.diagnostics) == _user_only(rec["options"].diagnostics) == []
    # the same arguments, accepted (a valid policy): the same sources for every other key
    accepted = resolve(NPURunConfig(model_dir="/tmp/x_refused",
                                    memory_config=MemoryConfig(static_memory_policy=2)))
    assert {k: s for k, s in sources.items() if "taticMemory" not in k
            and "static_memory" not in k} == {
        k: s for k, s in accepted.sources.items() if "taticMemory" not in k
        and "static_memory" not in k}


def test_a_refused_run_config_names_the_arguments_the_user_gave():
    error, rec = _refused(lambda: NPURunConfig(
        enable_data_pre_proc=True, precision_mode="allow_mix_precision",
        memory_config=MemoryConfig(static_memory_policy=7)))
    sources = rec["options"].sources
    assert sources["ge.exec.precision_mode"] == "argument:precision_mode"
    assert sources["enable_data_pre_proc"] == "argument:enable_data_pre_proc"
    assert sources["dynamic_graph_execute_mode"] == \
        "NPURunConfig default:dynamic_graph_execute_mode"
    assert _user_only(rec["options"].diagnostics) == [("NPB105", "enable_data_pre_proc")]
    assert "E10001" in [d.code for d in error.diagnostics]


def test_a_refused_class_on_a_product_reports_only_what_the_user_set():
    from npu_bridge.ge.products import forced_product
    with forced_product("atlas-inference"):
        error, rec = _refused(lambda: NPURunConfig(memory_config=MemoryConfig()))
    assert [(d.code, d.option) for d in error.diagnostics if d.severity == "error"] == [
        ("NPB114", "MemoryConfig")]
    assert not [k for k, s in rec["options"].sources.items() if s.startswith("argument:")]
    assert _user_only(rec["options"].diagnostics) == []


def test_a_refused_replace_reports_only_what_the_user_set():
    config = NPURunConfig(dynamic_graph_execute_mode="dynamic_execute")
    with pytest.raises(NpuArgumentError) as info:
        config.replace(memory_config=MemoryConfig(static_memory_policy=7))
    error = info.value
    assert "E10001" in [d.code for d in error.diagnostics]
    assert _user_only(error.diagnostics) == [("NPB105", "dynamic_graph_execute_mode")]
    assert error.ge_options.sources["enable_data_pre_proc"] == \
        "NPURunConfig default:enable_data_pre_proc"


def test_a_refused_run_config_keeps_the_older_release_arguments_it_was_given():
    # an older-release argument is taken and warned about (NPB108), refused or not
    error, rec = _refused(lambda: NPURunConfig(
        enable_auto_mix_precision=True, memory_config=MemoryConfig(static_memory_policy=7)))
    found = [(d.code, d.option) for d in rec["options"].diagnostics if d.code == "NPB108"]
    assert found == [("NPB108", "enable_auto_mix_precision")]
    assert "E10001" in [d.code for d in error.diagnostics]


def test_jit_compile_as_a_bool_is_refused_as_the_real_class_refuses_it():
    # the real NPURunConfig: isinstance(jit_compile, str) or TypeError (hicann/tensorflow
    # tf_adapter/python/npu_bridge/estimator/npu/npu_config.py:217-218); the adapter reads
    # only .s (npu_attrs.cc:2635): older releases' bool is refused on both sides
    with pytest.raises(TypeError) as info:
        NPURunConfig(jit_compile=True)
    (d,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert (d.code, d.option) == ("NPB160", "jit_compile") and "npu_config.py:217" in d.message


def _accepted_codes(**args):
    from npu_bridge.ge import NpuConfigError, resolve
    try:
        return sorted((d.code, d.option) for d in resolve(NPURunConfig(**args)).diagnostics)
    except NpuConfigError as err:
        return sorted((d.code, d.option) for d in err.diagnostics)


def test_a_refused_run_config_reports_every_diagnostic_an_accepted_one_would():
    # fresh-user try-out: NPB172 (a rule over the RunConfig arguments) was lost when another
    # argument refused the config: the argument check's probe had no RunConfig state. The
    # same arguments with the bad one fixed give the same findings, plus that one's error.
    bad = dict(iterations_per_loop=10, save_checkpoints_steps=15, precision_mode="bogus")
    error, rec = _refused(lambda: NPURunConfig(**bad))
    codes = sorted((d.code, d.option) for d in error.diagnostics)
    assert ("NPB172", "save_checkpoints_steps") in codes and ("E10001", "precision_mode") in codes
    assert sorted((d.code, d.option) for d in rec["options"].diagnostics) == codes
    good = dict(bad, precision_mode="allow_mix_precision")
    assert [c for c in codes if c != ("E10001", "precision_mode")] == _accepted_codes(**good)


def test_a_refused_run_config_reports_its_session_config_npu_optimizer_too():
    # the RunConfig state the probe lacked includes session_config: the keys of the user's
    # own NpuOptimizer are resolved (and their findings reported) refused or not
    session = tf.compat.v1.ConfigProto()
    op = session.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["dump_mod"].s = b"all"
    error, rec = _refused(lambda: NPURunConfig(session_config=session,
                                               precision_mode="bogus"))
    codes = sorted((d.code, d.option) for d in error.diagnostics if d.severity == "error")
    assert codes == [("E10001", "precision_mode"), ("NPB100", "dump_mod")]


def test_a_refused_replace_reports_the_run_config_rules_of_the_copy():
    config = NPURunConfig(iterations_per_loop=10, save_checkpoints_steps=20)
    with pytest.raises(NpuArgumentError) as info:
        config.replace(iterations_per_loop=8, precision_mode="bogus")
    codes = sorted((d.code, d.option) for d in info.value.diagnostics)
    assert ("NPB172", "save_checkpoints_steps") in codes   # 20 is no multiple of 8


# ---------------------------------------------------------------------------------------------
# Wrong arguments: Python's TypeError, naming the class, with the schema's hint (as lint's NBL012)

_ALL_CLASSES = (NPURunConfig, MemoryConfig, DumpConfig, ProfilingConfig, ExperimentalConfig,
                GraphMemoryOptimizeConfig, DynamicInputConfig)
_DYNAMIC = ("x:-1,3", "1;2", "1", 0)   # DynamicInputConfig's four required arguments


@pytest.mark.parametrize("call,kwargs,message", [
    (MemoryConfig, dict(static_memory_policy=2, input_fusion_size=5),
     "MemoryConfig.__init__() got an unexpected keyword argument 'input_fusion_size'; "
     "it is an argument of NPURunConfig(input_fusion_size=...)"),
    (MemoryConfig, dict(static_memroy_policy=2),
     "MemoryConfig.__init__() got an unexpected keyword argument 'static_memroy_policy'; "
     "did you mean 'static_memory_policy'?"),
    (NPURunConfig, dict(static_memory_policy=2),
     "NPURunConfig.__init__() got an unexpected keyword argument 'static_memory_policy'; "
     "it is an argument of MemoryConfig(static_memory_policy=...)"),
    (DumpConfig, dict(enable_dumps=True),
     "DumpConfig.__init__() got an unexpected keyword argument 'enable_dumps'; "
     "did you mean 'enable_dump' or 'enable_dump_debug'?"),
    (ProfilingConfig, dict(dump_path="/tmp/d"),
     "ProfilingConfig.__init__() got an unexpected keyword argument 'dump_path'; "
     "it is an argument of DumpConfig(dump_path=...)"),
    (ExperimentalConfig, dict(recompute="auto"),
     "ExperimentalConfig.__init__() got an unexpected keyword argument 'recompute'; "
     "it is an argument of GraphMemoryOptimizeConfig(recompute=...)"),
    (GraphMemoryOptimizeConfig, dict(graph_slices="auto"),
     "GraphMemoryOptimizeConfig.__init__() got an unexpected keyword argument 'graph_slices'; "
     "did you mean 'graph_slice'?"),
    (DynamicInputConfig, dict(input_shapes="x:-1,3"),   # before the missing ones, as Python
     "DynamicInputConfig.__init__() got an unexpected keyword argument 'input_shapes'; "
     "did you mean 'input_shape'?"),
])
def test_wrong_keyword_is_pythons_type_error_naming_the_class_with_a_hint(call, kwargs, message):
    with pytest.raises(TypeError) as info:
        call(**kwargs)
    assert type(info.value) is TypeError   # what Python raises: `except TypeError` still works
    assert str(info.value) == message


@pytest.mark.parametrize("cls", _ALL_CLASSES, ids=lambda c: c.__name__)
def test_wrong_keyword_and_positional_overflow_name_the_class_as_python_does(cls):
    """The message starts as Python's own (the undecorated __init__'s), for every class."""
    init = inspect.unwrap(cls.__init__)
    self = object.__new__(cls)
    with pytest.raises(TypeError) as plain:
        init(self, zz_unknown=1)
    with pytest.raises(TypeError) as ours:
        cls(zz_unknown=1)
    assert str(ours.value) == str(plain.value)   # no hint for a name like no other
    assert str(ours.value).startswith(cls.__name__ + ".__init__() got an unexpected keyword")
    too_many = [None] * (len(inspect.signature(init).parameters) + 1)
    with pytest.raises(TypeError) as plain:
        init(self, *too_many[1:])
    with pytest.raises(TypeError) as ours:
        cls(*too_many[1:])
    assert type(ours.value) is TypeError
    assert str(ours.value) == str(plain.value)
    assert str(ours.value).startswith(cls.__name__ + ".__init__() takes ")


def test_positional_overflow_messages():
    with pytest.raises(TypeError) as info:
        MemoryConfig(0, 2, None, 0, 1, 1, 1, 1)
    assert str(info.value) == \
        "MemoryConfig.__init__() takes from 1 to %d positional arguments but 9 were given" \
        % (len(inspect.signature(inspect.unwrap(MemoryConfig.__init__)).parameters))
    with pytest.raises(TypeError) as info:
        DynamicInputConfig(*_DYNAMIC, 1)
    assert str(info.value) == \
        "DynamicInputConfig.__init__() takes 5 positional arguments but 6 were given"
    with pytest.raises(TypeError) as info:   # a missing argument: Python's own message
        DynamicInputConfig("x:-1,3")
    assert str(info.value) == ("DynamicInputConfig.__init__() missing 3 required positional "
                               "arguments: 'dynamic_dims', 'dynamic_node_type', and "
                               "'compile_hybrid_mode'")
