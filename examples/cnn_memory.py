"""A small TF1 CNN training loop on a tf.Session with an NpuOptimizer configuration: the
example `npu-bridge memory examples/cnn_memory.py --plot docs/memory_plan.png` draws
(README). Static shapes (batch 32, 28x28x1), so GE's plan has sizes. Exit 0, last line "ok"."""
import numpy as np
from npu_bridge.npu_init import *  # noqa: F401,F403

tf.compat.v1.disable_eager_execution()
BATCH = 32
x = tf.compat.v1.placeholder(tf.float32, [BATCH, 28, 28, 1], name="images")
labels = tf.compat.v1.placeholder(tf.int32, [BATCH], name="labels")
h = tf.compat.v1.layers.conv2d(x, 32, 3, padding="same", activation=tf.nn.relu)
h = tf.compat.v1.layers.max_pooling2d(h, 2, 2)
h = tf.compat.v1.layers.conv2d(h, 64, 3, padding="same", activation=tf.nn.relu)
h = tf.compat.v1.layers.max_pooling2d(h, 2, 2)
h = tf.reshape(h, [BATCH, 7 * 7 * 64])
h = tf.compat.v1.layers.dense(h, 128, activation=tf.nn.relu)
logits = tf.compat.v1.layers.dense(h, 10)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
train = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss)

config = tf.compat.v1.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
rng = np.random.RandomState(0)
feed = {x: rng.rand(BATCH, 28, 28, 1).astype(np.float32), labels: rng.randint(0, 10, BATCH)}
with tf.compat.v1.Session(config=config) as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for _ in range(3):
        _, value = sess.run([train, loss], feed)
print("ok loss=%.3f" % value)
