"""Stress of the static-memory concurrency guard (`npu_bridge.hooks.session_patch`).

8 threads, 4 graphs (2 tf.Graphs x 2 fetch sets, in 2 sessions), 500 runs per graph, under
static_memory_policy 0, 2 and 4. Ground truth comes from two places:
- the guard's own decision: `_enter` is wrapped, and the guard's table of executing graphs is
  replaced by a dict that snapshots, under the guard's lock, which keys were executing when
  the decision was taken; a run is refused exactly when that snapshot holds another key;
- the runs themselves: each executes a `py_func` that logs (graph, enter, exit) through a
  lock; under policy 2 and 4 no two different graphs' executions may overlap, and every
  refusal must fall inside the guarded interval of an accepted run of another graph.
Every threaded test joins with a timeout and fails (instead of hanging) on a deadlock.
"""
import random
import threading
import time

import pytest
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

from npu_bridge.hooks import session_patch as _session_patch
from npu_bridge.hooks.session_guard import GUARD
from npu_bridge.ge import NpuConfigError

THREADS, GRAPHS, RUNS_PER_GRAPH = 8, 4, 500
JOIN_TIMEOUT = 240


class _Recorder(dict):
    """The guard's `_executing` table; `get()` is only called by `_enter`, under the guard
    lock and before it decides, so the snapshot taken there is exactly what the decision was
    based on."""

    def __init__(self):
        super().__init__()
        self.local = threading.local()

    def get(self, key, default=None):
        self.local.snapshot = list(dict.items(self))
        return dict.get(self, key, default)


class _Decisions(list):
    """The guard's decisions, (key, time, refused, others executing); `first_refusal` is set
    once one run was refused."""

    def __init__(self):
        super().__init__()
        self.first_refusal = threading.Event()


@pytest.fixture
def guard(monkeypatch):
    _session_patch.patch()
    _session_patch.clear_caches()
    table = _Recorder()
    monkeypatch.setattr(GUARD, "executing", table)
    decisions = _Decisions()
    lock = threading.Lock()
    original_enter, original_leave = GUARD.enter, GUARD.leave

    def enter(key, policy, *session):
        table.local.snapshot = None
        refused = False
        try:
            original_enter(key, policy, *session)
        except NpuConfigError:
            refused = True
            raise
        finally:
            t = time.monotonic()
            others = [k for k, c in (table.local.snapshot or ()) if c and k != key]
            with lock:
                decisions.append((key, t, refused, bool(others)))
            if refused:
                decisions.first_refusal.set()
        return None

    def leave(key):
        original_leave(key)

    monkeypatch.setattr(GUARD, "enter", enter)
    monkeypatch.setattr(GUARD, "leave", leave)
    yield decisions
    assert _session_patch.executing_graphs() == 0


def _config(policy):
    config = tf.compat.v1.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["static_memory_policy"].i = policy
    return config


def _build(policy, log, log_lock, fail_on=None, hold=None):
    """2 sessions x 2 fetches = 4 GE graphs; each fetch runs a logging py_func. `hold`, an
    Event: graph 0's first execution waits (up to 60 s) until it is set, so the other
    graphs' runs meet an executing graph however the threads are scheduled."""
    sessions, fetches = [], []
    for g in range(2):
        graph = tf.Graph()
        with graph.as_default():
            for f in range(2):
                gid = 2 * g + f

                def body(x, gid=gid, held=[]):
                    if hold is not None and gid == 0 and not held:
                        held.append(True)
                        hold.wait(60)
                    start = time.monotonic()
                    if fail_on is not None and fail_on(gid):
                        raise RuntimeError("boom in graph %d" % gid)
                    time.sleep(0.0002)
                    with log_lock:
                        log.append((gid, start, time.monotonic()))
                    return x

                out = tf.compat.v1.py_func(body, [tf.constant(gid, tf.int64)], tf.int64, stateful=True)
                fetches.append((len(sessions), out))
        sessions.append(tf.compat.v1.Session(graph=graph, config=_config(policy)))
    return sessions, fetches


def _hammer(sessions, fetches, runs_per_thread, results):
    def worker(tid):
        rng = random.Random(tid)
        sidx, fetch = fetches[tid % GRAPHS]
        sess = sessions[sidx]
        ok = refused = other = 0
        for _ in range(runs_per_thread):
            try:
                sess.run(fetch)
                ok += 1
            except NpuConfigError as err:
                assert err.diagnostics[0].code == "NPB123"
                refused += 1
            except Exception:  # pylint: disable=broad-except
                other += 1
            time.sleep(rng.random() * 0.0006)  # pacing: lets every graph get turns
        results[tid] = (ok, refused, other)

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + JOIN_TIMEOUT
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic()))
    alive = [t for t in threads if t.is_alive()]
    assert not alive, "deadlock: %d threads still running after %ds" % (len(alive), JOIN_TIMEOUT)


