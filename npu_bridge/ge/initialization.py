"""GE initialization of the process: once, while NPU sessions (or npu_resource_init) hold it.

`GE_INITIALIZATION` is the process's one `GeInitialization`: who initialized GE, with which
`GeOptions`, which NPU sessions are open with it, and the NPB126 warning for a configuration
whose global options are then ignored. Sources: hicann/tensorflow tf_adapter/util/ge_plugin.cc
(GePlugin::Init returns when GE is initialized) and tf_adapter/kernels/geop_npu.cc
(GeOp::Finalize); docs/design.md ("GE initialization").
"""
import itertools
import threading

GE_INIT_CODE = "NPB126"
POLICY_KEY = "ge.exec.staticMemoryPolicy"
GUARDED_POLICIES = frozenset(("2", "4"))
_UNSET_TEXTS = ("", "None")   # "None": what the real npu_resource_init sends for an unset argument


def guarded_policy(ge_options):
    """The effective static_memory_policy of `ge_options` as a string if it is 2 or 4 (the
    concurrency guard's policies), else None."""
    policy = ge_options.effective.get(POLICY_KEY)
    if policy is None:
        policy = ge_options.global_options.get(POLICY_KEY)
    return policy if policy in GUARDED_POLICIES else None


class GeInit:
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


