"""Unary NPU ops of the Ascend adapter: ``from npu_bridge.estimator.npu_unary_ops import npu_unary_ops``.

In the real adapter ``npu_unary_ops`` is the generated op module of the NPU kernels; scripts
call ``npu_unary_ops.gelu(x)``. Here it is an object with the same call surface whose ops are
built from stock TensorFlow. An op name the CPU build does not provide raises
``NotImplementedError`` naming it (rather than ``AttributeError``), so a script fails with a
clear message at the line that uses it.
"""
import math

import tensorflow as tf
from tensorflow.python.ops import nn_ops as _nn_ops

from npu_bridge.estimator._real_shapes import with_shape


class _NpuUnaryOps:
    """Namespace of the NPU unary ops with CPU meanings."""

    @staticmethod
    def gelu(x, name=None):
        """GELU, tanh approximation, as the NPU ``Gelu`` kernel computes it.

        ``0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))``, elementwise, shape and
        dtype of ``x`` (float). Examples: gelu(3) = 2.9964, gelu(-3) = -0.0036. Differentiable
        (TensorFlow's gradient equals the NPU ``GeluGrad`` of the same formula).
        """
        with tf.name_scope(name or "Gelu"):
            x = tf.convert_to_tensor(x)
            # Gelu's shape function: UnchangedShape (hicann/tensorflow npu_unary_ops.cc).
            return with_shape(_nn_ops.gelu(x, approximate=True), x.shape)

    @staticmethod
    def gelu_grad(dy, x, y, name=None):
        """NPU ``GeluGrad``: ``dy * d gelu(x) / dx`` for the tanh approximation (``y`` unused).

        Shapes of ``dy`` and ``x`` must match; the static shape is their merge (GeluGrad's
        shape function MergeBothInputsShapeFn, hicann/tensorflow npu_unary_ops.cc).
        Raises ValueError when their static shapes contradict each other (as the real op).
        """
        with tf.name_scope(name or "GeluGrad"):
            x = tf.convert_to_tensor(x)
            dy = tf.convert_to_tensor(dy, dtype=x.dtype)
            k = math.sqrt(2.0 / math.pi)
            inner = k * (x + 0.044715 * x * x * x)
            t = tf.tanh(inner)
            dinner = k * (1.0 + 3.0 * 0.044715 * x * x)
            merged = dy.shape.merge_with(x.shape)
            return with_shape(dy * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner), merged)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(
            "npu_unary_ops.%s is an NPU kernel with no CPU equivalent in npu_bridge "
            "(available: gelu, gelu_grad)" % name)


npu_unary_ops = _NpuUnaryOps()
