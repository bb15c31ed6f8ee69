"""The checks: each group of entries the visitor collected is turned into the resolver's
input (per combination of branch arms), resolved with `npu_bridge.ge.resolve`, and every
diagnostic is mapped back to the line of the entry it is about, as a `Finding`."""
import dataclasses
import itertools
from typing import Any, Callable, NamedTuple, Optional

from npu_bridge.ge import argtypes as _argtypes, config_schema as _config_schema
from npu_bridge.ge import plugin_args as _plugin_args
from npu_bridge.ge.diagnostics import CODES, fix_of, make, more_of, provenance_of, short_of
from npu_bridge.tools.lint.literals import (SCALAR_FIELDS, LiteralAttr, LiteralList, _NOT_LITERAL,
                                      _attr_for_field, _misfit_reason, _placeholder)
from npu_bridge.tools.lint.schema import _NPU_OPTIMIZER
from npu_bridge.tools.lint.scopes import _FUNCTION_POINT, _MISSING

# Lint's own codes (NBLxxx) are rows of the one diagnostics table, with the resolver's.
LINT_CODES = {code: row.title for code, row in CODES.items() if code.startswith("NBL")}


def known_codes():
    """Every code lint can report: its own and the resolver's (for `--select`/`--ignore`)."""
    return sorted(CODES)


# Resolver codes about a key's name or AttrValue field, not its value
# (`npu_bridge.ge.diagnostics.CODES`): the only ones kept for a non-literal value.
NAME_FIELD_CODES = frozenset({"NPB100", "NPB101", "NPB102", "NPB108"})


def found(line, col, code, option="", value=None, **fields):
    """A finding tuple `(line, col, code, severity, message, option)` built, as every
    diagnostic, from the code's row (`npu_bridge.ge.diagnostics.make`) and `fields`."""
    diag = make(code, option, value, **fields)
    return (line, col, code, diag.severity, diag.message, option)


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One finding: `path:line:col: CODE severity: message` (column 1-based, as flake8)."""
    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    option: str = ""

    def format(self):
        """The text line: the message's short form (`npu_bridge.ge.diagnostics.Message`)."""
        return "%s:%d:%d: %s %s: %s" % (self.path, self.line, self.col, self.code,
                                        self.severity, short_of(self.message))

    def to_dict(self):
        """The JSON finding: `message` the full text (provenance included), then `short`,
        `fix` (null when none), `provenance` and `more` (the explain pointer of a shortened
        line; null when none), what the text output prints of it."""
        return {"path": self.path, "line": self.line, "col": self.col, "code": self.code,
                "severity": self.severity, "option": self.option, "message": str(self.message),
                "short": short_of(self.message), "fix": fix_of(self.message) or None,
                "provenance": provenance_of(self.message) or None,
                "more": more_of(self.message) or None}



class _ResolveInput:
    """What an `NPURunConfig` hands the resolver: its parameter_map, the classes used and its
    own RunConfig arguments (None: no NPURunConfig)."""

    def __init__(self, parameter_map, used_classes, arguments=None):
        self._pm = parameter_map
        self._used = frozenset(used_classes)
        self._arguments = arguments

    def _npu_resolve_input(self):
        return self._pm, self._used, self._arguments



class _Catalog:
    """The catalog lookups lint needs, built once per process from `npu_bridge.ge.catalog`."""

    def __init__(self):
        from npu_bridge.ge import catalog
        self.catalog = catalog
        self.by_arg = {}
        for opt in catalog.OPTIONS:
            arg = getattr(opt, "runconfig_arg", None)
            if arg and getattr(opt, "key", None):
                self.by_arg.setdefault(arg, opt)

    def option_for_key(self, key):
        return self.catalog.find(key)


_CATALOG = None


def _catalog():
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = _Catalog()
    return _CATALOG


