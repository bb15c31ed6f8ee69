"""A training loop with a host op in the model: tf.py_func (default), or a string round trip
(--string: AsString + StringToNumber, decided by a --supported-ops list). --mix switches
mix_compile_mode on. Prints 'ok <loss>' at the end."""
import sys

import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *  # noqa: F401,F403

MIX = "--mix" in sys.argv
x = tf.placeholder(tf.float32, [8, 4], name="x")
y = tf.placeholder(tf.float32, [8, 1], name="y")
w1 = tf.get_variable("w1", [4, 16])
h = tf.nn.relu(tf.matmul(x, w1), name="hidden")
if "--string" in sys.argv:
    h = tf.strings.to_number(tf.strings.as_string(h, name="as_text"), name="from_text")
else:
    h = tf.py_func(lambda a: np.clip(a, 0.0, 6.0), [h], tf.float32, name="clip")
h.set_shape([8, 16])
w2 = tf.get_variable("w2", [16, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["mix_compile_mode"].b = MIX
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
rng = np.random.RandomState(0)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        _, value = sess.run([train, loss], feed_dict={x: rng.rand(8, 4), y: rng.rand(8, 1)})
print("ok %.4f" % value)
