"""The Session patch: config injection, resolution, records, the static-memory concurrency
guard, and iteration loops (set_iteration_per_loop)."""
import contextlib
import threading
import time
from unittest import mock

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.hooks import state as _state
from npu_bridge.ge import records as _records
from npu_bridge.hooks import session_patch as _session_patch, session_guard
from npu_bridge.estimator.npu import util
from npu_bridge.ge import Diagnostic, NpuConfigError
from npu_bridge.hooks.session_guard import GUARD

tf.compat.v1.disable_eager_execution()


@pytest.fixture(autouse=True)
def patched():
    _session_patch.patch()
    _session_patch.clear_caches()
    yield
    _session_patch.patch()


from npu_protos import proto  # noqa: E402


def npu_optimizers(config):
    return [o for o in config.graph_options.rewrite_options.custom_optimizers if o.name == "NpuOptimizer"]


# ---------------------------------------------------------------------------------------------
# patch / unpatch

def test_patch_is_idempotent_and_reversible():
    Session = tf.compat.v1.Session
    patched_init = Session.__dict__["__init__"]
    assert _session_patch.is_patched()
    assert _session_patch.patch() is False                      # second call: nothing changes
    assert Session.__dict__["__init__"] is patched_init
    original = patched_init._npu_bridge_original
    assert _session_patch.unpatch() is True
    assert not _session_patch.is_patched()
    assert Session.__dict__["__init__"] is original
    assert tf.compat.v1.InteractiveSession.__dict__["__init__"] is not patched_init
    assert not hasattr(tf.compat.v1.Session.run, "_npu_bridge_original")
    assert _session_patch.unpatch() is False
    # Unpatched: the caller's config is not touched any more.
    config = tf.compat.v1.ConfigProto()
    with tf.Graph().as_default():
        with tf.compat.v1.Session(config=config):
            pass
    assert npu_optimizers(config) == []
    assert _session_patch.patch() is True
    assert tf.compat.v1.Session.__dict__["__init__"] is not original


# ---------------------------------------------------------------------------------------------
# what happens to the caller's ConfigProto (as the real decorator_tf_session)

def test_config_edited_in_place_like_the_real_adapter():
    config = tf.compat.v1.ConfigProto()
    with tf.Graph().as_default(), tf.compat.v1.Session(config=config) as sess:
        assert sess._config is config
    rewrite = config.graph_options.rewrite_options
    assert len(npu_optimizers(config)) == 1
    assert config.allow_soft_placement and not config.log_device_placement
    assert rewrite.remapping == RewriterConfig.OFF
    assert rewrite.memory_optimization == RewriterConfig.OFF
    assert config.graph_options.optimizer_options.global_jit_level == tf.compat.v1.OptimizerOptions.OFF


def test_existing_npu_optimizer_is_kept_and_memory_optimization_untouched():
    config = proto(precision_mode="allow_mix_precision")
    with tf.Graph().as_default(), tf.compat.v1.Session(config=config):
        pass
    (op,) = npu_optimizers(config)
    assert op.parameter_map["precision_mode"].s == b"allow_mix_precision"
    # The real adapter turns memory_optimization off only when it adds the optimizer itself.
    assert config.graph_options.rewrite_options.memory_optimization == RewriterConfig.DEFAULT_MEM_OPT


def test_no_config_and_positional_config():
    graph = tf.Graph()
    with graph.as_default():
        with tf.compat.v1.Session() as sess:
            assert len(npu_optimizers(sess._config)) == 1
        config = tf.compat.v1.ConfigProto()
        with tf.compat.v1.Session("", graph, config) as sess:
            assert sess._config is config and sess.graph is graph
        assert len(npu_optimizers(config)) == 1


def test_bad_config_raises_before_anything_is_done():
    config = proto(static_memory_policy=7)
    before = config.SerializeToString()
    count = len(_records.records())
    with tf.Graph().as_default():
        with pytest.raises(NpuConfigError) as info:
            tf.compat.v1.Session(config=config)
    assert any(d.option == "static_memory_policy" and d.severity == "error"
               for d in info.value.diagnostics)
    assert config.SerializeToString() == before        # caller's proto untouched
    # recorded as refused (npu-bridge run counts it even when the script catches the error)
    (rec,) = _records.records()[count:]
    assert rec["kind"] == "session" and rec["refused"] is True
    assert rec["options"] is info.value.ge_options
    assert [d.option for d in rec["options"].errors] == ["static_memory_policy"]