def _plugin_entries(group, entries):
    """`(parameter_map, positions, placeholders, findings)` of an `npu_resource_init` call,
    as `npu_plugin._resource_init` builds and checks its arguments, with the same table,
    type rule and messages (`npu_bridge.ge.plugin_args`): every argument at its value or
    default (in a call with `*args`/`**kwargs`, an argument it does not name is unknown: not
    checked); an argument read only with another (`profiling_options` with
    `enable_profiling`, `work_path` and `distribute_config` with `aoe_mode`) is skipped
    when that one is None or False (or not a literal), and takes its catalog default when
    None; a literal of the wrong type for its row's field is the function's NPB160 and is
    not sent; `enable_profiling=True` without `profiling_options` is NPB143; an argument
    sent under a key GE does not read is NPB135 (the function reports it when the call
    succeeds; lint whatever else is wrong). The parameter_map is then resolved as the
    function resolves it."""
    spec = _plugin_args.spec()
    given = {e.key: e for e in entries}
    call = (group.line, group.col)

    def value_of(arg):
        e = given.get(arg)
        if e is not None:
            return e.value
        return _MISSING if group.open_args else spec.defaults[arg]

    pm, positions, placeholders, out = {}, {}, set(), []
    for arg, row in spec.rows.items():
        value = value_of(arg)
        e = given.get(arg)
        where = (e.line, e.col) if e is not None else call
        needs = spec.requires.get(arg)
        if needs is not None:
            needed = value_of(needs)
            if needed is _NOT_LITERAL or needed is _MISSING or needed is None or needed is False:
                continue
            if value is None:
                value = row.estimator_default
        if value is None:
            if arg in spec.sent_when_none and arg in spec.unread:
                out.append(_finding_at(where, _plugin_args.unread_key(arg)))
            continue
        if value is _MISSING:
            continue
        positions[row.key] = where
        if value is _NOT_LITERAL:
            pm[row.key] = _placeholder(row.field)
            placeholders.add(row.key)
        else:
            problem = _plugin_args.type_problem(arg, value, row)
            if problem is not None:
                out.append(_finding_at(where, problem))
                continue
            if isinstance(value, str):
                value = value.encode("utf-8", "surrogatepass")
            pm[row.key] = LiteralAttr(row.field, value)
        if arg in spec.unread:
            out.append(_finding_at(where, _plugin_args.unread_key(arg)))
    profiling = pm.get("profiling_mode")
    if profiling is not None and "profiling_mode" not in placeholders and profiling.b is True \
            and "profiling_options" not in pm and not group.open_args:
        out.append(_finding_at(positions["profiling_mode"],
                               _plugin_args.profiling_without_options()))
    return pm, positions, placeholders, out


def _finding_at(where, diag):
    """A Diagnostic as a finding at `where` (line, col): (line, col, code, severity, message,
    option)."""
    return where + (diag.code, diag.severity, diag.message, diag.option)


def _config_entry_to_attr(cat, entry):
    """Turn `Class(arg=value)` into `(key, LiteralAttr)` the way NPUEstimator renders it, or None."""
    opt = cat.by_arg.get(entry.key)
    if opt is None or entry.value is _NOT_LITERAL or entry.value is None:
        return None
    field = opt.field
    value = entry.value
    if field == "s":
        if isinstance(value, bool):
            return None  # rendering of bools into strings differs per option: leave to run time
        if isinstance(value, (int, float)):
            value = str(value)
    elif field == "i" and isinstance(value, bool):
        value = int(value)
    typed = _attr_for_field(field, value) if field in SCALAR_FIELDS else None
    if typed is None:
        return None
    return opt.key, LiteralAttr(field, typed)


_RUN_ARGS = frozenset(_config_schema.BY_NAME["NPURunConfig"].base_args)

# Infos about how lint resolved, not about the script (no target product; the stand-in
# configuration lint builds has no NpuOptimizer): said once in lint's summary, not per group.
CONTEXT_CODES = frozenset(("NPB110", "NPB116"))

_RESOLVED = {}  # memo: the same configuration recurs across a tree's scripts
# Resolver codes about the machine resolving, not the script: lint is static (the same
# findings wherever it runs), so they are left to the run-time check. NPB144: dump_path /
# work_path must be an existing writable directory on the machine running the script.
_RUN_TIME_CODES = frozenset(("NPB144",))
_RESOLVED_MAX = 4096


