"""Loss scaling: managers' schedules, overflow skip, tensor names, nesting with the distributed wrapper."""
import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator.npu.npu_loss_scale_manager import (ExponentialUpdateLossScaleManager,
                                                               FixedLossScaleManager)
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer
from npu_bridge.estimator.npu.npu_optimizer import NPUDistributedOptimizer, NPUOptimizer

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _graph_mode(monkeypatch):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    with tf.Graph().as_default() as graph:
        yield graph


def _model(opt_factory):
    """w * x with a placeholder x: feeding inf gives an inf gradient (an injected overflow)."""
    x = v1.placeholder(tf.float32, [], name="x")
    w = v1.get_variable("w", [], initializer=v1.constant_initializer(1.0))
    loss = w * x
    step = v1.train.get_or_create_global_step()
    opt = opt_factory()
    train = opt.minimize(loss, global_step=step)
    return x, w, step, train


def test_fixed_manager_names_loss_scale_tensor_and_rejects_below_one():
    manager = FixedLossScaleManager(1024)
    graph = v1.get_default_graph()
    with v1.Session() as sess:
        assert sess.run(graph.get_tensor_by_name("loss_scale:0")) == 1024.0
        assert sess.run(manager.get_loss_scale()) == 1024.0
    with pytest.raises(ValueError, match="at least 1"):
        FixedLossScaleManager(0.5)


def test_gradients_are_unscaled_and_step_applied():
    manager = FixedLossScaleManager(64)
    opt = NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(0.5), manager)
    x = v1.placeholder(tf.float32, [])
    w = v1.get_variable("w", [], initializer=v1.constant_initializer(1.0))
    (grad, var), = opt.compute_gradients(w * x * 3.0)
    assert var is w
    train = opt.apply_gradients([(grad, var)])
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        assert sess.run(grad, {x: 2.0}) == pytest.approx(6.0)   # d(3wx)/dw, not 64x that
        sess.run(train, {x: 2.0})
        assert sess.run(w) == pytest.approx(1.0 - 0.5 * 6.0)


def test_overflow_skips_step_and_exponential_schedule():
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=16, incr_every_n_steps=3,
                                                decr_every_n_nan_or_inf=2, incr_ratio=2, decr_ratio=0.5)
    x, w, step, train = _model(lambda: NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(0.1), manager))
    graph = v1.get_default_graph()
    scale_t = graph.get_tensor_by_name("loss_scale:0")
    status_t = graph.get_tensor_by_name("overflow_status_reduce_all:0")
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        assert sess.run(scale_t) == 16.0
        # One bad step: nothing applied, scale kept (needs 2 bad steps).
        sess.run(train, {x: np.inf})
        assert sess.run([w, step, scale_t]) == [1.0, 0, 16.0]
        assert not sess.run(status_t, {x: np.inf})
        # Second bad step: scale * 0.5.
        sess.run(train, {x: np.inf})
        assert sess.run([w, step, scale_t]) == [1.0, 0, 8.0]
        # A NaN is an overflow too.
        sess.run(train, {x: np.nan})
        assert sess.run([w, step]) == [1.0, 0]
        # Three good steps raise it (x2); the one bad step since the last change does not matter.
        for i in range(3):
            sess.run(train, {x: 1.0})
        assert sess.run(step) == 3
        assert sess.run(w) == pytest.approx(1.0 - 3 * 0.1)
        assert sess.run(scale_t) == 16.0
        assert sess.run(status_t, {x: 1.0})


def test_scale_never_below_one_and_capped_growth():
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=1, incr_every_n_steps=1,
                                                decr_every_n_nan_or_inf=1, decr_ratio=0.5)
    finite = v1.placeholder(tf.bool, [])
    update = manager.update_loss_scale(finite)
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(update, {finite: False})
        assert sess.run(manager.get_loss_scale()) == 1.0
        sess.run(update, {finite: True})
        sess.run(update, {finite: True})
        assert sess.run(manager.get_loss_scale()) == 4.0
        manager.get_loss_scale().load(3.0e38, sess)
        sess.run(update, {finite: True})
        assert sess.run(manager.get_loss_scale()) == pytest.approx(3.0e38)


def test_fixed_manager_without_overflow_check_applies_inf_step():
    manager = FixedLossScaleManager(8, enable_overflow_check=False)
    x, w, step, train = _model(lambda: NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(0.1), manager))
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(train, {x: np.inf})
        assert np.isinf(sess.run(w)) and sess.run(step) == 1


@pytest.mark.parametrize("order", ["lso_outside", "dist_outside"])
def test_wrappers_nest_both_ways_and_train_regression(order):
    rng = np.random.RandomState(0)
    feats = rng.randn(64, 3).astype(np.float32)
    target = feats @ np.array([[2.0], [-1.0], [0.5]], np.float32)
    x = v1.placeholder(tf.float32, [None, 3])
    y = v1.placeholder(tf.float32, [None, 1])
    w = v1.get_variable("w", [3, 1], initializer=v1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    manager = ExponentialUpdateLossScaleManager(2 ** 10, incr_every_n_steps=50)
    adam = v1.train.AdamOptimizer(0.1)
    if order == "lso_outside":
        opt = NPULossScaleOptimizer(NPUDistributedOptimizer(adam), manager)
    else:
        opt = NPUDistributedOptimizer(NPULossScaleOptimizer(adam, manager))
    assert isinstance(opt, v1.train.Optimizer)
    step = v1.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=step)
    assert opt.get_slot(w, "m") is adam.get_slot(w, "m")
    assert set(opt.variables()) == set(adam.variables())
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(200):
            sess.run(train, {x: feats, y: target})
        assert sess.run(loss, {x: feats, y: target}) < 1e-3
        assert sess.run(step) == 200
        assert sess.run("loss_scale:0") == 2.0 ** 14   # 4 increases in 200 finite steps


def test_npu_optimizer_loss_scale_and_requirements():
    with pytest.raises(ValueError, match="loss_scale_manager"):
        NPUOptimizer(v1.train.GradientDescentOptimizer(0.1), is_loss_scale=True)
    manager = FixedLossScaleManager(32)
    x, w, step, train = _model(lambda: NPUOptimizer(v1.train.GradientDescentOptimizer(0.1), manager,
                                                    is_distributed=True, is_loss_scale=True))
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(train, {x: np.inf})
        assert sess.run([w, step]) == [1.0, 0]
        sess.run(train, {x: 2.0})
        assert sess.run(w) == pytest.approx(0.8)
        assert sess.run(step) == 1


def test_manager_used_in_a_new_graph_recreates_its_tensors():
    manager = ExponentialUpdateLossScaleManager(128, incr_every_n_steps=10)
    with tf.Graph().as_default() as other:
        scale = manager.get_loss_scale()
        assert scale.graph is other
        assert other.get_tensor_by_name("loss_scale:0") is not None
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run(scale) == 128.0


def test_works_with_tf1_control_flow():
    """Same skip semantics with the v1 control flow that TF 1.x mode may switch on."""
    from tensorflow.python.ops import control_flow_util
    old = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        with tf.Graph().as_default():
            manager = ExponentialUpdateLossScaleManager(4, incr_every_n_steps=100, decr_every_n_nan_or_inf=1)
            x, w, step, train = _model(lambda: NPULossScaleOptimizer(v1.train.AdamOptimizer(0.1), manager))
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                sess.run(train, {x: np.inf})
                assert sess.run([w, step, "loss_scale:0"]) == [1.0, 0, pytest.approx(3.2)]
                sess.run(train, {x: 1.0})
                assert sess.run(step) == 1 and sess.run(w) < 1.0
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = old
