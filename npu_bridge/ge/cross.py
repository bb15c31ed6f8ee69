"""The cross-option rules: each row of `_rows.CROSS_RULES` is an instance of its kind's class
(`CrossRule` subclasses, registered in `KINDS` by `kind` when defined: a new kind is one class,
declaring its own columns as fields), compiled once at import into a check. `check_all` runs
the parameter_map rows whose trigger keys the resolution holds; `check_ge` runs the GE-level
rows (GE's own normalisation and the seeds' memory rules) on a resolution's effective options,
in order. The docs generator reads the kinds' `doc` and each row's `describe()`.
"""
import dataclasses
import os
from dataclasses import dataclass
from typing import Any, ClassVar, Optional, Tuple

from npu_bridge.ge import (_rows, catalog, codes as _codes, config_schema, diagnostics, paths,
                           products)
from npu_bridge.ge.diagnostics import make
from npu_bridge.ge.scopes import SCOPES

LEVELS = {
    "parameter_map": "on the parameter_map values (keys are parameter_map keys)",
    "ge_direct": "on GE options given directly (resolve_ge), before the \"ge\" rows",
    "ge": "on the effective GE options of every resolution, in table order",
    "run_config": "on a config class's parameter_map values and its own `tf.estimator."
                  "RunConfig` arguments (`NPURunConfig`: keys are parameter_map keys or its "
                  "arguments)",
}
FAILURES = {
    "error": "the real adapter fails session creation",
    "fatal": "the real adapter aborts the process (LOG(FATAL))",
    "docs": "the vendor docs say so; the real adapter does not check it",
}
KINDS = {}
"""Cross rule kind name -> its class (a `CrossRule` subclass), in definition order."""

_MISSING = object()
Conds = Tuple[Tuple[str, Any], ...]


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


def doc_cond(cond):
    """A condition `(key, test)` as docs/options.md writes it."""
    key, test = cond
    if test == "set":
        return "`%s` set" % key
    if isinstance(test, bool):
        return "`%s`=%s" % (key, "true" if test else "false")
    return "`%s` in {%s}" % (key, ", ".join(str(v) for v in test))


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


def _holds(values, cond):
    """Whether the condition `(key, predicate, text)` holds (`_first` of it alone)."""
    value = values.get(cond[0], _MISSING)
    return value is not _MISSING and cond[1](value)


@dataclass(frozen=True, kw_only=True)
class CrossRule:
    """One rule between options: a row of `_rows.CROSS_RULES`, an instance of its kind's
    class. The row's column "if" is `when`; every other column is the field of its name.

    Attributes:
      when: ((key, test), ...): the rule applies when any holds; a test is "set" (given,
        not empty), True / False (that bool) or a tuple of values.
      code: the code of its diagnostic (the message template: npu_bridge/ge/codes.py).
      source: where the rule comes from.
      failure: what the real stack does, a key of `FAILURES`.
      severity: None (the code's own) or another severity.
      level: where it runs, a key of `LEVELS` that its kind's `levels` holds; the keys are
        parameter_map keys at level "parameter_map", GE keys at the others.
    Each kind (class attributes): `kind` (the row's "kind"), `levels`, `doc` (what it checks,
    for docs/options.md) and its own columns as fields.
    """
    when: Conds
    code: str
    source: str
    failure: str = "error"
    severity: Optional[str] = None
    level: str = "parameter_map"

    kind: ClassVar[str] = ""
    levels: ClassVar[Tuple[str, ...]] = ("parameter_map",)
    doc: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            if cls.kind in KINDS:
                raise ValueError("cross rule kind %r defined twice" % cls.kind)
            KINDS[cls.kind] = cls

    @classmethod
    def columns(cls):
        """The columns of this kind's rows ("if" for `when`)."""
        return ("kind", "if") + tuple(f.name for f in dataclasses.fields(cls) if f.name != "when")

    def own_keys(self):
        """The option keys of the kind's own columns (besides `when`'s)."""
        return ()

    @property
    def keys(self):
        """Every option key the rule reads."""
        return tuple(dict.fromkeys([k for k, _ in self.when] + list(self.own_keys())))

    @property
    def trigger_env(self):
        """An environment variable that triggers the rule without its keys, or None."""
        return None

    def describe(self):
        """What the rule checks, as the docs table says it."""
        raise NotImplementedError

    def compile(self):
        """The rule's check: `check(values, diags, given, ctx)` at level "parameter_map",
        `check(result, env, state)` at the GE levels."""
        raise NotImplementedError

    def _why(self):
        """The fields every rule's diagnostic has: `failure` (what the real stack does) and
        `where` (the row's source)."""
        return {"failure": FAILURES[self.failure], "where": self.source}


