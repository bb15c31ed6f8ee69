"""The argument check's probe (layer 2): a refused NPU config call is resolved as far as its
other arguments go, so `npu-bridge run` reports every finding `lint` gives for the same call
and the product its rules came from, not only the refusing argument (docs/cli.md `run`).

An NPURunConfig's probe is an NPURunConfig (the class is passed in: `npu_config` imports
this module, never the reverse) whose refused arguments are at their defaults: their values
never reach GE (the summary's `not sent (CODE)` rows) and count as not given. A refused
config-class call (MemoryConfig, DumpConfig, ...) is resolved on its own, as lint does.
What a call gave is recorded by `records_user_args`, the config classes' constructor wrapper.
"""
import functools
import inspect
import re

from npu_bridge.config import legacy_args as _legacy_args, _render
from npu_bridge.ge import config_schema as _config_schema
from npu_bridge.ge.config_schema import BY_NAME as _SCHEMA, REQUIRED as _REQUIRED

USER_ARGS = "_npu_user_args"   # the argument names a constructor call was given
POSITIONS = "_npu_positions"   # argument -> its position, for those a call gave by position


def records_user_args(init):
    """Wrap a config class's ``__init__`` to record which arguments the call gave
    (positional or keyword) in ``self._npu_user_args``: a deprecation or a summary's source
    is about what the user set, not a default the class writes (issue 17); and those given by
    position in ``self._npu_positions`` (argument -> 1, 2, ...): a finding about an argument
    speaks of it as the user passed it (`argtypes.spelled`). A wrong argument is Python's
    TypeError naming the class, with the schema's hint (lint's NBL012)."""
    signature = inspect.signature(init)
    params = tuple(signature.parameters)[1:]
    owner = init.__qualname__.partition(".")[0]

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        for name in kwargs:   # Python checks keywords first
            if name not in params:
                raise TypeError(_config_schema.unexpected_keyword(owner, name))
        if len(args) > len(params):
            raise TypeError(_config_schema.too_many_positional(owner, len(args)))
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:   # a missing or repeated argument: Python's own message
            init(self, *args, **kwargs)
            raise
        given = frozenset(bound.arguments) - {"self"}
        setattr(self, USER_ARGS, given)   # before init: NPURunConfig's own checks read it
        setattr(self, POSITIONS, {name: i + 1 for i, name in enumerate(params[:len(args)])})
        init(self, *args, **kwargs)
    return __init__


def store(obj, owner, values):
    """Store `values` (argument -> value) on `obj` as the real class `owner` does: its public
    attributes (schema) under their name, the others as `_<name>`."""
    public = _SCHEMA[owner].public
    for arg, value in values.items():
        setattr(obj, arg if arg in public else "_" + arg, value)


def without(owner, values, refused):
    """`values` with each argument named in `refused` back at class `owner`'s default (None
    for a required one: DynamicInputConfig's, which the estimator then does not write)."""
    defaults = _SCHEMA[owner].defaults
    return {arg: (None if defaults.get(arg, None) is _REQUIRED else defaults.get(arg))
            if arg in refused else value for arg, value in values.items()}


def resolve_probe(run_cls, npu_args, given, origin=None, run_state=None, positions=None):
    """Resolve an `run_cls` (NPURunConfig) probe holding only these NPU arguments.

    `given`: the argument names the user gave (the resolver's `UserSet`: sources, NPB105);
    `origin`: the config whose older-release arguments the probe takes; `run_state`:
    `(RunConfig arguments as kept, session_config)` for the "run_config" rules (NPB172) and
    the user's own NpuOptimizer; `positions`: argument -> position of those the call gave by
    position (the probe's findings spell them so: `argtypes.spelled`). Returns `(diagnostics, resolved GeOptions or None, probe)`;
    never raises `NpuConfigError` (its diagnostics and partial options are returned)."""
    from npu_bridge.ge import NpuConfigError, UserSet, resolve
    probe = run_cls.__new__(run_cls)   # no RunConfig state: only the NPU fields
    probe._assign_npu_args(npu_args)
    for attr in (USER_ARGS,) + _legacy_args.STATE:
        if hasattr(origin, attr):
            setattr(probe, attr, getattr(origin, attr))
    setattr(probe, USER_ARGS, frozenset(given))
    setattr(probe, POSITIONS, dict(positions or {}))
    if run_state is not None:
        probe._npu_probe_run_arguments, probe._session_config = run_state
    try:
        resolved = resolve(probe, user_set=UserSet("NPURunConfig", probe._npu_user_keys()))
        return list(resolved.diagnostics), resolved, probe
    except NpuConfigError as err:
        return list(err.diagnostics), err.ge_options, probe


class _ClassInput:
    """What the resolver takes of a config class given on its own: its arguments' keys, the
    class used (its class-level product rules), no RunConfig arguments (as lint's view)."""

    def __init__(self, parameter_map, owner):
        self._parameter_map, self._owner = parameter_map, owner

    def _npu_resolve_input(self):
        return self._parameter_map, frozenset((self._owner,)), None


def resolve_nested(owner, values, given, refused=()):
    """Resolve the arguments `given` of a config-class `owner` call (e.g. a refused
    MemoryConfig's, its refused ones taken out) as lint resolves such a call: each written
    to its catalog row's key as the estimator writes it, `owner` the class used, every key
    the user's. Unlike the estimator's rendering, DynamicInputConfig's keys are written one
    by one (the estimator writes none unless all four are set): a refused one hides none of
    the others' findings, and a rule naming a `refused` argument is not reported
    (`without_consequences`). Returns `(diagnostics, resolved GeOptions or None)`."""
    from tensorflow.core.framework import attr_value_pb2
    from npu_bridge.ge import NpuConfigError, UserSet, resolve
    from npu_bridge.ge.argtypes import rows_by_arg
    cls, parameter_map = _SCHEMA[owner], {}
    for arg, value in values.items():
        row = rows_by_arg().get(cls.path(arg))
        if arg in given and value is not None and row is not None and row.key:
            parameter_map[row.key] = attr_value_pb2.AttrValue()
            _render._write(parameter_map[row.key], row, value)
    try:
        resolved = resolve(_ClassInput(parameter_map, owner),
                           user_set=UserSet(owner, frozenset(parameter_map)))
        return without_consequences(resolved.diagnostics, owner, refused), resolved
    except NpuConfigError as err:
        return without_consequences(err.diagnostics, owner, refused), err.ge_options


def without_consequences(diagnostics, owner, refused):
    """`diagnostics` of a probe without the findings that only follow from the `refused`
    arguments (of class `owner`) being left out: a rule naming one of them, by argument or
    by its parameter_map key ("enable_dump needs dump_path set" when dump_path=3 was
    refused). The user gave those arguments; their type error (NPB160) is what to fix, and
    lint, which resolves such a call without them, reports no such rule either."""
    from npu_bridge.ge.argtypes import rows_by_arg
    cls = _SCHEMA[owner]
    names = set()
    for arg in refused:
        names.add(arg)
        row = rows_by_arg().get(cls.path(arg))
        if row is not None and row.key:
            names.add(row.key)
    if not names:
        return list(diagnostics)
    named = re.compile(r"(?<![\w.])(%s)(?![\w])" % "|".join(map(re.escape, sorted(names))))
    return [d for d in diagnostics
            if d.code == "NPB160" or (d.option not in names and not named.search(d.message))]
