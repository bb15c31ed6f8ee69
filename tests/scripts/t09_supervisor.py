"""tf.train.Supervisor with a session config carrying the NpuOptimizer parameter_map (npu_config_proto)."""
import tempfile
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

x = tf.random_uniform([16, 2])
w = tf.Variable(tf.zeros([2, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - tf.reduce_sum(x, 1, keep_dims=True)))
gs = tf.train.get_or_create_global_step()
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=gs)
config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_fp32_to_fp16")
config = npu_config_proto(config_proto=config)
sv = tf.train.Supervisor(logdir=tempfile.mkdtemp(), global_step=gs, save_model_secs=0, save_summaries_secs=0)
with sv.managed_session(config=config) as sess:
    for _ in range(200):
        if sv.should_stop():
            break
        _, l = sess.run([train_op, loss])
assert l < 1e-3, l
print("ok loss=%.2e" % l)