class _Option:
    """A mixin of the kinds about one option (`option`)."""
    def own_keys(self):
        return (self.option,)


# ---------------------------------------------------------------- parameter_map kinds
@dataclass(frozen=True, kw_only=True)
class Requires(CrossRule):
    """needs: ((key, test), ...) that must hold when `when` does: all, or one with any_of."""
    kind = "requires"
    levels = ("parameter_map", "ge")
    doc = "when a condition on the left holds, the right one(s) must too"
    needs: Conds = ()
    any_of: bool = False

    def own_keys(self):
        return tuple(k for k, _ in self.needs)

    def describe(self):
        return "needs " + (" or " if self.any_of else " and ").join(map(doc_cond, self.needs))

    def compile(self):
        when, needs = _conds(self.when), _conds(self.needs)
        rule = self
        if self.level != "parameter_map":
            def check_effective(result, env, state):
                eff = result.effective
                hit = _first(eff, when)
                if hit is None or all(_first(eff, (c,)) is not None for c in needs):
                    return
                result.diagnostics.append(make(
                    rule.code, hit[0], hit[1], subject="%s=%s" % (hit[0], _show(hit[1])),
                    needed=" and ".join(c[2] for c in needs), got=eff.get(needs[0][0]),
                    **rule._why()))
            return check_effective

        def check(values, diags, given, ctx=None):
            hit = _first(values, when)
            if hit is None:
                return
            # a needed key given with an invalid value is already an error: not "missing" too
            ok = [_holds(values, c) or (c[0] not in values and c[0] in given) for c in needs]
            if (any(ok) if rule.any_of else all(ok)):
                return
            missing = [c[2] for c, good in zip(needs, ok) if not good]
            what = ("one of: " + "; ".join(missing)) if rule.any_of else " and ".join(missing)
            first = [c for c, good in zip(rule.needs, ok) if not good][0]
            diags.append(make(rule.code, hit[0], hit[1], severity=rule.severity,
                              subject="%s=%s" % (hit[0], _show(hit[1])), needed=what,
                              fix=needs_fix(*first[:2]), **rule._why()))
        return check


@dataclass(frozen=True, kw_only=True)
class Excludes(CrossRule):
    """others: ((key, test), ...) none of which may hold when `when` does."""
    kind = "excludes"
    doc = "must not be set together"
    others: Conds

    def own_keys(self):
        return tuple(k for k, _ in self.others)

    def describe(self):
        return "not with " + " or ".join(map(doc_cond, self.others))

    def compile(self):
        when, others, rule = _conds(self.when), _conds(self.others), self

        def check(values, diags, given=(), ctx=None):
            hit = _first(values, when)
            if hit is None:
                return
            clash = _first(values, others)
            if clash is None:
                return
            diags.append(make(rule.code, hit[0], hit[1], severity=rule.severity,
                              shown=_show(hit[1]), other=clash[0], other_shown=_show(clash[1]),
                              **rule._why()))
        return check


