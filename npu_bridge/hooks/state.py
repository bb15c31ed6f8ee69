"""The hooks' state, in one place (imports no TensorFlow).

- `SessionState` of each patched session, kept by session in a `WeakKeyDictionary`
  (`of(session)`, `attach(session, ...)`): nothing is set on TensorFlow's objects, and a
  collected session takes its entry with it.
- `RUN`: the run's context (`npu_bridge.ge.records.RunContext`: graph capture, forced
  product, findings waiting for a configuration); it lives in the GE layer because the
  resolver reads the forced product and `records.record()` drains the findings.
- `LOOPS`: the iteration-loop registry, `tf.Graph` -> {loop op: iterations per loop}
  (`npu_bridge.hooks.loops`).
- `LOGGED`: keys of run-time diagnostics already logged once.
- `PATCHES`: every change made to TensorFlow and its libraries (`npu_bridge.hooks.patching`).
The process-wide caches and guards stay the objects their modules own: `RESOLUTIONS`
(`session_patch`), `GE_INITIALIZATION` (`npu_bridge.ge.initialization`), `GUARD`
(`session_guard`).
"""
import dataclasses
import threading
import weakref
from typing import Any, Optional

from npu_bridge.ge.records import RUN  # noqa: F401  (re-exported: the run's context)

__all__ = ["SessionState", "of", "attach", "mark_cluster", "is_cluster", "RUN", "LOOPS",
           "LOGGED", "PATCHES", "lock"]


@dataclasses.dataclass
class SessionState:
    """What the Session patch knows of one session it created.

    Attributes:
      ge_options: the session's `GeOptions` (read-only; NPB126 added when GE ignores its
        global options), or None for a session the patch only let through.
      record: its `npu_bridge.ge.records.Record` (run-time findings are attached to it).
      guard_policy: the static-memory policy the concurrency guard enforces ("2", "4"), or
        None (not guarded).
      ge_init: the `GeInit` of the process's GE initialization the session joined.
      ge_number: its number in that initialization (`GE_INITIALIZATION.leave(number)`).
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
_SESSIONS = weakref.WeakKeyDictionary()
LOOPS = weakref.WeakKeyDictionary()   # tf.Graph -> {op: N}; a dropped graph takes its loops
LOGGED = set()
PATCHES = []   # (tag, kind, owner, name, previous): npu_bridge.hooks.patching's changes, in order


def of(session):
    """The `SessionState` of `session`, or None (not created by the patch)."""
    try:
        return _SESSIONS.get(session)
    except TypeError:   # not weak-referenceable: not a session
        return None


def attach(session, **fields):
    """Set `fields` (names of `SessionState`) on `session`'s state, creating it; returns it."""
    with lock:
        state = _SESSIONS.get(session)
        if state is None:
            state = _SESSIONS[session] = SessionState()
        for name, value in fields.items():
            setattr(state, name, value)
    return state


def mark_cluster(session):
    """`session` is a session of a rank of a multi-rank job."""
    attach(session, cluster=True)


def is_cluster(session):
    """True for a session `mark_cluster` marked."""
    state = of(session)
    return state is not None and state.cluster


def guard_policy(session):
    """The session's guarded static-memory policy, or None (the run hot path)."""
    state = _SESSIONS.get(session)
    return state.guard_policy if state is not None else None
