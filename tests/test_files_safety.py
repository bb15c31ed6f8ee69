"""Where the project writes, and the paths it is given.

What writes today: only the report writer (`npu_bridge.tools.report.write_atomic`, used by
`npu-bridge run --report`); nothing creates or removes directories (the external-weight
directory is computed, never created: GE creates it on the NPU).

"Unsafe" report destinations, refused with a clear `ReportPathError` before the script runs:
- the destination itself is a symbolic link (never followed, the link and its target stay);
- the destination is a directory, or the path ends with a separator (names a directory);
- the destination is anything else that is not a regular file (a device such as /dev/null,
  a FIFO, a socket): never replaced, never opened;
- the parent folder does not exist (nothing is created but the report);
- (`check_writable`, what `npu-bridge run` uses) the folder does not accept a new file: a
  temporary file is created there and removed at once.
`..` is resolved the way the operating system resolves it (physically: `link/..` is the
parent of the link's target), so the report lands where `cat PATH` would read it.
A failed write leaves no partial report and no temporary file, and an existing report is
left as it was. Nothing but the report (and its short-lived temporary file in the same
folder) is ever created, and nothing is ever removed but that temporary file.
"""
import json
import os
import stat
import subprocess
import sys

import pytest

from npu_bridge.tools import cli, report

SCRIPT = "print('hello from the script')\n"


def _listing(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            out.append((os.path.relpath(p, root), os.path.islink(p)))
    return sorted(out)


# ------------------------------------------------------------------------ atomic writes
def test_failed_write_leaves_the_old_report_and_no_temp(tmp_path, monkeypatch):
    dest = tmp_path / "r.json"
    dest.write_text('{"old": true}\n')
    before = _listing(tmp_path)

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report.os, "fsync", full_disk)
    with pytest.raises(OSError):
        report.write_atomic(str(dest), "new text")
    assert dest.read_text() == '{"old": true}\n'
    assert _listing(tmp_path) == before


