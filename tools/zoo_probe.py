#!/usr/bin/env python3
"""Import probe of the public Ascend model zoo (`Ascend/ModelZoo-TensorFlow`) under `npu-bridge run`.

For each model folder whose code imports `npu_bridge`, pick its training entry script, run it
with `--help` under `python -m npu_bridge run --no-report` (timeout, at most `--jobs` at once)
and classify the first error. Writes `results.json`, `results.csv`, `summary.md` (counts and
the per-folder table) and `findings.md` (failures grouped by kind and error) into `--out`.
It is a measurement, not a test: CI has no zoo. Usage and the class rules: docs/real_scripts.md.

Model folder: the shallowest folder at least four levels below the zoo root
(`TensorFlow/contrib/cv/X`) that holds a regular file (not a dotfile), on the path of a `.py`
file importing `npu_bridge`; category folders that hold only subfolders
(`TensorFlow/built-in/cv/image_classification`) are not model folders.

Entry script (first that applies):
1. the first `python... X.py` line, resolving to a file inside the folder, of the folder's
   `test/train_full_1p.sh`, then `test/train_performance_1p.sh`, then the other `test/*.sh`
   and the `*.sh` at the folder's top, `scripts/*.sh` (sorted). The shell script is taken to be
   started from its own folder (`cd test; bash train_full_1p.sh`, as the zoo's READMEs say);
   `VAR=...` assignments (`pwd`, `$(dirname $0)`, other variables), `cd` lines and
   `export PYTHONPATH=...` before that line are followed, so the script runs in the working
   directory and with the `PYTHONPATH` its shell script gives it;
2. else a `.py` file of the folder (shallowest first; then `train.py`, `main.py`,
   `train*.py`/`*train*.py`, `main*.py`, `run*.py`; then files importing `npu_bridge`; then
   the path) that has an `if __name__ == "__main__"` block or calls `app.run(`; it runs in its
   own folder.
"""
import argparse
import ast
import concurrent.futures
import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

NPU_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+npu_bridge\b|from[ \t]+npu_bridge\b)", re.M)
PY_LINE = re.compile(r"(?:^|[\s;&|(`])python[0-9.]*\s+((?:-[A-Za-z]+\s+)*)([^\s;&|<>]+\.py)\b")
ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z_0-9]*)=(.*)$")
CD_LINE = re.compile(r"(?:^|[;&|]\s*|\bthen\s+|\bdo\s+)cd\s+([^\s;&|]+)")
_UNKNOWN = "\x00"

# Class key -> description (the order of the tables).
CLASSES = {
    "ok": "usage printed, exit 0",
    "past_imports": "ran past its imports, stopped later (data, flags' values, arguments)",
    "tf_contrib": "a `tf.contrib` name or module",
    "contrib_no_library": "a `tf.contrib` part no maintained library has (learn, quantize, cloud, "
                          "tfprof): its clear error is the expected end",
    "npu_bridge": "an `npu_bridge` or `hccl` name missing, or an error raised inside npu_bridge",
    "config_refusal": "npu_bridge refused a configuration (NpuConfigError, NpuArgumentError)",
    "tf_api": "a TensorFlow or Keras name TF 2.15 lacks",
    "flags": "absl flags (absl-py 2.x refusals, flags read before parsing)",
    "moxing": "ModelArts' `moxing`",
    "third_party": "a third-party package missing (or a name it no longer has)",
    "layout": "the folder's own layout (its own module missing, relative paths)",
    "timeout": "no exit within the timeout",
    "other": "anything else (Python 2 syntax, crashes, ...)",
    "no_entry": "no entry script found (not run)",
}
PRODUCT_CLASSES = ("tf_contrib", "npu_bridge", "config_refusal", "tf_api", "flags", "moxing")
PAST_IMPORTS = ("ok", "past_imports")


# ----------------------------------------------------------------------------- folders

def _has_file(path, cache):
    if path not in cache:
        try:
            cache[path] = any(not e.startswith(".") and os.path.isfile(os.path.join(path, e))
                              for e in os.listdir(path))
        except OSError:
            cache[path] = False
    return cache[path]


