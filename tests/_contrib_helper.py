"""Shared by tests/test_contrib*.py and tests/test_tf1_mode_libraries.py."""
import json
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Put before every scenario: `err(key, fn)` records in `errors` what fn raised (AttributeError,
# ImportError: how the mode refuses a name) as [type name, message].
PRELUDE = """\
errors = {}
def err(key, fn):
    try:
        fn()
    except (AttributeError, ImportError) as e:
        errors[key] = [type(e).__name__, str(e)]
"""


def run_scenario(tmp_path, code, timeout=600, env=None):
    """Run `code` (after PRELUDE) as a script in `tmp_path` (a fresh interpreter: the mode is
    process-wide), with `env` added to the environment; it prints one `RESULT <json>` line."""
    script = tmp_path / "scenario.py"
    script.write_text(PRELUDE + textwrap.dedent(code))
    extra, env = env or {}, {k: v for k, v in os.environ.items() if k != "NPU_BRIDGE_TF2"}
    env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env.update(extra)
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    assert len(lines) == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(lines[0][len("RESULT "):])
