"""npu_ops, npu_unary_ops, npu_scope, npu_convert_dropout, npu_plugin and the RNN layers."""
import math

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator import npu_ops
from npu_bridge.estimator.npu import npu_plugin, npu_scope
from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicGRUV2, DynamicRNN
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops
from npu_bridge.npu_cpu.npu_cpu_ops import embeddingrankid

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as graph:
        yield graph


@pytest.mark.parametrize("keep", [0.9, 0.3])
def test_dropout_keeps_fraction_and_scales(keep):
    out = npu_ops.dropout(tf.ones([20000]), keep)
    with v1.Session() as sess:
        values = sess.run(out)
    kept = values[values != 0]
    assert abs(kept.size / values.size - keep) < 0.02
    np.testing.assert_allclose(kept, 1.0 / keep, rtol=1e-6)


def test_dropout_with_placeholder_keep_prob_keyword_and_gradient():
    keep = v1.placeholder(tf.float32, name="keep")
    x = tf.ones([20000]) * 3.0
    out = npu_ops.dropout(x, keep_prob=keep)
    grad = tf.gradients(tf.reduce_sum(out), x)[0]
    with v1.Session() as sess:
        values, g = sess.run([out, grad], {keep: 0.5})
        assert abs(np.mean(values != 0) - 0.5) < 0.02
        np.testing.assert_allclose(values[values != 0], 6.0, rtol=1e-6)
        # gradient is the same mask scaled by 1/keep
        np.testing.assert_array_equal(g != 0, values != 0)
        assert np.all(sess.run(out, {keep: 1.0}) == 3.0)


def test_dropout_noise_shape_seed_and_checks():
    out = npu_ops.dropout(tf.ones([500, 4]), 0.5, noise_shape=[500, 1], seed=3)
    with v1.Session() as sess:
        values = sess.run(out)
    assert np.all((values == 0).all(axis=1) | (values == 2.0).all(axis=1))
    x = tf.ones([3])
    assert npu_ops.dropout(x, 1.0) is x
    with pytest.raises(ValueError, match=r"range \(0, 1\]"):
        npu_ops.dropout(x, 0.0)
    with pytest.raises(ValueError, match="floating point"):
        npu_ops.dropout(tf.ones([3], tf.int32), 0.5)


def test_dropout_is_graph_only():
    with tf.compat.v1.Graph().as_default():
        pass
    from tensorflow.python.eager import context
    with context.eager_mode():
        with pytest.raises(RuntimeError, match="eager"):
            npu_ops.dropout(tf.ones([2]), 0.5)


def test_initialize_and_shutdown_run():
    init, shutdown = npu_ops.initialize_system(), npu_ops.shutdown_system()
    assert init.type == "NoOp" and shutdown.type == "NoOp"
    with v1.Session() as sess:
        assert sess.run(init) is None and sess.run(shutdown) is None


def test_gelu_values_and_gradient():
    x = tf.constant([-3.0, 0.0, 3.0, 1.0])
    y = npu_unary_ops.gelu(x)
    auto = tf.gradients(tf.reduce_sum(y), x)[0]
    manual = npu_unary_ops.gelu_grad(tf.ones_like(x), x, y)
    with v1.Session() as sess:
        values, g1, g2 = sess.run([y, auto, manual])
    np.testing.assert_allclose(values[:3], [-0.0036, 0.0, 2.9964], atol=1e-4)
    exact = 0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * (1 + 0.044715)))
    assert values[3] == pytest.approx(exact, rel=1e-6)
    np.testing.assert_allclose(g1, g2, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="fast_gelu"):
        npu_unary_ops.fast_gelu(x)


def test_without_npu_compile_scope_tags_ops_and_keeps_values(_graph):
    with npu_scope.without_npu_compile_scope():
        inside = tf.constant(2.0) * 3.0
    outside = inside + 1.0
    assert inside.op.node_def.attr["_without_npu_compile"].b is True
    assert "_without_npu_compile" not in outside.op.node_def.attr
    with npu_scope.keep_dtype_scope():
        kept = tf.identity(outside)
    assert kept.op.node_def.attr["_keep_dtype"].i == 1
    with v1.Session() as sess:
        assert sess.run(outside) == 7.0
    with pytest.raises(ValueError, match="greater than zero"):
        with npu_scope.limit_core_num_scope(op_vectorore_num="0"):
            pass


def test_lars_coefficient():
    w = np.array([3.0, 4.0], np.float32)
    g = np.array([0.6, 0.8], np.float32)
    out = npu_ops.LARSV2(w, g, 0.1, 0.5, hyperpara=0.01, epsilon=0.0)
    clipped = npu_ops.LARSV2(w, g, 0.1, 0.001, hyperpara=0.01, epsilon=0.0, use_clip=True)
    coeff = 0.01 * 5.0 / (1.0 + 0.1 * 5.0)
    with v1.Session() as sess:
        np.testing.assert_allclose(sess.run(out), coeff * (g + 0.1 * w), rtol=1e-5)
        np.testing.assert_allclose(sess.run(clipped), 1.0 * (g + 0.1 * w), rtol=1e-5)
        np.testing.assert_allclose(sess.run(npu_ops.LARS([w], [g], 0.1, 0.01, 0.0)[0]), coeff * (g + 0.1 * w),
                                   rtol=1e-5)