def _attr_id(attr):
    field = attr.WhichOneof("value")
    value = getattr(attr, field)
    return field, (tuple(map(tuple, (value.s, value.i, value.f, value.b)))
                   if isinstance(value, LiteralList) else value)


def _target(pm, product, env, pid):
    """`(product id or None, where, name)`: the target one resolution used and where it came
    from (`products.target_source`: product=, soc_config, $NPU_BRIDGE_PRODUCT)."""
    from npu_bridge.ge import products
    attr = pm.get("soc_config")
    soc = None
    if attr is not None and attr.WhichOneof("value") == "s" and not isinstance(attr.s, LiteralList):
        soc = attr.s.decode("utf-8", "replace") if isinstance(attr.s, bytes) else attr.s
    where, name = products.target_source(product, soc, env) or (None, None)
    return pid, where, name


def _resolve(config, product, env, user_set=None, used=None):
    """Resolve with `npu_bridge.ge.resolve` (`user_set`: its argument); the diagnostics, also
    when it raises. `used` (a set): gets the resolution's `_target`."""
    from npu_bridge.ge import NpuConfigError, resolve
    if isinstance(config, _ResolveInput):
        pm, classes, arguments = config._npu_resolve_input()
        arguments = arguments and tuple((k, repr(v)) for k, v in arguments.items())
    else:
        pm, classes, arguments = config, None, None
    maps = pm if type(pm) is tuple else (pm,)   # a session_config's maps, then the class's
    pm = maps[-1]
    memo = (tuple(tuple((k, _attr_id(a)) for k, a in m.items()) for m in maps), classes,
            product, tuple(sorted(env.items())), user_set, arguments)
    found = _RESOLVED.get(memo)
    if found is None:
        try:
            ge = resolve(config, product=product, env=env, user_set=user_set)
            diags = ge.diagnostics
        except NpuConfigError as err:
            ge, diags = err.ge_options, err.diagnostics
        found = (tuple(d for d in diags if d.code not in _RUN_TIME_CODES),
                 _target(pm, product, env, getattr(ge, "product", None)))
        if len(_RESOLVED) >= _RESOLVED_MAX:
            _RESOLVED.clear()
        _RESOLVED[memo] = found
    if used is not None:
        used.add(found[1])
    return list(found[0])




_MAX_PATHS = 64  # branch combinations resolved per group; beyond, all entries as one


def _paths(entries):
    """The entry lists that can hold together: one per combination of if/try/match arms
    (only arms holding entries of the group count). Entries in exclusive arms never share
    a list; entries outside any branch are in every list."""
    arms = {}
    for e in entries:
        for point, arm in e.path:
            if type(arm) is frozenset:   # an exit constraint: any one arm falling through
                arm = min(arm, default=-1)
            arms.setdefault(point, set()).add(arm)
    if not arms:
        return [entries]
    points = sorted(arms)
    total = 1
    for point in points:
        total *= len(arms[point])
    if total == 1 or total > _MAX_PATHS:   # (1: one arm each, as a function body's entries)
        return [entries]
    out, seen = [], set()
    for choice in itertools.product(*(sorted(arms[p]) for p in points)):
        chosen = dict(zip(points, choice))
        picked = tuple(i for i, e in enumerate(entries)
                       if all(chosen[p] == a or (type(a) is frozenset and chosen[p] in a)
                              for p, a in e.path))
        if picked not in seen:
            seen.add(picked)
            out.append([entries[i] for i in picked])
    return out


def _by_function(entries):
    """A group's entries split per function body: the entries outside any function (module
    level) with those of one function, for each function that has some (`_FUNCTION_POINT`)."""
    functions = {}
    for i, e in enumerate(entries):
        for point, arm in e.path:
            if point == _FUNCTION_POINT:
                functions.setdefault(arm, []).append(i)
                break
    if len(functions) <= 1:
        return [entries]
    inside = {i for indices in functions.values() for i in indices}
    base = [i for i in range(len(entries)) if i not in inside]
    return [[entries[i] for i in sorted(base + indices)] for indices in functions.values()]


