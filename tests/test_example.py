"""The main job: examples/digits_estimator.py trains to >= 0.9 (the same accuracy every run:
it is seeded) and prints the GE tables."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_digits_example_trains_and_prints_ge_options(tmp_path):
    # its temporary model_dir (tempfile: TMPDIR, here a folder of this test's own, so another
    # run at the same time does not count) is removed at the end: none left after a run
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert sorted(tmp.glob("digits_*")) == []
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "digits_estimator.py"),
         "--steps", "600", "--iterations-per-loop", "10"],   # README's run (make demo)
        cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
        env=dict(os.environ, TMPDIR=str(tmp)))
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert sorted(tmp.glob("digits_*")) == []
    out = result.stdout
    accuracy_line = [line for line in out.splitlines() if line.startswith("test accuracy:")][0]
    assert float(accuracy_line.split()[2]) >= 0.9, accuracy_line
    assert "after 600 global steps (10 per Session.run)" in accuracy_line
    for title in ("GEInitialize (global)", "ge::Session (session)", "AddGraph (graph)",
                  "Diagnostics"):
        assert title in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.startswith("  ge.") or line.startswith("  atomic")}
    # MemoryConfig(atomic_clean_policy=1, static_memory_policy=2) reaches GE at its levels.
    assert rows["ge.exec.staticMemoryPolicy"] == ["2"]
    assert rows["ge.exec.atomicCleanPolicy"] == ["1"]
    assert out.index("ge.exec.staticMemoryPolicy") < out.index("ge::Session (session)")
    assert out.index("ge.exec.atomicCleanPolicy") > out.index("ge::Session (session)")
    # README's excerpt of a demo run ("## The main job: `make demo`") is real output: each of
    # its lines is a line of this run, in order; the accuracy too (the demo is seeded:
    # tf_random_seed=0 and a fixed data order give the same weights every run)
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    excerpt = readme.split("## The main job", 1)[1].split("```\n", 2)[1].splitlines()
    assert excerpt[0] == accuracy_line, (excerpt[:1], accuracy_line)
    lines, at = out.splitlines(), 0
    for line in excerpt[1:]:
        if line.strip() in ("", "..."):
            continue
        assert line in lines[at:], "README's demo excerpt line is not in the output: %r" % line
        at = lines.index(line, at) + 1


def test_digits_example_keeps_a_model_dir_given(tmp_path):
    tmp, model_dir = tmp_path / "tmp", tmp_path / "model"
    tmp.mkdir()
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "digits_estimator.py"),
         "--steps", "20", "--iterations-per-loop", "10", "--model-dir", str(model_dir)],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
        env=dict(os.environ, TMPDIR=str(tmp)))
    assert "test accuracy:" in result.stdout, result.stdout + result.stderr[-3000:]
    assert (model_dir / "checkpoint").is_file()   # the user's directory stays
    assert sorted(tmp.glob("digits_*")) == []