def imports_npu_bridge(path):
    """True when the Python file at `path` has an `import npu_bridge...`/`from npu_bridge...` line."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(1_000_000).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(NPU_IMPORT.search(text))


def npu_files(zoo):
    """Sorted zoo-relative paths of the `.py` files importing npu_bridge (`.git` skipped)."""
    found = []
    for top, dirs, files in os.walk(zoo):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            if name.endswith(".py") and imports_npu_bridge(os.path.join(top, name)):
                found.append(os.path.relpath(os.path.join(top, name), zoo))
    return found


def model_folders(zoo, files=None, min_depth=4):
    """Sorted zoo-relative model folders (see the module docstring) of the npu_bridge files."""
    files = npu_files(zoo) if files is None else files
    cache, folders = {}, set()
    for rel in files:
        parts = rel.split(os.sep)
        for depth in range(min_depth, len(parts)):
            folder = os.path.join(*parts[:depth])
            if _has_file(os.path.join(zoo, folder), cache):
                folders.add(folder)
                break
        else:
            folders.add(os.path.join(*parts[:-1]) if len(parts) > 1 else ".")
    return sorted(folders)


# ----------------------------------------------------------------------------- entry script

def _subst(text, shdir, cwd):
    """Replace `$(...)` and backtick command substitutions this probe understands."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$(", i) and not text.startswith("$((", i):
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            out.append(_command_value(text[i + 2:j - 1], shdir, cwd))
            i = j
        elif text[i] == "`":
            j = text.find("`", i + 1)
            j = len(text) if j < 0 else j
            out.append(_command_value(text[i + 1:j], shdir, cwd))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _command_value(command, shdir, cwd):
    if "dirname" in command and re.search(r"\$\{?0\b|\$\{BASH_SOURCE", command):
        return shdir
    if command.strip() == "pwd":
        return cwd
    return _UNKNOWN


def expand(text, variables, shdir, cwd):
    """Expand a shell word: quotes, `pwd`, `$(dirname $0)`, `$VAR`/`${VAR}`; unknown parts
    become a marker (the caller then ignores the word)."""
    text = text.strip()
    if " #" in text:
        text = text.split(" #", 1)[0].strip()
    text = _subst(text, shdir, cwd)
    text = re.sub(r"\$\{([A-Za-z_][A-Za-z_0-9]*)\}|\$([A-Za-z_][A-Za-z_0-9]*)",
                  lambda m: variables.get(m.group(1) or m.group(2), _UNKNOWN), text)
    return text.replace('"', "").replace("'", "")


def _resolve(word, cwd):
    if _UNKNOWN in word or not word:
        return None
    return os.path.normpath(word if os.path.isabs(word) else os.path.join(cwd, word))


