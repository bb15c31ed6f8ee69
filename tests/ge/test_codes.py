"""A diagnostic is a row of the code table (npu_bridge/ge/codes.py): every diagnostic of the
package, run time and lint, is built by `make(code, option, value, **fields)` from its code's
one template; nothing writes a message of its own (issue 23)."""
import ast
import os
import string

import pytest

from npu_bridge.ge import codes
from npu_bridge.ge.diagnostics import CODES, SEVERITIES, make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# where a Diagnostic may be built directly: `make` itself and the JSON reader of GeOptions
BUILDERS = {os.path.join("npu_bridge", "ge", "diagnostics.py"),
            os.path.join("npu_bridge", "ge", "options.py")}
MAKERS = ("make", "_make", "problem", "_problem")


def _calls():
    for folder, dirs, files in os.walk(os.path.join(ROOT, "npu_bridge")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, ROOT)
                for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                    if isinstance(node, ast.Call):
                        func = node.func
                        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                        yield rel, node, called


def test_no_diagnostic_writes_its_own_message():
    bad = []
    for rel, node, called in _calls():
        if called in MAKERS and (len(node.args) > 3 or any(k.arg == "message" for k in node.keywords)):
            bad.append("%s:%d %s(...) with a message of its own" % (rel, node.lineno, called))
        if called in ("Diagnostic", "_Diagnostic") and rel not in BUILDERS:
            bad.append("%s:%d builds a Diagnostic directly" % (rel, node.lineno))
    assert not bad, "\n".join(bad)


def test_each_code_is_named_by_literal_in_few_modules():
    """A code's message lives in its row: the modules that raise it are few (NPB160 and
    NPB108 were named in 6 modules each before the table held their text)."""
    where = {}
    for rel, node, called in _calls():
        if called in MAKERS and node.args and isinstance(node.args[0], ast.Constant):
            where.setdefault(node.args[0].value, set()).add(rel)
    crowded = {code: sorted(mods) for code, mods in where.items() if len(mods) > 3}
    assert not crowded, crowded


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_rows_are_complete(code):
    row = CODES[code]
    assert row.severity in SEVERITIES and row.title and row.source and row.template
    for _, field, _, _ in string.Formatter().parse(row.template):
        assert field is None or field.split("!")[0].isidentifier(), (code, field)


def test_make_fills_the_template_and_says_what_is_missing():
    d = make("NPB176", "ExponentialUpdateLossScaleManager", "AssignAdd", deps="AssignAdd")
    assert d.severity == "error" and d.message.startswith(
        "ExponentialUpdateLossScaleManager created inside tf.control_dependencies(AssignAdd)")
    assert "npu_loss_scale_optimizer_faq.md" in d.message
    with pytest.raises(KeyError, match="deps"):
        make("NPB176", "m", None)
    with pytest.raises(ValueError, match="severity 'fatal' of NPB176"):
        make("NPB176", "m", None, severity="fatal", deps="x")
    with pytest.raises(KeyError):
        make("NPB999", "m", None)
