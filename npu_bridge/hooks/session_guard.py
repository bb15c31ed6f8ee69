"""The static-memory concurrency guard of the Session patch (`npu_bridge.hooks.session_patch`).

Under an effective `static_memory_policy` of 2 or 4, a run of one GE graph is refused while a
different graph of the process executes (seed memoryconfig_constructor_zh.txt). `GUARD` is
the process's one `ConcurrencyGuard`; `graph_key` says what GE compiles as one graph. What
counts as a graph, and why QueueRunner ops do not, is in docs/design.md ("The Session patch").
"""
import functools
import threading
import weakref

from npu_bridge.ge import records as _records
from npu_bridge.hooks import state as _state
from npu_bridge.hooks.lazy import LazyModule

tf = LazyModule("tensorflow")
_ops = LazyModule("tensorflow.python.framework.ops")

POLICY_KEY = "ge.exec.staticMemoryPolicy"
# Code of the run-time concurrency refusal (npu_bridge.ge.diagnostics.CODES).
CONCURRENT_GRAPHS_CODE = "NPB123"

_QUEUE_RUNNERS = "queue_runners"   # tf.compat.v1.GraphKeys.QUEUE_RUNNERS


@functools.lru_cache(maxsize=None)
def single_fetch():
    """(tf.Operation, tf.Tensor): what `graph_key` keys by itself."""
    return (_ops.Operation, tf.Tensor)


@functools.lru_cache(maxsize=None)
def single_fetch_types():
    """The exact classes of a graph's ops and tensors: run()'s fast path for one fetch, no
    feeds (the key graph_key gives them); anything else goes through graph_key."""
    return frozenset(t for t in (_ops.Operation, getattr(_ops, "SymbolicTensor", None))
                     if t is not None)


def __getattr__(name):   # the constants of older callers, TensorFlow loaded on first read
    if name == "SINGLE_FETCH":
        return single_fetch()
    if name == "SINGLE_FETCH_TYPES":
        return single_fetch_types()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _flat_ids(fetches, out, depth=0):
    if isinstance(fetches, (list, tuple)) and depth < 8:
        for item in fetches:
            _flat_ids(item, out, depth + 1)
    elif isinstance(fetches, dict) and depth < 8:
        for item in fetches.values():
            _flat_ids(item, out, depth + 1)
    elif isinstance(fetches, (str, bytes)):
        out.append(fetches)     # names are equal by value
    else:
        out.append(id(fetches))  # alive for the whole run, so the id is unique meanwhile


def fed_values(graph, feed_dict):
    """{tensor.ref(): fed value} of `feed_dict` as `Session.run` takes it (keys: tensors,
    their names, composite tensors with a tuple of values); a key not resolved here is left
    out. The `feeds` argument of TensorFlow's `_FetchHandler`."""
    fed = {}
    for key, value in (feed_dict or {}).items():
        try:
            if isinstance(key, str):
                key = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
            parts = tf.nest.flatten(key, expand_composites=True)
            values = [value] if len(parts) == 1 else list(value)
            for t, v in zip(parts, values):
                if isinstance(t, tf.Tensor):
                    fed[t.ref()] = v
        except (TypeError, ValueError, KeyError):
            continue
    return fed


def graph_key(graph, fetches, feed_dict, session=None):
    """What GE would compile as one graph: (session, tf.Graph, fetch set, feed set), hashable.
    Each session has a GE session of its own, which builds its own graphs (hicann/tensorflow
    SessionManager: one GE session per TF session), so the same subgraph run by two sessions
    is two GE graphs."""
    if isinstance(fetches, single_fetch()):
        fetch_ids = id(fetches)
    else:
        flat = []
        _flat_ids(fetches, flat)
        fetch_ids = frozenset(flat)
    feed_ids = frozenset(id(k) if not isinstance(k, str) else k for k in feed_dict) if feed_dict else None
    return (id(session), id(graph), fetch_ids, feed_ids)


def _policy_text(policy, ge_options):
    """`static_memory_policy=<as set>`, with what it runs as when GE changes it."""
    given = None
    if ge_options is not None:
        given = ge_options.global_options.get(POLICY_KEY)
    if given is None or given == policy:
        return policy, "static_memory_policy=%s" % policy
    merged = str(ge_options.sources.get(POLICY_KEY, "")).startswith("env:")
    return given, "static_memory_policy=%s (runs as %s%s)" % (
        given, policy, " merged with GE_USE_STATIC_MEMORY" if merged else "")


