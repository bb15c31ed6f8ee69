"""Helpers of the Ascend estimator (the real public names and checks) and
`set_iteration_per_loop` (the loops it registers are run by the Session patch:
`npu_bridge.hooks.loops`). Notes: docs/design.md "Module notes".
"""
import os

import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2
from tensorflow.core.framework import variable_pb2
from tensorflow.python.framework import ops
from tensorflow.python.ops import ref_variable

from npu_bridge.hooks import loops as _loops
from npu_bridge.hooks.state import ADAPTER as _ADAPTER   # the process's values (hooks.state)

_NPU_RUNCONFIG = "npu_runconfig"
_ITERATIONS_PER_LOOP_VAR = "iterations_per_loop"
_LOOP_COND_VAR = "loop_cond"
_CONST_ZERO = "zero"
_CONST_ONE = "one"


# ---------------------------------------------------------------------------------------------
# Argument checks (the real util's messages and exception types, used by the config classes).

def check_not_none(value, name):
    """Raise ValueError when `value` is None."""
    if value is None:
        raise ValueError("{} must not be None".format(name))


def check_positive_integer(value, name):
    """Check that `value` is an int > 0.

    Raises:
      TypeError: not an int (bool is refused too: True is not a step count).
      ValueError: zero or negative.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("{} must be int, got {}".format(name, type(value)))
    if value <= 0:
        raise ValueError("{} must be positive, got {}".format(name, value))


def check_nonnegative_integer(value, name):
    """Check that `value` is an int >= 0 (TypeError / ValueError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("{} must be int, got {}".format(name, type(value)))
    if value < 0:
        raise ValueError("{} must be nonnegative, got {}".format(name, value))


def check_bool_type(value, name):
    """Raise TypeError unless `value` is True or False."""
    if not isinstance(value, bool):
        raise TypeError("{} must be True or False, got {}".format(name, value))


def convert_bool_to_int(value):
    """True -> 1, False -> 0, anything else -> -1 (the real helper's convention)."""
    if value is True:
        return 1
    if value is False:
        return 0
    return -1


def format_string(value, name):
    """None -> "", a str -> itself; anything else raises TypeError naming `name`."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError("{} must be string, got {}".format(name, type(value)))
    return str(value)


_PROFILING_TYPES = ("training_trace", "task_time", "op_trace")


def check_profiling_options(profiling_options=()):
    """Join profiling option names with ':'.

    Raises:
      ValueError: empty, or a name outside training_trace / task_time / op_trace.
    """
    message = ("profiling options must be non-empty and each one of %s, got %r"
               % (", ".join(_PROFILING_TYPES), list(profiling_options)))
    if len(profiling_options) == 0:
        raise ValueError(message)
    for option in profiling_options:
        if option not in _PROFILING_TYPES:
            raise ValueError(message)
    return ":".join(profiling_options)


def check_path(path):
    """Return the real path of an existing, readable and writable directory.

    Raises:
      ValueError: the path does not exist, is not a directory, or lacks read/write rights.
    """
    if not os.path.exists(path):
        raise ValueError("path:%s is not exists." % (path,))
    real_path = os.path.realpath(path)
    if not os.path.isdir(real_path):
        raise ValueError("path:%s is not directory." % (path,))
    if not os.access(real_path, os.R_OK | os.W_OK):
        raise ValueError("path:%s is not read and write permissions." % (path,))
    return real_path


def check_aoe_mode(aoe_mode):
    """Raise ValueError unless `aoe_mode` is one of the strings '1', '2', '4'."""
    if aoe_mode not in ("1", "2", "4"):
        raise ValueError("aoe_mode:%s is invalid, should be in ['1', '2', '4']" % (aoe_mode,))


# ---------------------------------------------------------------------------------------------
# The loop variables of the real adapter (it keeps them so GE can read the loop count).

def register_func(var_name):
    """Register the proto functions of the `npu_runconfig_<var_name>` collection, so the loop
    variables survive a MetaGraph export/import (as in the real adapter)."""
    ops.register_proto_function(
        "{}_{}".format(_NPU_RUNCONFIG, var_name),
        proto_type=variable_pb2.VariableDef,
        # TF 2.15 keeps the variable (de)serializers, resource ones included, in ref_variable.
        to_proto=ref_variable._to_proto_fn,  # pylint: disable=protected-access
        from_proto=ref_variable._from_proto_fn)  # pylint: disable=protected-access


def create_or_get_var(var_name):
    """The int64 scalar resource variable `npu_runconfig/<var_name>` of the default graph.

    Created once per graph (local variable, not trainable, next to the global step);
    RuntimeError if the collection holds more than one.
    """
    graph = tf.compat.v1.get_default_graph()
    collection_name = "{}_{}".format(_NPU_RUNCONFIG, var_name)
    existing = graph.get_collection(collection_name)
    if len(existing) == 1:
        return existing[0]
    if len(existing) > 1:
        raise RuntimeError("Multiple var in collection %s." % collection_name)
    global_step = tf.compat.v1.train.get_global_step()
    with ops.colocate_with(global_step, ignore_existing=global_step is None):
        with tf.compat.v1.variable_scope(_NPU_RUNCONFIG, reuse=tf.compat.v1.AUTO_REUSE):
            return tf.compat.v1.get_variable(
                var_name, initializer=tf.compat.v1.zeros_initializer(), shape=[],
                dtype=tf.int64, trainable=False,
                collections=[collection_name, tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
                use_resource=True)


# ---------------------------------------------------------------------------------------------
# The loop registry and its NPB125 check live with the Session patch (npu_bridge.hooks.loops).

def register_loop_op(op, iterations_per_loop):
    """Mark `op` (a tf.Operation) as a loop op: each Session.run that fetches it advances
    `iterations_per_loop` steps. N == 1 removes the mark. Returns `op`.

    Raises:
      TypeError / ValueError: `iterations_per_loop` is not a positive int.
    """
    check_positive_integer(iterations_per_loop, "iterations_per_loop")
    return _loops.register_loop_op(op, iterations_per_loop)


loop_iterations = _loops.loop_iterations
loop_ops_of = _loops.loop_ops_of
log_diagnostic = _loops.log_diagnostic


def set_iteration_per_loop(sess, train_op, iterations_per_loop=1):
    """Make one `sess.run` of the returned op execute `iterations_per_loop` training steps.

    As the real adapter: `train_op` must be a tf.Operation; N == 1 returns `train_op` itself;
    otherwise the loop variables are created and loaded through `sess` and a new op named
    `IterationOp` grouping `train_op` is returned. Here that op is also registered as a loop op,
    so each `sess.run(returned_op)` runs `train_op` N times (global step advances by N).

    Args:
      sess: a tf.compat.v1.Session on the graph of `train_op` (or a MonitoredSession).
      train_op: the tf.Operation of one training step.
      iterations_per_loop: steps per Session.run, an int >= 1.
    Returns:
      a tf.Operation.
    Raises:
      ValueError: `train_op` is not a tf.Operation.
      TypeError / ValueError: `iterations_per_loop` is not a positive int.
      NpuConfigError: N > 1 while the session's parameter_map iterations_per_loop is 1 (set
        or unset), where the NPU would not loop (NPB125; another mismatch is a warning).
    """
    if not isinstance(train_op, ops.Operation):
        raise ValueError("The incoming 'train_op' type is '%s', and the need type is 'Operation'"
                         % (type(train_op).__name__,))
    check_positive_integer(iterations_per_loop, "iterations_per_loop")
    # before anything is created or loaded: an error leaves the graph and session unchanged
    _loops.check_loop_count(sess, iterations_per_loop,
                      "util.set_iteration_per_loop(sess, train_op, %d)" % iterations_per_loop)
    if iterations_per_loop == 1:
        return train_op
    with train_op.graph.as_default():
        loop = IterationPerLoop()
        group_train_op = loop.create_iteration_per_loop_var(train_op)
    loop.load_iteration_per_loop_var(sess, iterations_per_loop)
    return register_loop_op(group_train_op, iterations_per_loop)


def _op_after(train_op, name):
    """A NoOp named `name` that runs after `train_op`: what ``tf.group(train_op, name=name)``
    builds, without changing `train_op`.

    ``tf.group`` goes through ``ops.control_dependencies``, which (TF 2.x) sets the attribute
    ``_has_manual_control_dependencies`` on each control input. When a session has already run
    the graph (the usual `set_iteration_per_loop` script: create the session, run the
    initializers, then call it), TensorFlow warns that the run op "was changed by setting
    attribute after it was run by a session ... will trigger an error in the future". Here the
    control edge is added to the new op instead, so no op a session has run is modified.
    """
    with train_op.graph.as_default(), ops.name_scope(name) as scope:
        with ops.device(train_op.device):
            op = tf.no_op(name=scope)
    op._add_control_input(train_op)  # pylint: disable=protected-access
    return op


class IterationPerLoop:
    """Two-step form of `set_iteration_per_loop`: create the loop op, then load N.

    `load_iteration_per_loop_var(sess, N)` also (re)registers the loop op with N.
    """

    def __init__(self):
        self._const_one = None
        self._const_zero = None
        self._loop_cond_var = None
        self._iterations_per_loop_var = None
        self._loop_op = None

    def create_iteration_per_loop_var(self, train_op):
        """Create the loop variables and return an op named `IterationOp` grouping `train_op`.

        Raises ValueError when `train_op` is not a tf.Operation.
        """
        if not isinstance(train_op, ops.Operation):
            raise ValueError("The incoming 'train_op' type is '%s', and the need type is 'Operation'"
                             % (type(train_op).__name__,))
        self._iterations_per_loop_var = create_or_get_var(_ITERATIONS_PER_LOOP_VAR)
        self._loop_cond_var = create_or_get_var(_LOOP_COND_VAR)
        self._const_zero = create_or_get_var(_CONST_ZERO)
        self._const_one = create_or_get_var(_CONST_ONE)
        self._loop_op = _op_after(train_op, "IterationOp")
        return self._loop_op

    def load_iteration_per_loop_var(self, sess, iterations_per_loop=1):
        """Load N - 1 into the loop variable (the device counts from 0) and register the op.

        N is checked against the session's parameter_map iterations_per_loop first, as in
        `set_iteration_per_loop` (NPB125: NpuConfigError before anything is loaded).
        """
        check_positive_integer(iterations_per_loop, "iterations_per_loop")
        _loops.check_loop_count(sess, iterations_per_loop,
                          "IterationPerLoop.load_iteration_per_loop_var(sess, %d)"
                          % iterations_per_loop)
        self._iterations_per_loop_var.load(iterations_per_loop - 1, session=sess)
        self._loop_cond_var.load(0, session=sess)
        self._const_zero.load(0, session=sess)
        self._const_one.load(1, session=sess)
        if self._loop_op is not None:
            register_loop_op(self._loop_op, iterations_per_loop)


def variable_initializer_in_host(var_list):
    """An op (named `var_in_host`) that initializes `var_list`; a no-op when it is empty."""
    return tf.compat.v1.initializers.variables(var_list, name="var_in_host")


def get_ranksize():
    """The rank count as a string: $RANK_SIZE, else $CM_WORKER_SIZE, else "1".

    Raises ValueError when both variables are set (the real adapter refuses that).
    """
    if os.getenv("CM_WORKER_SIZE") is not None and os.getenv("RANK_SIZE") is not None:
        raise ValueError("RANK_SIZE and CM_WORK_SIZE cannot be configured at the same time")
    if os.getenv("RANK_SIZE") is not None:
        return os.getenv("RANK_SIZE")
    return os.getenv("CM_WORKER_SIZE", "1")


# ---------------------------------------------------------------------------------------------
# Gradient split across ranks (used by the distributed optimizer wrappers).

class GradDivisionItem:
    """A (gradient, variable) pair with its size in bytes and the rank it is assigned to."""

    def __init__(self, grad, var):
        self.grad = grad
        self.var = var
        self.size = self._size_in_bytes()
        self.root_rank_id = -1

    def _size_in_bytes(self):
        shape = self.grad.shape
        if len(shape) <= 0:
            return 0
        size = 1
        for dim in shape:
            size *= int(dim)
        return size * self.grad.dtype.size


def fair_division(inputs, number):
    """Assign each item of `inputs` (GradDivisionItem, in order) a `root_rank_id` in
    [0, number), cutting the list into `number` consecutive runs of about equal size (bytes).

    Only unassigned items (root_rank_id < 0) count towards the average of the remaining runs,
    and an item bigger than all other unassigned ones together is left out of that average.
    Returns `inputs`. Raises ValueError when `number` is negative or exceeds len(inputs).
    """
    if number > len(inputs) or number < 0:
        raise ValueError("'number' is greater than the number of inputs or 'number' is less than 0. ")
    if number == len(inputs):
        for index, item in enumerate(inputs):
            item.root_rank_id = index
        return inputs

    def unassigned_total(excluded):
        return sum(item.size for item in inputs if item.root_rank_id < 0 and item not in excluded)

    def target_size(parts):
        if parts == 1:
            return unassigned_total(())
        large = []
        while True:
            total = unassigned_total(large)
            average = total // (parts - len(large))
            found = False
            for item in inputs:
                if item.root_rank_id < 0 and item not in large and item.size > total - item.size:
                    large.append(item)
                    found = True
            if not found:
                return average

    start = 0
    for part in range(number):
        parts_left = number - part
        average = target_size(parts_left)
        taken, count = 0, 0
        # Leave at least one item for each later part.
        for index in range(start, len(inputs) - parts_left + 1):
            item = inputs[index]
            fits = taken + item.size <= average
            closer = (taken + item.size - average) <= (average - taken)
            if fits or count == 0 or closer:
                item.root_rank_id = part
                taken += item.size
                count += 1
                start = index + 1
            if not fits:
                break
    return inputs


def add_grads_and_vars(grads_and_vars, rank_size):
    """Record the non-None (grad, var) pairs and split them over `rank_size` ranks."""
    items = [GradDivisionItem(grad, var) for grad, var in grads_and_vars if grad is not None]
    _ADAPTER.gradients_and_vars = fair_division(items, rank_size)


def _gid_of(attr, tensor):
    """The rank of the last recorded item whose `attr` ("grad" or "var") has `tensor`'s name, or -1."""
    gid = -1
    for item in _ADAPTER.gradients_and_vars:
        if getattr(item, attr).name == tensor.name:
            gid = item.root_rank_id
    return gid


