"""`npu-bridge diff A.json B.json`: what changed between two reports (a migration's before and
after): the target product and the outcome; per configuration, the product, the GE options
added, removed or changed at each level, the effective values, the memory plan (budgets,
sizes, verdicts), and the diagnostics that appeared or went away. Reads `run` reports and `options --format json`
output (docs/report_schema.md). No TensorFlow import."""
import json

from npu_bridge.tools import report as _report
from npu_bridge.tools.report import LEVELS


class DiffInputError(ValueError):
    """A file that is not an npu-bridge report."""


# What a user acts on besides the options and diagnostics: compared field by field (dotted
# names; memory flattened, its graphs by name). Left out: derived text (each graph's summary
# line), the tensor lists, and what differs between any two runs (created, JOB_ID).
_REPORT_FIELDS = ("product", "resolved", "strict", "tool.version", "script.argv",
                  "precision.emulate", "outcome.exit_code", "outcome.script_exit_code",
                  "outcome.signal", "outcome.uncaught.type")
# report-level lists: what appeared and what went away (a diagnostic by `_diag_key`)
REPORT_LISTS = ("unattached", "not_planned", "not_partitioned", "not_captured", "notes",
                "rank_differences")
_RANK_FIELDS = ("server", "device_id", "exit_code", "ended", "collectives_built")   # per rank
# The report's top-level fields (docs/report_schema.md) diff does not compare, and why; every
# other one is compared (tests/test_report_diff.py walks the schema's table).
IGNORED = {
    "schema": "the file's format: a file without it is refused (exit 2)",
    "version": "the format's version: a missing key is read as the schema says",
    "command": "always \"run\"",
    "created": "the time of the run: differs between any two runs",
    "script.path": "where the script was (checkouts and CI jobs differ); script.argv names "
                   "it as typed",
    "script.cwd": "the folder the run started in (checkouts and CI jobs differ)",
    "environment": "the job variables the runner set for the machine (JOB_ID differs between "
                   "any two runs)",
    "summary": "counts of the configurations and diagnostics, compared one by one",
    "ranks[].address": "the port each rank's collectives took: differs between runs",
    "ranks[].output_tail": "the ranks' output, not the configuration",
    "ranks[].report": "each rank's own report, merged into the report's configurations, "
                      "unattached and not_* lists, compared there",
}
_CONF_FIELDS = ("product", "refused", "ignored_globals", "memory")
_MEMORY_SKIP = frozenset(("summary", "largest", "inputs", "outputs", "dynamic_inputs",
                          "product"))   # (memory.product: the configuration's product)
# byte counts, shown with their size too
_BYTES = ("budget", "feature_map", "variables", "weights", "no_reuse", "largest_live",
          "policy_alternatives")


