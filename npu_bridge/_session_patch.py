"""The Session patch: what importing ``npu_bridge.npu_init`` does to ``tf.compat.v1.Session``.

The real adapter wraps ``Session.__init__`` and ``InteractiveSession.__init__``
(``decorator_tf_session`` / ``set_npu_default_config`` in its ``npu_config.py``): the config
the caller passes (or a fresh ``ConfigProto`` when none) gets an ``NpuOptimizer`` custom
optimizer if it has none (and then ``memory_optimization`` OFF), ``allow_soft_placement`` on,
``log_device_placement`` off, ``remapping`` OFF and the XLA ``global_jit_level`` OFF. Like the
real one, this edits the caller's proto in place (a script that inspects its config after
creating the session sees the same fields as on the NPU).

On top of that, each session creation here:
- resolves the ``NpuOptimizer`` ``parameter_map`` with ``npu_bridge.ge.resolve``; errors raise
  ``NpuConfigError`` *before* anything happens (the caller's proto is left untouched, no session
  exists; the refused configuration is recorded with ``refused=True`` and its diagnostics, so
  ``npu-bridge run`` counts it even when the script catches the error); warnings are logged once per process through
  ``tf.compat.v1.logging``; the result is recorded with ``npu_bridge._records.record``;
- joins the process's GE initialization (section "GE initialization"): the first NPU session
  initializes GE with its global options; one opened while another is open runs with those
  (warning NPB126 on its record); closing the last one finalizes GE;
- under an effective ``static_memory_policy`` of 2 or 4 *of the process* (the options GE was
  initialized with) arms the concurrency guard (below);
- hands TensorFlow's own (CPU) session a copy of the config without the NPU-only parts
  (``cpu_session_config``: no ``NpuOptimizer`` / ``GradFusionOptimizer``, no estimator
  grappler list, ``remapping`` and ``memory_optimization`` OFF back to TF's default), since
  those settings switch off TensorFlow's CPU optimizations (MatMul+BiasAdd+Relu fusion...)
  and cost the MLP bench ~25% per step. The caller's proto, ``Session._config``, the
  estimator's ``config.session_config``, the resolver and the report keep the NPU config as
  the adapter writes it. Everything per creation is cached by the serialized config as
  passed (plus the resolver's environment variables and the forced product), so a new or
  changed config is always resolved again; an unchanged one costs one serialization.

``BaseSession.run`` is wrapped too, for two things:
- iteration loops: a run whose fetches contain a loop op registered in
  ``npu_bridge.estimator.npu.util`` (``set_iteration_per_loop``, ``NPUEstimator``) runs that op
  N - 1 times with the same feeds, then the full fetches once, and returns that last result;
  so one run advances N steps, as one run on the NPU executes N device iterations.
- the static-memory concurrency guard (seed doc: static_memory_policy 2 or 4 does not support
  graphs that execute concurrently). A "graph" is what GE compiles: the adapter builds one GE
  graph per distinct (tf.Graph, fetch set, feed set) in each session's own GE session, so two
  subgraphs of one tf.Graph are two graphs, and so is one subgraph run by two sessions. When
  a guarded run starts while a *different* graph is executing in any guarded session of the
  process, the later run raises ``NpuConfigError`` naming the policy; the earlier run is not
  disturbed. The *same* graph of one session run from two threads is one GE graph whose
  executions GE serialises: not refused (and not serialised here: stock TF runs them
  concurrently). Policies 0 and 3 never refuse. ``Session.make_callable`` (Keras graph mode
  uses it) is watched too: under policy 2 or 4 its callable enters the guard on each call
  with the key of its fetches and feeds (the same graph as ``run`` of them); under other
  policies the stock callable is returned unchanged. Each ``partial_run`` step enters the
  guard as the graph of its ``partial_run_setup`` handle. Iteration loops apply to ``run``
  only. Not a graph: a run (or callable) whose fetches are all ops of the graph's
  QueueRunners (the ``tf.compat.v1.GraphKeys.QUEUE_RUNNERS`` collection, and any runner
  started with its own ``create_threads``, which the patch wraps to note it: each runner's
  ``enqueue_ops``, ``close_op``, ``cancel_op``), what QueueRunner threads run next to the
  training step; on the NPU that is the host-side input pipeline, not
  a GE graph on the device, so it is never refused (the op set is cached per graph and
  rebuilt when the collection's length changes; sessions without the guard pay nothing).
  Each refusal is also recorded with the configuration of the session that hit it
  (``npu_bridge._records.add_runtime_diagnostic``: once per set of graphs that executed
  together, bounded), so ``npu-bridge run`` exits 1 on it even when the script catches the
  error or a thread dies of it; the message names the policy as set (``1 (runs as 2)``).

``patch()`` is idempotent; ``unpatch()`` restores the original methods. Any ``import
npu_bridge...`` installs ``patch(inject_defaults=False)`` once TensorFlow is imported (check
only: sessions whose config carries an ``NpuOptimizer`` are resolved, recorded and guarded,
the caller's proto is not edited, and loops are honoured), as the real adapter library checks
every ``parameter_map`` it is given; ``npu_init`` upgrades it to the full patch.
"""
import dataclasses
import inspect
import itertools
import os
import threading
import weakref

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.client import session as _session_lib
from tensorflow.python.framework import ops as _ops
from tensorflow.python.training import queue_runner_impl as _queue_runner_impl

