"""Spellings of older adapter releases (npu_bridge.ge.legacy): NPB108 warnings, not errors.

Constructor arguments (NPURunConfig), hand-written parameter_map keys (resolver) and lint
each accept a spelling an older release took, say what the current adapter does with it,
and write what the older NPUEstimator wrote; a spelling no release had stays an error with
its "did you mean".
"""
import inspect
import subprocess
import sys

import pytest
import tensorflow as tf
from tensorflow.core.framework.attr_value_pb2 import AttrValue

from npu_bridge.estimator.npu.npu_config import NPURunConfig, ProfilingConfig, render_parameter_map
from npu_bridge.ge import NpuConfigError, legacy, resolve
from npu_bridge.ge.diagnostics import CODES
from npu_bridge.tools.lint import lint_source

KEYS = {"enable_auto_mix_precision": AttrValue(b=True), "fp_point": AttrValue(s=b"conv1/Conv2D"),
        "bp_point": AttrValue(s=b"gradients/conv1"), "master_slave_mode": AttrValue(b=True),
        "mstune_mode": AttrValue(s=b"2")}
MOVED = {"enable_auto_mix_precision": "precision_mode", "fp_point": "profiling_options",
         "bp_point": "profiling_options", "mstune_mode": "aoe_mode", "master_slave_mode": None}


def _codes(diags, code):
    return [d for d in diags if d.code == code]


def test_code_is_documented():
    assert CODES["NPB108"][0] == "warning"
    with open("docs/diagnostics.md", encoding="utf-8") as f:
        assert "NPB108" in f.read()


@pytest.mark.parametrize("key", sorted(KEYS))
def test_parameter_map_key_of_older_release_is_a_warning_and_dropped(key):
    ge = resolve({key: KEYS[key], "precision_mode": AttrValue(s=b"allow_fp32_to_fp16")})
    (diag,) = _codes(ge.diagnostics, "NPB108")
    assert diag.severity == "warning" and diag.option == key
    assert "older adapter releases" in diag.message and "ignores it" in diag.message
    if MOVED[key]:
        assert MOVED[key] in diag.message
    assert not _codes(ge.diagnostics, "NPB100")
    every = dict(ge.global_options, **ge.session_options, **ge.graph_options)
    assert key not in every and "ge.buildMode" not in every     # the current adapter drops it


@pytest.mark.parametrize("key,close", [("sump_mode", "dump_mode"), ("autotune_tune_mode", "auto_tune_mode"),
                                       ("sfusion_switch_file", "fusion_switch_file")])
def test_never_existed_keys_stay_errors_with_did_you_mean(key, close):
    with pytest.raises(NpuConfigError) as err:
        resolve({key: AttrValue(s=b"x")})
    (diag,) = _codes(err.value.diagnostics, "NPB100")
    assert "did you mean %r" % close in diag.message
    assert not _codes(err.value.diagnostics, "NPB108")


def test_run_config_auto_tune_mode_writes_the_key_the_adapter_still_reads():
    config = NPURunConfig(auto_tune_mode="RL,GA")
    assert "auto_tune_mode" not in inspect.signature(NPURunConfig.__init__).parameters
    op = render_parameter_map(config, tf.compat.v1.ConfigProto().graph_options.rewrite_options
                              .custom_optimizers.add())
    assert op.parameter_map["auto_tune_mode"].s == b"RL,GA"
    ge = resolve(config)
    assert ge.global_options["ge.autoTuneMode"] == "RL,GA"
    (diag,) = config._npu_arg_warnings()
    assert diag.code == "NPB108" and diag.option == "NPURunConfig(auto_tune_mode)"
    assert "still reads" in diag.message and "aoe_mode" in diag.message
    assert config.replace(save_summary_steps=7)._npu_arg_warnings() == [diag]


def test_run_config_auto_tune_mode_value_is_checked_like_the_key():
    with pytest.raises(NpuConfigError, match="auto_tune_mode"):
        resolve(NPURunConfig(auto_tune_mode="XX"))


@pytest.mark.parametrize("arg,value,key,field", [("mstune_mode", "2", "mstune_mode", "s"),
                                                 ("enable_auto_mix_precision", True,
                                                  "enable_auto_mix_precision", "b")])
