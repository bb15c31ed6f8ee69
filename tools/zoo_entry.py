"""Model folders and entry scripts of the Ascend model zoo, for tools/zoo_probe.py
(docs/real_scripts.md).

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
import os
import re

NPU_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+npu_bridge\b|from[ \t]+npu_bridge\b)", re.M)
PY_LINE = re.compile(r"(?:^|[\s;&|(`])python[0-9.]*\s+((?:-[A-Za-z]+\s+)*)([^\s;&|<>]+\.py)\b")
ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z_0-9]*)=(.*)$")
CD_LINE = re.compile(r"(?:^|[;&|]\s*|\bthen\s+|\bdo\s+)cd\s+([^\s;&|]+)")
_UNKNOWN = "\x00"


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