from npu_bridge import _records
from npu_bridge.estimator.npu import util as _util
# npu_bridge.ge (the resolver layer) is imported on first use (`_ge()`): any `import
# npu_bridge` installs this patch once TensorFlow is imported, and a script whose sessions
# carry no NpuOptimizer should not pay for loading the option catalog.

_NPU_OPTIMIZER = "NpuOptimizer"
_OFF = rewriter_config_pb2.RewriterConfig.OFF
_JIT_OFF = config_pb2.OptimizerOptions.OFF
_POLICY_KEY = "ge.exec.staticMemoryPolicy"
_GUARDED_POLICIES = frozenset(("2", "4"))
# The environment variables npu_bridge.ge.resolve reads (its docstring): part of the cache key.
_RESOLVER_ENV = ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY", "ASCEND_WORK_PATH")
# Code of the run-time concurrency refusal (npu_bridge.ge.diagnostics.CODES).
CONCURRENT_GRAPHS_CODE = "NPB123"

_patch_lock = threading.Lock()
_inject_defaults = False  # full patch (npu_init) or check only (any other npu_bridge import)
_apply_lock = threading.Lock()     # the in-place edit of a caller's ConfigProto
_originals = {}           # (class, attribute) -> original function
_session_numbers = itertools.count(1)

_cache_lock = threading.Lock()
_resolution_cache = {}    # (serialized NpuOptimizer, env snapshot) -> GeOptions
_CACHE_LIMIT = 256

# Session creations: (whole serialized ConfigProto as passed, env snapshot, forced product,
# full patch?) -> _Prepared. A hit means the same content under the same environment, so the
# resolution, the edit decision and TensorFlow's CPU copy are those of the first time.
_session_cache = {}

_logged_lock = threading.Lock()
_logged = set()           # diagnostics already logged once
_logged_results = {}      # id -> GeOptions whose diagnostics were all logged

_guard_lock = threading.Lock()
_guard_acquire, _guard_release = _guard_lock.acquire, _guard_lock.release
_executing = {}           # graph key -> number of guarded runs executing it

_ge_init_lock = threading.Lock()
_ge_init = None           # _GeInit: GE as initialized for the process (see "GE initialization")


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
    graph_options = config.graph_options
    rewrite = graph_options.rewrite_options
    if _has_npu_optimizer is None:
        _has_npu_optimizer = find_npu_optimizer(config) is not None
    if not _has_npu_optimizer:
        rewrite.custom_optimizers.add().name = _NPU_OPTIMIZER
        rewrite.memory_optimization = _OFF
    # Writes only where needed: a protobuf write costs more than a read, and the same
    # config is often passed again and again.
    if not config.allow_soft_placement:
        config.allow_soft_placement = True
    if config.log_device_placement:
        config.log_device_placement = False
    if rewrite.remapping != _OFF:
        rewrite.remapping = _OFF
    optimizer_options = graph_options.optimizer_options
    if optimizer_options.global_jit_level != _JIT_OFF:
        optimizer_options.global_jit_level = _JIT_OFF
    return config


# Grappler optimizers only the NPU stack implements: the NpuOptimizer custom optimizer (the
# configuration carrier) and the NPU's gradient fusion pass the estimator's list ends with.
NPU_ONLY_OPTIMIZERS = frozenset((_NPU_OPTIMIZER, "GradFusionOptimizer"))
# The grappler list the real NPUEstimator appends to rewrite_options.optimizers is
# `_util._ESTIMATOR_GRAPPLER_OPTIMIZERS`, read when used: `util` may still be importing
# TensorFlow (which installs this patch) when this module is loaded.


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
    estimator = _util._ESTIMATOR_GRAPPLER_OPTIMIZERS  # pylint: disable=protected-access
    n = len(estimator)
    while len(names) >= n and tuple(names[-n:]) == estimator:
        del names[-n:]
    names = [name for name in names if name not in NPU_ONLY_OPTIMIZERS]
    if names != list(rewrite.optimizers):
        del rewrite.optimizers[:]
        rewrite.optimizers.extend(names)
    if rewrite.remapping == _OFF:
        rewrite.remapping = rewriter_config_pb2.RewriterConfig.DEFAULT
    if rewrite.memory_optimization == _OFF:
        rewrite.memory_optimization = rewriter_config_pb2.RewriterConfig.DEFAULT_MEM_OPT
    return cpu