def concurrency_error(policy, ge_options=None, initialized_by=None,
                      what="another graph of this process is executing"):
    """The `NpuConfigError` (NPB123) of a refused run; `policy` is the effective policy (2 or
    4), `ge_options` the resolution GE was initialized with (for the value as the script set
    it), `initialized_by` the session that initialized GE when it is not the refused one's,
    `what` the graphs that were executing."""
    from npu_bridge.ge import NpuConfigError, catalog
    from npu_bridge.ge.diagnostics import make
    value, shown = _policy_text(policy, ge_options)
    if initialized_by is not None:
        shown += " (the process's: %s initialized GE with it)" % initialized_by
    row = catalog.find("static_memory_policy")
    allowed = row.allowed_text if row is not None else "0, 2, 3, 4, 1 (legacy)"
    return NpuConfigError([make(CONCURRENT_GRAPHS_CODE, "static_memory_policy", value,
                                shown=shown, what=what, allowed=allowed, key=POLICY_KEY)])


def _fetch_names(fetches, out, depth=0):
    if isinstance(fetches, (list, tuple)) and depth < 8:
        for item in fetches:
            _fetch_names(item, out, depth + 1)
    elif isinstance(fetches, dict) and depth < 8:
        for item in fetches.values():
            _fetch_names(item, out, depth + 1)
    elif fetches is not None:
        out.append(fetches if isinstance(fetches, str) else getattr(fetches, "name", repr(fetches)))


def describe_run(session, fetches):
    """`Session#2 (created at train.py:40), graph 0x7f.. (12 ops), fetches ['loss:0']`: one
    executing GE graph as NPB123 names it."""
    known = _state.of(session)
    rec = known.record if known is not None else None
    name = rec.name if rec is not None else type(session).__name__
    where = known.created_at if known is not None else None
    graph = getattr(session, "_graph", None)
    names = []
    _fetch_names(fetches, names)
    shown = ", ".join(repr(n) for n in names[:4]) + (", ..." if len(names) > 4 else "")
    ops = len(graph.get_operations()) if graph is not None else 0
    return "%s%s, graph 0x%x (%d ops), fetches [%s]" % (
        name, " (created at %s)" % where if where else "", id(graph), ops, shown)


def _refusal(key, others, policy, session, fetches=None, running=()):
    """The error for a run of graph `key` refused while the graphs `others` execute (named
    from `running`: key -> (session, fetches)); recorded with the session's configuration
    (`npu_bridge.ge.records`), once per set of graphs, so `npu-bridge run` fails on it even
    when the script catches it or a thread dies of it."""
    known = _state.of(session) or _state.SessionState()
    init, rec = known.ge_init, known.record
    described = [describe_run(*running[k]) for k in others if k in running]
    what = "another graph of this process is executing"
    if described:
        what = "this run (%s) was refused while %s %s executing" % (
            describe_run(session, fetches), "; ".join(described[:3]),
            "is" if len(described) == 1 else "are")
    if init is not None:
        other = init.owner if rec is None or init.owner != rec.name else None
        error = concurrency_error(policy, init.ge_options, other, what)
    else:
        error = concurrency_error(policy, known.ge_options, what=what)
    if rec is not None:
        _records.add_runtime_diagnostic(rec, others | {key}, error.diagnostics[0])
        _records.link(error, rec)
    return error


