"""``NPUStrategy``: the adapter's ``tf.distribute`` strategy (hicann/tensorflow
tf_adapter/python/npu_bridge/estimator/npu/npu_strategy.py): a one-device strategy on
"/cpu:0" whose replica count is the rank count and which shards datasets by rank
(``dataset.shard(rank_size, rank_id)``). It reduces nothing itself: gradients are averaged by
the optimizer (``NPUDistributedOptimizer``...), on the NPU as here. With one rank it is
TensorFlow's ``OneDeviceStrategy`` on "/cpu:0". With several ranks this process must be a rank
of a multi-process job (``npu-bridge run --ranks N`` or a rank table; docs/collectives.md),
else ``hccl_ops.MultiRankUnsupportedError``.
"""
import tensorflow as tf
from tensorflow.python.distribute import one_device_strategy

from hccl.manage import api as _hccl_api
from npu_bridge.hccl import hccl_ops


class NPUExtended(one_device_strategy.OneDeviceExtended):
    """The real ``NPUExtended``: replicas in sync = the rank count; datasets sharded by rank."""

    @property
    def _num_replicas_in_sync(self):
        return _hccl_api.world_rank_size()

    def _experimental_distribute_dataset(self, dataset, options=None):
        size = _hccl_api.world_rank_size()
        if size > 1:
            dataset = dataset.shard(size, _hccl_api.world_rank_id())
        return super()._experimental_distribute_dataset(dataset, options)


class NPUStrategy(tf.compat.v1.distribute.OneDeviceStrategy):
    """One-device strategy on "/cpu:0" (real constructor: ``NPUStrategy(device="/cpu:0")``)
    over the job's ranks.

    Raises: ValueError for another device (real rule); MultiRankUnsupportedError with
    ``RANK_SIZE`` > 1 in a process that is no rank of a multi-process job.
    """

    def __init__(self, device="/cpu:0"):
        if device != "/cpu:0":
            raise ValueError('"device" only support "/cpu:0"')
        size = _hccl_api.world_rank_size()
        if size > 1:
            from hccl.manage import ranktable as _ranks
            from npu_bridge.hooks import cluster
            try:
                cluster.job()
            except _ranks.RankTableError as err:
                raise hccl_ops.MultiRankUnsupportedError(
                    "NPUStrategy with RANK_SIZE=%d needs a multi-process job: run the script "
                    "with `npu-bridge run --ranks N`, or set RANK_TABLE_FILE, RANK_SIZE and "
                    "RANK_ID for each process; here: %s" % (size, err)) from None
        # the real class: StrategyV1 over NPUExtended (OneDeviceStrategy's own __init__ would
        # make a OneDeviceExtended)
        tf.compat.v1.distribute.Strategy.__init__(self, NPUExtended(self, device))
