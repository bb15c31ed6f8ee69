"""The hooks' state, in one place (imports no TensorFlow).

- `SessionState` of each patched session, kept by the session's id beside a weak reference
  to it (`of(session)`, `attach(session, ...)`): nothing is set on TensorFlow's objects, and a
  collected session takes its entry with it and leaves the process's GE initialization (one
  weak reference per session does both: a session creation pays for one, not two).
- `RUN`: the run's context (`npu_bridge.ge.records.RunContext`: graph capture, forced
  product, findings waiting for a configuration); it lives in the GE layer because the
  resolver reads the forced product and `records.record()` drains the findings.
- `LOOPS`: the iteration-loop registry, `tf.Graph` -> {loop op: iterations per loop}
  (`npu_bridge.hooks.loops`).
- `LOGGED`: keys of run-time diagnostics already logged once.
- `PATCHES`: every change made to TensorFlow and its libraries (`npu_bridge.hooks.patching`).
- `TF1`: the TF 1.x API mode's state (`TF1Mode`, `npu_bridge.hooks.tf1_mode`).
- `CAPTURE`: what the graph capture and the partition have seen (`Capture`).
- `CLUSTER`: the multi-rank job of this process (`Cluster`, `npu_bridge.hooks.cluster`).
- `PRECISION_NOTES`: what the loss-scale code notes per graph (`precision_emulation.note`).
- `EMULATION`: the precision emulation's per-graph state, `tf.Graph` -> {plan key: state}
  (`npu_bridge.hooks.precision_emulation`); `script_inputs` reads its round trips for the
  graph capture and the partition, which import no emulation.
- `QUEUE_RUNNER_OPS`: `tf.Graph` -> (collection length, ids of the ops its QueueRunners run)
  (`npu_bridge.hooks.session_guard`).
- `ADAPTER`: the values the real adapter's modules keep for the process (`Adapter`).
The process-wide caches and guards stay the objects their modules own: `RESOLUTIONS`
(`session_patch`), `GE_INITIALIZATION` (`npu_bridge.ge.initialization`), `GUARD`
(`session_guard`).
"""
import dataclasses
import os
import threading
import weakref
from typing import Any, Optional

from npu_bridge.ge.initialization import GE_INITIALIZATION
from npu_bridge.ge.records import RUN  # noqa: F401  (re-exported: the run's context)

__all__ = ["SessionState", "of", "attach", "register", "environ", "mark_cluster", "is_cluster",
           "RUN", "LOOPS", "LOGGED", "PATCHES", "TF1", "TF1Mode", "CAPTURE", "Capture",
           "CLUSTER", "Cluster", "EMULATION", "PRECISION_NOTES", "script_inputs",
           "QUEUE_RUNNER_OPS", "ADAPTER", "Adapter", "lock"]


@dataclasses.dataclass(slots=True)
class SessionState:
    """What the Session patch knows of one session it created.

    Attributes:
      ge_options: the session's `GeOptions` (read-only; NPB126 added when GE ignores its
        global options), or None for a session the patch only let through.
      record: its `npu_bridge.ge.records.Record` (run-time findings are attached to it).
      guard_policy: the static-memory policy the concurrency guard enforces ("2", "4"), or
        None (not guarded).
      ge_init: the `GeInit` of the process's GE initialization the session joined.
      ge_number: its number in that initialization (`GE_INITIALIZATION.leave(number)`, on
        close or when the session is collected unclosed); None once it left.
      created_at: `file:line` of the script's call that created it (NPB123 names it).
      cluster: a session of a rank of a multi-rank job (`npu_bridge.hooks.cluster`).
    """
    ge_options: Any = None
    record: Any = None
    guard_policy: Optional[str] = None
    ge_init: Any = None
    ge_number: Optional[int] = None
    created_at: Optional[str] = None
    cluster: bool = False


lock = threading.Lock()   # writes of _SESSIONS, LOOPS, LOGGED and PATCHES
_SESSIONS = {}   # id(session) -> (_Ref to it, its SessionState)
LOOPS = weakref.WeakKeyDictionary()   # tf.Graph -> {op: N}; a dropped graph takes its loops
LOGGED = set()
PATCHES = []   # (tag, kind, owner, name, previous): npu_bridge.hooks.patching's changes, in order


