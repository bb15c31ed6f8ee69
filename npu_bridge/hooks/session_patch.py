"""The Session patch: what importing ``npu_bridge.npu_init`` does to ``tf.compat.v1.Session``.

Session creation is resolved, edited as the real adapter edits it, recorded and joined to the
process's GE initialization; ``run``/``make_callable``/``partial_run`` run iteration loops and
enter the static-memory concurrency guard (``npu_bridge.hooks.session_guard``). The state lives in
three objects: ``RESOLUTIONS`` (this module), ``GE_INITIALIZATION``
(``npu_bridge.ge.initialization``) and ``GUARD``. Design notes: docs/design.md.
"""
import dataclasses
import functools
import inspect
import os
import re
import sys
import threading

from npu_bridge.hooks import cluster as _cluster, session_guard
from npu_bridge.hooks.lazy import LazyModule
from npu_bridge.ge import records as _records
from npu_bridge.ge.config_schema import ESTIMATOR_GRAPPLER_OPTIMIZERS as _ESTIMATOR_GRAPPLER
from npu_bridge.hooks import loops as _loops, patching as _patching, state as _state
from npu_bridge.ge.initialization import GE_INIT_CODE, GE_INITIALIZATION, guarded_policy
from npu_bridge.hooks.session_guard import CONCURRENT_GRAPHS_CODE, GUARD, graph_key

# TensorFlow, loaded on first use (npu_bridge.hooks.lazy): importing this module imports none
config_pb2 = LazyModule("tensorflow.core.protobuf.config_pb2")
rewriter_config_pb2 = LazyModule("tensorflow.core.protobuf.rewriter_config_pb2")
_session_lib = LazyModule("tensorflow.python.client.session")
_ops = LazyModule("tensorflow.python.framework.ops")
_queue_runner_impl = LazyModule("tensorflow.python.training.queue_runner_impl")
# npu_bridge.ge's resolver is imported on first use (`RESOLUTIONS.ge()`): any `import
# npu_bridge` installs this patch once TensorFlow is imported, and a script whose sessions
# carry no NpuOptimizer should not pay for loading the option catalog.

__all__ = ["patch", "unpatch", "is_patched", "injects_defaults", "clear_caches",
           "find_npu_optimizer", "apply_npu_session_defaults", "cpu_session_config",
           "NPU_ONLY_OPTIMIZERS", "resolve_session_config", "log_diagnostics_once",
           "guarded_policy", "graph_key", "executing_graphs", "join_ge",
           "ignored_globals", "ignored_globals_diagnostic", "reset_ge_initialization",
           "ge_initialization",
           "GE_INIT_CODE", "CONCURRENT_GRAPHS_CODE", "RESOLUTIONS", "ResolutionCache"]

_NPU_OPTIMIZER = "NpuOptimizer"
# The environment variables npu_bridge.ge.resolve reads (its docstring): part of the cache key.
_RESOLVER_ENV = ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY", "ASCEND_WORK_PATH")
_RUN = _state.RUN
_guard_policy = _state.guard_policy
_patch_lock = threading.Lock()   # patch() / unpatch(); the patch's state is on the wrappers
_TAG = "session"   # its changes in npu_bridge.hooks.patching

# ---------------------------------------------------------------------------------------------
# ConfigProto handling

def find_npu_optimizer(config):
    """The first custom optimizer named NpuOptimizer of `config` (a ConfigProto), or None."""
    for custom_optimizer in config.graph_options.rewrite_options.custom_optimizers:
        if custom_optimizer.name == _NPU_OPTIMIZER:
            return custom_optimizer
    return None