def test_refused_session_caught_by_the_script_is_still_recorded():
    count = len(_records.records())
    for policy in (7, 9):
        config = proto(static_memory_policy=policy, atomic_clean_policy=5)
        before = config.SerializeToString()
        with tf.Graph().as_default():
            try:
                tf.compat.v1.InteractiveSession(config=config)
            except NpuConfigError:
                pass
        assert config.SerializeToString() == before
    new = _records.records()[count:]
    assert [(r["kind"], r["refused"]) for r in new] == [("session", True)] * 2
    assert new[0]["name"].startswith("InteractiveSession#")
    assert {d.option for d in new[1]["options"].errors} == {"static_memory_policy",
                                                           "atomic_clean_policy"}
    # a good session next to them is recorded as not refused
    with tf.Graph().as_default():
        with tf.compat.v1.Session(config=proto(static_memory_policy=0)):
            pass
    assert _records.records()[-1]["refused"] is False


def test_each_session_is_recorded_with_its_resolved_options():
    count = len(_records.records())
    with tf.Graph().as_default():
        with tf.compat.v1.Session(config=proto(static_memory_policy=2, atomic_clean_policy=1)):
            pass
        isess = tf.compat.v1.InteractiveSession(config=proto(static_memory_policy=0))
        isess.close()
    new = _records.records()[count:]
    assert [r["kind"] for r in new] == ["session", "session"]
    assert new[0]["name"].startswith("Session#") and new[1]["name"].startswith("InteractiveSession#")
    assert new[0]["options"].global_options["ge.exec.staticMemoryPolicy"] == "2"
    assert new[0]["options"].session_options["ge.exec.atomicCleanPolicy"] == "1"
    assert new[1]["options"].global_options["ge.exec.staticMemoryPolicy"] == "0"


def test_warnings_are_logged_once():
    with mock.patch.object(tf.compat.v1.logging, "warning") as warning:
        with tf.Graph().as_default():
            for _ in range(3):
                with tf.compat.v1.Session(config=proto(static_memory_policy=1)):
                    pass
    policy_warnings = [c for c in warning.call_args_list if "static_memory_policy" in str(c)]
    assert len(policy_warnings) == 1, warning.call_args_list


def test_sessions_made_by_tf_helpers_get_the_npu_settings(tmp_path):
    count = len(_records.records())
    graph = tf.Graph()
    with graph.as_default():
        sess = tf.compat.v1.Session()              # session first, graph built afterwards
        x = tf.constant(2.0) * 4.0
        assert sess.run(x) == 8.0
        other = tf.compat.v1.Session()             # two sessions on one graph
        assert other.run(x) == 8.0
        sess.close()
        other.close()
        step = tf.compat.v1.train.get_or_create_global_step()
        inc = tf.compat.v1.assign_add(step, 1)
        with tf.compat.v1.train.MonitoredTrainingSession(checkpoint_dir=None) as mon:
            mon.run(inc)
        supervisor = tf.compat.v1.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                                                   save_summaries_secs=0)
        with supervisor.managed_session() as managed:
            managed.run(inc)
            assert len(npu_optimizers(managed._config)) == 1
    assert len(_records.records()) - count >= 4


# ---------------------------------------------------------------------------------------------
# the concurrency guard

def blocking_graph(policy):
    """A graph whose op `slow` blocks in Python until released, and an unrelated op `fast`."""
    started, release = threading.Event(), threading.Event()
    calls = []

    def block(x):
        calls.append(1)
        if len(calls) == 1:            # only the first execution blocks
            started.set()
            release.wait(30)
        return x

    graph = tf.Graph()
    with graph.as_default():
        slow = tf.compat.v1.py_func(block, [tf.constant(np.float32(1.0))], tf.float32)
        fast = tf.constant(2.0) * 3.0
    sess = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=policy))
    return sess, slow, fast, started, release