class GeInitialization:
    """The owner of the process's GE initialization (`current`: a `GeInit` or None) and of
    the numbers given to sessions ("Session#3") and to NPU sessions joining GE."""

    def __init__(self):
        # re-entrant: a session collected unclosed leaves from inside a collection, which may
        # run in this thread while it holds the lock
        self._lock = threading.RLock()
        self.current = None
        self._names = itertools.count(1)
        self._numbers = itertools.count(1)
        self._index = None

    def next_name(self, kind):
        """A session's label: `kind` and a process-wide number, e.g. "Session#3"."""
        return "%s#%d" % (kind, next(self._names))

    def next_number(self):
        """A fresh number for an NPU session that joins GE (`join`, `leave`)."""
        return next(self._numbers)

    def open_session(self, kind, ge_options):
        """A new NPU session of class `kind` ("Session") joins GE: returns `(name, number,
        init, first)`, its label ("Session#3", `next_name`), its number (`next_number`), the
        `GeInit` in force and whether it initialized GE (`join`); one call, one lock."""
        with self._lock:
            name = "%s#%d" % (kind, next(self._names))
            number = next(self._numbers)
            init, first = self._join(ge_options, name, number, False)
        return name, number, init, first

    def join(self, ge_options, owner, number=None, plugin=False):
        """Register an NPU session (its `number`) or the plugin with the process's GE: the
        first one initializes it. Returns `(init, first)`: the `GeInit` in force and whether
        this call initialized it."""
        with self._lock:
            return self._join(ge_options, owner, number, plugin)

    def _join(self, ge_options, owner, number, plugin):
        """`join`'s work, the lock held."""
        first = self.current is None
        if first:
            self.current = GeInit(owner, ge_options, plugin)
        if number is not None:
            self.current.live.add(number)
        return self.current, first

    def leave(self, number):
        """An NPU session closed (or was collected): GE is finalized with the last one, unless
        npu_resource_init initialized it."""
        with self._lock:
            init = self.current
            if init is None or number not in init.live:
                return
            init.live.discard(number)
            if not init.live and not init.plugin:
                self.current = None

    def reset(self):
        """Forget how GE was initialized (npu_resource_shutdown finalizes GE; tests)."""
        with self._lock:
            self.current = None

    def initialized_with(self):
        """`(owner, GeOptions)` of the configuration GE is initialized with now, or None."""
        init = self.current
        return None if init is None else (init.owner, init.ge_options)

    def _option_index(self):
        """GE key -> (parameter_map key, its default texts) from the catalog rows, and the GE
        keys GE reads (reference ge_option_scopes.json)."""
        if self._index is None:
            from npu_bridge.ge import catalog
            from npu_bridge.ge.scopes import SCOPES
            index = {}
            for row in catalog.OPTIONS:
                if not row.key:
                    continue
                # the texts the adapter sends for the row's default (the resolver's text rule)
                defaults = {t for t in (row.adapter_default, None if row.default is None
                                        else catalog.value_text(row.default)) if t is not None}
                for gk in [r.key for r in row.routes] + [row.ge_key, row.plugin_key]:
                    if gk:
                        index.setdefault(gk, (row.key, frozenset(defaults)))
            self._index = (index, frozenset(SCOPES))
        return self._index

    def ignored_globals_diagnostic(self, ge_options, init):
        """The NPB126 warning for `ge_options` joining GE initialized by `init`, or None
        (`ignored_globals`)."""
        return self.ignored_globals(ge_options, init)[0]

    def ignored_globals(self, ge_options, init):
        """`(diagnostic, keys)`: the NPB126 warning for `ge_options` joining GE initialized
        by `init` (None when nothing is ignored) and the global GE keys of `ge_options` GE
        ignores (sorted; the summary marks them in the configuration's table).

        Per option (the GE keys GE reads, grouped by the parameter_map key they come from):
        an option this configuration sends is ignored when GE runs another value for it, or,
        when GE was initialized without it, when this configuration chose a value other than
        its default (GE then runs its own default). The same value under another spelling of
        the option, and "unset" both ways, are not differences. Nor is an option this
        configuration also sends at the session level: the adapter gives ge::Session its
        session options (NpuAttrs::GetSessOptions) and GE prefers them to the global ones
        (InnerSession::Initialize), so that value applies to this session's graphs."""
        index, read = self._option_index()
        mine, applied = ge_options.global_options, init.ge_options.global_options
        per_session = {index.get(key, (key,))[0]
                       for key, text in ge_options.session_options.items()
                       if text not in _UNSET_TEXTS}
        # what GE applies (a legacy value runs as another: static_memory_policy 1 as 2, NPB103)
        mine_eff = getattr(ge_options, "effective", None) or {}
        applied_eff = getattr(init.ge_options, "effective", None) or {}
        options = {}   # parameter_map key -> (my values, GE's values, defaults, applied as)
        for key in set(mine) | set(applied):
            if key not in read:
                continue   # a spelling GE does not read: no effect either way
            name, defaults = index.get(key, (key, frozenset()))
            if name in per_session:
                continue   # reaches GE through this session's own options
            entry = options.setdefault(name, (set(), set(), defaults, set(), {}))
            if mine.get(key) not in (None,) + _UNSET_TEXTS:
                entry[0].add(mine[key])
                entry[3].add(mine_eff.get(key, mine[key]))
            if applied.get(key) not in (None,) + _UNSET_TEXTS:
                entry[1].add(applied[key])
                eff = applied_eff.get(key, applied[key])
                if eff != applied[key]:
                    entry[4][applied[key]] = eff   # (one spelling GE changes is enough)
                else:
                    entry[4].setdefault(applied[key], eff)
        differ = []
        for name, (wanted, runs, defaults, wanted_eff, runs_eff) in sorted(options.items()):
            if not wanted or wanted & runs or wanted_eff & set(runs_eff.values()):
                continue   # the same value, or two values GE applies alike
            if not runs and wanted <= defaults:
                continue   # a default this configuration did not choose
            run = sorted(runs)[0] if runs else None
            differ.append((name, sorted(wanted)[0], run, runs_eff.get(run, run)))
        if not differ:
            return None, ()
        names = {d[0] for d in differ}
        keys = tuple(sorted(k for k in mine if k in read and index.get(k, (k,))[0] in names))
        listed = "; ".join("%s %s (GE runs %s%s)" % (
            k, _shown_value(v), _shown_value(a),
            "" if e == a else ", which it applies as %s" % _shown_value(e))
            for k, v, a, e in differ[:8])
        if len(differ) > 8:
            listed += "; and %d more" % (len(differ) - 8)
        from npu_bridge.ge.diagnostics import make
        key, value = differ[0][:2]
        advice = ("pass them to npu_resource_init, or call npu_resource_shutdown first"
                  if init.plugin else "close the other NPU sessions first, or give every "
                  "session the same global options")
        return make(GE_INIT_CODE, key, value, owner=init.owner, listed=listed,
                    advice=advice), keys


def _shown_value(value):
    return "unset (its default)" if value is None else repr(value)


GE_INITIALIZATION = GeInitialization()
