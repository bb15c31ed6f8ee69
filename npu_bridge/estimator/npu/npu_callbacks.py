"""Keras callback that broadcasts the initial variables from the root rank (``npu_callbacks``).

With one rank the broadcast is the identity, so the callback only marks itself done, as the
real one does when the rank count is 1. With more ranks (``npu-bridge run --ranks N``) it
builds ``broadcast_global_variables`` (``hccl_ops.broadcast`` on TensorFlow's collectives) and
runs it in the Keras session before the first batch, as the real callback does.
"""
import tensorflow as tf

from hccl.manage import api as _hccl_api
from npu_bridge.hooks.keras2 import keras_class
from npu_bridge.hccl import hccl_ops


def broadcast_global_variables(root_rank):
    """Op assigning each global variable of the default graph its value on ``root_rank``.

    Returns a grouped op (with one rank every assign writes the variable's own value).
    Raises: hccl_ops.MultiRankUnsupportedError with several ranks outside a multi-rank job.
    """
    ops = []
    for var in tf.compat.v1.global_variables():
        outputs = hccl_ops.broadcast(tensor=[var], root_rank=root_rank)
        ops.append(tf.compat.v1.assign(var, outputs[0]))
    return tf.group(ops)


class BroadcastGlobalVariablesCallbackImpl:
    """The broadcast-once logic, mixed into a Keras callback."""

    def __init__(self, root_rank, *args):
        super().__init__(*args)
        self.root_rank = root_rank
        self.broadcast_done = False

    def on_batch_begin(self, batch, logs=None):
        """Broadcast before the first batch (with several ranks), then never again."""
        if self.broadcast_done:
            return
        if _hccl_api.world_rank_size() > 1:
            bcast = broadcast_global_variables(self.root_rank)
            tf.compat.v1.keras.backend.get_session().run(bcast)
        self.broadcast_done = True

    def on_train_batch_begin(self, batch, logs=None):
        """Keras 2 name of ``on_batch_begin``."""
        self.on_batch_begin(batch, logs)


_Callback = keras_class("keras.src.callbacks", "Callback", lambda: tf.keras.callbacks.Callback)


class NPUBroadcastGlobalVariablesCallback(BroadcastGlobalVariablesCallbackImpl, _Callback):
    """Keras callback: make every rank start from ``root_rank``'s variables (real class)."""

    def __init__(self, root_rank):
        super().__init__(root_rank)
