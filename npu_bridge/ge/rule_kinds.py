"""The value rule kinds of the catalog: one class per kind, registered in `KINDS` by its
`name` when the class is defined; a catalog row's `rule` column names one (`Option.kind`).
The resolver, its generated reader, `resolve_ge` (`npu_bridge.ge.direct`), the argument
types (`npu_bridge.ge.argtypes`), `allowed_text` and the docs generator read a kind only
through its class: a new kind is one class here.
"""
import json
import re

from npu_bridge.ge import _rows, paths
from npu_bridge.ge.diagnostics import make
from npu_bridge.ge.text import close_names, value_text as _text

_DECIMAL = re.compile(r"-?[0-9]+").fullmatch   # ASCII only, as GE parses it

KINDS = {}
"""Rule kind name -> its `ValueKind` (one instance per class), in definition order."""


def _unset_values(row):
    """The values `check` accepts before any rule: "" and the adapter's own default
    (e.g. local_rank_id -1), in the row's field type."""
    unset = {""}
    ad = row.adapter_default
    if ad is not None:
        unset.add(ad)
        if row.field == "i" and _DECIMAL(ad):
            unset.add(int(ad))
        elif row.field == "b" and ad in ("true", "false"):
            unset.add(ad == "true")
    return frozenset(unset)


def _invalid(row, option, value, reason, suggestion=None, allowed=None):
    where = row.source or row.doc or "catalog"
    return make("E10001", option, value, reason=reason, where=where,
                allowed=row.allowed_text if allowed is None else allowed,
                suggestion=suggestion,
                shown=repr(value) if isinstance(value, str) else _text(value))


class ValueKind:
    """One kind of value rule (a row's `rule`): how one value is checked against its row.

    A subclass with a `name` registers an instance of itself in `KINDS`.

    Attributes:
      name: the value of the catalog's `rule` column for this kind.
      doc: what the kind checks, in one phrase (docs/options.md).
      numeric: a value given to GE directly (`resolve_ge`, always text) is read as an
        integer before the check (range, clamp).
      empty_means_unset: an empty string given to GE directly means unset; False for the
        kinds where GE would get an empty path (an error).
    """
    name = None
    doc = ""
    numeric = False
    empty_means_unset = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name is not None:
            if cls.name in KINDS:
                raise ValueError("rule kind %r defined twice" % cls.name)
            KINDS[cls.name] = cls()

    def allowed_text(self, row):
        """Human text of the values `row` allows, as messages and docs say it."""
        return "any value"

    def fast_test(self, row):
        """`(expression, constants)`: a Python expression in `v`, true for a plainly valid
        value of `row` (no diagnostic needed), or None when every value is valid. False sends
        the value to `check` (which may still accept it). The resolver's generated reader
        inlines it; `fast_ok` makes a predicate of it."""
        return None

    def finite(self, row):
        """The plainly valid values of `row` when they are few (the reader builds a
        deprecation warning once per value), else ()."""
        return ()

    def check(self, row, option, value):
        """Full check of one value: `(value to forward, diagnostics)`. The adapter's own
        "unset" value (e.g. local_rank_id -1) and "" (unset for every string option) pass
        before any rule."""
        if row.adapter_default is not None and _text(value) == row.adapter_default:
            return value, ()
        if value == "":
            return value, ()
        return self.problems(row, option, value)

    def problems(self, row, option, value):
        """`check` of a value that is not unset."""
        return value, ()


class Bool(ValueKind):
    name = "bool"
    doc = "true or false (the field's type does the rest)"

    def allowed_text(self, row):
        return "true, false"


def legacy_runs_as(row, value):
    """What GE runs a legacy value of `row` as (the rule table's `legacy_value` rows on the
    row's GE keys: static_memory_policy 1 runs as 2), or None: NPB103's fix."""
    keys = {route.key for route in row.routes} | {row.ge_key}
    for option, legacy, runs_as in _LEGACY_VALUES:
        if option in keys and value in legacy:
            return runs_as
    return None


# (option, legacy values, what GE runs them as) of the rule table's `legacy_value` rows, read
# from its data (`_rows.CROSS_RULES`): `npu_bridge.ge.cross` compiles that table from the
# catalog, which is built from these kinds.
_LEGACY_VALUES = tuple((spec["option"], tuple(spec["legacy"]), spec["runs_as"])
                       for spec in _rows.CROSS_RULES if spec["kind"] == "legacy_value")


