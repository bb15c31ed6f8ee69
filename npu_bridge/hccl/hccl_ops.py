"""Collective operations of the Ascend adapter (``npu_bridge.hccl.hccl_ops``): exact with one
rank, TensorFlow's collectives over several (``npu_bridge.hooks.cluster``).
Notes: docs/design.md "Module notes"; docs/collectives.md.
"""
import tensorflow as tf

from hccl.manage import api as _hccl_api

WORLD_GROUP = "hccl_world_group"
REDUCTIONS = ("sum", "prod", "max", "min")


class MultiRankUnsupportedError(RuntimeError):
    """A collective over several ranks in a process that is no rank of a multi-process job."""


def _cluster():
    from npu_bridge.hooks import cluster
    return cluster


def _group_size(group, op_name):
    """The size of ``group``; with several ranks also checks this process is a rank of a
    job TensorFlow's collectives can run (``MultiRankUnsupportedError`` otherwise)."""
    size = _hccl_api.get_rank_size(group)
    if _hccl_api.world_rank_size() > 1:
        from hccl.manage import ranktable as _ranks
        try:
            _cluster().job()
        except _ranks.RankTableError as err:
            raise MultiRankUnsupportedError(
                "hccl_ops.%s over group %r of %d ranks (RANK_SIZE=%d) needs a multi-process job: "
                "run the script with `npu-bridge run --ranks N`, or set RANK_TABLE_FILE, "
                "RANK_SIZE and RANK_ID for each process; here: %s"
                % (op_name, group, size, _hccl_api.world_rank_size(), err)) from None
    return size


def _check_reduction(reduction):
    if reduction not in REDUCTIONS:
        raise ValueError("reduction must be one of %s, got %r" % (", ".join(map(repr, REDUCTIONS)), reduction))


def _check_fusion(fusion, allowed):
    if fusion not in allowed:
        raise ValueError("fusion must be one of %s, got %r" % (sorted(allowed), fusion))


def _check_rank(rank, size, what):
    if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < size:
        raise ValueError("%s must be a rank of the group, i.e. an int in [0, %d), got %r" % (what, size, rank))


def _identity(value, name):
    if isinstance(value, tf.IndexedSlices):
        return tf.IndexedSlices(tf.identity(value.values), tf.identity(value.indices), value.dense_shape)
    return tf.identity(value, name=name)


def _first_dim_shape(tensor, rank_size, op_name, scale):
    """The static output shape of HcomAllGather (``scale`` True) / HcomReduceScatter."""
    shape = tf.convert_to_tensor(tensor).shape
    if shape.rank is None:
        return shape
    if shape.rank == 0:
        raise ValueError("hccl_ops.%s needs a tensor of rank at least 1, got a scalar (real shape "
                         "function of Hcom%s)" % (op_name, "AllGather" if scale else "ReduceScatter"))
    first = shape[0]
    if first is None:
        return shape
    if scale:
        return tf.TensorShape([first * rank_size]).concatenate(shape[1:])
    if first % rank_size:
        raise ValueError("hccl_ops.reduce_scatter: the first dimension %d is not a multiple of "
                         "rank_size=%d (real shape function: input first dim should be N * rank_size)"
                         % (first, rank_size))
    return tf.TensorShape([first // rank_size]).concatenate(shape[1:])


def _allreduce_multi(tensor, reduction, group, kind="allreduce"):
    cluster = _cluster()
    if isinstance(tensor, tf.IndexedSlices):
        tensor = tf.convert_to_tensor(tensor)

    @tf.custom_gradient
    def reduced(x):
        def grad(dy):   # the real op's registered gradient: allreduce "sum" of it
            return cluster.all_reduce(dy, "sum", group, kind="allreduce (gradient)")
        return cluster.all_reduce(x, reduction, group, kind=kind), grad

    return reduced(tf.convert_to_tensor(tensor))


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group="hccl_world_group"):
    """Reduce ``tensor`` over every rank of ``group`` (real ``HcomAllReduce``).

    Args:
      tensor: a tensor (any shape); the result has its shape and dtype.
      reduction: "sum", "prod", "max" or "min".
      fusion: 0 no fusion, 1 fuse by the gradient split strategy, 2 fuse by ``fusion_id``.
      fusion_id: fusion index for ``fusion=2``.
      group: group name.
    Returns: the elementwise reduction over the group's ranks (one rank: ``tf.identity``);
      its gradient is the allreduce "sum" of the incoming gradient.
    Raises: ValueError for a bad argument; MultiRankUnsupportedError for several ranks
      outside a multi-process job; npu_bridge.hooks.cluster.CollectiveError when this rank is not
      in ``group``.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 1, 2))
    if _group_size(group, "allreduce") > 1:
        return _allreduce_multi(tensor, reduction, group)
    return _identity(tensor, "HcomAllReduce")


def allgather(tensor, rank_size, group="hccl_world_group", fusion=0, fusion_id=-1):
    """Concatenate ``tensor`` of every rank along axis 0, in group-rank order (``HcomAllGather``).

    Shape: [N, ...] in, [rank_size * N, ...] out (unknown rank or N: the input's shape; a
    scalar: ValueError). ``rank_size`` must equal the group size. Raises as ``allreduce``.
    """
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "allgather")
    if rank_size != size:
        raise ValueError("rank_size=%r does not match the %d rank(s) of group %r" % (rank_size, size, group))
    shape = _first_dim_shape(tensor, rank_size, "allgather", True)
    if size == 1:
        return _identity(tensor, "HcomAllGather")
    out = _cluster().all_gather(tensor, group)
    out.set_shape(shape)
    return out


def broadcast(tensor, root_rank, fusion=2, fusion_id=0, group="hccl_world_group"):
    """Copy the tensors of rank ``root_rank`` to every rank (real ``HcomBroadcast``).

    Args:
      tensor: a list of tensors (a single tensor is taken as a list of one, as the real op's
        list input does); with several ranks each needs a fully known static shape.
      root_rank: the sending rank, a rank id inside ``group``.
      fusion: 0 no fusion, 2 fuse by ``fusion_id``.
    Returns: a list, one tensor per input: the root's values, same shapes and dtypes.
    Raises: as ``allreduce``.
    """
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "broadcast")
    _check_rank(root_rank, size, "root_rank")
    tensors = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
    if size == 1:
        return [_identity(t, "HcomBroadcast") for t in tensors]
    cluster = _cluster()
    return [cluster.broadcast(t, root_rank, group) for t in tensors]


def reduce(tensor, reduction, root_rank, fusion=0, fusion_id=-1, group="hccl_world_group"):
    """Reduce ``tensor`` of every rank onto ``root_rank`` (real ``HcomReduce``).

    The root gets the reduction; HCCL leaves the other ranks' output unspecified, here they
    get the same reduced value (it is computed by an allreduce). Raises as ``allreduce``.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "reduce")
    _check_rank(root_rank, size, "root_rank")
    if size == 1:
        return _identity(tensor, "HcomReduce")
    return _cluster().all_reduce(tensor, reduction, group, kind="reduce")