class TF1Mode:
    """The TF 1.x API mode of the process (`npu_bridge.hooks.tf1_mode`), one instance: `TF1`.

    Attributes:
      lock: held while the mode is switched on or its finder installed (re-entrant: the
        switch imports TensorFlow, whose import runs the finder's hook).
      enabled: the mode is on (`enable()` ran, not undone).
      finder: the `sys.meta_path` finder (post-import hook of `tensorflow`, TF 1.x modules),
        or None.
      after_import: callbacks waiting for `import tensorflow` to complete.
      tensorflow: the `tensorflow` module scripts get (the TF 1.x API), once the mode is on.
      library_tf: the TF 2 `tensorflow` module library code gets, once the mode is on.
      v1_origins: (`__file__` prefixes, `__name__` prefixes) of the v1 API modules.
      pending: (frame, offset) of a library's `import tensorflow` that switched the mode on,
        whose binding is fixed once the statement completes.
    """

    def __init__(self):
        self.lock = threading.RLock()
        self.finder = None
        self.after_import = []
        self.forget()

    def forget(self):
        """The mode off: what `enable()` set is dropped (its changes undone by then)."""
        self.enabled = False
        self.tensorflow = None
        self.library_tf = None
        self.v1_origins = ((), ())
        self.pending = []


TF1 = TF1Mode()


