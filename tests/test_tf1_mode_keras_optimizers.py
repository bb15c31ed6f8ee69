"""Keras optimizers in the TF 1.x mode: every TF 1.15-era spelling gives an optimizer that
`Model.compile` / `Model.fit` can use in graph mode (Keras 2.15's legacy ones, which TF 1.15's
tf.keras and standalone Keras 2.2/2.3 had), with `lr=` and `decay=` honoured.

The mode is process-wide, so each scenario runs in a fresh interpreter (time-bounded) and
prints one line `RESULT <json>`."""
import pytest

from _contrib_helper import run_scenario

# Each spelling: a model built with the Keras it names, compiled with the optimizer, fitted for
# 2 steps on numpy data (2 epochs of one batch).
SPELLINGS = r'''
import json
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
import keras

def spellings():
    from tensorflow.keras.optimizers import Adam as TFAdam
    from keras.optimizers import Adam, SGD, RMSprop
    return {
        "tf.keras Adam(0.01)": (tf.keras, lambda: tf.keras.optimizers.Adam(0.01)),
        "tf.keras Adam(lr=, decay=)": (tf.keras, lambda: tf.keras.optimizers.Adam(lr=0.01, decay=1e-3)),
        "tf.keras SGD(lr=)": (tf.keras, lambda: tf.keras.optimizers.SGD(lr=0.01, momentum=0.9)),
        "tf.keras RMSprop(lr=)": (tf.keras, lambda: tf.keras.optimizers.RMSprop(lr=0.01)),
        "tf.keras 'adam'": (tf.keras, lambda: "adam"),
        "tf.keras.optimizers.get('adam')": (tf.keras, lambda: tf.keras.optimizers.get("adam")),
        "from tensorflow.keras.optimizers import Adam": (tf.keras, lambda: TFAdam(0.01)),
        "tf.keras.optimizers.legacy.Adam": (tf.keras, lambda: tf.keras.optimizers.legacy.Adam(0.01)),
        "keras.optimizers.Adam(0.01)": (keras, lambda: keras.optimizers.Adam(0.01)),
        "keras.optimizers.Adam(lr=, decay=)": (keras, lambda: keras.optimizers.Adam(lr=0.01, decay=1e-3)),
        "from keras.optimizers import Adam": (keras, lambda: Adam(0.0002, beta_1=0.5)),
        "from keras.optimizers import SGD": (keras, lambda: SGD(lr=0.01, momentum=0.9, nesterov=True)),
        "from keras.optimizers import RMSprop": (keras, lambda: RMSprop(lr=0.01)),
        "keras.optimizers.Adagrad": (keras, lambda: keras.optimizers.Adagrad(0.1)),
        "keras.optimizers.Adadelta": (keras, lambda: keras.optimizers.Adadelta(1.0)),
        "keras.optimizers.Adamax": (keras, lambda: keras.optimizers.Adamax(0.01)),
        "keras.optimizers.Nadam": (keras, lambda: keras.optimizers.Nadam(0.01)),
        "keras.optimizers.Ftrl": (keras, lambda: keras.optimizers.Ftrl(0.1)),
        "keras 'adam'": (keras, lambda: "adam"),
        "keras.optimizers.get('adam')": (keras, lambda: keras.optimizers.get("adam")),
        "keras.optimizers.legacy.Adam": (keras, lambda: keras.optimizers.legacy.Adam(0.01)),
    }

rng = np.random.RandomState(0)
X = rng.randn(32, 3).astype(np.float32)
Y = X @ np.array([[1.0], [-2.0], [0.5]], np.float32)
r = {}
for name, (K, make) in spellings().items():
    try:
        opt = make()
        model = K.Sequential([K.layers.Dense(1, input_shape=(3,))])
        model.compile(optimizer=opt, loss="mse")
        before = model.get_weights()[0].copy()
        hist = model.fit(X, Y, batch_size=32, epochs=2, verbose=0)
        o = model.optimizer
        r[name] = {"losses": [float(v) for v in hist.history["loss"]],
                   "moved": float(np.abs(model.get_weights()[0] - before).max()),
                   "class": type(o).__module__ + "." + type(o).__name__,
                   "lr": float(K.backend.get_value(o.lr)),
                   "decay": float(K.backend.get_value(o.decay))}
    except Exception as e:
        r[name] = {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
from keras.src.optimizers import adam as new_adam
r["experimental_is_new"] = keras.optimizers.experimental.Adam is new_adam.Adam
r["legacy_module_unchanged"] = keras.optimizers.legacy.Adam.__module__
# keras.optimizers imported only after the mode is on (TF's import loads it first here)
import importlib, sys
del sys.modules["keras.optimizers"]
fresh = importlib.import_module("keras.optimizers")
r["late_import"] = [fresh is not keras.optimizers.legacy, fresh.SGD is fresh.legacy.SGD,
                    fresh.Adam is fresh.legacy.Adam]
print("RESULT " + json.dumps(r))
'''

