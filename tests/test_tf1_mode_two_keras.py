"""Keras layers mixed with raw TensorFlow ops across TF 2.15's two Keras copies in the TF 1.x
mode (issue 25 item 3; npu_bridge.hooks.keras2.ONE_KERAS). DeepCTR's DIN: a
`tensorflow.python.keras` Layer whose `call` runs raw ops on its own weights and then a
`tf.keras.layers.BatchNormalization`; in TF 1.15 both were one Keras. A fresh interpreter."""
from _contrib_helper import run_scenario

MIXED = r'''
import json
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
from tensorflow.python.keras.layers import Layer, Input, Dense
from tensorflow.python.keras.models import Model
from tensorflow.python.keras import backend as OK

class Unit(Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel0", shape=(int(input_shape[-1]), 4))
        self.bias = self.add_weight(name="bias0", shape=(4,), initializer="zeros")
        self.bn = tf.keras.layers.BatchNormalization()
        super().build(input_shape)
    def call(self, inputs, training=None):
        fc = tf.nn.bias_add(tf.tensordot(inputs, self.kernel, axes=(-1, 0)), self.bias)
        return self.bn(fc, training=training)

class Outer(tf.keras.layers.Layer):
    """The other way round: a tf.keras layer calling a tensorflow.python.keras one on a raw op."""
    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        self.dense = Dense(2)
        super().build(input_shape)
    def call(self, inputs):
        return self.dense(inputs * self.scale)

r = {}
tf.set_random_seed(0)
x = Input(shape=(3,))
unit = Unit()
out = Dense(1, activation="sigmoid")(unit(x))
model = Model(x, out)
model.compile("adam", "binary_crossentropy")
rng = np.random.RandomState(0)
data = rng.rand(64, 3).astype("float32")
labels = (data.sum(axis=1) > 1.5).astype("float32")
# full batch, no shuffle: the loss curve is deterministic (a shuffled 16-row batch with BN made
# five epochs at lr 0.001 go up as often as down: CI of session 9)
h = model.fit(data, labels, epochs=5, batch_size=64, shuffle=False, verbose=0)
r["loss"] = h.history["loss"]
r["moving_mean_moved"] = bool(np.any(OK.get_value(unit.bn.moving_mean) != 0))
r["one_session"] = OK.get_session() is tf.keras.backend.get_session()
sess = tf.Session()
tf.keras.backend.set_session(sess)
r["set_session_seen"] = OK.get_session() is sess
with tf.Graph().as_default():
    y = tf.keras.Input(shape=(3,))
    z = Outer()(y)
    m2 = tf.keras.Model(y, z)
    r["outer_pred_shape"] = list(m2.predict(np.ones((2, 3), "float32")).shape)
with tf.Graph().as_default():   # DeepCTR: each copy's Flatten in one model
    from tensorflow.python.keras.layers import Flatten
    r["names"] = [Flatten().name, tf.keras.layers.Flatten().name, Flatten().name]
print("RESULT " + json.dumps(r))
'''


def test_tensorflow_python_keras_layer_calling_tf_keras_layer_trains(tmp_path):
    r = run_scenario(tmp_path, MIXED)
    loss = r["loss"]
    assert len(loss) == 5 and loss[-1] < loss[0], loss
    assert r["moving_mean_moved"] is True     # BN's variables live in the model's session
    assert r["one_session"] is True and r["set_session_seen"] is True
    assert r["outer_pred_shape"] == [2, 2]
    assert r["names"] == ["flatten", "flatten_1", "flatten_2"]   # one count, as TF 1.15


# DIN_ID0190 (zoo probe, issue 25): DeepCTR's `tensorflow.python.keras` Model compiled with
# `tf.keras.optimizers.Adam` (Keras 2.15's legacy optimizer in the mode): the copy's
# `optimizers.get` refused it ("Could not interpret optimizer identifier"); in TF 1.15 both
# were one Keras.
OPTIMIZER = r'''
import json
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
from tensorflow.python.keras.layers import Input, Dense
from tensorflow.python.keras.models import Model
from tensorflow.python.keras import optimizers as copy_optimizers

tf.set_random_seed(0)
x = Input(shape=(2,))
model = Model(x, Dense(1, kernel_initializer="zeros", bias_initializer="zeros")(x))
opt = tf.keras.optimizers.Adam(learning_rate=0.1)
model.compile(opt, "mse")
data = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
target = np.array([[1.0], [2.0]], np.float32)
history = model.fit(data, target, epochs=20, batch_size=2, verbose=0)
r = {"same": model.optimizer is opt, "get": copy_optimizers.get(opt) is opt,
     "first": history.history["loss"][0], "last": history.history["loss"][-1],
     "iterations": int(tf.keras.backend.get_value(opt.iterations))}
try:
    copy_optimizers.get(3)
except ValueError as e:
    r["bad"] = str(e)
print("RESULT " + json.dumps(r))
'''


def test_tensorflow_python_keras_model_takes_a_tf_keras_optimizer(tmp_path):
    r = run_scenario(tmp_path, OPTIMIZER)
    assert r["same"] is True and r["get"] is True
    assert abs(r["first"] - 2.5) < 1e-6          # zero weights: mean(1, 4) / 1
    assert r["last"] < 0.1 * r["first"], r
    assert r["iterations"] == 20
    assert r["bad"] == "Could not interpret optimizer identifier: 3"
