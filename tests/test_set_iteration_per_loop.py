"""util.set_iteration_per_loop / IterationPerLoop.load_iteration_per_loop_var checked against
the session configuration's parameter_map iterations_per_loop (NPB125).

Facts (hicann/tensorflow): the docs (apiref/session_config/performance_tuning.md,
apiref/npu_util/set_iteration_per_loop.md) say the parameter_map value must equal the value
given to set_iteration_per_loop; the adapter (tf_adapter/kernels/geop_npu.cc) uses the
parameter_map value only as the switch `> 1` that marks a graph holding IterationOp for the
device loop, whose count GE reads from the variable set_iteration_per_loop loads. So:
- map > 1, call N != map: the NPU still loops N: warning;
- map 1 (unset: adapter default 1), call N > 1: the NPU would not loop (one step per run):
  error, raised before the loop is changed.
"""
import json
import os
import subprocess
import sys
from unittest import mock

import pytest
import tensorflow as tf

from npu_bridge.hooks import state as _state
from npu_bridge import npu_init  # noqa: F401  (patches the Session as scripts do)
from npu_bridge.ge import records as _records
from npu_bridge.hooks import session_patch as _session_patch
from npu_bridge.estimator.npu import util
from npu_bridge.ge import NpuConfigError
from npu_protos import proto  # noqa: E402
import _pool  # noqa: E402

tf.compat.v1.disable_eager_execution()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def patched():
    _session_patch.patch()
    _session_patch.clear_caches()
    yield
    _session_patch.patch()


def counting_graph():
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.assign_add(step, 1).op
    return graph, step, train_op


def npb125(sess):
    return [d for d in _state.of(sess).record["runtime"] if d.code == "NPB125"]


def logged(mock_log):
    return [c for c in mock_log.call_args_list if "NPB125" in " ".join(map(str, c.args))]


def test_map_5_call_10_warns_once_and_loops_10():
    graph, step, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=5)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        with mock.patch.object(tf.compat.v1.logging, "warning") as warn:
            loop_op = util.set_iteration_per_loop(sess, train_op, 10)
            util.set_iteration_per_loop(sess, train_op, 10)      # same cause: nothing new
        (d,) = npb125(sess)
        assert (d.code, d.severity, d.option, d.value) == ("NPB125", "warning",
                                                           "iterations_per_loop", 10)
        name = _state.of(sess).record["name"]
        for part in ("set_iteration_per_loop", "10", "parameter_map iterations_per_loop=5",
                     name, "iterations_per_loop notes", "session_config/performance_tuning.md",
                     "npu_util/set_iteration_per_loop.md", "geop_npu.cc"):
            assert part in d.message, part
        assert len(logged(warn)) == 1
        for _ in range(3):
            sess.run(loop_op)
        assert sess.run(step) == 30            # the NPU loops the loaded value too


def test_unset_key_call_10_is_an_error_before_anything_changes():
    graph, step, train_op = counting_graph()
    config = proto(precision_mode="allow_mix_precision")
    with graph.as_default(), tf.compat.v1.Session(config=config) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        ops_before = len(graph.get_operations())
        with mock.patch.object(tf.compat.v1.logging, "error") as log:
            with pytest.raises(NpuConfigError) as info:
                util.set_iteration_per_loop(sess, train_op, 10)
            with pytest.raises(NpuConfigError):
                util.set_iteration_per_loop(sess, train_op, 10)  # raised again, recorded once
        (d,) = info.value.diagnostics
        assert (d.code, d.severity, d.option, d.value) == ("NPB125", "error",
                                                           "iterations_per_loop", 10)
        assert "unset (adapter default 1)" in d.message and _state.of(sess).record["name"] in d.message
        assert "one step" in d.message
        assert npb125(sess) == [d]
        assert _records.record_of(info.value) is _state.of(sess).record
        assert len(logged(log)) == 1
        # nothing half-done: no loop variable, no IterationOp, no registered loop
        assert len(graph.get_operations()) == ops_before
        assert graph.get_collection("npu_runconfig_iterations_per_loop") == []
        assert util.loop_ops_of(graph) is None
        sess.run(train_op)
        assert sess.run(step) == 1


def test_explicit_1_call_4_is_an_error_and_equal_values_are_silent():
    graph, step, train_op = counting_graph()
    with graph.as_default():
        with tf.compat.v1.Session(config=proto(iterations_per_loop=1)) as sess:
            with pytest.raises(NpuConfigError, match="iterations_per_loop=1"):
                util.set_iteration_per_loop(sess, train_op, 4)
        with tf.compat.v1.Session(config=proto(iterations_per_loop=4)) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            loop_op = util.set_iteration_per_loop(sess, train_op, 4)
            sess.run(loop_op)
            assert sess.run(step) == 4 and npb125(sess) == []


def test_map_5_call_1_warns_and_returns_the_op():
    graph, _, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=5)) as sess:
        assert util.set_iteration_per_loop(sess, train_op, 1) is train_op
        (d,) = npb125(sess)
        assert d.severity == "warning" and d.value == 1


def test_plain_session_under_npu_init_uses_the_adapter_default_1():
    # npu_init gives a session without NpuOptimizer the adapter's one (defaults: 1)
    graph, _, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        with pytest.raises(NpuConfigError, match="adapter default 1"):
            util.set_iteration_per_loop(sess, train_op, 3)
        assert util.set_iteration_per_loop(sess, train_op, 1) is train_op
        assert len(npb125(sess)) == 1


