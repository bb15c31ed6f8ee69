"""Static shapes as the real Ascend ops' registered shape functions give them.

A drop-in op built from stock TensorFlow ops can end up with a static shape that differs
from the real op's (less known: `x * mask` with a keep probability of unknown shape; or more
known). Layers after it (a `Dense` needing the last dimension) then build here but not on the
NPU, or the other way round. `with_shape` gives an output exactly the real op's static shape;
the shape rules themselves are written next to each op, citing `hicann/tensorflow`
`tf_adapter/ops/...` (the `SetShapeFn` of the op's `REGISTER_OP`).
"""
import tensorflow as tf


def dim(shape, index, op_name):
    """`c->Dim(shape, index)` of a shape function: None for unknown rank or dimension.

    Raises ValueError when the rank is known and too small (the real op fails there too).
    """
    shape = tf.TensorShape(shape)
    if shape.rank is None:
        return None
    if index >= shape.rank:
        raise ValueError("%s: shape %s must be at least rank %d (the real op's shape function "
                         "reads dimension %d)" % (op_name, shape, index + 1, index))
    return tf.compat.dimension_value(shape[index])


def _same(a, b):
    return a.rank == b.rank and (a.rank is None or a.as_list() == b.as_list())


def with_shape(tensor, shape):
    """`tensor` with static shape exactly `shape` (a `TensorShape`, list or None = unknown).

    Adding information is `set_shape`; where the stock computation knows more than the real
    op (the real shape function says unknown), an identity `placeholder_with_default` with
    the real shape hides the extra (values and gradients unchanged).

    Raises ValueError when `tensor`'s static shape contradicts `shape`.
    """
    shape = tf.TensorShape(shape)
    current = tensor.shape
    if _same(current, shape):
        return tensor
    merged = current.merge_with(shape)   # ValueError on a contradiction
    if _same(merged, shape):
        tensor.set_shape(shape)
        return tensor
    return tf.compat.v1.placeholder_with_default(tensor, shape, name="real_shape")