def _inside(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def parse_shell(sh_path, model_dir):
    """Follow the shell script `sh_path` to its first `python X.py` line naming a file inside
    `model_dir`; returns `{"script", "cwd", "pythonpath"}` (absolute paths) or None."""
    shdir = os.path.dirname(os.path.abspath(sh_path))
    cwd, variables, pythonpath = shdir, {"PYTHONPATH": "", "HOME": os.path.expanduser("~")}, []
    try:
        with open(sh_path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        py = PY_LINE.search(line)
        if py and not line.startswith(("echo", "print")):
            script = _resolve(expand(py.group(2), variables, shdir, cwd), cwd)
            if script and os.path.isfile(script) and _inside(script, model_dir):
                return {"script": script, "cwd": cwd, "pythonpath": pythonpath}
            continue
        assign = ASSIGN.match(line)
        if assign:
            name, value = assign.groups()
            value = expand(value, variables, shdir, cwd)
            if name == "PYTHONPATH":
                for part in value.split(":"):
                    path = _resolve(part, cwd)
                    if path and os.path.isdir(path) and path not in pythonpath:
                        pythonpath.append(path)
                variables[name] = ":".join(pythonpath)
            elif _UNKNOWN not in value:
                variables[name] = value
            continue
        for target in CD_LINE.findall(line):
            path = _resolve(expand(target, variables, shdir, cwd), cwd)
            if path and os.path.isdir(path):
                cwd = path
    return None


_NAME_RANK = ((re.compile(r"^train\.py$"), 0), (re.compile(r"^main\.py$"), 1),
              (re.compile(r"^train.*\.py$|^.*_train\.py$"), 2), (re.compile(r"^main.*\.py$"), 3),
              (re.compile(r"^run.*\.py$"), 4))
_MAIN = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]|\bapp\.run\(", re.M)


def _name_rank(name):
    for pattern, rank in _NAME_RANK:
        if pattern.match(name):
            return rank
    return None


def pick_entry(model_dir):
    """The training entry script of `model_dir` (see the module docstring): a dict with
    `script`, `cwd`, `pythonpath` (absolute) and `how` (the shell script, or "fallback"), or None."""
    shells = []
    for name in ("train_full_1p.sh", "train_performance_1p.sh"):
        shells.append(os.path.join(model_dir, "test", name))
    for sub in ("test", "", "scripts"):
        folder = os.path.join(model_dir, sub)
        if os.path.isdir(folder):
            shells.extend(os.path.join(folder, n) for n in sorted(os.listdir(folder))
                          if n.endswith(".sh"))
    seen = set()
    for sh in shells:
        if sh in seen or not os.path.isfile(sh):
            continue
        seen.add(sh)
        entry = parse_shell(sh, model_dir)
        if entry:
            entry["how"] = os.path.relpath(sh, model_dir)
            return entry
    candidates = []
    for top, dirs, files in os.walk(model_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        depth = os.path.relpath(top, model_dir).count(os.sep) + (top != model_dir)
        for name in files:
            rank = _name_rank(name)
            if rank is None:
                continue
            path = os.path.join(top, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(1_000_000)
            except OSError:
                continue
            if _MAIN.search(text):
                candidates.append((depth, rank, not NPU_IMPORT.search(text), path))
    if not candidates:
        return None
    path = min(candidates)[3]
    return {"script": path, "cwd": os.path.dirname(path), "pythonpath": [], "how": "fallback"}


# ----------------------------------------------------------------------------- classify

TB_START = "Traceback (most recent call last):"
FRAME = re.compile(r'^\s*File "(.*)", line (\d+), in (.*)$')


def parse_traceback(output):
    """The last traceback in `output`: `(frames, exception_line)`, frames as
    `(file, line, function, code)`; `([], None)` when there is none."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == TB_START]
    if not starts:
        return [], None
    frames, exc, i = [], None, starts[-1] + 1
    while i < len(lines):
        match = FRAME.match(lines[i])
        if match:
            code = ""
            if i + 1 < len(lines) and lines[i + 1].startswith("    ") and not FRAME.match(lines[i + 1]):
                code = lines[i + 1].strip()
            frames.append((match.group(1), int(match.group(2)), match.group(3), code))
            i += 1
            continue
        line = lines[i]
        if line.startswith(" ") or not line.strip():
            i += 1
            continue
        exc = line.strip()
        break
    return frames, exc


# searched, not matched: the run's own output may not end its line before the dump (Keras'
# progress bar without a tty writes backspaces, no newline)
STACK_START = re.compile(r"(Current thread|Thread) 0x[0-9a-f]+ .*\(most recent call first\):$")
STACK_FRAME = re.compile(r'^\s+File "(.*)", line (\d+) in (.*)$')
# A run still going at the timeout gets this signal first; faulthandler, registered for it in
# the run's process, writes every thread's stack to the run's output; then it is killed.
STACK_SIGNAL = signal.SIGUSR1
STACK_GRACE = 2.0   # seconds between the signal and the kill


def parse_stacks(output):
    """The frames of the stacks faulthandler dumped in `output`, each thread's outermost
    first, as `(file, line, function, "")`; `[]` when there is none."""
    frames, block = [], None
    for line in output.splitlines():
        if STACK_START.search(line):
            if block:
                frames += reversed(block)
            block = []
            continue
        match = STACK_FRAME.match(line) if block is not None else None
        if match:
            block.append((match.group(1), int(match.group(2)), match.group(3), ""))
        elif block is not None and line.strip() and not line.startswith(" "):
            frames += reversed(block)
            block = None
    if block:
        frames += reversed(block)
    return frames


def _split_exc(exc):
    name, _, message = exc.partition(":")
    if " " in name:  # "SyntaxError" lines are "SyntaxError: ..."; a bare message has spaces
        return "", exc
    return name.rsplit(".", 1)[-1], message.strip()


def _module_in_folder(module, model_dir):
    """True when the top-level name of `module` is a .py file or folder inside `model_dir`."""
    top = module.split(".")[0]
    for _, dirs, files in os.walk(model_dir):
        if top in dirs or top + ".py" in files:
            return True
    return False


def _is_installed(module):
    """True when the top-level name of `module` is an installed distribution's (not stdlib)."""
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top.startswith("_"):
        return False
    import importlib.util
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _is_tf(module):
    # keras_applications, keras_preprocessing: TF 1.15's pip package installed them with it
    return module.split(".")[0] in ("tensorflow", "tensorflow_core", "keras", "tf_keras",
                                    "tensorflow_estimator", "keras_applications",
                                    "keras_preprocessing")


def _import_phase(frames, script, source_cache):
    """True when the entry script's outermost frame is at an import statement (or the error
    came before any of its lines ran); False when it had run past them."""
    script = os.path.realpath(script)
    own = [f for f in frames if os.path.realpath(f[0]) == script and f[2] == "<module>"]
    if not own:
        return True
    line = own[0][1]
    if script not in source_cache:
        try:
            with open(script, encoding="utf-8", errors="replace") as handle:
                source_cache[script] = ast.parse(handle.read())
        except (OSError, SyntaxError, ValueError):
            source_cache[script] = None
    tree = source_cache[script]
    if tree is None:
        return True
    for node in tree.body:
        if node.lineno <= line <= getattr(node, "end_lineno", node.lineno):
            return _holds_import(node, line)
    return True


def _holds_import(node, line):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    for child in ast.iter_child_nodes(node):  # an import inside try/if at module level
        if isinstance(child, ast.stmt) and child.lineno <= line <= getattr(child, "end_lineno", child.lineno):
            return _holds_import(child, line)
    return False


CONTRIB_NO_LIBRARY = re.compile(r"(tf|tensorflow)\.contrib\.(learn|quantize|cloud|tfprof)\b")


def classify(returncode, output, timed_out, script, model_dir, project_dirs=(), source_cache=None):
    """Class key (see CLASSES), detail (the name that failed) and the error's line.

    `output` is the run's stdout and stderr together; `project_dirs` the folders of the
    npu_bridge and hccl packages (frames there are the product's)."""
    klass, detail, error = _classify(returncode, output, timed_out, script, model_dir,
                                     project_dirs, source_cache)
    if klass == "tf_contrib" and CONTRIB_NO_LIBRARY.match(detail):
        klass = "contrib_no_library"
    return klass, detail, error


def _classify(returncode, output, timed_out, script, model_dir, project_dirs=(), source_cache=None):
    source_cache = {} if source_cache is None else source_cache
    if timed_out:
        # the stacks dumped when the timeout hit (faulthandler, see STACK_SIGNAL): a script
        # killed while training or reading data was past its imports
        frames = parse_stacks(output)
        own = [f for f in frames if os.path.realpath(f[0]) == os.path.realpath(script)
               and f[2] == "<module>"]
        if own and not _import_phase(frames, script, source_cache):
            return "past_imports", "timeout after its imports", "timeout at %s line %d" % (
                os.path.basename(script), own[0][1])
        return "timeout", "", "timeout"
    frames, exc = parse_traceback(output)
    # argparse/optparse print "usage:", absl "USAGE:" ... "Try --helpfull" (and exits 1).
    usage = re.search(r"^\s*usage:|Try --helpfull", output, re.M | re.I) is not None
    if exc is None:
        if usage and (returncode in (0, 1)):
            return "ok", "", "usage printed"
        if returncode == 0:
            return "past_imports", "", "exit 0, no usage printed"
        summary = re.search(r"npu-bridge run: \d+ configuration\(s\), (\d+) error\(s\)", output)
        if summary and int(summary.group(1)) and not usage:
            return "config_refusal", "", _last_line(output)
        if returncode < 0 or returncode >= 128:
            return "other", "signal %d" % (returncode if returncode < 0 else returncode - 128), _last_line(output)
        return "past_imports", "exit %d" % returncode, _last_line(output)
    kind, message = _split_exc(exc)
    text = exc
    # -- the product's kinds first
    if kind in ("MissingTF1ModuleError", "MissingTF1AttributeError", "MissingTF1APIError"):
        name = message.split(" is not available", 1)[0]
        return ("tf_contrib" if re.match(r"(tf|tensorflow)\.contrib\b", name) else "tf_api"), name, text
    if kind in ("NpuConfigError", "NpuArgumentError"):
        return "config_refusal", kind, text
    if kind == "UnrecognizedFlagError" and "'help'" in message:
        # absl defines --help only in app.run; the script parsed FLAGS itself: the probe's
        # argument, not a failure of the script (TF 1.15 did the same)
        return "past_imports", "UnrecognizedFlagError --help", text
    if re.search(r"enum_values cannot be a str|Trying to access flag --?\S+ before flags were parsed", message) \
            or kind in ("DuplicateFlagError", "UnparsedFlagAccessError", "IllegalFlagValueError",
                        "UnrecognizedFlagError", "FlagNameConflictsWithMethodError", "Error") and "flag" in message.lower():
        name = re.search(r"--?([\w.-]+)", message)
        return "flags", (kind + (" --" + name.group(1) if name else "")), text
    module = None
    match = re.match(r"No module named '([^']+)'", message)
    if kind == "ModuleNotFoundError" and match:
        module = match.group(1)
        return _classify_module(module, model_dir), module, text
    match = re.match(r"cannot import name '([^']+)' from '([^']+)'", message)
    if kind == "ImportError" and match:
        name, module = match.group(2) + "." + match.group(1), match.group(2)
        klass = _classify_module(module, model_dir)
        return klass, name, text
    match = re.match(r"module '([^']+)' has no attribute '([^']+)'", message)
    if kind == "AttributeError" and match:
        module, name = match.groups()
        full = module + "." + name
        if re.match(r"tensorflow(\._api\.v\d+(\.compat\.v\d+)?)?$", module) and name == "contrib":
            return "tf_contrib", "tf.contrib", text
        if "contrib" in module.split("."):
            return "tf_contrib", full, text
        if module.split(".")[0] in ("npu_bridge", "hccl"):
            return "npu_bridge", full, text
        if _is_tf(module):
            return "tf_api", full, text
        if module.split(".")[0] == "moxing":
            return "moxing", full, text
        if not _module_in_folder(module, model_dir) and _is_installed(module):
            return "third_party", full, text   # a name its current release dropped (np.int)
    match = re.match(r"name '([^']+)' is not defined", message)
    if kind == "NameError" and match and re.match(r"(npu|NPU|hccl|Npu)", match.group(1)):
        return "npu_bridge", match.group(1), text
    product = [f for f in frames if any(_inside(os.path.realpath(f[0]), d) for d in project_dirs)
               and f[2] not in ("__import__", "_import_hook")]
    # A missing data file raised by the product's own readers (the MNIST reader) is data.
    if frames and product and product[-1] is frames[-1] and kind not in (
            "SystemExit", "KeyboardInterrupt", "FileNotFoundError", "NotADirectoryError"):
        return "npu_bridge", "%s in %s:%d" % (kind, os.path.basename(frames[-1][0]), frames[-1][1]), text
    # -- the folder's own
    if kind in ("SyntaxError", "TabError", "IndentationError"):
        return "other", kind, text
    at_import = _import_phase(frames, script, source_cache)
    if kind in ("FileNotFoundError", "NotADirectoryError") or "No such file or directory" in message:
        return ("layout" if at_import else "past_imports"), kind, text
    if not at_import:
        return "past_imports", kind, text
    return "other", kind, text


def _classify_module(module, model_dir):
    top = module.split(".")[0]
    if re.match(r"tensorflow\.contrib\b", module):
        return "tf_contrib"
    if top in ("npu_bridge", "hccl"):
        return "npu_bridge"
    if top == "moxing":
        return "moxing"
    if _is_tf(module):
        return "tf_api"
    if _module_in_folder(module, model_dir):
        return "layout"
    return "third_party"


def _last_line(output):
    lines = [line for line in output.splitlines() if line.strip()
             and not line.startswith(("npu-bridge run:", "environment set:", "exit code:"))]
    return lines[-1].strip()[:300] if lines else ""


# ----------------------------------------------------------------------------- run

def _child_env(entry, project, home):
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": os.pathsep.join([project] + entry["pythonpath"]),
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
        "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", "HOME": home,
        "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
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
