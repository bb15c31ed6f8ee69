"""README's sample outputs are the real outputs: each documented `$ npu-bridge options ...`
block is re-run and compared line by line (a stale sample is a defect a user trips on)."""
import os
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def samples(path, command_prefix):
    """(argv, expected output lines) of each fenced block in `path` that starts with
    `$ <command_prefix>`."""
    blocks, block = [], None
    for line in open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines():
        if line.startswith("```"):
            if block is None:
                block = []
            else:
                blocks.append(block)
                block = None
        elif block is not None:
            block.append(line)
    return [(shlex.split(lines[0][2:]), lines[1:]) for lines in blocks
            if lines and lines[0].startswith("$ " + command_prefix)]


OPTIONS_SAMPLES = samples("README.md", "npu-bridge options --set")


def test_the_readme_has_an_options_sample():
    assert OPTIONS_SAMPLES


@pytest.mark.parametrize("argv, expected", OPTIONS_SAMPLES, ids=lambda x: " ".join(x)[:60]
                         if isinstance(x, list) and x and x[0] == "npu-bridge" else "")
def test_readme_options_sample_is_the_real_output(argv, expected, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY")}
    proc = subprocess.run([sys.executable, "-m", "npu_bridge"] + argv[1:], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.stdout.rstrip("\n").splitlines() == expected, proc.stdout + proc.stderr
