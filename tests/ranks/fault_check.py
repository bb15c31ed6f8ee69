"""One rank of the fault checks (tests/test_ranks.py). All ranks run one allreduce; then, by
$RANKS_FAULT: "ends" - rank 1 raises, rank 2 is killed (SIGKILL), rank 3 exits 0 early, and
rank 0 runs a second allreduce, which must fail naming them; "sleep" - every rank notes it
started and sleeps (the test interrupts the launcher)."""
import os
import signal
import sys
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
    if os.environ["RANKS_FAULT"] == "sleep":
        open(os.path.join(OUT, "started%d" % R), "w").close()
        time.sleep(300)
    if R == 1:
        raise RuntimeError("rank 1 fails on purpose")
    if R == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    if R == 3:
        sys.exit(0)
    start = time.time()
    try:
        sess.run(y)
    except tf.errors.OpError as err:
        with open(os.path.join(OUT, "error.txt"), "w") as fh:
            fh.write("%.1f\n%s" % (time.time() - start, err.message))
        raise