LEARNING_RATES = {"tf.keras Adam(0.01)": 0.01, "tf.keras Adam(lr=, decay=)": 0.01,
                  "tf.keras SGD(lr=)": 0.01, "tf.keras RMSprop(lr=)": 0.01,
                  "tf.keras 'adam'": 0.001, "tf.keras.optimizers.get('adam')": 0.001,
                  "from tensorflow.keras.optimizers import Adam": 0.01,
                  "tf.keras.optimizers.legacy.Adam": 0.01,
                  "keras.optimizers.Adam(0.01)": 0.01, "keras.optimizers.Adam(lr=, decay=)": 0.01,
                  "from keras.optimizers import Adam": 0.0002,
                  "from keras.optimizers import SGD": 0.01,
                  "from keras.optimizers import RMSprop": 0.01,
                  "keras.optimizers.Adagrad": 0.1, "keras.optimizers.Adadelta": 1.0,
                  "keras.optimizers.Adamax": 0.01, "keras.optimizers.Nadam": 0.01,
                  "keras.optimizers.Ftrl": 0.1, "keras 'adam'": 0.001,
                  "keras.optimizers.get('adam')": 0.001, "keras.optimizers.legacy.Adam": 0.01}


@pytest.fixture(scope="module")
def spellings(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("keras_opt"), SPELLINGS, timeout=300)


@pytest.mark.parametrize("name", sorted(LEARNING_RATES))
def test_spelling_compiles_and_fits_in_graph_mode(spellings, name):
    got = spellings[name]
    assert "error" not in got, got
    assert got["class"].startswith("keras.src.optimizers.legacy."), got
    assert got["moved"] > 0, got   # the 2 steps changed the kernel
    assert len(got["losses"]) == 2 and got["losses"][1] != got["losses"][0], got
    assert got["lr"] == pytest.approx(LEARNING_RATES[name]), got
    # Nadam's `decay` is its momentum schedule decay (0.004, as in TF 1.15)
    decay = 1e-3 if "decay=" in name else 0.004 if "Nadam" in name else 0.0
    assert got["decay"] == pytest.approx(decay), got


def test_legacy_and_experimental_names_keep_their_meaning(spellings):
    assert spellings["experimental_is_new"] is True
    assert spellings["legacy_module_unchanged"] == "keras.src.optimizers.legacy.adam"


def test_keras_optimizers_imported_after_the_mode_went_on(spellings):
    assert spellings["late_import"] == [True, True, True]


STOCK = r'''
import json
import tensorflow as tf
import npu_bridge.npu_init
import keras
from keras.src.optimizers import adam as new_adam, sgd as new_sgd
print("RESULT " + json.dumps({"eager": tf.executing_eagerly(),
                              "adam_new": keras.optimizers.Adam is new_adam.Adam,
                              "sgd_new": keras.optimizers.SGD is new_sgd.SGD}))
'''


def test_opt_out_leaves_stock_keras_optimizers(tmp_path):
    r = run_scenario(tmp_path, STOCK, timeout=300, env={"NPU_BRIDGE_TF2": "1"})
    assert r == {"eager": True, "adam_new": True, "sgd_new": True}
