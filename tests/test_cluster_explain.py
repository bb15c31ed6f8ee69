"""`cluster.explain`: what a rank whose collective timed out says about the other ranks, from
the job folder's notes (no servers: the notes are written here as the ranks would)."""
import json
import socket
import types

import npu_bridge.npu_init  # noqa: F401  (the TF 1.x mode)
import pytest
import tensorflow as tf

from npu_bridge.hooks import cluster


class _Op:
    type = "CollectiveReduceV2"
    name = "HcomAllReduce_24"

    def get_attr(self, name):
        return {"group_key": cluster.WORLD_KEY, "instance_key": 7}[name]


@pytest.fixture
def listening():
    """A listening socket: what a running rank's TensorFlow server is to the others."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    yield sock
    sock.close()


@pytest.fixture
def two_rank_job(tmp_path, monkeypatch, listening):
    address = "127.0.0.1:%d" % listening.getsockname()[1]
    job = types.SimpleNamespace(rank=0, size=2, job_dir=str(tmp_path), timeout=8.0,
                                addresses=["127.0.0.1:1", address])
    monkeypatch.setattr(cluster, "job", lambda: job)
    monkeypatch.setitem(cluster._CLUSTER.built, (cluster.WORLD_KEY, 7),   # pylint: disable=protected-access
                        "hccl_ops.allreduce HcomAllReduce_24 (group hccl_world_group, ranks [0, 1])")
    (tmp_path / "rank0.built").write_text(json.dumps([cluster.WORLD_KEY, 7, "allreduce"]) + "\n")
    return tmp_path


def _explain():
    err = tf.errors.DeadlineExceededError(None, _Op(), "Operation timed out")
    return cluster.explain(err, None, None).message


def test_a_collective_built_on_rank_0_only_names_rank_1_while_it_runs(two_rank_job):
    text = _explain()
    assert "was built on rank(s) [0] but not on rank(s) [1]" in text, text


def test_it_still_names_rank_1_when_rank_1_finished_its_script_and_exited(two_rank_job):
    # rank 1 ran its whole script without building the collective and left its exit barrier
    # (bounded by the same timeout) just before rank 0's collective timed out: still missing
    (two_rank_job / "rank1.done").write_text("1.0\n")
    (two_rank_job / "rank1.exit").write_text("exit code 0\n")
    text = _explain()
    assert "rank 1 ended (exit code 0) while rank 0 waited in a collective" in text, text
    assert "was built on rank(s) [0] but not on rank(s) [1]" in text, text


def test_a_rank_that_crashed_before_finishing_is_not_called_missing(two_rank_job):
    # rank 1 died mid-script: its end is the news, not a graph built on some ranks only
    (two_rank_job / "rank1.exit").write_text("killed by SIGKILL\n")
    text = _explain()
    assert "rank 1 ended (killed by SIGKILL) while rank 0 waited in a collective" in text, text
    assert "but not on rank(s)" not in text and "did not complete" in text, text


def test_two_group_names_with_one_key_are_an_error_naming_both(monkeypatch):
    # issue 25 item 5: TensorFlow's group keys are a hash of the name mod 8190, and two groups
    # sharing one would pair collectives of different groups (or hang): refused instead
    import zlib
    monkeypatch.setattr(cluster._CLUSTER, "group_names", {})   # pylint: disable=protected-access
    by_key = {}
    for i in range(20000):
        name = "group_%d" % i
        key = 2 + zlib.crc32(name.encode("utf-8")) % (2 ** 13 - 2)
        if key in by_key:
            first, second = by_key[key], name
            break
        by_key[key] = name
    key = cluster.group_key(first)
    assert cluster.group_key(first) == key       # the same group again: the same key
    with pytest.raises(cluster.CollectiveError) as info:
        cluster.group_key(second)
    message = str(info.value)
    assert "%r and %r" % (first, second) in message and "group key %d" % key in message
    assert "rename one" in message
    assert cluster.group_key("hccl_world_group") == cluster.WORLD_KEY


def test_without_a_launcher_a_killed_rank_is_named_by_its_server_gone(two_rank_job, listening):
    # issue 25 item 5: no launcher notes how a SIGKILLed rank ended; its server is gone
    listening.close()
    text = _explain()
    assert "rank 1 ended (gone: its TensorFlow server at 127.0.0.1:" in text, text
    assert "no longer accepts connections, killed or crashed) while rank 0 waited" in text, text
    assert "but not on rank(s)" not in text, text


def test_a_rank_whose_script_raised_is_named_failed_not_finished(two_rank_job):
    # rank 1's script raised; its exit barrier noted it and waits (its process still runs)
    (two_rank_job / "rank1.crashed").write_text("1.5 RuntimeError: rank 1 fails on purpose\n")
    (two_rank_job / "rank1.done").write_text("1.6\n")
    text = _explain()
    assert ("rank 1 failed in its script (RuntimeError: rank 1 fails on purpose) while rank 0 "
            "waited in a collective") in text, text
    assert "finished its script" not in text and "but not on rank(s)" not in text, text
    (two_rank_job / "rank1.exit").write_text("exit code 1\n")   # and once it has ended
    text = _explain()
    assert ("rank 1 failed in its script (RuntimeError: rank 1 fails on purpose) and ended "
            "(exit code 1) while rank 0 waited in a collective") in text, text