_ENV_BYTES = getattr(os.environ, "_data", None)   # CPython's raw environment dict (bytes keys)
_RESOLVER_ENV_KEYS = tuple(os.environ.encodekey(name) for name in _RESOLVER_ENV) \
    if _ENV_BYTES is not None else _RESOLVER_ENV


def _env_snapshot():
    # os.environ.get on a missing key goes through KeyError (tens of microseconds for three
    # names); the raw dict answers at once and is what os.environ itself updates.
    if _ENV_BYTES is not None:
        get = _ENV_BYTES.get
        return tuple(get(name) for name in _RESOLVER_ENV_KEYS)
    return tuple(os.environ.get(name) for name in _RESOLVER_ENV)


_ge_module = None
_current_forced = None


def _ge():
    """The `npu_bridge.ge` package, imported on first use."""
    global _ge_module, _current_forced
    if _ge_module is None:
        import npu_bridge.ge
        import npu_bridge.ge.products
        _current_forced = getattr(npu_bridge.ge.products, "current_forced_product",
                                  lambda: None)
        _ge_module = npu_bridge.ge
    return _ge_module


def _forced_product():
    """The active `npu_bridge.ge.forced_product()` override (None when there is none)."""
    if _current_forced is None:
        _ge()
    return _current_forced()


def resolve_session_config(config, npu_optimizer=False):
    """Resolve the NpuOptimizer(s) of `config` (a ConfigProto; none means all defaults).

    Several NpuOptimizers are merged by the resolver as the real adapter reads them (in
    order, later ones override); custom optimizers named close to NpuOptimizer get a warning.
    Results are cached by the serialized optimizer(s) and the relevant environment, so opening
    many sessions on one config costs one resolution. Logs each warning once per process.

    Returns:
      the `npu_bridge.ge.GeOptions`.
    Raises:
      npu_bridge.ge.NpuConfigError: the configuration has errors (all of them attached).
    """
    if npu_optimizer is False:   # not looked up by the caller yet
        npu_optimizer = find_npu_optimizer(config) if config is not None else None
    customs = config.graph_options.rewrite_options.custom_optimizers if config is not None else ()
    # Not deterministic: a different map order only costs a cache miss, and is cheaper.
    if len(customs) > 1 or (npu_optimizer is None and customs):
        # resolve() reads every NpuOptimizer (merged in order) and warns about names close
        # to it: all of them are part of the key, not only the first NpuOptimizer
        blob = tuple(o.SerializeToString() for o in customs)
    else:
        blob = npu_optimizer.SerializeToString() if npu_optimizer is not None else b""
    # the forced product (`npu-bridge run --product`) changes the result like the environment
    key = (blob, _env_snapshot(), _forced_product())
    ge_options = _resolution_cache.get(key)
    if ge_options is None:
        if npu_optimizer is None:   # resolved as the adapter injects it: appended, others kept
            injected = config_pb2.ConfigProto()
            injected.graph_options.rewrite_options.custom_optimizers.extend(customs)
            injected.graph_options.rewrite_options.custom_optimizers.add().name = _NPU_OPTIMIZER
            config = injected
        ge_options = _ge().resolve(config)
        ge_options.raise_for_errors()
        with _cache_lock:
            if len(_resolution_cache) >= _CACHE_LIMIT:
                _resolution_cache.clear()
                _logged_results.clear()
            _resolution_cache[key] = ge_options
    log_diagnostics_once(ge_options)
    return ge_options


def log_diagnostics_once(ge_options):
    """Log each warning (and info) diagnostic of `ge_options` once per process."""
    if id(ge_options) in _logged_results:   # a cached resolution seen before: nothing new
        return
    for diag in ge_options.diagnostics:
        if diag.severity != "error":
            _log_once(diag)
    with _logged_lock:
        _logged_results[id(ge_options)] = ge_options   # held, so the id stays this object's


def guarded_policy(ge_options):
    """The effective static_memory_policy as a string if it is 2 or 4, else None."""
    policy = ge_options.effective.get(_POLICY_KEY)
    if policy is None:
        policy = ge_options.global_options.get(_POLICY_KEY)
    return policy if policy in _GUARDED_POLICIES else None


# ---------------------------------------------------------------------------------------------
# GE initialization: once per process while NPU sessions are open
#
# The real adapter initializes GE (GEInitialize, the global options) once: GePlugin::Init
# returns at once when GE is already initialized, and a session's GeOp finalizes GE only when
# no GE session is left and GE was not initialized by npu_resource_init (PluginInit, "global")
# (hicann/tensorflow tf_adapter/util/ge_plugin.cc, tf_adapter/kernels/geop_npu.cc
# GeOp::Finalize). So while one NPU session is open, a second session's global options,
# static_memory_policy among them, are ignored: the process runs with the first's. Modelled
# here at session creation (on the NPU: the first graph run) and close.

