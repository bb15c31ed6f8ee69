"""NPU ops of the Ascend adapter (``npu_bridge.estimator.npu_ops``) built from stock TensorFlow
ops; hardware-only ops raise ``NotImplementedError``. Notes: docs/design.md "Module notes".
"""
import numbers
import threading

import tensorflow as tf

from npu_bridge.estimator._real_shapes import with_shape
from npu_bridge.hooks.state import ADAPTER as _ADAPTER   # the process's values (hooks.state)

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


def _graph_only(op_name):
    if tf.executing_eagerly():
        raise RuntimeError("npu_ops.%s() is not compatible with eager execution." % op_name)


def _not_on_cpu(op_name, why):
    raise NotImplementedError("npu_ops.%s has no CPU equivalent in npu_bridge: %s" % (op_name, why))


def NPUInit(name=None):  # noqa: N802 (real name)
    """The op that opens the NPU system: on the CPU a ``tf.no_op`` that can be ``sess.run``.

    Raises: RuntimeError when executing eagerly (as the real op).
    """
    _graph_only("NPUInit")
    return tf.no_op(name=name or "NPUInit")


def NPUShutdown(name=None):  # noqa: N802 (real name)
    """The op that closes the NPU system: on the CPU a ``tf.no_op`` that can be ``sess.run``.

    Raises: RuntimeError when executing eagerly (as the real op).
    """
    _graph_only("NPUShutdown")
    return tf.no_op(name=name or "NPUShutdown")


def initialize_system(name=None):
    """Same as ``NPUInit``: a runnable no-op on the CPU."""
    return NPUInit(name)


def shutdown_system(name=None):
    """Same as ``NPUShutdown``: a runnable no-op on the CPU."""
    return NPUShutdown(name)


def _lars_coefficient(w, g, weight_decay, learning_rate, hyperpara, epsilon, use_clip):
    # Ascend LarsV2Update rule (documented with MindSpore's LARSUpdate, the same kernel):
    # coeff = hyperpara * |w| / (|g| + weight_decay * |w| + epsilon), clipped to
    # min(coeff / learning_rate, 1) when use_clip.
    w_norm = tf.norm(tf.reshape(w, [-1]))
    g_norm = tf.norm(tf.reshape(g, [-1]))
    weight_decay = tf.cast(weight_decay, w.dtype)
    coeff = hyperpara * w_norm / (g_norm + weight_decay * w_norm + epsilon)
    if use_clip:
        coeff = tf.minimum(coeff / tf.cast(learning_rate, w.dtype), tf.constant(1.0, w.dtype))
    return coeff, weight_decay


def LARS(inputs_w, inputs_g, weight_decay, hyperpara=0.001, epsilon=0.00001, name=None):  # noqa: N802
    """Layer-wise adaptive rate scaling of gradients (real ``LARS`` op).

    Args:
      inputs_w, inputs_g: equal-length lists of weights and their gradients (same shapes).
      weight_decay: scalar. hyperpara: trust coefficient. epsilon: added to the denominator.
    Returns: the list of scaled gradients ``coeff * (g + weight_decay * w)``, one per pair,
      with ``coeff = hyperpara * |w| / (|g| + weight_decay * |w| + epsilon)`` (L2 norms).
    Raises: RuntimeError eagerly; ValueError when the lists differ in length.
    """
    _graph_only("LARS")
    if len(inputs_w) != len(inputs_g):
        raise ValueError("LARS: %d weights but %d gradients" % (len(inputs_w), len(inputs_g)))
    out = []
    with tf.name_scope(name or "LARS"):
        for w, g in zip(inputs_w, inputs_g):
            w = tf.convert_to_tensor(w)
            g = tf.convert_to_tensor(g)
            coeff, wd = _lars_coefficient(w, g, weight_decay, None, hyperpara, epsilon, False)
            # LARS shape function: output i has the shape of inputs_w[i] (npu_ops.cc).
            out.append(with_shape(coeff * (g + wd * w), w.shape))
    return out


