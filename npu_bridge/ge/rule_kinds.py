"""The generic rule kinds of the catalog (`catalog.RULE_KINDS`): one value against its row.

`_check` is the full check of a value (the diagnostics GE and the adapter give);
`_fast_test` / `_fast_ok` the plain-validity test the generated reader inlines;
`_formatter` how a route writes a value as GE text. Used by the resolver, by
`resolve_ge` (`npu_bridge.ge.direct`) and by the argument types of `npu_bridge.ge.argtypes`.
"""
import json
import re

from npu_bridge.ge import catalog, paths
from npu_bridge.ge.diagnostics import make

_DECIMAL = re.compile(r"-?[0-9]+").fullmatch   # ASCII only, as GE parses it


_text = catalog.value_text


def _unset_values(row):
    """The values `_check` accepts before any rule: "" and the adapter's own default
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


def _fast_test(row):
    """`(expression, constants)`: a Python expression in `v` that is true for a plainly valid
    value of `row` (no diagnostic needed), or None when every value is valid. False sends
    the value to `_check` (which may still accept it); `_fast_ok` makes a predicate of it."""
    kind = row.rule
    if kind in ("bool", "any"):
        return None
    unset = _unset_values(row) if row.key else frozenset()
    if kind == "enum":
        return "v in A", {"A": frozenset(row.allowed).union(unset)}
    if kind in ("range", "clamp") and row.min is not None and row.max is not None:
        # values reach it as ints or strings, never bools or floats (the field is checked
        # first); an unset value outside the range goes on to `_check`
        return "v in A", {"A": range(row.min, row.max + 1)}
    lo = row.min if row.min is not None else float("-inf")
    hi = row.max if row.max is not None else float("inf")
    bounds = {"LO": lo, "HI": hi, "U": unset}
    if kind in ("range", "clamp"):
        return "(type(v) is int and LO <= v <= HI) or v in U", bounds
    if kind == "int_string":
        return ("v in U or (type(v) is str and len(v) <= 40 and D(v) is not None "
                "and LO <= int(v) <= HI)"), dict(bounds, D=_DECIMAL)
    # regex, path: values reach these as strings (an s field, or GE text)
    if kind == "regex":  # ASCII: GE's parsers take only ASCII digits and letters
        texts = sorted(u for u in unset if isinstance(u, str))
        return "R(v) is not None", {"R": re.compile(
            "|".join(["(?:%s)" % _plain_groups(row.pattern)] + [re.escape(u) for u in texts]),
            re.ASCII).fullmatch}
    if kind == "path":   # no NUL, no newline
        return "'\\0' not in v and '\\n' not in v", {}
    if kind == "json":
        return "v in U or J(v)", {"U": unset, "J": _json_object}
    return "v in U", {"U": unset}  # write_dir: checked by _check unless unset


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


def _fast_ok(row):
    """The predicate of `_fast_test(row)`, or None when every value is valid."""
    test = _fast_test(row)
    if test is None:
        return None
    expression, constants = test
    return eval("lambda v: " + expression, dict(constants))  # pylint: disable=eval-used


def _invalid(row, option, value, reason):
    where = row.source or row.doc or "catalog"
    return make("E10001", option, value, reason=reason, allowed=row.allowed_text, where=where,
                shown=repr(value) if isinstance(value, str) else _text(value))


def legacy_runs_as(row, value):
    """What GE runs a legacy value of `row` as (the rule table's `legacy_value` rows on the
    row's GE keys: static_memory_policy 1 runs as 2), or None (NPB103's fix)."""
    keys = {route.key for route in row.routes} | {row.ge_key}
    for rule in catalog.CROSS_RULES:
        if rule.kind == "legacy_value" and rule.option in keys and value in rule.allowed:
            return rule.default
    return None


def _check(row, option, value):
    """Full check of one value. Returns (value to forward, diagnostics)."""
    kind = row.rule
    if row.adapter_default is not None and _text(value) == row.adapter_default:
        return value, ()  # the adapter's own "unset" value (e.g. local_rank_id -1)
    if value == "":
        return value, ()  # an empty string means unset for every string option
    if kind == "enum":
        if value in row.allowed:
            return value, ()
        if value in row.legacy_values:
            note = row.legacy_values[value]
            return value, (make("NPB103", option, value, shown=_text(value), note=note,
                                allowed=", ".join(_text(v) for v in row.allowed),
                                where=row.source, runs_as=legacy_runs_as(row, value)),)
        close = (catalog.close_names(value, [v for v in row.allowed if isinstance(v, str)], n=1)
                 if isinstance(value, str) else [])
        reason = "not one of the allowed values" + (
            "; did you mean %r?" % close[0] if close else "")
        return value, (_invalid(row, option, value, reason),)
    if kind in ("range", "clamp", "int_string"):
        number = value
        if kind == "int_string":
            if value == "":
                return value, ()
            if not isinstance(value, str) or not _DECIMAL(value):
                return value, (_invalid(row, option, value, "not a decimal integer"),)
            if len(value) > 40:  # beyond int64 (and int()'s digit limit)
                return value, (_invalid(row, option, value, "out of range"),)
            number = int(value)
        if not isinstance(number, int) or isinstance(number, bool):
            return value, (_invalid(row, option, value, "not an integer"),)
        lo, hi = row.min, row.max
        if (lo is None or number >= lo) and (hi is None or number <= hi):
            return value, ()
        if kind == "clamp":
            bound = lo if lo is not None and number < lo else hi
            clamped = bound if isinstance(value, int) else str(bound)
            how = ("as the real adapter does" if row.key else
                   "as the TF adapter does for its parameter_map option; how GE treats such a "
                   "value given to it directly is not documented")
            return clamped, (make("NPB104", option, value, allowed=row.allowed_text,
                                  bound=bound, how=how, where=row.source),)
        return value, (_invalid(row, option, value, "out of range"),)
    if kind == "regex":
        if value == "" or re.fullmatch(row.pattern, value, re.ASCII):
            return value, ()
        return value, (_invalid(row, option, value, "wrong format"),)
    if kind == "write_dir":  # a folder GE writes into: npu_bridge.ge.paths
        reason = paths.unsafe_dir_reason(value) if value != "" else None
        if reason is None:
            return value, ()
        return value, (make(paths.CODE, option, value, files="files", reason=reason,
                            where=row.source),)
    if kind == "path":
        if value == "" or ("\0" not in value and "\n" not in value):
            return value, ()
        return value, (_invalid(row, option, value, "not a usable path"),)
    if kind == "json":
        if value == "":
            return value, ()
        problem = _json_problem(value)
        return value, (() if problem is None else (_invalid(row, option, value, problem),))
    return value, ()


def _formatter(route, field):
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
