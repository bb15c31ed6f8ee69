"""The option catalog: one declarative row per NPU/GE option, given a typed shape (`Option`,
`Route`) and looked up here; every other part reads these rows. Column meanings: docs/design.md
"Module notes".
"""
import difflib
from dataclasses import dataclass, field as _field, fields as _fields
from types import MappingProxyType
from typing import Any, Mapping, Optional, Tuple

from npu_bridge.ge import _rows

LEVELS = ("global", "session", "graph")
RULE_KINDS = ("bool", "enum", "range", "clamp", "regex", "int_string", "path", "write_dir", "json",
              "any")
ESTIMATOR_WRITE_MODES = ("always", "when_set", "never")


@dataclass(frozen=True, slots=True)
class Route:
    """One place the adapter forwards a value to.

    level: "global" | "session" | "graph" | "adapter".
    key: the GE option key (or the adapter's own name for level "adapter").
    when: "always" (adapter default sent when the key is absent), "present" (only when the
      key is in the parameter_map), "nonempty" (only when the value is not empty).
    fmt: "auto" (ints decimal, bools "1"/"0", strings as is), "truefalse" (bools as
      "true"/"false"), or "map" (use `value_map`).
    """
    level: str
    key: str
    when: str = "always"
    fmt: str = "auto"
    value_map: Optional[Mapping[str, str]] = None


@dataclass(frozen=True, slots=True)
class Option:
    """One catalog row (see the module docstring for the columns)."""
    name: str
    key: Optional[str] = None
    ge_key: Optional[str] = None
    ir_option: Optional[str] = None
    field: Optional[str] = None
    other_fields: Mapping[str, str] = _field(default_factory=dict)
    type: str = "string"
    default: Any = None
    adapter_default: Optional[str] = None
    rule: str = "any"
    allowed: Optional[tuple] = None
    min: Optional[int] = None
    max: Optional[int] = None
    pattern: Optional[str] = None
    example: Optional[str] = None
    format: Optional[str] = None
    legacy_values: Mapping[Any, str] = _field(default_factory=dict)
    unit: Optional[str] = None
    products: Optional[Tuple[str, ...]] = None
    value_products: Mapping[Any, Tuple[str, ...]] = _field(default_factory=dict)
    product_severity: str = "warning"
    # value -> severity of NPB113 for that value (default warning)
    value_product_severity: Mapping[Any, str] = _field(default_factory=dict)
    scenario: Optional[str] = None
    deprecated: bool = False
    replacement: Optional[str] = None
    runconfig_arg: Optional[str] = None
    estimator_write: str = "never"
    estimator_value: Any = None
    estimator_default: Any = None
    estimator_requires: Optional[str] = None
    estimator_none_as: Any = None
    plugin_none_as: Optional[str] = None
    routes: Tuple[Route, ...] = ()
    levels: Tuple[str, ...] = ()
    adapter_check: str = "none"
    source: str = ""
    doc: Optional[str] = None
    notes: str = ""
    merge_reset: Any = None
    plugin_key: Optional[str] = None

    @property
    def allowed_text(self):
        """Human text of the allowed values, as used in messages and docs."""
        return allowed_text(self)


def allowed_text(row):
    """Describe a row's allowed values: '0, 1, 2', '[0, 33554432] bytes', a format in words
    with its example ("two positive integers joined by '|' ..., e.g. '2|4'")."""
    kind = row.rule
    if kind == "bool":
        return "true, false"
    if kind == "enum":
        vals = [_show(v) for v in row.allowed]
        vals += ["%s (legacy)" % _show(v) for v in row.legacy_values]
        return ", ".join(vals)
    if kind in ("range", "clamp", "int_string"):
        lo = "-inf" if row.min is None else str(row.min)
        hi = "+inf" if row.max is None else str(row.max)
        unit = (" " + row.unit) if row.unit else ""
        return "[%s, %s]%s" % (lo, hi, unit)
    if kind == "regex":
        return "%s, e.g. %r" % (row.format, row.example)
    if kind == "path":
        return "a non-empty path"
    if kind == "write_dir":
        return "a directory path without '..' components that is not a symlink (npu_bridge.ge.paths)"
    if kind == "json":
        return "a JSON object string (or empty)"
    return "any value"


