"""Distributed optimizer wrappers of the Ascend adapter (``NPUDistributedOptimizer``,
``NPUOptimizer``, ``KerasDistributeOptimizer``, ...): exact with one rank, gradients allreduced
over several. Notes: docs/design.md "Module notes".
"""
import os

import tensorflow as tf

from hccl.manage import api as _hccl_api
from npu_bridge.hooks.keras2 import keras_class
from npu_bridge.estimator.npu import npu_loss_scale_optimizer as _lso
from npu_bridge.hccl import hccl_ops


def _rank_size():
    return _hccl_api.world_rank_size()


def allreduce(tensor, average=True):
    """Sum (``average``: mean) ``tensor`` over all ranks.

    Args:
      tensor: a tensor, variable or ``tf.IndexedSlices`` (gathered, as the real one does).
      average: divide by the number of ranks.
    Returns: same kind and shape as ``tensor``; with one rank its value is unchanged.
    Raises: hccl_ops.MultiRankUnsupportedError with several ranks outside a multi-rank job.
    """
    size = _rank_size()
    if isinstance(tensor, tf.IndexedSlices):
        values = hccl_ops.allgather(tensor.values, size)
        indices = hccl_ops.allgather(tensor.indices, size)
        if average:
            values = values / tf.cast(size, values.dtype)
        return tf.IndexedSlices(values, indices, dense_shape=tensor.dense_shape)
    summed = hccl_ops.allreduce(tensor, "sum")
    return summed / tf.cast(size, summed.dtype) if average else summed


def reduce(tensor, root_rank, average=True, fusion=0, fusion_id=-1):
    """Sum (``average``: mean, on the root only) ``tensor`` onto rank ``root_rank``.

    Raises: ValueError when ``DEVICE_ID`` is unset or negative (real rule) or for a bad
    ``root_rank``; hccl_ops.MultiRankUnsupportedError with several ranks outside a
    multi-rank job.
    """
    size = _rank_size()
    if isinstance(tensor, tf.IndexedSlices):
        return allreduce(tensor, average)
    local = os.environ.get("DEVICE_ID")
    if local is None or int(local) < 0:
        raise ValueError("reduce needs DEVICE_ID set to this device's id, got %r" % (local,))
    summed = hccl_ops.reduce(tensor, "sum", root_rank, fusion, fusion_id)
    if root_rank != int(local) or not average:
        return summed
    return summed / tf.cast(size, summed.dtype)


def npu_allreduce(values, reduction="mean", fusion=1, fusion_id=-1, group="hccl_world_group"):
    """Allreduce one value or a list/tuple of values (tensors or IndexedSlices).

    ``reduction``: "mean" (sum divided by the rank count), "sum", "prod", "max" or "min".
    Returns one value or a list, matching the input. Raises ValueError for an unknown
    reduction; hccl_ops.MultiRankUnsupportedError with several ranks outside a multi-rank job.
    """
    if reduction != "mean" and reduction not in hccl_ops.REDUCTIONS:
        raise ValueError("reduction must be 'mean' or one of %s, got %r" % (hccl_ops.REDUCTIONS, reduction))
    single = not isinstance(values, (list, tuple))
    items = [values] if single else list(values)
    mean = reduction == "mean"
    op = "sum" if mean else reduction
    size = _hccl_api.get_rank_size(group)
    out = []
    for value in items:
        if isinstance(value, tf.IndexedSlices):
            gathered = hccl_ops.allgather(value.values, size, group)
            indices = hccl_ops.allgather(value.indices, size, group)
            if mean:
                gathered = gathered / tf.cast(size, gathered.dtype)
            out.append(tf.IndexedSlices(gathered, indices, dense_shape=value.dense_shape))
        else:
            reduced = hccl_ops.allreduce(value, op, fusion, fusion_id, group)
            out.append(reduced / tf.cast(size, reduced.dtype) if mean else reduced)
    return out[0] if single else out


def _average_gradients(grads_and_vars, scope):
    with tf.name_scope(scope):
        return [(allreduce(g, True) if g is not None else None, v) for g, v in grads_and_vars]


class NPUDistributedOptimizer(_lso.WrappedOptimizerSlots, tf.compat.v1.train.Optimizer):
    """Averages gradients over the ranks before the wrapped optimizer applies them.

    Args:
      optimizer: a ``tf.compat.v1.train.Optimizer`` (or another wrapper).
      is_weight_update_sharding: on the NPU each rank updates only its share of the weights,
        then broadcasts them (real option; it only acts with several ranks). Here every rank
        applies the averaged gradients to all weights, which gives the same weights.
      name: defaults to ``"Distributed" + type(optimizer).__name__``.
    With one rank both ``compute_gradients`` and ``apply_gradients`` return exactly what the
    wrapped optimizer returns.
    """

    def __init__(self, optimizer, is_weight_update_sharding=False, name=None):
        if name is None:
            name = "Distributed{}".format(type(optimizer).__name__)
        self._optimizer = optimizer
        self._is_weight_update_sharding = is_weight_update_sharding
        super().__init__(name=name, use_locking=False)

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients, averaged over the ranks (unchanged with one rank)."""
        gradients = self._optimizer.compute_gradients(*args, **kwargs)
        if _rank_size() <= 1:
            return gradients
        if self._is_weight_update_sharding and _rank_size() > len(gradients):
            raise ValueError("The number of gradients is less than rank_size, so weight_update_sharding "
                             "cannot be executed")
        return _average_gradients(gradients, self._name + "_Allreduce")

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped optimizer's ``apply_gradients``."""
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)


