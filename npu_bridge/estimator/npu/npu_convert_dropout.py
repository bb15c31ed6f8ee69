"""Importing this module makes Keras ``Dropout`` layers use ``npu_ops.dropout``, as the real
module does (through `npu_bridge.hooks.patching`, tag "dropout": `patching.undo("dropout")`
gives Keras its own ``call`` back). Notes: docs/design.md "Module notes".
"""
import numbers

import tensorflow as tf

from npu_bridge.estimator import npu_ops
from npu_bridge.hooks import patching as _patching

_Dropout = tf.keras.layers.Dropout
_TAG = "dropout"
_original_call = _patching.original(_Dropout.call)


def dropout_call(self, inputs, training=None):
    """``Dropout.call`` routed through ``npu_ops.dropout`` when the layer has no noise shape."""
    if tf.executing_eagerly() or self._get_noise_shape(inputs) is not None:
        return _original_call(self, inputs, training=training)
    if isinstance(self.rate, numbers.Real) and self.rate == 0:
        return tf.identity(inputs)
    if training is None:
        training = tf.keras.backend.learning_phase()

    def dropped():
        return npu_ops.dropout(inputs, keep_prob=1.0 - self.rate, seed=self.seed)

    if isinstance(training, bool) or isinstance(training, int):
        return dropped() if training else tf.identity(inputs)
    return tf.compat.v1.cond(tf.cast(training, tf.bool), dropped, lambda: tf.identity(inputs))


def _restore_for_tests():
    _patching.undo(_TAG)


if not _patching.wrapped(_Dropout, "call"):
    _patching.wrap(_Dropout, "call", lambda original: dropout_call, _TAG)
