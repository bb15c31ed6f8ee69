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
    return "%s; source: %s" % (catalog.CROSS_FAILURES[rule.failure], rule.source)


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
        diags.append(make(rule.code, hit[0], hit[1],
                          "%s=%s needs %s; %s" % (hit[0], _show(hit[1]), what, _why(rule)),
                          severity=rule.severity))
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
        diags.append(make(rule.code, hit[0], hit[1],
                          "%s=%s and %s=%s must not be set together; %s"
                          % (hit[0], _show(hit[1]), clash[0], _show(clash[1]), _why(rule)),
                          severity=rule.severity))
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
            diags.append(make(rule.code, option, value,
                              "invalid value for %s: %r (%s); %s"
                              % (option, value, "; ".join(problems), _why(rule)),
                              severity=rule.severity))
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
        diags.append(make(rule.code, option, path,
                          "%s=%r (used because %s=%s) is not an existing writable directory "
                          "on this machine; the real adapter requires one on the machine that "
                          "runs the script and checks it there at session creation (%s); "
                          "source: %s" % (option, path, hit[0], _show(hit[1]),
                                          catalog.CROSS_FAILURES[rule.failure], rule.source),
                          severity=rule.severity))
    return check


def _with_source(rule, text):
    return "%s; source: %s" % (text, rule.source)


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
            diags.append(make("NPB145", sizes[0][0], None,
                              "graph_memory_max_size + variable_memory_max_size not checked "
                              "against the on-chip memory of %s: no figure is known for it "
                              "(%s); rule %s skipped" % (pid, mem_source, rule.code)))
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
            diags.append(make(rule.code, sizes[0][0], total, _with_source(
                rule, "%s = %d bytes exceed the %d bytes of on-chip memory of %s (figure "
                "confidence %s: %s)" % (" + ".join("%s %d" % kv for kv in sizes), total, mem,
                                        pid, confidence, mem_source)),
                severity="warning" if confidence == "low" else None))
    return check


def _needs_value(rule):
    when, option, allowed, default = _conds(rule.when), rule.option, rule.allowed, rule.default

    def check(values, diags, given=(), ctx=None):
        hit = _first(values, when)
        if hit is None or values.get(option, default) in allowed:
            return
        diags.append(make(rule.code, hit[0], hit[1], _with_source(
            rule, "%s=%s needs %s == %s, got %s" % (
                hit[0], _show(hit[1]), option, " or ".join(str(a) for a in allowed),
                values.get(option)))))
    return check


def _memo_notice(rule):
    """`notice(value)`: the row's Diagnostic for `value`, built once per value (a bounded memo;
    a Diagnostic is immutable)."""
    option, built = rule.option, {}
    message = None

    def notice(value):
        nonlocal message
        key = (type(value), value)
        try:
            diag = built.get(key)
        except TypeError:   # an unhashable value: not memoized
            key = diag = None
        if diag is None:
            if message is None:
                message = _with_source(rule, rule.message.format(option=option))
            diag = make(rule.code, option, value, message)
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
            result.diagnostics.append(make(rule.code, shown, policy, _with_source(
                rule, "%s=%s is a legacy value; GE runs it as %s" % (shown, policy, runs_as))))
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
                result.diagnostics.append(make(rule.invalid_code, var, env_text, _with_source(
                    rule, "%s=%r is not one of %s; ignored"
                    % (var, env_text, ", ".join(str(v) for v in valid)))))
            else:
                given = policy or 0
                static = given in (2, 4) or env_policy in (1, 2, 4)
                dynamic = given in (3, 4) or env_policy in (3, 4)
                merged = 4 if static and dynamic else 2 if static else 3 if dynamic else 0
                if text is not None and result.sources.get(option) != "adapter default":
                    shown = state.get("shown") or option
                    result.diagnostics.append(make(rule.code, shown, text, _with_source(
                        rule, "%s=%s and environment %s=%s are both set (the docs say use "
                        "one); GE merges them to policy %d" % (shown, text, var, env_text,
                                                               merged))))
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
            result.diagnostics.append(make(rule.code, shown, text, _with_source(
                rule, "%s=%s%s is not supported with concurrently executing graphs "
                "(graph_max_parallel_model_num=%d > 1); use 0 or 3, or run graphs one at a time"
                % (shown, text, "" if str(policy) == text else " (runs as %d)" % policy,
                   parallel))))
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
                result.diagnostics.append(make(paths.CODE, var, base, _with_source(
                    rule, "%s=%r is not a safe directory for the external weight files GE "
                    "writes: it %s" % (var, base, reason)) + " (precedence rule)"))
            name = "tmp_weight_%d_<sessionid>" % os.getpid()
            wdir = os.path.join(base, name) if base else os.path.join(".", name)
            eff[option] = wdir
        result.diagnostics.append(make(rule.code, hit[0], hit[1], _with_source(
            rule, "external weight files go to %s (%s > $%s/tmp_weight_<pid>_<sessionid> > "
            "./tmp_weight_<pid>_<sessionid>)" % (wdir, option, var))))
    return check


def _requires_ge(rule, when, needs):
    def check(result, env, state):
        eff = result.effective
        hit = _first(eff, when)
        if hit is None or all(_first(eff, (c,)) is not None for c in needs):
            return
        result.diagnostics.append(make(rule.code, hit[0], hit[1], _with_source(
            rule, rule.message.format(option=hit[0], value=hit[1],
                                      needed=eff.get(needs[0][0])))))
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