class Capture:
    """What `npu_bridge.hooks.graph_capture` and `partition_capture` have seen this run.

    Attributes:
      lock: held while `seen` and `pending` change.
      seen: graph key -> `GraphEntry` (None: nothing to plan); `fast_seen`: keys of runs
        already known (the run's hot path; bounded by `graph_capture`).
      deferred: (record, key, Captured, tf.Graph, fetches, feed keys) captured, not yet
        partitioned; `finish_lock`: held while they are (re-entrant).
      pending: (record, GraphEntry) captured, not yet planned.
      unplanned: "<session>: <error>" of graphs whose capture or plan failed (at most 16).
      unpartitioned: "<graph>: <error>" of graphs whose partition failed (at most 16).
      uncaptured: (id(record), what, unit) -> [record, count]: runs of an NPU session the capture did not
        see (`graph_capture.note_uncaptured`: partial_run, a callable with tensor
        connections, graphs beyond `GRAPHS_PER_SESSION`; at most 64 keys).
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = {}
        self.fast_seen = set()
        self.deferred = []
        self.finish_lock = threading.RLock()
        self.pending = []
        self.unplanned = []
        self.unpartitioned = []
        self.uncaptured = {}


CAPTURE = Capture()


class Cluster:
    """The multi-rank job of this process (`npu_bridge.hooks.cluster`).

    Attributes:
      lock: held while any of the others change (re-entrant).
      job: the `hccl.manage.ranktable` job read from the environment, or None; `checked`:
        the environment it was read from; `server`: the TensorFlow server, once started;
        `ready`: every rank answered the start barrier.
      instances: group key -> collectives built so far; `built`: (group key, instance key)
        -> description; `group_names`: group key -> the group name it came from;
        `checked_keys`: group keys the group leader confirmed as this group's
        (`check_groups`); `run_keys`: (graph id, graph version, fetch ids) -> (run key or 0,
        its group keys, fetches).
    """

    def __init__(self):
        self.lock = threading.RLock()
        self.job = self.server = self.checked = None
        self.ready = False
        self.instances = {}
        self.built = {}
        self.group_names = {}
        self.checked_keys = set()
        self.run_keys = {}


CLUSTER = Cluster()
EMULATION = weakref.WeakKeyDictionary()   # tf.Graph -> {plan key: its emulation state}
# tf.Graph -> {kind: [items in the order noted]}: what the loss-scale code notes per graph
# (`precision_emulation.note`), kept beside the graph, never in its collections
PRECISION_NOTES = weakref.WeakKeyDictionary()


def script_inputs(inputs):
    """`inputs` (an op's input tensors, a list) with each round trip the precision emulation
    inserted replaced by the float32 tensor it rounds: the graph as the script built it (what
    `graph_capture` plans and `partition_capture` partitions). The emulation's states in
    `EMULATION` keep `rounded`: id of a tensor -> its rounding, whose `tensor` is the round
    trip and `source` the tensor rounded. `inputs` itself when the graph has no emulation."""
    per = EMULATION.get(inputs[0].graph) if inputs else None
    if not per:
        return inputs
    out = []
    for t in inputs:
        for st in per.values():
            r = st.rounded.get(id(t))
            if r is not None and r.tensor is t:
                t = r.source
                break
        out.append(t)
    return out
QUEUE_RUNNER_OPS = weakref.WeakKeyDictionary()   # tf.Graph -> (len(runners), op ids)


class Adapter:
    """Values the real adapter's modules keep for the process.

    Attributes:
      values: `npu_bridge.estimator.npu.util`'s store (`set_value` / `get_value`).
      gradients_and_vars: util's split of the gradients over the ranks.
      init_options: the options `npu_plugin.npu_resource_init` was given, or None;
        `sat_mode`: the float overflow mode it set, or None.
      outfeed_queues: `npu_ops`' outfeed queues, (graph id, channel) -> (graph, queue).
    """

    def __init__(self):
        self.values = {}
        self.gradients_and_vars = []
        self.init_options = None
        self.sat_mode = None
        self.outfeed_queues = {}


ADAPTER = Adapter()


class _Ref(weakref.ref):
    """A weak reference to a session that knows its key in `_SESSIONS`."""
    __slots__ = ("key",)


def _collected(ref):
    """`ref`'s session is being collected: drop its entry, and leave GE if it was not closed.
    Runs inside the collection, maybe while this thread holds a lock: it takes none of this
    module's (its id is not reused before this returns, so the entry is the session's)."""
    entry = _SESSIONS.get(ref.key)
    if entry is not None and entry[0] is ref:
        _SESSIONS.pop(ref.key, None)
        if entry[1].ge_number is not None:   # (a closed session left already: a no-op)
            GE_INITIALIZATION.leave(entry[1].ge_number)


def of(session):
    """The `SessionState` of `session`, or None (not created by the patch)."""
    entry = _SESSIONS.get(id(session))
    return entry[1] if entry is not None and entry[0]() is session else None


def attach(session, **fields):
    """Set `fields` (names of `SessionState`) on `session`'s state, creating it; returns it.
    Raises TypeError when `session` cannot be weakly referenced (not a session)."""
    with lock:
        state = of(session)
        if state is not None:
            for name, value in fields.items():
                setattr(state, name, value)
        else:
            state = register(session, SessionState(**fields))
    return state


def register(session, state):
    """Keep `state` (a `SessionState`) as the state of `session`, a session being created by
    this thread (no other thread knows it yet: no lock). Raises TypeError when `session`
    cannot be weakly referenced."""
    ref = _Ref(session, _collected)
    ref.key = id(session)
    _SESSIONS[ref.key] = (ref, state)
    return state


# os.environ.get of an unset name raises and catches a KeyError inside (~2 us each); a session
# creation reads several. The mapping os.environ keeps (encoded names -> encoded values) is
# read directly when there is one; values are compared, never decoded (a cache key).
_ENV_DATA = getattr(os.environ, "_data", None)
_ENV_ENCODE = getattr(os.environ, "encodekey", None)


def environ(names):
    """A cheap reader of the environment variables `names` (a tuple of str): a function
    returning their values as a tuple (None for unset), for cache keys and tests of presence.
    The values are os.environ's as stored (bytes on POSIX): compare them, never print them."""
    environ_ = os.environ
    data, encode = _ENV_DATA, _ENV_ENCODE
    if not isinstance(data, dict) or encode is None:
        return lambda: tuple(environ_.get(n) for n in names)
    keys = tuple(encode(n) for n in names)
    get = data.get

    def read():
        if os.environ is not environ_:   # replaced wholesale (a test): read it as a mapping
            return tuple(os.environ.get(n) for n in names)
        return tuple(map(get, keys))

    return read


def mark_cluster(session):
    """`session` is a session of a rank of a multi-rank job."""
    attach(session, cluster=True)


def is_cluster(session):
    """True for a session `mark_cluster` marked."""
    state = of(session)
    return state is not None and state.cluster


def guard_policy(session):
    """The session's guarded static-memory policy, or None (the run hot path)."""
    entry = _SESSIONS.get(id(session))
    return entry[1].guard_policy if entry is not None and entry[0]() is session else None
