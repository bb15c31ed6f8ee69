#!/usr/bin/env python3
"""Import probe of the public Ascend model zoo (`Ascend/ModelZoo-TensorFlow`) under `npu-bridge run`.

For each model folder whose code imports `npu_bridge`, pick its training entry script, run it
with `--help` under `python -m npu_bridge run --no-report` (timeout, at most `--jobs` at once)
and classify the first error. Writes `results.json`, `results.csv`, `summary.md` (counts and
the per-folder table) and `findings.md` (failures grouped by kind and error) into `--out`.
It is a measurement, not a test: CI has no zoo. Usage and the class rules: docs/real_scripts.md.

The model folders and the entry script: tools/zoo_entry.py; the classes and the classifier:
tools/zoo_classify.py.
"""
import argparse
import ast
import concurrent.futures
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# the sibling modules, also when this file is imported by its path (tests)
_TOOLS = os.path.dirname(os.path.abspath(__file__))
if _TOOLS not in sys.path:
    sys.path.append(_TOOLS)
from zoo_classify import (CLASSES, PAST_IMPORTS, classify, parse_stacks,  # noqa: E402
                          parse_traceback)
from zoo_entry import _inside, model_folders, npu_files, pick_entry  # noqa: E402

# A run still going at the timeout gets this signal first; faulthandler, registered for it in
# the run's process, writes every thread's stack to the run's output; then it is killed.
STACK_SIGNAL = signal.SIGUSR1
STACK_GRACE = 2.0   # seconds between the signal and the kill


# ----------------------------------------------------------------------------- run

def _child_env(entry, project, home):
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": os.pathsep.join([project] + entry["pythonpath"]),
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
        "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", "HOME": home,
        "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
        # a script's own `pip install` (HybridSN) reaches no package index: the probe changes
        # no interpreter (pip on PATH is not the probe's venv)
        "PIP_NO_INDEX": "1",
    })
    return env