def run_in_thread(sess, fetch):
    out = {}

    def target():
        try:
            out["value"] = sess.run(fetch)
        except Exception as err:  # pylint: disable=broad-except
            out["error"] = err

    thread = threading.Thread(target=target)
    thread.start()
    return thread, out


@contextlib.contextmanager
def while_running(sess, slow, started, release):
    """Run `slow` in a thread for the duration of the block (it blocks until `release`);
    yields the thread's result dict, filled once the block has ended."""
    thread, out = run_in_thread(sess, slow)
    assert started.wait(30)
    try:
        yield out
    finally:
        release.set()
        thread.join(30)


@pytest.mark.parametrize("policy", [2, 4])
def test_guard_refuses_a_second_graph_under_policy_2_and_4(policy):
    sess, slow, fast, started, release = blocking_graph(policy)
    with while_running(sess, slow, started, release) as first:
        with pytest.raises(NpuConfigError) as info:
            sess.run(fast)
    assert first == {"value": 1.0}                     # the earlier run finished normally
    message = str(info.value)
    assert "static_memory_policy=%d" % policy in message
    (diag,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert diag.code == "NPB123" and diag.option == "static_memory_policy"
    assert _session_patch.executing_graphs() == 0
    assert sess.run(fast) == 6.0                       # sequential runs are fine
    sess.close()


def test_the_refusal_names_both_graphs_and_where_each_session_was_made():
    # issue 17 defect 10: NPB123 did not say which two graphs or sessions collided
    sess, slow, fast, started, release = blocking_graph(2)
    with while_running(sess, slow, started, release):
        with pytest.raises(NpuConfigError) as info:
            sess.run(fast)
    message = info.value.diagnostics[0].message
    here = "test_session_patch.py:"
    assert "this run (Session#" in message and "was refused while Session#" in message
    assert message.count("(created at %s" % here) == 2
    assert "fetches [%r]" % fast.name in message and "fetches [%r]" % slow.name in message
    assert message.count("graph 0x%x" % id(sess.graph)) == 2
    sess.close()


@pytest.mark.parametrize("policy", [0, 3])
def test_guard_never_refuses_under_policy_0_and_3(policy):
    sess, slow, fast, started, release = blocking_graph(policy)
    with while_running(sess, slow, started, release) as first:
        assert sess.run(fast) == 6.0                   # runs while `slow` executes
    assert first == {"value": 1.0}
    sess.close()


def test_guard_counts_graphs_across_sessions():
    sess, slow, _, started, release = blocking_graph(2)
    other_graph = tf.Graph()
    with other_graph.as_default():
        other_op = tf.constant(1)
    other = tf.compat.v1.Session(graph=other_graph, config=proto(static_memory_policy=2))
    with while_running(sess, slow, started, release):
        with pytest.raises(NpuConfigError):
            other.run(other_op)
    sess.close()
    other.close()


def test_same_graph_from_two_threads_is_not_refused():
    # One fetch set is one GE graph: GE serialises its executions, it is not two graphs.
    sess, slow, _, started, release = blocking_graph(2)
    with while_running(sess, slow, started, release) as first:
        assert sess.run(slow) == 1.0                   # second call does not block
    assert first == {"value": 1.0}
    sess.close()


def test_guard_state_is_clean_after_a_failing_run():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        checked = tf.debugging.assert_positive(x)
        ok = tf.constant(1)
    with tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checked, {x: -1.0})
        assert _session_patch.executing_graphs() == 0
        assert sess.run(ok) == 1


def test_graph_key_tells_subgraphs_apart():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.constant(1)
        b = tf.constant(2)
        p = tf.compat.v1.placeholder(tf.int32)
    key = _session_patch.graph_key
    assert key(graph, a, None) == key(graph, a, None)
    assert key(graph, a, None) != key(graph, b, None)
    assert key(graph, [a, b], None) == key(graph, [b, a], None)
    assert key(graph, {"x": a}, {p: 1}) != key(graph, {"x": a}, None)
    assert key(graph, a, None) != key(tf.Graph(), a, None)
    # each session builds its own GE graphs: the same subgraph run by two sessions is two
    assert key(graph, a, None, object()) != key(graph, a, None, object())