def apply_npu_session_defaults(config, _has_npu_optimizer=None):
    """Edit `config` (a ConfigProto) in place the way the real adapter does and return it.

    Adds an NpuOptimizer custom optimizer when there is none (and only then turns
    memory_optimization OFF, as the real one), sets allow_soft_placement, clears
    log_device_placement, turns remapping OFF and the XLA global_jit_level OFF.
    """
    off, jit_off = rewriter_config_pb2.RewriterConfig.OFF, config_pb2.OptimizerOptions.OFF
    graph_options = config.graph_options
    rewrite = graph_options.rewrite_options
    if _has_npu_optimizer is None:
        _has_npu_optimizer = find_npu_optimizer(config) is not None
    if not _has_npu_optimizer:
        rewrite.custom_optimizers.add().name = _NPU_OPTIMIZER
        rewrite.memory_optimization = off
    # Writes only where needed: a protobuf write costs more than a read, and the same
    # config is often passed again and again.
    if not config.allow_soft_placement:
        config.allow_soft_placement = True
    if config.log_device_placement:
        config.log_device_placement = False
    if rewrite.remapping != off:
        rewrite.remapping = off
    optimizer_options = graph_options.optimizer_options
    if optimizer_options.global_jit_level != jit_off:
        optimizer_options.global_jit_level = jit_off
    return config


# Grappler optimizers only the NPU stack implements: the NpuOptimizer custom optimizer (the
# configuration carrier) and the NPU's gradient fusion pass the estimator's list ends with.
NPU_ONLY_OPTIMIZERS = frozenset((_NPU_OPTIMIZER, "GradFusionOptimizer"))


def cpu_session_config(config):
    """A copy of `config` (a ConfigProto) for TensorFlow's own CPU session.

    The NPU-only parts are reset to stock TensorFlow: custom optimizers named in
    `NPU_ONLY_OPTIMIZERS` removed; the estimator's grappler list removed from
    `rewrite_options.optimizers` (the caller's own entries kept, NPU-only names dropped);
    `remapping` and `memory_optimization` OFF (set by the adapter, or by Ascend scripts for
    the NPU) back to TensorFlow's DEFAULT. Everything else is kept as it is (also
    allow_soft_placement, log_device_placement and the XLA level the adapter sets).
    `config` itself is not modified.
    """
    cpu = config_pb2.ConfigProto()
    cpu.CopyFrom(config)
    rewrite = cpu.graph_options.rewrite_options
    customs = rewrite.custom_optimizers
    if any(o.name in NPU_ONLY_OPTIMIZERS for o in customs):
        kept = []
        for o in customs:
            if o.name not in NPU_ONLY_OPTIMIZERS:
                copy = rewriter_config_pb2.RewriterConfig.CustomGraphOptimizer()
                copy.CopyFrom(o)
                kept.append(copy)
        del customs[:]
        for o in kept:
            customs.add().CopyFrom(o)
    names = list(rewrite.optimizers)
    estimator = _ESTIMATOR_GRAPPLER   # the grappler list the real NPUEstimator appends
    n = len(estimator)
    while len(names) >= n and tuple(names[-n:]) == estimator:
        del names[-n:]
    names = [name for name in names if name not in NPU_ONLY_OPTIMIZERS]
    if names != list(rewrite.optimizers):
        del rewrite.optimizers[:]
        rewrite.optimizers.extend(names)
    off = rewriter_config_pb2.RewriterConfig.OFF
    if rewrite.remapping == off:
        rewrite.remapping = rewriter_config_pb2.RewriterConfig.DEFAULT
    if rewrite.memory_optimization == off:
        rewrite.memory_optimization = rewriter_config_pb2.RewriterConfig.DEFAULT_MEM_OPT
    return cpu


_env_snapshot = _state.environ(_RESOLVER_ENV)   # () -> their values (a cache key)
# a session creation's: the resolver's and RANK_SIZE (`_cluster.active()` when it is set)
_session_env = _state.environ(_RESOLVER_ENV + ("RANK_SIZE",))


class _Prepared:
    """What a session creation from one configuration needs (cached per content)."""
    __slots__ = ("ge_options", "cpu_config", "edit", "has_npu")

    def __init__(self, ge_options, cpu_config, edit, has_npu):
        self.ge_options = ge_options        # None: not the adapter's business (check only)
        self.cpu_config = cpu_config        # the copy handed to TensorFlow's session
        self.edit = edit                    # the caller's proto still needs the adapter's edits
        self.has_npu = has_npu


