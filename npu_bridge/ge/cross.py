"""The generic cross-option rule kinds (`catalog.CROSS_RULES`, rows in `_rows.CROSS_RULES`).

Each rule is compiled once at import into `(trigger keys, check)`; `check_all(values, diags)`
runs only the rules one of whose trigger keys is in `values` (the parameter_map values the
resolver kept), so a 107-key resolution costs a few dictionary lookups per rule.
"""
import os

from npu_bridge.ge import catalog
from npu_bridge.ge.diagnostics import make

_MISSING = object()


def _show(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def _describe(key, test):
    if test == "set":
        return "%s set" % key
    if test is True or test is False:
        return "%s=%s" % (key, _show(test))
    if len(test) == 1:
        return "%s=%s" % (key, _show(test[0]))
    return "%s one of %s" % (key, ", ".join(_show(v) for v in test))


def _predicate(test):
    if test == "set":
        return lambda v: v is not None and v != ""
    if test is True or test is False:
        return lambda v: v is test
    allowed = frozenset(test)
    return lambda v: type(v) is not bool and v in allowed


def _conds(conds):
    return tuple((key, _predicate(test), _describe(key, test)) for key, test in conds)


def _first(values, conds):
    """(key, value) of the first condition that holds, else None."""
    for key, pred, _ in conds:
        value = values.get(key, _MISSING)
        if value is not _MISSING and pred(value):
            return key, value
    return None


def _why(rule):
    return "%s; source: %s" % (catalog.CROSS_FAILURES[rule.failure], rule.source)


def _requires(rule):
    when, needs = _conds(rule.when), _conds(rule.needs)

    def check(values, diags, given):
        hit = _first(values, when)
        if hit is None:
            return
        # a needed key given with an invalid value is already an error: not "missing" too
        ok = [_first(values, (c,)) is not None or (c[0] not in values and c[0] in given)
              for c in needs]
        if (any(ok) if rule.any_of else all(ok)):
            return
        missing = [c[2] for c, good in zip(needs, ok) if not good]
        what = ("one of: " + "; ".join(missing)) if rule.any_of else " and ".join(missing)
        diags.append(make(rule.code, hit[0], hit[1],
                          "%s=%s needs %s; %s" % (hit[0], _show(hit[1]), what, _why(rule)),
                          severity=rule.severity))
    return check


def _excludes(rule):
    when, others = _conds(rule.when), _conds(rule.others)

    def check(values, diags, given=()):
        hit = _first(values, when)
        if hit is None:
            return
        clash = _first(values, others)
        if clash is None:
            return
        diags.append(make(rule.code, hit[0], hit[1],
                          "%s=%s and %s=%s must not be set together; %s"
                          % (hit[0], _show(hit[1]), clash[0], _show(clash[1]), _why(rule)),
                          severity=rule.severity))
    return check


def _ascending_ranges(rule):
    when, option, limit = _conds(rule.when), rule.option, rule.max_groups

    def check(values, diags, given=()):
        if _first(values, when) is None:
            return
        value = values.get(option)
        if not isinstance(value, str):
            return
        groups = value.split("|")
        problems = []
        if limit is not None and len(groups) > limit:
            problems.append("%d groups, at most %d allowed" % (len(groups), limit))
        bad = []
        for group in groups:
            first, sep, second = group.partition("-")
            if sep and first.isdigit() and second.isdigit() and int(first) >= int(second):
                bad.append(group)
        if bad:
            problems.append("range%s %s do%s not ascend (a-b needs a < b)"
                            % ("s" if len(bad) > 1 else "", ", ".join(bad),
                               "" if len(bad) > 1 else "es"))
        if problems:
            diags.append(make(rule.code, option, value,
                              "invalid value for %s: %r (%s); %s"
                              % (option, value, "; ".join(problems), _why(rule)),
                              severity=rule.severity))
    return check


def _existing_dir(rule):
    when, option = _conds(rule.when), rule.option

    def check(values, diags, given=()):
        hit = _first(values, when)
        if hit is None:
            return
        path = values.get(option)
        if not isinstance(path, str) or path == "":
            return  # absent: a "requires" rule reports it
        try:   # "path/." resolves only for a directory: one access() call checks both
            usable = os.access(os.path.join(path, "."), os.R_OK | os.W_OK)
        except (OSError, ValueError):
            usable = False
        if usable:
            return
        diags.append(make(rule.code, option, path,
                          "%s=%r (used because %s=%s) is not an existing writable directory "
                          "on this machine; the real adapter requires one on the machine that "
                          "runs the script and checks it there at session creation (%s); "
                          "source: %s" % (option, path, hit[0], _show(hit[1]),
                                          catalog.CROSS_FAILURES[rule.failure], rule.source),
                          severity=rule.severity))
    return check


_KINDS = {"requires": _requires, "excludes": _excludes, "ascending_ranges": _ascending_ranges,
          "existing_dir": _existing_dir}

COMPILED = tuple((tuple(k for k, _ in rule.when), _KINDS[rule.kind](rule))
                 for rule in catalog.CROSS_RULES)
"""((trigger keys, check(values, diags)), ...) in `catalog.CROSS_RULES` order."""


def check_all(values, diags, given=()):
    """Append the diagnostics of every cross-option rule to `diags`.

    values: the valid parameter_map values (key -> Python value); given: every key the
    parameter_map holds (a key given with an invalid value is not in `values`; its error is
    already reported, so a rule needing it does not report it missing too)."""
    for keys, check in COMPILED:
        for key in keys:
            if key in values:
                check(values, diags, given)
                break
