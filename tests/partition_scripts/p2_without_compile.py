"""mix_compile_mode with part of the model in npu_scope.without_npu_compile_scope(): the scoped
ops stay on the host between two GeOps. Prints 'ok <loss>'."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *  # noqa: F401,F403
from npu_bridge.estimator.npu import npu_scope

x = tf.placeholder(tf.float32, [8, 4], name="x")
y = tf.placeholder(tf.float32, [8, 1], name="y")
w1 = tf.get_variable("w1", [4, 16])
h = tf.matmul(x, w1, name="first")
with npu_scope.without_npu_compile_scope():
    h = tf.nn.relu(h, name="host_relu")
w2 = tf.get_variable("w2", [16, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["mix_compile_mode"].b = True
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
rng = np.random.RandomState(0)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        _, value = sess.run([train, loss], feed_dict={x: rng.rand(8, 4), y: rng.rand(8, 1)})
print("ok %.4f" % value)
