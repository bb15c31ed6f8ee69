"""The option catalog: one declarative row per NPU/GE option (`_rows.ROWS`, plain data), given
a typed shape here (`Option`, `Route`: their columns are documented on the classes) and looked
up by any name (`find`). Every other part reads these rows; no option has code of its own. A
misspelled column fails the import with a ValueError naming the row and the close column.
"""
import difflib
from dataclasses import dataclass, field as _field, fields as _fields
from types import MappingProxyType
from typing import Any, Mapping, Optional, Tuple

from npu_bridge.ge import _rows, rule_kinds
from npu_bridge.ge.text import close_names, value_text  # noqa: F401  (catalog's own names too)

LEVELS = ("global", "session", "graph")
RULE_KINDS = tuple(rule_kinds.KINDS)
"""The names of the value rule kinds (`rule_kinds.KINDS`, one class each)."""
ESTIMATOR_WRITE_MODES = ("always", "when_set", "never")


@dataclass(frozen=True, slots=True)
class Route:
    """One place the adapter forwards a value to.

    Attributes:
      level: "global" (GEInitialize), "session" (ge::Session), "graph" (AddGraph) or
        "adapter" (kept by the adapter).
      key: the GE option key (or the adapter's own name for level "adapter").
      when: "always" (adapter default sent when the key is absent), "present" (only when the
        key is in the parameter_map), "nonempty" (only when the value is not empty).
      fmt: "auto" (ints decimal, bools "1"/"0", strings as is), "truefalse" (bools as
        "true"/"false"), or "map" (use `value_map`).
      value_map: {value text: GE text} for fmt "map".
    """
    level: str
    key: str
    when: str = "always"
    fmt: str = "auto"
    value_map: Optional[Mapping[str, str]] = None


@dataclass(frozen=True, slots=True)
class Option:
    """One catalog row. Two kinds: parameter_map rows (`key` set: the keys the real adapter
    reads from the `NpuOptimizer` custom optimizer or the real `NPUEstimator` writes there,
    the reference's 107 and `const_input`) and GE rows (`key` None, `ge_key` set: GE options
    a user gives directly, `resolve_ge`, from the seed ge_memory_options_zh.txt).

    Attributes:
      name: the row's own name (`key` for parameter_map rows, else `ge_key`).
      key: the `parameter_map` key, or None.
      ge_key: the GE key (GE rows; for a parameter_map row the GE key it stands for).
      ir_option: the offline `ge::ir_option` name (seed ir_memory_options_en.txt), or None.
      field: the `AttrValue` field the adapter reads (`b`, `i`, `s`, `f`), None for GE rows.
      other_fields: {field: "older" | "accept"}: another field with its own diagnostic
        ("older": older adapter releases read it there, the current one does not: error
        NPB102 naming that, the value not forwarded; "accept": the real NPUEstimator itself
        writes it there, not an error). Any other field is error NPB101.
      field_check: "refuse FILE:LINE" where the adapter checks the AttrValue's field before
        reading (`value_case`) and fails session creation (InvalidArgument) for another
        field, else None (it reads its field's proto default: the value is lost).
      type: the value's type in words (docs).
      default: the documented default; adapter_default: the text the adapter sends when
        the key is absent (None: nothing is sent).
      rule: the value rule kind, a name of `rule_kinds.KINDS` (`kind` is its class), with
        its parameters: `allowed` (enum), `min` / `max` (range, clamp, int_string; `unit`
        of them, e.g. "bytes"), `pattern` with a valid `example` and `format`, the pattern
        in words (regex: messages, `explain` and docs say the words, never the pattern).
      legacy_values: {value: reason}: values outside the documented set that the adapter's
        own checks accept; accepted with warning NPB103.
      products: product ids the option is supported on (None = all); value_products:
        {value: product ids}; product_severity: "error" where the seeds say so, else
        "warning"; value_product_severity: {value: severity of NPB113} (default warning).
      scenario: the use the option is for (docs).
      deprecated / replacement: deprecated in the vendor docs (NPB105), and what to use.
      runconfig_arg: the `NPURunConfig` argument or dotted config-class attribute that sets
        it (`memory_config.static_memory_policy`), or None.
      estimator_write: what the real `NPUEstimator` does with the key: "always" (for a
        dotted `runconfig_arg`, always when that container object is given), "when_set"
        (when the argument is not None), "never".
      estimator_value: a constant the estimator writes (`use_off_line` True), else None.
      estimator_default: the value written when the container object is absent
        (`enable_dump` False without a DumpConfig), else None.
      estimator_requires: another argument that must be set/true for the key to be written
        (`work_path` needs `aoe_mode`), else None.
      estimator_none_as: what the estimator writes for the argument left None when it
        writes the key (`profiling_options` "" while profiling is on), else None.
      plugin_none_as: what `npu_plugin.npu_resource_init` sends for the argument left None
        (`aoe_config_file`: "None"), else None (it sends nothing).
      routes: tuple of `Route`: where the adapter forwards the value.
      levels: for GE rows, the levels GE accepts the key at (seeds first, else the reference
        ge_option_scopes.json); for parameter_map rows, the levels of its routes.
      adapter_check: what the real adapter does with a bad value: "none", "error" (session
        creation fails), "fatal" (process abort), "clamp", "override".
      source: where the row's rules come from (seed file name or vendor doc page); doc: the
        vendor page, when not the source; notes: free text for docs.
      merge_reset: with several `NpuOptimizer` custom optimizers (read in order, a later one
        overriding the keys it sets), what a later one lacking the key does: None (the
        earlier value stays), "always" (reset to the adapter default, e.g. `job`), or a
        tuple of keys (reset only while one of them is on: `profiling_options` while
        `profiling_mode`). Source: tf_adapter/util/npu_attrs.cc SetNpuOptimizerAttr.
      plugin_key: the key `npu_resource_init` sends the option under at GEInitialize when
        its Python module spells it differently from `ge_key`, else None.
    """
    name: str
    key: Optional[str] = None
    ge_key: Optional[str] = None
    ir_option: Optional[str] = None
    field: Optional[str] = None
    other_fields: Mapping[str, str] = _field(default_factory=dict)
    field_check: Optional[str] = None
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

    @property
    def kind(self):
        """The row's value rule kind (`rule_kinds.KINDS[rule]`)."""
        return rule_kinds.KINDS[self.rule]