GE_INIT_CODE = "NPB126"
_GE_INIT_SOURCE = ("hicann/tensorflow tf_adapter/util/ge_plugin.cc (GePlugin::Init returns when GE is "
                   "already initialized), tf_adapter/kernels/geop_npu.cc (GeOp::Finalize "
                   "finalizes GE only when no GE session is left; ge::Session gets only "
                   "NpuAttrs::GetSessOptions)")
_ge_session_numbers = itertools.count(1)


class _GeInit:
    """GE as initialized for this process: `owner` (who initialized it: "Session#1",
    "npu_plugin.npu_resource_init"), its `ge_options`, the static-memory `policy` the
    process runs with (2 or 4 as a string, else None: `guarded_policy`), `live` (numbers of
    the NPU sessions open with it) and `plugin` (initialized by npu_resource_init: kept
    until npu_resource_shutdown)."""
    __slots__ = ("owner", "ge_options", "policy", "live", "plugin")

    def __init__(self, owner, ge_options, plugin):
        self.owner, self.ge_options, self.plugin = owner, ge_options, plugin
        self.policy = guarded_policy(ge_options)
        self.live = set()


def join_ge(ge_options, owner, number=None, plugin=False):
    """Register an NPU session (its `number`) or the plugin with the process's GE: the first
    one initializes it. Returns `(init, first)`: the `_GeInit` in force and whether this call
    initialized it."""
    global _ge_init
    with _ge_init_lock:
        first = _ge_init is None
        if first:
            _ge_init = _GeInit(owner, ge_options, plugin)
        if number is not None:
            _ge_init.live.add(number)
        return _ge_init, first


def _leave_ge(number):
    """An NPU session closed (or was collected): GE is finalized with the last one, unless
    npu_resource_init initialized it."""
    global _ge_init
    with _ge_init_lock:
        init = _ge_init
        if init is None or number not in init.live:
            return
        init.live.discard(number)
        if not init.live and not init.plugin:
            _ge_init = None


def reset_ge_initialization():
    """Forget how GE was initialized (npu_resource_shutdown finalizes GE; tests)."""
    global _ge_init
    with _ge_init_lock:
        _ge_init = None


def ge_initialization():
    """`(owner, GeOptions)` of the configuration GE is initialized with now, or None."""
    init = _ge_init
    return None if init is None else (init.owner, init.ge_options)


def _shown_value(value):
    return "unset (its default)" if value is None else repr(value)


def _option_index():
    """GE key -> (parameter_map key, its default texts) from the catalog rows, and the GE
    keys GE reads (reference ge_option_scopes.json)."""
    if not _OPTION_INDEX:
        from npu_bridge.ge import catalog, resolver
        from npu_bridge.ge._scopes import SCOPES
        index = {}
        for row in catalog.OPTIONS:
            if not row.key:
                continue
            # the texts the adapter sends for the row's default (the resolver's text rule)
            defaults = {t for t in (row.adapter_default, None if row.default is None
                                    else resolver._text(row.default))  # pylint: disable=protected-access
                        if t is not None}
            for gk in [r.key for r in row.routes] + [row.ge_key, row.plugin_key]:
                if gk:
                    index.setdefault(gk, (row.key, frozenset(defaults)))
        _OPTION_INDEX.append((index, frozenset(SCOPES)))
    return _OPTION_INDEX[0]


_OPTION_INDEX = []
_UNSET_TEXTS = ("", "None")   # "None": what the real npu_resource_init sends for an unset argument


def ignored_globals_diagnostic(ge_options, init):
    """The NPB126 warning for `ge_options` joining GE initialized by `init`, or None.

    Per option (the GE keys GE reads, grouped by the parameter_map key they come from): an
    option this configuration sends is ignored when GE runs another value for it, or, when
    GE was initialized without it, when this configuration chose a value other than its
    default (GE then runs its own default). The same value under another spelling of the
    option, and "unset" both ways, are not differences. Nor is an option this configuration
    also sends at the session level: the adapter gives ge::Session its session options
    (NpuAttrs::GetSessOptions) and GE prefers them to the global ones
    (InnerSession::Initialize), so that value applies to this session's graphs."""
    index, read = _option_index()
    mine, applied = ge_options.global_options, init.ge_options.global_options
    per_session = {index.get(key, (key,))[0] for key, text in ge_options.session_options.items()
                   if text not in _UNSET_TEXTS}
    options = {}   # parameter_map key -> (my values, GE's values, defaults)
    for key in set(mine) | set(applied):
        if key not in read:
            continue   # a spelling GE does not read: no effect either way
        name, defaults = index.get(key, (key, frozenset()))
        if name in per_session:
            continue   # reaches GE through this session's own options
        entry = options.setdefault(name, (set(), set(), defaults))
        if mine.get(key) not in (None,) + _UNSET_TEXTS:
            entry[0].add(mine[key])
        if applied.get(key) not in (None,) + _UNSET_TEXTS:
            entry[1].add(applied[key])
    differ = []
    for name, (wanted, runs, defaults) in sorted(options.items()):
        if not wanted or wanted & runs:
            continue
        if not runs and wanted <= defaults:
            continue   # a default this configuration did not choose
        differ.append((name, sorted(wanted)[0], sorted(runs)[0] if runs else None))
    if not differ:
        return None
    listed = "; ".join("%s %s (GE runs %s)" % (k, _shown_value(v), _shown_value(a))
                       for k, v, a in differ[:8])
    if len(differ) > 8:
        listed += "; and %d more" % (len(differ) - 8)
    from npu_bridge.ge.diagnostics import make
    key, value, _ = differ[0]
    advice = ("pass them to npu_resource_init, or call npu_resource_shutdown first"
              if init.plugin else "close the other NPU sessions first, or give every session "
              "the same global options")
    return make(GE_INIT_CODE, key, value,
                "GE is initialized once per process while NPU sessions are open, and %s "
                "initialized it, so these global (GEInitialize) options of this configuration "
                "are ignored: %s; %s; source: %s" % (init.owner, listed, advice, _GE_INIT_SOURCE))


