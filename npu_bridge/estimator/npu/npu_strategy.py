"""``NPUStrategy``: the adapter's ``tf.distribute`` strategy, here a one-device CPU strategy.

The real strategy is a one-device strategy on "/cpu:0" whose replica count is the HCCL rank
count and which shards datasets by rank. With one rank that is exactly TensorFlow's
``OneDeviceStrategy`` on "/cpu:0" (``dataset.shard(1, 0)`` is the dataset itself), which this
class is. More ranks need the real multi-process engine: constructing it then raises
``hccl_ops.MultiRankUnsupportedError``.
"""
import tensorflow as tf

from hccl.manage import api as _hccl_api
from npu_bridge.hccl import hccl_ops


class NPUStrategy(tf.compat.v1.distribute.OneDeviceStrategy):
    """One-device strategy on "/cpu:0" (real constructor: ``NPUStrategy(device="/cpu:0")``).

    Raises: ValueError for another device (real rule); MultiRankUnsupportedError with
    ``RANK_SIZE`` > 1.
    """

    def __init__(self, device="/cpu:0"):
        if device != "/cpu:0":
            raise ValueError('"device" only support "/cpu:0"')
        size = _hccl_api.world_rank_size()
        if size > 1:
            raise hccl_ops.MultiRankUnsupportedError(
                "NPUStrategy with RANK_SIZE=%d needs a real multi-process collective engine (HCCL); "
                "npu_bridge runs one rank on the CPU" % size)
        super().__init__(device)