def allowed_text(row):
    """Describe a row's allowed values: '0, 1, 2', '[0, 33554432] bytes', a format in words
    with its example ("two positive integers joined by '|' ..., e.g. '2|4'"): its rule
    kind's (`npu_bridge.ge.rule_kinds`)."""
    return rule_kinds.KINDS[row.rule].allowed_text(row)


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


def _check_kind(kind, known, what):
    """Raise ValueError naming `what`, `kind` (not one of `known`), a close one and the known
    ones (`npu_bridge.ge.cross` checks a cross rule's kind with it too)."""
    if kind not in known:
        close = difflib.get_close_matches(str(kind), known, n=1)
        raise ValueError("%s %r is not a rule kind%s; kinds: %s" % (
            what, kind, " (did you mean %r?)" % close[0] if close else "", ", ".join(known)))


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
    _check_kind(spec.get("rule", "any"), RULE_KINDS, "catalog row %r: rule" % (name,))
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


def suggest(name, candidates=None, n=3):
    """Close matches of `name` among `candidates` (default: the parameter_map keys), best
    first, ignoring case (`PRECISION_MODE` -> `precision_mode`): `close_names`."""
    return close_names(name, candidates or PARAMETER_MAP_KEYS, n=n)


def all_names():
    """Every name `find` accepts."""
    return tuple(_NAMES)


def product_support(row):
    """Where a parameter_map row's option is supported, per spelling, as the resolver checks
    it (one fact for `resolve`, `npu-bridge lint`, `options` and `explain`):
    `((spelling, products, sources), ...)`, first `("parameter_map", row.products or None
    (all), row.source)`, then, when its `runconfig_arg` sits in config classes with a
    product table (`CLASS_PRODUCTS`: the seed MemoryConfig page's), `("ClassName argument",
    the products both allow, the class tables' sources)`: giving that class on another
    product is NPB114, the option itself NPB112."""
    out = [("parameter_map", row.products, row.source)]
    if not row.runconfig_arg:
        return tuple(out)
    from npu_bridge.ge import config_schema   # config_schema's tables are built from rows
    allowed, sources, path = row.products, [], row.runconfig_arg
    cls, _ = config_schema.owner(path)
    outer = cls.name
    while True:
        rule = CLASS_PRODUCTS.get(cls.name)
        if rule is not None:
            allowed = tuple(p for p in (allowed or rule[0]) if p in rule[0])
            sources.append(rule[1])
        if not cls.prefix:
            break
        cls, _ = config_schema.owner(cls.prefix)
    if sources:
        out.append(("%s argument" % outer, allowed, "; ".join(sources)))
    return tuple(out)
