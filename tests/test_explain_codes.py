"""`npu-bridge explain CODE` for every code: no template field left unfilled on a line of its
own (try-out 10: `explain NPB172` printed `fix: <fix>`), and the severity run reports."""
import re

import pytest

from npu_bridge.ge.codes import CODES
from npu_bridge.tools import cli


@pytest.mark.parametrize("code", sorted(CODES))
def test_explain_code_has_no_bare_placeholder(code):
    lines = cli._explain_code(code)
    for line in lines:
        key, _, value = line.partition(": ")
        # a value that is one <field> alone tells the reader nothing
        assert not re.fullmatch(r"\s*<\w+>\s*", value), line
        assert "{" not in value and "}" not in value, line


def test_explain_npb172_says_when_run_reports_an_error():
    lines = cli._explain_code("NPB172")
    severity = [l for l in lines if l.startswith("severity: ")][0]
    assert severity.startswith("severity: warning") and "error" in severity, severity
    assert "one-shot iterator" in severity, severity
    fix = [l for l in lines if l.startswith("fix: ")][0]
    assert "<fix>" not in fix and "each finding" in fix, fix


def test_docs_code_tables_say_the_other_severity():
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for doc in ("docs/diagnostics.md", "docs/reference.md"):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            row = [l for l in f if l.startswith("| `NPB172` |")][0]
        assert "error for a one-shot iterator" in row, (doc, row)
