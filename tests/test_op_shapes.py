"""Static output shapes of the drop-in ops equal the real ops' registered shape functions.

Each expected shape is the rule of the op's `SetShapeFn` in hicann/tensorflow
(tf_adapter/ops/npu_ops.cc, aicore/npu_unary_ops.cc, aicore/npu_aicore_ops.cc,
aicpu/npu_cpu_ops.cc), applied to the inputs' static shapes: inputs of unknown rank,
unknown dimensions and scalars.
"""
import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator import npu_ops
from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicGRUV2, DynamicRNN
from npu_bridge.estimator.npu.npu_loss_scale_manager import (ExponentialUpdateLossScaleManager,
                                                             FixedLossScaleManager)
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import (down_scale, overflow_status,
                                                               scale_loss)
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops

v1 = tf.compat.v1
UNKNOWN = None        # unknown rank
SHAPES = {"unknown rank": UNKNOWN, "unknown dims": [None, 8], "partly known": [4, None],
          "scalar": [], "known": [4, 8]}


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as graph:
        yield graph


def _ph(shape, dtype=tf.float32):
    return v1.placeholder(dtype, shape)


def _as(shape):
    """A static shape as a comparable value: None (unknown rank) or a list."""
    shape = tf.TensorShape(shape)
    return None if shape.rank is None else shape.as_list()


