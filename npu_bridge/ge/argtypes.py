"""The argument-type rules of the NPU config classes, shared by the classes themselves
(`npu_bridge.config.npu_config`: checked at construction, NPB160) and by
`npu-bridge lint` (`npu_bridge.tools.lint`: the same checks on literal arguments, statically).

No TensorFlow here (lint never imports it). The rules come from the catalog (each argument's
`parameter_map` row: field, type, when the estimator writes it) and from the classes' schema
(`npu_bridge.ge.config_schema`: argument prefixes, nested classes, the few arguments the real
`NPURunConfig` checks in Python itself).
"""
import json
import numbers
import os

from npu_bridge.ge import legacy as _legacy
from npu_bridge.ge.diagnostics import make as _make
from npu_bridge.ge.config_schema import BY_NAME as _CLASSES

REAL_CONFIG = "hicann/tensorflow npu_config.py"
REAL_CONFIG_PATH = ("hicann/tensorflow tf_adapter/python/npu_bridge/estimator/npu/"
                    "npu_config.py")
_REAL_ESTIMATOR = "hicann/tensorflow npu_estimator.py (NPUEstimator.__load_graph_optimizers)"

TYPE_CODE = "NPB160"      # an argument of a type the real estimator cannot write
BOOL_INT_CODE = "NPB162"  # a bool argument given another int: protobuf stores True


def problem(arg, value, code=TYPE_CODE, **fields):
    """One problem of a constructor call, as a Diagnostic (code NPB160 unless given; its
    template's `fields`)."""
    return _make(code, arg, value, **fields)


def spelled(arg, value, position=None):
    """An argument as the user passed it, the subject of its finding: `arg=value` given by
    keyword, `arg=value (2nd positional argument)` given by position (`position`: 1 for the
    first argument after self; None: by keyword)."""
    text = "%s=%r" % (arg, value)
    if position is None:
        return text
    ordinal = {1: "st", 2: "nd", 3: "rd"}.get(position if position < 20 else position % 10, "th")
    return "%s (%d%s positional argument)" % (text, position, ordinal)


MEMORY_THIRD = "memory_optimization_policy"   # MemoryConfig's third argument


def memory_third_problem(problems, value, position):
    """`problems` of a `MemoryConfig` call, its third argument's NPB160 made the hint of
    that argument given by position (`position` 3) as an int the seed's three-argument form
    does not read (`config_schema.memory_seed_form`): the real signature takes a str there,
    the seed's prototype an int 0, 1 or 2 as variable_use_1g_huge_page. Given by keyword
    (`position` None), or of another type, `problems` as they are. The rule of the class and
    of lint alike."""
    if position is None or isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return problems
    return [problem(MEMORY_THIRD, value, subject=spelled(MEMORY_THIRD, value, position),
                    expected="a str (the real signature's third argument is "
                    "memory_optimization_policy)", got="int",
                    detail="; an int 0, 1 or 2 there is read as variable_use_1g_huge_page, the "
                    "seed's prototype, only while variable_use_1g_huge_page is left at 0: pass "
                    "either by keyword", where=REAL_CONFIG)
            if d.code == TYPE_CODE and d.option == MEMORY_THIRD else d for d in problems]


def legacy_argument(cls, arg, value):
    """`NPB108` warning for argument `arg` of an older release's `cls` constructor
    (`npu_bridge.ge.legacy`), or None when no release had it."""
    r = _legacy.ARGUMENTS.get(cls, {}).get(arg)
    if r is None:
        return None
    if r.writes is None:
        wrote = "nothing is written"
    elif value is None:
        wrote = "None: nothing is written, as the older NPUEstimator did"
    else:
        wrote = "written to parameter_map[%r].%s as the older NPUEstimator did" % r.writes
        if r.requires:
            wrote += " (only together with %s)" % " and ".join("%s=..." % n for n in r.requires)
        key_row = _legacy.PARAMETER_MAP_KEYS.get(r.writes[0])
        wrote += ", and %s" % ("the current adapter ignores that key" if key_row is not None
                               else "the current adapter still reads that key")
    return _make("NPB108", "%s(%s)" % (cls, arg), value, spelling="%s(%s=...)" % (cls, arg),
                 what="an argument", note=", not of the current %s (a TypeError there)" % cls,
                 effect="%s; today: %s" % (wrote, r.moved_to or "no equivalent"),
                 releases=r.releases)


