"""Lint's output formats: text (flake8's `path:line:col: CODE severity: message`), json,
SARIF 2.1.0 (for code-scanning uploads) and GitHub workflow annotations; and the one-line
summary. Severities are the diagnostics table's (`npu_bridge.ge.diagnostics.SEVERITIES`)."""
import json
import os
from urllib.parse import quote

from npu_bridge.ge.diagnostics import CODES, SEVERITIES, below, provenance_of

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


NO_TARGET_TEXT = "no target product: product rules skipped (NPB110; give --product)"
_FROM = {"product=": "--product", "soc_config": "soc_config=%s",
         "$NPU_BRIDGE_PRODUCT": "$NPU_BRIDGE_PRODUCT=%s"}


def products_used(targets, product=None, env_product=None):
    """What lint's outputs say about the target product: `(product, products)`.

    `targets`: `(path, product id or None, where, name)` of each file's resolutions
    (`lint_paths(targets=...)`; where as `products.target_source` says it).
    `products`: `[{"product", "from", "files"}]`, one per product and place it came from
    (`--product`, `soc_config=NAME`, `$NPU_BRIDGE_PRODUCT=NAME`; product and from null for
    resolutions without a target), `files` how many files resolved with it, sorted.
    `product`: the `--product` given, else the one product every resolution used, else (no
    configuration found) the environment's, else null."""
    files = {}
    for path, pid, where, name in targets:
        source = None
        if pid is not None and where:
            source = _FROM.get(where, where)
            source = source % name if "%s" in source else source
        files.setdefault((pid, source if pid is not None else None), set()).add(path)
    products = [{"product": pid, "from": source, "files": len(paths)}
                for (pid, source), paths in sorted(files.items(), key=lambda kv: (
                    kv[0][0] is None, kv[0][0] or "", kv[0][1] or ""))]
    if product is None:
        ids = {p["product"] for p in products}
        if len(ids) == 1:
            product = next(iter(ids))
        elif not ids:
            product = env_product
    return product, products


def summary_line(findings, nfiles, product=None, products=None):
    """`npu-bridge lint: 3 findings (1 error, 2 warnings, 0 infos) in 12 files`, then the
    product the rules were checked for when --product did not give it (`products`: from
    `products_used`): `product atlas-inference (soc_config=Ascend310P3: 1 file)`, and for
    files without a target that product rules were skipped there (NPB110)."""
    c = counts(findings)
    line = "npu-bridge lint: %s (%s) in %s" % (
        _plural(len(findings), "finding"),
        ", ".join(_plural(c[s], s) for s in SEVERITIES), _plural(nfiles, "file"))
    products = products or []
    if any(p["from"] == "--product" for p in products):
        return line   # the command line names it
    found = [p for p in products if p["product"] is not None]
    skipped = sum(p["files"] for p in products if p["product"] is None)
    parts = ["product %s (%s: %s)" % (p["product"], p["from"], _plural(p["files"], "file"))
             for p in found]
    if not found and product is not None:   # no configuration resolved: the environment's
        parts.append("product %s ($NPU_BRIDGE_PRODUCT)" % product)
    if skipped and found:
        parts.append("no target product in %s: product rules skipped there (NPB110; give "
                     "--product)" % _plural(skipped, "file"))
    elif not found and product is None:
        parts.append(NO_TARGET_TEXT)
    return line + "".join("; " + p for p in parts)


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def render_text(findings, show_source=False):
    """flake8's `path:line:col: CODE severity: message`, with the short message; then, indented,
    the `fix:` line where the finding has one (else the `more:` pointer of a shortened line),
    and with `show_source` its `source:` line."""
    out = []
    for f in findings:
        out.append(f.format())
        out += ["    %s: %s" % part for part in below(f.message)]
        if show_source:
            out.append("    source: " + (provenance_of(f.message) or str(f.message)))
    return "".join(line + "\n" for line in out)


def render_json(findings, nfiles, product=None, products=None):
    data = {"schema": "npu-bridge-lint", "version": 1, "files": nfiles, "product": product,
            "products": list(products or ()), "summary": counts(findings),
            "findings": [f.to_dict() for f in findings]}
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


def render_sarif(findings, nfiles, version, product=None, products=None):
    """A SARIF 2.1.0 log with one run: the rules reported (id, title, default level, source
    of the rule) and one result per finding (level, message, file, line, column)."""
    used = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(used)}
    rules = []
    for code in used:
        row = CODES.get(code)
        severity, title, source = (row.severity, row.title, row.source) if row else (
            "warning", code, "")
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
            "properties": {"files": nfiles, "product": product,
                           "products": list(products or ())},
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