class ResolutionCache:
    """Resolutions and session preparations by content, handing out read-only results
    (`npu_bridge.ge.options.FrozenGeOptions`: one resolution is shared by every session of
    one configuration), and the diagnostics already logged in this process.

    `resolutions`: (serialized NpuOptimizer(s), env snapshot, forced product, `UserSet` of an
    NPUEstimator's rendered config or None) -> GeOptions.
    `sessions`: (whole serialized ConfigProto as passed, env snapshot, forced product, full
    patch?) -> `_Prepared`; a hit is the same content under the same environment, so the
    resolution, the edit decision and TensorFlow's CPU copy are those of the first time.
    Each holds at most `LIMIT` entries (then starts again). `edit_lock` serialises the
    in-place edit of a caller's ConfigProto."""

    LIMIT = 256

    def __init__(self):
        self._lock = threading.Lock()
        self.edit_lock = threading.Lock()
        self.resolutions = {}
        self.sessions = {}
        self._logged = set()           # diagnostics already logged once
        self._logged_results = {}      # id -> GeOptions whose diagnostics were all logged
        self._ge = None
        self._current_forced = None

    def ge(self):
        """The `npu_bridge.ge` package, imported on first use."""
        if self._ge is None:
            import npu_bridge.ge
            import npu_bridge.ge.products
            self._current_forced = getattr(npu_bridge.ge.products, "current_forced_product",
                                           lambda: None)
            self._ge = npu_bridge.ge
        return self._ge

    def forced_product(self):
        """The active `npu_bridge.ge.forced_product()` override (None when there is none)."""
        if self._current_forced is None:
            self.ge()
        return self._current_forced()

    def resolve(self, config, npu_optimizer=False):
        """See `resolve_session_config`."""
        if npu_optimizer is False:   # not looked up by the caller yet
            npu_optimizer = find_npu_optimizer(config) if config is not None else None
        customs = (config.graph_options.rewrite_options.custom_optimizers
                   if config is not None else ())
        # Not deterministic: a different map order only costs a cache miss, and is cheaper.
        if len(customs) > 1 or (npu_optimizer is None and customs):
            # resolve() reads every NpuOptimizer (merged in order) and warns about names close
            # to it: all of them are part of the key, not only the first NpuOptimizer
            blob = tuple(o.SerializeToString() for o in customs)
        else:
            blob = npu_optimizer.SerializeToString() if npu_optimizer is not None else b""
        # an NPUEstimator's sessions: the keys the user set through its NPURunConfig
        from npu_bridge.config.npu_config import rendered_user_set
        user_set = rendered_user_set(config)
        # the forced product (`npu-bridge run --product`) changes the result like the environment
        key = (blob, _env_snapshot(), self.forced_product(), user_set)
        ge_options = self.resolutions.get(key)
        if ge_options is None:
            if npu_optimizer is None:   # resolved as the adapter injects it: appended, others kept
                injected = config_pb2.ConfigProto()
                injected.graph_options.rewrite_options.custom_optimizers.extend(customs)
                injected.graph_options.rewrite_options.custom_optimizers.add().name = _NPU_OPTIMIZER
                config = injected
            ge_options = self.ge().resolve(config, user_set=user_set)
            ge_options.raise_for_errors()
            ge_options = ge_options.frozen()
            with self._lock:
                if len(self.resolutions) >= self.LIMIT:
                    self.resolutions.clear()
                    self._logged_results.clear()
                self.resolutions[key] = ge_options
        self.log_diagnostics_once(ge_options)
        return ge_options

    def log_diagnostics_once(self, ge_options):
        """Log each warning (and info) diagnostic of `ge_options` once per process."""
        if id(ge_options) in self._logged_results:   # a cached resolution seen before
            return
        for diag in ge_options.diagnostics:
            if diag.severity != "error":
                self.log_once(diag)
        with self._lock:
            self._logged_results[id(ge_options)] = ge_options   # held: the id stays its own

    def log_once(self, diag):
        """Log `diag` unless an identical diagnostic was logged before in this process."""
        key = (diag.code, diag.severity, diag.option, str(diag.value), diag.message)
        with self._lock:
            if key in self._logged:
                return
            self._logged.add(key)
        _loops.log_diagnostic(diag)

    def prepare(self, config, key, inject):
        """The slow path of a session creation: resolve (raises before any change), edit the
        caller's proto as the adapter does, build the CPU copy, and cache the result under the
        content as passed and the content after the edits."""
        npu_optimizer = find_npu_optimizer(config)
        if npu_optimizer is None and not inject:
            prepared = _Prepared(None, None, False, False)
            keys = (key,)
        else:
            ge_options = self.resolve(config, npu_optimizer)   # raises before any change
            keys = (key,)
            if inject:
                with self.edit_lock:   # one config shared by sessions opened from several
                    # threads: re-check under the lock, or each thread adds its own NpuOptimizer
                    apply_npu_session_defaults(config, npu_optimizer is not None
                                               or find_npu_optimizer(config) is not None)
                after = (config.SerializeToString(),) + key[1:]
                if after != key:
                    keys = (key, after)
            cpu_config = cpu_session_config(config)
            prepared = _Prepared(ge_options, cpu_config, False, True)
            if len(keys) == 2:   # the content as passed still needs the edits when seen again
                unedited = _Prepared(ge_options, cpu_config, True, npu_optimizer is not None)
        with self._lock:
            if len(self.sessions) >= self.LIMIT:
                self.sessions.clear()
            self.sessions[keys[-1]] = prepared
            if len(keys) == 2:
                self.sessions[keys[0]] = unedited
        return prepared

    def clear(self):
        """Forget cached resolutions and logged diagnostics."""
        with self._lock:
            self.resolutions.clear()
            self.sessions.clear()
            self._logged.clear()
            self._logged_results.clear()


