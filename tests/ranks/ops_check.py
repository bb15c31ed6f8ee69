"""One rank of the multi-rank op checks (tests/test_ranks.py): every hccl_ops collective and
hccl.manage.api function against numpy, over the ranks this job has. Writes
$RANKS_OUT/rank<N>.json ({check: [ok, detail]}); exit 1 when a check fails."""
import json
import os
import sys
import time

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage import api

R, N = api.get_rank_id(), api.get_rank_size()
OUT = os.environ["RANKS_OUT"]
checks = {}


def check(name, ok, detail=""):
    checks[name] = [bool(ok), str(detail)[:400]]


def x_of(r, dtype=np.float32):
    return (np.arange(6).reshape(2, 3) * (r + 1) - r + 0.5 * (r % 2)).astype(dtype)


def everyone(dtype=np.float32):
    return np.stack([x_of(r, dtype) for r in range(N)])


def raises(name, fn, kind=ValueError):
    try:
        fn()
    except kind as err:
        check(name, True, err)
    except Exception as err:   # pylint: disable=broad-except
        check(name, False, "%s: %s" % (type(err).__name__, err))
    else:
        check(name, False, "no error")


fetch = {}
expect = {}
# allreduce: every reduction, several dtypes
for dtype, tfd in ((np.float32, tf.float32), (np.float64, tf.float64), (np.int32, tf.int32),
                   (np.int64, tf.int64), (np.float16, tf.float16), (np.int8, tf.int8)):
    for red, fn in (("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min)):
        if dtype in (np.float16, np.int8) and red == "prod":
            continue
        t = tf.constant(x_of(R, dtype))
        y = hccl_ops.allreduce(t, red)
        key = "allreduce_%s_%s" % (red, np.dtype(dtype).name)
        check(key + "_static", y.shape.as_list() == [2, 3] and y.dtype == tfd, (y.shape, y.dtype))
        fetch[key] = y
        expect[key] = fn(everyone(dtype), axis=0).astype(dtype)
# allreduce gradient: d/dw sum(allreduce(w*x_r) * c_r) = x_r * sum_k c_k
w = tf.Variable(np.ones((2, 3), np.float32), name="w")
c = tf.constant(np.full((2, 3), R + 1.0, np.float32))
loss = tf.reduce_sum(hccl_ops.allreduce(w * tf.constant(x_of(R)), "sum") * c)
(grad,) = tf.gradients(loss, [w])
fetch["allreduce_gradient"] = grad
expect["allreduce_gradient"] = x_of(R) * sum(r + 1.0 for r in range(N))
# broadcast: a list in, a list out, from root 1
b = hccl_ops.broadcast([tf.constant(x_of(R)), tf.constant(x_of(R, np.int32) + 7)], root_rank=1)
check("broadcast_list", isinstance(b, list) and len(b) == 2, type(b))
fetch["broadcast_0"], fetch["broadcast_1"] = b
expect["broadcast_0"], expect["broadcast_1"] = x_of(1), x_of(1, np.int32) + 7
check("broadcast_static", b[1].dtype == tf.int32 and b[1].shape.as_list() == [2, 3], b[1])
# allgather: concatenation in rank order, static shapes as the real shape function
g = hccl_ops.allgather(tf.constant(x_of(R)), N)
check("allgather_static", g.shape.as_list() == [2 * N, 3], g.shape)
fetch["allgather"] = g
expect["allgather"] = np.concatenate(list(everyone()), 0)
ph = tf.compat.v1.placeholder(tf.float32, [None, 3])
check("allgather_unknown_dim", hccl_ops.allgather(ph, N).shape.as_list() == [None, 3])
check("allgather_unknown_rank", hccl_ops.allgather(tf.compat.v1.placeholder(tf.float32), N).shape.rank is None)
raises("allgather_scalar", lambda: hccl_ops.allgather(tf.constant(1.0), N))
raises("allgather_rank_size", lambda: hccl_ops.allgather(tf.constant([1.0]), N + 1))
# reduce onto root 0
fetch["reduce"] = hccl_ops.reduce(tf.constant(x_of(R)), "max", 0)
expect["reduce"] = everyone().max(0) if R == 0 else None
# reduce_scatter: rank r gets rows r*2:(r+1)*2 of the sum
big = np.concatenate([x_of(R) + k for k in range(N)], 0)
rs = hccl_ops.reduce_scatter(tf.constant(big), "sum", N)
check("reduce_scatter_static", rs.shape.as_list() == [2, 3], rs.shape)
fetch["reduce_scatter"] = rs
expect["reduce_scatter"] = sum(np.concatenate([x_of(r) + k for k in range(N)], 0) for r in range(N))[2 * R:2 * R + 2]
check("reduce_scatter_unknown_dim", hccl_ops.reduce_scatter(ph, "sum", N).shape.as_list() == [None, 3])
raises("reduce_scatter_not_multiple", lambda: hccl_ops.reduce_scatter(tf.zeros([N + 1, 2]), "sum", N))
raises("bad_reduction", lambda: hccl_ops.allreduce(tf.constant(1.0), "mean"))
raises("bad_root", lambda: hccl_ops.broadcast([tf.constant(1.0)], N))
raises("send_to_self", lambda: hccl_ops.send(tf.constant(1.0), 0, R))
# send / receive: 0 -> 1 (tag 3), and 1 -> 0 (tag 4)
if R == 0:
    fetch["send"] = hccl_ops.send(tf.constant(x_of(0) * 3), 3, 1)
    got = hccl_ops.receive([2, 3], tf.float32, 4, 1)
    check("receive_static", got.shape.as_list() == [2, 3] and got.dtype == tf.float32, got)
    fetch["receive"], expect["receive"] = got, x_of(1) - 1
elif R == 1:
    got = hccl_ops.receive([2, 3], tf.float32, 3, 0)
    fetch["receive"], expect["receive"] = got, x_of(0) * 3
    fetch["send"] = hccl_ops.send(tf.constant(x_of(1) - 1), 4, 0)
# groups: ranks 1 and 2 (4 ranks) or 0 and 1 (2 ranks); built on the members only
members = [1, 2] if N >= 4 else [0, 1]
raises("rank_ids_not_list", lambda: api.create_group("bad", 2, (0, 1)))
sub = None
if R in members:
    api.create_group("sub", 2, members)
    check("group_size", api.get_rank_size("sub") == 2)
    check("group_rank", api.get_rank_id("sub") == members.index(R), api.get_rank_id("sub"))
    check("group_world_rank", [api.get_world_rank_from_group_rank("sub", i) for i in (0, 1)] == members)
    check("group_rank_of_world", api.get_group_rank_from_world_rank(R, "sub") == members.index(R))
    sub = hccl_ops.allreduce(tf.constant(x_of(R)), "sum", group="sub")
    fetch["sub_allreduce"] = sub
    expect["sub_allreduce"] = sum(x_of(m) for m in members)
    sub_only = hccl_ops.allgather(tf.constant(x_of(R)), 2, group="sub")
else:
    raises("not_a_member", lambda: api.get_rank_id("sub"))
# rank-0-only work in the same run as the collectives (not a collective itself)
if R == 0:
    fetch["rank0_only"] = tf.reduce_sum(tf.constant(x_of(0))) * 2
    expect["rank0_only"] = np.float32(x_of(0).sum() * 2)
# job values from the rank table
table = json.load(open(os.environ["RANK_TABLE_FILE"]))
servers = table["server_list"]
mine = [s for s in servers if any(d["rank_id"] == str(R) for d in s["device"])][0]
check("world_size", N == int(os.environ["RANK_SIZE"]) == sum(len(s["device"]) for s in servers))
check("local_rank_size", api.get_local_rank_size() == len(mine["device"]), api.get_local_rank_size())
check("local_rank_id", api.get_local_rank_id() == [d["rank_id"] for d in mine["device"]].index(str(R)),
      api.get_local_rank_id())
check("device_id", os.environ["DEVICE_ID"] == [d for d in mine["device"] if d["rank_id"] == str(R)][0]["device_id"])
if os.environ.get("RANKS_HOSTS"):
    mine_host = os.environ["NPU_BRIDGE_RANK_ADDRESSES"].split(",")[R].split(":")[0]
    check("server_address", mine_host == mine.get("host_ip", "127.0.0.1"), mine_host)

with tf.compat.v1.Session(config=npu_config_proto()) as sess:
    sess.run(tf.compat.v1.global_variables_initializer())   # no collective: no key
    if R == 0:
        sess.run(tf.constant(1.0))   # rank 0 only, outside the collectives
    keys = sorted(fetch)
    vals = dict(zip(keys, sess.run([fetch[k] for k in keys])))
    for k in keys:
        if k in expect and expect[k] is not None:
            ok = vals[k].dtype == np.asarray(expect[k]).dtype and np.allclose(vals[k], expect[k], rtol=1e-3)
            check(k, ok, "%r vs %r" % (vals[k], expect[k]))
    if sub is not None:   # a run of the sub-group only, then the world again
        got = sess.run(sub_only)
        check("sub_only_run", np.allclose(got, np.concatenate([x_of(m) for m in members])), got)
    again = sess.run(fetch["allreduce_sum_float32"])
    check("world_after_sub", np.allclose(again, expect["allreduce_sum_float32"]), again)
    if os.environ.get("RANKS_HANG") and N == 2:
        # a collective built on rank 0 only: a clear error within the timeout, naming rank 1
        lonely = hccl_ops.allreduce(tf.constant([1.0]), "sum") if R == 0 else None
        if R == 0:
            start = time.time()
            try:
                sess.run(lonely)
                check("hang", False, "no error")
            except tf.errors.OpError as err:
                check("hang", "not on rank(s) [1]" in err.message and "allreduce" in err.message,
                      err.message)
                check("hang_time", time.time() - start < float(os.environ["NPU_BRIDGE_COLLECTIVE_TIMEOUT"]) + 10,
                      time.time() - start)
if sub is not None:
    api.destroy_group("sub")
    raises("destroyed", lambda: api.get_rank_size("sub"))

with open(os.path.join(OUT, "rank%d.json" % R), "w") as fh:
    json.dump(checks, fh, indent=1)
sys.exit(0 if all(v[0] for v in checks.values()) else 1)