class Enum(ValueKind):
    name = "enum"
    doc = "one of `allowed`; `legacy_values` with a warning (NPB103)"

    def allowed_text(self, row):
        return ", ".join([_text(v) for v in row.allowed]
                         + ["%s (legacy)" % _text(v) for v in row.legacy_values])

    def fast_test(self, row):
        unset = _unset_values(row) if row.key else frozenset()
        return "v in A", {"A": frozenset(row.allowed).union(unset)}

    def finite(self, row):
        return self.fast_test(row)[1]["A"]

    def problems(self, row, option, value):
        if value in row.allowed:
            return value, ()
        if value in row.legacy_values:
            return value, (make("NPB103", option, value, shown=_text(value),
                                note=row.legacy_values[value],
                                allowed=", ".join(_text(v) for v in row.allowed),
                                where=row.source, runs_as=legacy_runs_as(row, value)),)
        close = (close_names(value, [v for v in row.allowed if isinstance(v, str)], n=1)
                 if isinstance(value, str) else [])
        # the suggestion is the short line's key fact: the reason stays short
        reason = "did you mean %r?" % close[0] if close else "not one of the allowed values"
        return value, (_invalid(row, option, value, reason,
                                suggestion=close[0] if close else None),)


class Range(ValueKind):
    name = "range"
    doc = "an integer in [`min`, `max`]"
    numeric = True

    def allowed_text(self, row):
        lo = "-inf" if row.min is None else str(row.min)
        hi = "+inf" if row.max is None else str(row.max)
        return "[%s, %s]%s" % (lo, hi, (" " + row.unit) if row.unit else "")

    def fast_test(self, row):
        if row.min is not None and row.max is not None:
            # values reach it as ints or strings, never bools or floats (the field is
            # checked first); an unset value outside the range goes on to `check`
            return "v in A", {"A": range(row.min, row.max + 1)}
        return "(type(v) is int and LO <= v <= HI) or v in U", self._bounds(row)

    @staticmethod
    def _bounds(row):
        return {"LO": row.min if row.min is not None else float("-inf"),
                "HI": row.max if row.max is not None else float("inf"),
                "U": _unset_values(row) if row.key else frozenset()}

    def number(self, row, option, value):
        """`(the value as an integer, None)` or `(None, its diagnostic)`."""
        return value, None

    def problems(self, row, option, value):
        number, diag = self.number(row, option, value)
        if diag is not None:
            return value, (diag,)
        if not isinstance(number, int) or isinstance(number, bool):
            return value, (_invalid(row, option, value, "not an integer"),)
        if (row.min is None or number >= row.min) and (row.max is None or number <= row.max):
            return value, ()
        return self.out_of_range(row, option, value, number)

    def out_of_range(self, row, option, value, number):
        return value, (_invalid(row, option, value, "out of range"),)


class Clamp(Range):
    name = "clamp"
    doc = "an integer in [`min`, `max`]; outside, the adapter clamps it (NPB104)"

    def out_of_range(self, row, option, value, number):
        lo, hi = row.min, row.max
        bound = lo if lo is not None and number < lo else hi
        clamped = bound if isinstance(value, int) else str(bound)
        how = ("as the real adapter does" if row.key else
               "as the TF adapter does for its parameter_map option; how GE treats such a "
               "value given to it directly is not documented")
        return clamped, (make("NPB104", option, value, allowed=row.allowed_text,
                              bound=bound, how=how, where=row.source),)


class Regex(ValueKind):
    name = "regex"
    doc = "text matching `pattern` (said as `format` with its `example`)"

    def allowed_text(self, row):
        return "%s, e.g. %r" % (row.format, row.example)

    def fast_test(self, row):   # ASCII: GE's parsers take only ASCII digits and letters
        unset = _unset_values(row) if row.key else frozenset()
        texts = sorted(u for u in unset if isinstance(u, str))
        return "R(v) is not None", {"R": re.compile(
            "|".join(["(?:%s)" % _plain_groups(row.pattern)] + [re.escape(u) for u in texts]),
            re.ASCII).fullmatch}

    def problems(self, row, option, value):
        if re.fullmatch(row.pattern, value, re.ASCII):
            return value, ()
        return value, (_invalid(row, option, value, "wrong format"),)


class IntString(Range):
    name = "int_string"
    doc = "a decimal integer in text, in [`min`, `max`]"
    numeric = False   # text given directly is checked as text

    def fast_test(self, row):
        return ("v in U or (type(v) is str and len(v) <= 40 and D(v) is not None "
                "and LO <= int(v) <= HI)"), dict(self._bounds(row), D=_DECIMAL)

    def number(self, row, option, value):
        if not isinstance(value, str) or not _DECIMAL(value):
            return None, _invalid(row, option, value, "not a decimal integer")
        if len(value) > 40:  # beyond int64 (and int()'s digit limit)
            return None, _invalid(row, option, value, "out of range")
        return int(value), None


