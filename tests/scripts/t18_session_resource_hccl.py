"""Session loop with init_resource/shutdown_resource, npu_session_config_init, allreduce gradients by hand
(sum / rank_size), hccl.manage.api rank queries, split strategy, tf.data one-shot iterator, close_session."""
import os
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from npu_bridge.hccl import hccl_ops
from hccl.manage.api import get_rank_size, get_rank_id
from hccl.split.api import set_split_strategy_by_size

rank_size = get_rank_size(); rank_id = get_rank_id()
set_split_strategy_by_size([60, 40])
rng = np.random.RandomState(rank_id)
X = rng.randn(128, 4).astype(np.float32); Y = X.sum(1, keepdims=True)
ds = tf.data.Dataset.from_tensor_slices((X, Y)).shard(rank_size, rank_id).repeat().batch(16)
xb, yb = ds.make_one_shot_iterator().get_next()
pred = tf.layers.dense(xb, 1)
loss = tf.reduce_mean(tf.square(pred - yb))
opt = tf.train.GradientDescentOptimizer(0.1)
gv = opt.compute_gradients(loss)
gv = [(hccl_ops.allreduce(g, "sum") / rank_size, v) for g, v in gv]
train_op = opt.apply_gradients(gv, global_step=tf.train.get_or_create_global_step())
(npu_sess, npu_shutdown) = init_resource()
config = npu_session_config_init(session_config=tf.ConfigProto())
sess = tf.Session(config=npu_config_proto(config_proto=config))
sess.run(tf.global_variables_initializer())
for _ in range(150):
    _, l = sess.run([train_op, loss])
close_session(sess)
shutdown_resource(npu_sess, npu_shutdown)
close_session(npu_sess)
assert l < 1e-3, l
print("ok loss=%.2e rank %d/%d" % (l, rank_id, rank_size))
