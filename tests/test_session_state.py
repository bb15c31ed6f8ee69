"""The sessions' state (`npu_bridge.hooks.state`): one entry per patched session, found by the
session itself, gone with it; GE left exactly once per session (on close, or when collected
unclosed); the cheap environment reader session creation keys its caches with."""
import gc
import os
import weakref

import pytest
import tensorflow as tf

from npu_bridge.ge.initialization import GE_INITIALIZATION
from npu_bridge.hooks import cluster as _cluster
from npu_bridge.hooks import session_patch as _session_patch
from npu_bridge.hooks import state as _state
from npu_bridge.hooks.lazy import LazyModule


# the check-only patch, caches and records cleared around each test; an NpuOptimizer config
from test_ge_initialization import config as npu_config, patched  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("patched")


@pytest.fixture
def leaves(monkeypatch):
    """The numbers GE_INITIALIZATION.leave was called with, in order."""
    calls = []
    leave = GE_INITIALIZATION.leave

    def counting(number):
        calls.append(number)
        return leave(number)

    monkeypatch.setattr(GE_INITIALIZATION, "leave", counting)
    return calls


def test_closed_then_collected_leaves_ge_once(leaves):
    session = tf.compat.v1.Session(config=npu_config())
    number = _state.of(session).ge_number
    assert number is not None and _session_patch.ge_initialization() is not None
    session.close()
    assert leaves == [number] and _session_patch.ge_initialization() is None
    assert _state.of(session).ge_number is None   # left: nothing left to leave
    ref = weakref.ref(session)
    del session
    gc.collect()
    assert ref() is None
    assert leaves == [number]   # TensorFlow's __del__ closes again; the collection too: no-ops
    assert not any(entry[0]() is None for entry in _state._SESSIONS.values())


def test_collected_unclosed_leaves_ge_and_drops_its_state(leaves):
    session = tf.compat.v1.Session(config=npu_config())
    number, key = _state.of(session).ge_number, id(session)
    assert key in _state._SESSIONS
    del session
    gc.collect()
    assert leaves == [number] and _session_patch.ge_initialization() is None
    assert key not in _state._SESSIONS


def test_state_is_found_by_the_session_not_by_its_id():
    session = tf.compat.v1.Session(config=npu_config())
    try:
        state = _state.of(session)
        assert state is not None and state.record is not None and state.created_at.startswith(
            "test_session_state.py:")
        other = object()
        # an entry under another object's id is not that object's state
        entry = _state._SESSIONS[id(session)]
        _state._SESSIONS[id(other)] = entry
        try:
            assert _state.of(other) is None and _state.guard_policy(other) is None
        finally:
            del _state._SESSIONS[id(other)]
    finally:
        session.close()


def test_not_a_session():
    assert _state.of(3) is None and _state.of(None) is None and not _state.is_cluster([])
    with pytest.raises(TypeError):
        _state.attach(3, cluster=True)


def test_attach_adds_fields_to_a_registered_state():
    class Session:
        pass

    s = Session()
    state = _state.register(s, _state.SessionState(created_at="x.py:1"))
    assert _state.attach(s, cluster=True) is state and state.cluster and _state.is_cluster(s)
    del s
    gc.collect()
    assert state not in [entry[1] for entry in _state._SESSIONS.values()]


def test_environ_reader_sees_every_change(monkeypatch):
    read = _state.environ(("NPU_BRIDGE_TEST_A", "NPU_BRIDGE_TEST_B"))
    monkeypatch.delenv("NPU_BRIDGE_TEST_A", raising=False)
    monkeypatch.delenv("NPU_BRIDGE_TEST_B", raising=False)
    unset = read()
    assert unset == (None, None)
    monkeypatch.setenv("NPU_BRIDGE_TEST_A", "1")
    one = read()
    assert one != unset and one[1] is None
    monkeypatch.setenv("NPU_BRIDGE_TEST_A", "2")
    assert read() not in (unset, one)
    monkeypatch.setenv("NPU_BRIDGE_TEST_A", "1")
    assert read() == one
    # os.environ replaced wholesale (as some tests do): read as a mapping
    monkeypatch.setattr(os, "environ", {"NPU_BRIDGE_TEST_B": "x"})
    assert read() == (None, "x")


@pytest.mark.parametrize("value,expected", [
    (None, False), ("", False), ("1", False), (" 2 ", True), ("8", True), ("two", False)])
def test_cluster_active(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("RANK_SIZE", raising=False)
    else:
        monkeypatch.setenv("RANK_SIZE", value)
    assert _cluster.active() is expected


def test_lazy_module_imports_once(monkeypatch):
    import importlib
    lazy = LazyModule("json")
    assert lazy.dumps([1]) == "[1]"
    monkeypatch.setattr(importlib, "import_module", lambda name: pytest.fail("imported again"))
    assert lazy.loads("[2]") == [2]