# ---------------------------------------------------------------------------------------------
# Type rules derived from the catalog.


def catalog_options():
    from npu_bridge.ge import catalog
    return catalog.OPTIONS


_ROWS_BY_ARG = None   # runconfig argument -> catalog row; built on first use


def rows_by_arg():
    global _ROWS_BY_ARG
    rows = _ROWS_BY_ARG
    if rows is None:
        rows = {}
        for row in catalog_options():
            if row.key and row.runconfig_arg and row.estimator_write != "never":
                rows.setdefault(row.runconfig_arg, row)
        _ROWS_BY_ARG = rows
    return rows


def _tf_config_task():
    return (json.loads(os.environ.get("TF_CONFIG") or "{}")).get("task", {}) or {}


def _estimator_value(row, lookup):
    """(write?, value) for one catalog row, following the estimator_* columns; `lookup(path)`
    -> (container present, value) of a dotted `runconfig_arg`."""
    if row.estimator_value is not None:
        return True, row.estimator_value
    requires = row.estimator_requires
    token = requires.split()[0] if requires else None
    if token == "TF_CONFIG":
        # job / task_index come from TF_CONFIG's task (type, index) when a type is given.
        task = _tf_config_task()
        attr = requires.split()[1].split(".")[-1]
        if task.get("type") and task.get(attr) is not None:
            return True, task[attr]
        return True, row.estimator_default
    if row.runconfig_arg is None:
        return False, None
    container, _, _ = row.runconfig_arg.rpartition(".")
    present, value = lookup(row.runconfig_arg)
    if not present:
        # The container object (e.g. DumpConfig) was not given.
        return row.estimator_default is not None, row.estimator_default
    if token is not None:
        if container and token == container:
            # All arguments of that container must be set (dynamic_input_config).
            siblings = [r.runconfig_arg for r in rows_by_arg().values()
                        if r.runconfig_arg.startswith(container + ".")]
            if any(lookup(s)[1] is None for s in siblings):
                return False, None
        else:
            needed = lookup(token)[1]
            if needed is None or needed is False:
                return False, None
    if value is None:
        if not container and row.estimator_default is not None:
            value = row.estimator_default
        elif row.estimator_none_as is not None:
            value = row.estimator_none_as
    if value is None:
        return False, None
    return True, value


def estimator_writes(lookup):
    """`[(row, value), ...]`: what the real NPUEstimator writes into its NpuOptimizer's
    parameter_map for a config, in catalog order (hicann/tensorflow npu_estimator.py,
    `__load_graph_optimizers`; the catalog's estimator_* columns). `lookup(path)` ->
    `(container present, value)` of a dotted `runconfig_arg` (`memory_config.x`): the config
    layer's rendering reads the objects, lint the literal arguments."""
    out = []
    for row in catalog_options():
        if row.key and row.estimator_write != "never":
            write, value = _estimator_value(row, lookup)
            if write:
                out.append((row, value))
    return out


_FIELD_TYPES = {"b": "a bool", "i": "an int", "s": "a str", "f": "a number"}


