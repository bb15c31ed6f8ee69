"""One rank of the two-host fault check (tests/test_ranks_two_hosts.py): every rank runs one
allreduce; then rank 3 (the second host's) kills itself (SIGKILL) and the others run a second
allreduce, which must fail; each writes $RANKS_OUT/error<N>.txt (seconds waited, message)."""
import os
import signal
import time

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage.api import get_rank_id

R = get_rank_id()
OUT = os.environ["RANKS_OUT"]
x = hccl_ops.allreduce(tf.constant([1.0]), "sum")
y = hccl_ops.allreduce(tf.constant([2.0]), "sum")
with tf.compat.v1.Session() as sess:
    print("first", sess.run(x), flush=True)
    if R == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    start = time.time()
    try:
        sess.run(y)
    except tf.errors.OpError as err:
        with open(os.path.join(OUT, "error%d.txt" % R), "w") as fh:
            fh.write("%.1f\n%s: %s" % (time.time() - start, type(err).__name__, err.message))
        raise