@pytest.mark.parametrize("x_shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("keep", ["placeholder unknown shape", "placeholder scalar", "float"])
def test_dropout_is_x_shape(x_shape, keep):
    # DropOutDoMask: set_output(0, input(0)).
    keep_prob = {"placeholder unknown shape": lambda: _ph(None),
                 "placeholder scalar": lambda: _ph([]), "float": lambda: 0.5}[keep]()
    x = _ph(x_shape)
    assert _as(npu_ops.dropout(x, keep_prob).shape) == _as(x_shape)
    assert _as(npu_ops.dropout(x, keep_prob, noise_shape=tf.shape(x)).shape) == _as(x_shape)


def test_dropout_with_placeholder_keep_prob_feeds_a_dense_layer():
    # The real script's failure: Dense needs the last dimension after dropout.
    x = _ph([None, 8])
    keep_prob = v1.placeholder(tf.float32)          # shape unknown, as scripts write it
    out = v1.layers.dense(npu_ops.dropout(x, keep_prob), 4)
    assert out.shape.as_list() == [None, 4]
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        value = sess.run(out, {x: np.ones([3, 8], np.float32), keep_prob: 1.0})
    assert value.shape == (3, 4)


W_CASES = {"unknown rank": (UNKNOWN, [2, 3]), "unknown dims": ([None, 3], [2, 3]),
           "scalar": ([], []), "g unknown": ([2, 3], UNKNOWN)}


@pytest.mark.parametrize("w_shape,g_shape", W_CASES.values(), ids=W_CASES.keys())
def test_lars_outputs_are_weight_shapes(w_shape, g_shape):
    # LARS: output i = input(i) (inputs_w[i]); LarsV2: output 0 = input(0) (input_weight).
    w, g = _ph(w_shape), _ph(g_shape)
    outs = npu_ops.LARS([w, w], [g, g], 0.1)
    assert [_as(o.shape) for o in outs] == [_as(w_shape)] * 2
    assert _as(npu_ops.LARSV2(w, g, 0.1, 0.01).shape) == _as(w_shape)


LSTM_CASES = {"known": ([3, 4], [3, 6], [3, 6]), "unknown batch": ([None, 4], [None, 6], [None, 6]),
              "c unknown rank": ([3, 4], [3, 6], UNKNOWN), "h less known than c": ([3, 4], [None, 6], [3, 6])}


@pytest.mark.parametrize("x_shape,h_shape,c_shape", LSTM_CASES.values(), ids=LSTM_CASES.keys())
def test_basic_lstm_cell_shapes(x_shape, h_shape, c_shape):
    # BasicLSTMCell: ct and it..tanhct = input(2) (c), ht = input(1) (h).
    outs = npu_ops.basic_lstm_cell(_ph(x_shape), _ph(h_shape), _ph(c_shape), tf.zeros([10, 24]),
                                   tf.zeros([24]), 1.0, 0.0, True, "tanh")
    assert [_as(o.shape) for o in outs] == [_as(c_shape), _as(h_shape)] + [_as(c_shape)] * 5


@pytest.mark.parametrize("data_shape", [UNKNOWN, [None, 2], [2, 2]], ids=["unknown rank", "unknown dims", "known"])
@pytest.mark.parametrize("axis", [1, -1])
def test_scatter_elements_is_data_shape_and_runs_at_any_rank(data_shape, axis):
    # ScatterElements: set_output(0, input(0)); values as ONNX ScatterElements.
    data = _ph(data_shape)
    indices = v1.placeholder(tf.int32, None)
    updates = _ph(None)
    out = npu_ops.scatter_elements(data, indices, updates, axis=axis)
    assert _as(out.shape) == _as(data_shape)
    with v1.Session() as sess:
        value = sess.run(out, {data: [[1, 2], [3, 4]], indices: [[1], [-2]], updates: [[9], [8]]})
    np.testing.assert_array_equal(value, [[1, 9], [8, 4]])


def test_scatter_elements_axis_out_of_known_rank():
    with pytest.raises(ValueError, match="axis 2 out of range for rank 2"):
        npu_ops.scatter_elements(_ph([2, 2]), [[0]], [[1.0]], axis=2)


def test_outfeed_dequeue_is_output_shapes():
    # OutfeedDequeueOp: exactly output_shapes (not the enqueued tensors' shapes).
    npu_ops.outfeed_enqueue_op("c", [tf.zeros([2, 3]), tf.zeros([])])
    out = npu_ops.outfeed_dequeue_op("c", [tf.float32, tf.float32], [[None, 3], []])
    assert [_as(o.shape) for o in out] == [[None, 3], []]


@pytest.mark.parametrize("x_shape", SHAPES.values(), ids=SHAPES.keys())
def test_gelu_unchanged_and_gelu_grad_merged(x_shape):
    # Gelu: UnchangedShape; GeluGrad: MergeBothInputsShapeFn(dy, x).
    x = _ph(x_shape)
    assert _as(npu_unary_ops.gelu(x).shape) == _as(x_shape)
    assert _as(npu_unary_ops.gelu_grad(_ph(None), x, x).shape) == _as(x_shape)


@pytest.mark.parametrize("dy,x,merged", [([2, None], [None, 8], [2, 8]), (None, [], []),
                                         ([None, None], None, [None, None])])
def test_gelu_grad_merges_dy_and_x(dy, x, merged):
    assert _as(npu_unary_ops.gelu_grad(_ph(dy), _ph(x), _ph(None)).shape) == merged


def test_gelu_grad_contradicting_shapes_fail_like_the_real_op():
    with pytest.raises(ValueError):
        npu_unary_ops.gelu_grad(_ph([2, 3]), _ph([2, 4]), _ph(None))


RNN_CASES = {"known": [5, 3, 4], "unknown batch": [5, None, 4], "unknown steps and batch": [None, None, 4]}


@pytest.mark.parametrize("x_shape", RNN_CASES.values(), ids=RNN_CASES.keys())
@pytest.mark.parametrize("direction", ["UNIDIRECTIONAL", "BIDIRECTIONAL"])
def test_dynamic_rnn_shapes(x_shape, direction):
    # DynamicRnn(V2): y, output_h, output_c [x.d0, x.d1, w.d0 - x.d2]; i, j, f, o, tanhc unknown.
    # The real bidirectional layer stacks the two directions: [2, ...] and unknown.
    outs = DynamicRNN(6, tf.float32, direction=direction)(_ph(x_shape))
    state = x_shape[:2] + [6]
    state = state if direction == "UNIDIRECTIONAL" else [2] + state
    assert [_as(o.shape) for o in outs] == [state] * 3 + [None] * 5


def test_dynamic_rnn_batch_major_and_gru_shapes():
    outs = DynamicRNN(6, tf.float32, time_major=False)(_ph([3, None, 4]))
    assert _as(outs[0].shape) == [3, None, 6]
    # DynamicGruV2: y, output_h [x.d0, x.d1, weight_hidden.d0]; the other four unknown.
    gru = DynamicGRUV2(6, tf.float32)(_ph([None, 3, 4]))
    assert [_as(o.shape) for o in gru] == [[None, 3, 6]] * 2 + [None] * 4


@pytest.mark.parametrize("loss_shape", [UNKNOWN, [], [None]], ids=["unknown rank", "scalar", "unknown dims"])
def test_loss_scaling_shapes(loss_shape):
    # Stock multiplies in the real optimizer too: the loss keeps its shape, gradients theirs;
    # the overflow status is a scalar (reduce_all of the [1] float status); scales are scalars.
    loss = _ph(loss_shape)
    manager = FixedLossScaleManager(128)
    assert _as(scale_loss(loss, manager.get_loss_scale()).shape) == _as(loss_shape)
    grads = [_ph(UNKNOWN), _ph([None, 3]), _ph([])]
    scaled = down_scale([(g, None) for g in grads], manager.get_loss_scale())
    assert [_as(g.shape) for g, _ in scaled] == [None, [None, 3], []]
    assert _as(overflow_status(grads).shape) == []
    assert _as(ExponentialUpdateLossScaleManager(2 ** 10, 100).get_loss_scale().shape) == []


def test_npu_dynamic_rnn_helper_is_stock_static_rnn_stacked():
    # The real npu_rnn.npu_dynamic_rnn is unstack + static_rnn + stack (no NPU op): stock shapes.
    from npu_bridge.estimator.npu.npu_rnn import npu_dynamic_rnn
    cell = v1.nn.rnn_cell.BasicLSTMCell(6)
    outputs, state = npu_dynamic_rnn(cell, _ph([5, None, 4]), dtype=tf.float32)
    assert _as(outputs.shape) == [5, None, 6] and _as(state.h.shape) == [None, 6]
