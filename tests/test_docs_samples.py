"""The documented sample outputs are the real outputs: each `$ npu-bridge options ...` (not
`--pbtxt`) and `$ npu-bridge explain ...` command of README.md and docs/cli.md is re-run and compared
line by line, with its documented exit code (`$ echo $?`) where one is shown (a stale sample
is a defect a user trips on). A line `...` in a sample stands for any number of lines (an
excerpt). The `run` and `lint` samples of docs/cli.md are re-run too, in an empty folder
holding the files their `$ cat FILE` samples show (README's: tests/test_readme.py)."""
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ("README.md", "docs/cli.md")
CHECKED = ("npu-bridge options", "npu-bridge explain")


def commands(path):
    """(path, argv, expected output lines, expected exit code or None) of each `$ ...`
    command in the fenced blocks of `path`; `$ echo $?` gives the exit code of the command
    before it. Blank lines between commands are not output."""
    found, in_block, current = [], False, None
    for line in open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines():
        if line.startswith("```"):
            in_block, current = not in_block, None
            continue
        if not in_block:
            continue
        if line == "$ echo $?":
            current = ("echo", found[-1]) if found else None
        elif line.startswith("$ "):
            found.append([path, shlex.split(line[2:]), [], None])
            current = ("out", found[-1])
        elif current is not None and current[0] == "echo":
            current[1][3] = int(line)
            current = None
        elif current is not None:
            current[1][2].append(line)
    for entry in found:
        while entry[2] and not entry[2][-1].strip():
            entry[2].pop()
    return [tuple(e) for e in found]


SAMPLES = [c for path in DOCS for c in commands(path)
           if " ".join(c[1]).startswith(CHECKED) and "--pbtxt" not in c[1]]


def matches(expected, actual):
    """`actual` lines match `expected`, where a line `...` stands for any lines."""
    parts, part = [], []
    for line in expected:
        if line.strip() == "...":
            parts.append(part)
            part = []
        else:
            part.append(line)
    parts.append(part)
    if len(parts) == 1:
        return actual == expected
    first, last, middle = parts[0], parts[-1], parts[1:-1]
    if actual[:len(first)] != first or (last and actual[-len(last):] != last):
        return False
    at, end = len(first), len(actual) - len(last)
    if end < at:
        return False
    for part in middle:
        for i in range(at, end - len(part) + 1):
            if actual[i:i + len(part)] == part:
                at = i + len(part)
                break
        else:
            return False
    return True


def test_the_docs_have_options_and_explain_samples():
    kinds = {(path, " ".join(argv[:2])) for path, argv, _, _ in SAMPLES}
    # (README's run and lint samples are re-run by tests/test_readme.py)
    assert ("docs/cli.md", "npu-bridge options") in kinds
    assert ("docs/cli.md", "npu-bridge explain") in kinds


def test_the_matcher_reads_excerpts():
    assert matches(["a", "...", "c"], ["a", "b", "c"])
    assert matches(["a", "..."], ["a", "b"])
    assert not matches(["a", "..."], ["b", "a"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(["a", "...", "c", "...", "b"], ["a", "b", "c"])


@pytest.mark.parametrize("path, argv, expected, code", SAMPLES,
                         ids=["%s: %s" % (s[0], " ".join(s[1])[11:70]) for s in SAMPLES])
def test_documented_sample_is_the_real_output(path, argv, expected, code, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY")}
    proc = subprocess.run([sys.executable, "-m", "npu_bridge"] + argv[1:], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300)
    # as a terminal shows it (each command writes to one of the two streams)
    actual = (proc.stdout + proc.stderr).rstrip("\n").splitlines()
    assert matches(expected, actual), "\n".join(actual)
    if code is not None:
        assert proc.returncode == code, proc.stdout + proc.stderr


RUN_LINT = ("npu-bridge run", "npu-bridge lint")
CLI_FILE_SAMPLES = [c for c in commands("docs/cli.md") if " ".join(c[1]).startswith(RUN_LINT)]


def shown_files(path):
    """{name: text} of the `$ cat NAME` samples of `path` (`cat -n` numbering removed)."""
    return {argv[1]: "".join(re.sub(r"^ *\d+\t", "", line) + "\n" for line in out)
            for _, argv, out, _ in commands(path) if argv[:1] == ["cat"] and len(argv) == 2}


def test_every_npu_bridge_sample_of_cli_md_is_checked():
    for sample in commands("docs/cli.md"):
        if sample[1][:1] == ["npu-bridge"]:
            assert " ".join(sample[1]).startswith(CHECKED + RUN_LINT), sample[1]
    assert {" ".join(c[1][:2]) for c in CLI_FILE_SAMPLES} == set(RUN_LINT)


@pytest.mark.parametrize("path, argv, expected, code", CLI_FILE_SAMPLES,
                         ids=[" ".join(s[1])[11:70] for s in CLI_FILE_SAMPLES])
def test_cli_run_and_lint_samples_are_the_real_output(path, argv, expected, code, tmp_path):
    for name, text in shown_files(path).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY")}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "npu_bridge"] + argv[1:], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=600)
    actual = (proc.stdout + proc.stderr).rstrip("\n").splitlines()
    assert matches(expected, actual), "\n".join(actual)
    if code is not None:
        assert proc.returncode == code, proc.stdout + proc.stderr