def test_unserialisable_report_writes_nothing(tmp_path):
    dest = tmp_path / "r.json"
    with pytest.raises((TypeError, ValueError)):
        report.write_report(str(dest), {"bad": object()})
    assert _listing(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_folder_gives_oserror_and_leaves_nothing(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(OSError):
            report.write_atomic(str(folder / "r.json"), "{}\n")
        assert os.listdir(folder) == []
    finally:
        folder.chmod(0o755)


def test_interrupted_write_removes_its_temp_file(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(report.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        report.write_atomic(str(tmp_path / "r.json"), "{}\n")
    assert _listing(tmp_path) == []


def test_replaces_existing_report_keeping_its_mode(tmp_path):
    dest = tmp_path / "r.json"
    dest.write_text("old")
    dest.chmod(0o640)
    report.write_atomic(str(dest), "new")
    assert dest.read_text() == "new"
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o640
    assert _listing(tmp_path) == [("r.json", False)]


# ------------------------------------------------------------------------ unsafe destinations
def test_symlink_destination_refused_target_untouched(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "r.json"
    link.symlink_to(target)
    with pytest.raises(report.ReportPathError, match="symbolic link"):
        report.write_atomic(str(link), "{}")
    assert os.path.islink(link) and target.read_text() == "keep me"


def test_dangling_symlink_destination_refused(tmp_path):
    link = tmp_path / "r.json"
    link.symlink_to(tmp_path / "nowhere" / "x.json")
    with pytest.raises(report.ReportPathError):
        report.write_atomic(str(link), "{}")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("suffix", ["", "/", "/."])
def test_directory_destination_refused(tmp_path, suffix):
    (tmp_path / "out").mkdir()
    with pytest.raises(report.ReportPathError):
        report.write_atomic(str(tmp_path / "out") + suffix, "{}")
    assert os.listdir(tmp_path / "out") == []


def test_trailing_separator_names_a_directory_not_a_file(tmp_path):
    # "out/" does not exist: writing a *file* named "out" would not be what was asked.
    with pytest.raises(report.ReportPathError):
        report.write_atomic(str(tmp_path / "out") + os.sep, "{}")
    assert _listing(tmp_path) == []


def test_missing_parent_refused_and_not_created(tmp_path):
    with pytest.raises(report.ReportPathError, match="does not exist"):
        report.write_atomic(str(tmp_path / "a" / "b" / "r.json"), "{}")
    assert _listing(tmp_path) == []


def test_dotdot_is_resolved_like_the_os_does(tmp_path):
    """`link/../r.json` is in the parent of the link's *target* (POSIX), not next to the link."""
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "link").symlink_to(tmp_path / "real" / "sub")
    given = str(tmp_path / "a" / "link" / ".." / "r.json")
    written = report.write_atomic(given, "{}\n")
    assert os.path.exists(given)                                   # where the OS looks
    assert os.path.realpath(written) == str((tmp_path / "real" / "r.json").resolve())
    assert not (tmp_path / "a" / "r.json").exists()


def test_symlinked_parent_folder_is_followed_final_link_is_not(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real", target_is_directory=True)
    report.write_atomic(str(tmp_path / "via" / "r.json"), "{}\n")
    assert (tmp_path / "real" / "r.json").read_text() == "{}\n"


# ------------------------------------------------------------------------ the CLI
def _run_cli(tmp_path, *args):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(cli.__file__)))))
    return subprocess.run([sys.executable, "-m", "npu_bridge", "run", *args, str(script)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_cli_report_symlink_refused_before_the_script_runs(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (tmp_path / "r.json").symlink_to(target)
    out = _run_cli(tmp_path, "--report", "r.json")
    assert out.returncode == 2, out.stderr
    assert "symbolic link" in out.stderr
    assert "hello from the script" not in out.stdout
    assert target.read_text() == "keep me"


def test_cli_report_missing_folder_refused(tmp_path):
    out = _run_cli(tmp_path, "--report", "nope/r.json")
    assert out.returncode == 2 and "does not exist" in out.stderr
    assert not (tmp_path / "nope").exists()


def test_cli_writes_only_the_report(tmp_path):
    before = set(os.listdir(tmp_path))
    out = _run_cli(tmp_path, "--report", "r.json")
    assert out.returncode == 0, out.stderr
    created = set(os.listdir(tmp_path)) - before - {"s.py"}
    assert created == {"r.json"}
    assert json.loads((tmp_path / "r.json").read_text())["schema"] == "npu-bridge-report"



# ------------------------------------------------------------------------ special files, writable folder
def _special(tmp_path, kind):
    """A node of `kind` at tmp_path/r.json (skips where the system will not make one)."""
    path = tmp_path / "r.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "chardev":
        if os.geteuid() != 0:
            pytest.skip("a device node needs root")
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # a copy of /dev/null
        except PermissionError:
            pytest.skip("mknod not permitted here")
    elif kind == "socket":
        import socket
        if len(str(path)) > 100:
            pytest.skip("path too long for an AF_UNIX socket")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    return path


@pytest.mark.parametrize("kind, says", [("fifo", "FIFO"), ("chardev", "character device"),
                                        ("socket", "socket")])
def test_special_file_destination_refused_and_left_alone(tmp_path, kind, says):
    path = _special(tmp_path, kind)
    before = os.lstat(path)
    with pytest.raises(report.ReportPathError, match=says) as err:
        report.write_atomic(str(path), "{}\n")
    assert str(path) in str(err.value)
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino,
                                                             before.st_rdev)
    assert _listing(tmp_path) == [("r.json", False)]


def test_cli_fifo_report_refused_before_the_script_runs(tmp_path):
    path = _special(tmp_path, "fifo")
    out = _run_cli(tmp_path, "--report", "r.json")
    assert out.returncode == 2, out.stderr
    assert "hello from the script" not in out.stdout
    assert str(path) in out.stderr and "FIFO" in out.stderr and "--no-report" in out.stderr
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


def test_cli_device_report_refused_device_left_alone(tmp_path):
    path = _special(tmp_path, "chardev")
    out = _run_cli(tmp_path, "--report", str(path))
    assert out.returncode == 2, out.stderr
    assert "character device" in out.stderr and "hello from the script" not in out.stdout
    st = os.lstat(path)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def test_writable_check_leaves_nothing_behind(tmp_path):
    assert report.check_writable(str(tmp_path / "r.json")) == str(tmp_path / "r.json")
    assert _listing(tmp_path) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_folder_refusing_new_files_is_found_before_writing(tmp_path):
    with pytest.raises(report.ReportPathError, match="/proc") as err:
        report.check_writable("/proc/npu_bridge_report_test.json")
    assert "new file" in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_folder_is_found_before_writing(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(report.ReportPathError, match="new file"):
            report.check_writable(str(folder / "r.json"))
        assert os.listdir(folder) == []
    finally:
        folder.chmod(0o755)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_cli_unwritable_report_folder_refused_before_the_script_runs(tmp_path):
    out = _run_cli(tmp_path, "--report", "/proc/npu_bridge_report_test.json")
    assert out.returncode == 2, out.stderr
    assert "hello from the script" not in out.stdout
    assert "/proc" in out.stderr and "--no-report" in out.stderr
    assert sorted(os.listdir(tmp_path)) == ["s.py"]


# ------------------------------------------------------------------------ GE write folders
from npu_bridge.ge import NpuConfigError, resolve_ge  # noqa: E402


def _weights(wdir=None, env=None):
    opts = {"ge.externalWeight": "1"}
    if wdir is not None:
        opts["ge.externalWeightDir"] = wdir
    return resolve_ge(global_options=opts, env=env or {})


@pytest.mark.parametrize("bad", ["a/../../etc", "../w", "w/..", "/tmp/x/../y", "a\0b", "a\nb"])
def test_external_weight_dir_with_dotdot_or_control_chars_refused(bad):
    with pytest.raises(NpuConfigError) as err:
        _weights(bad)
    diag = [d for d in err.value.diagnostics if d.severity == "error"][0]
    assert diag.option == "ge.externalWeightDir"
    assert diag.code in ("NPB136",) and "ge.externalWeightDir" in diag.message


def test_external_weight_dir_symlink_or_file_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "file").write_text("x")
    for bad, why in ((tmp_path / "link", "symbolic link"), (tmp_path / "file", "not a directory")):
        with pytest.raises(NpuConfigError, match=why):
            _weights(str(bad))
    assert _listing(tmp_path) == [("file", False), ("link", True), ("real", False)]  # untouched


def test_external_weight_dir_safe_forms_accepted(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real", target_is_directory=True)
    for good in (str(tmp_path / "real"), str(tmp_path / "not_yet"), str(tmp_path / "via" / "sub"),
                 "./weights", "weights/"):
        ge = _weights(good)
        assert ge.effective["ge.externalWeightDir"] == good
    assert not (tmp_path / "not_yet").exists()   # nothing is created


def test_ascend_work_path_unsafe_refused_when_used(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    for bad in (str(tmp_path / "link"), str(tmp_path / ".." / "x"), "a\0b"):
        with pytest.raises(NpuConfigError) as err:
            _weights(env={"ASCEND_WORK_PATH": bad})
        assert [d.option for d in err.value.diagnostics if d.severity == "error"] == ["ASCEND_WORK_PATH"]
    # a safe one is used; an unsafe one does not matter when ge.externalWeightDir is given
    ge = _weights(env={"ASCEND_WORK_PATH": str(tmp_path / "real")})
    assert ge.effective["ge.externalWeightDir"].startswith(str(tmp_path / "real") + os.sep)
    ge = _weights(str(tmp_path / "real"), env={"ASCEND_WORK_PATH": str(tmp_path / "link")})
    assert ge.effective["ge.externalWeightDir"] == str(tmp_path / "real")
    # and external weights off: the variable is not used, so not judged
    resolve_ge(global_options={"ge.externalWeight": "0"}, env={"ASCEND_WORK_PATH": "a/../b"})