def load(path):
    """A report file as `{"fields": {dotted name: value}, "configurations": [...]}`: the
    report-level fields of `_REPORT_FIELDS` and each configuration as a dict with `label`,
    `options` (level -> {key: value}), `effective`, `diagnostics` and `fields` (product,
    refused, ignored global options, the memory plan flattened)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise DiffInputError("cannot read %s: %s" % (path, err.strerror or err))
    except ValueError as err:
        raise DiffInputError("%s is not JSON: %s" % (path, err))
    if not isinstance(data, dict) or data.get("schema") not in ("npu-bridge-report",
                                                                "npu-bridge-options"):
        raise DiffInputError("%s is not an npu-bridge report (no \"schema\": "
                             "\"npu-bridge-report\" or \"npu-bridge-options\")" % path)
    fields = {}
    for name in _REPORT_FIELDS:
        value, found = _get(data, name)
        if found:
            fields[name] = value if not isinstance(value, list) else json.dumps(value)
    for rank in data.get("ranks") or ():
        for name in _RANK_FIELDS:
            fields["ranks[%s].%s" % (rank.get("rank"), name)] = rank.get(name)
    lists = {name: list(data.get(name) or ()) for name in REPORT_LISTS}
    if data["schema"] == "npu-bridge-options":
        conf = data.get("configuration") or {"options": {}, "diagnostics": []}
        conf = dict(conf, diagnostics=data.get("diagnostics", []))
        conf.setdefault("product", data.get("product"))
        return {"fields": fields, "lists": lists, "configurations": [_conf("options", conf)]}
    return {"fields": fields, "lists": lists, "configurations": [
        _conf("[%s] %s %s" % (c.get("index"), c.get("kind"), c.get("name")), c)
        for c in data.get("configurations", [])]}


def _get(data, dotted):
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return None, False
        data = data[part]
    return data, True


def _flatten(value, name, out):
    """`value` as dotted names -> scalars (`memory.graph_budget`); a list of graphs by name
    (`memory.graphs[Session#1/1].feature_map`)."""
    if isinstance(value, dict):
        for key in value:
            if key not in _MEMORY_SKIP:
                _flatten(value[key], "%s.%s" % (name, key), out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) and "name" in v
                                                   for v in value):
        for item in value:
            _flatten({k: v for k, v in item.items() if k != "name"},
                     "%s[%s]" % (name, item["name"]), out)
    else:
        out[name] = value if not isinstance(value, list) else json.dumps(value)


def _conf(label, conf):
    fields = {}
    for name in _CONF_FIELDS:
        if name in conf:
            _flatten(conf[name], name, fields)
    return {"label": label, "kind": conf.get("kind"), "name": conf.get("name"),
            "options": {lvl: dict((conf.get("options") or {}).get(lvl) or {}) for lvl in LEVELS},
            "effective": dict(conf.get("effective") or {}),
            "defaults": frozenset(k for k, src in (conf.get("sources") or {}).items()
                                  if not src or "default" in str(src)),
            "diagnostics": list(conf.get("diagnostics") or []), "fields": fields}


def _changed(old, new):
    """{name: [old, new]} of the names whose values differ (missing: null)."""
    return {k: [old.get(k), new.get(k)] for k in dict.fromkeys(list(old) + list(new))
            if old.get(k) != new.get(k)}


def _pairs(before, after):
    """Configurations paired by (kind, name), then the rest in order; unpaired ones with None."""
    pairs, rest_b = [], list(range(len(after)))
    used = set()
    for a in before:
        match = next((j for j in rest_b if j not in used and after[j]["kind"] == a["kind"]
                      and after[j]["name"] == a["name"]), None)
        pairs.append([a, match])
        if match is not None:
            used.add(match)
    free = [j for j in rest_b if j not in used]
    for pair in pairs:
        if pair[1] is None and free:
            pair[1] = free.pop(0)
    out = [(a, after[j] if j is not None else None) for a, j in pairs]
    out += [(None, after[j]) for j in free]
    return out


def _diag_key(d):
    return (d.get("code"), d.get("severity"), d.get("option"), d.get("value"))


def _item_key(item):
    """What tells two items of a report-level list apart: a diagnostic by `_diag_key` (and
    its rank), a string as it is, anything else by its JSON."""
    if isinstance(item, dict) and "code" in item:
        return _diag_key(item) + (item.get("rank"),)
    return item if isinstance(item, str) else json.dumps(item, sort_keys=True)


def _new_gone(old, new):
    """{"new": items only in `new`, "gone": items only in `old`} (by `_item_key`)."""
    old_keys, new_keys = {_item_key(i) for i in old}, {_item_key(i) for i in new}
    return {"new": [i for i in new if _item_key(i) not in old_keys],
            "gone": [i for i in old if _item_key(i) not in new_keys]}


def compare(before, after):
    """The differences of two loaded reports (`load`): `{"report": {name: [old, new]},
    "lists": {...}, "changes": [...]}`. `report`: the report-level fields that differ
    (product, `--strict`, the tool's version, the script's arguments, precision emulation,
    exit codes, signal, uncaught exception type, each rank's exit and device). `lists`: per
    report-level list that differs (`REPORT_LISTS`: unattached diagnostics, graphs not
    planned or partitioned, runs not captured, notes, options the ranks resolved
    differently) `{"new": [...], "gone": [...]}`. `changes`: per configuration that differs, a dict with
    `before`/`after` labels, `options` {level: {"added": {k: v}, "removed": {k: v},
    "changed": {k: [old, new]}}}, `effective` {k: [old, new]} (only keys whose option value
    did not change: GE's normalisation, the environment), `fields` {name: [old, new]}
    (product, refused, ignored globals, every memory figure and verdict: budgets, feature
    map, fits) and `diagnostics` {"new": [...], "gone": [...]} (by code, severity, option
    and value); a configuration in one report only also has `defaults`, the keys of it left at
    their defaults (the text folds them into one line)."""
    lists = {}
    for name in REPORT_LISTS:
        found = _new_gone(before["lists"][name], after["lists"][name])
        if found["new"] or found["gone"]:
            lists[name] = found
    return {"report": _changed(before["fields"], after["fields"]), "lists": lists,
            "changes": _compare(before["configurations"], after["configurations"])}


def _compare(before, after):
    out = []
    for a, b in _pairs(before, after):
        a_opts = a["options"] if a else {lvl: {} for lvl in LEVELS}
        b_opts = b["options"] if b else {lvl: {} for lvl in LEVELS}
        options = {}
        for lvl in LEVELS:
            old, new = a_opts.get(lvl, {}), b_opts.get(lvl, {})
            added = {k: new[k] for k in sorted(new) if k not in old}
            removed = {k: old[k] for k in sorted(old) if k not in new}
            changed = {k: [old[k], new[k]] for k in sorted(old) if k in new and old[k] != new[k]}
            if added or removed or changed:
                options[lvl] = {"added": added, "removed": removed, "changed": changed}
        a_diags = a["diagnostics"] if a else []
        b_diags = b["diagnostics"] if b else []
        a_keys = {_diag_key(d) for d in a_diags}
        b_keys = {_diag_key(d) for d in b_diags}
        diagnostics = {"new": [d for d in b_diags if _diag_key(d) not in a_keys],
                       "gone": [d for d in a_diags if _diag_key(d) not in b_keys]}
        shown = {k for d in options.values() for part in d.values() for k in part}
        effective = {k: v for k, v in _changed(a["effective"] if a else {},
                                               b["effective"] if b else {}).items()
                     if k not in shown} if a and b else {}
        fields = _changed(a["fields"], b["fields"]) if a and b else {}
        if options or effective or fields or diagnostics["new"] or diagnostics["gone"] \
                or a is None or b is None:
            change = {"before": a["label"] if a else None, "after": b["label"] if b else None,
                      "options": options, "effective": effective, "fields": fields,
                      "diagnostics": diagnostics}
            if a is None or b is None:   # in one report only: its defaults are folded in text
                change["defaults"] = sorted((a or b)["defaults"])
            out.append(change)
    return out


def _show(name, value):
    """A field's value as text: null as `-`, a byte count with its size."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and any(b in name for b in _BYTES):
        from npu_bridge.ge.memory_plan import mib
        return "%d (%s)" % (value, mib(value))
    return str(value)


def text_lines(diff, path_a, path_b):
    """The differences (`compare`) as text, `diff -u` style signs: `-` before only, `+` after
    only, `~` changed."""
    changes = diff["changes"]
    if not changes and not diff["report"] and not diff.get("lists"):
        return ["no differences between %s and %s" % (path_a, path_b)]
    lines = ["--- %s" % path_a, "+++ %s" % path_b]
    for k, (old, new) in diff["report"].items():
        lines.append("~ %s: %s -> %s" % (k, _show(k, old), _show(k, new)))
    for name, found in diff.get("lists", {}).items():
        for sign, items in (("-", found["gone"]), ("+", found["new"])):
            for item in items:
                lines.extend(_list_item_lines(sign, name, item))
    for c in changes:
        lines.append("%s -> %s" % (c["before"] or "(none)", c["after"] or "(none)"))
        for k, (old, new) in c["fields"].items():
            lines.append("  ~ %s: %s -> %s" % (k, _show(k, old), _show(k, new)))
        folded = frozenset(c.get("defaults", ()))
        hidden = 0
        for lvl, d in c["options"].items():
            for k, v in d["removed"].items():
                if k in folded:
                    hidden += 1
                    continue
                lines.append("  - %s %s = %s" % (lvl, k, v))
            for k, v in d["added"].items():
                if k in folded:
                    hidden += 1
                    continue
                lines.append("  + %s %s = %s" % (lvl, k, v))
            for k, (old, new) in d["changed"].items():
                lines.append("  ~ %s %s: %s -> %s" % (lvl, k, old, new))
        if hidden:
            lines.append("  %s (and %d default option(s) of it: --format json lists them)"
                         % ("-" if c["after"] is None else "+", hidden))
        for k, (old, new) in c["effective"].items():
            lines.append("  ~ effective %s: %s -> %s" % (k, _show(k, old), _show(k, new)))
        for d in c["diagnostics"]["gone"]:
            lines.append("  - %s %s [%s]" % (d.get("severity"), d.get("code"), d.get("option")))
        for d in c["diagnostics"]["new"]:   # its short line and fix, as `run` prints it
            lines.extend(_report.finding_lines("  + %s %s [%s]" % (
                d.get("severity"), d.get("code"), d.get("option")), d, "      "))
    return lines


def _list_item_lines(sign, name, item):
    """An item of report-level list `name` that appeared (`+`) or went away (`-`): a
    diagnostic as the configurations' (its short line and fix when it appeared), an option
    the ranks resolved differently in `run --ranks`'s words, a string as it is."""
    if isinstance(item, dict) and "code" in item:
        head = "%s %s: %s %s [%s]%s" % (sign, name, item.get("severity"), item.get("code"),
                                        item.get("option"), "" if item.get("rank") is None
                                        else " (rank %s)" % item["rank"])
        return _report.finding_lines(head, item, "    ") if sign == "+" else [head]
    if isinstance(item, dict) and "option" in item:
        return ["%s %s: %s option %s of configuration %s: %s" % (
            sign, name, item.get("level"), item.get("option"), item.get("configuration"),
            ", ".join("rank %s=%r" % kv for kv in (item.get("values") or {}).items()))]
    return ["%s %s: %s" % (sign, name, item)]
