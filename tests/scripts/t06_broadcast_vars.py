"""hccl_ops.broadcast(tensor=[var], root_rank=0) of all global variables (the zoo's helper),
and NPUBroadcastGlobalVariablesHook with MonitoredTrainingSession."""
import os
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from npu_bridge.hccl import hccl_ops

def broadcast_global_variables(root_rank, index):
    op_list = []
    for var in tf.global_variables():
        if "float" in var.dtype.name:
            inputs = [var]
            outputs = hccl_ops.broadcast(tensor=inputs, root_rank=root_rank)
            if outputs is not None:
                op_list.append(outputs[0].op)
                op_list.append(tf.assign(var, outputs[0]))
    return tf.group(op_list)

rank_id = int(os.getenv("RANK_ID", "0"))
x = tf.random_normal([8, 3])
pred = tf.layers.dense(x, 1)
loss = tf.reduce_mean(tf.square(pred))
gs = tf.train.get_or_create_global_step()
train_op = npu_distributed_optimizer_wrapper(tf.train.GradientDescentOptimizer(0.1)).minimize(loss, global_step=gs)
bcast_op = broadcast_global_variables(0, rank_id)
with tf.Session(config=npu_config_proto()) as sess:
    sess.run(tf.global_variables_initializer())
    before = sess.run(tf.trainable_variables())
    sess.run(bcast_op)
    after = sess.run(tf.trainable_variables())
    for a, b in zip(before, after):
        assert np.allclose(a, b)
    for _ in range(5):
        sess.run(train_op)

hooks = [NPUBroadcastGlobalVariablesHook(0, rank_id), tf.train.StopAtStepHook(last_step=10)]
with tf.train.MonitoredTrainingSession(hooks=hooks, config=npu_config_proto()) as mon:
    while not mon.should_stop():
        mon.run(train_op)
print("ok broadcast vars=%d" % len(tf.global_variables()))
