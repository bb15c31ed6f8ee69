"""The arguments of `npu_plugin.npu_resource_init` and its own checks, shared by the function
and by `npu-bridge lint` (no TensorFlow). Notes: docs/design.md "Module notes".
"""
OWNER = "npu_resource_init"
REAL = "hicann/tensorflow tf_adapter/python/npu_bridge/estimator/npu/npu_plugin.py"

# The real signature, (argument, default) in order (reference npu_options.json). npu_plugin
# spells it out in `def npu_resource_init(...)` (Python's own TypeError for a bad call,
# help(), editors); tests/test_npu_plugin.py checks that its inspect.signature is this table.
SIGNATURE = (
    ("graph_run_mode", 1), ("op_debug_level", 0), ("enable_profiling", False),
    ("profiling_options", None), ("precision_mode", None), ("enable_scope_fusion_passes", None),
    ("enable_exception_dump", 2), ("aoe_mode", None), ("work_path", None),
    ("op_compiler_cache_mode", None), ("op_compiler_cache_dir", None), ("debug_dir", None),
    ("hcom_multi_mode", False), ("distribute_config", None), ("aoe_config_file", None),
    ("precision_mode_v2", None), ("export_compile_stat", 1), ("aicore_num", None),
    ("oo_constant_folding", True), ("input_batch_cpy", False), ("oo_level", "O3"),
    ("optimization_switch", None),
)
PARAMS = tuple(arg for arg, _ in SIGNATURE)
DEFAULTS = dict(SIGNATURE)

# AttrValue field of an argument's row -> (the type the function accepts, how it is named).
FIELD_TYPES = {"b": (bool, "a bool"), "i": (int, "an int"), "s": (str, "a str")}


class Spec:
    """The catalog side of the arguments, built once (`spec()`):

    * `rows`: argument -> its catalog row (`catalog.find(argument)`), in signature order;
      the row carries every value rule and the GE key;
    * `defaults`: argument -> default (`DEFAULTS`); `params`: the names in order (`PARAMS`);
    * `requires`: argument -> the argument it is read only with (the row's
      `estimator_requires`: `profiling_options` with `enable_profiling`, `work_path` and
      `distribute_config` with `aoe_mode`);
    * `sent_key`: argument -> the key it is sent under (the row's `plugin_key`, where the
      real plugin spells a key itself, else its GE key);
    * `unread`: argument -> that key, where GE does not read it (NPB135);
    * `sent_when_none`: argument -> what the function sends for it left None, where it sends
      something (the row's `plugin_none_as`: it always forwards str(aoe_config_file)).
    """

    def __init__(self):
        from npu_bridge.ge import catalog
        from npu_bridge.ge.scopes import SCOPES
        self.params = PARAMS
        self.defaults = dict(DEFAULTS)
        self.rows = {arg: catalog.find(arg) for arg in PARAMS}
        if not all(row is not None and row.key for row in self.rows.values()):
            raise ValueError("an argument of %s without a parameter_map row" % OWNER)
        self.sent_when_none = {arg: row.plugin_none_as for arg, row in self.rows.items()
                               if row.plugin_none_as is not None}
        arg_of = {row.key: arg for arg, row in self.rows.items()}
        self.requires = {arg: arg_of[catalog.find(row.estimator_requires).key]
                         for arg, row in self.rows.items() if row.estimator_requires}
        self.sent_key = {arg: row.plugin_key or row.ge_key for arg, row in self.rows.items()}
        self.unread = {arg: key for arg, key in self.sent_key.items() if key not in SCOPES}


_SPEC = []   # [the Spec]: built on first use (the catalog is loaded only then)


def spec():
    """The `Spec` (once per process)."""
    if not _SPEC:
        _SPEC.append(Spec())
    return _SPEC[0]


def type_problem(arg, value, row):
    """NPB160 (a Diagnostic) when `value`, not None, is not of the type the function accepts
    for `row`'s field (an int field takes no bool), else None."""
    typ, text = FIELD_TYPES[row.field]
    if isinstance(value, typ) and not (typ is int and isinstance(value, bool)):
        return None
    from npu_bridge.ge.diagnostics import make
    return make("NPB160", arg, value, subject="%s(%s=%r)" % (OWNER, arg, value), expected=text,
                got=type(value).__name__, detail="", where=REAL)


def profiling_without_options():
    """NPB143: `enable_profiling=True` without `profiling_options` (the real function raises)."""
    from npu_bridge.ge.diagnostics import make
    return make("NPB143", "profiling_options", None,
                subject="%s(enable_profiling=True)" % OWNER, needed="profiling_options",
                failure="the real one raises ValueError 'profiling_options must be set when "
                "use profiling'", where=REAL)


def unread_key(arg, value=None):
    """NPB135: the function sends `arg` (here as `value`) under a key of its own spelling
    (`spec().unread[arg]`) that GE never reads."""
    from npu_bridge.ge.diagnostics import make
    s = spec()
    key = s.unread[arg]
    return make("NPB135", key, value, what="%s sends %s as" % (OWNER, arg), key=key,
                detail=" (its own spelling; source: %s; GE reads %s)" % (REAL, s.rows[arg].ge_key))
