"""MonitoredTrainingSession with hooks, npu_hooks_append, a parameter_map with iterations_per_loop,
util.set_iteration_per_loop, tf.data make_initializable_iterator."""
import tempfile
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

rng = np.random.RandomState(0)
X = rng.randn(256, 3).astype(np.float32); Y = X @ np.array([[1.], [2.], [-1.]], np.float32)
ds = tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(32, drop_remainder=True)
it = ds.make_initializable_iterator()
xb, yb = it.get_next()
pred = tf.layers.dense(xb, 1)
loss = tf.reduce_mean(tf.square(pred - yb))
gs = tf.train.get_or_create_global_step()
train_op = npu_tf_optimizer(tf.train.AdamOptimizer(0.05)).minimize(loss, global_step=gs)
# graph is finalized by MonitoredTrainingSession: two-step IterationPerLoop form (as documented)
iteration = util.IterationPerLoop()
train_op = iteration.create_iteration_per_loop_var(train_op)

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True
custom_op.parameter_map["enable_data_pre_proc"].b = True
custom_op.parameter_map["mix_compile_mode"].b = False
custom_op.parameter_map["iterations_per_loop"].i = 10
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF

hooks = [tf.train.StopAtStepHook(last_step=200),
         tf.train.LoggingTensorHook({"loss": loss, "step": gs}, every_n_iter=50)]
scaffold = tf.train.Scaffold(local_init_op=tf.group(tf.local_variables_initializer(), it.initializer))
steps_seen = []
with tf.train.MonitoredTrainingSession(checkpoint_dir=tempfile.mkdtemp(), hooks=npu_hooks_append(hooks_list=hooks),
                                       config=config, scaffold=scaffold, save_summaries_steps=None,
                                       save_checkpoint_secs=None, log_step_count_steps=None) as sess:
    iteration.load_iteration_per_loop_var(sess, 10)
    while not sess.should_stop():
        _, l, s = sess.run([train_op, loss, gs])
        steps_seen.append(s)
print(steps_seen[:5], steps_seen[-1])
assert steps_seen[-1] == 200, steps_seen[-1]
assert l < 0.5, l
print("ok loss=%.4f runs=%d last_step=%d" % (l, len(steps_seen), steps_seen[-1]))
