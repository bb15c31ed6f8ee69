"""Regression corpus: realistic Ascend-style TF1 scripts (`tests/scripts/`, written by a tester)
run unmodified under `python -m npu_bridge run --no-report`, each in a temporary working
directory. Each must exit 0 and print a last stdout line starting with "ok".

The scripts start when collection ends, one at a time in the background beside the in-process
tests, and those not begun when this module's tests come run two at a time (the machine has 2
cores; tests/_pool.py); each script is still its own test. See `tests/scripts/README.md` for
what each one covers.
"""
import os
import subprocess
import sys
import tempfile

import pytest

import _pool

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(REPO, "tests", "scripts")

# name -> (script args, extra environment)
CASES = {
    "t02_monitored_session": ((), {}),
    "t03_keras_compat": ((), {}),
    "t04_npu_estimator_no_star": ((), {}),
    "t05_loss_scale_distributed": ((), {}),
    "t06_broadcast_vars": ((), {}),
    "t07_dropout_scope": ((), {}),
    "t08_dynamic_rnn_lstm": ((), {}),
    "t09_supervisor": ((), {}),
    "t10_import_npu_bridge_only": ((), {}),
    "t10_import_npu_bridge_only --bad": (("--bad",), {}),
    "t14_tf1_isms": ((), {}),
    "t15_rank_size_2": ((), {"RANK_SIZE": "2", "RANK_ID": "1"}),
    "t17_estimator_finite_loop": ((), {}),
    "t18_session_resource_hccl": ((), {}),
}
# The environment of every run, taken at import: the runs start in the background while other
# tests run, and those may monkeypatch os.environ meanwhile.
_ENVIRON = dict(os.environ)
JOB_VARS = ("RANK_SIZE", "RANK_ID", "DEVICE_ID", "ASCEND_DEVICE_ID", "DEVICE_INDEX", "JOB_ID",
            "NPU_BRIDGE_TF2", "NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY")


def _run(case):
    args, extra_env = CASES[case]
    script = os.path.join(SCRIPTS, case.split()[0] + ".py")
    env = {k: v for k, v in _ENVIRON.items() if k not in JOB_VARS}
    env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in [_ENVIRON.get("PYTHONPATH")] if p])
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env.update(extra_env)
    with tempfile.TemporaryDirectory() as cwd:
        env["TMPDIR"] = cwd   # the scripts' tempfile.mkdtemp() dirs go away with it
        proc = subprocess.run(
            [sys.executable, "-m", "npu_bridge", "run", "--no-report", script, *args],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        leftovers = sorted(os.listdir(cwd))
    return proc, leftovers


def _needs(item):
    if item.originalname == "test_script_runs_clean":
        return (item.callspec.params["case"],)
    return {"test_import_only_bad_config_exits_1": ("t10_import_npu_bridge_only --bad",),
            "test_summary_shows_adapter_options": ("t02_monitored_session",)}.get(item.originalname, ())


# each run in a temporary folder of its own (_run), not the one prestart makes
_JOBS = {case: (lambda _tmp, case=case: _run(case)) for case in CASES}
EARLY_RUNS = (_JOBS, _needs)


@pytest.fixture(scope="module")
def results(request, tmp_path_factory):
    yield from _pool.prestart(request, tmp_path_factory, _JOBS, _needs)


def _last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


@pytest.mark.parametrize("case", [c for c in CASES if not c.endswith("--bad")])
def test_script_runs_clean(results, case):
    proc, _ = results[case]
    detail = proc.stdout[-2000:] + proc.stderr[-4000:]
    assert proc.returncode == 0, detail
    assert _last_line(proc.stdout).startswith("ok"), detail
    assert "npu-bridge run:" in proc.stderr and "0 error(s)" in proc.stderr, detail


def test_import_only_bad_config_exits_1(results):
    # `import npu_bridge` alone: the session config is still checked (a typo in precision_mode)
    proc, _ = results["t10_import_npu_bridge_only --bad"]
    detail = proc.stdout[-2000:] + proc.stderr[-4000:]
    assert proc.returncode == 1, detail
    assert "E10001" in proc.stderr and "allow_mix_precison" in proc.stderr, detail
    assert "NOT CAUGHT" not in proc.stdout, detail


def test_summary_shows_adapter_options(results):
    # t02 sets iterations_per_loop and use_off_line in its parameter_map (adapter level)
    proc, _ = results["t02_monitored_session"]
    rows = [l.split() for l in proc.stderr.splitlines()]
    assert ["adapter", "iterations_per_loop", "10"] in [r[:3] for r in rows], proc.stderr[-3000:]
    assert "(no options set by the script)" not in proc.stderr