def get_gid_by_grad(grad):
    """The rank assigned to gradient `grad` (matched by name), or -1."""
    return _gid_of("grad", grad)


def get_gid_by_weight(weight):
    """The rank assigned to variable `weight` (matched by name), or -1."""
    return _gid_of("var", weight)


def get_all_grad_item():
    """Every recorded GradDivisionItem."""
    return _ADAPTER.gradients_and_vars


# ---------------------------------------------------------------------------------------------
# Graph attributes read by GE (ignored by stock TensorFlow).

def _get_experimental_config(experimental_config):
    # Imported here: util loads with every npu_bridge import, npu_config (tf.estimator) on use.
    from npu_bridge.estimator.npu.npu_config import ExperimentalConfig
    if experimental_config is None:
        return None
    if not isinstance(experimental_config, ExperimentalConfig):
        raise ValueError("experimental_config type must be ExperimentalConfig")
    memory = getattr(experimental_config, "_graph_memory_optimize_config", None)
    recompute = getattr(memory, "_recompute", None) if memory is not None else None
    if recompute is None:
        return None
    return attr_value_pb2.AttrValue(s=tf.compat.as_bytes(recompute))


def _set_attrs(fetch, attrs):
    op = fetch if isinstance(fetch, ops.Operation) else fetch.op
    for name, value in attrs.items():
        if value is not None:
            op._set_attr(name, value)  # pylint: disable=protected-access


