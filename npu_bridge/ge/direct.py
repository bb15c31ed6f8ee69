"""GE options given directly: `resolve_ge` (per level, or by ir_option name) and
`check_graph` (the reuse-index options once a graph's input/output counts are known).
"""
import os
import re

from npu_bridge.ge import catalog, cross, products
from npu_bridge.ge.scopes import SCOPES
from npu_bridge.ge.diagnostics import make
from npu_bridge.ge.options import GeOptions
from npu_bridge.ge.rule_kinds import _DECIMAL, _check, _fast_ok, _invalid, _text

_LEVEL_INDEX = {level: index for index, level in enumerate(catalog.LEVELS)}
_INDEX = re.compile(r"[0-9]{1,40}").fullmatch   # longer: beyond any graph, and int()'s limit
_GE_ROW_OK = {row.ge_key: _fast_ok(row) or (lambda v: True) for row in catalog.OPTIONS
              if not row.key}


# ---------------------------------------------------------------- resolve_ge()


def resolve_ge(global_options=None, session_options=None, graph_options=None, ir_options=None,
               product=None, env=None):
    """Check GE options given directly per level (GE keys; `ir_options` by ir_option name).

    Values may be strings or ints. Each key is checked against its catalog row (rule kind,
    products) and against the levels GE accepts it at (seeds first, else the reference
    `ge_option_scopes.json`); `ir_options` names (`EXEC_DISABLE_REUSED_MEMORY`) map to their
    GE keys at the offline IR level and are reported in `global_options`.

    Returns: `GeOptions`. Raises: `NpuConfigError` with every diagnostic on any error.
    """
    env = os.environ if env is None else env
    for arg, opts in (("global_options", global_options), ("session_options", session_options),
                      ("graph_options", graph_options), ("ir_options", ir_options)):
        if opts is None:
            continue
        if not callable(getattr(opts, "items", None)):
            raise TypeError("resolve_ge: %s=%r (%s) is not allowed; give a mapping of %s -> "
                            "value (str or int), or None"
                            % (arg, opts, type(opts).__name__,
                               "ir_option name" if arg == "ir_options" else "GE option key"))
        for key in opts:
            if not isinstance(key, str):
                raise TypeError("resolve_ge: %s key %r (%s) is not allowed; keys are %s strings"
                                % (arg, key, type(key).__name__,
                                   "ir_option name" if arg == "ir_options" else "GE option key"))
    diags = []
    out = ({}, {}, {})
    sources = {}
    given = (("global", global_options), ("session", session_options), ("graph", graph_options))
    items = [(lvl, k, v, lvl + "_options") for lvl, opts in given for k, v in (opts or {}).items()]
    for name, value in (ir_options or {}).items():
        row = catalog.BY_IR_OPTION.get(name.rsplit("::", 1)[-1])
        if row is None:
            close = catalog.suggest(name, tuple(catalog.BY_IR_OPTION))
            diags.append(make("NPB135", name, _text(value) if not isinstance(value, bytes)
                              else value.decode("utf-8", "replace"), what="unknown ir_option",
                              key=name, detail="%s; known: %s" % (
                                  "; did you mean %s?" % close[0] if close else "",
                                  ", ".join(catalog.BY_IR_OPTION))))
            continue
        items.append(("ir_global", row.ge_key, value, "ir_option:" + name))
    for level, key, value, src in items:
        text = _text(value) if not isinstance(value, bytes) else value.decode("utf-8", "replace")
        row = catalog.BY_GE_KEY.get(key)
        allowed_levels = row.levels + ("ir_global",) if row is not None and row.ir_option else (
            row.levels if row is not None else SCOPES.get(key))
        option = src[len("ir_option:"):] if src.startswith("ir_option:") else key
        if allowed_levels is None:
            close = catalog.suggest(key, tuple(SCOPES) + tuple(catalog.BY_GE_KEY))
            diags.append(make("NPB135", key, text, what="unknown GE option", key=key,
                              detail="; did you mean %s?" % close[0] if close else ""))
        elif level not in allowed_levels:
            where = row.source if row is not None else "reference ge_option_scopes.json"
            diags.append(make("NPB130", key, text, level=level,
                              levels=", ".join(allowed_levels), where=where))
        if row is not None and row.kind.numeric:
            number = int(text) if _DECIMAL(text) and len(text) <= 40 else text
            if not _GE_ROW_OK[key](number):
                number, found = _check(row, option, number)
                diags.extend(found)
                text = _text(number)
        elif row is not None and text == "" and not row.kind.empty_means_unset:
            # given directly, an empty directory is not "unset": GE gets an empty path
            diags.append(_invalid(row, option, text, "empty"))
        elif row is not None and not _GE_ROW_OK[key](text):
            text, found = _check(row, option, text)
            diags.extend(found)
        idx = 0 if level == "ir_global" else _LEVEL_INDEX[level]
        out[idx][key] = text
        sources[key] = src
    pid = products.target(product, (global_options or {}).get("ge.socVersion"), env, diags)
    effective = dict(out[0])
    effective.update(out[1])
    effective.update(out[2])
    if pid is not None:
        for key, text in effective.items():
            row = catalog.BY_GE_KEY.get(key)
            if row is not None and row.products and pid not in row.products and text not in ("", "0"):
                diags.append(make("NPB112", key, text, severity=row.product_severity,
                                  shown=text, product=pid, products=", ".join(row.products),
                                  where=row.source))
    result = GeOptions(out[0], out[1], out[2], {}, effective, diags, pid, sources)
    cross.check_ge(result, env, direct=True)
    return result.raise_for_errors()


