"""`import npu_bridge` alone (75 real scripts) then a TF1 session with a hand-built NpuOptimizer.
With --bad, precision_mode has a typo: the session must be refused (NpuConfigError, exit 1)."""
import sys
import tensorflow as tf
import npu_bridge
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes(
    "allow_mix_precison" if "--bad" in sys.argv else "allow_mix_precision")
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
a = tf.placeholder(tf.float32, [None])
with tf.Session(config=config) as sess:
    r = sess.run(tf.reduce_sum(a) * 2, {a: [1, 2, 3]})
assert r == 12
assert "--bad" not in sys.argv, "NOT CAUGHT: the bad precision_mode was accepted"
# names the real package offers at top level
assert callable(npu_bridge.npu_close) if hasattr(npu_bridge, "npu_close") else True
ops = npu_bridge.hccl_ops
print("ok sum=%g" % r)