class ConcurrencyGuard:
    """Which graphs guarded sessions execute now (`executing`: graph key -> number of runs,
    only keys with a count > 0), and the QueueRunners started outside their graph's
    collection (`started_runners`: id(graph) -> weak references; weak, since a runner holds
    its ops, which hold the graph; the entry leaves when its graph is collected)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.executing = {}
        self.running = {}   # graph key -> (session, fetches) of its first run: NPB123 names it
        self.started_runners = {}

    def enter(self, key, policy, session=None, fetches=None):
        """Count a run of graph `key` (fetching `fetches`) under `policy` ("2" or "4"); raises
        `NpuConfigError` (NPB123, recorded with `session`'s record, naming both graphs) when
        another graph is executing."""
        # `executing` holds only keys with a count > 0, so "any other graph executing" is a
        # size test, not a loop. acquire/try/finally: half the cost of `with`.
        lock = self.lock
        lock.acquire()
        try:
            executing = self.executing
            count = executing.get(key, 0)
            if len(executing) <= (1 if count else 0):
                executing[key] = count + 1
                if not count:
                    self.running[key] = (session, fetches)
                return
            others = frozenset(k for k in executing if k != key)
            running = {k: self.running[k] for k in others if k in self.running}
        finally:
            lock.release()
        raise _refusal(key, others, policy, session, fetches, running)

    def leave(self, key):
        """The run of graph `key` that `enter` counted has ended."""
        lock = self.lock
        lock.acquire()
        try:
            executing = self.executing
            count = executing[key] - 1
            if count:
                executing[key] = count
            else:
                del executing[key]
                self.running.pop(key, None)
        finally:
            lock.release()

    def executing_graphs(self):
        """How many distinct graphs guarded sessions are executing now."""
        with self.lock:
            return len(self.executing)

    def note_runner(self, graph, runner):
        """`runner` (a QueueRunner of `graph` not in its collection) starts its threads."""
        with self.lock:
            refs = self.started_runners.get(id(graph))
            if refs is None:
                refs = self.started_runners[id(graph)] = []
                weakref.finalize(graph, self.started_runners.pop, id(graph), None)
            if not any(ref() is runner for ref in refs):
                refs.append(weakref.ref(runner))

    def may_have_runners(self, graph):
        """Cheap first test of `is_queue_runner_run`: does `graph` have any QueueRunner?"""
        # pylint: disable=protected-access
        return bool(graph._collections.get(_QUEUE_RUNNERS)) or id(graph) in self.started_runners

    def runners(self, graph):
        """The graph's QueueRunners: its QUEUE_RUNNERS collection, then those started with
        `create_threads` without being in it (and not collected since)."""
        # pylint: disable=protected-access
        runners = graph._collections.get(_QUEUE_RUNNERS) or []
        refs = self.started_runners.get(id(graph))
        if refs:
            runners = runners + [r for r in (ref() for ref in refs) if r is not None]
        return runners

    def is_queue_runner_run(self, graph, fetches):
        """True when every fetch is an op of one of the graph's QueueRunners: what QueueRunner
        threads run, the host-side input pipeline on the NPU, not a GE graph, so never
        refused. A graph without queue runners costs two dict lookups."""
        runners = self.runners(graph)
        if not runners:
            return False
        ops = _queue_runner_ops(graph, runners)
        if isinstance(fetches, _ops.Operation):
            return id(fetches) in ops
        if isinstance(fetches, (list, tuple)) and fetches:
            return all(isinstance(f, _ops.Operation) and id(f) in ops for f in fetches)
        return False


def _queue_runner_ops(graph, runners):
    """The ids of the ops the graph's QueueRunners run (each one's enqueue_ops, close_op,
    cancel_op), as a frozenset kept for the graph (`state.QUEUE_RUNNER_OPS`) and rebuilt when
    the collection's length changes. Ids, not the ops: an op holds its graph, which would keep
    the graph's entry, and so the graph, alive; the graph holds its ops, so their ids are
    theirs while the entry exists."""
    try:
        cached = _state.QUEUE_RUNNER_OPS.get(graph)
    except TypeError:   # not weak-referenceable: not a tf.Graph
        cached = None
    if cached is not None and cached[0] == len(runners):
        return cached[1]
    ops = set()
    for runner in list(runners):
        ops.update(id(op) for op in getattr(runner, "enqueue_ops", None) or ())
        for name in ("close_op", "cancel_op"):
            op = getattr(runner, name, None)
            if op is not None:
                ops.add(id(op))
    cached = (len(runners), frozenset(ops))
    try:
        _state.QUEUE_RUNNER_OPS[graph] = cached
    except TypeError:
        pass
    return cached[1]


def in_collection(graph, runner):
    """True when `runner` is in `graph`'s QUEUE_RUNNERS collection."""
    return runner in (graph._collections.get(_QUEUE_RUNNERS) or ())  # pylint: disable=protected-access


GUARD = ConcurrencyGuard()

