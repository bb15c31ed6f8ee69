"""One rank of the Keras deadline check (tests/test_ranks.py): a Keras model trained with
`fit` in graph mode whose loss goes through an allreduce on rank 0 only (rank 1 fits the same
model without it): rank 0's fit must fail within the collective timeout naming rank 1, not
hang (Keras' functions run through Session._make_callable_from_options, not Session.run).
Rank 0 writes $RANKS_OUT/keras_hang.txt (seconds waited, error type, message)."""
import os
import time

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage.api import get_rank_id

R = get_rank_id()
OUT = os.environ["RANKS_OUT"]


class Reduced(tf.keras.layers.Layer):
    def call(self, inputs):
        return hccl_ops.allreduce(inputs, "sum") if R == 0 else inputs


inputs = tf.keras.Input(shape=(3,))
outputs = tf.keras.layers.Dense(1)(Reduced()(inputs))
model = tf.keras.Model(inputs, outputs)
model.compile(tf.keras.optimizers.SGD(0.1), "mse")
x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
start = time.time()
try:
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
except tf.errors.OpError as err:
    with open(os.path.join(OUT, "keras_hang.txt"), "w") as fh:
        fh.write("%.1f\n%s\n%s" % (time.time() - start, type(err).__name__, err.message))
    raise
print("fit done", R, flush=True)
