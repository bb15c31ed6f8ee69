"""Several `NpuOptimizer` custom optimizers in one ConfigProto, and near-miss names.

The real adapter (tf_adapter/util/npu_attrs.cc, `NpuAttrs::SetNpuOptimizerAttr`, which builds
the GE init/session/graph options and the adapter's pass options, and
`NpuAttrs::GetPassOptions(const GraphOptimizationPassOptions &)`) loops over every custom
optimizer without a break: each one named exactly "NpuOptimizer" is read in order, a later one
overriding the keys it sets; a few keys are reset when a later one lacks them (`job` ->
"localhost", `jit_compile` -> auto, `shape_generalization_mode` -> STRICT, `aoe_mode` ->
$AOE_MODE, `profiling_options` while profiling is on, `dump_path` while dumping is on: the
adapter then fails). Any other name is ignored.
"""
import pytest
from tensorflow.core.protobuf import config_pb2

from npu_bridge.ge import NpuConfigError, catalog, resolve
from npu_bridge.ge.diagnostics import CODES


from npu_protos import set_values as _set  # noqa: E402


def proto(*maps, names=None):
    config = config_pb2.ConfigProto()
    for i, values in enumerate(maps):
        op = config.graph_options.rewrite_options.custom_optimizers.add()
        op.name = names[i] if names else "NpuOptimizer"
        _set(op, values)
    return config


def codes(ge, code):
    return [d for d in ge.diagnostics if d.code == code]


def test_codes_are_catalogued():
    assert CODES["NPB106"][0] == "warning"
    assert CODES["NPB107"][0] == "warning"


def test_later_optimizer_overrides_the_keys_it_sets():
    ge = resolve(proto({"precision_mode": "allow_mix_precision", "static_memory_policy": 2},
                       {"precision_mode": "force_fp32", "graph_run_mode": 1}), env={})
    assert ge.global_options["ge.exec.precision_mode"] == "force_fp32"
    assert ge.effective["ge.exec.staticMemoryPolicy"] == "2"   # only the first sets it
    [warn] = codes(ge, "NPB106")
    assert warn.severity == "warning" and warn.option == "NpuOptimizer"
    assert warn.value == "precision_mode"                       # graph_run_mode: same value
    assert "'allow_mix_precision' (NpuOptimizer #0)" in warn.message
    assert "'force_fp32' (NpuOptimizer #1)" in warn.message
    assert "SetNpuOptimizerAttr" in warn.message
    assert ge.sources["ge.exec.precision_mode"] == "parameter_map:precision_mode (NpuOptimizer #1 of 2)"
    assert ge.sources["ge.exec.staticMemoryPolicy"] == \
        "parameter_map:static_memory_policy (NpuOptimizer #0 of 2)"


def test_three_optimizers_last_wins():
    ge = resolve(proto({"iterations_per_loop": 10}, {"iterations_per_loop": 20},
                       {"iterations_per_loop": 30}), env={})
    assert ge.adapter_options["iterations_per_loop"] == "30"
    [warn] = codes(ge, "NPB106")
    assert warn.value == "iterations_per_loop"
    assert "10 (NpuOptimizer #0) -> 20 (NpuOptimizer #1) -> 30 (NpuOptimizer #2)" in warn.message


def test_equal_values_or_one_optimizer_no_warning():
    ge = resolve(proto({"precision_mode": "force_fp32", "job": "worker"},
                       {"precision_mode": "force_fp32", "job": "worker"}), env={})
    assert not codes(ge, "NPB106")
    one = resolve(proto({"precision_mode": "force_fp32"}), env={})
    assert not codes(one, "NPB106")
    assert one.sources["ge.exec.precision_mode"] == "parameter_map:precision_mode"


def test_merged_result_equals_single_optimizer_with_merged_map():
    ge = resolve(proto({"precision_mode": "force_fp32", "hcom_parallel": False},
                       {"iterations_per_loop": 5, "hcom_parallel": True}), env={})
    single = resolve(proto({"precision_mode": "force_fp32", "hcom_parallel": True,
                            "iterations_per_loop": 5}), env={})
    for level in ("global_options", "session_options", "graph_options", "adapter_options",
                  "effective"):
        assert getattr(ge, level) == getattr(single, level)


@pytest.mark.parametrize("key,value,default", [("job", "worker", "localhost"),
                                               ("jit_compile", "false", "2"),
                                               ("shape_generalization_mode", "FULL", "STRICT")])
def test_later_optimizer_without_the_key_resets_it(key, value, default):
    ge = resolve(proto({key: value}, {"precision_mode": "force_fp32"}), env={})
    routes = catalog.BY_KEY[key].routes
    levels = {"global": ge.global_options, "session": ge.session_options,
              "adapter": ge.adapter_options}
    for route in routes:
        assert levels[route.level][route.key] == default
        assert "NpuOptimizer #1" in ge.sources[route.key]
    [warn] = codes(ge, "NPB106")
    assert warn.value == key
    assert "reset" in warn.message