RESOLUTIONS = ResolutionCache()


def resolve_session_config(config, npu_optimizer=False):
    """Resolve the NpuOptimizer(s) of `config` (a ConfigProto; none means all defaults).

    Several NpuOptimizers are merged by the resolver as the real adapter reads them (in
    order, later ones override); custom optimizers named close to NpuOptimizer get a warning.
    Results are cached by the serialized optimizer(s) and the relevant environment, so opening
    many sessions on one config costs one resolution. Logs each warning once per process.

    Returns:
      the `npu_bridge.ge.GeOptions`, read-only (`FrozenGeOptions`: shared by every caller of
      the same configuration).
    Raises:
      npu_bridge.ge.NpuConfigError: the configuration has errors (all of them attached).
    """
    return RESOLUTIONS.resolve(config, npu_optimizer)


def log_diagnostics_once(ge_options):
    """Log each warning (and info) diagnostic of `ge_options` once per process."""
    RESOLUTIONS.log_diagnostics_once(ge_options)


# GE initialization: the process's, once while NPU sessions are open (npu_bridge.ge.initialization)

def join_ge(ge_options, owner, number=None, plugin=False):
    """Register an NPU session (its `number`) or the plugin with the process's GE: the first
    one initializes it. Returns `(init, first)`: the `GeInit` in force and whether this call
    initialized it."""
    return GE_INITIALIZATION.join(ge_options, owner, number, plugin)


def ignored_globals(ge_options, init):
    """`(NPB126 diagnostic or None, ignored global GE keys)` for `ge_options` joining GE
    initialized by `init` (`GeInitialization.ignored_globals`)."""
    return GE_INITIALIZATION.ignored_globals(ge_options, init)


def ignored_globals_diagnostic(ge_options, init):
    """The NPB126 warning for `ge_options` joining GE initialized by `init`, or None
    (`npu_bridge.ge.initialization.GeInitialization.ignored_globals_diagnostic`)."""
    return GE_INITIALIZATION.ignored_globals_diagnostic(ge_options, init)


def reset_ge_initialization():
    """Forget how GE was initialized (npu_resource_shutdown finalizes GE; tests)."""
    GE_INITIALIZATION.reset()


def ge_initialization():
    """`(owner, GeOptions)` of the configuration GE is initialized with now, or None."""
    return GE_INITIALIZATION.initialized_with()


def executing_graphs():
    """How many distinct graphs guarded sessions are executing now (for tests and reports)."""
    return GUARD.executing_graphs()


