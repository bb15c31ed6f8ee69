"""hccl package (ranks, groups, split strategy) and hccl_ops with one rank / several ranks."""
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from hccl.manage import api
from hccl.split import api as split
from npu_bridge.hccl import hccl_ops

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in ("RANK_SIZE", "RANK_ID", "LOCAL_RANK_SIZE", "LOCAL_RANK_ID"):
        monkeypatch.delenv(name, raising=False)
    api._reset_groups_for_tests()
    split._reset_for_tests()
    with tf.Graph().as_default():
        yield


def test_defaults_without_environment():
    assert (api.get_rank_size(), api.get_rank_id(), api.get_local_rank_size(), api.get_local_rank_id()) == (1, 0, 1, 0)


def test_environment_ranks_and_groups(monkeypatch):
    monkeypatch.setenv("RANK_SIZE", "16")
    monkeypatch.setenv("RANK_ID", "9")
    monkeypatch.setenv("LOCAL_RANK_SIZE", "8")
    assert api.get_rank_size() == 16 and api.get_rank_id() == 9
    assert api.get_local_rank_size() == 8 and api.get_local_rank_id() == 1
    api.create_group("pair", 2, [3, 9])
    assert api.get_rank_size("pair") == 2 and api.get_rank_id("pair") == 1
    assert api.get_world_rank_from_group_rank("pair", 0) == 3
    assert api.get_group_rank_from_world_rank(9, "pair") == 1
    with pytest.raises(ValueError, match="already exists"):
        api.create_group("pair", 1, [9])
    with pytest.raises(ValueError, match="not in rank_ids"):
        api.create_group("others", 2, [0, 1])
    with pytest.raises(ValueError, match="not equal"):
        api.create_group("bad", 3, [9])
    with pytest.raises(ValueError, match="not below RANK_SIZE"):
        api.create_group("bad", 2, [9, 16])
    api.destroy_group("pair")
    with pytest.raises(ValueError, match="does not exist"):
        api.get_rank_size("pair")


def test_group_name_and_rank_id_checks(monkeypatch):
    with pytest.raises(ValueError, match="empty"):
        api.get_rank_size("")
    with pytest.raises(ValueError, match="maximum is 127"):
        api.get_rank_size("g" * 128)
    with pytest.raises(ValueError, match="python str"):
        api.get_rank_id(3)
    monkeypatch.setenv("RANK_ID", "2")
    with pytest.raises(ValueError, match="not below RANK_SIZE"):
        api.get_rank_id()


def test_split_by_idx_validation_and_record():
    split.set_split_strategy_by_idx([20, 100, 159])
    assert split.get_split_strategy() == ("idx", [20, 100, 159])
    for bad, message in [([], "length is 0"), ((1, 2), "python list"), ([5, 5], "not ascending"),
                         ([9, 3], "not ascending"), ([-1], "out of range"), ([2 ** 32], "out of range"),
                         ([1.0], "not python int"), ([True], "not python int"), (list(range(9)), "at most 8")]:
        with pytest.raises(ValueError, match=message):
            split.set_split_strategy_by_idx(bad)
    with pytest.raises(ValueError, match="does not exist"):
        split.set_split_strategy_by_idx([1], group="nogroup")


def test_split_by_size_validation_and_precedence():
    split.set_split_strategy_by_idx([10])
    split.set_split_strategy_by_size([60, 20, 20.0])
    assert split.get_split_strategy() == ("size", [60, 20, 20.0])
    for bad, message in [([50, 40], "not 100"), ([], "length is 0"), ([110, -10], "negative"),
                         (["50", 50], "not python int or float"), ([12.5] * 8 + [0], "at most 8")]:
        with pytest.raises(ValueError, match=message):
            split.set_split_strategy_by_size(bad)


def test_hccl_api_imports_neither_tensorflow_nor_npu_bridge():
    code = ("import sys; import hccl.manage.api, hccl.split.api; "
            "print('tensorflow' in sys.modules, 'npu_bridge' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_one_rank_collectives_are_exact():
    value = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    t = tf.constant(value)
    results = [hccl_ops.allreduce(t, r) for r in ("sum", "prod", "max", "min")]
    gathered = hccl_ops.allgather(t, 1)
    scattered = hccl_ops.reduce_scatter(t, "sum", 1)
    reduced = hccl_ops.reduce(t, "max", 0)
    broadcast = hccl_ops.broadcast([t, t * 2], root_rank=0)
    assert isinstance(broadcast, list) and len(broadcast) == 2
    single = hccl_ops.broadcast(tensor=t, root_rank=0)
    a2a = hccl_ops.all_to_all_v(t, [5], [2], [5], [0])
    a2avc = hccl_ops.all_to_all_v_c(t, [[4]], 0)
    with v1.Session() as sess:
        outs = sess.run(results + [gathered, scattered, reduced, single[0]] + broadcast + [a2a, a2avc])
    for out in outs[:9]:
        np.testing.assert_array_equal(out, value)
    np.testing.assert_array_equal(outs[9], value * 2)
    np.testing.assert_array_equal(outs[10], value.reshape(-1)[2:7])
    np.testing.assert_array_equal(outs[11], value.reshape(-1)[:4])


def test_allreduce_gradient_flows():
    x = tf.constant([1.0, 2.0])
    y = tf.reduce_sum(hccl_ops.allreduce(x * x, "sum"))
    with v1.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.gradients(y, x)[0]), [2.0, 4.0])


def test_argument_checks():
    t = tf.constant([1.0])
    with pytest.raises(ValueError, match="reduction"):
        hccl_ops.allreduce(t, "mean")
    with pytest.raises(ValueError, match="fusion"):
        hccl_ops.allreduce(t, "sum", fusion=3)
    with pytest.raises(ValueError, match="fusion"):
        hccl_ops.broadcast([t], 0, fusion=1)
    with pytest.raises(ValueError, match="root_rank"):
        hccl_ops.broadcast([t], 1)
    with pytest.raises(ValueError, match="rank_size"):
        hccl_ops.allgather(t, 2)
    with pytest.raises(ValueError, match="another rank"):
        hccl_ops.send(t, 0, 0)
    with pytest.raises(ValueError, match="another rank"):
        hccl_ops.receive([1], tf.float32, 0, 0)
    with pytest.raises(NotImplementedError, match="RDMA"):
        hccl_ops.remote_read(t, tf.float32)


def test_bad_all_to_all_v_counts_fail_at_run_time():
    out = hccl_ops.all_to_all_v(tf.range(6.0), [3], [0], [2], [0])
    with v1.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="recv_counts"):
        sess.run(out)


@pytest.mark.parametrize("call", [
    lambda t: hccl_ops.allreduce(t, "sum"),
    lambda t: hccl_ops.broadcast([t], 0),
    lambda t: hccl_ops.allgather(t, 2),
    lambda t: hccl_ops.reduce_scatter(t, "sum", 2),
    lambda t: hccl_ops.reduce(t, "sum", 0),
    lambda t: hccl_ops.send(t, 0, 1),
])
def test_several_ranks_need_a_real_engine(monkeypatch, call):
    monkeypatch.setenv("RANK_SIZE", "2")
    with pytest.raises(hccl_ops.MultiRankUnsupportedError, match="multi-process"):
        call(tf.constant([1.0]))
