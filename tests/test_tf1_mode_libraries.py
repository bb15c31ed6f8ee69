"""The TF 1.x API mode is for scripts: library code (tensorflow_estimator, Keras, TensorBoard,
TensorFlow's own modules) keeps seeing the real TensorFlow 2 `tensorflow` module.

tensorflow_estimator's modules do `import tensorflow as tf` and use TF 2 names
(`tf.keras.optimizers.experimental`, `tf.keras.losses.Reduction`, `tf.summary.create_file_writer`,
`tf.distribute.TPUStrategy`, ...); they are usually imported lazily, after the mode is on.

The mode is process-wide, so each scenario runs in a fresh interpreter and prints one line
`RESULT <json>`."""
import math

import pytest

import _pool
from _contrib_helper import run_scenario


KERAS_TO_NPU = r'''
import json, tempfile
import numpy as np, tensorflow as tf
from npu_bridge.npu_init import *
from npu_bridge.estimator.npu.keras_to_npu import model_to_npu_estimator
r = {"user_tf_is_v1": hasattr(tf, "placeholder") and not hasattr(tf.keras.optimizers, "experimental")}

rng = np.random.RandomState(0)
X = rng.randn(256, 4).astype(np.float32)
Y = X @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 0.25

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(32)

def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(64)

def build():
    inp = tf.keras.layers.Input(shape=(4,), name="x")
    model = tf.keras.models.Model(inp, tf.keras.layers.Dense(1)(inp))
    model.compile(optimizer=tf.compat.v1.keras.optimizers.SGD(0.1), loss="mse")
    return model

d = tempfile.mkdtemp()
est = model_to_npu_estimator(keras_model=build(), model_dir=d, config=NPURunConfig(model_dir=d))
r["npu_type"] = type(est).__name__
est.train(input_fn, steps=5)
first = est.evaluate(eval_input_fn)
est.train(input_fn, steps=45)
last = est.evaluate(eval_input_fn)
r["npu"] = {"step_first": int(first["global_step"]), "loss_first": float(first["loss"]),
            "step_last": int(last["global_step"]), "loss_last": float(last["loss"])}

# The stock function as well, with only the mode on.
d2 = tempfile.mkdtemp()
stock = tf.compat.v1.keras.estimator.model_to_estimator(keras_model=build(), model_dir=d2)
stock.train(input_fn, steps=20)
res = stock.evaluate(eval_input_fn)
r["stock"] = {"step": int(res["global_step"]), "loss": float(res["loss"])}
print("RESULT " + json.dumps(r))
'''


def test_model_to_npu_estimator_trains_and_evaluates(runs):
    r = runs["keras_to_npu"]
    assert r["user_tf_is_v1"] is True
    assert r["npu_type"] == "NPUEstimator"
    npu = r["npu"]
    assert npu["step_first"] == 5 and npu["step_last"] == 50
    assert math.isfinite(npu["loss_first"]) and math.isfinite(npu["loss_last"])
    assert npu["loss_last"] < npu["loss_first"] and npu["loss_last"] < 0.5
    assert r["stock"]["step"] == 20
    assert math.isfinite(r["stock"]["loss"]) and r["stock"]["loss"] < npu["loss_first"]


# The names the static scan of tensorflow_estimator found, resolved on a module's `tf`.
TF2_NAMES = r'''
TF2_NAMES = ["keras.optimizers.experimental.Optimizer",
             "keras.__internal__.optimizers.convert_to_legacy_optimizer",
             "keras.losses.Reduction", "summary.create_file_writer", "distribute.TPUStrategy",
             "estimator.Estimator"]

def resolves(module, dotted):
    obj = module
    try:
        for part in dotted.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        return False
    return True

def library_modules_bound_to(module):
    """Library modules (already imported) with a global that is `module`."""
    found = []
    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] in ("tensorflow", "tensorflow_estimator", "keras", "tensorboard") \
                and mod is not None and mod is not module:
            if any(value is module for value in list(vars(mod).values())):
                found.append(name)
    return sorted(found)
'''

