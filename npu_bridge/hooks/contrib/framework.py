"""`with_same_shape` of TF 1.15's `tf.contrib.framework` tensor_util (contrib/framework/python/
framework/tensor_util.py), which TF 2.15 does not have: `tensor`, checked to have
`expected_tensor`'s shape (statically when both are known, else by an assertion run with it)."""
import tensorflow as tf


def with_same_shape(expected_tensor, tensor):
    """Returns `tensor` (same value and dtype); raises ValueError when both static shapes are
    fully known and differ; otherwise the result depends on a `tf.debugging.assert_equal` of
    the two dynamic shapes (InvalidArgumentError when it runs and they differ)."""
    expected_tensor = tf.convert_to_tensor(expected_tensor)
    tensor = tf.convert_to_tensor(tensor)
    expected, actual = expected_tensor.get_shape(), tensor.get_shape()
    if expected.is_fully_defined() and actual.is_fully_defined():
        if expected != actual:
            raise ValueError("Shapes %s and %s are incompatible (with_same_shape)."
                             % (actual, expected))
        return tensor
    if not expected.is_compatible_with(actual):
        raise ValueError("Shapes %s and %s are incompatible (with_same_shape)." % (actual, expected))
    check = tf.debugging.assert_equal(tf.shape(expected_tensor), tf.shape(tensor),
                                      message="with_same_shape: shapes differ")
    with tf.control_dependencies([check]):
        return tf.identity(tensor)