def _log_once(diag):
    """Log `diag` unless an identical diagnostic was logged before in this process."""
    key = (diag.code, diag.severity, diag.option, str(diag.value), diag.message)
    with _logged_lock:
        if key in _logged:
            return
        _logged.add(key)
    _util._log_diagnostic(diag)  # pylint: disable=protected-access


# ---------------------------------------------------------------------------------------------
# Session.__init__

class _Prepared:
    """What a session creation from one configuration needs (cached per content)."""
    __slots__ = ("ge_options", "cpu_config", "edit", "has_npu")

    def __init__(self, ge_options, cpu_config, edit, has_npu):
        self.ge_options = ge_options        # None: not the adapter's business (check only)
        self.cpu_config = cpu_config        # the copy handed to TensorFlow's session
        self.edit = edit                    # the caller's proto still needs the adapter's edits
        self.has_npu = has_npu


def _prepare(config, key, inject):
    """The slow path of a session creation: resolve (raises before any change), edit the
    caller's proto as the adapter does, build the CPU copy, and cache the result under the
    content as passed and the content after the edits."""
    npu_optimizer = find_npu_optimizer(config)
    if npu_optimizer is None and not inject:
        prepared = _Prepared(None, None, False, False)
        keys = (key,)
    else:
        ge_options = resolve_session_config(config, npu_optimizer)   # raises before any change
        keys = (key,)
        if inject:
            with _apply_lock:   # one config shared by sessions opened from several threads:
                # re-check under the lock, or each thread adds its own NpuOptimizer
                apply_npu_session_defaults(config, npu_optimizer is not None
                                           or find_npu_optimizer(config) is not None)
            after = (config.SerializeToString(),) + key[1:]
            if after != key:
                keys = (key, after)
        cpu_config = cpu_session_config(config)
        prepared = _Prepared(ge_options, cpu_config, False, True)
        if len(keys) == 2:   # the content as passed still needs the edits when seen again
            unedited = _Prepared(ge_options, cpu_config, True, npu_optimizer is not None)
    with _cache_lock:
        if len(_session_cache) >= _CACHE_LIMIT:
            _session_cache.clear()
        _session_cache[keys[-1]] = prepared
        if len(keys) == 2:
            _session_cache[keys[0]] = unedited
    return prepared


def _wrap_init(original):
    names = list(inspect.signature(original).parameters)
    config_index = names.index("config") - 1   # position among the args after self

    def __init__(self, *args, **kwargs):
        if kwargs.get("config") is not None:
            config = kwargs["config"]
        elif len(args) > config_index and args[config_index] is not None:
            config = args[config_index]
        else:
            config = config_pb2.ConfigProto()
        if not isinstance(config, config_pb2.ConfigProto):
            # Not ours to judge: stock TF raises its own TypeError.
            return original(self, *args, **kwargs)
        inject = _inject_defaults
        # One C call that also serves as the change check: a new or changed configuration
        # (or environment / forced product) misses and is resolved again.
        key = (config.SerializeToString(), _env_snapshot(), _forced_product(), inject)
        prepared = _session_cache.get(key)
        if prepared is None:
            try:
                prepared = _prepare(config, key, inject)
            except Exception as err:
                self._session = None   # BaseSession.__del__ reads it on this half-built object
                if isinstance(err, _ge().NpuConfigError):
                    # Recorded as refused: `npu-bridge run` counts it even if the script
                    # catches it.
                    _records.record_refused("session", "%s#%d" % (type(self).__name__,
                                                                  next(_session_numbers)), err)
                raise
        ge_options = prepared.ge_options
        if ge_options is None:
            # check only: a config without NpuOptimizer is not the adapter's business
            return original(self, *args, **kwargs)
        log_diagnostics_once(ge_options)
        if prepared.edit:
            with _apply_lock:   # see _prepare
                apply_npu_session_defaults(config, prepared.has_npu
                                           or find_npu_optimizer(config) is not None)
        # TensorFlow's CPU session gets the copy without the NPU-only rewrite settings
        # (`cpu_session_config`); the caller's proto and `self._config` keep the NPU's.
        kwargs["config"] = prepared.cpu_config
        if len(args) > config_index:
            args = args[:config_index] + args[config_index + 1:]
        original(self, *args, **kwargs)
        self._config = config
        name = "%s#%d" % (type(self).__name__, next(_session_numbers))
        number = next(_ge_session_numbers)
        init, first = join_ge(ge_options, name, number)
        weakref.finalize(self, _leave_ge, number)   # a session collected without close()
        self._npu_ge_number = number
        if not first:
            ignored = ignored_globals_diagnostic(ge_options, init)
            if ignored is not None:
                _log_once(ignored)
                ge_options = dataclasses.replace(ge_options, diagnostics=list(
                    ge_options.diagnostics) + [ignored])
        self._npu_ge_options = ge_options
        # the process's policy: the one GE was initialized with (see "GE initialization")
        self._npu_guard_policy = init.policy
        self._npu_ge_init = init
        # the record, so that run-time refusals (NPB123) are attached to this configuration
        self._npu_record = _records.record("session", name, ge_options)

    __init__._npu_bridge_original = original
    __init__.__doc__ = original.__doc__
    __init__.__name__ = original.__name__
    return __init__