@dataclass(frozen=True, kw_only=True)
class AscendingRanges(_Option, CrossRule):
    """option: a '|'-separated list of steps and a-b ranges; each range needs a < b, and
    at most max_groups groups (None: any number)."""
    kind = "ascending_ranges"
    doc = "each `a-b` group needs a < b, at most N groups"
    option: str
    max_groups: Optional[int] = None

    def describe(self):
        return "`%s`: ranges ascend, at most %s groups" % (self.option, self.max_groups)

    def compile(self):
        when, option, limit, rule = _conds(self.when), self.option, self.max_groups, self

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
                                  shown=repr(value), reason="; ".join(problems),
                                  allowed=allowed, where=rule.source))
        return check


@dataclass(frozen=True, kw_only=True)
class ExistingDir(_Option, CrossRule):
    """option: must name an existing writable directory on the machine that runs the script
    (a warning here: this machine is not that one)."""
    kind = "existing_dir"
    doc = ("must be an existing writable directory on the machine that runs the script (a "
           "warning here: this machine is not that one)")
    option: str

    def describe(self):
        return "`%s` an existing writable directory" % self.option

    def compile(self):
        when, option, rule = _conds(self.when), self.option, self

        def check(values, diags, given=(), ctx=None):
            hit = _first(values, when)
            if hit is None:
                return
            path = values.get(option)
            if not isinstance(path, str) or path == "":
                return  # absent: a "requires" rule reports it
            try:   # "path/." resolves only for a directory: one access() call checks both
                usable = os.access(path + ("." if path[-1] == "/" else "/."),   # os.path.join
                                   os.R_OK | os.W_OK)
            except (OSError, ValueError):
                usable = False
            if usable:
                return
            diags.append(make(rule.code, option, path, severity=rule.severity,
                              cause="%s=%s" % (hit[0], _show(hit[1])), **rule._why()))
        return check


