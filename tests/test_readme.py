"""README as a new user reads it (issue 17): at most about 150 lines, the first script shown is
the file in examples/, and every `$ npu-bridge ...` command in it runs as shown (from the
repository root, output compared line by line; a `...` line stands for any lines; the exit
code where `$ echo $?` shows one). `make demo` is checked by tests/test_example.py (its
excerpt) and `make test` is this suite itself: neither is re-run here."""
import os
import subprocess
import sys

import pytest

from test_docs_samples import commands, matches

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SAMPLES = [c for c in commands("README.md") if c[1][:1] == ["npu-bridge"]]


def test_readme_is_short_and_names_the_two_commands():
    text = open(README, encoding="utf-8").read()
    assert len(text.splitlines()) <= 160
    assert "make demo" in text and "make test" in text
    assert "runs-on:" in text and "--format github" in text and "--format sarif" in text
    assert "image: python" in text    # the GitLab job
    for link in ("docs/cli.md", "docs/reference.md", "docs/report_schema.md"):
        assert link in text and os.path.exists(os.path.join(ROOT, link)), link


def test_the_first_script_is_the_example_file():
    text = open(README, encoding="utf-8").read()
    shown = text.split("## A first script", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    with open(os.path.join(ROOT, "examples", "first_script.py"), encoding="utf-8") as fh:
        assert shown == fh.read()
    assert len(shown.splitlines()) == 10


def test_readme_has_run_and_lint_samples():
    kinds = {" ".join(argv[:2]) for _, argv, _, _ in SAMPLES}
    assert {"npu-bridge run", "npu-bridge lint"} <= kinds


@pytest.mark.parametrize("path, argv, expected, code", SAMPLES,
                         ids=[" ".join(s[1])[11:70] for s in SAMPLES])
def test_readme_command_runs_as_shown(path, argv, expected, code):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY")}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "npu_bridge"] + argv[1:], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    actual = (proc.stdout + proc.stderr).rstrip("\n").splitlines()
    assert matches(expected, actual), "\n".join(actual)
    if code is not None:
        assert proc.returncode == code, proc.stdout + proc.stderr