def value_text(v):
    """A value as the adapter writes it to GE: booleans as "true"/"false", else `str`."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


_show = value_text


OPTION_COLUMNS = tuple(f.name for f in _fields(Option))
ROUTE_COLUMNS = tuple(f.name for f in _fields(Route))


def _check_columns(spec, known, what):
    """Raise ValueError naming `what`, each column of `spec` not in `known`, a close known
    column and the known ones (a misspelled column is an error, never silently dropped)."""
    unknown = set(spec).difference(known)
    if unknown:
        bad = []
        for name in sorted(unknown, key=str):
            close = difflib.get_close_matches(str(name), known, n=1)
            bad.append("%r%s" % (name, " (did you mean %r?)" % close[0] if close else ""))
        raise ValueError("%s has unknown column(s) %s; known columns: %s"
                         % (what, ", ".join(bad), ", ".join(known)))


def _row_name(spec):
    return spec.get("key") or spec.get("ge_key") or spec.get("name") or spec.get("ir_option")


def _route(spec, row="?"):
    if isinstance(spec, Route):
        return spec
    _check_columns(spec, ROUTE_COLUMNS, "catalog row %r, route %r" % (row, spec.get("key")))
    spec = dict(spec)
    if spec.get("value_map") is not None:
        spec["value_map"] = MappingProxyType(dict(spec["value_map"]))
    return Route(**spec)


def _build(spec):
    name = _row_name(spec)
    _check_columns(spec, OPTION_COLUMNS, "catalog row %r" % (name,))
    spec = dict(spec)
    spec["routes"] = tuple(_route(r, name) for r in spec.get("routes", ()))
    for name in ("allowed", "products", "levels"):
        if spec.get(name) is not None:
            spec[name] = tuple(spec[name])
    if spec.get("merge_reset") not in (None, "always"):
        spec["merge_reset"] = tuple(spec["merge_reset"])
    for name in ("other_fields", "legacy_values", "value_product_severity"):
        spec[name] = MappingProxyType(dict(spec.get(name) or {}))
    spec["value_products"] = MappingProxyType(
        {k: tuple(v) for k, v in (spec.get("value_products") or {}).items()})
    if not spec.get("levels"):
        spec["levels"] = tuple(dict.fromkeys(
            r.level for r in spec["routes"] if r.level in LEVELS))
    spec.setdefault("name", spec.get("key") or spec.get("ge_key"))
    return Option(**spec)


OPTIONS: Tuple[Option, ...] = tuple(_build(s) for s in _rows.ROWS)
"""Every row, parameter_map rows first (in the reference order), then the GE rows."""

PARAMETER_MAP_KEYS: Tuple[str, ...] = tuple(o.key for o in OPTIONS if o.key)
"""The `parameter_map` keys the real adapter reads, in reference order."""

BY_KEY: Mapping[str, Option] = MappingProxyType({o.key: o for o in OPTIONS if o.key})
BY_GE_KEY: Mapping[str, Option] = MappingProxyType(
    {o.ge_key: o for o in OPTIONS if o.ge_key and not o.key})
BY_IR_OPTION: Mapping[str, Option] = MappingProxyType(
    {o.ir_option: o for o in OPTIONS if o.ir_option})

CLASS_PRODUCTS: Mapping[str, Tuple[Tuple[str, ...], str]] = MappingProxyType(
    {k: (tuple(v[0]), v[1]) for k, v in _rows.CLASS_PRODUCTS.items()})
"""Config class name -> (product ids it is supported on, source)."""


def _name_index():
    index = {}
    # Weakest first, so stronger names win: route keys, GE keys, arguments, pm keys.
    for o in OPTIONS:
        for r in o.routes:
            index.setdefault(r.key, o)
    for o in OPTIONS:
        if o.key and o.ge_key:
            index.setdefault(o.ge_key, o)
    for o in OPTIONS:
        if o.runconfig_arg:
            index[o.runconfig_arg] = o
            index.setdefault(o.runconfig_arg.rsplit(".", 1)[-1], o)
    index.update(BY_GE_KEY)
    index.update(BY_IR_OPTION)
    index.update(BY_KEY)
    return MappingProxyType(index)


_NAMES = _name_index()


def find(name):
    """Return the row for a name, or None.

    Accepts a `parameter_map` key (`static_memory_policy`), an `NPURunConfig` or
    config-class argument (`memory_config.static_memory_policy` or its last part), a GE key
    (`ge.exec.staticMemoryPolicy`: the seed's GE row where there is one, else the
    parameter_map row that forwards to it) or an `ir_option` name
    (`EXEC_DISABLE_REUSED_MEMORY`, also as `ge::ir_option::EXEC_DISABLE_REUSED_MEMORY`).
    """
    if not isinstance(name, str):
        return None
    row = _NAMES.get(name)
    if row is None and "::" in name:
        row = _NAMES.get(name.rsplit("::", 1)[-1])
    return row


def close_names(name, candidates, n=3, cutoff=0.6):
    """The names among `candidates` close to `name`, ignoring case (`STATIC_MEMORY_POLICY`
    finds `static_memory_policy`, `ge.exec.staticmemorypolicy` `ge.exec.staticMemoryPolicy`),
    best first, each in its own spelling (difflib on case-folded names): the "did you mean" of
    the resolver, `explain` and lint."""
    by_fold = {}
    for candidate in candidates:
        by_fold.setdefault(candidate.casefold(), []).append(candidate)
    found = []
    for folded in difflib.get_close_matches(name.casefold(), list(by_fold), n=n, cutoff=cutoff):
        found.extend(c for c in by_fold[folded] if c not in found)
    return found[:n]


def suggest(name, candidates=None, n=3):
    """Close matches of `name` among `candidates` (default: the parameter_map keys), best
    first, ignoring case (`PRECISION_MODE` -> `precision_mode`): `close_names`."""
    return close_names(name, candidates or PARAMETER_MAP_KEYS, n=n)


def all_names():
    """Every name `find` accepts."""
    return tuple(_NAMES)


# ---------------------------------------------------------------- cross-option rules
CROSS_KINDS = ("requires", "excludes", "ascending_ranges", "existing_dir", "memory_budget",
               "needs_value", "notice", "legacy_value", "env_policy", "policy_parallel",
               "weight_dir")
# parameter_map: on the parameter_map values; ge: on every resolution's effective GE options;
# ge_direct: on GE options given directly (resolve_ge), before the "ge" rows
CROSS_LEVELS = ("parameter_map", "ge", "ge_direct")
CROSS_FAILURES = {
    "error": "the real adapter fails session creation",
    "fatal": "the real adapter aborts the process (LOG(FATAL))",
    "docs": "the vendor docs say so; the real adapter does not check it",
}


@dataclass(frozen=True, slots=True)
class CrossRule:
    """One rule between options (`_rows.CROSS_RULES`; evaluated by `npu_bridge.ge.cross`).

    kind: one of `CROSS_KINDS`; when: ((key, test), ...), the rule applies when any holds
    (test "set", True/False, or a tuple of values); needs / others: ((key, test), ...) for
    "requires" (all must hold, or one with `any_of`) / "excludes" (none may hold); option:
    the key checked by "ascending_ranges" / "existing_dir"; max_groups: for
    "ascending_ranges"; failure: "error" | "fatal" | "docs" (`CROSS_FAILURES`); code and
    severity (None: the code's default) of the diagnostic; source: where the rule comes from.
    level: one of `CROSS_LEVELS` (keys are parameter_map keys, or GE keys for "ge" levels);
    allowed: the values the kind accepts ("needs_value"), stays quiet for ("notice": the
    row's `quiet` column), treats
    as legacy ("legacy_value"), guards ("policy_parallel") or reads in `env` ("env_policy");
    default: the value of an absent option ("needs_value"), what a legacy value runs as;
    shares: ((key, numerator, denominator), ...) of the device memory ("memory_budget");
    env: an environment variable the kind reads; invalid_code: the code of a bad `env` value;
    message: the kind's text, formatted with {option}, {value}, {needed}.
    """
    kind: str
    when: Tuple[Tuple[str, Any], ...]
    code: str
    source: str
    failure: str = "error"
    severity: Optional[str] = None
    needs: Tuple[Tuple[str, Any], ...] = ()
    others: Tuple[Tuple[str, Any], ...] = ()
    any_of: bool = False
    option: Optional[str] = None
    max_groups: Optional[int] = None
    level: str = "parameter_map"
    allowed: Tuple[Any, ...] = ()
    default: Any = None
    shares: Tuple[Tuple[str, int, int], ...] = ()
    env: Optional[str] = None
    invalid_code: Optional[str] = None
    message: Optional[str] = None

    @property
    def keys(self):
        """Every parameter_map key the rule reads."""
        names = [k for k, _ in self.when + self.needs + self.others]
        if self.option:
            names.append(self.option)
        names.extend(k for k, _, _ in self.shares)
        return tuple(dict.fromkeys(names))


def _conds(spec):
    return tuple((k, tuple(t) if isinstance(t, list) else t) for k, t in spec or ())


# the columns of a `_rows.CROSS_RULES` row ("if": CrossRule.when, "any": any_of, "quiet": the
# `allowed` of a "notice" row)
CROSS_COLUMNS = ("kind", "if", "code", "source", "failure", "severity", "needs", "others", "any",
                 "option", "max_groups", "level", "allowed", "quiet", "default", "shares", "env",
                 "invalid_code", "message")


def _cross(spec):
    _check_columns(spec, CROSS_COLUMNS, "cross-option rule %s %s (%s)"
                   % (spec.get("kind"), spec.get("code"), spec.get("option")
                      or ", ".join(str(k) for k, _ in spec.get("if") or ())))
    rule = CrossRule(kind=spec["kind"], when=_conds(spec["if"]), code=spec["code"],
                     source=spec["source"], failure=spec.get("failure", "error"),
                     severity=spec.get("severity"), needs=_conds(spec.get("needs")),
                     others=_conds(spec.get("others")), any_of=bool(spec.get("any")),
                     option=spec.get("option"), max_groups=spec.get("max_groups"),
                     level=spec.get("level", "parameter_map"),
                     allowed=tuple(spec.get("allowed", spec.get("quiet", ()))),
                     default=spec.get("default"),
                     shares=tuple(tuple(s) for s in spec.get("shares", ())),
                     env=spec.get("env"), invalid_code=spec.get("invalid_code"),
                     message=spec.get("message"))
    if (rule.kind not in CROSS_KINDS or rule.failure not in CROSS_FAILURES
            or rule.level not in CROSS_LEVELS):
        raise ValueError("bad cross-option rule %r" % (spec,))
    from npu_bridge.ge.scopes import SCOPES   # the GE keys GE reads
    known = BY_KEY if rule.level == "parameter_map" else (
        lambda k: k in BY_GE_KEY or k in SCOPES)
    unknown = [k for k in rule.keys if not (known(k) if callable(known) else k in known)]
    if unknown:
        raise ValueError("cross-option rule %r names unknown keys %s" % (spec, unknown))
    return rule


CROSS_RULES: Tuple[CrossRule, ...] = tuple(_cross(s) for s in _rows.CROSS_RULES)
"""The documented rules between options, one row each (`_rows.CROSS_RULES`)."""