def set_graph_exec_config(fetch, dynamic_input=False, dynamic_graph_execute_mode="dynamic_execute",
                          dynamic_inputs_shape_range=None, is_train_graph=False,
                          experimental_config=None):
    """Attach GE's dynamic-execution attributes to `fetch` (op, tensor, tensor name, or a
    list/tuple of them) and return it.

    Raises:
      ValueError: dynamic_graph_execute_mode not lazy_recompile / dynamic_execute, or a fetch
        of another type.
    """
    if dynamic_graph_execute_mode not in ("lazy_recompile", "dynamic_execute"):
        raise ValueError("dynamic_graph_execute_mode should be lazy_recompile or dynamic_execute, "
                         "got %r" % (dynamic_graph_execute_mode,))
    attrs = {
        "_graph_dynamic_input": attr_value_pb2.AttrValue(b=dynamic_input),
        "_graph_dynamic_graph_execute_mode":
            attr_value_pb2.AttrValue(s=tf.compat.as_bytes(dynamic_graph_execute_mode)),
        "_graph_dynamic_inputs_shape_range":
            attr_value_pb2.AttrValue(s=tf.compat.as_bytes(dynamic_inputs_shape_range or "")),
        "_is_train_graph": attr_value_pb2.AttrValue(b=is_train_graph),
        "_recompute_mode": _get_experimental_config(experimental_config),
    }
    if isinstance(fetch, (ops.Operation, tf.Tensor)):
        _set_attrs(fetch, attrs)
    elif isinstance(fetch, (tuple, list)):
        for item in fetch:
            set_graph_exec_config(item, dynamic_input, dynamic_graph_execute_mode,
                                  dynamic_inputs_shape_range, is_train_graph, experimental_config)
    elif isinstance(fetch, str):
        return set_graph_exec_config(tf.compat.v1.get_default_graph().get_tensor_by_name(fetch),
                                     dynamic_input, dynamic_graph_execute_mode,
                                     dynamic_inputs_shape_range, is_train_graph, experimental_config)
    else:
        raise ValueError("fetch is invalid, should be op, tensor, list, tuple or tensor name.")
    return fetch