def _overlaps(log):
    """Pairs of executions of different graphs that overlapped in time."""
    log = sorted(log, key=lambda r: r[1])
    found = 0
    for i, (g, s, e) in enumerate(log):
        for g2, s2, e2 in log[i + 1:]:
            if s2 >= e:
                break
            if g2 != g:
                found += 1
    return found


@pytest.mark.parametrize("policy", [0, 2, 4])
def test_guard_stress(guard, policy):
    log, log_lock, results = [], threading.Lock(), {}
    # contention made certain, not left to the scheduler: under policy 2/4 graph 0's first
    # run stays inside the guard until another graph's run has been refused
    hold = guard.first_refusal if policy else None
    sessions, fetches = _build(policy, log, log_lock, hold=hold)
    runs_per_thread = RUNS_PER_GRAPH * GRAPHS // THREADS
    try:
        _hammer(sessions, fetches, runs_per_thread, results)
    finally:
        for s in sessions:
            s.close()
    ok = sum(r[0] for r in results.values())
    refused = sum(r[1] for r in results.values())
    other = sum(r[2] for r in results.values())
    print("policy %d: %d ok, %d refused" % (policy, ok, refused))
    assert other == 0
    assert ok + refused == THREADS * runs_per_thread == GRAPHS * RUNS_PER_GRAPH
    assert len(log) == ok
    if policy == 0:
        assert refused == 0
        assert guard == []            # policy 0 is not guarded at all
        return
    assert len(guard) == ok + refused
    for key, t, was_refused, others_running in guard:
        # refused exactly when another graph was registered as executing
        assert was_refused == others_running, (key, t, was_refused, others_running)
    # the runs themselves never overlapped across graphs
    assert _overlaps(log) == 0
    assert refused > 0, "the stress produced no contention at all"
    assert len({g for g, _, _ in log}) == GRAPHS   # every graph got its turns


def test_policy_0_runs_really_overlap(guard):
    """Control for the ground truth: without the guard, different graphs do overlap."""
    log, log_lock, results = [], threading.Lock(), {}
    sessions, fetches = _build(0, log, log_lock)
    try:
        _hammer(sessions, fetches, 100, results)
    finally:
        for s in sessions:
            s.close()
    assert _overlaps(log) > 0


@pytest.mark.parametrize("policy", [2, 4])
def test_guard_state_clean_after_exceptions_in_runs(guard, policy):
    log, log_lock, results = [], threading.Lock(), {}
    counter = iter(range(10 ** 9))
    sessions, fetches = _build(policy, log, log_lock, fail_on=lambda gid: next(counter) % 3 == 0)
    try:
        _hammer(sessions, fetches, 60, results)
        assert sum(r[2] for r in results.values()) > 0        # some runs did fail inside
        assert _session_patch.executing_graphs() == 0
        # after all that, sequential runs of every graph go through
        for sidx, fetch in fetches:
            for _ in range(3):
                try:
                    sessions[sidx].run(fetch)
                except NpuConfigError:
                    pytest.fail("refused with nothing else executing")
                except Exception:  # pylint: disable=broad-except
                    pass  # the py_func's own injected failure
    finally:
        for s in sessions:
            s.close()
    assert _session_patch.executing_graphs() == 0


@pytest.mark.parametrize("policy", [2, 4])
def test_guard_state_clean_after_bad_feeds_and_fetches(guard, policy):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        y = x * 2
    sess = tf.compat.v1.Session(graph=graph, config=_config(policy))
    try:
        for bad in (lambda: sess.run(y),                        # missing feed
                    lambda: sess.run(y, {x: "not a float"}),     # bad feed value
                    lambda: sess.run("no_such_tensor:0"),        # unknown fetch
                    lambda: sess.run([y, None], {x: 1.0})):      # bad fetch structure
            with pytest.raises(Exception) as err:
                bad()
            assert not isinstance(err.value, NpuConfigError)
            assert _session_patch.executing_graphs() == 0
        assert sess.run(y, {x: 2.0}) == 4.0
    finally:
        sess.close()