def test_scatter_elements_matches_onnx_example():
    data = np.zeros([3, 3], np.float32)
    indices = np.array([[1, 0, 2], [0, 2, 1]])
    updates = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)
    out0 = npu_ops.scatter_elements(data, indices, updates, axis=0)
    out1 = npu_ops.scatter_elements(np.array([[1.0, 2, 3, 4, 5]], np.float32), [[1, -2]], [[1.1, 2.1]], axis=1)
    with v1.Session() as sess:
        np.testing.assert_allclose(sess.run(out0), [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]])
        np.testing.assert_allclose(sess.run(out1), [[1.0, 1.1, 3.0, 2.1, 5.0]])


def test_outfeed_channel_round_trip():
    enqueue = npu_ops.outfeed_enqueue_op("loss", [tf.constant(1.5), tf.constant([1, 2])])
    dequeue = npu_ops.outfeed_dequeue_op("loss", [tf.float32, tf.int32], [[], [2]])
    with v1.Session() as sess:
        sess.run(enqueue)
        value, pair = sess.run(dequeue)
        assert value == 1.5 and list(pair) == [1, 2]


def test_ops_without_cpu_meaning_say_so():
    with pytest.raises(NotImplementedError, match="channel_get_next"):
        npu_ops.channel_get_next("c", [tf.float32], [[]])
    with pytest.raises(NotImplementedError, match="embeddingrankid"):
        embeddingrankid(tf.zeros([2, 3]), tf.zeros([2]))


def test_plugin_init_options_and_checks():
    options = npu_plugin.npu_resource_init(graph_run_mode=0, precision_mode="allow_mix_precision")
    assert options["ge.graphRunMode"] == "0"
    assert options["ge.exec.precision_mode"] == "allow_mix_precision"
    assert options["ge.oo.constantFolding"] == "true"
    assert npu_plugin.last_init_options() == options
    with pytest.raises(ValueError, match="graph_run_mode.*allowed: 0, 1"):
        npu_plugin.npu_resource_init(graph_run_mode=2)
    with pytest.raises(ValueError, match="profiling_options"):
        npu_plugin.npu_resource_init(enable_profiling=True)
    npu_plugin.npu_resource_shutdown()
    npu_plugin.set_device_sat_mode(1)
    assert npu_plugin.is_inf_nan_enabled()
    npu_plugin.set_device_sat_mode(0)
    assert not npu_plugin.is_inf_nan_enabled()


def test_dynamic_rnn_matches_lstm_cell_steps_and_shapes():
    x = v1.placeholder(tf.float32, [5, 3, 4])
    layer = DynamicRNN(6, tf.float32)
    outputs = layer(x)
    # Static shapes of the real DynamicRnnV2 shape function: y, output_h, output_c known,
    # the five gate outputs unknown (hicann/tensorflow npu_aicore_ops.cc).
    assert len(outputs) == 8 and all(o.shape.as_list() == [5, 3, 6] for o in outputs[:3])
    assert all(o.shape.rank is None for o in outputs[3:])
    h = c = tf.zeros([3, 6])
    steps = []
    for t in range(5):
        c, h = npu_ops.basic_lstm_cell(x[t], h, c, layer._rnn_w, layer._rnn_b, 1.0, 0.0, True, "tanh")[:2]
        steps.append(h)
    seq = tf.constant([5, 2, 0])
    masked = DynamicRNN(6, tf.float32)(x, seq_length=seq)
    bidir = DynamicRNN(6, tf.float32, direction="BIDIRECTIONAL")(x)
    gru = DynamicGRUV2(6, tf.float32)(x)
    grad = tf.gradients(tf.reduce_sum(outputs[0]), layer._rnn_w)[0]
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        feed = {x: np.random.RandomState(1).randn(5, 3, 4).astype(np.float32)}
        y, ref, m, b, g, dw, gate = sess.run([outputs[0], tf.stack(steps), masked[0], bidir[0], gru[0], grad,
                                              outputs[6]], feed)
    np.testing.assert_allclose(y, ref, atol=1e-6)
    assert np.all(m[2:, 1] == 0) and np.all(m[:, 2] == 0) and np.any(m[:2, 1] != 0)
    assert b.shape == (2, 5, 3, 6) and g.shape == (5, 3, 6) and dw.shape == (10, 24) and gate.shape == (5, 3, 6)
    with pytest.raises(ValueError, match="Invalid direction"):
        DynamicRNN(6, tf.float32, direction="SIDEWAYS")(x)
    with pytest.raises(NotImplementedError, match="use_peephole"):
        DynamicRNN(6, tf.float32, use_peephole=True)(x)


def test_convert_dropout_routes_keras_dropout_through_npu_dropout():
    from npu_bridge.estimator.npu import npu_convert_dropout
    try:
        assert tf.keras.layers.Dropout.call is npu_convert_dropout.dropout_call
        layer = tf.keras.layers.Dropout(0.25)
        x = tf.ones([20000])
        train_out, infer_out = layer(x, training=True), layer(x, training=False)
        with v1.Session() as sess:
            train_v, infer_v = sess.run([train_out, infer_out])
        assert abs(np.mean(train_v != 0) - 0.75) < 0.02
        np.testing.assert_allclose(train_v[train_v != 0], 1 / 0.75, rtol=1e-6)
        assert np.all(infer_v == 1.0)
        assert any(op.name.startswith("dropout") and op.type == "Floor"
                   for op in train_out.graph.get_operations())
    finally:
        npu_convert_dropout._restore_for_tests()