# ---------------------------------------------------------------------------------------------
# Session.__init__

def _wrap_init(original):
    names = list(inspect.signature(original).parameters)
    config_index = names.index("config") - 1   # position among the args after self
    config_proto = config_pb2.ConfigProto   # (TensorFlow is loaded when patching)
    new_state = _state.SessionState

    def __init__(self, *args, **kwargs):
        # Every line here is paid per session creation (bench/bench_session.py): module
        # attributes are bound above, and each step is one call at most.
        config = kwargs.get("config")
        if config is None:
            if len(args) > config_index and args[config_index] is not None:
                config = args[config_index]
            else:
                config = config_proto()
        if not isinstance(config, config_proto):
            # Not ours to judge: stock TF raises its own TypeError.
            return original(self, *args, **kwargs)
        inject = __init__.inject_defaults
        cache = RESOLUTIONS
        # One C call that also serves as the change check: a new or changed configuration
        # (or environment / forced product) misses and is resolved again.
        # An NPUEstimator's config is also told apart by identity (npu_config.rendered_user_set:
        # same content, other user keys): the render module is loaded once one was rendered.
        render = sys.modules.get("npu_bridge.config._render")
        env = _session_env()
        key = (config.SerializeToString(), env, _RUN.forced_product, inject,
               render.identity_user_set(config) if render is not None else None)
        prepared = cache.sessions.get(key)
        if prepared is None:
            try:
                prepared = cache.prepare(config, key, inject)
            except Exception as err:
                self._session = None   # BaseSession.__del__ reads it on this half-built object
                if isinstance(err, cache.ge().NpuConfigError):
                    # Recorded as refused: `npu-bridge run` counts it even if the script
                    # catches it.
                    _records.record_refused(
                        "session", GE_INITIALIZATION.next_name(type(self).__name__), err)
                raise
        ge_options = prepared.ge_options
        cluster = env[-1] is not None and _cluster.active()
        if cluster:   # a rank of a multi-rank job: sessions open on its server
            kwargs, args = _cluster.session_kwargs(self, args, kwargs), ()
        if ge_options is None:
            # check only: a config without NpuOptimizer is not the adapter's business
            return original(self, *args, **kwargs)
        cache.log_diagnostics_once(ge_options)
        if prepared.edit:
            with cache.edit_lock:   # see ResolutionCache.prepare
                apply_npu_session_defaults(config, prepared.has_npu
                                           or find_npu_optimizer(config) is not None)
        # TensorFlow's CPU session gets the copy without the NPU-only rewrite settings
        # (`cpu_session_config`); the caller's proto and `self._config` keep the NPU's.
        kwargs["config"] = prepared.cpu_config
        if len(args) > config_index:
            args = args[:config_index] + args[config_index + 1:]
        if cluster and _state.is_cluster(self):
            kwargs, args = _cluster.session_kwargs(self, args, kwargs), ()
        original(self, *args, **kwargs)
        self._config = config
        # leaves on close(), or when collected unclosed (npu_bridge.hooks.state)
        name, number, init, first = GE_INITIALIZATION.open_session(type(self).__name__,
                                                                   ge_options)
        ignored_keys = ()
        if not first:
            ignored, ignored_keys = GE_INITIALIZATION.ignored_globals(ge_options, init)
            if ignored is not None:
                cache.log_once(ignored)
                ge_options = dataclasses.replace(ge_options, diagnostics=list(
                    ge_options.diagnostics) + [ignored])
        # the policy is the process's: the one GE was initialized with ("GE initialization");
        # the record takes run-time refusals (NPB123); created_at: where NPB123 says it was made
        record = _records.record("session", name, ge_options,
                                 ignored=(init.owner, ignored_keys) if ignored_keys else None)
        if cluster:   # its state exists (`_cluster.session_kwargs` marked it)
            _state.attach(self, ge_options=ge_options, guard_policy=init.policy, ge_init=init,
                          ge_number=number, created_at=_created_at(), record=record)
        else:
            _state.register(self, new_state(ge_options, record, init.policy, init, number,
                                            _created_at()))

    __init__.inject_defaults = False
    return __init__


