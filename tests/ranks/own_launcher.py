"""One rank started by a launcher of the user's own (tests/test_ranks.py): RANK_TABLE_FILE,
RANK_SIZE and RANK_ID only; prints the allreduce of the rank ids + 1 and the world size."""
from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage.api import get_rank_id, get_rank_size

rank, size = get_rank_id(), get_rank_size()   # before initialization: warns (row 10)
total = hccl_ops.allreduce(tf.constant([rank + 1.0]), "sum")
with tf.compat.v1.Session() as sess:
    print("result", rank, size, sess.run(total)[0], flush=True)
