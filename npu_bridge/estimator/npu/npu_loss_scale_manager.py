"""Loss-scale managers of the Ascend adapter (``FixedLossScaleManager``,
``ExponentialUpdateLossScaleManager``) on stock TensorFlow, with the real update rules.
Notes: docs/design.md "Module notes".
"""
import tensorflow as tf

# The real manager stops increasing once scale * incr_ratio would reach this (float32 max).
_FLOAT32_LIMIT = 3.4e38


def _note_scale(scale):
    """Under --precision emulate: the scale after each step goes into the run's report."""
    from npu_bridge.ge import records as _records
    if _records.RUN.precision:
        from npu_bridge.hooks import precision_emulation as _emulation
        _emulation.note(_emulation.SCALE_COLLECTION, scale)


class LossScaleManager:
    """Interface: ``get_loss_scale()`` and ``update_loss_scale(finite_grads)``."""

    def get_loss_scale(self):
        """The loss scale as a float32 scalar tensor of the current graph."""
        raise NotImplementedError

    def update_loss_scale(self, finite_grads):
        """An op that updates the scale given the scalar bool tensor ``finite_grads``."""
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale (real ``FixedLossScaleManager``).

    Args:
      loss_scale: the scale, a number >= 1.
      enable_overflow_check: when False, ``NPULossScaleOptimizer`` applies every step without
        checking the gradients for inf/nan (real behaviour).
    Raises: ValueError when ``loss_scale`` < 1 (real rule).
    """

    def __init__(self, loss_scale, enable_overflow_check=True):
        if loss_scale < 1:
            raise ValueError("loss scale must be at least 1.")
        self._loss_scale_value = float(loss_scale)
        self._enable_overflow_check = enable_overflow_check
        self._tensors = {}
        self.get_loss_scale()  # create `loss_scale` now, as the real manager does

    def get_enable_overflow_check(self):
        """Whether the optimizer checks the gradients for overflow (bool)."""
        return self._enable_overflow_check

    def get_loss_scale(self):
        """The scale: a float32 constant named ``loss_scale`` in the current graph."""
        graph = tf.compat.v1.get_default_graph()
        entry = self._tensors.get(id(graph))
        if entry is None or entry[0] is not graph:
            tensor = tf.constant(self._loss_scale_value, dtype=tf.float32, name="loss_scale")
            entry = (graph, tensor)
            self._tensors[id(graph)] = entry
        return entry[1]

    def update_loss_scale(self, finite_grads):
        """A no-op: the scale never changes."""
        del finite_grads
        _note_scale(self.get_loss_scale())
        return tf.no_op()


class ExponentialUpdateLossScaleManager(LossScaleManager):
    """Dynamic loss scale with the NPU update schedule (real ``ExponentialUpdateLossScaleManager``).

    Args:
      init_loss_scale: initial scale (>= 1).
      incr_every_n_steps: consecutive finite steps before the scale grows (>= 1).
      decr_every_n_nan_or_inf: non-finite steps before the scale shrinks (>= 1), default 2.
      incr_ratio: growth factor (> 0), default 2. decr_ratio: shrink factor (> 0), default 0.8.
    Raises: ValueError for values outside those ranges.
    """

    def __init__(self, init_loss_scale, incr_every_n_steps, decr_every_n_nan_or_inf=2, incr_ratio=2,
                 decr_ratio=0.8):
        if init_loss_scale < 1:
            raise ValueError("init_loss_scale must be at least 1, got %r" % (init_loss_scale,))
        if incr_every_n_steps < 1:
            raise ValueError("incr_every_n_steps must be at least 1, got %r" % (incr_every_n_steps,))
        if decr_every_n_nan_or_inf < 1:
            raise ValueError("decr_every_n_nan_or_inf must be at least 1, got %r" % (decr_every_n_nan_or_inf,))
        if incr_ratio <= 0 or decr_ratio <= 0:
            raise ValueError("incr_ratio and decr_ratio must be positive, got %r and %r" % (incr_ratio, decr_ratio))
        self._init_loss_scale = float(init_loss_scale)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        self._states = {}
        self._state()  # variables now, in the current graph, as the real manager does
        from npu_bridge.ge import records as _records
        if _records.RUN.capture:   # npu-bridge run: under control_dependencies fails on the NPU
            from npu_bridge.hooks import graph_capture as _graph_capture
            _graph_capture.note_loss_scale_manager(type(self).__name__)

    def _state(self):
        graph = tf.compat.v1.get_default_graph()
        entry = self._states.get(id(graph))
        if entry is None or entry[0] is not graph:
            # Reference variables: "loss_scale:0" must be the value, not a resource handle.
            with tf.compat.v1.init_scope():
                scale = tf.compat.v1.Variable(self._init_loss_scale, name="loss_scale", dtype=tf.float32,
                                              trainable=False, use_resource=False)
                good = tf.compat.v1.Variable(0, name="good_steps", dtype=tf.int32, trainable=False,
                                             use_resource=False)
                bad = tf.compat.v1.Variable(0, name="bad_steps", dtype=tf.int32, trainable=False,
                                            use_resource=False)
            entry = (graph, scale, good, bad)
            self._states[id(graph)] = entry
        return entry[1:]

    def get_loss_scale(self):
        """The scale variable ``loss_scale`` (float32 scalar) of the current graph."""
        return self._state()[0]

    def update_loss_scale(self, finite_grads):
        """Op applying one step of the schedule for the scalar bool tensor ``finite_grads``."""
        scale, good, bad = self._state()
        with tf.name_scope("update_loss_scale"):
            finite = tf.convert_to_tensor(finite_grads, dtype=tf.bool)
            grow = tf.logical_and(finite, good + 1 >= self._incr_every_n_steps)
            shrink = tf.logical_and(tf.logical_not(finite), bad + 1 >= self._decr_every_n_nan_or_inf)
            grown = tf.compat.v2.where(scale < _FLOAT32_LIMIT / self._incr_ratio, scale * self._incr_ratio, scale)
            shrunk = tf.maximum(tf.constant(1.0), scale * self._decr_ratio)
            new_scale = tf.compat.v2.where(grow, grown, tf.compat.v2.where(shrink, shrunk, scale))
            # finite: good+1 (0 after a change), bad kept (0 after a change);
            # not finite: good 0, bad+1 (0 after a change).
            zero = tf.constant(0, tf.int32)
            new_good = tf.compat.v2.where(finite, tf.compat.v2.where(grow, zero, good + 1), zero)
            new_bad = tf.compat.v2.where(finite, tf.compat.v2.where(grow, zero, bad), tf.compat.v2.where(shrink, zero, bad + 1))
            _note_scale(new_scale)
            # Read all old values before any write.
            with tf.control_dependencies([new_scale, new_good, new_bad]):
                return tf.group(tf.compat.v1.assign(scale, new_scale), tf.compat.v1.assign(good, new_good),
                                tf.compat.v1.assign(bad, new_bad))