def _check_group(group, cat, product, env, used=None):
    """Findings of one group, as (line, col, code, severity, message, option): each set of
    entries that can hold together (`_paths`, per function: `_by_function`) is resolved on
    its own. `used` (a set): gets the target of each resolution (`_target`)."""
    kind = GROUP_KINDS[group.kind]
    if kind.named and group.opt_name not in (None, _NPU_OPTIMIZER):
        return _misnamed_optimizer(group, product, env)
    if not group.entries and not kind.sends_defaults:
        return []
    paths = [p for part in _by_function(group.entries) for p in _paths(part)]
    if len(paths) == 1:
        return _check_entries(group, paths[0], cat, product, env, used)
    out, seen = [], set()
    for entries in paths:
        for finding in _check_entries(group, entries, cat, product, env, used):
            if finding not in seen:
                seen.add(finding)
                out.append(finding)
    return out


class _Namespace:
    def __init__(self, **values):
        self.__dict__.update(values)


_NAMED = {}   # memo: (custom optimizer name, product, env) -> the resolver's NPB107 findings


def _misnamed_optimizer(group, product, env):
    """Findings of a custom optimizer not named exactly NpuOptimizer. The real adapter
    ignores it and its parameter_map (its entries are not checked); whether the name is
    close enough to be a typo (NPB107), and the message, are the resolver's: a ConfigProto
    holding only that custom optimizer is resolved and its NPB107 kept, at the name."""
    from npu_bridge.ge import NpuConfigError, resolve
    memo = (group.opt_name, product, tuple(sorted(env.items())))
    found = _NAMED.get(memo)
    if found is None:
        optimizer = _Namespace(name=group.opt_name, parameter_map={})
        config = _Namespace(graph_options=_Namespace(rewrite_options=_Namespace(
            custom_optimizers=(optimizer,))))
        try:
            diags = resolve(config, product=product, env=env).diagnostics
        except NpuConfigError as err:
            diags = err.diagnostics
        found = tuple((d.code, d.severity, d.message, d.option) for d in diags
                      if d.code == "NPB107")
        if len(_NAMED) >= _RESOLVED_MAX:
            _NAMED.clear()
        _NAMED[memo] = found
    line, col = group.name_pos
    return [(line, col) + f for f in found]


class _Input(NamedTuple):
    """What one set of a group's entries gives the resolver: `pm` (key -> LiteralAttr or a
    stand-in), `positions` (key -> (line, col)), `placeholders` (the stand-in keys), `out`
    (findings of the entries themselves), `make(pm)` (the resolver's input; None: nothing to
    resolve) and `user_set` (None: every key is the user's)."""
    pm: dict
    positions: dict
    placeholders: set
    out: list
    make: Optional[Callable]
    user_set: Any = None


def _map_input(group, entries, cat):
    """A hand-written parameter_map: each key's last write (NPB162 for `.b = N`)."""
    pm, positions, placeholders, out, last = {}, {}, set(), [], {}
    for e in entries:
        positions[e.key] = (e.line, e.col)
        last[e.key] = e
        if e.value is _NOT_LITERAL or e.field == "list":
            pm[e.key] = _placeholder(e.field)
            placeholders.add(e.key)
        else:
            pm[e.key] = LiteralAttr(e.field, e.value)
            placeholders.discard(e.key)
    for e in last.values():   # the value the session reads: each key's last write
        if e.bool_int is not None:
            found_ = _bool_int_finding(cat, e)
            if found_ is not None:
                out.append(found_)
    return _Input(pm, positions, placeholders, out, dict)


def _plugin_input(group, entries, cat):
    """An `npu_resource_init` call: its arguments as the function sends them; the keys it
    sends by default are not the user's."""
    pm, positions, placeholders, out = _plugin_entries(group, entries)
    rows = _plugin_args.spec().rows
    given = {rows[e.key].key for e in entries if e.key in rows}
    return _Input(pm, positions, placeholders, out, dict,
                  (_plugin_args.OWNER, frozenset(k for k in pm if k in given)))