# ---------------------------------------------------------------- check_graph()
def check_graph(ge_options, num_inputs, num_outputs):
    """Re-check the graph's reuse-index options once its input/output counts are known.

    Indices at or beyond `num_inputs` (`ge.exec.inputReuseMemIndexes`) or `num_outputs`
    (`ge.exec.outputReuseMemIndexes`) are dropped from `effective` with an NPB131 warning,
    as GE ignores them (seed ge_memory_options_zh.txt: such an index "does not take effect");
    `graph_options` keeps them: the adapter still sends them. A pair of
    `ge.exec.outputReuseInputMemIndexes` outside the graph's inputs or outputs is an error
    (E10001): the seed requires its indices to be within the model's range. Returns a new
    `GeOptions`; the input is not changed.

    Raises: TypeError when `ge_options` is not a `GeOptions` or a count is not an int;
      NpuConfigError (every diagnostic) when a count is negative or a pair is out of range.
    """
    if not isinstance(ge_options, GeOptions):
        raise TypeError("check_graph: ge_options=%r (%s) is not allowed; give the GeOptions "
                        "resolve()/resolve_ge() returned" % (ge_options, type(ge_options).__name__))
    for name, count in (("num_inputs", num_inputs), ("num_outputs", num_outputs)):
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError("check_graph: %s=%r (%s) is not allowed; give the graph's %s count "
                            "as an int >= 0" % (name, count, type(count).__name__, name[4:-1]))
        if count < 0:
            from npu_bridge.ge.diagnostics import NpuConfigError
            raise NpuConfigError([make("E10001", name, count, shown=count, reason="negative",
                                       allowed="an int >= 0 (the graph's %s count)" % name[4:-1],
                                       where="check_graph(ge_options, num_inputs, num_outputs)")])
    result = GeOptions.from_dict(ge_options.to_dict())
    for key, limit_for in (("ge.exec.inputReuseMemIndexes", lambda i: num_inputs),
                           ("ge.exec.outputReuseMemIndexes", lambda i: num_outputs),
                           ("ge.exec.outputReuseInputMemIndexes", None)):
        for target in (result.effective,):  # graph_options: as the adapter sends it
            text = target.get(key)
            if not text:
                continue
            if limit_for is not None:
                kept = [x for x in text.split(",") if _INDEX(x) and int(x) < limit_for(0)]
                dropped = [x for x in text.split(",") if x not in kept]
                new = ",".join(kept)
            else:
                pairs = [p.split(",") for p in text.split("|")]
                good = [p for p in pairs if len(p) == 2 and _INDEX(p[0]) and _INDEX(p[1])
                        and int(p[0]) < num_inputs and int(p[1]) < num_outputs]
                dropped = ["%s" % ",".join(p) for p in pairs if p not in good]
                new = "|".join(",".join(p) for p in good)
            if dropped and limit_for is None:
                result.diagnostics.append(make(
                    "E10001", key, text, shown=repr(text),
                    reason="pair%s %s outside a graph with %d inputs and %d outputs" % (
                        "s" if len(dropped) > 1 else "", " and ".join(dropped), num_inputs,
                        num_outputs),
                    allowed="input,output index pairs within the model's inputs and outputs",
                    where="seed ge_memory_options_zh.txt"))
            elif dropped:
                if new:
                    target[key] = new
                else:
                    del target[key]
                if target is result.effective:
                    result.diagnostics.append(make(
                        "NPB131", key, text, dropped=", ".join(dropped), inputs=num_inputs,
                        outputs=num_outputs))
    return result.raise_for_errors()