def reduce_scatter(tensor, reduction, rank_size, group="hccl_world_group", fusion=0, fusion_id=-1):
    """Reduce over ranks, then give group rank r the r-th 1/rank_size slice of axis 0
    (``HcomReduceScatter``).

    Shape: [rank_size * N, ...] in, [N, ...] out (unknown rank or first dimension: kept;
    a scalar or a first dimension that is not a multiple of ``rank_size``: ValueError).
    Raises as ``allreduce``; ValueError when ``rank_size`` is not the group size.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "reduce_scatter")
    if rank_size != size:
        raise ValueError("rank_size=%r does not match the %d rank(s) of group %r" % (rank_size, size, group))
    shape = _first_dim_shape(tensor, rank_size, "reduce_scatter", False)
    if size == 1:
        return _identity(tensor, "HcomReduceScatter")
    summed = _cluster().all_reduce(tensor, reduction, group, kind="reduce_scatter")
    me = _hccl_api.get_rank_id(group)
    rows = tf.shape(summed, out_type=tf.int64)[0] // size
    out = summed[me * rows:(me + 1) * rows]
    out.set_shape(shape)
    return out


def _peer_check(op_name, peer, size, group, what):
    _check_rank(peer, size, what)
    if size == 1 or peer == _hccl_api.get_rank_id(group):
        raise ValueError("hccl_ops.%s: %s=%r is not another rank: group %r has %d rank(s) and "
                         "HCCL does not %s the rank itself" % (
                             op_name, what, peer, group, size,
                             "send to" if op_name == "send" else "receive from"))


def send(tensor, sr_tag, dest_rank, group="hccl_world_group"):
    """Send ``tensor`` to the group rank ``dest_rank`` (real ``HcomSend``; pairs with the
    ``receive`` of the same ``sr_tag`` there). Returns the send operation (no output).

    Raises: ValueError when ``dest_rank`` is not another rank of the group (a one-rank group
    has none); others as ``allreduce``.
    """
    size = _group_size(group, "send")
    if size == 1:
        raise ValueError("hccl_ops.send: dest_rank=%r is not another rank: group %r has %d rank(s) and "
                         "HCCL does not send to the sending rank itself" % (dest_rank, group, size))
    _peer_check("send", dest_rank, size, group, "dest_rank")
    cluster = _cluster()
    pair, members = cluster.pair_group(group, _hccl_api.get_rank_id(group), dest_rank, sr_tag)
    out = cluster.broadcast(tensor, members.index(_hccl_api.world_rank_id()), pair, kind="send")
    return out.op


def receive(shape, data_type, sr_tag, src_rank, group="hccl_world_group"):
    """Receive a tensor of ``shape`` / ``data_type`` from the group rank ``src_rank`` (real
    ``HcomReceive``: the output has exactly ``shape``).

    Raises: as ``send`` (``src_rank`` must be another rank of the group).
    """
    size = _group_size(group, "receive")
    if size == 1:
        raise ValueError("hccl_ops.receive: src_rank=%r is not another rank: group %r has %d rank(s) "
                         "and HCCL does not receive from the receiving rank itself" % (src_rank, group, size))
    _peer_check("receive", src_rank, size, group, "src_rank")
    cluster = _cluster()
    me = _hccl_api.get_rank_id(group)
    pair, members = cluster.pair_group(group, me, src_rank, sr_tag)
    src_world = _hccl_api.get_world_rank_from_group_rank(group, src_rank)
    return cluster.receive(tf.TensorShape(shape), tf.as_dtype(data_type), members.index(src_world), pair)


def all_to_all_v(send_data, send_counts, send_displacements, recv_counts, recv_displacements,
                 group="hccl_world_group"):
    """Exchange variable-sized chunks between all ranks (real ``HcomAllToAllV``).

    Element counts/offsets index the flattened ``send_data``; each count list has one entry per
    rank. With one rank the output is the 1-D slice
    ``send_data[send_displacements[0] : send_displacements[0] + send_counts[0]]``, which must
    also be what ``recv_counts[0]`` says (checked when run: InvalidArgumentError).
    Raises: MultiRankUnsupportedError with several ranks (not built on TensorFlow's
    collectives here).
    """
    if _group_size(group, "all_to_all_v") > 1:
        raise MultiRankUnsupportedError("hccl_ops.all_to_all_v over several ranks is not built "
                                        "on TensorFlow's collectives by npu_bridge")
    flat = tf.reshape(send_data, [-1])
    send_counts = tf.cast(tf.reshape(send_counts, [-1]), tf.int64)
    send_displacements = tf.cast(tf.reshape(send_displacements, [-1]), tf.int64)
    recv_counts = tf.cast(tf.reshape(recv_counts, [-1]), tf.int64)
    recv_displacements = tf.cast(tf.reshape(recv_displacements, [-1]), tf.int64)
    checks = [
        tf.debugging.assert_equal(recv_counts[0], send_counts[0],
                                  message="all_to_all_v: recv_counts[0] must equal send_counts[0] with one rank"),
        tf.debugging.assert_equal(recv_displacements[0], tf.constant(0, tf.int64),
                                  message="all_to_all_v: recv_displacements[0] must be 0 with one rank"),
    ]
    with tf.control_dependencies(checks):
        return tf.slice(flat, send_displacements[:1], send_counts[:1], name="HcomAllToAllV")


def all_to_all_v_c(send_data, send_count_matrix, rank, fusion=0, fusion_id=-1, group="hccl_world_group"):
    """All-to-all with a [rank_size, rank_size] count matrix (real ``HcomAllToAllVC``).

    With one rank the output is the first ``send_count_matrix[0][0]`` elements of the flattened
    ``send_data``. Raises as ``all_to_all_v``; ValueError for a bad ``rank`` or ``fusion``.
    """
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "all_to_all_v_c")
    _check_rank(rank, size, "rank")
    if size > 1:
        raise MultiRankUnsupportedError("hccl_ops.all_to_all_v_c over several ranks is not built "
                                        "on TensorFlow's collectives by npu_bridge")
    flat = tf.reshape(send_data, [-1])
    count = tf.cast(tf.reshape(send_count_matrix, [-1])[:1], tf.int64)
    return tf.slice(flat, tf.zeros([1], tf.int64), count, name="HcomAllToAllVC")


def _remote_memory(op_name):
    raise NotImplementedError(
        "hccl_ops.%s reads or writes another server's device memory over RDMA (HCCL remote "
        "memory access); there is no such memory on a CPU run, so npu_bridge has no equivalent" % op_name)


def remote_read(tensorRemote, data_type):  # noqa: N803 (real argument name)
    """Real ``HcomRemoteRead`` (RDMA). Raises NotImplementedError."""
    _remote_memory("remote_read")


def remote_ref_read(tensorRemote, cache, offset):  # noqa: N803
    """Real ``HcomRemoteRefRead`` (RDMA). Raises NotImplementedError."""
    _remote_memory("remote_ref_read")


def remote_write(tensorRemote, tensorLocal, data_type):  # noqa: N803
    """Real ``HcomRemoteWrite`` (RDMA). Raises NotImplementedError."""
    _remote_memory("remote_write")


def remote_scatter_write(tensorRemote, tensorLocal, offset):  # noqa: N803
    """Real ``HcomRemoteScatterWrite`` (RDMA). Raises NotImplementedError."""
    _remote_memory("remote_scatter_write")


def gather_all_to_all_v(addrinfo, addrinfo_count_per_rank, recv_counts, recv_displacements, dtype,
                        addr_length, group="hccl_world_group"):
    """Real ``HcomGatherAllToAllV`` (reads device addresses). Raises NotImplementedError."""
    _remote_memory("gather_all_to_all_v")
