"""The TF 1.x API mode (`npu_bridge.hooks.tf1_mode`) and the single-device job environment.

The mode is process-wide, so every TensorFlow scenario runs in a fresh interpreter; each one
groups several checks because a TensorFlow import costs seconds. A scenario prints one line
`RESULT <json>` that the test then asserts on."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from npu_bridge.tools import jobenv as _jobenv
from npu_bridge.hooks import tf1_mode

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_scenario(tmp_path, code, args=(), env=None):
    """Run `code` as a script file (so tracebacks and source lines exist) in `tmp_path`."""
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(code))
    full_env = {k: v for k, v in os.environ.items() if k != tf1_mode.OPT_OUT_ENV}
    full_env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    full_env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, str(script), *args], cwd=str(tmp_path), env=full_env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    assert len(lines) == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(lines[0][len("RESULT "):])


TF_BEFORE = r'''
import json, sys
import numpy as np
import tensorflow as tf            # a TF 1.15 script imports tensorflow first
was_eager = tf.executing_eagerly()
import npu_bridge
from npu_bridge.hooks import tf1_mode
r = {"was_eager": was_eager, "enabled": tf1_mode.is_enabled(), "eager": tf.executing_eagerly(),
     "enable_again": tf1_mode.enable(), "version": tf.__version__}

# Names TF 2 removed are back, as the tf.compat.v1 objects themselves.
v1 = tf.compat.v1
r["same_objects"] = all(getattr(tf, n) is getattr(v1, n) for n in (
    "placeholder", "Session", "ConfigProto", "variable_scope", "get_variable",
    "global_variables_initializer", "random_normal", "to_float", "assign", "app", "flags",
    "logging", "gfile", "train", "losses", "nn", "summary", "data", "metrics"))
r["summary_v1"] = hasattr(tf.summary, "FileWriter") and hasattr(tf.summary, "merge_all")
r["one_shot"] = hasattr(tf.data.Dataset.range(3), "make_one_shot_iterator")
r["compat_v1_is_v1"] = tf.compat.v1 is v1

x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
keep = tf.placeholder(tf.float32, name="keep")
dropped = tf.nn.dropout(tf.ones([20000]), keep)              # TF 1.x: keep probability
dropped_v2 = tf.compat.v2.nn.dropout(tf.ones([20000]), 0.9)  # TF 2: drop rate
kept_dims = tf.reduce_sum(tf.ones([2, 3]), 1, keep_dims=True)
mean_kd = tf.reduce_mean(tf.ones([4, 5]), axis=0, keep_dims=True)
with tf.variable_scope("model"):
    pred = tf.layers.dense(x, 1, use_bias=False)
loss = tf.losses.mean_squared_error(labels=y, predictions=pred)
opt = tf.train.AdamOptimizer(0.1)
train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
r["adam_module"] = type(opt).__module__
r["kept_dims_shape"] = kept_dims.shape.as_list()
r["mean_kd_shape"] = mean_kd.shape.as_list()

rng = np.random.RandomState(0)
feats = rng.randn(200, 3).astype(np.float32)
targs = feats @ np.array([[1.0], [-1.0], [2.0]], np.float32)
config = tf.ConfigProto(allow_soft_placement=True)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, {x: feats, y: targs})
    for _ in range(200):
        sess.run(train_op, {x: feats, y: targs})
    r["loss_first"], r["loss_last"] = float(first), float(sess.run(loss, {x: feats, y: targs}))
    r["kept"] = float(np.mean(sess.run(dropped, {keep: 0.9}) > 0))
    r["kept_v2"] = float(np.mean(sess.run(dropped_v2) > 0))
    r["step"] = int(sess.run(tf.train.get_global_step()))

# Imports of API submodules give the v1 module and do not rebind tf.<name> to TF 2.
from tensorflow.nn import dropout
import tensorflow.train
import tensorflow.summary
r["import_nn"] = dropout is v1.nn.dropout
r["import_train_keeps_v1"] = tf.train is v1.train and hasattr(tf.train, "AdamOptimizer")
r["import_summary_keeps_v1"] = hasattr(tf.summary, "FileWriter")
from tensorflow.python.framework import ops
r["python_import"] = ops.Graph is tf.Graph

# TF 1.15 names at tensorflow.python paths that TF 2.15 moved: back, as the same objects.
from tensorflow.python.framework import graph_util, graph_util_impl
from tensorflow.python.ops import control_flow_ops, array_ops, functional_ops, random_ops
r["python_moved"] = {
    "graph_util": [graph_util.convert_variables_to_constants is v1.graph_util.convert_variables_to_constants,
                   graph_util_impl.convert_variables_to_constants is v1.graph_util.convert_variables_to_constants]
                  + [getattr(graph_util, n) is getattr(v1.graph_util, n) for n in (
                      "extract_sub_graph", "must_run_on_cpu", "remove_training_nodes",
                      "tensor_shape_from_node_def_name")],
    "control_flow_ops": [control_flow_ops.cond is v1.cond, control_flow_ops.while_loop is v1.while_loop,
                         control_flow_ops.case is v1.case, control_flow_ops.Assert is v1.Assert],
    "array_ops": [array_ops.stack is v1.stack, array_ops.unstack is v1.unstack],
    "functional_ops": [functional_ops.map_fn is v1.map_fn],
    "random_ops": [random_ops.random_crop is v1.random_crop],
    "ops": [ops.Tensor is tf.Tensor, ops.IndexedSlices is v1.IndexedSlices],
}
with tf.Graph().as_default():
    v = tf.Variable(1.0)
    out = tf.identity(v * 2, name="out")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = graph_util.convert_variables_to_constants(sess, sess.graph_def, ["out"])
r["frozen_ops"] = sorted(n.op for n in frozen.node)

# tf.contrib is served (details: tests/test_contrib*.py); a name nothing has is a clear error.
r["hasattr_contrib"] = hasattr(tf, "contrib")
errors = {}
try:
    tf.contrib.quantize.create_training_graph()
except AttributeError as e:
    errors["quantize"] = [type(e).__name__, str(e)]
try:
    from tensorflow.contrib.quantize import create_eval_graph
except ImportError as e:
    errors["from_quantize"] = [type(e).__name__, str(e)]
try:
    tf.no_such_name_anywhere
except AttributeError as e:
    errors["unknown"] = [type(e).__name__, str(e)]
r["errors"] = errors
print("RESULT " + json.dumps(r))
'''


@pytest.fixture(scope="module")
def tf_before(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("before"), TF_BEFORE)


def test_tensorflow_imported_before_npu_bridge_switches_at_once(tf_before):
    r = tf_before
    assert r["was_eager"] is True
    assert r["enabled"] is True and r["eager"] is False
    assert r["enable_again"] is False          # idempotent
    assert r["version"].startswith("2.15")    # not lying about the real version
    assert r["same_objects"] and r["compat_v1_is_v1"]
    assert r["summary_v1"] and r["one_shot"]


def test_changed_meanings_have_tf1_semantics(tf_before):
    r = tf_before
    assert 0.88 < r["kept"] < 0.92, r["kept"]          # keep_prob 0.9 keeps 90%
    assert 0.08 < r["kept_v2"] < 0.12, r["kept_v2"]    # compat.v2 still takes a rate
    assert r["kept_dims_shape"] == [2, 1] and r["mean_kd_shape"] == [1, 5]
    assert r["adam_module"] == "tensorflow.python.training.adam"
    assert r["loss_last"] < 1e-3 < r["loss_first"]
    assert r["step"] == 200


def test_submodule_imports_stay_v1(tf_before):
    r = tf_before
    assert r["import_nn"] and r["import_train_keeps_v1"] and r["import_summary_keeps_v1"]
    assert r["python_import"]
    assert r["python_moved"] == {k: [True] * len(v) for k, v in r["python_moved"].items()}
    assert "VariableV2" not in r["frozen_ops"] and "Const" in r["frozen_ops"]


def test_contrib_is_served_and_missing_names_are_clear(tf_before):
    r = tf_before
    errors = r["errors"]
    assert r["hasattr_contrib"] is True
    kind, msg = errors["quantize"]
    assert kind == "MissingTF1AttributeError"
    assert "tf.contrib.quantize.create_training_graph is not available" in msg
    assert "tensorflow_model_optimization" in msg
    kind, msg = errors["from_quantize"]
    assert kind == "MissingTF1ModuleError"
    assert "tf.contrib.quantize.create_eval_graph is not available" in msg
    # Names that never existed keep the plain AttributeError.
    assert errors["unknown"][0] == "AttributeError"
    assert "no_such_name_anywhere" in errors["unknown"][1]


TF_AFTER = r'''
import json, sys, types
# Stand-ins for modules other parts of npu_bridge provide, to test the lazy exports alone.
for name, attrs in {"npu_bridge.estimator.npu.npu_estimator": {"NPUEstimator": object},
                    "npu_bridge.hccl.hccl_ops": {"allreduce": len},
                    "npu_bridge.estimator.npu.npu_plugin": {"npu_close": lambda: None}}.items():
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod

import npu_bridge.ge
r = {"tf_after_ge": "tensorflow" in sys.modules}
from npu_bridge.hooks import tf1_mode
r["enabled_before_tf"] = tf1_mode.is_enabled()
ns = {}
exec("from npu_bridge import *", ns)
r["star"] = sorted(k for k in ns if not k.startswith("__"))
r["star_npu_close"] = ns["npu_close"] is sys.modules["npu_bridge.estimator.npu.npu_plugin"].npu_close
r["tf_after_star"] = "tensorflow" in sys.modules

import tensorflow as tf
r["enabled_after_tf"] = tf1_mode.is_enabled()
r["eager"] = tf.executing_eagerly()
r["loader_restored"] = type(tf.__loader__).__name__

flags = tf.app.flags
flags.DEFINE_integer("steps", 3, "training steps")
flags.DEFINE_string("mode", "train", "mode")
FLAGS = tf.flags.FLAGS


def main(argv):
    r["steps"], r["mode"], r["argv_rest"] = FLAGS.steps, FLAGS.mode, argv[1:]
    r["flags_same"] = tf.flags is tf.app.flags
    print("RESULT " + json.dumps(r))


if __name__ == "__main__":
    tf.app.run()
'''


def test_tensorflow_imported_after_npu_bridge_and_tf_app_run(tmp_path):
    r = run_scenario(tmp_path, TF_AFTER, args=["--steps", "7", "extra"])
    assert r["tf_after_ge"] is False                 # the GE layer stays TF-free
    assert r["enabled_before_tf"] is False
    assert r["star"] == ["hccl_ops", "npu_close", "npu_estimator"]
    assert r["star_npu_close"] is True
    assert r["tf_after_star"] is False
    assert r["enabled_after_tf"] is True and r["eager"] is False
    assert r["loader_restored"] == "SourceFileLoader"
    assert (r["steps"], r["mode"], r["argv_rest"]) == (7, "train", ["extra"])
    assert r["flags_same"] is True


ESTIMATOR_KERAS = r'''
import json, sys, tempfile
import numpy as np
import npu_bridge
import tensorflow as tf
r = {}

def model_fn(features, labels, mode, params):
    logits = tf.layers.dense(features, 2)
    predictions = {"cls": tf.argmax(logits, 1)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

X = np.concatenate([np.ones((32, 2)), -np.ones((32, 2))]).astype(np.float32)
Y = np.array([1] * 32 + [0] * 32, np.int32)

def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(16)

est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(),
                             config=tf.estimator.RunConfig(save_summary_steps=10))
est.train(input_fn, steps=20)
r["global_step"] = int(est.get_variable_value("global_step"))
r["eval_loss"] = float(est.evaluate(lambda: input_fn().take(2))["loss"])
r["v2_estimator_is_v1_subclass"] = issubclass(tf.compat.v2.estimator.Estimator, tf.estimator.Estimator)

# Keras: tf.keras is the v1 Keras API, which trains in graph mode.
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
model.compile(tf.keras.optimizers.SGD(0.1), "mse")
hist = model.fit(X, Y.astype(np.float32), epochs=3, batch_size=16, verbose=0)
r["keras_losses"] = [float(v) for v in hist.history["loss"]]
import keras
r["keras_pkg"] = keras.__version__
print("RESULT " + json.dumps(r))
'''


def test_estimator_and_keras_keep_working(tmp_path):
    r = run_scenario(tmp_path, ESTIMATOR_KERAS)
    assert r["global_step"] == 20
    assert r["eval_loss"] < 0.1
    assert r["v2_estimator_is_v1_subclass"] is True
    assert len(r["keras_losses"]) == 3 and r["keras_losses"][-1] < r["keras_losses"][0]
    assert r["keras_pkg"].startswith("2.15")


TF_IN_ANOTHER_THREAD = r'''
import json, sys, threading, time
importer = threading.Thread(target=lambda: __import__("tensorflow"))
importer.start()
while "tensorflow" not in sys.modules:   # its import under way, in the other thread
    time.sleep(0.001)
half = not hasattr(sys.modules["tensorflow"], "compat")
import npu_bridge
from npu_bridge.hooks import session_patch, tf1_mode
importer.join()
import tensorflow as tf
print("RESULT " + json.dumps({"half": half, "enabled": tf1_mode.is_enabled(),
                              "patched": session_patch.is_patched(),
                              "placeholder": hasattr(tf, "placeholder")}))
'''


def test_npu_bridge_imported_while_another_thread_imports_tensorflow(tmp_path):
    """`tensorflow` in sys.modules is taken as imported (no probe of CPython's private
    `__spec__._initializing`): the mode's `import tensorflow` waits for the other thread's
    import, then the mode and the Session check are on (with the probe both stayed off)."""
    r = run_scenario(tmp_path, TF_IN_ANOTHER_THREAD)
    assert r == {"half": True, "enabled": True, "patched": True, "placeholder": True}


OPT_OUT = r'''
import json, sys
import tensorflow as tf
import npu_bridge
from npu_bridge.hooks import tf1_mode
r = {"enabled": tf1_mode.is_enabled(), "enable": tf1_mode.enable(),
     "hook": tf1_mode.install_import_hook(), "eager": tf.executing_eagerly(),
     "placeholder": hasattr(tf, "placeholder"), "session": hasattr(tf, "Session"),
     "finder": any(type(f).__name__ == "_TF1ModeFinder" for f in sys.meta_path)}
x = tf.ones([20000])
r["kept_rate"] = float((tf.nn.dropout(x, 0.9).numpy() > 0).mean())   # TF 2: a rate
print("RESULT " + json.dumps(r))
'''


def test_opt_out_leaves_tensorflow_2_alone(tmp_path):
    r = run_scenario(tmp_path, OPT_OUT, env={"NPU_BRIDGE_TF2": "1"})
    assert r["enabled"] is False and r["enable"] is False and r["hook"] is False
    assert r["eager"] is True
    assert r["placeholder"] is False and r["session"] is False
    assert r["finder"] is False
    assert 0.08 < r["kept_rate"] < 0.12


# --- no TensorFlow needed below ---------------------------------------------------------

@pytest.mark.parametrize("value,expected", [
    (None, False), ("", False), ("0", False), ("false", False), ("No", False),
    ("1", True), ("true", True), ("yes", True)])
def test_opted_out_values(value, expected):
    environ = {} if value is None else {tf1_mode.OPT_OUT_ENV: value}
    assert tf1_mode.opted_out(environ) is expected


def test_lookup_equivalent():
    look = tf1_mode.lookup_equivalent
    assert look("tf.contrib.tpu.CrossShardOptimizer") == "tf.compat.v1.tpu.CrossShardOptimizer"
    assert look("tf.contrib.slim") == "tf_slim"
    assert look("tensorflow.contrib.slim.nets.vgg") == "tf_slim.nets.vgg"
    assert look("tf.contrib.data.map_and_batch") == "tf.compat.v1.data.experimental.map_and_batch"
    assert look("tf.contrib.learn.ModeKeys") == "tf.compat.v1.estimator.ModeKeys"
    assert look("tf.contrib.training.HParams") == "npu_bridge.hooks.contrib.hparam:HParams"
    assert "tensorflow_model_optimization" in look("tf.contrib.quantize.quantize_graph")
    assert look("tf.contrib").startswith("no single replacement")
    assert look("tf.nn.dropout") is None


def test_single_device_env_fills_only_unset():
    env = _jobenv.single_device_env({}, pid=42)
    assert env == {"RANK_SIZE": "1", "RANK_ID": "0", "DEVICE_ID": "0",
                   "ASCEND_DEVICE_ID": "0", "DEVICE_INDEX": "0", "JOB_ID": "npu-bridge-42"}
    given = {"RANK_SIZE": "8", "RANK_ID": "", "JOB_ID": "job7"}
    env = _jobenv.single_device_env(given, pid=1)
    assert "RANK_SIZE" not in env and "JOB_ID" not in env
    assert env["RANK_ID"] == "0"                       # empty counts as unset
    assert given == {"RANK_SIZE": "8", "RANK_ID": "", "JOB_ID": "job7"}  # not modified


def test_single_device_env_device_ids_agree():
    env = _jobenv.single_device_env({"DEVICE_ID": "3"}, pid=1)
    assert env["ASCEND_DEVICE_ID"] == "3" and env["DEVICE_INDEX"] == "3"
    assert "DEVICE_ID" not in env
    env = _jobenv.single_device_env({"ASCEND_DEVICE_ID": "5"}, pid=1)
    assert env["DEVICE_ID"] == "5" and env["DEVICE_INDEX"] == "5"


def test_single_device_env_default_pid_is_stable():
    assert _jobenv.single_device_env({})["JOB_ID"] == "npu-bridge-%d" % os.getpid()
    assert _jobenv.single_device_env({})["JOB_ID"] == _jobenv.single_device_env({})["JOB_ID"]


def test_apply_single_device_env_sets_and_reports():
    environ = {"RANK_SIZE": "2"}
    added = _jobenv.apply_single_device_env(environ, pid=9)
    assert "RANK_SIZE" not in added and added["JOB_ID"] == "npu-bridge-9"
    assert environ["RANK_SIZE"] == "2" and environ["RANK_ID"] == "0"
    assert _jobenv.apply_single_device_env(environ, pid=9) == {}


def test_switching_the_mode_on_prints_no_tensorflow_deprecation_notice(tmp_path):
    # TF 1.15 printed nothing here; disable_v2_behavior() of TF 2 logs that
    # disable_resource_variables is deprecated, on every script run.
    script = tmp_path / "quiet.py"
    script.write_text("import tensorflow as tf\nimport npu_bridge\n"
                      "x = tf.placeholder(tf.float32)\nprint('OK', tf.executing_eagerly())\n")
    env = {k: v for k, v in os.environ.items() if k != tf1_mode.OPT_OUT_ENV}
    env["PYTHONPATH"] = REPO
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "OK False"
    assert "deprecated" not in proc.stderr, proc.stderr[-3000:]
