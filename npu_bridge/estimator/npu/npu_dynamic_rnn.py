"""NPU fused RNN layers (``npu_dynamic_rnn``): ``DynamicRNN`` (LSTM) and ``DynamicGRUV2``
computed with stock TensorFlow, with the real layers' constructors, variables, outputs and
static shapes. Notes: docs/design.md "Module notes".
"""
import math

import tensorflow as tf

from npu_bridge.estimator._real_shapes import dim as _real_dim, with_shape

DYNAMIC_RNN_UNIDIRECTION = "UNIDIRECTIONAL"
DYNAMIC_RNN_BIDIRECTION = "BIDIRECTIONAL"
DYNAMIC_RNN_REDIRECTIONAL = "REDIRECTIONAL"


def _dim(shape, index):
    value = shape[index]
    return getattr(value, "value", value)


class _DynamicBasic(tf.compat.v1.layers.Layer):
    """Shared arguments and checks of the fused RNN layers."""

    def __init__(self, hidden_size, dtype, direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1, keep_prob=1.0,
                 cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh", is_training=True):
        super().__init__(dtype=dtype)
        self._hidden_size = hidden_size
        self._rnn_dtype = tf.as_dtype(dtype)
        self._direction = direction
        self._cell_depth = cell_depth
        self._keep_prob = keep_prob
        self._cell_clip = cell_clip
        self._num_proj = num_proj
        self._time_major = time_major
        self._activation = activation
        self._is_training = is_training

    direction = property(lambda self: self._direction)
    cell_depth = property(lambda self: self._cell_depth)
    keep_prob = property(lambda self: self._keep_prob)
    cell_clip = property(lambda self: self._cell_clip)
    num_proj = property(lambda self: self._num_proj)
    time_major = property(lambda self: self._time_major)
    activation = property(lambda self: self._activation)
    is_training = property(lambda self: self._is_training)

    def check_direction(self):
        """ValueError unless the direction is UNIDIRECTIONAL or BIDIRECTIONAL (real rule)."""
        if self._direction not in (DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION):
            raise ValueError("Invalid direction: %s, expecting %s or %s"
                             % (self._direction, DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION))

    def _check_supported(self, layer):
        def unsupported(what):
            raise NotImplementedError("%s: %s is not modelled by the CPU implementation" % (layer, what))
        if self._cell_depth != 1:
            unsupported("cell_depth=%r" % (self._cell_depth,))
        if self._num_proj:
            unsupported("num_proj=%r" % (self._num_proj,))
        if self._keep_prob != 1.0:
            unsupported("keep_prob=%r (the NPU's in-cell dropout)" % (self._keep_prob,))
        if self._activation != "tanh":
            unsupported("activation=%r" % (self._activation,))

    def reshape(self, shape):
        """Prefix a direction axis of 2 for a bidirectional layer."""
        return [2] + shape if self._direction == DYNAMIC_RNN_BIDIRECTION else shape

    def _time_major_input(self, x):
        x = tf.convert_to_tensor(x, dtype=self._rnn_dtype)
        return x if self._time_major else tf.transpose(x, [1, 0, 2])

    def _finish(self, outputs):
        if self._time_major:
            return outputs
        perm = lambda t: tf.transpose(t, [0, 2, 1, 3] if t.shape.rank == 4 else [1, 0, 2])  # noqa: E731
        return [perm(t) for t in outputs]


def _step_mask(seq_length, t, batch):
    if seq_length is None:
        return None
    return tf.reshape(tf.cast(t < tf.cast(seq_length, tf.int32), tf.bool), [batch, 1])


class DynamicRNN(_DynamicBasic):
    """Fused LSTM layer (real ``DynamicRNN``; see module doc for shapes and outputs)."""

    def __init__(self, hidden_size, dtype, cell_type="LSTM", direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1,
                 use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", forget_bias=0.0, is_training=True):
        super().__init__(hidden_size, dtype, direction=direction, cell_depth=cell_depth, keep_prob=keep_prob,
                         cell_clip=cell_clip, num_proj=num_proj, time_major=time_major, activation=activation,
                         is_training=is_training)
        self._cell_type = cell_type
        self._use_peephole = use_peephole
        self._forget_bias = forget_bias
        self._rnn_w = None
        self._rnn_b = None

    cell_type = property(lambda self: self._cell_type)
    use_peephole = property(lambda self: self._use_peephole)
    forget_bias = property(lambda self: self._forget_bias)

    def build(self, input_shape):
        """Create w [(2,) I + H, 4H] (glorot uniform, seed 10) and b [(2,) 4H] (zeros)."""
        input_shape = tf.TensorShape(input_shape)
        input_size = _dim(input_shape, 2)
        if input_size is None:
            raise ValueError("Expected input_shape[2] to be known, saw shape: input_size.")
        self._rnn_w = self.add_weight(
            "dynamicrnn/w", shape=self.reshape([input_size + self._hidden_size, 4 * self._hidden_size]),
            dtype=self._rnn_dtype, initializer=tf.compat.v1.glorot_uniform_initializer(seed=10))
        self._rnn_b = self.add_weight("dynamicrnn/b", shape=self.reshape([4 * self._hidden_size]),
                                      dtype=self._rnn_dtype, initializer=tf.compat.v1.zeros_initializer())
        super().build(input_shape)

    def _run(self, x, seq_length, init_h, init_c, w, b, reverse):
        hidden = self._hidden_size
        batch = tf.shape(x)[1]
        clip = self._cell_clip
        if reverse:
            x = tf.reverse(x, [0]) if seq_length is None else tf.reverse_sequence(
                x, tf.cast(seq_length, tf.int64), seq_axis=0, batch_axis=1)
        steps = tf.range(tf.shape(x)[0])
        zeros = tf.zeros([batch, hidden], x.dtype)

        def step(carry, inputs):
            h, c = carry[0], carry[1]
            xt, t = inputs
            gates = tf.matmul(tf.concat([xt, h], 1), w) + b
            i, j, f, o = tf.split(gates, 4, axis=1)
            i, j, f, o = tf.sigmoid(i), tf.tanh(j), tf.sigmoid(f + self._forget_bias), tf.sigmoid(o)
            c_new = f * c + i * j
            if clip is not None and clip >= 0:
                c_new = tf.clip_by_value(c_new, -clip, clip)
            tanhc = tf.tanh(c_new)
            h_new = o * tanhc
            y = h_new
            keep = _step_mask(seq_length, t, batch)
            if keep is not None:
                h_new = tf.compat.v2.where(keep, h_new, h)
                c_new = tf.compat.v2.where(keep, c_new, c)
                y = tf.compat.v2.where(keep, y, zeros)
            return (h_new, c_new, y, i, j, f, o, tanhc)

        init = (init_h, init_c, zeros, zeros, zeros, zeros, zeros, zeros)
        h_all, c_all, y, i, j, f, o, tanhc = tf.scan(step, (x, steps), initializer=init)
        outputs = [y, h_all, c_all, i, j, f, o, tanhc]
        if reverse:
            outputs = [tf.reverse(t, [0]) if seq_length is None else tf.reverse_sequence(
                t, tf.cast(seq_length, tf.int64), seq_axis=0, batch_axis=1) for t in outputs]
        return outputs

    def call(self, x, seq_length=None, init_h=None, init_c=None, weight=None, bias=None):
        """Run the LSTM. ``init_h``/``init_c``: [1 (2 if bidirectional), B, H], default zeros.

        Returns ``[y, output_h, output_c, i, j, f, o, tanhc]`` (see module doc).
        Raises ValueError for a bad direction; NotImplementedError for unmodelled options.
        """
        self.check_direction()
        self._check_supported("DynamicRNN")
        if self._cell_type != "LSTM":
            raise NotImplementedError("DynamicRNN: cell_type=%r is not modelled (only 'LSTM')" % (self._cell_type,))
        if self._use_peephole:
            raise NotImplementedError("DynamicRNN: use_peephole=True is not modelled by the CPU implementation")
        x_shape = tf.convert_to_tensor(x, dtype=self._rnn_dtype).shape
        x = self._time_major_input(x)
        weight = self._rnn_w if weight is None else weight
        bias = self._rnn_b if bias is None else bias
        directions = 2 if self._direction == DYNAMIC_RNN_BIDIRECTION else 1
        # DynamicRnn's shape function: hidden = w.dim0 - x.dim2 (per direction's w).
        w_rows = _real_dim(tf.convert_to_tensor(weight).shape, directions - 1, "DynamicRNN")
        size = _real_dim(x_shape, 2, "DynamicRNN")
        hidden = None if w_rows is None or size is None else w_rows - size
        state = [_real_dim(x_shape, 0, "DynamicRNN"), _real_dim(x_shape, 1, "DynamicRNN"), hidden]
        state = state if directions == 1 else [2] + state
        shapes = [state] * 3 + [None] * 5
        init_shape = [directions, tf.shape(x)[1], self._hidden_size]
        init_h = tf.zeros(init_shape, x.dtype) if init_h is None else tf.convert_to_tensor(init_h, x.dtype)
        init_c = tf.zeros(init_shape, x.dtype) if init_c is None else tf.convert_to_tensor(init_c, x.dtype)
        if directions == 1:
            outputs = self._finish(self._run(x, seq_length, init_h[0], init_c[0], weight, bias, False))
        else:
            forward = self._run(x, seq_length, init_h[0], init_c[0], weight[0], bias[0], False)
            backward = self._run(x, seq_length, init_h[1], init_c[1], weight[1], bias[1], True)
            outputs = self._finish([tf.stack([fw, bw], 0) for fw, bw in zip(forward, backward)])
        return [with_shape(t, shape) for t, shape in zip(outputs, shapes)]


class DynamicGRUV2(_DynamicBasic):
    """Fused GRU layer (real ``DynamicGRUV2``; see module doc). Unidirectional only."""

    def __init__(self, hidden_size, dtype, direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1, keep_prob=1.0,
                 cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh", gate_order="zrh",
                 reset_after=True, is_training=True):
        super().__init__(hidden_size, dtype, direction=direction, cell_depth=cell_depth, keep_prob=keep_prob,
                         cell_clip=cell_clip, num_proj=num_proj, time_major=time_major, activation=activation,
                         is_training=is_training)
        self._gate_order = gate_order
        self._reset_after = reset_after

    gate_order = property(lambda self: self._gate_order)
    reset_after = property(lambda self: self._reset_after)

    def build(self, input_shape):
        """Create weight_input [I, 3H], weight_hidden [H, 3H], bias_input/bias_hidden [3H], U(+-1/sqrt(H))."""
        input_shape = tf.TensorShape(input_shape)
        input_size = _dim(input_shape, 2)
        if input_size is None:
            raise ValueError("Expected input_shape[2] to be known, saw shape: input_size.")
        stdv = 1.0 / math.sqrt(self._hidden_size)
        init = tf.compat.v1.random_uniform_initializer(-stdv, stdv)
        hidden3 = 3 * self._hidden_size
        self._weight_input = self.add_weight("dynamicgruv2/weight_input", shape=[input_size, hidden3],
                                             dtype=self._rnn_dtype, initializer=init)
        self._weight_hidden = self.add_weight("dynamicgruv2/weight_hidden", shape=[self._hidden_size, hidden3],
                                              dtype=self._rnn_dtype, initializer=init)
        self._bias_input = self.add_weight("dynamicgruv2/bias_input", shape=[hidden3], dtype=self._rnn_dtype,
                                           initializer=init)
        self._bias_hidden = self.add_weight("dynamicgruv2/bias_hidden", shape=[hidden3], dtype=self._rnn_dtype,
                                            initializer=init)
        super().build(input_shape)

    def _gates(self, t):
        parts = tf.split(t, 3, axis=1)
        if self._gate_order == "zrh":
            return parts
        if self._gate_order == "rzh":
            return parts[1], parts[0], parts[2]
        raise NotImplementedError("DynamicGRUV2: gate_order=%r is not modelled ('zrh' or 'rzh')" % (self._gate_order,))

    def call(self, x, seq_length=None, init_h=None):
        """Run the GRU. ``init_h``: [B, H], default zeros.

        Returns ``[y, output_h, update, reset, new, hidden_new]``, each [T, B, H].
        Raises ValueError for a bad direction; NotImplementedError for bidirectional or
        unmodelled options.
        """
        self.check_direction()
        self._check_supported("DynamicGRUV2")
        if self._direction != DYNAMIC_RNN_UNIDIRECTION:
            raise NotImplementedError("DynamicGRUV2: only UNIDIRECTIONAL is modelled")
        x_shape = tf.convert_to_tensor(x, dtype=self._rnn_dtype).shape
        x = self._time_major_input(x)
        batch = tf.shape(x)[1]
        zeros = tf.zeros([batch, self._hidden_size], x.dtype)
        init_h = zeros if init_h is None else tf.convert_to_tensor(init_h, x.dtype)
        # DynamicGruV2's shape function: y, output_h [x.dim0, x.dim1, weight_hidden.dim0].
        state = [_real_dim(x_shape, 0, "DynamicGRUV2"), _real_dim(x_shape, 1, "DynamicGRUV2"),
                 _real_dim(self._weight_hidden.shape, 0, "DynamicGRUV2")]
        shapes = [state, state, None, None, None, None]

        def step(carry, inputs):
            h = carry[0]
            xt, t = inputs
            xz, xr, xn = self._gates(tf.matmul(xt, self._weight_input) + self._bias_input)
            if self._reset_after:
                hz, hr, hn = self._gates(tf.matmul(h, self._weight_hidden) + self._bias_hidden)
                z = tf.sigmoid(xz + hz)
                r = tf.sigmoid(xr + hr)
                n = tf.tanh(xn + r * hn)
            else:
                wz, wr, wn = self._gates(self._weight_hidden)
                bz, br, bn = tf.split(self._bias_hidden, 3)
                z = tf.sigmoid(xz + tf.matmul(h, wz) + bz)
                r = tf.sigmoid(xr + tf.matmul(h, wr) + br)
                hn = tf.matmul(r * h, wn) + bn
                n = tf.tanh(xn + hn)
            h_new = z * h + (1.0 - z) * n
            y = h_new
            keep = _step_mask(seq_length, t, batch)
            if keep is not None:
                h_new = tf.compat.v2.where(keep, h_new, h)
                y = tf.compat.v2.where(keep, y, zeros)
            return (h_new, y, z, r, n, hn)

        init = (init_h, zeros, zeros, zeros, zeros, zeros)
        h_all, y, z, r, n, hn = tf.scan(step, (x, tf.range(tf.shape(x)[0])), initializer=init)
        return [with_shape(t, shape)
                for t, shape in zip(self._finish([y, h_all, z, r, n, hn]), shapes)]


class DynamicAUGRU(DynamicGRUV2):
    """Attention-update GRU (real ``DynamicAUGRU``). Raises NotImplementedError when called."""

    def call(self, x, weight_att=None, seq_length=None, init_h=None):  # pylint: disable=arguments-differ
        """Raises NotImplementedError: the NPU op's attention-gate outputs are not modelled."""
        raise NotImplementedError("DynamicAUGRU is not modelled by the CPU implementation of npu_bridge")