# ---------------------------------------------------------------------------------------------
# Session.run: iteration loops and the concurrency guard

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


_SINGLE_FETCH = (_ops.Operation, tf.Tensor)
# The exact classes of a graph's ops and tensors: run()'s fast path for one fetch, no feeds
# (the key graph_key gives them); anything else goes through graph_key
_SINGLE_FETCH_TYPES = frozenset(t for t in (_ops.Operation, getattr(_ops, "SymbolicTensor", None))
                                if t is not None)


def graph_key(graph, fetches, feed_dict, session=None):
    """What GE would compile as one graph: (session, tf.Graph, fetch set, feed set), hashable.
    Each session has a GE session of its own, which builds its own graphs (hicann/tensorflow
    SessionManager: one GE session per TF session), so the same subgraph run by two sessions
    is two GE graphs."""
    if isinstance(fetches, _SINGLE_FETCH):
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
        given = ge_options.global_options.get(_POLICY_KEY)
    if given is None or given == policy:
        return policy, "static_memory_policy=%s" % policy
    merged = str(ge_options.sources.get(_POLICY_KEY, "")).startswith("env:")
    return given, "static_memory_policy=%s (runs as %s%s)" % (
        given, policy, " merged with GE_USE_STATIC_MEMORY" if merged else "")


def _concurrency_error(policy, ge_options=None, initialized_by=None):
    """The `NpuConfigError` (NPB123) of a refused run; `policy` is the effective policy (2 or
    4), `ge_options` the resolution GE was initialized with (for the value as the script set
    it), `initialized_by` the session that initialized GE when it is not the refused one's."""
    ge = _ge()
    value, shown = _policy_text(policy, ge_options)
    if initialized_by is not None:
        shown += " (the process's: %s initialized GE with it)" % initialized_by
    from npu_bridge.ge import catalog
    row = catalog.find("static_memory_policy")
    allowed = row.allowed_text if row is not None else "0, 2, 3, 4, 1 (legacy)"
    message = ("%s does not support graphs that execute concurrently: another graph of this "
               "process is executing; run the graphs one after the other, or use "
               "static_memory_policy 0 or 3; allowed: %s; GE key %s; source: seed "
               "memoryconfig_constructor_zh.txt" % (shown, allowed, _POLICY_KEY))
    from npu_bridge.ge.diagnostics import make
    diag = make(CONCURRENT_GRAPHS_CODE, "static_memory_policy", value, message,
                severity="error")
    return ge.NpuConfigError([diag])


def _refusal(key, others, policy, session):
    """The error for a run of graph `key` refused while the graphs `others` execute; recorded
    with the session's configuration (`npu_bridge._records`), once per set of graphs, so
    `npu-bridge run` fails on it even when the script catches it or a thread dies of it."""
    init = getattr(session, "_npu_ge_init", None)
    rec = getattr(session, "_npu_record", None)
    if init is not None:
        other = init.owner if rec is None or init.owner != rec.get("name") else None
        error = _concurrency_error(policy, init.ge_options, other)
    else:
        error = _concurrency_error(policy, getattr(session, "_npu_ge_options", None))
    if rec is not None:
        _records.add_runtime_diagnostic(rec, others | {key}, error.diagnostics[0])
        _records.link(error, rec)
    return error


def _enter(key, policy, session=None):
    # _executing holds only the keys with a count > 0 (_leave removes a key at 0), so "any
    # other graph executing" is a size test, not a loop. acquire/try/finally: half the cost
    # of `with` on every guarded run.
    _guard_acquire()
    try:
        count = _executing.get(key, 0)
        if len(_executing) <= (1 if count else 0):
            _executing[key] = count + 1
            return
        others = frozenset(k for k in _executing if k != key)
    finally:
        _guard_release()
    raise _refusal(key, others, policy, session)