def test_two_sessions_running_one_graph_at_once_are_refused():
    """Two sessions of one tf.Graph, the same fetch, executing at the same time: each session
    has its own GE session and graphs (hicann/tensorflow SessionManager: one GE session per TF
    session), so GE would execute two graphs at once: refused under policy 2, as for two
    different graphs; one session's graph from two threads stays one graph (not refused)."""
    started, release = threading.Event(), threading.Event()

    def block(x):
        started.set()
        release.wait(30)   # were the second run let through, it would wait here, then fail
        return x
    graph = tf.Graph()
    with graph.as_default():
        slow = tf.compat.v1.py_func(block, [tf.constant(1.0)], tf.float32)
    first = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    second = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    with while_running(first, slow, started, release) as done:
        with pytest.raises(NpuConfigError):
            second.run(slow)
        thread, also = run_in_thread(first, slow)     # the first session's own graph again
        time.sleep(0.2)
        assert "error" not in also
    thread.join(30)
    assert done == {"value": 1.0} and also == {"value": 1.0}
    first.close()
    second.close()


# ---------------------------------------------------------------------------------------------
# iteration loops

def counting_graph():
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        x = tf.compat.v1.placeholder(tf.int64, [])
        train_op = tf.compat.v1.assign_add(step, x).op
    return graph, step, x, train_op


@pytest.mark.parametrize("policy", [0, 2])
def test_set_iteration_per_loop_runs_n_steps_per_run(policy):
    graph, step, x, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(static_memory_policy=policy,
                                                              iterations_per_loop=5)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 5)
        assert loop_op is not train_op and loop_op.name.startswith("IterationOp")
        for _ in range(4):
            sess.run(loop_op, {x: 1})
        assert sess.run(step) == 20
        # Inside other fetch structures too, with the last run's values returned.
        _, value = sess.run([loop_op, step], {x: 2})
        assert sess.run(step) == 30 and value in (28, 30)
        sess.run({"nested": [(loop_op,)]}, {x: 1})
        assert sess.run(step) == 35
        sess.run(train_op, {x: 1})                     # the plain op still does one step
        assert sess.run(step) == 36
        loop_var = graph.get_collection("npu_runconfig_iterations_per_loop")[0]
        assert sess.run(loop_var) == 4                 # the device counts N - 1
        assert _session_patch.executing_graphs() == 0


def test_set_iteration_per_loop_with_one_and_bad_arguments():
    graph, step, x, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        assert util.set_iteration_per_loop(sess, train_op, 1) is train_op
        with pytest.raises(ValueError, match="Operation"):
            util.set_iteration_per_loop(sess, step.value(), 5)
        with pytest.raises(ValueError, match="iterations_per_loop must be positive"):
            util.set_iteration_per_loop(sess, train_op, 0)
        with pytest.raises(TypeError, match="iterations_per_loop must be int"):
            util.set_iteration_per_loop(sess, train_op, 2.0)


def test_iteration_per_loop_class_registers_on_load():
    graph, step, x, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=3)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        loop = util.IterationPerLoop()
        loop_op = loop.create_iteration_per_loop_var(train_op)
        loop.load_iteration_per_loop_var(sess, 3)
        sess.run(loop_op, {x: 1})
        assert sess.run(step) == 3
        assert util.loop_iterations(loop_op) == 3
        util.register_loop_op(loop_op, 1)              # N == 1 removes the mark
        sess.run(loop_op, {x: 1})
        assert sess.run(step) == 4


def test_unpatched_session_runs_loop_op_once():
    graph, step, x, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=5)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 5)
        _session_patch.unpatch()
        try:
            sess.run(loop_op, {x: 1})
        finally:
            _session_patch.patch()
        assert sess.run(step) == 1