_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _utf8_ok(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _integer_like(value):
    """What protobuf's integer fields take: an int (a bool is one), or any object with
    `__index__` that is not text (numpy's integers and bool_)."""
    return isinstance(value, numbers.Integral) or (
        hasattr(type(value), "__index__") and not isinstance(value, (str, bytes)))


def _matches_field(value, field, row):
    """Whether the estimator can write `value` into AttrValue field `field` for `row`."""
    if field == "b":
        return _integer_like(value)
    if field == "i":  # AttrValue.i is an int64: protobuf raises ValueError beyond it
        # a bool is an int there: the real estimator writes `.i = value` and protobuf
        # stores True/False as 1/0 (the value rules then apply to that 0/1)
        return _integer_like(value) and _INT64[0] <= value <= _INT64[1]
    if field == "f":
        return isinstance(value, numbers.Real)
    if field == "s":
        if isinstance(value, str):  # the estimator's as_bytes raises on a lone surrogate
            return _utf8_ok(value)
        if isinstance(value, bytes):
            return True
        # Memory sizes are written as str(int) (real estimator).
        return row.type == "bytes" and isinstance(value, numbers.Integral) \
            and not isinstance(value, bool)
    return False


def write_field(value, row):
    """The AttrValue field the estimator writes `value` to: the row's field, or a field the
    real estimator also writes the key to (`other_fields` "accept") whose type the value
    has; None when neither."""
    if _matches_field(value, row.field, row):
        return row.field
    for alt, how in row.other_fields.items():
        if how == "accept" and _matches_field(value, alt, row):
            return alt
    return None


def protobuf_error(field, value):
    """The exception protobuf (4.25, upb) raises for `attr_value.FIELD = value`, as
    "TypeError: ..." text, or None when it accepts the value (a bool is an int there)."""
    name = type(value).__name__
    if field == "s":
        return None if isinstance(value, bytes) else "TypeError: expected bytes, %s found" % name
    if field in ("i", "b"):
        if not _integer_like(value):
            return "TypeError: '%s' object cannot be interpreted as an integer" % name
        if field == "i" and not _INT64[0] <= value <= _INT64[1]:
            return "ValueError: Value out of range: %d (outside the int64 range of .i)" % value
        return None
    if field == "f":
        if not isinstance(value, numbers.Real):
            return "TypeError: must be real number, not %s" % name
        try:
            float(value)
        except OverflowError:
            return "OverflowError: int too large to convert to float"
    return None


def _allowed_types_text(row):
    texts = [_FIELD_TYPES[row.field] + (" (a bool is written as 1/0)" if row.field == "i" else "")]
    if row.field == "s" and row.type == "bytes":
        texts.append("an int (bytes)")
    texts += [_FIELD_TYPES[f] + " (older adapters' form)" for f in row.other_fields
              if f in _FIELD_TYPES and _FIELD_TYPES[f] not in texts]
    if row.estimator_write != "always":
        texts.append("None")
    return " or ".join(texts)


def check_row_type(owner, arg, value, row, problems, position=None):
    """Append a problem when `value` cannot be written the way the estimator writes `row`
    (`position`: where the call gave it, None by keyword: `spelled`)."""
    if value is None:
        if row.estimator_write == "always":
            problems.append(problem(
                arg, None, subject=spelled(arg, None, position), expected=_FIELD_TYPES[row.field],
                got="None (not allowed)", where=_REAL_ESTIMATOR,
                detail="; the real NPUEstimator always writes it to parameter_map[%r].%s"
                % (row.key, row.field)))
        return
    if write_field(value, row) is None:
        got = type(value).__name__
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
                and not _INT64[0] <= value <= _INT64[1]:
            got += " outside the int64 range of AttrValue.i"
        elif isinstance(value, str) and not _utf8_ok(value):
            got += " that is not encodable as UTF-8"
        raised = protobuf_error(row.field, value) if row.field != "s" else None
        problems.append(problem(
            arg, value, subject=spelled(arg, value, position), expected=_allowed_types_text(row),
            got=got, where=_REAL_ESTIMATOR,
            detail="; the real NPUEstimator writes it with parameter_map[%r].%s = value%s"
            % (row.key, row.field, ", where protobuf raises " + raised if raised else "")))


def _is_bool_int(value, row):
    """Whether `value` is an int other than 0 and 1 (not a bool) for a `.b` row."""
    return row.field == "b" and not isinstance(value, bool) \
        and isinstance(value, numbers.Integral) and value not in (0, 1)


def _bool_int_ge_parts(value, row, label):
    """The GE part of NPB162, for both forms: (what GE gets for `row`'s "on" value, and, when
    the row's GE key itself takes `value`, how to get it; `label` names what cannot express it
    ("" otherwise))."""
    from npu_bridge.ge import catalog
    from npu_bridge.ge.rule_kinds import _formatter   # how each route formats a .b value
    sent = ", ".join("%s %r (%s)" % (route.key, _formatter(route, "b")(True), route.level)
                     for route in row.routes if route.level != "adapter")
    advice = ""
    ge_row = catalog.find(row.ge_key) if row.ge_key else None
    if ge_row is not None and ge_row.allowed and str(value) in ge_row.allowed:
        where = "a GE option"
        if ge_row.levels:
            where += " at the %s level" % " or ".join(ge_row.levels)
        if ge_row.ir_option:
            where += ", or the ir_option %s" % ge_row.ir_option
        advice = ("; GE's own %s also takes %r (%s): to get it, set %s=%r directly as %s, "
                  "which %s cannot express (source: %s)"
                  % (row.ge_key, str(value), ge_row.notes or catalog.allowed_text(ge_row),
                     row.ge_key, str(value), where, label, ge_row.source))
    return sent or "its 'on' value", advice


def bool_int_warning(arg, value, row, position=None):
    """NPB162 (a warning) when `value`, an int other than 0 and 1, is given for an argument
    the real NPUEstimator writes to an AttrValue `.b` field (`row.field == "b"`): protobuf
    stores it as True, so GE gets the row's "on" value. Names what is sent, and, when the
    row's GE key itself takes that number (its catalog row's allowed values), how to get it.
    None otherwise. The one rule for every bool argument (catalog-driven)."""
    if not _is_bool_int(value, row):
        return None
    sent, advice = _bool_int_ge_parts(value, row, arg)
    return _make(BOOL_INT_CODE, arg, value, subject=spelled(arg, value, position), what="argument",
                 how="the real NPUEstimator writes it with parameter_map[%r].b = %r"
                 % (row.key, value), sent=sent, where=_REAL_ESTIMATOR, advice=advice)


def bool_int_entry_warning(label, value, row):
    """NPB162 for the hand-written form of `bool_int_warning`: `label` (e.g.
    `parameter_map["KEY"].b`) `= value`, `value` an int other than 0 and 1, `row` the key's
    catalog row (a `.b` row): the same rule and GE part, worded for the entry; the option is
    the row's key. None otherwise (`npu-bridge lint`)."""
    if not _is_bool_int(value, row):
        return None
    sent, advice = _bool_int_ge_parts(value, row, label)
    return _make(BOOL_INT_CODE, row.key, value, subject="%s = %r" % (label, value), what="field",
                 how="protobuf writes %r to AttrValue.b" % value, sent=sent,
                 where="protobuf AttrValue.b is a bool", advice=advice)


def _check_bool_int(arg, value, row, warnings, position=None):
    if warnings is not None:
        diag = bool_int_warning(arg, value, row, position)
        if diag is not None:
            warnings.append(diag)


def check_instance(arg, value, cls, problems, exception_note="", position=None):
    if value is not None and not isinstance(value, cls):
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="a %s or None" % cls.__name__,
                                got=type(value).__name__, detail="",
                                where=REAL_CONFIG + exception_note))