def run_entry(entry, python, project, timeout, home):
    """Run the entry script with `--help` under `python -m npu_bridge run --no-report` in a
    new process; returns `(returncode, output, timed_out, seconds)`."""
    cmd = [python, "-c", _RUN_WRAPPER, "run", "--no-report", entry["script"], "--help"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=entry["cwd"], env=_child_env(entry, project, home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    _active.add(proc.pid)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _dump_stacks(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    finally:
        _kill_group(proc.pid)
        _active.discard(proc.pid)
    return proc.returncode, out.decode("utf-8", "replace"), timed_out, time.monotonic() - start


# `python -m npu_bridge ARGS`, with faulthandler registered for STACK_SIGNAL first
_RUN_WRAPPER = ("import faulthandler, os, runpy, signal, sys; "
                "faulthandler.register(signal.SIGUSR1, all_threads=True); "
                "sys.path[0] = os.getcwd(); sys.argv[0] = '-m'; "
                "runpy.run_module('npu_bridge', run_name='__main__', alter_sys=True)")


def _dump_stacks(pid):
    """Ask the run `pid` (its process, not its group) for its stacks, give it STACK_GRACE."""
    try:
        os.kill(pid, STACK_SIGNAL)
    except ProcessLookupError:
        return
    time.sleep(STACK_GRACE)


_active = set()   # process groups of the runs under way (killed when the probe is stopped)


def _on_term(signum, frame):
    for pid in list(_active):
        _kill_group(pid)
    for server in list(_servers):
        server.proc.terminate()   # its own handler kills the run under way
    os._exit(128 + signum)


def _kill_group(pid):
    try:  # what the script left running in its group
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class PreloadServer:
    """`--preload`: one long-lived `python zoo_probe.py --serve` per worker has imported
    TensorFlow once (as `npu-bridge run` does before a script's first line anyway) and forks
    a child per script, which then runs `npu_bridge.tools.cli.main(["run", ...])` as
    `python -m npu_bridge` would: same arguments, working directory, environment and
    `sys.path`. Saves TensorFlow's import (about 4 CPU seconds) per script."""

    def __init__(self, python, project, home):
        env = _child_env({"pythonpath": []}, project, home)
        env.pop("PYTHONPATH")  # the server imports only TensorFlow; each child sets its own
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)

    def run(self, entry, project, timeout, home):
        start = time.monotonic()
        with tempfile.NamedTemporaryFile(prefix="zoo_probe_", suffix=".log", delete=False) as out:
            log = out.name
        request = {"script": entry["script"], "cwd": entry["cwd"], "timeout": timeout,
                   "env": _child_env(entry, project, home), "log": log,
                   "argv": ["-m", "npu_bridge", "run", "--no-report", entry["script"], "--help"]}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        with open(log, "rb") as handle:
            output = handle.read().decode("utf-8", "replace")
        os.unlink(log)
        return reply["returncode"], output, reply["timed_out"], time.monotonic() - start

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def serve():
    """The `--serve` loop (see PreloadServer): one JSON request a line on stdin, one reply."""
    signal.signal(signal.SIGTERM, _on_term)
    import tensorflow  # noqa: F401  (the point of the server)
    base_path = list(sys.path[1:])  # without the tool's own folder
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _serve_child(request, base_path)  # never returns
        _active.add(pid)
        deadline = time.monotonic() + request["timeout"]
        timed_out, status = False, None
        while status is None:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
            elif time.monotonic() > deadline:
                timed_out = True
                _dump_stacks(pid)
                _kill_group(pid)
                _, status = os.waitpid(pid, 0)
            else:
                time.sleep(0.05)
        _kill_group(pid)
        _active.discard(pid)
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.write(json.dumps({"returncode": code, "timed_out": timed_out}) + "\n")
        sys.stdout.flush()


def _serve_child(request, base_path):
    code = 1
    try:
        os.setsid()
        fd = os.open(request["log"], os.O_WRONLY | os.O_TRUNC)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        import faulthandler
        faulthandler.register(STACK_SIGNAL, file=sys.__stderr__, all_threads=True)
        sys.stdin = open(0, closefd=False)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        # `python -m` puts the working directory first, then PYTHONPATH, then the site paths.
        extra = [p for p in request["env"]["PYTHONPATH"].split(os.pathsep) if p]
        sys.path[:] = [os.getcwd()] + extra + [p for p in base_path if p not in extra]
        sys.argv = [os.path.join(extra[0], "npu_bridge", "__main__.py")] + request["argv"][2:]
        from npu_bridge.tools.cli import main as cli_main
        try:
            code = cli_main(sys.argv[1:])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        import atexit
        atexit._run_exitfuncs()
    except BaseException:  # the child must never return into the server loop
        import traceback
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


ROW_FIELDS = ["folder", "script", "how", "cwd", "class", "detail", "error", "failing_line",
              "returncode", "seconds", "timed_out"]


_local = threading.local()   # each worker thread's PreloadServer
_servers = []


def probe_folder(zoo, folder, args, home):
    model_dir = os.path.join(zoo, folder)
    entry = pick_entry(model_dir)
    row = dict.fromkeys(ROW_FIELDS, "")
    row.update({"folder": folder, "class": "no_entry", "returncode": None, "seconds": 0.0, "timed_out": False})
    if entry is None:
        return row, ""
    row.update(script=os.path.relpath(entry["script"], model_dir), how=entry["how"],
               cwd=os.path.relpath(entry["cwd"], model_dir))
    if not args.no_folder_path:  # after the shell script's own entries (see --no-folder-path)
        entry["pythonpath"] = entry["pythonpath"] + [
            p for p in (entry["cwd"], model_dir) if p not in entry["pythonpath"]]
    server = getattr(_local, "server", None)
    if args.preload and server is None:
        server = _local.server = PreloadServer(args.python, args.project, home)
        _servers.append(server)
    if server is not None:
        returncode, output, timed_out, seconds = server.run(entry, args.project, args.timeout, home)
    else:
        returncode, output, timed_out, seconds = run_entry(entry, args.python, args.project,
                                                           args.timeout, home)
    project_dirs = [os.path.join(args.project, "npu_bridge"), os.path.join(args.project, "hccl")]
    klass, detail, error = classify(returncode, output, timed_out, entry["script"], model_dir,
                                    project_dirs)
    frames, _ = parse_traceback(output)
    if timed_out:
        frames = parse_stacks(output)
    zoo_frames = [f for f in frames if _inside(os.path.realpath(f[0]), os.path.realpath(zoo))]
    if zoo_frames:
        file, line, _, code = zoo_frames[-1]
        row["failing_line"] = "%s:%d: %s" % (os.path.relpath(file, model_dir), line, code)
    row.update({"class": klass, "detail": detail, "error": error[:400], "returncode": returncode,
                "seconds": round(seconds, 1), "timed_out": timed_out})
    return row, output


# ----------------------------------------------------------------------------- output

def _git_head(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def counts(rows):
    result = {key: 0 for key in CLASSES}
    for row in rows:
        result[row["class"]] += 1
    return result


def summary_markdown(rows, meta):
    total = counts(rows)
    ran = sum(v for k, v in total.items() if k != "no_entry")
    past = sum(total[k] for k in PAST_IMPORTS)
    lines = ["# zoo probe: %d model folders, %d with an entry script%s" % (
                 len(rows), ran, " (partial: %d of %d done)" % (meta["done"], meta["folders"])
                 if meta.get("partial") else ""), "",
             "project %s (commit %s), zoo commit %s, %s, timeout %ss" % (
                 meta["project"], meta["project_commit"], meta["zoo_commit"], meta["date"],
                 meta["timeout"]), "", "`%s`" % meta["command"], "",
             "| class | folders | meaning |", "| --- | ---: | --- |"]
    for key, text in CLASSES.items():
        lines.append("| %s | %d | %s |" % (key, total[key], text))
    lines += ["", "past imports (ok + past_imports): %d of %d run (%.1f%%)" % (
        past, ran, 100.0 * past / ran if ran else 0.0), "",
        "| folder | script | class | detail | error |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append("| %s | %s | %s | %s | %s |" % (
            row["folder"], row["script"], row["class"], row["detail"],
            row["error"].replace("|", "\\|")[:200]))
    return "\n".join(lines) + "\n"


def findings_markdown(rows, examples=3):
    """The failures grouped by class, then by the name that failed: count, example folders,
    the error line and the zoo line that failed."""
    lines = []
    for key in CLASSES:
        if key in PAST_IMPORTS or key == "no_entry":
            continue
        group = [r for r in rows if r["class"] == key]
        if not group:
            continue
        lines += ["", "## %s: %d folders (%s)" % (key, len(group), CLASSES[key]), ""]
        by_detail = {}
        for row in group:
            by_detail.setdefault(row["detail"], []).append(row)
        for detail, members in sorted(by_detail.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            first = members[0]
            lines.append("- `%s`: %d folder(s), e.g. %s" % (
                detail or "-", len(members), ", ".join("`%s`" % m["folder"] for m in members[:examples])))
            lines.append("  - error: `%s`" % first["error"][:300])
            if first["failing_line"]:
                lines.append("  - at: `%s`" % first["failing_line"][:300])
    return "\n".join(lines).lstrip("\n") + "\n"


def _read_folders(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith(".json"):
        return [row["folder"] for row in json.loads(text)["rows"]]
    return [line.strip() for line in text.splitlines() if line.strip()]


def write_outputs(out, rows, meta, partial=False):
    """results.json, results.csv, summary.md and findings.md in `out` (replaced atomically)."""
    meta = dict(meta, partial=partial, done=len(rows))
    texts = {
        "results.json": json.dumps({"meta": meta, "counts": counts(rows), "rows": rows}, indent=1),
        "summary.md": summary_markdown(rows, meta),
        "findings.md": findings_markdown(rows),
    }
    with tempfile.TemporaryFile("w+", newline="") as buffer:
        writer = csv.DictWriter(buffer, fieldnames=ROW_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
        buffer.seek(0)
        texts["results.csv"] = buffer.read()
    for name, text in texts.items():
        tmp = os.path.join(out, "." + name + ".tmp")
        with open(tmp, "w", newline="") as handle:
            handle.write(text)
        os.replace(tmp, os.path.join(out, name))


def run_lint(zoo, files, python, project, jobs, out):
    """`npu-bridge lint --format json` over the zoo files importing npu_bridge; writes
    lint.json and lint.md (counts by code, and by option for the errors and the warnings
    about older adapters' spellings) into `out`; returns the parsed JSON."""
    env = dict(os.environ, PYTHONPATH=project, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([python, "-m", "npu_bridge", "lint", "--format", "json",
                           "--jobs", str(jobs)] + files, cwd=zoo, env=env,
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode not in (0, 1):
        raise SystemExit("npu-bridge lint failed (exit %d): %s" % (proc.returncode, proc.stderr[-2000:]))
    data = json.loads(proc.stdout)
    with open(os.path.join(out, "lint.json"), "w") as handle:
        json.dump(data, handle, indent=1)
    with open(os.path.join(out, "lint.md"), "w") as handle:
        handle.write(lint_markdown(data, _git_head(project)))
    return data


def lint_markdown(data, commit="?"):
    findings = data["findings"]
    by_code, by_option = {}, {}
    for f in findings:
        key = (f["code"], f["severity"])
        by_code[key] = by_code.get(key, 0) + 1
        option = (f["code"], f["severity"], f.get("option") or "")
        by_option.setdefault(option, []).append(f)
    lines = ["# npu-bridge lint over %d zoo files importing npu_bridge (commit %s): %d findings" % (
        data["files"], commit, len(findings)), "", "| code | severity | findings |",
        "| --- | --- | ---: |"]
    lines += ["| %s | %s | %d |" % (k[0], k[1], v) for k, v in sorted(by_code.items())]
    lines += ["", "| code | severity | option | findings | example |", "| --- | --- | --- | ---: | --- |"]
    for (code, severity, option), members in sorted(by_option.items(), key=lambda kv: (kv[0][1], kv[0][0], -len(kv[1]), kv[0][2])):
        first = members[0]
        lines.append("| %s | %s | %s | %d | `%s:%d` %s |" % (
            code, severity, option or "-", len(members), first["path"], first["line"],
            first["message"].replace("|", "\\|")[:160]))
    return "\n".join(lines) + "\n"


def setup_requires(project):
    """The `install_requires` pins of `project`/setup.py (read with ast, nothing run)."""
    with open(os.path.join(project, "setup.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "install_requires":
            return [ast.literal_eval(element) for element in node.value.elts]
    return []


def compare_markdown(paths):
    """A counts table with one column per results.json (its commit and date in the header)."""
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            runs.append(json.load(handle))
    head = ["%s (%s, %s, %d folders)" % (os.path.basename(os.path.dirname(os.path.abspath(p))),
                                         r["meta"]["project_commit"], r["meta"]["date"], len(r["rows"]))
            for p, r in zip(paths, runs)]
    lines = ["| class | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(runs)]
    for key in CLASSES:
        lines.append("| %s | %s |" % (key, " | ".join(str(counts(r["rows"])[key]) for r in runs)))
    cells = []
    for r in runs:
        total = counts(r["rows"])
        ran = len(r["rows"]) - total["no_entry"]
        past = sum(total[k] for k in PAST_IMPORTS)
        cells.append("%d of %d (%.1f%%)" % (past, ran, 100.0 * past / ran if ran else 0.0))
    lines.append("| **past imports** (ok + past_imports, of those run) | %s |" % " | ".join(cells))
    return "\n".join(lines) + "\n"


def _log_name(folder):
    return folder.replace(os.sep, "__").replace(" ", "_") + ".log"


def reclassify(zoo, out, project):
    """Classify the runs of `out` (an earlier `--keep-output` run) again from their logs."""
    with open(os.path.join(out, "results.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    project = data["meta"].get("project", project)   # the checkout that run used
    project_dirs = [os.path.join(project, "npu_bridge"), os.path.join(project, "hccl")]
    for row in data["rows"]:
        log = os.path.join(out, "logs", _log_name(row["folder"]))
        if row["class"] == "no_entry" or not os.path.exists(log):
            continue
        with open(log, encoding="utf-8") as handle:
            output = handle.read()
        model_dir = os.path.join(zoo, row["folder"])
        timed_out = row.get("timed_out", row["class"] == "timeout")
        klass, detail, error = classify(row["returncode"], output, timed_out,
                                        os.path.join(model_dir, row["script"]), model_dir, project_dirs)
        row.update({"class": klass, "detail": detail, "error": error[:400]})
    write_outputs(out, data["rows"], dict(data["meta"], reclassified=True))
    print(" ".join("%s=%d" % kv for kv in counts(data["rows"]).items()))


def main(argv=None):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(
        description="Run each Ascend model zoo folder's training entry script with --help under "
                    "`npu-bridge run` and classify the first error (docs/real_scripts.md).")
    parser.add_argument("zoo", help="work tree of Ascend/ModelZoo-TensorFlow")
    parser.add_argument("--out", default="zoo_probe_out", help="output folder (default: %(default)s)")
    parser.add_argument("--python", default=sys.executable,
                        help="Python that runs the scripts: TF 2.15.1 and the probe's packages "
                             "(default: this one)")
    parser.add_argument("--project", default=here,
                        help="npu_bridge checkout put first on PYTHONPATH (default: the repository "
                             "this tool lives in, %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at once (default: 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per script (default: 60)")
    parser.add_argument("--limit", type=int, help="only the first N folders (sorted)")
    parser.add_argument("--sample", type=int,
                        help="only N folders drawn at random among those with an entry script "
                             "(see --seed)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default: 0)")
    parser.add_argument("--match", help="only folders whose path contains this text")
    parser.add_argument("--folders-from", metavar="FILE",
                        help="only the folders listed in FILE (one zoo-relative path a line, or a "
                             "results.json of an earlier run: its rows)")
    parser.add_argument("--keep-output", action="store_true",
                        help="also write each run's output to OUT/logs/")
    parser.add_argument("--no-folder-path", action="store_true",
                        help="do not append the working directory and the model folder to "
                             "PYTHONPATH (by default they are: the zoo's code assumes its folder "
                             "importable, as its READMEs and ModelArts set it)")
    parser.add_argument("--preload", action="store_true",
                        help="fork each run from a per-worker process that imported TensorFlow "
                             "once (faster on a loaded machine; see PreloadServer)")
    if argv is None and sys.argv[1:] == ["--serve"]:
        serve()
        return 0
    rest = argv if argv is not None else sys.argv[1:]
    if rest[:1] == ["--compare"]:
        print(compare_markdown(rest[1:]), end="")
        return 0
    if rest == ["--print-requires"]:
        print("\n".join(setup_requires(here)))   # for `make probe`'s pip install
        return 0
    parser.add_argument("--print-requires", action="store_true",
                        help="print setup.py's install_requires, one a line, and exit "
                             "(alone, without ZOO)")
    parser.add_argument("--compare", nargs="+", metavar="RESULTS_JSON",
                        help="print a counts table of earlier runs' results.json side by side and "
                             "exit (alone, without ZOO)")
    parser.add_argument("--reclassify", metavar="OUT_DIR",
                        help="classify an earlier --keep-output run again from OUT_DIR/logs "
                             "(nothing run; the outputs there rewritten)")
    parser.add_argument("--lint", action="store_true",
                        help="instead of running scripts: `npu-bridge lint` over the zoo files that "
                             "import npu_bridge (OUT/lint.json, OUT/lint.md)")
    args = parser.parse_args(argv)
    zoo, args.project = os.path.abspath(args.zoo), os.path.abspath(args.project)
    if not os.path.isdir(zoo):
        parser.error("zoo %s is not a folder" % zoo)
    if not os.path.isdir(os.path.join(args.project, "npu_bridge")):
        parser.error("--project %s holds no npu_bridge package" % args.project)
    files = npu_files(zoo)
    if args.lint:
        os.makedirs(args.out, exist_ok=True)
        data = run_lint(zoo, files, args.python, args.project, args.jobs, args.out)
        print("lint: %d files, %d findings; written to %s" % (data["files"], len(data["findings"]), args.out))
        return 0
    if args.reclassify:
        reclassify(zoo, args.reclassify, args.project)
        return 0
    folders = model_folders(zoo, files)
    if args.match:
        folders = [f for f in folders if args.match in f]
    if args.folders_from:
        folders = sorted(set(folders) & set(_read_folders(args.folders_from)))
    if args.sample:  # drawn among the folders that have an entry script
        runnable = [f for f in folders if pick_entry(os.path.join(zoo, f))]
        folders = sorted(random.Random(args.seed).sample(runnable, min(args.sample, len(runnable))))
    if args.limit:
        folders = folders[:args.limit]
    os.makedirs(args.out, exist_ok=True)
    if args.keep_output:
        os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    home = tempfile.mkdtemp(prefix="zoo_probe_home_")
    signal.signal(signal.SIGTERM, _on_term)
    meta = {"project": args.project, "project_commit": _git_head(args.project),
            "zoo_commit": _git_head(zoo), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "timeout": args.timeout, "python": args.python, "folders": len(folders),
            "command": " ".join(["python", "tools/zoo_probe.py"] + (argv if argv is not None else sys.argv[1:]))}
    # Run in a seeded shuffled order, so the partial results written as it goes are a fair
    # sample; the tables are sorted by folder.
    order = list(folders)
    random.Random(args.seed).shuffle(order)
    rows = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(probe_folder, zoo, f, args, home): f for f in order}
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                row, output = future.result()
                rows[row["folder"]] = row
                if done % 20 == 0 and done < len(folders):
                    write_outputs(args.out, [rows[f] for f in folders if f in rows], meta, partial=True)
                print("[%d/%d] %-12s %s  %s" % (done, len(folders), row["class"], row["folder"],
                                                 row["error"][:120]), flush=True)
                if args.keep_output and (output or row.get("timed_out")):
                    with open(os.path.join(args.out, "logs", _log_name(row["folder"])), "w") as handle:
                        handle.write(output)
    finally:
        for server in _servers:
            server.close()
        shutil.rmtree(home, ignore_errors=True)
    rows = [rows[f] for f in folders]
    write_outputs(args.out, rows, meta)
    total = counts(rows)
    ran = len(rows) - total["no_entry"]
    past = sum(total[k] for k in PAST_IMPORTS)
    print(" ".join("%s=%d" % kv for kv in total.items()))
    print("past imports: %d of %d run (%.1f%%); written to %s" % (
        past, ran, 100.0 * past / ran if ran else 0.0, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