def test_forced_product_is_part_of_the_resolution_cache_key():
    products = pytest.importorskip("npu_bridge.ge.products")
    if not hasattr(products, "forced_product"):
        pytest.skip("npu_bridge.ge.forced_product not available")
    config = proto(soc_config="Ascend310P3")
    with tf.Graph().as_default():
        with tf.compat.v1.Session(config=config) as sess:
            assert _state.of(sess).ge_options.product == "atlas-inference"
        with products.forced_product("atlas-a2-training"):
            with tf.compat.v1.Session(config=config) as sess:
                assert _state.of(sess).ge_options.product == "atlas-a2-training"
        with tf.compat.v1.Session(config=config) as sess:
            assert _state.of(sess).ge_options.product == "atlas-inference"


# the guard through Session.make_callable (Keras graph mode) and partial_run

@pytest.mark.parametrize("policy", [2, 4])
def test_guard_watches_make_callable(policy):
    sess, slow, fast, started, release = blocking_graph(policy)
    slow_call, fast_call = sess.make_callable(slow), sess.make_callable(fast)
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("value", slow_call()))
    thread.start()
    assert started.wait(30)
    try:
        with pytest.raises(NpuConfigError) as info:     # a callable of another graph
            fast_call()
        with pytest.raises(NpuConfigError):              # a plain run of another graph
            sess.run(fast)
        assert info.value.diagnostics[0].code == "NPB123"
    finally:
        release.set()
        thread.join(30)
    assert out == {"value": 1.0}
    assert _session_patch.executing_graphs() == 0
    assert fast_call() == 6.0 and slow_call() == 1.0   # one after the other: fine
    # a callable and sess.run of the same fetches and feeds are one graph
    assert _session_patch.graph_key(sess.graph, fast, None) == \
        _session_patch.graph_key(sess.graph, fast, None)
    sess.close()


def test_make_callable_unguarded_under_policy_0_is_the_original_callable():
    sess, slow, fast, started, release = blocking_graph(0)
    call = sess.make_callable(fast)
    assert not getattr(call, "_npu_guarded", False)
    thread = threading.Thread(target=sess.make_callable(slow))
    thread.start()
    assert started.wait(30)
    try:
        assert call() == 6.0
    finally:
        release.set()
        thread.join(30)
    sess.close()


def test_make_callable_with_feeds_and_options_through_the_guard():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        y = x * 2.0
    with tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2)) as sess:
        call = sess.make_callable(y, [x], accept_options=True)
        assert getattr(call, "_npu_guarded", False)
        assert call(3.0) == 6.0
        assert call(4.0, options=tf.compat.v1.RunOptions()) == 8.0
        assert _session_patch.executing_graphs() == 0


def test_guard_watches_partial_run():
    sess, slow, fast, started, release = blocking_graph(2)
    with while_running(sess, slow, started, release) as first:
        handle = sess.partial_run_setup([fast], [])
        with pytest.raises(NpuConfigError):
            sess.partial_run(handle, fast)
    assert first == {"value": 1.0} and _session_patch.executing_graphs() == 0
    handle = sess.partial_run_setup([fast], [])
    assert sess.partial_run(handle, fast) == 6.0
    sess.close()


# ---------------------------------------------------------------------------------------------
# TensorFlow's CPU session gets a copy without the NPU-only rewrite settings

def _configs_given_to_tf():
    """Patch BaseSession.__init__ (below the wrapper) to record the config TF receives."""
    seen = []
    original = tf.compat.v1.Session.__mro__[1].__init__

    def spy(self, target="", graph=None, config=None):
        seen.append(config)
        return original(self, target, graph, config)

    return seen, mock.patch.object(tf.compat.v1.Session.__mro__[1], "__init__", spy)


