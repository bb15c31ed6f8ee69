"""The training graph of issue 22: 36 layers of `h = tanh(h * scale + shift)` over a
[8192, 32768] float32 batch from a tf.data pipeline, one GradientDescentOptimizer step per
run, on a tf.Session with an NpuOptimizer configuration (TF1 graph mode).

    npu-bridge memory --steps 0 --product atlas-a2-training examples/tanh36_memory.py

plans the training step without running it (each batch is 1 GiB; 36 layers keep about 38 GiB
alive on the device): GE's plan fits atlas-a2-training (52 GiB feature-map budget) and not
atlas-training. Arguments: --layers N, --batch B, --width W, --steps S (training steps run;
default 1). Prints "ok" at the end."""
import argparse

from npu_bridge.npu_init import *  # noqa: F401,F403

parser = argparse.ArgumentParser()
parser.add_argument("--layers", type=int, default=36)
parser.add_argument("--batch", type=int, default=8192)
parser.add_argument("--width", type=int, default=32768)
parser.add_argument("--steps", type=int, default=1)
args = parser.parse_args()

tf.compat.v1.disable_eager_execution()
# the batch is made on the host by the input pipeline (tf.data: a GetNext of static shape on
# the device); building the graph allocates nothing of its size
dataset = tf.data.Dataset.range(1 << 20).map(
    lambda i: tf.fill([args.batch, args.width], tf.cast(i % 7, tf.float32) * 1e-3))
dataset = dataset.prefetch(1)
h = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
for layer in range(args.layers):
    with tf.compat.v1.variable_scope("layer%d" % layer):
        scale = tf.compat.v1.get_variable("scale", [args.width],
                                          initializer=tf.compat.v1.ones_initializer())
        shift = tf.compat.v1.get_variable("shift", [args.width],
                                          initializer=tf.compat.v1.zeros_initializer())
        h = tf.tanh(h * scale + shift)
loss = tf.reduce_mean(h)
train = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(loss)

config = tf.compat.v1.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
with tf.compat.v1.Session(config=config) as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for _ in range(args.steps):
        _, value = sess.run([train, loss])
        print("loss %.6f" % value)
print("ok")