def test_run_config_args_write_older_keys_and_warn_once(arg, value, key, field):
    config = NPURunConfig(**{arg: value})
    pm = config._npu_resolve_input()[0]
    assert getattr(pm[key], field) == (value.encode() if isinstance(value, str) else value)
    ge = resolve(config)
    warned = _codes(ge.diagnostics, "NPB108") + _codes(config._npu_arg_warnings(), "NPB108")
    assert [d.option for d in warned] == [key]      # one warning for the one use


def test_run_config_none_writes_nothing():
    config = NPURunConfig(auto_tune_mode=None)
    assert "auto_tune_mode" not in config._npu_resolve_input()[0]
    assert "nothing is written" in config._npu_arg_warnings()[0].message


def test_run_config_never_existed_argument_is_type_error_with_did_you_mean():
    with pytest.raises(TypeError, match=r"'autotune_tune_mode'; did you mean 'auto_tune_mode'"):
        NPURunConfig(autotune_tune_mode="RL")
    with pytest.raises(TypeError, match="unexpected keyword argument 'sump_mode'"):
        NPURunConfig(sump_mode="all")


SCRIPT = '''
from npu_bridge.npu_init import *
import tensorflow as tf
run_config = NPURunConfig(auto_tune_mode="RL,GA", mstune_mode=mode, model_dir="/tmp/m")
config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["enable_auto_mix_precision"].b = True
custom_op.parameter_map["master_slave_mode"].b = flag
custom_op.parameter_map["fp_point"].s = tf.compat.as_bytes("a")
custom_op.parameter_map["sump_mode"].s = tf.compat.as_bytes("all")
bad = NPURunConfig(autotune_tune_mode="RL")
'''


def test_lint_warns_for_each_older_spelling_and_errors_for_the_others():
    found = [(f.line, f.code, f.severity) for f in lint_source(SCRIPT, "s.py")]
    assert (4, "NPB108", "warning") in found and [c for line, c, _ in found if line == 4].count("NPB108") == 2
    for line in (8, 9, 10):          # non-literal `flag` too: about the key, not its value
        assert (line, "NPB108", "warning") in found
    assert (11, "NPB100", "error") in found
    assert (12, "NBL012", "error") in found
    messages = {f.line: f.message for f in lint_source(SCRIPT, "s.py") if f.code == "NBL012"}
    assert "did you mean 'auto_tune_mode'" in messages[12]
    assert not [f for f in found if f[2] == "error" and f[0] < 11]


def test_table_rows_are_well_formed():
    for r in legacy.ROWS:
        assert r.where in ("NPURunConfig", "ProfilingConfig", "parameter_map") and r.now in ("read", "ignored")
        assert r.releases
        if r.where == "parameter_map":
            assert r.field in ("s", "b") and r.writes is None
        elif r.writes is not None:
            assert r.writes[1] in ("s", "b")


def test_estimator_with_older_argument_trains_and_keeps_the_warning(tmp_path):
    # The 11 zoo trainers (AlexNet, InceptionV3, ...): NPURunConfig(auto_tune_mode=...) then train.
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec

    def model_fn(features, labels, mode):
        loss = tf.reduce_mean(tf.square(tf.compat.v1.layers.dense(features, 1) - labels))
        step = tf.compat.v1.train.get_or_create_global_step()
        return NPUEstimatorSpec(mode=mode, loss=loss, train_op=tf.compat.v1.train
                                .GradientDescentOptimizer(0.1).minimize(loss, global_step=step))

    def input_fn():
        x = tf.random.uniform([8, 3])
        return tf.compat.v1.data.Dataset.from_tensors((x, tf.reduce_sum(x, 1, keepdims=True))).repeat()

    config = NPURunConfig(auto_tune_mode="RL,GA", model_dir=str(tmp_path), save_checkpoints_steps=100)
    estimator = NPUEstimator(model_fn=model_fn, config=config)
    estimator.train(input_fn, steps=2)
    assert estimator.get_variable_value("global_step") == 2
    ge = estimator._npu_ge_options
    assert ge.global_options["ge.autoTuneMode"] == "RL,GA"
    assert [d.option for d in ge.diagnostics if d.code == "NPB108"] == ["NPURunConfig(auto_tune_mode)"]