class Path(ValueKind):
    name = "path"
    doc = "a path (no NUL byte, no line break)"
    empty_means_unset = False

    def allowed_text(self, row):
        return "a non-empty path"

    def fast_test(self, row):
        return "'\\0' not in v and '\\n' not in v", {}

    def problems(self, row, option, value):
        if "\0" not in value and "\n" not in value:
            return value, ()
        return value, (_invalid(row, option, value, "not a usable path"),)


class WriteDir(ValueKind):
    name = "write_dir"
    doc = "a folder GE writes into, safe to write through (`npu_bridge.ge.paths`, NPB136)"
    empty_means_unset = False

    def allowed_text(self, row):
        return ("a directory path without '..' components that is not a symlink "
                "(npu_bridge.ge.paths)")

    def fast_test(self, row):   # every set value goes to `check`
        return "v in U", {"U": _unset_values(row) if row.key else frozenset()}

    def problems(self, row, option, value):
        reason = paths.unsafe_dir_reason(value)
        if reason is None:
            return value, ()
        return value, (make(paths.CODE, option, value, files="files", reason=reason,
                            where=row.source),)


class Json(ValueKind):
    name = "json"
    doc = "a JSON object in text"

    def allowed_text(self, row):
        return "a JSON object string (or empty)"

    def fast_test(self, row):
        return "v in U or J(v)", {"U": _unset_values(row) if row.key else frozenset(),
                                  "J": _json_object}

    def problems(self, row, option, value):
        problem = _json_problem(value)
        return value, (() if problem is None else (_invalid(row, option, value, problem),))


class Any(ValueKind):
    name = "any"
    doc = "any value"


def _plain_groups(pattern):
    """`pattern` (a catalog row's, matched whole) with its groups non-capturing and its
    `^...$` anchors dropped: `re` matches it 1.2 to 2.5 times as fast, to the same strings
    (fullmatch anchors it). Escapes and character classes are copied as they are."""
    out, i, end = [], 0, len(pattern)
    if pattern.startswith("^"):
        i = 1
    if pattern.endswith("$") and (len(pattern) - len(pattern[:-1].rstrip("\\"))) % 2:
        end -= 1   # a "$" after an even number of backslashes (none): the anchor
    while i < end:
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if char == "[":   # a class runs to the first "]" not escaped, not right after "[" or "[^"
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while j < end and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i:j + 1])
            i = j + 1
            continue
        out.append("(?:" if char == "(" and pattern[i + 1:i + 2] != "?" else char)
        i += 1
    plain = "".join(out)
    try:
        return plain if re.compile(plain).groups == 0 else pattern
    except re.error:   # e.g. a backreference to a group made non-capturing
        return pattern


def _json_problem(text):
    """Why `text` is not a JSON object (the json rule kind), or None when it is one."""
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as err:   # RecursionError: nested too deep to parse
        return "not valid JSON: %s" % err
    return None if isinstance(parsed, dict) else "not a JSON object"


def _json_object(text):
    """True when `text` is a JSON object (`_json_problem` finds nothing)."""
    return _json_problem(text) is None


# ---------------------------------------------------------------- by row
def _fast_test(row):
    """`KINDS[row.rule].fast_test(row)`."""
    return KINDS[row.rule].fast_test(row)


def _fast_ok(row):
    """The predicate of `_fast_test(row)`, or None when every value is valid."""
    test = _fast_test(row)
    if test is None:
        return None
    expression, constants = test
    return eval("lambda v: " + expression, dict(constants))  # pylint: disable=eval-used


def _check(row, option, value):
    """Full check of one value against its row (`ValueKind.check`): (value to forward,
    diagnostics)."""
    return KINDS[row.rule].check(row, option, value)


def _formatter(route, field):
    """How `route` writes a value of `field` as GE text."""
    if route.fmt == "map":
        vmap = dict(route.value_map)
        return lambda v: vmap.get(_text(v), _text(v))
    if route.fmt == "truefalse":
        return lambda v: "true" if v else "false"
    if field == "b":
        return lambda v: "1" if v else "0"
    if field == "i":
        return lambda v: str(v) if type(v) is int else _text(v)
    return lambda v: v if type(v) is str else _text(v)
