"""NPULossScaleOptimizer(opt, ExponentialUpdateLossScaleManager(...), is_distributed=True) with
npu_distributed_optimizer_wrapper; fetch loss_scale:0 and overflow_status_reduce_all:0 each step."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer
from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager

x = tf.placeholder(tf.float32, [None, 2])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
gs = tf.train.get_or_create_global_step()
opt = tf.train.AdamOptimizer(0.05)
opt = npu_distributed_optimizer_wrapper(opt)
mgr = ExponentialUpdateLossScaleManager(init_loss_scale=2**16, incr_every_n_steps=5, decr_every_n_nan_or_inf=1, decr_ratio=0.5)
opt = NPULossScaleOptimizer(opt, mgr, is_distributed=True)
train_op = opt.minimize(loss, global_step=gs)
g = tf.get_default_graph()
overflow = g.get_tensor_by_name("overflow_status_reduce_all:0")
scale = g.get_tensor_by_name("loss_scale:0")
X = np.array([[1, 2], [3, 4], [5, 6]], np.float32); Y = X.sum(1, keepdims=True)
bad = X.copy(); bad[0, 0] = np.inf
with tf.Session(config=npu_config_proto()) as sess:
    sess.run(tf.global_variables_initializer())
    _, ov, sc = sess.run([train_op, overflow, scale], {x: X, y: Y})
    assert ov and sc == 2**16, (ov, sc)   # True = all finite (real meaning)
    _, ov, sc, step = sess.run([train_op, overflow, scale, gs], {x: bad, y: Y})
    print("bad step overflow", ov, "scale", sc, "step", step)
    assert not ov
    sc2, step2 = sess.run([scale, gs])
    assert sc2 == 2**15, sc2
    assert step2 == 1, step2
    for _ in range(5):
        sess.run(train_op, {x: X, y: Y})
    assert sess.run(scale) == 2**16, sess.run(scale)
    for _ in range(300):
        l, _ = sess.run([loss, train_op], {x: X, y: Y})
    final_scale = sess.run(scale)
assert l < 1e-2, l
print("ok loss=%.4f scale=%g" % (l, final_scale))