# ---------------------------------------------------------------------------------------------
# Session.run: iteration loops and the concurrency guard (npu_bridge.hooks.session_guard)

def _find_loop(fetches, loops, depth=0):
    """(op, N) of the first registered loop op in the fetch structure, or None."""
    if isinstance(fetches, _ops.Operation):
        n = loops.get(fetches)
        return (fetches, n) if n else None
    if depth > 8:
        return None
    if isinstance(fetches, (list, tuple)):
        items = fetches
    elif isinstance(fetches, dict):
        items = fetches.values()
    else:
        return None
    for item in items:
        found = _find_loop(item, loops, depth + 1)
        if found:
            return found
    return None




def _wrap_create_threads(original):
    def create_threads(self, sess, coord=None, daemon=False, start=False):
        # A runner started by hand, never added to the collection, is the input pipeline too:
        # note it for its graph before its threads run (once per runner).
        enqueue_ops = getattr(self, "enqueue_ops", None)
        graph = getattr(enqueue_ops[0], "graph", None) if enqueue_ops else None
        if graph is not None and not session_guard.in_collection(graph, self):
            GUARD.note_runner(graph, self)
        return original(self, sess, coord, daemon, start)

    return create_threads


def _wrap_run(original):
    stock = original
    single = session_guard.single_fetch_types()   # (TensorFlow is loaded when patching)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if _RUN.capture:   # npu-bridge run / memory: the GE graph of this fetch set
            if _capture_graph(self, fetches, feed_dict):   # memory --steps 0: not computed
                from npu_bridge.hooks import graph_capture as _graph_capture
                return _graph_capture.not_computed(self, fetches, feed_dict)
        # --precision emulate: the NPU's precision (npu_bridge.hooks.precision_emulation);
        # its counts go to the graph of these fetches (an iteration loop's extra runs too)
        original = _precision_run(self, stock, fetches, feed_dict) if _RUN.precision else stock
        policy = _guard_policy(self)
        if policy is not None:
            graph = self._graph
            if GUARD.may_have_runners(graph) and GUARD.is_queue_runner_run(graph, fetches):
                policy = None   # the host-side input pipeline of QueueRunner threads: no GE graph
        loops = _loops.loop_ops_of(self._graph) if _loops.any_loops() else None
        if policy is None and loops is None:
            return original(self, fetches, feed_dict, options, run_metadata)
        if policy is not None:
            # every guarded run pays this: graph_key's own answer for one fetch, no feeds
            if type(fetches) in single and not feed_dict:
                key = (id(self), id(graph), id(fetches), None)
            else:
                key = graph_key(graph, fetches, feed_dict, self)
            guard = GUARD
            guard.enter(key, policy, self, fetches)
            try:
                if loops is None:
                    return original(self, fetches, feed_dict, options, run_metadata)
                return _run_loop(original, self, loops, fetches, feed_dict, options, run_metadata)
            finally:
                guard.leave(key)
        return _run_loop(original, self, loops, fetches, feed_dict, options, run_metadata)

    return run


def _created_at():
    """`file:line` of the script's call that is creating a session: the first frame outside
    npu_bridge and TensorFlow (None when there is none)."""
    frame = sys._getframe(2)   # pylint: disable=protected-access
    while frame is not None:
        where = _script_file(frame.f_code.co_filename)
        if where is not None:
            return "%s:%d" % (where, frame.f_lineno)
        frame = frame.f_back
    return None


_IN_PACKAGES = re.compile(r"[\\/](npu_bridge|tensorflow|tensorflow_estimator|keras)[\\/]|^<frozen ")


@functools.lru_cache(maxsize=512)
def _script_file(path):
    """The base name of `path` when it is a script's file (not npu_bridge's, TensorFlow's or
    Python's own), else None. Memoized: a session creation walks the same few files."""
    return None if _IN_PACKAGES.search(path) else os.path.basename(path)


