"""Plain TF 1.15 idioms after the star import: variable_scope reuse, get_variable, conv2d/max_pool,
truncated_normal, tf.log, tf.to_float, exponential_decay, metrics + local init, tf.logging, tf.gfile,
py_func, import_meta_graph, convert_variables_to_constants (tf.graph_util and the TF 1.15 path
tensorflow.python.framework.graph_util) + FastGFile."""
import os, tempfile
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.python.framework import graph_util


tf.logging.set_verbosity(tf.logging.INFO)
d = tempfile.mkdtemp()
tf.gfile.MakeDirs(os.path.join(d, "ckpt"))

def net(images, reuse=False):
    with tf.variable_scope("net", reuse=reuse):
        w = tf.get_variable("w", [3, 3, 1, 4], initializer=tf.truncated_normal_initializer(stddev=0.1))
        h = tf.nn.conv2d(images, w, strides=[1, 1, 1, 1], padding="SAME")
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        h = tf.reshape(h, [-1, 4 * 4 * 4])
        return tf.layers.dense(h, 2, name="fc")

images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="input")
labels = tf.placeholder(tf.int64, [None])
logits = net(images)
logits_eval = net(images, reuse=True)
onehot = tf.one_hot(labels, 2)
loss = -tf.reduce_mean(tf.reduce_sum(onehot * tf.log(tf.nn.softmax(logits) + 1e-8), 1))
loss += 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])
gs = tf.train.get_or_create_global_step()
lr = tf.train.exponential_decay(0.1, gs, 10, 0.9, staircase=True)
train_op = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss, global_step=gs)
acc, acc_op = tf.metrics.accuracy(labels, tf.argmax(logits_eval, 1))
frac = tf.reduce_mean(tf.to_float(tf.equal(tf.argmax(logits_eval, 1), labels)))
doubled = tf.py_func(lambda a: (a * 2).astype(np.float32), [frac], tf.float32)
out = tf.identity(tf.nn.softmax(logits_eval), name="output")
rng = np.random.RandomState(0)
X = rng.rand(64, 8, 8, 1).astype(np.float32); Y = (X[:, :4].mean((1, 2, 3)) > X[:, 4:].mean((1, 2, 3))).astype(np.int64)
saver = tf.train.Saver()
with tf.Session(config=npu_config_proto()) as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    for _ in range(150):
        sess.run(train_op, {images: X, labels: Y})
    sess.run(acc_op, {images: X, labels: Y})
    a, dd = sess.run([acc, doubled], {images: X, labels: Y})
    saver.save(sess, os.path.join(d, "ckpt", "m"))
    frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["output"])
    with tf.gfile.FastGFile(os.path.join(d, "m.pb"), mode="wb") as f:
        f.write(frozen.SerializeToString())
    frozen2 = graph_util.convert_variables_to_constants(sess, sess.graph_def, ["output"])
    assert len(frozen2.node) == len(frozen.node)
tf.reset_default_graph()
with tf.Session() as sess:
    s2 = tf.train.import_meta_graph(os.path.join(d, "ckpt", "m.meta"))
    s2.restore(sess, tf.train.latest_checkpoint(os.path.join(d, "ckpt")))
    o = sess.run("output:0", {"input:0": X[:2]})
assert a > 0.85, a
assert o.shape == (2, 2)
print("ok acc=%.3f" % a)
