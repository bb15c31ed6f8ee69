"""Distributed script run with RANK_SIZE=2 on one CPU process: the multi-rank parts must fail
clearly (not fake sums); the rank queries must report 2."""
import os
import tensorflow as tf
from npu_bridge.npu_init import *
rank_size = int(os.getenv("RANK_SIZE"))
assert get_rank_size() == rank_size == 2, (get_rank_size(), rank_size)
assert get_rank_id() == int(os.getenv("RANK_ID"))
x = tf.Variable([1.0, 2.0])
try:
    s = hccl_ops.allreduce(x, "sum")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("allreduce gave", sess.run(s))
    raise SystemExit("FAIL: allreduce with 2 ranks silently ran")
except SystemExit:
    raise
except Exception as e:
    print("allreduce error:", type(e).__name__, str(e)[:200])
print("ok")
