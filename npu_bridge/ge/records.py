"""The run's state in the GE layer (no TensorFlow): `RUN`, the `RunContext` of the script
being run (graph capture on/off, the forced product, findings waiting for a configuration),
and the `Record` of every configuration resolved while it runs. The Session patch and
NPUEstimator append records, `npu-bridge run` reads them. The hooks' own per-session state
is `npu_bridge.hooks.state`.
"""
import dataclasses
import os as _os
import threading
from typing import Any, Optional

RUNTIME_LIMIT = 16    # run-time diagnostics kept per configuration
_LINK_ATTR = "_npu_bridge_record"   # on an exception (not a TensorFlow object): its record


class RunContext:
    """What the current run of a script asks of the hooks (one per process: `RUN`).

    Attributes:
      capture: capture and plan the GE graphs of the runs of every NPU session
        (`npu-bridge run` and `memory` switch it on; `npu_bridge.hooks.graph_capture`).
      forced_product: the explicit target product of `forced_product()` (`--product`), a
        product id or SoC name, or None.
      pending: `(cause, Diagnostic)` findings made before any configuration was resolved;
        `record()` attaches them to the next record and empties the list.
      steps: with capture on, how many training steps (runs of a captured graph holding an
        optimizer's Apply ops) the script may run; the next one is captured and planned,
        then the script is stopped with `StepsDone` before it computes anything (None: no
        limit; `npu-bridge memory --steps N`). steps_run: how many ran.
      precision: emulate the NPU's precision (`npu_bridge.hooks.precision_emulation`):
        `npu-bridge run --precision emulate`, or `NPU_BRIDGE_PRECISION=emulate` when this
        module was imported (a plain python run).
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.capture = False
        self.precision = _os.environ.get("NPU_BRIDGE_PRECISION", "").strip().lower() == "emulate"
        self.forced_product = None
        self.pending = []
        self.steps = None
        self.steps_run = 0

    def add_pending(self, cause, diagnostic):
        """Keep `diagnostic` for the next record (`cause` as in `add_runtime_diagnostic`)."""
        with self.lock:
            self.pending.append((cause, diagnostic))

    def take_pending(self):
        """The waiting findings, `[(cause, Diagnostic)]`, emptied."""
        with self.lock:
            out, self.pending = self.pending, []
        return out

    def reset(self):
        """Capture off, no forced product, no waiting findings (tests, a new run)."""
        with self.lock:
            self.capture = False
            self.forced_product = None
            self.pending = []
            self.steps = None
            self.steps_run = 0


RUN = RunContext()


class StepsDone(BaseException):
    """Raised by a Session.run once `RUN.steps` training steps ran: the script is stopped
    there (a BaseException, so the script's `except Exception` does not swallow it; its
    `finally` blocks run). `graph`: the captured graph's name; `steps`: the limit."""

    def __init__(self, graph, steps):
        self.graph, self.steps = graph, steps
        super().__init__("stopped before training step %d of graph %s (--steps %d): planned, "
                         "not run" % (steps + 1, graph, steps))


class GraphEntry:
    """One captured GE graph of a record: `captured` (`graph_capture.Captured`), `plan`
    (`memory_plan.GraphPlan`, or None when it could not be planned), `sig` (what tells two
    captures of one subgraph apart). `make`: when given, `plan` is made by `make(entry)` on
    first access (the capture stays on the run's path, planning does not: `settle`)."""
    __slots__ = ("captured", "sig", "_plan", "_make")

    def __init__(self, captured, plan=None, sig=None, make=None):
        self.captured, self.sig, self._plan, self._make = captured, sig, plan, make

    @property
    def plan(self):
        if self._make is not None:
            with _plan_lock:
                make, self._make = self._make, None
                if make is not None:
                    self._plan = make(self)
        return self._plan

    def __getitem__(self, key):   # the dict form older callers read ("captured", "plan")
        return getattr(self, key)


_plan_lock = threading.RLock()
_settlers = []


def on_settle(fn):
    """Register `fn()`, called by `settle()` (once per function)."""
    if fn not in _settlers:
        _settlers.append(fn)


def settle():
    """Finish the work deferred off the script's runs (the memory plans of captured graphs and
    their findings: `npu_bridge.hooks.graph_capture`); `records()` calls it first."""
    for fn in list(_settlers):
        fn()


_DICT_KEYS = {"_memory_options": "memory_options", "_seen": "seen"}


@dataclasses.dataclass(eq=False)
class Record:
    """One configuration resolved while the script ran.

    Attributes:
      kind: "session" (a tf.compat.v1.Session/InteractiveSession), "estimator" (an
        NPUEstimator) or "options" (a direct call).
      name: a short human label, e.g. "Session#2" or "NPUEstimator(model_dir=/tmp/x)".
      options: the `npu_bridge.ge.GeOptions` it resolved to (for a refused configuration, the
        partial one its `NpuConfigError` carries).
      refused: the resolver refused it (`NpuConfigError` raised, caught or not).
      runtime: diagnostics raised later for it (at most `RUNTIME_LIMIT`, once per cause).
      ignored_globals: `(owner, GE keys)`: global options GE ignores, being initialized by
        `owner` (NPB126), or None.
      graphs: the `GraphEntry`s of its captured GE graphs, in capture order.
      partitions: the `partition.Partition` of each graph it ran, in run order
        (`npu_bridge.hooks.partition_capture`).
      memory_options: its `memory_plan.MemoryOptions`, computed on first use.
      seen: the causes of `runtime`.
      executors: each graph the script ran, as TensorFlow keys its executors (fed, fetched
        and target names: `graph_capture.executor_key`) -> the graph keys (`session_guard.
        graph_key`) that reached it; its position numbers the graph's name (`Session#1/3`).
      precision: what `--precision emulate` did for it (`npu_bridge.hooks.precision_emulation`:
        a dict with its `plan`, `graphs`, `notes`, `name`), or None.
    """
    kind: str
    name: str
    options: Any
    refused: bool = False
    runtime: tuple = ()
    ignored_globals: Optional[tuple] = None
    graphs: list = dataclasses.field(default_factory=list)
    partitions: list = dataclasses.field(default_factory=list)
    memory_options: Any = None
    seen: set = dataclasses.field(default_factory=set, repr=False)
    executors: dict = dataclasses.field(default_factory=dict, repr=False)
    precision: Any = None

    # The dict form older callers and reports read (`rec["name"]`, `rec.get("runtime")`).
    def __getitem__(self, key):
        return getattr(self, _DICT_KEYS.get(key, key))

    def get(self, key, default=None):
        value = getattr(self, _DICT_KEYS.get(key, key), None)
        return default if value is None else value


