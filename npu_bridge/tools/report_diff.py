"""`npu-bridge diff A.json B.json`: what changed between two reports (a migration's before and
after): per configuration, the GE options added, removed or changed at each level, and the
diagnostics that appeared or went away. Reads `run` reports and `options --format json`
output (docs/report_schema.md). No TensorFlow import."""
import json

from npu_bridge.tools.report import LEVELS


class DiffInputError(ValueError):
    """A file that is not an npu-bridge report."""


def load(path):
    """The configurations of a report file, as a list of dicts with `label`, `options`
    (level -> {key: value}) and `diagnostics`."""
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
    if data["schema"] == "npu-bridge-options":
        conf = data.get("configuration") or {"options": {}, "diagnostics": []}
        conf = dict(conf, diagnostics=data.get("diagnostics", []))
        return [_conf("options", conf)]
    return [_conf("[%s] %s %s" % (c.get("index"), c.get("kind"), c.get("name")), c)
            for c in data.get("configurations", [])]


def _conf(label, conf):
    return {"label": label, "kind": conf.get("kind"), "name": conf.get("name"),
            "options": {lvl: dict((conf.get("options") or {}).get(lvl) or {}) for lvl in LEVELS},
            "diagnostics": list(conf.get("diagnostics") or [])}


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
    return (d.get("code"), d.get("severity"), d.get("option"))


def compare(before, after):
    """The differences of two loaded reports: a list of per-configuration dicts with
    `before`/`after` labels, `options` {level: {"added": {k: v}, "removed": {k: v},
    "changed": {k: [old, new]}}} and `diagnostics` {"new": [...], "gone": [...]}; only the
    configurations that differ."""
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
        if options or diagnostics["new"] or diagnostics["gone"] or a is None or b is None:
            out.append({"before": a["label"] if a else None, "after": b["label"] if b else None,
                        "options": options, "diagnostics": diagnostics})
    return out


def text_lines(changes, path_a, path_b):
    """The differences as text, `diff -u` style signs: `-` before only, `+` after only."""
    if not changes:
        return ["no differences between %s and %s" % (path_a, path_b)]
    lines = ["--- %s" % path_a, "+++ %s" % path_b]
    for c in changes:
        lines.append("%s -> %s" % (c["before"] or "(none)", c["after"] or "(none)"))
        for lvl, d in c["options"].items():
            for k, v in d["removed"].items():
                lines.append("  - %s %s = %s" % (lvl, k, v))
            for k, v in d["added"].items():
                lines.append("  + %s %s = %s" % (lvl, k, v))
            for k, (old, new) in d["changed"].items():
                lines.append("  ~ %s %s: %s -> %s" % (lvl, k, old, new))
        for d in c["diagnostics"]["gone"]:
            lines.append("  - %s %s [%s]" % (d.get("severity"), d.get("code"), d.get("option")))
        for d in c["diagnostics"]["new"]:
            lines.append("  + %s %s [%s]: %s" % (d.get("severity"), d.get("code"),
                                                 d.get("option"), d.get("message")))
    return lines