def _precision_run(session, stock, fetches, feed_dict):
    known = _state.of(session)
    if known is None or known.record is None:
        return stock
    from npu_bridge.hooks import precision_emulation as _emulation   # loaded when on
    return _emulation.wrap_run(session, stock, graph_of=(fetches, feed_dict))


def _through_run(session):
    """True when `session`'s callables are to run through `Session.run`: `npu-bridge run` /
    `memory` / `partition` (graph capture) or the precision emulation is on and the session is
    an NPU one. TensorFlow's C callables (`make_callable` without a feed list,
    `_make_callable_from_options`: what Keras's graph-mode functions run) bypass `run`, so
    their graphs would be neither captured nor counted while running the emulation's rewrite
    (docs/keras.md)."""
    if not (_RUN.capture or _RUN.precision):
        return False
    known = _state.of(session)
    return known is not None and known.record is not None


def _run_callable(session, fetches, accept_options):
    """`make_callable(fetches)` (no feed list) as calls of `session.run`."""
    if accept_options:
        def call(options=None, run_metadata=None):
            return session.run(fetches, options=options, run_metadata=run_metadata)
    else:
        def call():
            return session.run(fetches)
    return call


def _wrap_make_callable_from_options(original):
    """Keras's graph-mode functions: through `Session.run` while `_through_run`, else as the
    multi-rank wrapper (`_cluster.wrap_make_callable_from_options`) decides."""
    cluster_make = _cluster.wrap_make_callable_from_options(original)

    def _make_callable_from_options(self, callable_options):
        if not _through_run(self):
            return cluster_make(self, callable_options)
        if not callable_options.tensor_connection:
            return _cluster.callable_through_run(self, callable_options)
        call = cluster_make(self, callable_options)   # tensor connections: run has none

        def uncaptured(*args, **kwargs):
            if _RUN.capture:
                from npu_bridge.hooks import graph_capture as _graph_capture
                _graph_capture.note_uncaptured(self, "a callable with tensor connections")
            return call(*args, **kwargs)
        return uncaptured

    return _make_callable_from_options


def _capture_graph(session, fetches, feed_dict):
    """Capture the GE graph of this run; True when the run is not to be computed:
    `npu-bridge memory --steps 0` computes no run of an NPU session (docs/memory.md)."""
    from npu_bridge.hooks import graph_capture as _graph_capture  # TF side of the memory plan: loaded when on
    _graph_capture.note_run(session, fetches, feed_dict)
    if _RUN.steps is not None:   # npu-bridge memory --steps N: plan, do not run, step N+1
        _graph_capture.count_step(session, fetches, feed_dict)
        if _RUN.steps == 0:
            known = _state.of(session)
            return known is not None and known.record is not None
    return False


def _wrap_make_callable(original):
    def make_callable(self, fetches, feed_list=None, accept_options=False):
        call = original(self, fetches, feed_list, accept_options)   # (its checks of fetches)
        if feed_list is None and _through_run(self) and not GUARD.is_queue_runner_run(
                self._graph, fetches):
            return _run_callable(self, fetches, accept_options)   # captured and emulated
        policy = _guard_policy(self)
        if policy is None:
            return call   # nothing to watch: the stock callable, no overhead
        if feed_list is None and GUARD.is_queue_runner_run(self._graph, fetches):
            return call   # QueueRunner threads run their enqueue op through a callable
        # One GE graph per (tf.Graph, fetch set, feed set), as for run(); computed once. The
        # closure holds fetches and feeds, so the ids in the key stay theirs.
        key = graph_key(self._graph, fetches, feed_list, self)

        def guarded_callable(*args, **kwargs):
            GUARD.enter(key, policy, self, fetches)
            try:
                return call(*args, **kwargs)
            finally:
                GUARD.leave(key)

        guarded_callable._npu_guarded = True
        guarded_callable._npu_fetches = (fetches, feed_list)
        return guarded_callable

    return make_callable


