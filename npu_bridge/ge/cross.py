"""The rule kinds of the rule table (`catalog.CROSS_RULES`, rows in `_rows.CROSS_RULES`).

Each row is compiled once at import into a check. `check_all` runs the parameter_map rows
whose trigger keys the resolution holds; `check_ge` runs the GE-level rows (GE's own
normalisation and the seeds' memory rules) on a resolution's effective options, in order.
"""
import os

from npu_bridge.ge import catalog, paths, products
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
    """The fields every rule's diagnostic has: `failure` (what the real stack does) and
    `where` (the row's source)."""
    return {"failure": catalog.CROSS_FAILURES[rule.failure], "where": rule.source}


def _requires(rule):
    when, needs = _conds(rule.when), _conds(rule.needs)
    if rule.level != "parameter_map":
        return _requires_ge(rule, when, needs)

    def check(values, diags, given, ctx=None):
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
        diags.append(make(rule.code, hit[0], hit[1], severity=rule.severity,
                          subject="%s=%s" % (hit[0], _show(hit[1])), needed=what,
                          **_why(rule)))
    return check


def _excludes(rule):
    when, others = _conds(rule.when), _conds(rule.others)

    def check(values, diags, given=(), ctx=None):
        hit = _first(values, when)
        if hit is None:
            return
        clash = _first(values, others)
        if clash is None:
            return
        diags.append(make(rule.code, hit[0], hit[1], severity=rule.severity,
                          shown=_show(hit[1]), other=clash[0], other_shown=_show(clash[1]),
                          **_why(rule)))
    return check


def _ascending_ranges(rule):
    when, option, limit = _conds(rule.when), rule.option, rule.max_groups

    def check(values, diags, given=(), ctx=None):
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
            allowed = "'|'-separated steps or ranges a-b with a < b" + (
                ", at most %d groups" % limit if limit is not None else "")
            diags.append(make(rule.code, option, value, severity=rule.severity,
                              shown=repr(value), reason="; ".join(problems), allowed=allowed,
                              where=rule.source))
    return check


def _existing_dir(rule):
    when, option = _conds(rule.when), rule.option

    def check(values, diags, given=(), ctx=None):
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
        diags.append(make(rule.code, option, path, severity=rule.severity,
                          cause="%s=%s" % (hit[0], _show(hit[1])), **_why(rule)))
    return check


