"""`npu-bridge lint` never imports or runs what it reads, and answers every file, however
malformed or enormous, with findings within a bounded time.

The enormous/pathological files are linted in a child process with a timeout, so a hang or
a crash of the interpreter fails the test instead of the test run.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, strategies as st

from npu_bridge.tools import lint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(lint.__file__)))))  # (lint is a package)
TIME_LIMIT = 60  # seconds per pathological file (generous: 2 shared cores)


def _lint_in_child(path, *extra):
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "lint", "--format", "json", *extra,
                           str(path)], capture_output=True, text=True, timeout=TIME_LIMIT, env=env)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads(proc.stdout)["findings"], proc


# ------------------------------------------------------------------------ never executes
def test_lint_never_runs_or_imports_the_script(tmp_path):
    marker = tmp_path / "MARKER"
    side = tmp_path / "side_effect_mod.py"
    side.write_text("open(%r, 'w').write('imported')\n" % str(marker))
    script = tmp_path / "evil.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import side_effect_mod
        open(%r, "w").write("ran")
        from npu_bridge.npu_init import *
        config = tf.ConfigProto()
        custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
        custom_op.parameter_map["static_memory_policy"].i = __import__("os").system("touch %s")
        custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes(open(%r, "w").name)
        raise SystemExit(3)
        if __name__ == "__main__":
            open(%r, "w")
    """ % (str(tmp_path), str(marker), str(marker), str(marker), str(marker))))
    findings, _ = _lint_in_child(script)
    assert not marker.exists()
    assert isinstance(findings, list)
    in_process = lint.lint_file(str(script))
    assert not marker.exists()
    assert "side_effect_mod" not in sys.modules
    assert all(isinstance(f, lint.Finding) for f in in_process)


def test_lint_does_not_evaluate_huge_constant_expressions(tmp_path):
    script = tmp_path / "pow.py"
    script.write_text('x.parameter_map["hccl_timeout"].i = 10 ** 10 ** 10\n'
                      'x.parameter_map["precision_mode"].s = "a" * 10 ** 12\n')
    findings, _ = _lint_in_child(script)
    assert isinstance(findings, list)


# ------------------------------------------------------------------------ malformed / enormous
def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return p


CASES = {
    "nul-bytes": b'x = 1\n\x00\nc.parameter_map["static_memory_policy"].i = 2\n',
    "invalid-utf8": b'c.parameter_map["precision_mode"].s = "\xff\xfe"\n',
    "bad-coding-cookie": b'# -*- coding: no-such-codec -*-\nx = 1\n',
    "deep-parens": b"x = " + b"(" * 100_000 + b"1" + b")" * 100_000 + b"\n",
    "deep-lists": b'c.parameter_map["static_memory_policy"].i = ' + b"[" * 5_000 + b"]" * 5_000 + b"\n",
    "long-binop": b'c.parameter_map["static_memory_policy"].i = ' + b"1+" * 200_000 + b"1\n",
    "long-unary": b'c.parameter_map["static_memory_policy"].i = ' + b"-" * 200_000 + b"1\n",
    "deep-calls": b'c.parameter_map["precision_mode"].s = ' + b"str(" * 3_000 + b'"x"' + b")" * 3_000 + b"\n",
    "deep-blocks": b"".join(b" " * i + b"if x:\n" for i in range(120)) + b" " * 120 + b'c.parameter_map["a"].i = 1\n',
    "deep-nested-config": b"NPURunConfig(memory_config=" * 3_000 + b"1" + b")" * 3_000 + b"\n",
    "only-garbage": bytes(range(256)) * 100,
    "unterminated": b'c.parameter_map["precision_mode"].s = """never closed\n' * 3,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_file_gives_a_finding_in_bounded_time(tmp_path, name):
    path = _write(tmp_path, name + ".py", CASES[name])
    findings, _ = _lint_in_child(path)
    assert findings, "no finding for %s" % name
    assert all(f["path"] == str(path) for f in findings)


def test_twenty_megabyte_file_is_a_finding_not_a_hang(tmp_path):
    line = b'c.parameter_map["static_memory_policy"].i = 7\n'
    path = _write(tmp_path, "huge.py", line * (20 * 1024 * 1024 // len(line) + 1))
    findings, _ = _lint_in_child(path)
    assert [f["code"] for f in findings] == ["NBL002"]


def test_largest_file_under_the_limit_is_checked_in_bounded_time(tmp_path):
    line = b'c.parameter_map["static_memory_policy"].i = 7\n'
    path = _write(tmp_path, "big.py", line * ((lint.DEFAULT_MAX_BYTES - 1) // len(line)))
    findings, _ = _lint_in_child(path)
    assert [f["code"] for f in findings] == ["E10001"]


def test_lint_of_a_fifo_or_directory_named_py_does_not_block(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)      # open() on it would wait for a writer forever
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "lint", str(fifo), str(tmp_path)],
                          capture_output=True, text=True, timeout=TIME_LIMIT,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 1 and "NBL003" in proc.stdout


# ------------------------------------------------------------------------ property
python_ish = st.lists(st.sampled_from([
    'c.parameter_map["static_memory_policy"].i = ', 'c.parameter_map["precision_mode"].s = ',
    "NPURunConfig(", "MemoryConfig(static_memory_policy=", ")", "(", "[", "]", "1", "-", "+",
    '"', "'", "b'\\xff'", "\n", "    ", "#", "noqa", "\x00", "\\", ",", "=", "**", "10",
    "lambda", "if", ":", "import os", "__import__('os')", "\ud800", "\xff"]), max_size=40).map("".join)


@pytest.mark.fuzz
@given(st.one_of(python_ish, st.binary(max_size=200), st.text(max_size=200)))
def test_lint_source_answers_anything(source):
    findings = lint.lint_source(source, path="f.py", env={})
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, lint.Finding) and f.line >= 1 and f.col >= 1 and f.code
