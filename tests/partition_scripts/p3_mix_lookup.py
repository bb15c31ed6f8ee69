"""mix_compile_mode with a lookup table in the model: words -> ids (a HashTable) -> embedding ->
loss. The table ops stay on the host (resource rule), the rest is compiled. Prints 'ok <loss>'."""
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *  # noqa: F401,F403

words = tf.placeholder(tf.string, [4], name="words")
target = tf.placeholder(tf.float32, [4, 1], name="target")
table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
    tf.constant(["a", "b", "c"]), tf.constant([0, 1, 2], tf.int64)), default_value=3)
ids = table.lookup(words)
emb = tf.get_variable("emb", [4, 8])
w = tf.get_variable("w", [8, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.embedding_lookup(emb, ids), w) - target))
train = tf.train.AdamOptimizer(0.01).minimize(loss)

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["mix_compile_mode"].b = True
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
with tf.Session(config=config) as sess:
    sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
    for _ in range(3):
        _, value = sess.run([train, loss], feed_dict={words: [b"a", b"b", b"z", b"c"],
                                                      target: np.ones((4, 1))})
print("ok %.4f" % value)