def test_tf_gets_a_cpu_copy_caller_keeps_the_npu_config():
    from npu_bridge.estimator.npu.npu_config import NPURunConfig, render_session_config
    user = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1)
    user.graph_options.rewrite_options.optimizers.append("constfold")
    user.graph_options.rewrite_options.custom_optimizers.add().name = "MyOptimizer"
    config = render_session_config(NPURunConfig(session_config=user, iterations_per_loop=1))
    before = config.SerializeToString(deterministic=True)
    seen, spy = _configs_given_to_tf()
    graph = tf.Graph()
    with graph.as_default():
        c = tf.constant(2.0) * 3
    with spy:
        for _ in range(2):   # the second creation is a cache hit: same copy
            with tf.compat.v1.Session(graph=graph, config=config) as sess:
                assert sess.run(c) == 6.0
                assert sess._config is config                       # what the user sees
    assert config.SerializeToString(deterministic=True) == before   # the NPU config, unchanged
    assert len(seen) == 2 and seen[0] is seen[1] and seen[0] is not config
    cpu = seen[0]
    rewrite = cpu.graph_options.rewrite_options
    assert [o.name for o in rewrite.custom_optimizers] == ["MyOptimizer"]
    assert list(rewrite.optimizers) == ["constfold"]                # the caller's own list
    assert rewrite.remapping == RewriterConfig.DEFAULT
    assert rewrite.memory_optimization == RewriterConfig.DEFAULT_MEM_OPT
    assert cpu.intra_op_parallelism_threads == 1 and cpu.allow_soft_placement
    # the NPU side is what the adapter writes
    npu_rewrite = config.graph_options.rewrite_options
    assert npu_rewrite.optimizers[-1] == "GradFusionOptimizer"
    assert npu_rewrite.remapping == RewriterConfig.OFF
    assert len(npu_optimizers(config)) == 1


def test_changed_config_is_resolved_again_and_gets_a_new_copy():
    config = proto(static_memory_policy=0)
    seen, spy = _configs_given_to_tf()
    with spy:
        tf.compat.v1.Session(graph=tf.Graph(), config=config).close()
        npu_optimizers(config)[0].parameter_map["static_memory_policy"].i = 9   # invalid now
        with pytest.raises(NpuConfigError):
            tf.compat.v1.Session(graph=tf.Graph(), config=config)
        npu_optimizers(config)[0].parameter_map["static_memory_policy"].i = 2
        sess = tf.compat.v1.Session(graph=tf.Graph(), config=config)
        assert _state.guard_policy(sess) == "2"
        sess.close()
    assert len(seen) == 2 and seen[0] is not seen[1]
    assert not npu_optimizers(seen[1])


# run-time refusals are recorded with the session's configuration (npu-bridge run counts them)

def test_guard_refusal_is_recorded_once_per_graph_pair_with_the_session():
    sess, slow, fast, started, release = blocking_graph(2)
    other_graph = tf.Graph()
    with other_graph.as_default():
        other_op = tf.constant(1)
        other_op2 = tf.constant(2)
    other = tf.compat.v1.Session(graph=other_graph, config=proto(static_memory_policy=2))
    count = len(_records.records())
    with while_running(sess, slow, started, release):
        for _ in range(50):                            # a script retrying in a loop
            with pytest.raises(NpuConfigError):
                other.run(other_op)
        with pytest.raises(NpuConfigError):            # another graph of the same session
            other.run(other_op2)
        with pytest.raises(NpuConfigError):            # a graph of the executing session
            sess.run(fast)
    new = _records.records()[count:]
    assert new == []                                   # no new configuration, only errors
    (first,) = [r for r in _records.records() if r is _state.of(sess).record]
    (second,) = [r for r in _records.records() if r is _state.of(other).record]
    # each refusal is attached to the configuration of the session that hit it
    codes = [d.code for d in second["runtime"]]
    assert codes == ["NPB123", "NPB123"]               # 50 retries of one pair: recorded once
    assert [d.code for d in first["runtime"]] == ["NPB123"]
    assert all(d.severity == "error" for d in second["runtime"])
    sess.close()
    other.close()


def test_runtime_records_are_bounded():
    rec = _records.record("session", "Session#x", None)
    diag = Diagnostic("NPB123", "error", "static_memory_policy", "2", "m")
    for i in range(1000):
        _records.add_runtime_diagnostic(rec, ("pair", i), diag)
    (copy,) = [r for r in _records.records() if r["name"] == "Session#x"]
    assert 1 <= len(copy["runtime"]) <= _records.RUNTIME_LIMIT < 1000