def _leave(key):
    _guard_acquire()
    try:
        count = _executing[key] - 1
        if count:
            _executing[key] = count
        else:
            del _executing[key]
    finally:
        _guard_release()


def executing_graphs():
    """How many distinct graphs guarded sessions are executing now (for tests and reports)."""
    with _guard_lock:
        return len(_executing)


_QUEUE_RUNNERS = tf.compat.v1.GraphKeys.QUEUE_RUNNERS
_QR_CACHE_ATTR = "_npu_queue_runner_ops"
# id(graph) -> weak references to the QueueRunners started with `create_threads` on that
# graph outside its QUEUE_RUNNERS collection (`_wrap_create_threads`). Weak: a runner holds its
# ops, which hold the graph, so a strong list here would keep every such graph alive; the entry
# leaves when its graph is collected.
_started_runners = {}


def _runners(graph):
    """The graph's QueueRunners: its QUEUE_RUNNERS collection, then those started with
    `create_threads` without being in it (and not collected since)."""
    # pylint: disable=protected-access
    runners = graph._collections.get(_QUEUE_RUNNERS) or []
    refs = _started_runners.get(id(graph))
    if refs:
        runners = runners + [r for r in (ref() for ref in refs) if r is not None]
    return runners


def _wrap_create_threads(original):
    def create_threads(self, sess, coord=None, daemon=False, start=False):
        # A runner started by hand, never added to the collection, is the input pipeline too:
        # note it for its graph before its threads run (once per runner).
        enqueue_ops = getattr(self, "enqueue_ops", None)
        graph = getattr(enqueue_ops[0], "graph", None) if enqueue_ops else None
        # pylint: disable=protected-access
        if graph is not None and self not in (graph._collections.get(_QUEUE_RUNNERS) or ()):
            with _guard_lock:
                refs = _started_runners.get(id(graph))
                if refs is None:
                    refs = _started_runners[id(graph)] = []
                    weakref.finalize(graph, _started_runners.pop, id(graph), None)
                if not any(ref() is self for ref in refs):
                    refs.append(weakref.ref(self))
        return original(self, sess, coord, daemon, start)

    create_threads._npu_bridge_original = original
    create_threads.__doc__ = original.__doc__
    create_threads.__name__ = original.__name__
    return create_threads


def _queue_runner_ops(graph, runners):
    """The ops the graph's QueueRunners run (each one's enqueue_ops, close_op, cancel_op), as
    a frozenset cached on the graph and rebuilt when the collection's length changes."""
    cached = getattr(graph, _QR_CACHE_ATTR, None)
    if cached is not None and cached[0] == len(runners):
        return cached[1]
    ops = set()
    for runner in list(runners):
        ops.update(getattr(runner, "enqueue_ops", None) or ())
        for name in ("close_op", "cancel_op"):
            op = getattr(runner, name, None)
            if op is not None:
                ops.add(op)
    cached = (len(runners), frozenset(ops))
    try:
        setattr(graph, _QR_CACHE_ATTR, cached)
    except AttributeError:
        pass
    return cached[1]


def _is_queue_runner_run(graph, fetches):
    """True when every fetch is an op of one of the graph's QueueRunners (the
    `tf.compat.v1.GraphKeys.QUEUE_RUNNERS` collection, and runners started with their own
    `create_threads` outside it): what QueueRunner threads run. On the NPU those
    enqueue/close ops are the host-side input pipeline, not a GE graph executing on the
    device, so the concurrency guard leaves them alone. Cheap: a graph without queue
    runners costs two dict lookups."""
    runners = _runners(graph)
    if not runners:
        return False
    ops = _queue_runner_ops(graph, runners)
    if isinstance(fetches, _ops.Operation):
        return fetches in ops
    if isinstance(fetches, (list, tuple)) and fetches:
        return all(isinstance(f, _ops.Operation) and f in ops for f in fetches)
    return False


def _wrap_run(original):
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if _records.capture[0]:   # npu-bridge run / memory: the GE graph of this fetch set
            _capture_graph(self, fetches, feed_dict)
        policy = getattr(self, "_npu_guard_policy", None)
        if policy is not None:
            graph = self._graph
            # pylint: disable=protected-access
            if ((graph._collections.get(_QUEUE_RUNNERS) or id(graph) in _started_runners)
                    and _is_queue_runner_run(graph, fetches)):
                policy = None   # the host-side input pipeline of QueueRunner threads: no GE graph
        loops = _util.loop_ops_of(self._graph) if _util._LOOP_OPS else None  # pylint: disable=protected-access
        if policy is None and loops is None:
            return original(self, fetches, feed_dict, options, run_metadata)
        if policy is not None:
            # every guarded run pays this: graph_key's own answer for one fetch, no feeds
            if type(fetches) in _SINGLE_FETCH_TYPES and not feed_dict:
                key = (id(self), id(graph), id(fetches), None)
            else:
                key = graph_key(graph, fetches, feed_dict, self)
            _enter(key, policy, self)
            try:
                if loops is None:
                    return original(self, fetches, feed_dict, options, run_metadata)
                return _run_loop(original, self, loops, fetches, feed_dict, options, run_metadata)
            finally:
                _leave(key)
        return _run_loop(original, self, loops, fetches, feed_dict, options, run_metadata)

    run._npu_bridge_original = original
    run.__doc__ = original.__doc__
    run.__name__ = original.__name__
    return run


