"""``NPULossScaleOptimizer``: loss scaling with the NPU's overflow skip (a step with a
non-finite gradient changes no variable). Notes: docs/design.md "Module notes".
"""
import tensorflow as tf

from npu_bridge.estimator.npu.npu_loss_scale_manager import FixedLossScaleManager
from npu_bridge.ge import records as _records
from npu_bridge.hccl import hccl_ops

OVERFLOW_STATUS_NAME = "overflow_status_reduce_all"


def scale_loss(loss, loss_scale):
    """``loss * loss_scale`` (``loss`` may be a callable returning the loss)."""
    value = loss() if callable(loss) else loss
    return value * tf.cast(loss_scale, value.dtype.base_dtype)


def down_scale(grads_and_vars, loss_scale):
    """Multiply every non-None gradient by ``1 / loss_scale`` (IndexedSlices keep their indices)."""
    inverse = tf.math.reciprocal(tf.cast(loss_scale, tf.float32))
    out = []
    for grad, var in grads_and_vars:
        if grad is None:
            out.append((grad, var))
        elif isinstance(grad, tf.IndexedSlices):
            values = grad.values * tf.cast(inverse, grad.values.dtype.base_dtype)
            out.append((tf.IndexedSlices(values, grad.indices, grad.dense_shape), var))
        else:
            out.append((grad * tf.cast(inverse, grad.dtype.base_dtype), var))
    return out


def overflow_status(grads, is_distributed=False, name=OVERFLOW_STATUS_NAME):
    """Scalar bool tensor ``name``: True when every gradient in ``grads`` is finite.

    ``None`` gradients are ignored; IndexedSlices are checked on their values. With
    ``is_distributed`` the per-rank overflow count is summed with ``hccl_ops.allreduce``.
    """
    checks = []
    for grad in grads:
        if grad is None:
            continue
        values = grad.values if isinstance(grad, tf.IndexedSlices) else grad
        checks.append(tf.reduce_all(tf.math.is_finite(values)))
    if not checks:
        return tf.constant(True, name=name)
    return reduce_status(tf.reduce_all(tf.stack(checks)), is_distributed, name)


def reduce_status(local_finite, is_distributed=False, name=OVERFLOW_STATUS_NAME):
    """Scalar bool tensor `name` from this rank's scalar `local_finite` (summed over the ranks
    with `hccl_ops.allreduce` when `is_distributed`)."""
    if is_distributed:
        # Count of ranks that overflowed, summed over ranks (the real op sums float statuses).
        bad = tf.reshape(tf.cast(tf.logical_not(local_finite), tf.float32), [1])
        total = hccl_ops.allreduce(bad, "sum", fusion=0)
        return tf.reduce_all(tf.equal(total, 0.0), name=name)
    return tf.reduce_all(tf.reshape(local_finite, [1]), name=name)


def apply_if_finite(optimizer, grads_and_vars, global_step, name, loss_scale_manager, is_distributed,
                    check_overflow=True):
    """Run ``optimizer.apply_gradients`` only when the gradients are finite; always update the scale."""
    grads_and_vars = list(grads_and_vars)
    if _records.RUN.precision:   # --precision emulate: the check follows the overflow mode
        finite = _emulated_status([g for g, _ in grads_and_vars], is_distributed, check_overflow)
    elif check_overflow:
        finite = overflow_status([g for g, _ in grads_and_vars], is_distributed)
    else:
        finite = tf.constant(True, name=OVERFLOW_STATUS_NAME)

    def _apply():
        return optimizer.apply_gradients(grads_and_vars, global_step, name)

    update_vars = tf.compat.v1.cond(finite, _apply, tf.no_op)
    return tf.group(update_vars, loss_scale_manager.update_loss_scale(finite))


def _emulated_status(grads, is_distributed, check_overflow):
    """The overflow status under precision emulation: an Identity the emulation's rewrite
    gives the mode's check (INF/NaN: gradients finite; saturation: the float status), then
    reduced as always (npu_bridge.hooks.precision_emulation)."""
    from npu_bridge.hooks import precision_emulation as _emulation
    local = (overflow_status(grads, False, name="npu_precision_local_status") if check_overflow
             else tf.constant(True))
    hook = tf.identity(tf.reshape(local, []), name="npu_precision_status")
    finite = reduce_status(hook, is_distributed)
    _emulation.note_status_check(hook.op, grads, check_overflow, finite)
    return finite


class WrappedOptimizerSlots:
    """Slots and variables of a wrapper are those of the optimizer it wraps.

    Mixed into every wrapper (before `tf.compat.v1.train.Optimizer`); the wrapped optimizer
    is `self._opt` or, in the distributed wrappers, `self._optimizer`.
    """

    def _wrapped_optimizer(self):
        inner = getattr(self, "_opt", None)
        return inner if inner is not None else self._optimizer

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._wrapped_optimizer().get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._wrapped_optimizer().get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        """The wrapped optimizer's variables."""
        return self._wrapped_optimizer().variables(*args, **kwargs)


class NPULossScaleOptimizer(WrappedOptimizerSlots, tf.compat.v1.train.Optimizer):
    """Loss-scaling wrapper of a ``tf.compat.v1.train.Optimizer`` (real ``NPULossScaleOptimizer``).

    Args:
      opt: the optimizer that computes and applies the gradients (may itself be a wrapper such as
        ``NPUDistributedOptimizer``).
      loss_scale_manager: a ``FixedLossScaleManager`` or ``ExponentialUpdateLossScaleManager``.
      is_distributed: allreduce the overflow status over the ranks (see module doc).
    Other attributes are looked up on ``opt`` (as the real class does).
    """

    def __init__(self, opt, loss_scale_manager, is_distributed=False):
        self._opt = opt
        self._loss_scale_manager = loss_scale_manager
        self._is_distributed = is_distributed
        super().__init__(use_locking=False, name="NPULossScaleOptimizer{}".format(type(opt).__name__))

    def __getattr__(self, attr):
        # Only reached for names this object lacks; guard against recursion before __init__.
        if attr == "_opt":
            raise AttributeError(attr)
        return getattr(self._opt, attr)

    def compute_gradients(self, loss, var_list=None, gate_gradients=tf.compat.v1.train.Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False, grad_loss=None):
        """Gradients of ``loss * scale`` from the wrapped optimizer, divided by the scale.

        Returns a list of (gradient, variable) pairs, gradients of the unscaled loss.
        """
        loss_scale = self._loss_scale_manager.get_loss_scale()
        if _records.RUN.precision and not callable(loss):   # the emulation checks it each step
            from npu_bridge.hooks import precision_emulation as _emulation
            _emulation.note(_emulation.LOSS_COLLECTION, loss)
        grads_and_vars = self._opt.compute_gradients(
            scale_loss(loss, loss_scale), var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method, colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss)
        return down_scale(grads_and_vars, loss_scale)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply through the wrapped optimizer when finite, and update the loss scale.

        Returns one op. Creates ``overflow_status_reduce_all`` in the caller's name scope.
        """
        return apply_if_finite(self._opt, grads_and_vars, global_step, name, self._loss_scale_manager,
                               self._is_distributed, self._enable_overflow_check())

    def _enable_overflow_check(self):
        if isinstance(self._loss_scale_manager, FixedLossScaleManager):
            return self._loss_scale_manager.get_enable_overflow_check()
        return True