def _memory_budget(rule):
    shares = {key: (num, den) for key, num, den in rule.shares}

    def check(values, diags, given=(), ctx=None):
        pid, socs = ctx or (None, ())
        if pid is None:
            return
        mem, mem_source = products.memory_figure(pid, socs)
        sizes = [(k, values.get(k)) for k in shares]
        sizes = [(k, int(v)) for k, v in sizes if isinstance(v, str) and v.isdigit()]
        if not sizes:
            return
        if not mem:   # said, not skipped silently (NPB145)
            diags.append(make("NPB145", sizes[0][0], None, product=pid, figure=mem_source,
                              rule=rule.code))
            return
        confidence = products.PRODUCTS[pid].memory_confidence or "high"
        if mem_source.split(":", 1)[0] in products.SOC_MEMORY:
            confidence = "high"   # the SoC's own platform-config figure
        if len(sizes) == 1:  # the unset one takes its default share of the device memory
            other = [k for k in shares if k != sizes[0][0]][0]
            num, den = shares[other]
            sizes.append((other + " (unset: %d/%d of the memory)" % (num, den), mem * num // den))
        total = sum(v for _, v in sizes)
        if total > mem:
            # the fix: the first size the script set, lowered to what fits beside the rest
            fit = [(k, mem - (total - v)) for k, v in sizes if k in shares and total - v < mem]
            diags.append(make(rule.code, sizes[0][0], total,
                              severity="warning" if confidence == "low" else None,
                              sizes=" + ".join("%s %d" % kv for kv in sizes), memory=mem,
                              product=pid, confidence=confidence, figure=mem_source,
                              where=rule.source, parts=[v for _, v in sizes],
                              fix_key=fit[0][0] if fit else None,
                              fit=fit[0][1] if fit else None))
    return check


def _needs_value(rule):
    when, option, allowed, default = _conds(rule.when), rule.option, rule.allowed, rule.default

    def check(values, diags, given=(), ctx=None):
        hit = _first(values, when)
        if hit is None or values.get(option, default) in allowed:
            return
        diags.append(make(rule.code, hit[0], hit[1], shown=_show(hit[1]), needs=option,
                          allowed=" or ".join(str(a) for a in allowed), got=values.get(option),
                          where=rule.source))
    return check


def _memo_notice(rule):
    """`notice(value)`: the row's Diagnostic for `value`, built once per value (a bounded memo;
    a Diagnostic is immutable)."""
    option, built = rule.option, {}

    def notice(value):
        key = (type(value), value)
        try:
            diag = built.get(key)
        except TypeError:   # an unhashable value: not memoized
            key = diag = None
        if diag is None:
            diag = make(rule.code, option, value, where=rule.source)
            if key is not None and len(built) < 64:
                built[key] = diag
        return diag
    return notice


def _notice(rule):
    option, quiet, notice = rule.option, rule.allowed, _memo_notice(rule)

    def check(values, diags, given=(), ctx=None):
        value = values.get(option)
        if value is None or value in quiet:
            return
        diags.append(notice(value))
    return check


# GE-level kinds: check(result, env, state); `state` carries what the rows before left
# ("policy": the static-memory policy as GE will run it, "shown": the option's name as the
# script gave it, "parallel": graph_max_parallel_model_num).

def _int_or_none(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _policy(rule, eff, state):
    """The policy as the rows before left it; the first row reads it (and its text)."""
    if "policy" not in state:
        state["text"] = eff.get(rule.option)
        state["policy"] = _int_or_none(state["text"])
    return state["policy"]


def _legacy_value(rule):
    option, legacy, runs_as = rule.option, rule.allowed, rule.default

    def check(result, env, state):
        policy = _policy(rule, result.effective, state)
        if policy not in legacy:
            return
        shown = state.get("shown") or option
        if not any(d.code == rule.code and d.option == shown for d in result.diagnostics):
            row = catalog.find(option)
            result.diagnostics.append(make(
                rule.code, shown, policy, shown=policy, note="GE runs it as %s" % runs_as,
                allowed=row.allowed_text if row is not None else "see docs/options.md",
                where=rule.source))
        state["policy"] = runs_as
    return check


def _env_policy(rule):
    option, var, valid = rule.option, rule.env, rule.allowed

    def check(result, env, state):
        eff = result.effective
        policy = _policy(rule, eff, state)
        text = state["text"]
        env_text = env.get(var)
        if env_text not in (None, ""):
            env_policy = _int_or_none(env_text)
            if env_policy not in valid:
                result.diagnostics.append(make(rule.invalid_code, var, env_text,
                                               allowed=", ".join(str(v) for v in valid),
                                               where=rule.source))
            else:
                given = policy or 0
                static = given in (2, 4) or env_policy in (1, 2, 4)
                dynamic = given in (3, 4) or env_policy in (3, 4)
                merged = 4 if static and dynamic else 2 if static else 3 if dynamic else 0
                if text is not None and result.sources.get(option) != "adapter default":
                    shown = state.get("shown") or option
                    result.diagnostics.append(make(rule.code, shown, text, shown=text, var=var,
                                                   env_value=env_text, merged=merged,
                                                   where=rule.source))
                policy = state["policy"] = merged
                result.sources[option] = "env:" + var + " merged"
        if policy is not None:
            eff[option] = str(policy)
    return check


def _policy_parallel(rule):
    option, guarded, other = rule.option, rule.allowed, rule.others[0][0]

    def check(result, env, state):
        eff = result.effective
        policy = _policy(rule, eff, state)
        parallel = state.get("parallel")
        if parallel is None:
            parallel = _int_or_none(eff.get(other))
        if policy in guarded and parallel is not None and parallel > 1:
            text = state["text"]
            shown = state.get("shown") or option
            result.diagnostics.append(make(
                rule.code, shown, text, shown=text, parallel=parallel, where=rule.source,
                runs_as="" if str(policy) == text else " (runs as %d)" % policy))
    return check


def _weight_dir(rule):
    when, option, var = _conds(rule.when), rule.option, rule.env

    def check(result, env, state):
        eff = result.effective
        hit = _first(eff, when)
        if hit is None:
            return
        wdir = eff.get(option)
        if not wdir:
            base = env.get(var)
            reason = paths.unsafe_dir_reason(base) if base else None
            if reason is not None:
                result.diagnostics.append(make(paths.CODE, var, base,
                                               files="external weight files", reason=reason,
                                               where=rule.source + " (precedence rule)"))
            name = "tmp_weight_%d_<sessionid>" % os.getpid()
            wdir = os.path.join(base, name) if base else os.path.join(".", name)
            eff[option] = wdir
        result.diagnostics.append(make(rule.code, hit[0], hit[1], wdir=wdir, key=option,
                                       var=var, where=rule.source))
    return check


def _requires_ge(rule, when, needs):
    def check(result, env, state):
        eff = result.effective
        hit = _first(eff, when)
        if hit is None or all(_first(eff, (c,)) is not None for c in needs):
            return
        result.diagnostics.append(make(
            rule.code, hit[0], hit[1], subject="%s=%s" % (hit[0], _show(hit[1])),
            needed=" and ".join(c[2] for c in needs), got=eff.get(needs[0][0]), **_why(rule)))
    return check


def _notice_ge(rule):
    option, quiet, notice = rule.option, rule.allowed, _memo_notice(rule)

    def check(result, env, state):
        value = result.effective.get(option)
        if value is None or value in quiet:
            return
        result.diagnostics.append(notice(value))
    return check


_KINDS = {"requires": _requires, "excludes": _excludes, "ascending_ranges": _ascending_ranges,
          "existing_dir": _existing_dir, "memory_budget": _memory_budget,
          "needs_value": _needs_value, "notice": _notice}
_GE_KINDS = {"requires": _requires, "notice": _notice_ge, "legacy_value": _legacy_value,
             "env_policy": _env_policy, "policy_parallel": _policy_parallel,
             "weight_dir": _weight_dir}

COMPILED = tuple((tuple(k for k, _ in rule.when), _KINDS[rule.kind](rule))
                 for rule in catalog.CROSS_RULES if rule.level == "parameter_map")
"""((trigger keys, check(values, diags, given, ctx)), ...) of the parameter_map rows, in
`catalog.CROSS_RULES` order."""
GE_COMPILED = {level: tuple((tuple(k for k, _ in rule.when), rule.env if rule.kind == "env_policy"
                             else None, _GE_KINDS[rule.kind](rule))
                            for rule in catalog.CROSS_RULES if rule.level == level)
               for level in ("ge_direct", "ge")}
"""level -> ((trigger GE keys, trigger environment variable or None, check(result, env,
state)), ...) of the GE-level rows, in table order. A row runs only when the effective options
hold one of its trigger keys (or the environment sets its variable): each kind does nothing
without them."""


def check_all(values, diags, given=(), ctx=None):
    """Append the diagnostics of every parameter_map rule to `diags`.

    values: the valid parameter_map values (key -> Python value); given: every key the
    parameter_map holds (a key given with an invalid value is not in `values`; its error is
    already reported, so a rule needing it does not report it missing too); ctx:
    `(product id or None, SoC names)` for the product rules."""
    for keys, check in COMPILED:
        for key in keys:
            if key in values:
                check(values, diags, given, ctx)
                break


def check_ge(result, env, parallel=None, shown=None, direct=False):
    """Run the GE-level rows on `result` (a `GeOptions`: `effective`, `sources` and
    `diagnostics` are updated in place): first the "ge_direct" rows when `direct` (GE options
    given directly), then the "ge" rows. `parallel`: graph_max_parallel_model_num when the
    parameter_map gave it; `shown`: the name the script used for the static-memory policy."""
    state = {"parallel": parallel, "shown": shown}
    eff = result.effective
    for level in ("ge_direct", "ge") if direct else ("ge",):
        for keys, var, check in GE_COMPILED[level]:
            for key in keys:
                if key in eff:
                    check(result, env, state)
                    break
            else:
                if var is not None and env.get(var):
                    check(result, env, state)
