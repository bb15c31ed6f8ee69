"""Graph scopes of the Ascend adapter (``npu_scope``): they tag the ops built inside them.

Each context manager sets the same private node attribute(s) as the real one (through
``Graph._attr_scope``) on every op created inside it; the NPU graph engine reads them. On the
CPU TensorFlow ignores attributes starting with ``_``, so the graph computes the same values;
the tags stay visible on ``op.node_def.attr`` for tools and tests.
"""
import contextlib

import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2


@contextlib.contextmanager
def _attr_scope(attrs):
    with tf.compat.v1.get_default_graph()._attr_scope(attrs):  # pylint: disable=protected-access
        yield


def without_npu_compile_scope():
    """Ops inside are not compiled for the NPU (``_without_npu_compile`` = True)."""
    return _attr_scope({"_without_npu_compile": attr_value_pb2.AttrValue(b=True)})


def npu_variable_scope(placement="all"):
    """Tag variables with ``_variable_placement`` (an ``NpuExecutePlacement`` or its value string).

    Raises ValueError for a placement other than "all" / "host" (the enum's values).
    """
    value = getattr(placement, "value", placement)
    if value not in ("all", "host"):
        raise ValueError("placement value must be in NpuExecutePlacement's values ('all', 'host'), got %r"
                         % (placement,))
    return _attr_scope({"_variable_placement": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(value))})


def keep_dtype_scope():
    """Ops inside keep their precision under mixed precision (``_keep_dtype`` = 1)."""
    return _attr_scope({"_keep_dtype": attr_value_pb2.AttrValue(i=1)})


def npu_stage_scope(stage):
    """Ops inside form pipeline stage ``stage`` (``_stage_level`` = stage)."""
    return _attr_scope({"_stage_level": attr_value_pb2.AttrValue(i=stage)})


def npu_mem_type_scope():
    """Outputs of ops inside use the alternative memory type (``_output_memory_type`` = 1)."""
    return _attr_scope({"_output_memory_type": attr_value_pb2.AttrValue(i=1)})


def npu_weight_prefetch_scope(buffer_pool_id=0, buffer_pool_size=536870912):
    """Prefetch ops inside use buffer pool ``buffer_pool_id`` of ``buffer_pool_size`` bytes (512 MiB)."""
    return _attr_scope({"_buffer_pool_id": attr_value_pb2.AttrValue(i=buffer_pool_id),
                        "_buffer_pool_size": attr_value_pb2.AttrValue(i=buffer_pool_size)})


def op_specified_engine_scope(engine_name, kernel_lib_name):
    """Ops inside run on engine ``engine_name`` with kernel library ``kernel_lib_name``."""
    return _attr_scope({"_specified_engine_name": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(engine_name)),
                        "_specified_kernel_lib_name": attr_value_pb2.AttrValue(
                            s=tf.compat.as_bytes(kernel_lib_name))})


def npu_qos_label_scope(label):
    """Ops inside carry QoS service label ``label`` (``_qos_service_label``)."""
    return _attr_scope({"_qos_service_label": attr_value_pb2.AttrValue(i=label)})


def subgraph_multi_dims_scope(index):
    """Ops inside belong to multi-dims subgraph ``index`` (``_subgraph_multi_dims_index``)."""
    return _attr_scope({"_subgraph_multi_dims_index": attr_value_pb2.AttrValue(i=index)})


def npu_optimizer_scope():
    """Ops inside are marked as optimizer ops (``_optimizer`` = True)."""
    return _attr_scope({"_optimizer": attr_value_pb2.AttrValue(b=True)})


def disable_autofuse():
    """Ops inside are excluded from automatic fusion (``_disable_autofuse_scope`` = True)."""
    return _attr_scope({"_disable_autofuse_scope": attr_value_pb2.AttrValue(b=True)})


def limit_core_num_scope(op_aicore_num="0", op_vectorore_num="0"):
    """Limit the vector cores of fused ops inside (``_op_vectorcore_num``).

    Raises ValueError unless ``op_vectorore_num`` is a string holding a positive integer (real rule).
    """
    if not isinstance(op_vectorore_num, str):
        raise ValueError("Param op_vectorore_num must be string.")
    try:
        cores = int(op_vectorore_num)
    except ValueError:
        raise ValueError("Param op_vectorore_num can not be converted into a valid int number.") from None
    if cores <= 0:
        raise ValueError("Param op_vectorore_num must be greater than zero.")
    return _attr_scope({"_op_vectorcore_num": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(op_vectorore_num))})


def npu_recompute_scope():
    """A name scope ``NpuRecompute`` (the NPU recomputes ops in it in the backward pass)."""
    return tf.name_scope("NpuRecompute")


def npu_graph_slice_scope(slice_num=None):
    """A name scope ``SliceNum-<n>-NpuGraphSlicing<n>`` telling the NPU to slice the graph.

    Raises ValueError when ``slice_num`` is given and is not a positive int.
    """
    if slice_num is not None and (not isinstance(slice_num, int) or isinstance(slice_num, bool) or slice_num <= 0):
        raise ValueError("slice_num must be a positive integer, got %r" % (slice_num,))
    return tf.name_scope("SliceNum-%s-NpuGraphSlicing%s" % (slice_num, slice_num))
