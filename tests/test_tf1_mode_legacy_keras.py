"""The TF 1.x mode under TF_USE_LEGACY_KERAS=1 without the tf_keras package: TensorFlow 2.15.1
then puts None on `tf.__path__` / `tf.compat.v1.__path__` (its `get_parent_dir_for_name` of a
missing package). The mode must work; tf.keras fails when used, as in stock TF; npu_init (which
needs tensorflow_estimator, which stock TF cannot import then) fails with a clear message."""
import pytest

import _pool
from npu_bridge.hooks import tf1_mode
from _contrib_helper import run_scenario

SCENARIO = r'''
import json, logging, sys
sys.modules["tf_keras"] = None   # not importable, whatever the environment has
records = []
class _Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger("tensorflow").addHandler(_Keep())
if ORDER == "tensorflow_first":
    import tensorflow as tf
    import npu_bridge
elif ORDER == "npu_bridge_first":
    import npu_bridge
    import tensorflow as tf
else:   # the import hook switches the mode on inside npu_init's `import tensorflow`
    err("npu_init", lambda: __import__("npu_bridge.npu_init"))
    import tensorflow as tf
from npu_bridge.hooks import tf1_mode
import numpy as np
r = {"enabled": tf1_mode.is_enabled(), "eager": tf.executing_eagerly(),
     "none_in_v1_path": None in tf.compat.v1.__path__, "none_in_tf_path": tf.__path__.count(None)}

x = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable([[0.0]])
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 2 * x))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((4, 1), np.float32)}
    before = float(sess.run(loss, feed))
    sess.run(step, feed)
    r["losses"] = [before, float(sess.run(loss, feed))]

err("keras", lambda: tf.keras.layers)   # stock TF 2.15.1: ImportError, after a warning
r["keras_warning"] = [m for m in records if "TF_USE_LEGACY_KERAS" in m]
if ORDER != "npu_init_first":
    err("npu_init", lambda: __import__("npu_bridge.npu_init"))
import keras   # the keras package itself, as stock TF leaves it
r["keras_pkg"] = keras.__version__
r["errors"] = errors
print("RESULT " + json.dumps(r))
'''


_ORDERS = ["tensorflow_first", "npu_bridge_first", "npu_init_first"]


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """order -> its scenario's result (a fresh interpreter each), started two at a time."""
    jobs = {order: (lambda tmp, order=order: run_scenario(
        tmp, "ORDER = %r\n" % order + SCENARIO, timeout=300, env={"TF_USE_LEGACY_KERAS": "1"}))
        for order in _ORDERS}
    yield from _pool.prestart(request, tmp_path_factory, jobs, lambda item: (
        (item.callspec.params["order"],) if item.originalname ==
        "test_legacy_keras_without_tf_keras_mode_works_and_keras_fails_as_stock" else ()))


@pytest.mark.parametrize("order", _ORDERS)
def test_legacy_keras_without_tf_keras_mode_works_and_keras_fails_as_stock(runs, order):
    r = runs[order]
    assert r["enabled"] is True and r["eager"] is False
    assert r["none_in_v1_path"] is True   # TF's own list, left as stock has it
    assert r["none_in_tf_path"] == 1   # stock's one (tf_keras.api._v2): the mode adds none
    assert r["losses"][1] < r["losses"][0]
    assert r["errors"]["keras"] == ["ImportError",
                                    "Keras cannot be imported. Check that it is installed."]
    assert len(r["keras_warning"]) == 1 and "tf_keras" in r["keras_warning"][0]
    kind, message = r["errors"]["npu_init"]   # stock tensorflow_estimator fails too
    assert kind == "ImportError"
    for part in ("npu_bridge.npu_init", "TF_USE_LEGACY_KERAS=1 (environment)", "pip install tf_keras",
                 "the tf_keras package, which cannot be imported ("):
        assert part in message
    assert r["keras_pkg"].startswith("2.15")


@pytest.mark.parametrize("entries,expected", [
    ([None, "/a", b"/b", 3, "/c/"], ["/a", "/c/"]),
    ([], []),
    ((None,), []),
])
def test_path_entries_keep_only_str(entries, expected):
    assert tf1_mode._path_entries(entries) == expected