def _check_bool(arg, value, problems, position=None):
    if not isinstance(value, bool):
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="True or False", got=type(value).__name__, detail="",
                                where=REAL_CONFIG))


def check_int(arg, value, problems, minimum, values=None, position=None):
    """The real util.check_positive_integer / check_nonnegative_integer: `isinstance(value,
    six.integer_types)`, which a bool passes (then written as 1/0 by `.i = value`). A value
    below `minimum` goes to `values` when given (value problems the resolver reports too)."""
    if not isinstance(value, numbers.Integral):
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="an int >= %d (a bool counts as 1/0)" % minimum,
                                got=type(value).__name__,
                                detail="; the real NPURunConfig raises TypeError ('must be int')",
                                where=REAL_CONFIG + ", util.check_positive_integer / "
                                "check_nonnegative_integer"))
        return False
    if value < minimum:
        (problems if values is None else values).append(problem(
            arg, value, code="E10001", shown=repr(value), reason="below %d" % minimum,
            allowed="an int >= %d" % minimum, where=REAL_CONFIG))
        return False
    if value > _INT64[1]:  # written to AttrValue.i: protobuf raises ValueError beyond int64
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="an int64 of at most %d (AttrValue.i)" % _INT64[1],
                                got="a larger int", detail="", where=_REAL_ESTIMATOR))
        return False
    return True


