"""`npu-bridge run` ends a script as `python` does: the script's `sys.excepthook` for an escaped
exception, then the wait for non-daemon threads, then the `atexit` handlers; only then the
summary and the report (and the exit code they state is the one the process exits with).
Also: `--report` never replaces the script or a file that is not an npu-bridge report.
Each `run` test is one subprocess (TensorFlow starts in it)."""
import json
import os
import textwrap

import pytest

import run_cli  # noqa: E402  (tests/run_cli.py)

from npu_bridge.tools import cli, report



def _run(argv, cwd):
    return run_cli.run(argv, cwd, timeout=300)


# --- non-daemon threads are waited for before the summary --------------------------------

LATE_THREAD = textwrap.dedent("""\
    import atexit, threading, time
    from npu_bridge.npu_init import *
    def late():
        time.sleep(0.5)
        try:
            NPURunConfig(precision_mode="bogus")
        except Exception as e:
            print("thread caught", type(e).__name__, flush=True)
    threading.Thread(target=late).start()
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()   # never waited for
    atexit.register(print, "atexit ran", flush=True)
    print("main done", flush=True)
    """)


def test_run_waits_for_non_daemon_threads_then_atexit_before_the_summary(tmp_path):
    (tmp_path / "s.py").write_text(LATE_THREAD)
    proc = _run(["--report", "r.json", "s.py"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    # python's order: main body, the non-daemon thread, then the atexit handlers
    assert proc.stdout == "main done\nthread caught NpuArgumentError\natexit ran\n"
    assert "npu-bridge run: 1 configuration(s), 1 error(s)" in proc.stderr
    assert "exit code: 1" in proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"]["exit_code"] == 1 and data["summary"]["refused"] == 1


# --- an atexit handler's os._exit: the run still finishes, with run's exit code ----------

ATEXIT_OS_EXIT = textwrap.dedent("""\
    import atexit, os, sys
    from npu_bridge.npu_init import *
    if sys.argv[1] == "refused":
        try:
            NPURunConfig(precision_mode="bogus")
        except Exception:
            pass
    atexit.register(os._exit, int(sys.argv[2]))
    print("bye")
    """)


@pytest.mark.parametrize("kind, status, code", [("refused", 0, 1), ("clean", 4, 4),
                                                ("refused", 5, 5)])
def test_run_atexit_os_exit_gives_the_code_run_decided(tmp_path, kind, status, code):
    (tmp_path / "s.py").write_text(ATEXIT_OS_EXIT)
    proc = _run(["--report", "r.json", "s.py", kind, str(status)], str(tmp_path))
    assert proc.returncode == code, proc.stderr[-3000:]
    assert proc.stdout == "bye\n"   # flushed before the real os._exit
    assert proc.stderr.count("npu-bridge run:") == 1
    assert "exit code: %d" % code in proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"]["exit_code"] == code
    assert data["outcome"]["script_exit_code"] == status


# --- the script's sys.excepthook -----------------------------------------------------------

EXCEPTHOOK = textwrap.dedent("""\
    import os, sys
    def hook(tp, exc, tb):
        print("hooked %s: %s" % (tp.__name__, exc), file=sys.stderr, flush=True)
        if sys.argv[1] == "os_exit":
            os._exit(9)
    sys.excepthook = hook
    raise RuntimeError("boom")
    """)


@pytest.mark.parametrize("mode, code", [("print", 1), ("os_exit", 9)])
def test_run_calls_the_scripts_excepthook(tmp_path, mode, code):
    (tmp_path / "s.py").write_text(EXCEPTHOOK)
    proc = _run(["--report", "r.json", "s.py", mode], str(tmp_path))
    assert proc.returncode == code, proc.stderr[-3000:]
    assert "hooked RuntimeError: boom" in proc.stderr
    assert "Traceback" not in proc.stderr   # the hook replaced the default printing
    assert "exit code: %d" % code in proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"]["exit_code"] == code and data["outcome"]["script_exit_code"] == code
    assert data["outcome"]["uncaught"]["type"] == "RuntimeError"


# --- --report never replaces the script or a file that is not a report ----------------------

def test_report_onto_the_script_itself_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    victim = tmp_path / "victim.py"
    victim.write_text("print('hi')\n")
    os.link(victim, tmp_path / "sub" / "hard.py")
    for dest in ("victim.py", "sub/../victim.py", str(victim), "sub/hard.py"):
        assert cli.main(["run", "--report", dest, "victim.py"]) == 2
        err = capsys.readouterr().err
        assert "is the script itself" in err, err
        assert "npu-bridge run: error: report destination" in err
    assert victim.read_text() == "print('hi')\n"


@pytest.mark.parametrize("text", ["precious notes\n", '{"a": 1}\n', "", "[1, 2]\n",
                                  '{"schema": "npu-bridge-lint", "version": 1}\n'])
def test_report_onto_a_file_that_is_not_a_report_is_refused(tmp_path, text):
    dest = tmp_path / "notes.json"
    dest.write_text(text)
    with pytest.raises(report.ReportPathError, match="not a report npu-bridge wrote"):
        report.check_writable(str(dest))
    assert dest.read_text() == text


def test_report_onto_a_previous_report_is_allowed(tmp_path):
    dest = tmp_path / "r.json"
    data = report.build_run_report(script="/x.py", argv=["x.py"], cwd="/", product=None,
                                   strict=False, environment_set={}, records=[],
                                   script_exit_code=0, exit_code=0)
    report.write_report(str(dest), data)
    assert report.check_writable(str(dest)) == str(dest)
    # also a large one: only a bounded prefix is read
    data["notes"] = ["x" * 100] * 20000
    report.write_report(str(dest), data)
    assert report.check_writable(str(dest)) == str(dest)


# --- nitpicks: the missing folder named; the exit code printed is the one the process exits with

def test_missing_folder_message_names_the_missing_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(report.ReportPathError) as info:
        report.check_destination("ok dir/../x.json")
    assert "report folder %s does not exist" % (tmp_path / "ok dir") in str(info.value)


def test_report_not_written_summary_states_the_real_exit_code(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "s.py").write_text("import shutil\nshutil.rmtree('out')\n")
    proc = _run(["--report", "out/r.json", "s.py"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "report NOT written" in proc.stderr
    assert "exit code: 1" in proc.stderr and "exit code: 0" not in proc.stderr


def test_run_usage_error_does_not_call_args_required(capsys):
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert "the following arguments are required: SCRIPT" in err and "ARGS" not in err.splitlines()[-1]
