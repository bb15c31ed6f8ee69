"""A training loop of 10 iterations per Session.run (set_iteration_per_loop) on a dataset:
argv[1] "oneshot" (a OneShotIterator: the real adapter aborts, NPB172) or "init" (an
initializable iterator); argv[2] "dp" (enable_data_pre_proc on) or "nodp"."""
import sys
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
v1 = tf.compat.v1
one_shot = sys.argv[1] == "oneshot"
ds = tf.data.Dataset.from_tensor_slices(np.ones((20, 3), np.float32)).repeat().batch(4, drop_remainder=True)
it = v1.data.make_one_shot_iterator(ds) if one_shot else v1.data.make_initializable_iterator(ds)
x = it.get_next()
w = v1.get_variable("w", [3, 1])
loss = tf.reduce_mean(tf.matmul(x, w))
train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
config = v1.ConfigProto()
op = config.graph_options.rewrite_options.custom_optimizers.add()
op.name = "NpuOptimizer"
op.parameter_map["enable_data_pre_proc"].b = sys.argv[2] == "dp"
op.parameter_map["iterations_per_loop"].i = 10
with v1.Session(config=config) as sess:
    sess.run(v1.global_variables_initializer())
    if not one_shot:
        sess.run(it.initializer)
    t = util.set_iteration_per_loop(sess, train, 10)
    sess.run(t)
print("ok")