def test_uncaught_guard_error_names_its_record():
    sess, slow, fast, started, release = blocking_graph(2)
    with while_running(sess, slow, started, release):
        with pytest.raises(NpuConfigError) as info:
            sess.run(fast)
    assert _records.record_of(info.value) is _state.of(sess).record
    assert _state.of(sess).record["runtime"][0] == info.value.diagnostics[0]
    sess.close()


def test_guard_message_names_the_policy_as_set_legacy_values_and_the_seed():
    sess, slow, fast, started, release = blocking_graph(1)      # 1 runs as 2
    with while_running(sess, slow, started, release):
        with pytest.raises(NpuConfigError) as info:
            sess.run(fast)
    (diag,) = info.value.diagnostics
    assert diag.code == "NPB123" and diag.value == "1"
    assert diag.message.startswith("static_memory_policy=1 (runs as 2) does not support")
    assert "1 (legacy)" in diag.message and "allowed: 0, 1, 2" not in diag.message
    assert "source: vendor page 'MemoryConfig构造函数 (MemoryConfig constructor)' " \
           "(hicann/tensorflow docs/zh/tfadapter_1/apiref/npu_config/" \
           "memoryconfig_constructor.md)" in diag.message
    assert "rule from the MemoryConfig documentation" not in diag.message
    sess.close()


# queue runners: the host-side input pipeline is not a GE graph

def _queue_graph(collect=True):
    """A queue, its runner (in the QUEUE_RUNNERS collection when `collect`), a second enqueue
    op, a step that dequeues then blocks until `release`, and a plain op."""
    started, release = threading.Event(), threading.Event()

    def block(x):
        started.set()
        release.wait(30)
        return x

    graph = tf.Graph()
    with graph.as_default():
        queue = tf.compat.v1.FIFOQueue(100, tf.float32, shapes=[[]])
        enqueue = queue.enqueue(tf.constant(1.0))
        enqueue2 = queue.enqueue(tf.constant(2.0))
        runner = tf.compat.v1.train.QueueRunner(queue, [enqueue])
        if collect:
            tf.compat.v1.train.add_queue_runner(runner)
        slow = tf.compat.v1.py_func(block, [queue.dequeue()], tf.float32)
        fast = tf.constant(2.0) * 3.0
    return graph, queue, runner, enqueue2, slow, fast, started, release


def test_queue_runner_ops_are_not_guarded():
    graph, queue, runner, enqueue2, slow, fast, started, release = _queue_graph()
    sess = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    sess.run(runner.enqueue_ops[0])
    thread, first = run_in_thread(sess, slow)          # the training step, executing
    assert started.wait(30)
    try:
        for _ in range(3):
            sess.run(runner.enqueue_ops[0])            # what QueueRunner threads run
        sess.run(runner.enqueue_ops)                   # a list of them: still the pipeline
        with pytest.raises(NpuConfigError):            # not a queue runner's op: a graph
            sess.run(enqueue2)
        with pytest.raises(NpuConfigError):            # mixed with another fetch: a graph
            sess.run([runner.enqueue_ops[0], fast])
        # a runner added later is seen (the cached set follows the collection)
        with graph.as_default():
            tf.compat.v1.train.add_queue_runner(
                tf.compat.v1.train.QueueRunner(queue, [enqueue2]))
        sess.run(enqueue2)
        sess.run(runner.close_op)
    finally:
        release.set()
        thread.join(30)
    assert first == {"value": 1.0}
    assert _session_patch.executing_graphs() == 0
    sess.close()


def test_queue_runner_input_pipeline_trains_under_policy_2():
    with tf.Graph().as_default():
        data = tf.constant(np.random.RandomState(0).randn(200, 4).astype(np.float32))
        sample = tf.compat.v1.train.slice_input_producer([data], shuffle=True)
        batch = tf.compat.v1.train.batch(sample, batch_size=8, num_threads=4)
        w = tf.compat.v1.get_variable("w", [4, 1])
        x = batch[0] if isinstance(batch, (list, tuple)) else batch
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tf.compat.v1.Session(config=proto(static_memory_policy=2)) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(tf.compat.v1.local_variables_initializer())
            coord = tf.compat.v1.train.Coordinator()
            threads = tf.compat.v1.train.start_queue_runners(sess=sess, coord=coord)
            try:
                for _ in range(150):
                    sess.run([train_op, loss])
            finally:
                coord.request_stop()
                coord.join(threads)