def _config_input(group, entries, cat):
    """Config-class calls: the keys their arguments write (NBL011 for a value the class
    cannot write), and an NPURunConfig's own RunConfig arguments (the "run_config" rules)."""
    pm, positions, placeholders, out = {}, {}, set(), []
    for e in entries:
        opt = cat.by_arg.get(e.key)
        if opt is None or not opt.key or e.value is None:
            continue  # not an NPU option (model_dir, ...) or None (= not written)
        converted = _config_entry_to_attr(cat, e)
        positions[opt.key] = (e.line, e.col)
        if converted is None and opt.field in SCALAR_FIELDS and e.value is not _NOT_LITERAL \
                and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) \
                and _attr_for_field(opt.field, e.value) is None \
                and (opt.field != "s"):
            # the config class cannot write it into parameter_map["KEY"].FIELD
            out.append(found(e.line, e.col, "NBL011", opt.key, e.value, subject=e.label,
                             shown=repr(e.value), error=_misfit_reason(opt.field, e.value)))
        if converted is None:
            pm[opt.key] = _placeholder(opt.field)
            placeholders.add(opt.key)
        else:
            pm[converted[0]] = converted[1]
            placeholders.discard(opt.key)
    arguments = None
    if "NPURunConfig" in group.classes:
        given = {e.key: e.value for e in entries if e.key in _RUN_ARGS}
        positions.update((e.key, (e.line, e.col)) for e in entries if e.key in given)
        arguments = _config_schema.run_config_arguments(given)
    classes = frozenset(group.classes)
    if group.user_maps and "NPURunConfig" in classes:
        return _with_session_config(group, entries, cat, positions, out, arguments)
    if not pm and not (classes - {"NPURunConfig"}):
        return _Input(pm, positions, placeholders, out, None)
    # every key here is an argument the user gave: the resolver spells fixes as arguments
    owner = "NPURunConfig" if "NPURunConfig" in classes else min(classes)
    return _Input(pm, positions, placeholders, out,
                  lambda m: _ResolveInput(m, classes, arguments), (owner, frozenset(pm)))


def _rendered_attr(row, value):
    """The LiteralAttr the estimator writes for `value` of `row` (as the config layer's
    `_render._write`), or None when lint cannot tell (not a literal, or not writable)."""
    if value is _NOT_LITERAL:
        return None
    field = _argtypes.write_field(value, row) or row.field
    if field == "s" and not isinstance(value, (str, bytes)):
        value = str(value)
    typed = _attr_for_field(field, value) if field in SCALAR_FIELDS else None
    return None if typed is None else LiteralAttr(field, typed)


def _with_session_config(group, entries, cat, positions, out, arguments):
    """An NPURunConfig whose `session_config` carries NpuOptimizer(s) lint follows: the real
    NPUEstimator appends its own map after theirs and the adapter reads them all in order,
    so the whole map it writes (`argtypes.estimator_writes` over the literal arguments: its
    defaults too) is resolved after the user's maps, as at run time (NPB106 where it
    overrides one of their keys). The keys the user set: the arguments given and the user's
    maps' keys."""
    given = {e.key: e.value for e in entries}

    def lookup(path):
        cls, arg = _config_schema.owner(path)
        if cls.name != "NPURunConfig" and cls.name not in group.classes:
            return False, None
        value = given.get(path, cls.defaults.get(arg))
        return True, None if value is _config_schema.REQUIRED else value

    pm, placeholders = {}, set()
    for row, value in _argtypes.estimator_writes(lookup):
        attr = _rendered_attr(row, value)
        if attr is None:
            pm[row.key] = _placeholder(row.field)
            placeholders.add(row.key)
        else:
            pm[row.key] = attr
    users = [_map_input(g, g.entries, cat) for g in group.user_maps]
    for user in users:
        out.extend(user.out)
        placeholders |= user.placeholders
        for key, where in user.positions.items():   # (an argument's own place first)
            positions.setdefault(key, where)
    user_keys = {cat.by_arg[e.key].key for e in entries if e.key in cat.by_arg
                 and cat.by_arg[e.key].key} | {k for user in users for k in user.pm}
    maps = tuple(user.pm for user in users)
    # the second resolution (`_check_entries`) varies the stand-ins of the user's maps too
    others = tuple({k: _placeholder(v.WhichOneof("value"), one=True) if k in user.placeholders
                    else v for k, v in user.pm.items()} for user in users)
    classes = frozenset(group.classes)
    return _Input(pm, positions, placeholders, out,
                  lambda m: _ResolveInput((maps if m is pm else others) + (m,), classes,
                                          arguments),
                  ("NPURunConfig", frozenset(user_keys)))


