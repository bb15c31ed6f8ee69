"""The Session hook under hostile use: imported twice, patched twice, undone, sessions from
many threads at once, nested sessions, config None, one config shared by many sessions.

What the real adapter does (its `set_npu_default_config`, see `_session_patch` docstring): it
edits the caller's ConfigProto in place (adds one NpuOptimizer when there is none, then
memory_optimization OFF; allow_soft_placement on, log_device_placement off, remapping OFF,
XLA OFF) and creates a fresh ConfigProto when the config is None. Anything beyond that (a
second NpuOptimizer, a changed parameter_map, an edited proto on a refused config) is a
modification behind the caller's back.
"""
import importlib
import sys
import threading

import pytest
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2

from npu_bridge.hooks import state as _state
from npu_bridge.ge import records as _records
from npu_bridge.hooks import session_patch as _session_patch
from npu_bridge.ge import NpuConfigError

RewriterConfig = rewriter_config_pb2.RewriterConfig
JOIN_TIMEOUT = 120


@pytest.fixture(autouse=True)
def patched():
    _session_patch.patch()
    _session_patch.clear_caches()
    yield
    _session_patch.patch()


def _graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(3.0) * 2
    return g, c


def _npu(config):
    return [o for o in config.graph_options.rewrite_options.custom_optimizers
            if o.name == "NpuOptimizer"]


def _expected_after_real_adapter(config):
    """What the real adapter makes of a copy of `config` (the documented edits only)."""
    out = config_pb2.ConfigProto()
    out.CopyFrom(config)
    rw = out.graph_options.rewrite_options
    if not _npu(out):
        rw.custom_optimizers.add().name = "NpuOptimizer"
        rw.memory_optimization = RewriterConfig.OFF
    out.allow_soft_placement = True
    out.log_device_placement = False
    rw.remapping = RewriterConfig.OFF
    out.graph_options.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return out


def _join_all(threads):
    for t in threads:
        t.join(JOIN_TIMEOUT)
    assert not any(t.is_alive() for t in threads), "deadlock: threads still alive"


# ------------------------------------------------------------------------ import / patch
def test_import_npu_init_twice_and_reload_wraps_once():
    import npu_bridge.npu_init as first
    import npu_bridge.npu_init as second
    assert first is second
    init = tf.compat.v1.Session.__dict__["__init__"]
    importlib.reload(sys.modules["npu_bridge.npu_init"])
    assert tf.compat.v1.Session.__dict__["__init__"] is init       # not wrapped again
    original = init._npu_bridge_original
    assert not hasattr(original, "_npu_bridge_original")            # one layer only
    run = tf.compat.v1.Session.run
    assert not hasattr(run._npu_bridge_original, "_npu_bridge_original")


def test_patch_twice_unpatch_twice_then_patch_again():
    assert _session_patch.patch() is False
    assert _session_patch.patch() is False
    assert _session_patch.unpatch() is True
    assert _session_patch.unpatch() is False
    config = config_pb2.ConfigProto()
    g, c = _graph()
    with tf.compat.v1.Session(graph=g, config=config) as sess:    # unpatched: stock TF
        assert sess.run(c) == 6.0
    assert config == config_pb2.ConfigProto()                     # untouched
    assert _session_patch.patch() is True
    with tf.compat.v1.Session(graph=g, config=config) as sess:
        assert sess.run(c) == 6.0
    assert config == _expected_after_real_adapter(config_pb2.ConfigProto())


def test_patch_and_unpatch_from_many_threads_leave_one_layer():
    errors = []

    def flip(i):
        try:
            for _ in range(50):
                (_session_patch.patch if i % 2 else _session_patch.unpatch)()
        except Exception as err:  # pylint: disable=broad-except
            errors.append(err)

    threads = [threading.Thread(target=flip, args=(i,), daemon=True) for i in range(8)]
    for t in threads:
        t.start()
    _join_all(threads)
    assert not errors
    _session_patch.patch()
    init = tf.compat.v1.Session.__dict__["__init__"]
    assert not hasattr(init._npu_bridge_original, "_npu_bridge_original")
    assert not hasattr(tf.compat.v1.Session.run._npu_bridge_original, "_npu_bridge_original")


