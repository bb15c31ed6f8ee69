"""npu_ops.dropout with placeholder keep_prob positionally and as keyword, npu_scope.without_npu_compile_scope,
npu_convert_dropout, npu_unary_ops.gelu, tf.nn.dropout keep_prob."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from npu_bridge.estimator import npu_ops
from npu_bridge.estimator.npu import npu_scope
from npu_bridge.estimator.npu import npu_convert_dropout
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops

keep_prob = tf.placeholder(tf.float32, name="keep_prob")
x = tf.ones([20000])
d1 = npu_ops.dropout(x, keep_prob)
d2 = npu_ops.dropout(x, keep_prob=keep_prob, noise_shape=None, seed=1, name="drop2")
d3 = tf.nn.dropout(x, keep_prob)
d4 = tf.nn.dropout(x, rate=0.75)   # TF1.15 also accepted rate=
with npu_scope.without_npu_compile_scope():
    s = tf.reduce_sum(tf.strings.to_number(tf.constant(["1", "2"])))
g = npu_unary_ops.gelu(tf.constant([0.0, 1.0, -1.0]))
with tf.Session(config=npu_config_proto()) as sess:
    a, b, c, e = sess.run([d1, d2, d3, d4], {keep_prob: 0.8})
    ss, gg = sess.run([s, g])
for arr, k in ((a, .8), (b, .8), (c, .8), (e, .25)):
    frac = np.mean(arr > 0)
    assert abs(frac - k) < 0.03, (frac, k)
    assert np.allclose(arr[arr > 0], 1 / k, rtol=1e-4)
assert ss == 3.0
assert abs(gg[1] - 0.8412) < 1e-3, gg
print("ok dropout kept=%.3f gelu=%s" % (np.mean(a > 0), gg))