class GroupKind(NamedTuple):
    """How lint checks one kind of group the visitor collects (`_Group.kind`).

    Attributes:
      read: `read(group, entries, catalog)` -> `_Input`.
      sends_defaults: checked even without entries (a call that sends its defaults).
      named: a custom optimizer whose name decides whether the adapter reads it (NPB107).
    """
    read: Callable
    sends_defaults: bool = False
    named: bool = False


GROUP_KINDS = {"parameter_map": GroupKind(_map_input, named=True),
               "plugin": GroupKind(_plugin_input, sends_defaults=True),
               "config": GroupKind(_config_input)}
"""Group kind -> its `GroupKind`: a new kind of group is one entry here."""


def _check_entries(group, entries, cat, product, env, used=None):
    """Findings of one set of a group's entries, as (line, col, code, severity, message, option).

    An entry whose value is not a literal still counts: it is resolved twice, with two
    different stand-in values (zero and non-zero). A diagnostic is kept when both
    resolutions give it (so it does not depend on the unknown value), or when it is about a
    stand-in key's name or field (NAME_FIELD_CODES), which needs no value.
    """
    pm, positions, placeholders, out, make, user_set = GROUP_KINDS[group.kind].read(
        group, entries, cat)
    if make is None:
        return out
    diags = _resolve(make(pm), product, env, user_set, used)
    if placeholders:
        other = {k: (_placeholder(v.WhichOneof("value"), one=True) if k in placeholders else v)
                 for k, v in pm.items()}
        known = {_diag_id(d) for d in _resolve(make(other), product, env, user_set)}
    for diag in diags:
        if diag.code in CONTEXT_CODES:
            continue
        option = getattr(diag, "option", "") or ""
        row = cat.option_for_key(option) if option not in positions else None
        key = option if row is None else (row.key or option)
        if placeholders and _diag_id(diag) not in known and not (
                key in placeholders and diag.code in NAME_FIELD_CODES):
            continue  # depends on a value lint does not know
        where = positions.get(key) or group.class_pos.get(option, (group.line, group.col))
        out.append((where[0], where[1], diag.code, diag.severity, diag.message, option))
    return out


def _bool_int_finding(cat, entry):
    """NPB162 for `parameter_map["KEY"].b = N`, N an int other than 0 and 1, KEY a bool
    option (its catalog row reads `.b`): protobuf stores True, so GE gets the option's "on"
    value, not N. The constructor's rule and GE part of the message (what GE gets, and, when
    the GE key itself takes N, how to set it), worded for a hand-written parameter_map:
    `_argtypes.bool_int_entry_warning`. As (line, col, code, severity, message, option), or
    None for another key (an unknown key or one read from another field is the resolver's
    NPB100/NPB101)."""
    row = cat.catalog.BY_KEY.get(entry.key)
    if row is None:
        return None
    diag = _argtypes.bool_int_entry_warning(entry.label, entry.bool_int, row)
    if diag is None:
        return None
    return (entry.line, entry.col, diag.code, diag.severity, diag.message, entry.key)


def _diag_id(diag):
    return (diag.code, diag.severity, diag.option, repr(diag.value), diag.message)