# ------------------------------------------------------------------------ configs
def test_config_none_gets_a_fresh_npu_config():
    g, c = _graph()
    before = len(_records.records())
    with tf.compat.v1.Session(graph=g, config=None) as sess:
        assert sess.run(c) == 6.0
        assert len(_npu(sess._config)) == 1
        assert sess._config.allow_soft_placement
    assert len(_records.records()) == before + 1


def test_shared_config_between_sessions_is_edited_once():
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.memory_optimization = RewriterConfig.HEURISTICS
    expected = _expected_after_real_adapter(config)
    sessions = []
    for _ in range(5):
        g, c = _graph()
        sessions.append(tf.compat.v1.Session(graph=g, config=config))
    try:
        assert config == expected
        assert len(_npu(config)) == 1
        options = [_state.of(s).ge_options.to_json() for s in sessions]
        assert len(set(options)) == 1
    finally:
        for s in sessions:
            s.close()


def test_user_parameter_map_is_never_changed():
    config = config_pb2.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["static_memory_policy"].i = 1
    op.parameter_map["precision_mode"].s = b"allow_mix_precision"
    config.graph_options.rewrite_options.memory_optimization = RewriterConfig.HEURISTICS
    expected = _expected_after_real_adapter(config)
    g, c = _graph()
    with tf.compat.v1.Session(graph=g, config=config):
        pass
    assert config == expected   # memory_optimization kept: the NpuOptimizer was the user's


def test_refused_config_is_left_exactly_as_given():
    config = config_pb2.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["static_memory_policy"].i = 9
    before = config.SerializeToString(deterministic=True)
    g, _ = _graph()
    for _ in range(2):  # the second time from the cache path
        with pytest.raises(NpuConfigError):
            tf.compat.v1.Session(graph=g, config=config)
        assert config.SerializeToString(deterministic=True) == before


def test_nested_sessions_and_interactive_session():
    g1, c1 = _graph()
    g2, c2 = _graph()
    with tf.compat.v1.Session(graph=g1) as outer:
        with tf.compat.v1.Session(graph=g2) as inner:
            assert inner.run(c2) == 6.0
            assert outer.run(c1) == 6.0
        assert outer.run(c1) == 6.0
    with g1.as_default():
        inter = tf.compat.v1.InteractiveSession(graph=g1)
        try:
            assert inter.run(c1) == 6.0
            assert len(_npu(inter._config)) == 1
        finally:
            inter.close()


# ------------------------------------------------------------------------ threads
@pytest.mark.parametrize("shared", [False, True], ids=["own-configs", "one-shared-config"])
def test_sessions_opened_from_many_threads_at_once(shared):
    """16 threads open sessions at the same moment (own configs, or one shared config that
    has no NpuOptimizer yet: the in-place edit must still add exactly one)."""
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # switch threads as often as possible: races show up
    try:
        _open_from_threads(shared)
    finally:
        sys.setswitchinterval(old_interval)


def _open_from_threads(shared):
    for attempt in range(5):
        shared_config = config_pb2.ConfigProto()
        barrier = threading.Barrier(16)
        results, errors = [], []
        lock = threading.Lock()

        def opener():
            try:
                config = shared_config if shared else config_pb2.ConfigProto()
                g, c = _graph()
                barrier.wait(JOIN_TIMEOUT)
                with tf.compat.v1.Session(graph=g, config=config) as sess:
                    value = sess.run(c)
                with lock:
                    results.append((value, len(_npu(config))))
            except Exception as err:  # pylint: disable=broad-except
                with lock:
                    errors.append(err)

        threads = [threading.Thread(target=opener, daemon=True) for _ in range(16)]
        for t in threads:
            t.start()
        _join_all(threads)
        assert not errors, errors
        assert results == [(6.0, 1)] * 16
        if shared:
            assert shared_config == _expected_after_real_adapter(config_pb2.ConfigProto())
