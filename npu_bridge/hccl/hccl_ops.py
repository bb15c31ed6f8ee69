"""Collective operations of the Ascend adapter (``npu_bridge.hccl.hccl_ops``), for one rank.

Same names, signatures and defaults as the real module (which builds ``HcomAllReduce`` and
friends for HCCL). With a group of one rank every collective has an exact meaning, built
here from stock TensorFlow ops (``tf.identity``, slices), gradients included:
allreduce/reduce/broadcast/allgather/reduce_scatter of one rank return their input.

With more than one rank (``RANK_SIZE`` > 1, or a group of several ranks) the result depends on
the other processes, so every op raises ``MultiRankUnsupportedError`` when the graph is
built: a real multi-process collective engine (HCCL on NPUs) is needed, and this module never
returns a made-up result.

Argument checks (real op definitions and the API pages): ``reduction`` in
{"sum", "prod", "max", "min"}; ``fusion`` in {0, 1, 2} for allreduce and {0, 2} for the others;
``root_rank`` / ``dest_rank`` / ``src_rank`` a rank of the group; ``rank_size`` equal to the
group's size. Violations raise ``ValueError``.
"""
import tensorflow as tf

from hccl.manage import api as _hccl_api

WORLD_GROUP = "hccl_world_group"
REDUCTIONS = ("sum", "prod", "max", "min")


class MultiRankUnsupportedError(RuntimeError):
    """A collective over more than one rank was requested: no real HCCL engine here."""


def _group_size(group, op_name):
    size = _hccl_api.get_rank_size(group)
    if size > 1:
        raise MultiRankUnsupportedError(
            "hccl_ops.%s over group %r of %d ranks (RANK_SIZE=%d) needs a real multi-process "
            "collective engine (HCCL on Ascend NPUs); npu_bridge runs one process on the CPU and "
            "will not fake the other ranks' data. Run with RANK_SIZE=1 (or unset) on the CPU."
            % (op_name, group, size, _hccl_api.world_rank_size()))
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


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group="hccl_world_group"):
    """Reduce ``tensor`` over every rank of ``group`` (real ``HcomAllReduce``).

    Args:
      tensor: a tensor (any shape); the result has its shape and dtype.
      reduction: "sum", "prod", "max" or "min".
      fusion: 0 no fusion, 1 fuse by the gradient split strategy, 2 fuse by ``fusion_id``.
      fusion_id: fusion index for ``fusion=2``.
      group: group name.
    Returns: with one rank, ``tf.identity(tensor)`` (exact for every reduction).
    Raises: ValueError for a bad argument; MultiRankUnsupportedError for several ranks.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 1, 2))
    _group_size(group, "allreduce")
    return _identity(tensor, "HcomAllReduce")


def allgather(tensor, rank_size, group="hccl_world_group", fusion=0, fusion_id=-1):
    """Concatenate ``tensor`` of every rank along axis 0 (real ``HcomAllGather``).

    Shape: [N, ...] in, [rank_size * N, ...] out. ``rank_size`` must equal the group size.
    With one rank: ``tf.identity(tensor)``. Raises as ``allreduce``.
    """
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "allgather")
    if rank_size != size:
        raise ValueError("rank_size=%r does not match the %d rank(s) of group %r" % (rank_size, size, group))
    return _identity(tensor, "HcomAllGather")


def broadcast(tensor, root_rank, fusion=2, fusion_id=0, group="hccl_world_group"):
    """Copy the tensors of rank ``root_rank`` to every rank (real ``HcomBroadcast``).

    Args:
      tensor: a list of tensors (a single tensor is taken as a list of one, as the real op's
        list input does).
      root_rank: the sending rank, a rank id inside ``group``.
      fusion: 0 no fusion, 2 fuse by ``fusion_id``.
    Returns: a list with one ``tf.identity`` per input tensor (one rank).
    Raises: as ``allreduce``.
    """
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "broadcast")
    _check_rank(root_rank, size, "root_rank")
    tensors = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
    return [_identity(t, "HcomBroadcast") for t in tensors]


def reduce(tensor, reduction, root_rank, fusion=0, fusion_id=-1, group="hccl_world_group"):
    """Reduce ``tensor`` of every rank onto ``root_rank`` (real ``HcomReduce``).

    With one rank: ``tf.identity(tensor)``. Raises as ``allreduce``.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "reduce")
    _check_rank(root_rank, size, "root_rank")
    return _identity(tensor, "HcomReduce")


def reduce_scatter(tensor, reduction, rank_size, group="hccl_world_group", fusion=0, fusion_id=-1):
    """Reduce over ranks, then give each rank one 1/rank_size slice of axis 0 (``HcomReduceScatter``).

    Shape: [rank_size * N, ...] in, [N, ...] out. With one rank: ``tf.identity(tensor)``.
    Raises as ``allreduce``; ValueError when ``rank_size`` is not the group size.
    """
    _check_reduction(reduction)
    _check_fusion(fusion, (0, 2))
    size = _group_size(group, "reduce_scatter")
    if rank_size != size:
        raise ValueError("rank_size=%r does not match the %d rank(s) of group %r" % (rank_size, size, group))
    return _identity(tensor, "HcomReduceScatter")


def send(tensor, sr_tag, dest_rank, group="hccl_world_group"):
    """Send ``tensor`` to rank ``dest_rank`` (real ``HcomSend``).

    A rank cannot send to itself, so with one rank there is no valid ``dest_rank``.
    Raises: MultiRankUnsupportedError with several ranks, ValueError with one.
    """
    size = _group_size(group, "send")
    raise ValueError("hccl_ops.send: dest_rank=%r is not another rank: group %r has %d rank(s) and "
                     "HCCL does not send to the sending rank itself" % (dest_rank, group, size))


def receive(shape, data_type, sr_tag, src_rank, group="hccl_world_group"):
    """Receive a tensor of ``shape`` / ``data_type`` from rank ``src_rank`` (real ``HcomReceive``).

    Raises as ``send`` (no other rank to receive from).
    """
    size = _group_size(group, "receive")
    raise ValueError("hccl_ops.receive: src_rank=%r is not another rank: group %r has %d rank(s) "
                     "and HCCL does not receive from the receiving rank itself" % (src_rank, group, size))


def all_to_all_v(send_data, send_counts, send_displacements, recv_counts, recv_displacements,
                 group="hccl_world_group"):
    """Exchange variable-sized chunks between all ranks (real ``HcomAllToAllV``).

    Element counts/offsets index the flattened ``send_data``; each count list has one entry per
    rank. With one rank the output is the 1-D slice
    ``send_data[send_displacements[0] : send_displacements[0] + send_counts[0]]``, which must
    also be what ``recv_counts[0]`` says (checked when run: InvalidArgumentError).
    Raises: MultiRankUnsupportedError with several ranks.
    """
    _group_size(group, "all_to_all_v")
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