def test_release_branch_spellings_es_cluster_config_and_op_tune_mode():
    # es_cluster_config: r1.13.0 .. r3.2.0; op_tune_mode: r1.3.0, written only with mstune_mode.
    config = NPURunConfig(es_cluster_config='{"a": 1}', op_tune_mode="GA")
    pm = config._npu_resolve_input()[0]
    assert pm["es_cluster_config"].s == b'{"a": 1}' and "op_tune_mode" not in pm
    assert [d.option for d in config._npu_arg_warnings()] == ["NPURunConfig(op_tune_mode)"]
    assert "only together with mstune_mode" in config._npu_arg_warnings()[0].message
    ge = resolve(config)
    assert [d.option for d in ge.diagnostics if d.code == "NPB108"] == ["es_cluster_config"]
    both = NPURunConfig(mstune_mode="2", op_tune_mode="GA")
    assert both._npu_resolve_input()[0]["op_tune_mode"].s == b"GA"
    assert sorted(d.option for d in resolve(both).diagnostics if d.code == "NPB108") == \
        ["mstune_mode", "op_tune_mode"]


def _npb108(diags):
    return sorted(d.option for d in diags if d.code == "NPB108")


def test_profiling_config_of_r1_1_1_writes_fp_and_bp_point_as_it_did():
    # r1.1.1: ProfilingConfig(enable_profiling=False, enable_options=[], fp_point=None,
    # bp_point=None); its NPUEstimator wrote parameter_map fp_point / bp_point (.s).
    profiling = ProfilingConfig(enable_profiling=True, enable_options=["training_trace", "task_trace"],
                                fp_point="conv1/Conv2D", bp_point="gradients/AddN")
    config = NPURunConfig(profiling_config=profiling)
    pm = config._npu_resolve_input()[0]
    assert (pm["fp_point"].s, pm["bp_point"].s) == (b"conv1/Conv2D", b"gradients/AddN")
    assert pm["profiling_mode"].b is True and pm["profiling_options"].s == b""
    ge = resolve(config)
    warned = list(ge.diagnostics) + config._npu_arg_warnings()
    assert _npb108(warned) == ["ProfilingConfig(enable_options)", "bp_point", "fp_point"]
    for d in warned:
        if d.code == "NPB108":
            assert "profiling_options" in d.message and "r1.1.1" in d.message, d.message
    every = dict(ge.global_options, **ge.session_options, **ge.graph_options)
    assert "fp_point" not in every and "bp_point" not in every
    assert every["ge.exec.profilingMode"] == "1"
    assert {"fp_point", "bp_point"} <= config._npu_user_keys()


def test_profiling_config_points_were_written_only_with_profiling_on_and_both_given():
    for kwargs in ({"enable_profiling": False, "fp_point": "a", "bp_point": "b"},
                   {"enable_profiling": True, "enable_options": ["training_trace"], "fp_point": "a"}):
        config = NPURunConfig(profiling_config=ProfilingConfig(**kwargs))
        pm = config._npu_resolve_input()[0]
        assert "fp_point" not in pm and "bp_point" not in pm
        warned = config._npu_arg_warnings()
        assert _npb108(warned) == sorted("ProfilingConfig(%s)" % k for k in kwargs
                                         if k != "enable_profiling")
        assert _npb108(resolve(config).diagnostics) == []
        assert "only together with" in [d for d in warned if d.option == "ProfilingConfig(fp_point)"][0].message


def test_profiling_config_never_existed_argument_is_type_error_with_did_you_mean():
    with pytest.raises(TypeError, match=r"'fp_pont'; did you mean 'fp_point'"):
        ProfilingConfig(fp_pont="a")
    assert list(inspect.signature(ProfilingConfig.__init__).parameters)[1:] == \
        ["enable_profiling", "profiling_options"]


def test_lint_profiling_config_of_r1_1_1_is_npb108_not_nbl012():
    src = ("from npu_bridge.npu_init import *\n"
           "p = ProfilingConfig(enable_profiling=True, enable_options=['training_trace'],\n"
           "                    fp_point='a', bp_point='b')\n"
           "q = ProfilingConfig(fp_pont='a')\n")
    found = sorted((f.line, f.code) for f in lint_source(src, "s.py"))
    assert found == [(2, "NPB108"), (3, "NPB108"), (3, "NPB108"), (4, "NBL012")]
