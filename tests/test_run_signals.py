"""A CI job that is cancelled or times out sends SIGTERM (a closed terminal SIGHUP): `npu-bridge
run` then ends as on Ctrl-C: the summary and the report say how the run ended, the exit code
is 128 + the signal, and no `.NAME.lock` is left. One subprocess per test (TensorFlow starts in
it); every process is bounded in time and checked to be gone."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import _pool
import run_cli  # noqa: F401  (tests/run_cli.py: the environment of a user's shell)
from test_ranks import HERE as RANKS_DIR, _children_of, _env


@pytest.fixture(autouse=True, scope="module")
def _no_background_runs():
    """These tests bound elapsed time: no background run of tests/_pool.py beside them."""
    _pool.wait_early()


SLEEPER = textwrap.dedent("""\
    import sys, time
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
    with tf.Session(config=config) as sess:
        print(sess.run(tf.constant(6) * 7), flush=True)
        open(sys.argv[1], "w").close()
        time.sleep(300)
    print("never reached")
    """)


def _wait_for(paths, proc, timeout=200):
    deadline = time.time() + timeout
    while not all(os.path.exists(p) for p in paths):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the script did not start in %d s" % timeout
        time.sleep(0.1)


def _signal_run(argv, cwd, markers, sig, command="run", **env):
    """Start `npu-bridge COMMAND ARGV`, wait for the files `markers`, send `sig`; (returncode,
    output)."""
    proc = subprocess.Popen([sys.executable, "-m", "npu_bridge", command] + argv, cwd=str(cwd),
                            env=_env(**env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        _wait_for(markers, proc)
        children = _children_of(proc.pid)
        sent = time.time()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=60)
        assert time.time() - sent < 40, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert not [pid for pid in children if os.path.exists("/proc/%d" % pid)
                and open("/proc/%d/stat" % pid).read().split(")")[1].split()[0] != "Z"]
    return proc.returncode, out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_keeps_the_report_and_leaves_no_lock(tmp_path, sig):
    (tmp_path / "long.py").write_text(SLEEPER)
    marker = str(tmp_path / "started")
    code, out = _signal_run(["--report", "r.json", "long.py", marker], tmp_path, [marker], sig)
    name = signal.Signals(sig).name
    assert code == 128 + sig, out
    assert "never reached" not in out
    assert "stopped by %s" % name in out and "exit code: %d" % (128 + sig) in out, out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"]["signal"] == name
    assert data["outcome"]["exit_code"] == data["outcome"]["script_exit_code"] == 128 + sig
    assert data["summary"]["configurations"] == 1   # what ran before the signal is kept
    assert sorted(os.listdir(tmp_path)) == ["long.py", "r.json", "started"]   # no lock left


def test_a_stop_signal_to_memory_prints_the_plans_captured_so_far(tmp_path):
    """`npu-bridge memory` on a script that trains for long: SIGTERM (a CI job's timeout) stops
    it as Ctrl-C would and the plans of the graphs already run are printed, exit 128 + 15."""
    (tmp_path / "long.py").write_text(SLEEPER)
    marker = str(tmp_path / "started")
    code, out = _signal_run(["--product", "atlas-a2-training", "long.py", marker], tmp_path,
                            [marker], signal.SIGTERM, command="memory")
    assert code == 128 + signal.SIGTERM, out
    assert "never reached" not in out
    assert "stopped by SIGTERM" in out, out
    assert "Session#1 (product atlas-a2-training" in out, out   # the graph that ran is planned
    assert sorted(os.listdir(tmp_path)) == ["long.py", "started"]


def test_a_stop_signal_to_a_ranks_job_keeps_the_report(tmp_path):
    code, out = _signal_run(["--report", "job.json", "--ranks", "2",
                             os.path.join(RANKS_DIR, "fault_check.py")], tmp_path,
                            [str(tmp_path / "started0"), str(tmp_path / "started1")], signal.SIGTERM,
                            RANKS_OUT=str(tmp_path), RANKS_FAULT="sleep")
    assert code == 128 + signal.SIGTERM, out
    assert "stopped by SIGTERM: stopping every rank" in out, out
    data = json.loads((tmp_path / "job.json").read_text())
    assert data["outcome"]["signal"] == "SIGTERM"
    assert data["outcome"]["exit_code"] == 128 + signal.SIGTERM
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".lock")]


# --- a rank that crashed is named as failed, in its peers' errors and the merged outcome ---

def test_a_crashed_rank_is_named_failed_with_its_exception(tmp_path):
    from test_ranks import launch
    code, out = launch(["--report", "job.json", "--ranks", "2", "--collective-timeout", "8",
                        os.path.join(RANKS_DIR, "fault_check.py")], tmp_path, 300,
                       RANKS_OUT=str(tmp_path), RANKS_FAULT="ends")
    assert code == 1, out
    _, message = (tmp_path / "error.txt").read_text().split("\n", 1)   # rank 0's timeout
    assert ("rank 1 failed in its script (RuntimeError: rank 1 fails on purpose) while rank 0 "
            "waited in a collective") in message, message
    assert "finished its script" not in message and "but not on rank(s) [1]" not in message
    data = json.loads((tmp_path / "job.json").read_text())
    unc = data["outcome"]["uncaught"]
    assert unc["rank"] == 1 and unc["type"] == "RuntimeError", unc
    assert unc["message"] == "rank 1 fails on purpose"
    assert "uncaught RuntimeError: rank 1 fails on purpose (rank 1)" in out, out
