"""tf.keras fit after set_keras_session_npu_config, npu_keras_optimizer, npu_callbacks_append, close_session."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

sess_config = tf.ConfigProto()
custom_op = sess_config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True
custom_op.parameter_map["graph_run_mode"].i = 1
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
sess_config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
sess_config.graph_options.rewrite_options.memory_optimization = RewriterConfig.OFF
npu_keras_sess = set_keras_session_npu_config(config=sess_config)

tf.set_random_seed(1)
np.random.seed(1)
rng = np.random.RandomState(0)
X = rng.randn(128, 6).astype(np.float32); Y = (X[:, :1] > 0).astype(np.float32)
model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(6,)),
                             tf.keras.layers.Dropout(0.1),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
opt = npu_keras_optimizer(tf.keras.optimizers.Adam(0.01))
model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])
cbs = npu_callbacks_append(callbacks_list=[tf.keras.callbacks.History()])
h = model.fit(X, Y, batch_size=32, epochs=15, verbose=0, callbacks=cbs)
acc = h.history["acc"][-1] if "acc" in h.history else h.history["accuracy"][-1]
ev = model.evaluate(X, Y, verbose=0)
close_session(npu_keras_sess)
assert acc > 0.8, h.history
print("ok acc=%.3f eval=%s" % (acc, ev))
