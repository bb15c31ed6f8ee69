"""iterations_per_loop=10 (util.set_iteration_per_loop) with the dataset sunk (enable_data_pre_proc) and a host op (py_func)
inside the training step. Prints 'ok <loss>'."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *  # noqa: F401,F403

data = tf.data.Dataset.from_tensor_slices((np.random.rand(64, 4).astype(np.float32),
                                           np.random.rand(64, 1).astype(np.float32)))
it = data.repeat().batch(8, drop_remainder=True).make_initializable_iterator()
x, y = it.get_next()
w1 = tf.get_variable("w1", [4, 16])
h = tf.py_func(lambda a: np.tanh(a), [tf.matmul(x, w1)], tf.float32, name="host_tanh")
h.set_shape([8, 16])
w2 = tf.get_variable("w2", [16, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["iterations_per_loop"].i = 10
custom_op.parameter_map["enable_data_pre_proc"].b = True
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
with tf.Session(config=config) as sess:
    sess.run([tf.global_variables_initializer(), it.initializer])
    loop = util.set_iteration_per_loop(sess, train, 10)   # the op named IterationOp
    for _ in range(2):
        _, value = sess.run([loop, loss])
print("ok %.4f" % value)