def _wrap_partial_run(original):
    def partial_run(self, handle, fetches, feed_dict=None):
        if _RUN.capture:   # not a graph the capture reads: named as not captured
            from npu_bridge.hooks import graph_capture as _graph_capture
            _graph_capture.note_uncaptured(self, "partial_run")
        policy = _guard_policy(self)
        if policy is None:
            return original(self, handle, fetches, feed_dict)
        key = (id(self), id(self._graph), "partial_run", handle)   # one per partial_run_setup
        GUARD.enter(key, policy, self, fetches)
        try:
            return original(self, handle, fetches, feed_dict)
        finally:
            GUARD.leave(key)

    return partial_run


def _wrap_close(original):
    def close(self):
        try:
            return original(self)
        finally:
            known = _state.of(self)
            if known is not None and known.ge_number is not None:
                # once: TensorFlow's __del__ closes again, and the collection would leave too
                number, known.ge_number = known.ge_number, None
                GE_INITIALIZATION.leave(number)

    return close


def _run_loop(original, sess, loops, fetches, feed_dict, options, run_metadata):
    found = _find_loop(fetches, loops) if loops else None
    if found:
        loop_op, n = found
        for _ in range(n - 1):
            original(sess, loop_op, feed_dict, options, None)
    return original(sess, fetches, feed_dict, options, run_metadata)

# ---------------------------------------------------------------------------------------------
# patch / unpatch

def _wrap_run_and_cluster(original):
    """`_wrap_run` over `_cluster.wrap_run` (multi-rank runs: docs/collectives.md); unpatch
    gives back `original`."""
    return _wrap_run(_cluster.wrap_run(original))


def _targets():
    return [(_session_lib.Session, "__init__", _wrap_init),
            (_session_lib.InteractiveSession, "__init__", _wrap_init),
            (_session_lib.BaseSession, "run", _wrap_run_and_cluster),
            (_session_lib.BaseSession, "make_callable", _wrap_make_callable),
            # Keras' graph-mode functions: through run when captured or emulated, or in a
            # multi-rank process (cluster)
            (_session_lib.BaseSession, "_make_callable_from_options",
             _wrap_make_callable_from_options),
            (_session_lib.BaseSession, "partial_run", _wrap_partial_run),
            (_session_lib.BaseSession, "close", _wrap_close),
            (_queue_runner_impl.QueueRunner, "create_threads", _wrap_create_threads)]


def _inits():
    return [cls.__dict__["__init__"] for cls in (_session_lib.Session,
                                                  _session_lib.InteractiveSession)]


def patch(inject_defaults=True):
    """Install the patch (idempotent: a second call changes nothing). Returns True if this
    call installed it.

    `inject_defaults=False` (what any `import npu_bridge...` installs once TensorFlow is
    imported, as the real adapter library checks every NpuOptimizer it is given): only
    sessions whose config carries an NpuOptimizer are resolved, checked, recorded and guarded,
    and the caller's proto is not edited. `inject_defaults=True` (`npu_init`, as the real one):
    also the NpuOptimizer and rewrite defaults of `apply_npu_session_defaults`, and sessions
    without a config or NpuOptimizer resolved with all defaults. A check-only patch is upgraded
    by `patch()`; never downgraded."""
    # TensorFlow first, outside the lock: when this imports it, its import installs the
    # check-only patch (`npu_bridge._check_sessions`), and this call then upgrades it
    targets = _targets()
    with _patch_lock:
        installed = not is_patched()
        if installed:
            for cls, name, make in targets:
                _patching.wrap(cls, name, make, _TAG)
        if inject_defaults:
            for init in _inits():
                init.inject_defaults = True
        return installed


def unpatch():
    """Restore the original Session methods. Returns True if a patch was removed.

    Sessions created while patched keep their NPU config but are no longer guarded."""
    _targets()   # (TensorFlow first, outside the lock: see `patch`)
    with _patch_lock:
        return _patching.undo(_TAG) > 0


def is_patched():
    """True while Session.__init__ is wrapped by this module."""
    return _patching.wrapped(_session_lib.Session, "__init__")


def injects_defaults():
    """True when the patch is the full one (`npu_init`), False when it only checks."""
    return is_patched() and _session_lib.Session.__dict__["__init__"].inject_defaults


def clear_caches():
    """Forget cached resolutions and logged diagnostics (tests; a changed catalog)."""
    RESOLUTIONS.clear()

