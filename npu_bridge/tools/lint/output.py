"""Lint's output formats: text (flake8's `path:line:col: CODE severity: message`), json,
SARIF 2.1.0 (for code-scanning uploads) and GitHub workflow annotations; and the one-line
summary. Severities are the diagnostics table's (`npu_bridge.ge.diagnostics.SEVERITIES`)."""
import json
import os
from urllib.parse import quote

from npu_bridge.ge.diagnostics import CODES, SEVERITIES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# SARIF result levels and GitHub annotation commands per severity.
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
DOCS_URI = "docs/diagnostics.md"


def counts(findings):
    """`{"error": n, "warning": n, "info": n}` of `findings`."""
    out = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out


def summary_line(findings, nfiles, product=None):
    """`npu-bridge lint: 3 findings (1 error, 2 warnings, 0 infos) in 12 files`; without a
    target product it says product rules were skipped (NPB110), once."""
    c = counts(findings)
    line = "npu-bridge lint: %s (%s) in %s" % (
        _plural(len(findings), "finding"),
        ", ".join(_plural(c[s], s) for s in SEVERITIES), _plural(nfiles, "file"))
    if product is None:
        line += "; no target product: product rules skipped (NPB110; give --product)"
    return line


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def render_text(findings):
    return "".join(f.format() + "\n" for f in findings)


def render_json(findings, nfiles, product=None):
    data = {"schema": "npu-bridge-lint", "version": 1, "files": nfiles, "product": product,
            "summary": counts(findings), "findings": [f.to_dict() for f in findings]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text):
    # GitHub's workflow-command escaping (the message part)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text):
    # ... and a property value (file=, title=) also escapes ':' and ','
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings):
    """One GitHub Actions annotation per finding:
    `::error file=PATH,line=N,col=N,title=CODE::message` (notice for an info)."""
    lines = []
    for f in findings:
        lines.append("::%s file=%s,line=%d,col=%d,title=%s::%s" % (
            GITHUB_COMMANDS.get(f.severity, "warning"), _escape_property(_relative(f.path)),
            f.line, f.col, _escape_property(f.code), _escape_data(f.message)))
    return "".join(line + "\n" for line in lines)


def _relative(path):
    """A finding's path as given, relative to the working directory when it is under it
    (what code-scanning and annotations match against the repository)."""
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(path)
        except ValueError:
            return path
        if not rel.startswith(".."):
            return rel
    return path


def _uri(path):
    rel = _relative(path)
    if os.path.isabs(rel):
        return "file://" + quote(rel.replace(os.sep, "/"))
    return quote(rel.replace(os.sep, "/"))


def render_sarif(findings, nfiles, version, product=None):
    """A SARIF 2.1.0 log with one run: the rules reported (id, title, default level, source
    of the rule) and one result per finding (level, message, file, line, column)."""
    used = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(used)}
    rules = []
    for code in used:
        severity, title, source = CODES.get(code, ("warning", code, ""))
        rules.append({
            "id": code,
            "name": code,
            "shortDescription": {"text": title},
            "fullDescription": {"text": "%s (rule source: %s)" % (title, source)},
            "defaultConfiguration": {"level": SARIF_LEVELS.get(severity, "warning")},
            "helpUri": "%s#%s" % (DOCS_URI, code.lower()),
        })
    results = []
    for f in findings:
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": SARIF_LEVELS.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path)},
                "region": {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)}}}],
            "properties": {"option": f.option} if f.option else {},
        })
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "npu-bridge", "version": version, "rules": rules}},
            "results": results,
            "properties": {"files": nfiles, "product": product},
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