def test_reset_to_the_same_default_is_silent():
    ge = resolve(proto({"job": "localhost"}, {}), env={})
    assert not codes(ge, "NPB106")


def test_profiling_options_reset_only_while_profiling_is_on():
    opts = '{"output":"/tmp","training_trace":"on"}'
    on = resolve(proto({"profiling_mode": True, "profiling_options": opts}, {}), env={})
    assert on.global_options["ge.exec.profilingOptions"] == ""   # the adapter's default JSON
    assert codes(on, "NPB106")[0].value == "profiling_options"
    off = resolve(proto({"profiling_mode": True, "profiling_options": opts},
                        {"profiling_mode": False}), env={})
    assert off.global_options["ge.exec.profilingOptions"] == opts   # not read any more: kept
    assert codes(off, "NPB106")[0].value == "profiling_mode"


def test_dump_on_and_later_optimizer_without_dump_path_fails_as_the_adapter():
    with pytest.raises(NpuConfigError) as info:
        resolve(proto({"enable_dump": True, "dump_path": "/tmp"}, {"precision_mode": "force_fp32"}),
                env={})
    assert any(d.code == "NPB143" and d.severity == "error" for d in info.value.diagnostics)
    # the later one switches dumping off: dump_path is not read, no error
    ge = resolve(proto({"enable_dump": True, "dump_path": "/tmp"}, {"enable_dump": False}), env={})
    assert ge.session_options["enable_dump"] == "0"


@pytest.mark.parametrize("name", ["npuoptimizer", "NPUOptimizer", "NpuOptimiser",
                                  "NpuOptimizer ", "Npu_Optimizer"])
def test_near_miss_name_is_ignored_with_a_warning(name):
    ge = resolve(proto({"precision_mode": "force_fp32"}, {"precision_mode": "allow_mix_precision"},
                       names=["NpuOptimizer", name]), env={})
    assert ge.global_options["ge.exec.precision_mode"] == "force_fp32"   # ignored
    [warn] = codes(ge, "NPB107")
    assert warn.severity == "warning" and warn.value == name
    assert "did you mean 'NpuOptimizer'" in warn.message
    assert not codes(ge, "NPB106")


def test_near_miss_only():
    ge = resolve(proto({"precision_mode": "force_fp32"}, names=["NPUOptimizer"]), env={})
    assert "ge.exec.precision_mode" not in ge.sources or \
        ge.sources["ge.exec.precision_mode"] == "adapter default"
    assert codes(ge, "NPB107") and codes(ge, "NPB116") and codes(ge, "NPB110")


@pytest.mark.parametrize("name", ["GradFusionOptimizer", "MyPass", "Optimizer", "TileOptimizer"])
def test_other_custom_optimizers_are_not_near_misses(name):
    ge = resolve(proto({"precision_mode": "force_fp32"}, {}, names=["NpuOptimizer", name]), env={})
    assert not codes(ge, "NPB107") and not codes(ge, "NPB106")


def test_json_round_trip_keeps_the_diagnostic():
    from npu_bridge.ge import GeOptions
    ge = resolve(proto({"precision_mode": "force_fp32"}, {"precision_mode": "allow_mix_precision"}),
                 env={})
    again = GeOptions.from_json(ge.to_json())
    assert [d.code for d in again.diagnostics] == [d.code for d in ge.diagnostics]


# ---------------------------------------------------------------- the estimator's config
def test_estimator_appends_its_optimizer_warning_only_when_values_differ():
    from npu_bridge.estimator.npu.npu_config import NPURunConfig, render_session_config
    user = proto({"precision_mode": "allow_mix_precision"})
    same = NPURunConfig(session_config=user, precision_mode="allow_mix_precision")
    for config in (same, render_session_config(same)):
        ge = resolve(config, env={})
        assert not codes(ge, "NPB106")
        assert ge.global_options["ge.exec.precision_mode"] == "allow_mix_precision"
    differ = NPURunConfig(session_config=user, precision_mode="force_fp32")
    for config in (differ, render_session_config(differ)):
        ge = resolve(config, env={})
        [warn] = codes(ge, "NPB106")
        assert warn.value == "precision_mode"
        assert ge.global_options["ge.exec.precision_mode"] == "force_fp32"
        # the NPURunConfig's argument; its rendered ConfigProto is a hand-written map
        assert ge.sources["ge.exec.precision_mode"] == "%s:precision_mode (NpuOptimizer #1 of 2)" \
            % ("argument" if config is differ else "parameter_map")
    # the user's key the estimator does not write stays; one it resets is reported
    kept = NPURunConfig(session_config=proto({"op_debug_config": "/x.cfg", "aoe_mode": "2"}))
    for config in (kept, render_session_config(kept)):
        ge = resolve(config, env={})
        assert ge.global_options["ge.exec.opDebugConfig"] == "/x.cfg"
        assert ge.global_options["ge.jobType"] == ""
        assert codes(ge, "NPB106")[0].value == "aoe_mode"