LIBRARIES_SEE_TF2 = TF2_NAMES + r'''
import inspect, json, sys, types
ORDER = "tf_first"

def imports_as(module_name, source):
    """Run `source` as code of the module `module_name`: what decides is the importer."""
    namespace = {"__name__": module_name}
    exec(source, namespace)
    return namespace

r = {}
if ORDER == "tf_first":        # a TF 1.15 script: tensorflow first
    import tensorflow as tf
    import npu_bridge
elif ORDER == "npu_first":
    import npu_bridge
    import tensorflow as tf
elif ORDER == "library_first":   # a library's own `import tensorflow` imports TensorFlow
    import npu_bridge
    first = imports_as("tensorflow_estimator.python.estimator.first",
                       "import tensorflow as tf\nimport os\n")
    import tensorflow as tf
elif ORDER == "enable_first":   # `npu-bridge run`: enable() imports TensorFlow
    from npu_bridge.hooks import tf1_mode
    r["enable"] = tf1_mode.enable()
    import tensorflow as tf
else:                          # tensorflow_estimator imports TensorFlow
    import npu_bridge
    import tensorflow_estimator
    import tensorflow as tf
from npu_bridge.hooks import patching, tf1_mode
import builtins
r["import_wrapped_once"] = patching.wrapped(builtins, "__import__") and \
    not hasattr(patching.original(builtins.__import__), patching.ORIGINAL)
r["enabled"] = tf1_mode.is_enabled()
lib_tf = tf1_mode.library_tensorflow()
if ORDER == "library_first":
    r["first_library_import"] = first["tf"] is lib_tf
r["lib_tf_is_module"] = isinstance(lib_tf, types.ModuleType) and lib_tf is not tf
r["lib_tf_name"] = lib_tf.__name__
r["lib_tf_version"] = lib_tf.__version__ == tf.__version__

# A tensorflow_estimator module imported after the mode is on.
assert "tensorflow_estimator.python.estimator.keras_lib" not in sys.modules
from tensorflow_estimator.python.estimator import keras_lib
r["keras_lib_tf_is_lib_tf"] = keras_lib.tf is lib_tf
r["keras_lib_names"] = {n: resolves(keras_lib.tf, n) for n in TF2_NAMES}
r["keras_lib_v1_names"] = [n for n in ("placeholder", "Session", "ConfigProto", "contrib")
                           if hasattr(keras_lib.tf, n)]
r["keras_lib_compat_v1"] = keras_lib.tf.compat.v1 is tf.compat.v1
r["keras_lib_estimator_v2"] = keras_lib.tf.estimator is not tf.estimator and \
    hasattr(keras_lib.tf.estimator, "Estimator")

# The user's `import tensorflow as tf` is still the 1.x API.
r["user_names"] = {n: resolves(tf, n) for n in TF2_NAMES}
r["user_v1"] = all(getattr(tf, n) is getattr(tf.compat.v1, n) for n in (
    "placeholder", "Session", "keras", "estimator", "train", "summary", "nn", "losses"))

# Every way library code imports tensorflow, at module level or inside a function, at any
# time.
lib = imports_as("tensorflow_estimator.python.estimator.fake", """
import tensorflow as tf
import tensorflow
import tensorflow.compat.v1 as tf1
import tensorflow.compat.v2 as tf2
import tensorflow.keras as tfk
from tensorflow import keras, estimator, summary
from tensorflow.keras import optimizers
from tensorflow.nn import dropout
from tensorflow.python.framework import ops
import tensorflow.python.framework.ops as ops_as
def later():
    import tensorflow as tf
    return tf
""")
r["lib_import"] = {
    "tf": lib["tf"] is lib_tf, "tensorflow": lib["tensorflow"] is lib_tf,
    "compat_v1": lib["tf1"] is tf.compat.v1, "compat_v2": lib["tf2"] is tf.compat.v2,
    "keras_attr": hasattr(lib["tfk"].optimizers, "experimental"),
    "from_keras": hasattr(lib["keras"].optimizers, "experimental"),
    "from_estimator": lib["estimator"] is not tf.estimator,
    "from_summary": hasattr(lib["summary"], "create_file_writer"),
    "from_keras_optimizers": hasattr(lib["optimizers"], "experimental"),
    "dropout_v2": "keep_prob" not in inspect.signature(lib["dropout"]).parameters,
    "python_ops": lib["ops"] is sys.modules["tensorflow.python.framework.ops"],
    "python_ops_as": lib["ops_as"] is sys.modules["tensorflow.python.framework.ops"],
    "function_level": lib["later"]() is lib_tf,
}
for name in ("keras.src.engine.training", "tensorboard.compat", "tensorflow.python.ops.math_ops"):
    r["lib_import"][name] = imports_as(name, "import tensorflow as tf")["tf"] is lib_tf

user = imports_as("my_train_script", """
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import optimizers
from tensorflow.nn import dropout
""")
r["user_import"] = {
    "tf": user["tf"] is tf, "keras_v1": user["keras"] is tf.keras,
    "optimizers_v1": not hasattr(user["optimizers"], "experimental"),
    "dropout_v1": "keep_prob" in inspect.signature(user["dropout"]).parameters,
}

# No library module already imported (Keras, TensorBoard, TensorFlow's own, estimator) holds the
# user's 1.x `tensorflow` module.
r["bound_to_user_tf"] = library_modules_bound_to(tf)
r["bound_to_lib_tf"] = len(library_modules_bound_to(lib_tf)) > 0
print("RESULT " + json.dumps(r))
'''


