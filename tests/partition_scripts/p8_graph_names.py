"""Graph names: a dataset initializer (nothing compiled: the adapter leaves it on the host),
a global-step read, then one training step run with two fetch sets (two executors in
TensorFlow, so two GeOps and two GE graphs in the adapter), the second fetch set run twice
more, and once again by a string name (the same executor). Prints 'ok'."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *  # noqa: F401,F403

v1 = tf.compat.v1
ds = tf.data.Dataset.from_tensor_slices(np.ones((32, 4), np.float32)).repeat().batch(
    8, drop_remainder=True)
it = v1.data.make_initializable_iterator(ds)
x = it.get_next()
w = v1.get_variable("w", [4, 1])
step = v1.train.get_or_create_global_step()
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)), name="loss")
train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
with v1.Session() as sess:
    sess.run(v1.global_variables_initializer())
    sess.run(it.initializer)
    sess.run(step)
    sess.run([train, loss, step])
    for _ in range(2):
        sess.run([train, loss])
    sess.run([train, "loss:0"])
print("ok")
