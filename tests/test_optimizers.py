"""Distributed optimizer wrappers, npu_allreduce, Keras wrapper, NPUStrategy and callback."""
import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator.npu import npu_optimizer
from npu_bridge.estimator.npu.npu_callbacks import NPUBroadcastGlobalVariablesCallback
from npu_bridge.estimator.npu.npu_optimizer import (KerasDistributeOptimizer,
    NPUDistributedOptimizer, npu_allreduce, npu_distributed_optimizer_wrapper)
from npu_bridge.estimator.npu.npu_rnn import npu_dynamic_rnn
from npu_bridge.estimator.npu.npu_strategy import NPUStrategy
from npu_bridge.hccl.hccl_ops import MultiRankUnsupportedError

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _graph(monkeypatch):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    with tf.Graph().as_default():
        yield


def _problem():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = v1.get_variable("w", [2, 1], initializer=v1.constant_initializer(0.5))
    return w, tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))


def test_distributed_optimizer_is_exact_pass_through_with_one_rank():
    w, loss = _problem()
    inner = v1.train.MomentumOptimizer(0.01, 0.9)
    opt = NPUDistributedOptimizer(inner)
    assert isinstance(opt, v1.train.Optimizer) and opt.get_name() == "DistributedMomentumOptimizer"
    (grad, var), = opt.compute_gradients(loss)
    (ref, _), = inner.compute_gradients(loss)
    train = opt.apply_gradients([(grad, var)])
    assert opt.get_slot(w, "momentum") is inner.get_slot(w, "momentum")
    assert opt.get_slot_names() == ["momentum"]
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        g, r = sess.run([grad, ref])
        np.testing.assert_array_equal(g, r)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), 0.5 - 0.01 * r, rtol=1e-6)


def test_several_ranks_raise_instead_of_faking(monkeypatch):
    w, loss = _problem()
    monkeypatch.setenv("RANK_SIZE", "2")
    with pytest.raises(MultiRankUnsupportedError, match="RANK_SIZE=2"):
        NPUDistributedOptimizer(v1.train.GradientDescentOptimizer(0.1)).minimize(loss)
    with pytest.raises(MultiRankUnsupportedError):
        npu_allreduce(loss)
    with pytest.raises(MultiRankUnsupportedError):
        NPUStrategy()


def test_npu_allreduce_and_allreduce_values():
    t = tf.constant([1.0, -2.0])
    sparse = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    mean, total = npu_allreduce([t, t], "mean"), npu_allreduce(t, "sum")
    gathered = npu_allreduce([sparse])[0]
    assert isinstance(gathered, tf.IndexedSlices)
    with v1.Session() as sess:
        outs = sess.run(mean + [total, npu_optimizer.allreduce(t), npu_optimizer.allreduce(t, False),
                                gathered.values])
    for out in outs[:5]:
        np.testing.assert_array_equal(out, [1.0, -2.0])
    np.testing.assert_array_equal(outs[5], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="reduction"):
        npu_allreduce(t, "avg")


def test_wrapper_function_patches_in_place_and_trains():
    w, loss = _problem()
    opt = v1.train.GradientDescentOptimizer(0.02)
    assert npu_distributed_optimizer_wrapper(opt) is opt
    train = opt.minimize(loss)
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        before = sess.run(loss)
        for _ in range(50):
            sess.run(train)
        assert sess.run(loss) < before * 0.05


def test_keras_distribute_optimizer_trains_keras_model():
    rng = np.random.RandomState(0)
    x = rng.randn(128, 3).astype(np.float32)
    y = x @ np.array([[1.0], [2.0], [-1.0]], np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,), use_bias=False)])
    model.compile(optimizer=KerasDistributeOptimizer(tf.keras.optimizers.legacy.SGD(0.1)), loss="mse")
    history = model.fit(x, y, epochs=30, batch_size=32, verbose=0,
                        callbacks=[NPUBroadcastGlobalVariablesCallback(0)])
    assert history.history["loss"][-1] < 1e-3


def test_strategy_is_one_cpu_device_and_checks_device():
    strategy = NPUStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert isinstance(strategy, tf.compat.v1.distribute.Strategy)
    with pytest.raises(ValueError, match="/cpu:0"):
        NPUStrategy("/gpu:0")


def test_npu_dynamic_rnn_is_time_major_static_unroll():
    inputs = tf.ones([4, 2, 3])
    cell = v1.nn.rnn_cell.BasicRNNCell(5)
    outputs, state = npu_dynamic_rnn(cell, inputs, dtype=tf.float32)
    assert outputs.shape.as_list() == [4, 2, 5]
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        out, last = sess.run([outputs, state])
    np.testing.assert_allclose(out[-1], last, rtol=1e-6)


def test_strategy_over_several_ranks_counts_them_and_shards_by_rank(monkeypatch, tmp_path):
    # issue 25 item 5: NPUStrategy refused several ranks; the real one is a one-device
    # strategy whose replica count is the rank count, datasets sharded by rank
    import json
    from hccl.manage import ranktable
    table = tmp_path / "table.json"
    table.write_text(json.dumps(ranktable.generate_table(2)))
    for name, value in (("RANK_SIZE", "2"), ("RANK_ID", "1"), ("RANK_TABLE_FILE", str(table)),
                        ("JOB_ID", "strategy-test")):
        monkeypatch.setenv(name, value)
    strategy = NPUStrategy()
    assert strategy.num_replicas_in_sync == 2
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(6))
    for name in ("RANK_SIZE", "RANK_ID", "RANK_TABLE_FILE"):   # a plain session reads it
        monkeypatch.delenv(name)
    with v1.Session() as sess:
        it = dataset.make_initializable_iterator()
        nxt = it.get_next()
        sess.run(it.initializer)
        got = [sess.run(nxt) for _ in range(3)]
    assert [int(v) for v in got] == [1, 3, 5]    # rank 1 of 2