def test_two_step_form_is_checked_before_loading():
    graph, step, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=2)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        loop = util.IterationPerLoop()
        loop_op = loop.create_iteration_per_loop_var(train_op)
        loop.load_iteration_per_loop_var(sess, 3)              # 2 vs 3: warning, loops 3
        assert [d.severity for d in npb125(sess)] == ["warning"]
        sess.run(loop_op)
        assert sess.run(step) == 3
    with graph.as_default(), tf.compat.v1.Session() as sess:   # adapter default 1
        sess.run(tf.compat.v1.global_variables_initializer())
        var = graph.get_collection("npu_runconfig_iterations_per_loop")[0]
        sess.run(var.initializer)
        with pytest.raises(NpuConfigError):
            loop.load_iteration_per_loop_var(sess, 3)
        assert sess.run(var) == 0                              # not loaded


def test_monitored_session_is_checked_on_its_tf_session():
    graph, step, train_op = counting_graph()
    with graph.as_default():
        loop = util.IterationPerLoop()
        loop_op = loop.create_iteration_per_loop_var(train_op)
        creator = tf.compat.v1.train.ChiefSessionCreator(config=proto(iterations_per_loop=5))
        with tf.compat.v1.train.MonitoredSession(session_creator=creator) as sess:
            loop.load_iteration_per_loop_var(sess, 10)
            tf_sess = sess._tf_sess()
            (d,) = npb125(tf_sess)
            assert d.severity == "warning" and _state.of(tf_sess).record["name"] in d.message
            sess.run(loop_op)
            assert sess.run(step) == 10
        creator = tf.compat.v1.train.ChiefSessionCreator(config=proto())
        with tf.compat.v1.train.MonitoredSession(session_creator=creator) as sess:
            # refused before the finalized graph is touched
            with pytest.raises(NpuConfigError):
                util.set_iteration_per_loop(sess, train_op, 10)
            assert len(npb125(sess._tf_sess())) == 1


def test_session_without_configuration_does_not_crash():
    graph, step, train_op = counting_graph()
    with graph.as_default():
        _session_patch.unpatch()
        try:
            sess = tf.compat.v1.Session()        # created unpatched: no NPU configuration
        finally:
            _session_patch.patch()
        with sess:
            assert _state.of(sess) is None
            sess.run(tf.compat.v1.global_variables_initializer())
            with mock.patch.object(tf.compat.v1.logging, "warning") as warn:
                loop_op = util.set_iteration_per_loop(sess, train_op, 3)
            assert len(logged(warn)) == 1         # logged, nothing to record it with
            sess.run(loop_op)
            assert sess.run(step) == 3
    # objects that are not sessions at all: the check stays out of the way
    assert util.set_iteration_per_loop(object(), train_op, 1) is train_op
    assert util.set_iteration_per_loop(None, train_op, 1) is train_op


# --- npu-bridge run on the tester's reproducers ----------------------------------------------

SCRIPT = '''
import tensorflow as tf
from npu_bridge.npu_init import *
v = tf.Variable(0.0)
gs = tf.train.get_or_create_global_step()
train = tf.group(v.assign_add(1.0), gs.assign_add(1))
config = tf.ConfigProto()
op = config.graph_options.rewrite_options.custom_optimizers.add()
op.name = "NpuOptimizer"
%s
with tf.Session(config=config) as s:
    s.run(tf.global_variables_initializer())
    loop = util.set_iteration_per_loop(s, train, 10)
    for _ in range(3):
        s.run(loop)
    print("steps", s.run(gs))
'''


def _run(tmp_path, line, *flags):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT % line)
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    for var in ("RANK_SIZE", "RANK_ID", "DEVICE_ID", "NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY"):
        env.pop(var, None)
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "run", *flags, "--report",
                           str(report), str(script)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    return proc, json.loads(report.read_text())


def _codes(report):
    return [(d["code"], d["severity"]) for c in report["configurations"]
            for d in c["diagnostics"] if d["code"] == "NPB125"]


def test_run_reports_the_mismatch_as_a_warning(tmp_path):
    line = 'op.parameter_map["iterations_per_loop"].i = 5'
    (tmp_path / "plain").mkdir()
    (tmp_path / "strict").mkdir()
    (proc, report), (strict, _) = _pool.together(   # two TensorFlow start-ups at once
        lambda: _run(tmp_path / "plain", line), lambda: _run(tmp_path / "strict", line, "--strict"))
    assert proc.returncode == 0 and "steps 30" in proc.stdout
    assert _codes(report) == [("NPB125", "warning")]
    assert report["summary"]["warnings"] == 1 and report["summary"]["errors"] == 0
    assert strict.returncode == 1


def test_run_fails_on_the_missing_key(tmp_path):
    proc, report = _run(tmp_path, 'op.parameter_map["precision_mode"].s = b"allow_mix_precision"')
    assert proc.returncode == 1 and "steps" not in proc.stdout
    assert _codes(report) == [("NPB125", "error")]
    assert report["summary"]["errors"] == 1
    assert report["outcome"]["uncaught"]["configuration"] == 1