def _check_libraries_see_tf2(r):
    assert r["enabled"] is True and r["import_wrapped_once"] is True
    assert r["lib_tf_is_module"] is True and r["lib_tf_name"] == "tensorflow"
    assert r["lib_tf_version"] is True
    assert r["keras_lib_tf_is_lib_tf"] is True
    assert r["keras_lib_names"] == {n: True for n in r["keras_lib_names"]}
    assert r["keras_lib_v1_names"] == []
    assert r["keras_lib_compat_v1"] is True and r["keras_lib_estimator_v2"] is True
    # what the user sees is unchanged: the TF 2-only names under keras are absent
    assert r["user_names"]["keras.optimizers.experimental.Optimizer"] is False
    assert r["user_v1"] is True
    assert r["lib_import"] == {n: True for n in r["lib_import"]}
    assert r["user_import"] == {n: True for n in r["user_import"]}
    assert r["bound_to_user_tf"] == []
    assert r["bound_to_lib_tf"] is True


_ORDERS = ["tf_first", "npu_first", "library_first", "estimator_first", "enable_first"]
# Every scenario (a fresh interpreter each: the mode is process-wide), started two at a time by
# the `runs` fixture; each test reads its own.
_JOBS = {"keras_to_npu": lambda tmp: run_scenario(tmp, KERAS_TO_NPU)}
_JOBS.update({order: (lambda tmp, order=order: run_scenario(
    tmp, LIBRARIES_SEE_TF2.replace('ORDER = "tf_first"', "ORDER = %r" % order))) for order in _ORDERS})


def _needs(item):
    if item.originalname == "test_libraries_see_tensorflow_2":
        return (item.callspec.params["order"],)
    return ("keras_to_npu",) if item.originalname == "test_model_to_npu_estimator_trains_and_evaluates" else ()


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    yield from _pool.prestart(request, tmp_path_factory, _JOBS, _needs)


@pytest.mark.parametrize("order", _ORDERS)
def test_libraries_see_tensorflow_2(runs, order):
    """Whatever imports TensorFlow first: the script before or after npu_bridge, a library
    module (its `import tensorflow` then completes before the mode is on), or `enable()`
    itself (as `npu-bridge run` calls it; the import hook then switches the mode on inside it,
    and the TF 2 module must be taken before the 1.x names are bound, once)."""
    r = runs[order]
    _check_libraries_see_tf2(r)
    if order == "library_first":
        assert r["first_library_import"] is True
    if order == "enable_first":
        assert r["enable"] is True