def _capture_graph(session, fetches, feed_dict):
    from npu_bridge import _graph_capture   # TF side of the memory plan: loaded when on
    _graph_capture.note_run(session, fetches, feed_dict)


def _wrap_make_callable(original):
    def make_callable(self, fetches, feed_list=None, accept_options=False):
        call = original(self, fetches, feed_list, accept_options)
        policy = getattr(self, "_npu_guard_policy", None)
        if policy is None:
            return call   # nothing to watch: the stock callable, no overhead
        if feed_list is None and _is_queue_runner_run(self._graph, fetches):
            return call   # QueueRunner threads run their enqueue op through a callable
        # One GE graph per (tf.Graph, fetch set, feed set), as for run(); computed once. The
        # closure holds fetches and feeds, so the ids in the key stay theirs.
        key = graph_key(self._graph, fetches, feed_list, self)

        def guarded_callable(*args, **kwargs):
            _enter(key, policy, self)
            try:
                return call(*args, **kwargs)
            finally:
                _leave(key)

        guarded_callable._npu_guarded = True
        guarded_callable._npu_fetches = (fetches, feed_list)
        return guarded_callable

    make_callable._npu_bridge_original = original
    make_callable.__doc__ = original.__doc__
    make_callable.__name__ = original.__name__
    return make_callable


def _wrap_partial_run(original):
    def partial_run(self, handle, fetches, feed_dict=None):
        policy = getattr(self, "_npu_guard_policy", None)
        if policy is None:
            return original(self, handle, fetches, feed_dict)
        key = (id(self), id(self._graph), "partial_run", handle)   # one per partial_run_setup
        _enter(key, policy, self)
        try:
            return original(self, handle, fetches, feed_dict)
        finally:
            _leave(key)

    partial_run._npu_bridge_original = original
    partial_run.__doc__ = original.__doc__
    partial_run.__name__ = original.__name__
    return partial_run


def _wrap_close(original):
    def close(self):
        try:
            return original(self)
        finally:
            number = getattr(self, "_npu_ge_number", None)
            if number is not None:
                _leave_ge(number)

    close._npu_bridge_original = original
    close.__doc__ = original.__doc__
    close.__name__ = original.__name__
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

def _targets():
    return [(_session_lib.Session, "__init__", _wrap_init),
            (_session_lib.InteractiveSession, "__init__", _wrap_init),
            (_session_lib.BaseSession, "run", _wrap_run),
            (_session_lib.BaseSession, "make_callable", _wrap_make_callable),
            (_session_lib.BaseSession, "partial_run", _wrap_partial_run),
            (_session_lib.BaseSession, "close", _wrap_close),
            (_queue_runner_impl.QueueRunner, "create_threads", _wrap_create_threads)]


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
    global _inject_defaults
    with _patch_lock:
        if inject_defaults:
            _inject_defaults = True
        if is_patched():
            return False
        for cls, name, wrapper in _targets():
            current = cls.__dict__[name]
            _originals[(cls, name)] = current
            setattr(cls, name, wrapper(current))
        return True


def unpatch():
    """Restore the original Session methods. Returns True if a patch was removed.

    Sessions created while patched keep their NPU config but are no longer guarded."""
    global _inject_defaults
    with _patch_lock:
        _inject_defaults = False
        if not is_patched():
            return False
        for cls, name, _ in _targets():
            current = cls.__dict__[name]
            original = _originals.pop((cls, name), None) or getattr(current, "_npu_bridge_original")
            setattr(cls, name, original)
        return True


def is_patched():
    """True while Session.__init__ is wrapped by this module."""
    return hasattr(_session_lib.Session.__dict__["__init__"], "_npu_bridge_original")


def injects_defaults():
    """True when the patch is the full one (`npu_init`), False when it only checks."""
    return _inject_defaults and is_patched()


def clear_caches():
    """Forget cached resolutions and logged diagnostics (tests; a changed catalog)."""
    with _cache_lock:
        _resolution_cache.clear()
        _session_cache.clear()
    with _logged_lock:
        _logged.clear()
        _logged_results.clear()


# Imported first (before TensorFlow), this module's own `import tensorflow` ran
# `npu_bridge._check_sessions` while it was half loaded; that left the patch to us.
if globals().pop("_patch_when_loaded", False):
    patch(inject_defaults=False)