def test_estimator_without_user_optimizer_unchanged():
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    config = NPURunConfig(session_config=config_pb2.ConfigProto(), precision_mode="force_fp32")
    parameter_map = config._npu_resolve_input()[0]
    assert isinstance(parameter_map, dict)
    assert not codes(resolve(config, env={}), "NPB106")


# ---------------------------------------------------------------- the Session patch
def test_session_patch_cache_sees_every_npu_optimizer():
    from npu_bridge.hooks import session_patch as _session_patch
    _session_patch.clear_caches()
    first = proto({"precision_mode": "force_fp32"})
    ge1 = _session_patch.resolve_session_config(first)
    assert ge1.global_options["ge.exec.precision_mode"] == "force_fp32"
    both = proto({"precision_mode": "force_fp32"}, {"precision_mode": "allow_mix_precision"})
    ge2 = _session_patch.resolve_session_config(both)
    assert ge2.global_options["ge.exec.precision_mode"] == "allow_mix_precision"
    assert codes(ge2, "NPB106")
    near = proto({"precision_mode": "force_fp32"}, {"precision_mode": "allow_mix_precision"},
                 names=["NpuOptimizer", "npuoptimizer"])
    ge3 = _session_patch.resolve_session_config(near)
    assert ge3.global_options["ge.exec.precision_mode"] == "force_fp32" and codes(ge3, "NPB107")


def test_session_patch_injects_only_when_none_and_warns_about_a_near_miss():
    from npu_bridge.hooks import session_patch as _session_patch
    _session_patch.clear_caches()
    config = proto({"precision_mode": "force_fp32"}, names=["NPUOptimizer"])
    assert _session_patch.find_npu_optimizer(config) is None
    ge = _session_patch.resolve_session_config(config)   # resolved as the adapter injects
    assert codes(ge, "NPB107")
    assert len(config.graph_options.rewrite_options.custom_optimizers) == 1   # not edited
    two = proto({}, {"precision_mode": "force_fp32"})
    _session_patch.apply_npu_session_defaults(two)
    assert [o.name for o in two.graph_options.rewrite_options.custom_optimizers] == \
        ["NpuOptimizer", "NpuOptimizer"]


def test_npb106_says_when_the_replaced_value_was_never_in_effect():
    """A first NpuOptimizer setting static_memory_policy in .s (NPB101: the adapter ignores
    it) and a second setting .i = 3: NPB106 must not present '2' as the value in effect."""
    config = config_pb2.ConfigProto()
    first = config.graph_options.rewrite_options.custom_optimizers.add()
    first.name = "NpuOptimizer"
    first.parameter_map["static_memory_policy"].s = b"2"
    _set(config.graph_options.rewrite_options.custom_optimizers.add(), {"static_memory_policy": 3})
    config.graph_options.rewrite_options.custom_optimizers[1].name = "NpuOptimizer"
    with pytest.raises(NpuConfigError) as err:
        resolve(config, env={})
    (npb106,) = [d for d in err.value.diagnostics if d.code == "NPB106"]
    assert "'2' (NpuOptimizer #0, not in effect: see its NPB101) -> 3 (NpuOptimizer #1)" \
        in npb106.message, npb106.message
    assert [d.code for d in err.value.diagnostics if d.severity == "error"] == ["NPB101"]


def test_npb106_lists_the_changed_keys_in_catalog_order():
    """Like every entry diagnostic, NPB106's changed keys follow the catalog order, whatever
    order the maps were written in."""
    from npu_bridge.ge import resolver
    first = {"jit_compile": "true", "enable_dump": False, "precision_mode": "force_fp32"}
    second = {"precision_mode": "allow_mix_precision", "jit_compile": "false", "enable_dump": True,
              "dump_path": "/tmp"}
    (npb106,) = codes(resolve(proto(first, second), env={}), "NPB106")
    keys = npb106.value.split(", ")
    assert sorted(keys) == ["enable_dump", "jit_compile", "precision_mode"]
    assert keys == sorted(keys, key=resolver._CATALOG_ORDER.get)   # pylint: disable=protected-access
    assert [npb106.message.index(k + " ") for k in keys] == \
        sorted(npb106.message.index(k + " ") for k in keys)
