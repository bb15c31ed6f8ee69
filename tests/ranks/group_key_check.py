"""One rank of the cross-process group key check (tests/test_ranks.py): ranks create HCCL groups
whose names hash to one TensorFlow group key, in different processes, and run an allreduce on
theirs. Writes $RANKS_OUT/rank<N>.json: {"group": name, "value": list or None, "error": str or None}.
RANKS_GROUPS: "same_ranks" (2 ranks: rank 0 names the group of ranks [0, 1] A, rank 1 names it B)
or "other_ranks" (3 ranks: ranks 0 and 1 create A = [0, 1], rank 2 creates B = [1, 2]);
"late_other" is "other_ranks" in a fixed order: A's ranks run an allreduce (checked, summed),
then rank 2 runs B's, then A's ranks run a second allreduce ("value" is the last one's)."""
import json
import os
import time
import zlib

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage import api


def _colliding_names():
    # two names on one key under the product's rule (npu_bridge/hooks/cluster.py group_key)
    seen = {}
    for i in range(20000):
        name = "group_%d" % i
        key = 2 + zlib.crc32(name.encode("utf-8")) % (2 ** 13 - 2)
        if key in seen:
            return seen[key], name
        seen[key] = name
    raise AssertionError("no collision found")


def _mark(name):
    open(os.path.join(OUT, name), "w").close()


def _wait_for(*names):
    deadline = time.time() + 120
    while not all(os.path.exists(os.path.join(OUT, n)) for n in names):
        if time.time() > deadline:
            raise RuntimeError("waited 120 s for %s" % (names,))
        time.sleep(0.05)


OUT, MODE = os.environ["RANKS_OUT"], os.environ["RANKS_GROUPS"]
R = api.get_rank_id()
A, B = _colliding_names()
if MODE == "same_ranks":
    group, ranks = (A if R == 0 else B), [0, 1]
else:
    group, ranks = (A, [0, 1]) if R < 2 else (B, [1, 2])
api.create_group(group, len(ranks), ranks)
result = {"group": group, "value": None, "error": None}
try:
    x = tf.constant([float(R + 1)])
    if MODE == "late_other" and R < 2:
        with tf.compat.v1.Session() as sess:
            result["first"] = sess.run(hccl_ops.allreduce(x, "sum", group=group)).tolist()
        _mark("first%d" % R)
        _wait_for("b_done")
    elif MODE == "late_other":
        tf.compat.v1.Session().close()   # starts this rank's server: the others wait for it
        _wait_for("first0", "first1")
    y = hccl_ops.allreduce(x, "sum", group=group)
    with tf.compat.v1.Session() as sess:
        result["value"] = sess.run(y).tolist()
except Exception as err:   # pylint: disable=broad-except
    result["error"] = "%s: %s" % (type(err).__name__, err)
finally:
    if MODE == "late_other" and R == 2:
        _mark("b_done")
with open(os.path.join(OUT, "rank%d.json" % R), "w") as fh:
    json.dump(result, fh)