def check_class_args(owner, args, problems, positions=None):
    """Type-check the arguments of config class `owner` (a name) against their catalog rows
    (`positions`: argument -> its position, for those the call gave by position)."""
    cls = _CLASSES[owner]
    for arg, value in args.items():
        row = rows_by_arg().get(cls.path(arg))
        if row is not None:
            check_row_type(owner, arg, value, row, problems, (positions or {}).get(arg))


def check_npu_arg(arg, value, problems, values=None, position=None):
    """Type-check one `NPURunConfig` argument of its own checks (schema `own_checks`) as the
    real class does; True when it passed (then its value checks may follow). Value problems
    (an int below the minimum: E10001) go to `values` when given, else to `problems`."""
    kind, minimum = _CLASSES["NPURunConfig"].checks[arg]
    if kind == "int":
        return check_int(arg, value, problems, minimum, values, position)
    if kind == "bool":
        before = len(problems)
        _check_bool(arg, value, problems, position)
        return len(problems) == before
    # str: jit_compile (a bool, which older releases took, is refused since: the class's
    # isinstance check, and the adapter reads only .s, npu_attrs.cc:2635)
    if isinstance(value, str) and not _utf8_ok(value):
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="a str encodable as UTF-8 (the estimator writes it "
                                "with as_bytes)", got="one that is not", detail="",
                                where=_REAL_ESTIMATOR))
        return False
    if not isinstance(value, str):
        problems.append(problem(arg, value, subject=spelled(arg, value, position),
                                expected="a str ('auto', 'true', 'false'; older releases took "
                                "a bool, the current class does not)", got=type(value).__name__,
                                detail="", where=REAL_CONFIG_PATH + ":217-218"))
        return False
    return True


class _NoInstance:
    """Stands for a config class where only its name is at hand (lint): no literal is one."""


def check_arg(owner, arg, value, problems, classes=None, warnings=None, position=None):
    """Type-check one argument of config class `owner` (a name) as its constructor does,
    appending NPB160 Diagnostics to `problems`, and, when `warnings` is a list, NPB162
    (`bool_int_warning`) to it. `classes` maps class names to the classes
    (npu_config); without it, only the name of a class argument's class is known, which is
    all a literal needs. `position`: where the call gave it (None: by keyword), for the
    finding's subject (`spelled`). Value problems are left to the resolver."""
    cls = _CLASSES.get(owner)
    if cls is None:
        return
    if arg in cls.checks:
        check_npu_arg(arg, value, problems, [], position)
        return
    class_name = cls.nested.get(arg)
    if class_name is not None:
        inner = (classes or {}).get(class_name) or type(class_name, (_NoInstance,), {})
        check_instance(arg, value, inner, problems, position=position)
        return
    if cls.row_types:
        row = rows_by_arg().get(cls.path(arg))
        if row is not None:
            before = len(problems)
            check_row_type(owner, arg, value, row, problems, position)
            if len(problems) == before:
                _check_bool_int(arg, value, row, warnings, position)