def npu_compile(sess, *fetches):
    """Run `fetches` once (on the NPU this compiles their graph ahead of training)."""
    sess.run(fetches)


def global_dict_init():
    """Empty the process-wide key/value store (init_resource calls it)."""
    _ADAPTER.values = {}


def set_value(key, value):
    """Store `value` under `key` in the process-wide store."""
    _ADAPTER.values[key] = value


def get_value(key, def_value=None):
    """The value stored under `key`, else `def_value`."""
    return _ADAPTER.values.get(key, def_value)


def keep_tensors_dtypes(graph, input_tensors):
    """Mark the ops of the named tensors to keep their precision under mixed precision.

    Raises ValueError when `graph` is not a tf.Graph or `input_tensors` not a list/tuple.
    """
    if not isinstance(graph, ops.Graph):
        raise ValueError("graph param must be ops.Graph class.")
    if not isinstance(input_tensors, (tuple, list)):
        raise ValueError("input_tensors must be list or tuple.")
    for tensor_name in input_tensors:
        graph.get_tensor_by_name(tensor_name).op._set_attr(  # pylint: disable=protected-access
            "_keep_dtype", attr_value_pb2.AttrValue(i=1))


def set_op_tensor_max_range(tensor, max_shape):
    """Attach the maximum shape string `max_shape` to the op of `tensor`."""
    _set_attrs(tensor, {"_op_max_shape": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(max_shape))})


def set_op_input_tensor_multi_dims(tensor, input_shape, input_dims):
    """Attach multi-dims input shape and dims strings to the op of `tensor`."""
    _set_attrs(tensor, {
        "_subgraph_multi_dims_input_shape": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(input_shape)),
        "_subgraph_multi_dims_input_dims": attr_value_pb2.AttrValue(s=tf.compat.as_bytes(input_dims)),
    })


def set_op_tensor_max_size(tensor, max_size):
    """Attach the maximum size `max_size` (bytes) to the op of `tensor`."""
    _set_attrs(tensor, {"_op_max_size": attr_value_pb2.AttrValue(i=max_size)})