class NPUOptimizer(_lso.WrappedOptimizerSlots, tf.compat.v1.train.Optimizer):
    """Optional gradient averaging (``is_distributed``) plus optional loss scaling (``is_loss_scale``).

    Args:
      opt: the wrapped ``tf.compat.v1.train.Optimizer``.
      loss_scale_manager: required when ``is_loss_scale`` (ValueError otherwise, real rule).
      is_distributed: average the gradients over the ranks.
      is_loss_scale: scale the loss, unscale the gradients, skip non-finite steps (see
        ``npu_loss_scale_optimizer``), creating ``overflow_status_reduce_all``.
      is_tailing_optimization: NPU scheduling of the last allreduce; no effect on values.
      name: defaults to ``"NPUOptimizer" + type(opt).__name__``.
    """

    def __init__(self, opt, loss_scale_manager=None, is_distributed=False, is_loss_scale=False,
                 is_tailing_optimization=False, name=None):
        if is_loss_scale and loss_scale_manager is None:
            raise ValueError("is_loss_scale is True, loss_scale_manager can not be None")
        self._opt = opt
        self._loss_scale_manager = loss_scale_manager
        self._is_distributed = is_distributed
        self._is_loss_scale = is_loss_scale
        self._is_tailing_optimization = is_tailing_optimization
        if name is None:
            name = "NPUOptimizer{}".format(type(opt).__name__)
        super().__init__(name=name, use_locking=False)

    def compute_gradients(self, loss, var_list=None, gate_gradients=tf.compat.v1.train.Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False, grad_loss=None):
        """Gradients of the (scaled) loss, averaged if distributed, unscaled if loss scaling."""
        loss_scale = None
        if self._is_loss_scale:
            loss_scale = self._loss_scale_manager.get_loss_scale()
            loss = _lso.scale_loss(loss, loss_scale)
        gradients = self._opt.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if self._is_distributed:
            gradients = _average_gradients(gradients, self._name + "_Allreduce")
        if self._is_loss_scale:
            gradients = _lso.down_scale(gradients, loss_scale)
        return gradients

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply; with loss scaling only on finite gradients, and update the scale."""
        if not self._is_loss_scale:
            return self._opt.apply_gradients(grads_and_vars, global_step, name)
        check = True
        if isinstance(self._loss_scale_manager, _lso.FixedLossScaleManager):
            check = self._loss_scale_manager.get_enable_overflow_check()
        return _lso.apply_if_finite(self._opt, grads_and_vars, global_step, name, self._loss_scale_manager,
                                    self._is_distributed, check)


def _keras_legacy_optimizer_base():
    return keras_class("keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2",
                       lambda: tf.keras.optimizers.legacy.Optimizer)


class KerasDistributeOptimizer(_keras_legacy_optimizer_base()):
    """Keras (legacy ``OptimizerV2``) wrapper averaging gradients over the ranks.

    Args:
      optimizer: a ``tf.keras.optimizers.legacy.Optimizer``.
      name: defaults to "NpuKerasOptimizer".
    With one rank it delegates unchanged to ``optimizer``.
    """

    def __init__(self, optimizer, name="NpuKerasOptimizer", **kwargs):
        super().__init__(name, **kwargs)
        self._optimizer = optimizer
        original = optimizer.get_gradients

        def get_gradients(loss, params):
            grads = original(loss, params)
            if _rank_size() <= 1:
                return grads
            with tf.name_scope(name + "_Allreduce"):
                return [allreduce(g, True) if g is not None else None for g in grads]

        self._optimizer.get_gradients = get_gradients

    def get_updates(self, loss, params):
        """The wrapped optimizer's updates."""
        return self._optimizer.get_updates(loss, params)

    def apply_gradients(self, grads_and_vars, name=None, **kwargs):
        """The wrapped optimizer's ``apply_gradients``."""
        return self._optimizer.apply_gradients(grads_and_vars, name, **kwargs)

    def get_config(self):
        """Base config plus the wrapped ``optimizer``."""
        config = super().get_config()
        config["optimizer"] = self._optimizer
        return config

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        gradients = self._optimizer._compute_gradients(loss, var_list, grad_loss=grad_loss, tape=tape)
        if _rank_size() <= 1:
            return gradients
        return _average_gradients(gradients, self._name + "_Allreduce")


def npu_distributed_optimizer_wrapper(optimizer):
    """Patch ``optimizer`` in place so its gradients are averaged over the ranks; return it.

    ``optimizer`` may be a TF1 optimizer, a Keras optimizer or a Keras optimizer name (str,
    resolved with ``tf.keras.optimizers.get``). ``compute_gradients``, ``get_gradients`` and
    ``_compute_gradients`` are wrapped where present; with one rank they return unchanged
    results. Raises hccl_ops.MultiRankUnsupportedError at gradient time with several ranks
    outside a multi-rank job.
    """
    if isinstance(optimizer, str):
        optimizer = tf.keras.optimizers.get(optimizer)

    def wrap(method, pairs, scope):
        def wrapped(*args, **kwargs):
            result = method(*args, **kwargs)
            if _rank_size() <= 1:
                return result
            if pairs:
                return _average_gradients(result, scope)
            with tf.name_scope(scope):
                return [allreduce(g, True) if g is not None else None for g in result]
        return wrapped

    if hasattr(optimizer, "compute_gradients"):
        optimizer.compute_gradients = wrap(optimizer.compute_gradients, True,
                                           "Npu_Distributed_optimizer_Allreduce")
    if hasattr(optimizer, "get_gradients"):
        optimizer.get_gradients = wrap(optimizer.get_gradients, False,
                                       "Npu_Distributed_optimizer_get_grads_Allreduce")
    if hasattr(optimizer, "_compute_gradients"):
        optimizer._compute_gradients = wrap(optimizer._compute_gradients, True,
                                            "Npu_Distributed_optimizer_compute_grads_Allreduce")
    return optimizer
