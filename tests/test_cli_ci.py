"""`npu-bridge lint` as CI tools are used (issue 17): output formats (SARIF 2.1.0 checked
against the OASIS schema, GitHub annotations), --select/--ignore by prefix, --fail-on,
--exit-zero, the summary line, infos shown and counted, progress; --version; explain."""
import io
import json
import os
import re
import textwrap

import jsonschema
import pytest

from npu_bridge import __version__
from npu_bridge.tools import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SARIF_SCHEMA = os.path.join(HERE, "data", "sarif", "sarif-schema-2.1.0.json")

SCRIPT = textwrap.dedent("""\
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].b = True
    custom_op.parameter_map["static_memory_policy"].i = 1
    custom_op.parameter_map["enable_data_pre_proc"].b = True
    custom_op.parameter_map["dump_mod"].s = b"all"
    """)
# line 3: NPB101 error; line 4: NPB103 warning; line 5: NPB105 info; line 6: NPB100 error


def _main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    (tmp_path / "train.py").write_text(SCRIPT)
    return "train.py"


def test_infos_are_shown_and_counted_in_the_summary(capsys, script):
    code, out, err = _main(capsys, "lint", script)
    codes = [(l.split(":")[1], l.split(" ")[1]) for l in out.splitlines() if l[:1] != " "]
    assert codes == [("3", "NPB101"), ("4", "NPB103"), ("5", "NPB105"), ("6", "NPB100")]
    assert "NPB105 info: " in out
    assert err.splitlines()[-1].startswith(
        "npu-bridge lint: 4 findings (2 errors, 1 warning, 1 info) in 1 file; no target product")
    assert code == 1


def test_select_and_ignore_take_prefixes(capsys, script):
    _, out, _ = _main(capsys, "lint", "--select", "NPB10", "--ignore", "NPB100,npb105", script)
    assert [l.split(" ")[1] for l in out.splitlines() if l[:1] != " "] == ["NPB101", "NPB103"]
    # a longer --select wins over a shorter --ignore, as flake8 decides
    _, out, _ = _main(capsys, "lint", "--select", "NPB105", "--ignore", "NPB", script)
    assert [l.split(" ")[1] for l in out.splitlines() if l[:1] != " "] == ["NPB105"]
    code, _, err = _main(capsys, "lint", "--select", "NPX", script)
    assert code == 2 and "--select: unknown code NPX" in err


def test_fail_on_and_exit_zero(capsys, script):
    assert _main(capsys, "lint", "--select", "NPB103,NPB105", script)[0] == 1   # warning
    assert _main(capsys, "lint", "--select", "NPB103,NPB105", "--fail-on", "error",
                 script)[0] == 0
    assert _main(capsys, "lint", "--select", "NPB105", script)[0] == 0   # an info only
    assert _main(capsys, "lint", "--select", "NPB105", "--fail-on", "info", script)[0] == 1
    code, out, _ = _main(capsys, "lint", "--exit-zero", script)
    assert code == 0 and len([l for l in out.splitlines() if l[:1] != " "]) == 4


def test_sarif_validates_against_the_sarif_2_1_0_schema(capsys, script):
    code, out, _ = _main(capsys, "lint", "--format", "sarif", script)
    log = json.loads(out)
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(log)
    assert code == 1 and log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["tool"]["driver"]["version"] == __version__
    results = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]
                ["startLine"]) for r in run["results"]]
    assert results == [("NPB101", "error", 3), ("NPB103", "warning", 4), ("NPB105", "note", 5),
                       ("NPB100", "error", 6)]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["NPB100", "NPB101", "NPB103", "NPB105"]
    for r in run["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"


def test_sarif_schema_check_catches_a_broken_log(capsys, script):
    # the validation above can fail: a result without its message is refused
    _, out, _ = _main(capsys, "lint", "--format", "sarif", script)
    log = json.loads(out)
    del log["runs"][0]["results"][0]["message"]
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(log)


# GitHub's workflow command syntax: ::COMMAND key=value,key=value::message, with '%', CR and
# LF escaped in the message and, in a value, also ':' and ','.
ANNOTATION = re.compile(r"^::(error|warning|notice) file=([^,:]+),line=(\d+),col=(\d+),"
                        r"title=([A-Z0-9]+)::([^\r\n]*)$")


def test_github_annotations(capsys, script, tmp_path):
    code, out, _ = _main(capsys, "lint", "--format", "github", script)
    found = [ANNOTATION.match(l) for l in out.splitlines()]
    assert all(found) and code == 1
    assert [(m.group(1), m.group(2), m.group(3), m.group(5)) for m in found] == [
        ("error", "train.py", "3", "NPB101"), ("warning", "train.py", "4", "NPB103"),
        ("notice", "train.py", "5", "NPB105"), ("error", "train.py", "6", "NPB100")]
    # an absolute path under the working folder is given relative to it; escaping
    odd = tmp_path / "a,b:c.py"
    odd.write_text('custom_op.parameter_map["dump_mod"].s = b"all"  # 100%\n')
    _, out, _ = _main(capsys, "lint", "--format", "github", str(odd))
    assert out.startswith("::error file=a%2Cb%3Ac.py,line=1,col=1,title=NPB100::")


def test_json_has_the_summary(capsys, script):
    _, out, _ = _main(capsys, "lint", "--format", "json", script)
    data = json.loads(out)
    assert data["summary"] == {"error": 2, "warning": 1, "info": 1} and data["files"] == 1


def test_progress_shows_only_after_two_seconds():
    stream = io.StringIO()
    progress = cli._Progress(stream)
    progress(10, 100)
    assert stream.getvalue() == "" and not progress.shown
    progress._start -= 3
    progress(20, 100)
    progress.clear()
    assert stream.getvalue() == "\rnpu-bridge lint: 20/100 files\r\x1b[K"


def test_lint_reports_progress_per_batch(tmp_path):
    from npu_bridge.tools import lint
    for i in range(70):
        (tmp_path / ("s%02d.py" % i)).write_text("x = 1\n")
    seen = []
    _, n = lint.lint_paths([str(tmp_path)], jobs=1, progress=lambda d, t: seen.append((d, t)))
    assert n == 70 and seen == [(32, 70), (64, 70), (70, 70)]


def test_version(capsys):
    code, out, _ = _main(capsys, "--version")
    assert code == 0 and out == "npu-bridge %s\n" % __version__


def test_explain_in_another_case_and_unknown_is_a_usage_error(capsys):
    code, out, _ = _main(capsys, "explain", "PRECISION_MODE")
    assert code == 0 and out.splitlines()[0] == "name: precision_mode"
    code, out, err = _main(capsys, "explain", "PRECISION_MOD")
    assert code == 2 and out == "" and "did you mean" in err and "precision_mode" in err
