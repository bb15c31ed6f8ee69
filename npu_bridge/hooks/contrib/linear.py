"""TF 1.15's `_Linear` (tensorflow/python/ops/rnn_cell_impl.py), which scripts import from
`tf.contrib.rnn.python.ops.rnn_cell` / `core_rnn_cell` to build their own cells. TF 2.15
dropped it. It creates, in the current variable scope, `kernel` [sum of the args' last
dimensions, output_size] and (with `build_bias`) `bias` [output_size] (zeros unless
`bias_initializer`), and maps a [batch, n] tensor or a list of them to
concat(args, 1) @ kernel + bias, [batch, output_size]."""
import tensorflow as tf
from tensorflow.python.util import nest

_v1 = tf.compat.v1


class _Linear:
    """`_Linear(args, output_size, build_bias, bias_initializer=None, kernel_initializer=None)`.

    args: a 2-D tensor or a list of 2-D tensors whose last dimension is known (the variables
    are made here, from their shapes and the first one's dtype); calling it with tensors of the
    same shapes returns [batch, output_size]. Raises ValueError, with TF 1.15's texts, for no
    args, an arg that is not 2-D, or an unknown last dimension."""

    def __init__(self, args, output_size, build_bias, bias_initializer=None,
                 kernel_initializer=None):
        self._build_bias = build_bias
        if args is None or (nest.is_nested(args) and not args):
            raise ValueError("`args` must be specified")
        self._is_sequence = nest.is_nested(args)
        if not self._is_sequence:
            args = [args]
        total = 0
        for shape in [a.get_shape() for a in args]:
            if shape.ndims != 2:
                raise ValueError("linear is expecting 2D arguments: %s" % shape)
            if tf.compat.dimension_value(shape[1]) is None:
                raise ValueError("linear expects shape[1] to be provided for shape %s, "
                                 "but saw %s" % (shape, shape[1]))
            total += tf.compat.dimension_value(shape[1])
        dtype = args[0].dtype
        with _v1.variable_scope(_v1.get_variable_scope()) as outer_scope:
            self._weights = _v1.get_variable("kernel", [total, output_size], dtype=dtype,
                                             initializer=kernel_initializer)
            if build_bias:
                with _v1.variable_scope(outer_scope) as inner_scope:
                    inner_scope.set_partitioner(None)   # TF 1.15: the bias is never partitioned
                    if bias_initializer is None:
                        bias_initializer = _v1.constant_initializer(0.0, dtype=dtype)
                    self._biases = _v1.get_variable("bias", [output_size], dtype=dtype,
                                                    initializer=bias_initializer)

    def __call__(self, args):
        if not self._is_sequence:
            args = [args]
        inputs = args[0] if len(args) == 1 else tf.concat(args, 1)
        result = tf.matmul(inputs, self._weights)
        if self._build_bias:
            result = tf.nn.bias_add(result, self._biases)
        return result
