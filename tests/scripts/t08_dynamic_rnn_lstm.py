"""DynamicRNN (imported without the star import, tensorflow first), fp16 and fp32, next to
tf.nn.rnn_cell LSTM + tf.nn.dynamic_rnn; train a tiny sequence classifier."""
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import dtypes
from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicRNN
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

T, B, I, H = 6, 8, 4, 16
x = tf.placeholder(tf.float32, [B, T, I])
y = tf.placeholder(tf.int32, [B])
inputs = tf.transpose(x, [1, 0, 2])             # time major
lstm = DynamicRNN(hidden_size=H, dtype=dtypes.float32, is_training=True)
out, output_h, output_c, i, j, f, o, tanhc = lstm(inputs, seq_length=None, init_h=None, init_c=None)
last = out[-1]
# fp16 variant as in the vendor's example
lstm16 = DynamicRNN(hidden_size=H, dtype=tf.float16, is_training=False)
y16 = lstm16(tf.cast(inputs, tf.float16), seq_length=None)[0]
# stock TF1 LSTM
with tf.variable_scope("stock"):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(H), tf.nn.rnn_cell.LSTMCell(H)])
    cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=0.9)
    outs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
logits = tf.layers.dense(tf.concat([last, outs[:, -1]], 1), 2)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
rng = np.random.RandomState(0)
X = rng.randn(B, T, I).astype(np.float32); Y = (X[:, :, 0].sum(1) > 0).astype(np.int32)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(60):
        l, _ = sess.run([loss, train_op], {x: X, y: Y})
    v16 = sess.run(y16, {x: X})
assert v16.dtype == np.float16 and v16.shape == (T, B, H), (v16.dtype, v16.shape)
assert l < 0.2, l
print("ok loss=%.4f" % l)