_lock = threading.Lock()
_records = []


def record(kind, name, ge_options, refused=False, ignored=None):
    """Append one resolved configuration and return its `Record`; the findings waiting in
    `RUN.pending` (made before any configuration existed) are attached to it.

    Args:
      kind, name: see `Record`.
      ge_options: the `npu_bridge.ge.GeOptions` the resolver returned; for a refused
        configuration, the one its `NpuConfigError` carries (`.ge_options`, its diagnostics
        hold the errors).
      refused: True when the resolver refused the configuration (the session or estimator
        was not created and `NpuConfigError` was raised, whether or not the script caught it).
      ignored: `(owner, GE keys)`: the global options of `ge_options` GE ignores, being
        initialized by `owner` ("Session#1"; NPB126), or None.
    """
    rec = Record(kind, name, ge_options, bool(refused), ignored_globals=ignored)
    with _lock:   # (with add_to_last's test: a finding is never left waiting behind a record)
        _records.append(rec)
        # (findings wait only before the first record: add_to_last adds them under _lock)
        waiting = RUN.take_pending() if RUN.pending else ()
    for cause, diagnostic in waiting:
        add_runtime_diagnostic(rec, cause, diagnostic)
    return rec


def record_refused(kind, name, error):
    """Record a configuration the resolver refused: `error` is the `NpuConfigError`; returns
    the record, which `error` is linked to (`record_of(error)`).

    Its partial `GeOptions` (`error.ge_options`: the options it would have resolved to and the
    product the resolver used) is recorded; when it has none, a `GeOptions` holding the
    error's diagnostics and its `product` attribute, if any. When the partial one holds fewer
    diagnostics than the error (a constructor's own checks on top of the resolver's), a copy
    with all of the error's diagnostics is recorded."""
    from npu_bridge.ge import GeOptions
    diagnostics = list(getattr(error, "diagnostics", ()))
    ge_options = getattr(error, "ge_options", None)
    if ge_options is None:
        ge_options = GeOptions(diagnostics=diagnostics, product=getattr(error, "product", None))
    elif list(getattr(ge_options, "diagnostics", ())) != diagnostics:
        try:
            ge_options = dataclasses.replace(ge_options, diagnostics=diagnostics)
        except TypeError:   # not a GeOptions dataclass: keep what it says about the product
            ge_options = GeOptions(diagnostics=diagnostics,
                                   product=getattr(ge_options, "product", None))
    rec = record(kind, name, ge_options, refused=True)
    link(error, rec)
    return rec


def add_runtime_diagnostic(rec, cause, diagnostic):
    """Attach `diagnostic` (an error raised while the script ran) to the record `rec`, once
    per `cause` (a hashable, e.g. the pair of graphs that executed at once) and at most
    `RUNTIME_LIMIT` in all. Returns True if it was added."""
    if rec is None:
        return False
    with _lock:
        if cause in rec.seen or len(rec.runtime) >= RUNTIME_LIMIT:
            return False
        rec.seen.add(cause)
        rec.runtime = tuple(rec.runtime) + (diagnostic,)
        return True


def add_to_last(cause, diagnostic):
    """Attach `diagnostic` to the configuration resolved last, or keep it for the next one
    (`RUN.pending`) when none was resolved yet."""
    with _lock:
        last = _records[-1] if _records else None
        if last is None:
            RUN.add_pending(cause, diagnostic)
            return True
    return add_runtime_diagnostic(last, cause, diagnostic)


def waiting():
    """The findings still waiting for a configuration (`RUN.pending`: made before any was
    resolved), `[Diagnostic]`, in order, left in place. At the end of a run these are the ones
    no configuration ever came for (a loss-scale manager's NPB176 in a script that opens no
    session): `npu-bridge run` reports them on their own (the report's `unattached`)."""
    with RUN.lock:
        return [diagnostic for _, diagnostic in RUN.pending]


def link(error, rec):
    """Mark `error` (an exception) as coming from the record `rec`."""
    try:
        setattr(error, _LINK_ATTR, rec)
    except (AttributeError, TypeError):
        pass


def record_of(error):
    """The record `error` was linked to (`link`), or None."""
    return getattr(error, _LINK_ATTR, None)


def records():
    """A copy of the list of records so far, in order (the records themselves, not copies),
    their deferred work done (`settle`)."""
    settle()
    with _lock:
        return list(_records)


def clear():
    """Forget the records and the findings waiting for one."""
    with _lock:
        del _records[:]
    RUN.take_pending()