def LARSV2(input_weight, input_grad, weight_decay, learning_rate, hyperpara=0.001, epsilon=0.00001,  # noqa: N802
           use_clip=False, name=None):
    """LARS for one weight (real ``LarsV2`` op).

    Returns ``coeff * (g + weight_decay * w)`` with the coefficient of ``LARS``; with
    ``use_clip`` the coefficient is ``min(coeff / learning_rate, 1)``. Static shape: that of
    ``input_weight`` (the LarsV2 shape function, hicann/tensorflow tf_adapter/ops/npu_ops.cc).
    Raises: RuntimeError eagerly.
    """
    _graph_only("LARSV2")
    with tf.name_scope(name or "LARSV2"):
        w = tf.convert_to_tensor(input_weight)
        g = tf.convert_to_tensor(input_grad)
        coeff, wd = _lars_coefficient(w, g, weight_decay, learning_rate, hyperpara, epsilon, use_clip)
        return with_shape(coeff * (g + wd * w), w.shape)


# Outfeed: the NPU pushes tensors into a named channel that a host thread drains. On the CPU
# the channel is a FIFO queue per (graph, channel_name).
_outfeed_lock = threading.Lock()
_OUTFEED_CAPACITY = 1 << 16


def _outfeed_queue(channel_name, dtypes=None, shapes=None):
    graph = tf.compat.v1.get_default_graph()
    key = (id(graph), channel_name)
    with _outfeed_lock:
        entry = _ADAPTER.outfeed_queues.get(key)
        if entry is not None and entry[0] is graph:
            return entry[1]
        if dtypes is None:
            raise ValueError("outfeed channel %r has no outfeed_enqueue_op in this graph yet" % channel_name)
        queue = tf.queue.FIFOQueue(_OUTFEED_CAPACITY, dtypes, shapes=shapes,
                                   shared_name="outfeed_" + channel_name, name="outfeed_" + channel_name)
        _ADAPTER.outfeed_queues[key] = (graph, queue)
        return queue


def outfeed_enqueue_op(channel_name, inputs, name=None):
    """Push ``inputs`` (a list of tensors) into the outfeed channel ``channel_name``.

    CPU meaning: a FIFO queue of this graph (capacity 65536 elements) named after the channel;
    ``outfeed_dequeue_op`` with the same name reads it. Returns the enqueue op.
    """
    inputs = [tf.convert_to_tensor(t) for t in inputs]
    queue = _outfeed_queue(channel_name, [t.dtype for t in inputs], [t.shape for t in inputs])
    return queue.enqueue(inputs, name=name)


def outfeed_dequeue_op(channel_name, output_types, output_shapes, name=None):
    """Pop one element (a list of tensors of ``output_types`` / ``output_shapes``) from the channel.

    Raises: ValueError when the graph has no enqueue for the channel yet.
    """
    queue = _outfeed_queue(channel_name)
    if [tf.as_dtype(t) for t in output_types] != list(queue.dtypes):
        raise ValueError("outfeed channel %r carries %s, not %s" % (channel_name, queue.dtypes, output_types))
    values = queue.dequeue(name=name)
    values = values if isinstance(values, (list, tuple)) else [values]
    # OutfeedDequeueOp's shape function: exactly `output_shapes` (npu_ops.cc).
    return [with_shape(tf.ensure_shape(v, s), s) for v, s in zip(values, output_shapes)]


def stop_outfeed_dequeue_op(channel_name, name=None):
    """Close the outfeed channel (pending dequeues then fail with OutOfRangeError)."""
    return _outfeed_queue(channel_name).close(cancel_pending_enqueues=True, name=name)


def _truncate_seed(seed):
    return seed % _MAXINT32


def dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Dropout with a KEEP probability, as the NPU ``DropOutGenMask``/``DropOutDoMask`` pair.

    Each element (or each slice, with ``noise_shape``) is kept with probability ``keep_prob``
    and then scaled by ``1 / keep_prob``; dropped elements are 0, so the expectation is ``x``.

    Args:
      x: a floating point tensor, any shape.
      keep_prob: a Python number in (0, 1] or a scalar float tensor (e.g. a placeholder).
      noise_shape: 1-D int shape broadcastable to ``x`` for the random keep/drop mask.
      seed: op seed (combined with the graph seed by ``tf.compat.v1.get_seed``).
      name: name scope.
    Returns: a tensor of ``x``'s dtype whose static shape is ``x``'s, whatever the shape of
      ``keep_prob`` (the DropOutDoMask shape function, hicann/tensorflow
      tf_adapter/ops/npu_ops.cc). A Python float ``keep_prob`` of 1.0 returns ``x`` itself
      (as the real op).
    Raises: RuntimeError eagerly; ValueError for a non-float ``x`` or a number outside (0, 1].
    """
    _graph_only("dropout")
    with tf.name_scope(name or "dropout"):
        x = tf.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x must be a floating point tensor. Got a %s tensor instead." % x.dtype)
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1.0:
            raise ValueError("keep_prob must be a float value or a scalar tensor in the range (0, 1], got %g"
                             % keep_prob)
        if isinstance(keep_prob, float) and keep_prob == 1.0:
            return x
        keep = tf.cast(keep_prob, x.dtype)
        shape = tf.shape(x) if noise_shape is None else noise_shape
        uniform = tf.compat.v1.random_uniform(shape, seed=seed, dtype=x.dtype)
        # floor(keep + U[0,1)) is 1 with probability keep, else 0.
        mask = tf.floor(keep + uniform)
        return with_shape(x * (1.0 / keep) * mask, x.shape)


def basic_lstm_cell(x, h, c, w, b, keep_prob, forget_bias, state_is_tuple, activation, name=None):
    """One LSTM step (real ``BasicLSTMCell`` op, gate order i, j, f, o as ``tf.nn.rnn_cell``).

    Shapes: x [B, I], h and c [B, H], w [I + H, 4H], b [4H].
    Returns the op's seven outputs ``(ct, ht, it, jt, ft, ot, tanhct)``, each [B, H] (static
    shapes as the BasicLSTMCell shape function: ``ht`` that of ``h``, the others that of ``c``):
    ``it = sigmoid(i)``, ``jt = tanh(j)``, ``ft = sigmoid(f + forget_bias)``, ``ot = sigmoid(o)``,
    ``ct = c * ft + it * jt``, ``tanhct = tanh(ct)``, ``ht = ot * tanhct``.
    Raises: RuntimeError eagerly; NotImplementedError for ``keep_prob`` < 1 (the NPU's internal
    dropout mask is not specified) or an activation other than "tanh".
    """
    _graph_only("basic_lstm_cell")
    if activation not in ("tanh", None):
        _not_on_cpu("basic_lstm_cell", "only activation='tanh' is defined, got %r" % (activation,))
    if not (isinstance(keep_prob, numbers.Real) and keep_prob == 1.0):
        _not_on_cpu("basic_lstm_cell", "keep_prob < 1 uses an unspecified NPU dropout inside the cell")
    with tf.name_scope(name or "BasicLSTMCell"):
        x = tf.convert_to_tensor(x, name="x")
        h = tf.convert_to_tensor(h, name="h")
        c = tf.convert_to_tensor(c, name="c")
        gates = tf.matmul(tf.concat([x, h], 1), w) + b
        i, j, f, o = tf.split(gates, 4, axis=1)
        it = tf.sigmoid(i)
        jt = tf.tanh(j)
        ft = tf.sigmoid(f + forget_bias)
        ot = tf.sigmoid(o)
        ct = c * ft + it * jt
        tanhct = tf.tanh(ct)
        ht = ot * tanhct
        return (with_shape(ct, c.shape), with_shape(ht, h.shape), with_shape(it, c.shape),
                with_shape(jt, c.shape), with_shape(ft, c.shape), with_shape(ot, c.shape),
                with_shape(tanhct, c.shape))


def adam_apply_one_assign(input0, input1, input2, input3, input4,
                          mul0_x, mul1_x, mul2_x, mul3_x, add2_y, name=None):
    """Fused Adam step of the Ascend BERT scripts. Raises NotImplementedError."""
    _not_on_cpu("adam_apply_one_assign", "a fused NPU kernel whose input roles are not documented; "
                "use tf.compat.v1.train.AdamOptimizer")


def adam_apply_one_with_decay_assign(input0, input1, input2, input3, input4,
                                     mul0_x, mul1_x, mul2_x, mul3_x, mul4_x, add2_y, name=None):
    """Fused AdamW step of the Ascend BERT scripts. Raises NotImplementedError."""
    _not_on_cpu("adam_apply_one_with_decay_assign", "a fused NPU kernel whose input roles are not "
                "documented; use a stock AdamW formulation")


def scatter_elements(data, indices, updates, axis=0, name=None):
    """ONNX-style ScatterElements (real ``ScatterElements`` op).

    ``output`` is ``data`` with ``output[..., indices[idx], ...] = updates[idx]`` along ``axis``
    for every position ``idx`` of ``indices`` (``indices`` and ``updates`` have one shape, of the
    same rank as ``data``). Negative ``axis`` and negative indices count from the end. Returns
    ``data``'s dtype; static shape that of ``data`` (the ScatterElements shape function,
    hicann/tensorflow tf_adapter/ops/aicpu/npu_cpu_ops.cc), also for data of unknown rank.
    Raises ValueError for an ``axis`` outside a known rank.
    """
    with tf.name_scope(name or "ScatterElements"):
        data = tf.convert_to_tensor(data, name="data")
        indices = tf.convert_to_tensor(indices, name="indices")
        updates = tf.convert_to_tensor(updates, name="updates")
        rank = data.shape.rank
        if rank is not None:
            if not -rank <= axis < rank:
                raise ValueError("axis %d out of range for rank %d" % (axis, rank))
            axis = tf.constant(axis % rank)
            dyn_rank = tf.constant(rank)
        else:
            dyn_rank = tf.rank(data)
            axis = tf.math.floormod(axis, dyn_rank) if axis < 0 else tf.constant(axis)
        indices = tf.cast(indices, tf.int64)
        # Negative indices count from the end of the axis, as ONNX specifies.
        dim = tf.gather(tf.shape(data, out_type=tf.int64), axis)
        flat = tf.reshape(tf.where(indices < 0, indices + dim, indices), [-1, 1])
        # Every position of `indices`, row-major (the order of reshape(indices, [-1])), with
        # its `axis` coordinate replaced by the index it holds.
        coords = tf.where(tf.ones_like(indices, dtype=tf.bool))
        on_axis = tf.one_hot(axis, dyn_rank, dtype=tf.int64)
        full = coords * (1 - on_axis) + flat * on_axis
        out = tf.tensor_scatter_nd_update(data, full, tf.reshape(updates, [-1]))
        return with_shape(out, data.shape)


def k_means_centroids(x, y, sum_square_y, sum_square_x, use_actual_distance=False, name=None):
    """Real ``KMeansCentroids`` op. Raises NotImplementedError."""
    _not_on_cpu("k_means_centroids", "the NPU kernel's output layout (per-centroid partial sums) is "
                "not documented")


def npu_onnx_graph_op(inputs, tout, model_path, name=None):
    """Runs an ONNX model compiled for the NPU. Raises NotImplementedError."""
    _not_on_cpu("npu_onnx_graph_op", "it executes an ONNX model through the NPU graph engine")


def channel_get_next(channel_name, output_types, output_shapes):
    """Reads the NPU's device data channel. Raises NotImplementedError."""
    _not_on_cpu("channel_get_next", "the device-side data channel %r is fed by the NPU data "
                "preprocessing pipeline; on the CPU read the tf.data iterator directly" % (channel_name,))