@dataclass(frozen=True, kw_only=True)
class MemoryBudget(CrossRule):
    """shares: ((key, numerator, denominator), ...): sizes in bytes that must fit the target
    product's device memory together, an unset one taking its share of it."""
    kind = "memory_budget"
    doc = "the sizes (an unset one at its share) fit the product's on-chip memory"
    shares: Tuple[Tuple[str, int, int], ...]

    def own_keys(self):
        return tuple(k for k, _, _ in self.shares)

    def describe(self):
        return " + ".join("`%s` (unset: %d/%d)" % s for s in self.shares) + \
            " <= the product's memory"

    def compile(self):
        shares, rule = {key: (num, den) for key, num, den in self.shares}, self

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
                sizes.append((other + " (unset: %d/%d of the memory)" % (num, den),
                              mem * num // den))
            total = sum(v for _, v in sizes)
            if total > mem:
                # the fix: the first size the script set, lowered to what fits beside the rest
                fit = [(k, mem - (total - v)) for k, v in sizes
                       if k in shares and total - v < mem]
                diags.append(make(rule.code, sizes[0][0], total,
                                  severity="warning" if confidence == "low" else None,
                                  sizes=" + ".join("%s %d" % kv for kv in sizes), memory=mem,
                                  product=pid, confidence=confidence, figure=mem_source,
                                  where=rule.source, parts=[v for _, v in sizes],
                                  fix_key=fit[0][0] if fit else None,
                                  fit=fit[0][1] if fit else None))
        return check


@dataclass(frozen=True, kw_only=True)
class NeedsValue(_Option, CrossRule):
    """option: must hold one of `allowed` when `when` holds; default: its value when absent."""
    kind = "needs_value"
    doc = "the option must hold one of the values"
    option: str
    allowed: Tuple[Any, ...]
    default: Any = None

    def describe(self):
        return "`%s` one of %s" % (self.option, ", ".join(str(v) for v in self.allowed))

    def compile(self):
        when, option, allowed, default = _conds(self.when), self.option, self.allowed, self.default
        rule = self

        def check(values, diags, given=(), ctx=None):
            hit = _first(values, when)
            if hit is None or values.get(option, default) in allowed:
                return
            diags.append(make(rule.code, hit[0], hit[1], shown=_show(hit[1]), needs=option,
                              allowed=" or ".join(str(a) for a in allowed),
                              got=values.get(option), where=rule.source))
        return check


@dataclass(frozen=True, kw_only=True)
class Notice(_Option, CrossRule):
    """option: an info (the code's) whenever it holds a value other than those of `quiet`."""
    kind = "notice"
    levels = ("parameter_map", "ge_direct", "ge")
    doc = "an info when the option holds another value"
    option: str
    quiet: Tuple[Any, ...] = ()

    def describe(self):
        return "`%s` not %s" % (self.option, ", ".join(repr(v) for v in self.quiet))

    def _notice(self):
        """`notice(value)`: the row's Diagnostic for `value`, built once per value (a bounded
        memo; a Diagnostic is immutable)."""
        option, built, rule = self.option, {}, self

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

    def compile(self):
        option, quiet, notice = self.option, self.quiet, self._notice()
        if self.level != "parameter_map":
            def check_effective(result, env, state):
                value = result.effective.get(option)
                if value is None or value in quiet:
                    return
                result.diagnostics.append(notice(value))
            return check_effective

        def check(values, diags, given=(), ctx=None):
            value = values.get(option)
            if value is None or value in quiet:
                return
            diags.append(notice(value))
        return check


def multiple_fix(name, n, loop, offset=0):
    """The fix of a step count `n` (argument `name`) that is not a multiple of `loop`: the
    nearest multiples, e.g. "save_checkpoints_steps=20 (or save_checkpoints_steps=10)";
    `offset` is added to each (max_steps counts from the global step it starts at)."""
    up, down = -(-n // loop) * loop, n // loop * loop
    return "%s=%d" % (name, offset + up) + (
        " (or %s=%d)" % (name, offset + down) if down else "")


def needs_fix(key, test):
    """The parameter_map spelling of a needed condition (NPB143's fix): the literal value,
    or an upper-case placeholder where any value is needed ("set": a path, a name)."""
    try:
        field = diagnostics._field_of(key)   # pylint: disable=protected-access
    except LookupError:
        return None
    value = key.upper() if test == "set" else test
    return 'parameter_map["%s"].%s = %s' % (
        key, field, diagnostics._literal(value, field))   # pylint: disable=protected-access


@dataclass(frozen=True, kw_only=True)
class MultipleOf(_Option, CrossRule):
    """option: a step count N (iterations_per_loop); steps: the arguments whose step counts
    must be multiples of N when N > 1 (the host acts only between loops of N steps)."""
    kind = "multiple_of"
    levels = ("run_config",)
    doc = "each step count is a multiple of the option when that is > 1"
    option: str
    steps: Tuple[str, ...]

    def own_keys(self):
        return (self.option,) + self.steps

    def describe(self):
        return "%s multiples of `%s`" % (", ".join("`%s`" % s for s in self.steps), self.option)

    def compile(self):
        option, steps, rule = self.option, self.steps, self

        def check(values, diags, given=(), ctx=None):
            loop = values.get(option)
            if type(loop) is not int or loop <= 1:
                return
            for name in steps:
                n = values.get(name)
                if type(n) is int and n > 0 and n % loop:
                    up = -(-n // loop) * loop
                    diags.append(make(
                        rule.code, name, n, severity=rule.severity, where=rule.source,
                        subject="%s=%d is not a multiple of %s=%d" % (name, n, option, loop),
                        # the fact first: the short line keeps what fits
                        effect="on the NPU it happens at step %d, not %d (the host acts only "
                        "between loops, at the end of the loop that crosses each such step)"
                        % (up, n), fix=multiple_fix(name, n, loop)))
        return check


# ---------------------------------------------------------------- GE-level kinds
# check(result, env, state); `state` carries what the rows before left ("policy": the
# static-memory policy as GE will run it, "shown": the option's name as the script gave it,
# "parallel": graph_max_parallel_model_num).

def _int_or_none(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _policy(option, eff, state):
    """The policy as the rows before left it; the first row reads it (and its text)."""
    if "policy" not in state:
        state["text"] = eff.get(option)
        state["policy"] = _int_or_none(state["text"])
    return state["policy"]


@dataclass(frozen=True, kw_only=True)
class LegacyValue(_Option, CrossRule):
    """option: a value of `legacy` is accepted with the code's warning; GE runs it as
    `runs_as`, which the rows after see."""
    kind = "legacy_value"
    levels = ("ge",)
    doc = "a legacy value and what GE runs"
    option: str
    legacy: Tuple[Any, ...]
    runs_as: Any

    def describe(self):
        return "`%s` legacy %s" % (self.option, ", ".join(str(v) for v in self.legacy))

    def compile(self):
        option, legacy, runs_as, rule = self.option, self.legacy, self.runs_as, self

        def check(result, env, state):
            policy = _policy(option, result.effective, state)
            if policy not in legacy:
                return
            shown = state.get("shown") or option
            if not any(d.code == rule.code and d.option == shown for d in result.diagnostics):
                row = catalog.find(option)
                result.diagnostics.append(make(
                    rule.code, shown, policy, shown=policy, note="GE runs it as %s" % runs_as,
                    allowed=row.allowed_text if row is not None else "see docs/options.md",
                    where=rule.source, runs_as=runs_as))
            state["policy"] = runs_as
        return check


@dataclass(frozen=True, kw_only=True)
class EnvPolicy(_Option, CrossRule):
    """option: the static-memory policy, merged with the environment variable `env` (one of
    `valid`, else `invalid_code`) as GE merges them."""
    kind = "env_policy"
    levels = ("ge",)
    doc = "the environment variable merged into the policy"
    option: str
    env: str
    valid: Tuple[int, ...]
    invalid_code: str

    @property
    def trigger_env(self):
        return self.env

    def describe(self):
        return "`$%s` merged into `%s`" % (self.env, self.option)

    def compile(self):
        option, var, valid, rule = self.option, self.env, self.valid, self

        def check(result, env, state):
            eff = result.effective
            policy = _policy(option, eff, state)
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
                        result.diagnostics.append(make(rule.code, shown, text, shown=text,
                                                       var=var, env_value=env_text,
                                                       merged=merged, where=rule.source))
                    policy = state["policy"] = merged
                    result.sources[option] = "env:" + var + " merged"
            if policy is not None:
                eff[option] = str(policy)
        return check


@dataclass(frozen=True, kw_only=True)
class PolicyParallel(_Option, CrossRule):
    """option: a static-memory policy of `guarded` with the GE key `parallel` > 1 (graphs
    that execute concurrently)."""
    kind = "policy_parallel"
    levels = ("ge",)
    doc = "the policy with concurrent graphs"
    option: str
    guarded: Tuple[int, ...]
    parallel: str

    def own_keys(self):
        return (self.option, self.parallel)

    def describe(self):
        return "`%s` guarded at %s" % (self.option, ", ".join(str(v) for v in self.guarded))

    def compile(self):
        option, guarded, other, rule = self.option, self.guarded, self.parallel, self

        def check(result, env, state):
            eff = result.effective
            policy = _policy(option, eff, state)
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


@dataclass(frozen=True, kw_only=True)
class WeightDir(_Option, CrossRule):
    """option: the directory GE writes external weights to, else under `$env`
    (`tmp_weight_<pid>_<sessionid>`); an unsafe `$env` is NPB136."""
    kind = "weight_dir"
    levels = ("ge",)
    doc = "the directory GE writes external weights to"
    option: str
    env: str

    def describe(self):
        return "`%s`, else `$%s/tmp_weight_<pid>_<sessionid>`" % (self.option, self.env)

    def compile(self):
        when, option, var, rule = _conds(self.when), self.option, self.env, self

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


# ---------------------------------------------------------------- the table
def _frozen(value):
    """A row's value with every list a tuple (the rules are immutable and hashable)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _known_key(level):
    if level == "parameter_map":
        return catalog.BY_KEY.__contains__
    if level == "run_config":
        arguments = config_schema.BY_NAME["NPURunConfig"].base_args
        return lambda k: k in catalog.BY_KEY or k in arguments
    return lambda k: k in catalog.BY_GE_KEY or k in SCOPES   # the GE keys GE reads


def build(spec):
    """The `CrossRule` of one row of `_rows.CROSS_RULES`: an instance of its kind's class.
    Raises ValueError naming the row for an unknown kind, column, level, failure or key."""
    what = "cross-option rule %s %s (%s)" % (spec.get("kind"), spec.get("code"), spec.get(
        "option") or ", ".join(str(k) for k, _ in spec.get("if") or ()))
    catalog._check_kind(spec.get("kind"), tuple(KINDS), what + ": kind")
    cls = KINDS[spec["kind"]]
    catalog._check_columns(spec, cls.columns(), what)
    args = {("when" if k == "if" else k): _frozen(v) for k, v in spec.items() if k != "kind"}
    try:
        rule = cls(**args)
    except TypeError as err:   # a column the kind needs is missing
        raise ValueError("%s: %s" % (what, err)) from None
    if rule.level not in cls.levels or rule.failure not in FAILURES:
        raise ValueError("%s: level %r (kind %s runs at %s) or failure %r (one of %s)" % (
            what, rule.level, rule.kind, ", ".join(cls.levels), rule.failure,
            ", ".join(FAILURES)))
    # what the real stack does sets the severity: a row whose failure is a refusal or an
    # abort reports an error unless it says why not (its own "severity" column)
    if rule.failure in ("error", "fatal") and rule.severity is None \
            and _codes.CODES[rule.code].severity != "error":
        raise ValueError("%s: failure %r (%s) but its code's severity is %r: give the row "
                         "severity 'error', or another with the reason" % (
                             what, rule.failure, FAILURES[rule.failure],
                             _codes.CODES[rule.code].severity))
    known = _known_key(rule.level)
    unknown = [k for k in rule.keys if not known(k)]
    if unknown:
        raise ValueError("%s names unknown keys %s" % (what, unknown))
    return rule


CROSS_RULES: Tuple[CrossRule, ...] = tuple(build(s) for s in _rows.CROSS_RULES)
"""The documented rules between options, one row each (`_rows.CROSS_RULES`)."""

COMPILED = tuple((tuple(k for k, _ in rule.when), rule.compile())
                 for rule in CROSS_RULES if rule.level == "parameter_map")
"""((trigger keys, check(values, diags, given, ctx)), ...) of the parameter_map rows, in
`CROSS_RULES` order."""
RUN_CONFIG_COMPILED = tuple((tuple(k for k, _ in rule.when), rule.compile())
                            for rule in CROSS_RULES if rule.level == "run_config")
"""((trigger keys, check(values, diags, given, ctx)), ...) of the "run_config" rows."""
GE_COMPILED = {level: tuple((tuple(k for k, _ in rule.when), rule.trigger_env, rule.compile())
                            for rule in CROSS_RULES if rule.level == level)
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


def check_run_config(values, arguments, diags):
    """Append the diagnostics of the "run_config" rows to `diags`: `values` the valid
    parameter_map values, `arguments` the config class's own arguments as it keeps them
    (`config_schema.run_config_arguments`)."""
    both = dict(arguments)
    both.update(values)
    for keys, check in RUN_CONFIG_COMPILED:
        if any(key in both for key in keys):
            check(both, diags, both)


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
