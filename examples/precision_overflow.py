"""An activation beyond float16: trains in float32, overflows on the NPU (docs/precision.md).

A dense layer whose output reaches 120000 (float16 holds at most 65504). Under the Atlas
training product's default precision_mode (allow_fp32_to_fp16) its MatMul computes in float16
on the NPU. Run it as
    npu-bridge run --precision emulate --product atlas-training examples/precision_overflow.py
(saturation mode: the loss stays finite but wrong, warning NPB182 says so), or as
    npu-bridge run --precision emulate --product atlas-a2-training \
        examples/precision_overflow.py --precision-mode allow_fp32_to_fp16
(INF/NaN mode: the loss becomes inf, warning NPB180 names the op).
Without --precision emulate it trains in float32 and the loss is 0.12.

Usage: python examples/precision_overflow.py [--steps N] [--precision-mode MODE]
"""
import argparse

import numpy as np
from npu_bridge.npu_init import *  # noqa: F401,F403  (the way real scripts import it)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--precision-mode", default=None,
                        help="precision_mode to set (default: the product's)")
    args = parser.parse_args()
    x = tf.compat.v1.placeholder(tf.float32, [8, 4], name="x")
    hidden = tf.compat.v1.layers.dense(x, 4, use_bias=False, name="dense",
                                       kernel_initializer=tf.compat.v1.constant_initializer(300.0))
    loss = tf.reduce_mean(hidden) * 1e-6
    train = tf.compat.v1.train.GradientDescentOptimizer(1e-9).minimize(loss)
    config = tf.compat.v1.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    if args.precision_mode:
        custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes(args.precision_mode)
    batch = np.full([8, 4], 100.0, np.float32)
    with tf.compat.v1.Session(config=config) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        for step in range(args.steps):
            _, value = sess.run([train, loss], {x: batch})
            print("step %d: loss %g" % (step, value))


if __name__ == "__main__":
    main()