def test_a_queue_runner_started_without_the_collection_is_not_guarded():
    """A QueueRunner never added to the QUEUE_RUNNERS collection, started with its own
    `create_threads(sess, start=True)` (a common TF1 pattern): its threads' enqueue runs are
    the host-side input pipeline next to the training step, not a second GE graph."""
    graph, queue, runner, other, slow, _, started, release = _queue_graph(collect=False)
    with graph.as_default():
        close = queue.close(cancel_pending_enqueues=True)
    assert not graph.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS)
    sess = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    sess.run(other)                                     # the element the step dequeues
    coord = tf.compat.v1.train.Coordinator()
    with while_running(sess, slow, started, release) as first:
        # started while the training step executes; daemon: a failure cannot hang the test
        threads = runner.create_threads(sess, coord=coord, daemon=True, start=True)
        time.sleep(0.5)   # the runner's threads enqueue meanwhile
        with pytest.raises(NpuConfigError):             # any other op: a graph, refused
            sess.run(other)
    coord.request_stop()
    sess.run(close)
    try:
        coord.join(threads, stop_grace_period_secs=10)   # re-raises a runner thread's error
    finally:
        assert runner.exceptions_raised == []
    assert first == {"value": 2.0}
    sess.close()


def test_noting_a_started_queue_runner_does_not_keep_its_graph_alive():
    """The runners noted by the create_threads wrapper are held weakly: a runner holds its
    ops, which hold the graph, so a strong reference would keep every such graph alive."""
    import gc
    import weakref
    graph, queue, runner, _, _, _, _, _ = _queue_graph(collect=False)
    with graph.as_default():
        close = queue.close(cancel_pending_enqueues=True)
    sess = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    coord = tf.compat.v1.train.Coordinator()
    threads = runner.create_threads(sess, coord=coord, daemon=True, start=True)
    assert id(graph) in GUARD.started_runners
    coord.request_stop()
    sess.run(close)
    coord.join(threads, stop_grace_period_secs=10)
    sess.close()
    alive = weakref.ref(graph)
    key = id(graph)
    del graph, queue, runner, close, sess, coord, threads
    gc.collect()
    assert alive() is None
    assert key not in GUARD.started_runners


def test_queue_runner_callable_is_not_guarded():
    # QueueRunner._run makes a callable of its enqueue op (TF 2.x)
    graph, queue, runner, enqueue2, slow, fast, started, release = _queue_graph()
    sess = tf.compat.v1.Session(graph=graph, config=proto(static_memory_policy=2))
    enqueue_call = sess.make_callable(runner.enqueue_ops[0])
    other_call = sess.make_callable(enqueue2)
    assert not getattr(enqueue_call, "_npu_guarded", False)
    assert getattr(other_call, "_npu_guarded", False)
    enqueue_call()
    with while_running(sess, slow, started, release) as first:
        enqueue_call()
        with pytest.raises(NpuConfigError):
            other_call()
    assert first == {"value": 1.0}
    sess.close()


def test_runs_fast_key_is_graph_keys_key():
    # Session.run computes the key of one op or tensor fetched without feeds itself (the
    # guard's hot path); make_callable and partial_run use graph_key: one graph, one key.
    graph = tf.Graph()
    with graph.as_default():
        tensor = tf.constant(1.0) + 1.0
    sess = object()   # a key is per session: only its identity counts
    for fetch in (tensor, tensor.op):
        assert type(fetch) in session_guard.SINGLE_FETCH_TYPES
        fast = (id(sess), id(graph), id(fetch), None)
        assert _session_patch.graph_key(graph, fetch, None, sess) == fast
        assert _session_patch.graph_key(graph, fetch, {}, sess) == fast
