"""Files and the run: `lint_source`, `lint_file`, `lint_paths` (file discovery, the size
limit, `# noqa` comments and the process pool)."""
import ast
import concurrent.futures
import gc
import multiprocessing
import os
import re
import stat
import sys

from npu_bridge.ge import plugin_args as _plugin_args
from npu_bridge.tools.lint import registry as _registry
from npu_bridge.tools.lint.checks import Finding, _catalog, found as _found

# Files above this size are reported (NBL002) instead of parsed: bounded time per file.
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


# flake8's inline suppression: `# noqa` (every code on the line) or `# noqa: CODE,CODE`.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9]+(?:[,\s]+[A-Za-z0-9]+)*))?", re.I)



class Selection:
    """Which findings are kept, as flake8 and ruff choose them: `select` and `ignore` hold codes
    or code prefixes (`NPB1`, `NBL`); a code is kept when it matches `select` (empty: every
    code) and no longer `ignore` prefix than the `select` one it matches. Infos are kept only
    with `infos=True` (the command line keeps them; the API leaves them out by default)."""

    def __init__(self, select=(), ignore=(), infos=False):
        self.select = tuple(sorted({c.upper() for c in select}))
        self.ignore = tuple(sorted({c.upper() for c in ignore}))
        self.infos = bool(infos)
        self._memo = {}

    def __getstate__(self):   # (sent to pool workers: the memo stays behind)
        return {"select": self.select, "ignore": self.ignore, "infos": self.infos, "_memo": {}}

    def keeps(self, code, severity):
        if severity == "info" and not self.infos:
            return False
        found = self._memo.get(code)
        if found is None:
            chosen = max((len(s) for s in self.select if code.startswith(s)), default=-1) \
                if self.select else 0
            ignored = max((len(i) for i in self.ignore if code.startswith(i)), default=-1)
            found = self._memo[code] = chosen >= 0 and ignored < max(chosen, 1)
        return found


def _selection(ignore, select=(), infos=False):
    return ignore if isinstance(ignore, Selection) else Selection(select, ignore, infos)


def _suppressed(findings, source, chosen):
    if not findings:
        return findings
    findings = [f for f in findings if chosen.keeps(f.code, f.severity)]
    if not findings:
        return findings
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    lines = source.splitlines()
    out = []
    for f in findings:
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        m = _NOQA.search(text) if "noqa" in text.lower() else None
        if m and (not m.group("codes") or f.code.upper() in
                  {c.upper() for c in re.split(r"[,\s]+", m.group("codes")) if c}):
            continue
        out.append(f)
    return out


def lint_source(source, path="<string>", product=None, env=None, ignore=(), select=(),
                infos=False, targets=None):
    """Findings of one file's source (str or bytes), sorted by position. Kept: the codes
    `Selection(select, ignore, infos)` keeps (`ignore` may also be a `Selection`), except on
    a line whose `# noqa` comment names them (or names none). `targets` (a set): gets
    `(path, product id or None, where, name)` of every configuration resolved (where: the
    place the product came from, `products.target_source`).

    Never raises for bad input: a syntax error is finding NBL001.
    """
    chosen = _selection(ignore, select, infos)
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError) as err:
        line = getattr(err, "lineno", None) or 1
        col = getattr(err, "offset", None) or 1
        msg = getattr(err, "msg", None) or str(err)
        return [f for f in [Finding(path, *_found(line, max(col, 1), "NBL001",
                                                  problem="does not parse: %s" % msg))]
                if chosen.keeps(f.code, f.severity)]
    parsed = _registry.Parsed(path, tree, source, product, {} if env is None else env, targets)
    findings = []
    try:
        for producer in _registry.PRODUCERS:
            findings.extend(Finding(path, *f) for f in producer(parsed))
    except RecursionError:
        return [f for f in [Finding(path, *_found(1, 1, "NBL001",
                                                  problem="nests too deeply to check"))]
                if chosen.keeps(f.code, f.severity)]
    return sorted(_suppressed(findings, source, chosen))


def lint_file(path, product=None, env=None, max_bytes=DEFAULT_MAX_BYTES, ignore=(), select=(),
              infos=False, targets=None):
    """Findings of one file (selected as `lint_source` selects them); unreadable (NBL003)
    and oversized (NBL002) files are findings. `targets`: see `lint_source`."""
    chosen = _selection(ignore, select, infos)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            found = [Finding(path, *_found(1, 1, "NBL003", error="not a regular file"))]
        elif info.st_size > max_bytes:
            found = [Finding(path, *_found(1, 1, "NBL002", size=info.st_size, limit=max_bytes))]
        else:
            with open(path, "rb") as fh:
                source = fh.read(max_bytes + 1)
            return lint_source(source, path, product, env, chosen, targets=targets)
    except OSError as err:
        found = [Finding(path, *_found(1, 1, "NBL003", error=err.strerror or err))]
    return [f for f in found if chosen.keeps(f.code, f.severity)]


def lint_stdin(stream, path="stdin", product=None, env=None, max_bytes=DEFAULT_MAX_BYTES,
               ignore=(), select=(), infos=False, targets=None):
    """Findings of the script read from `stream` (`npu-bridge lint -`, as flake8 reads
    stdin), named `path`; as `lint_file` for a file: above `max_bytes` NBL002, unreadable
    NBL003."""
    chosen = _selection(ignore, select, infos)
    try:
        source = getattr(stream, "buffer", stream).read()
    except (OSError, ValueError) as err:
        found = [Finding(path, *_found(1, 1, "NBL003", error=getattr(err, "strerror", None)
                                       or err))]
    else:
        if len(source) <= max_bytes:
            return lint_source(source, path, product, env, chosen, targets=targets)
        found = [Finding(path, *_found(1, 1, "NBL002", size=len(source), limit=max_bytes))]
    return [f for f in found if chosen.keeps(f.code, f.severity)]


def iter_python_files(paths):
    """Files to check: each file given, and every `*.py` under each folder (hidden folders
    and `__pycache__` skipped, symlinked folders not followed), in sorted order."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(root, name)
        else:
            yield path


def _lint_many(args):
    """`(findings, targets)` of a batch of files (`targets`: see `lint_source`)."""
    paths, product, env, max_bytes, chosen = args
    targets = set()
    # Each file's syntax tree is thousands of GC-tracked nodes freed by reference counting;
    # the cyclic collector only re-scans them (a third of the time). Off while linting a
    # batch, back on (collecting whatever cycles there are) after it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ([f for p in paths for f in lint_file(p, product, env, max_bytes, chosen,
                                                     targets=targets)], targets)
    finally:
        if enabled:
            gc.enable()


def lint_paths(paths, product=None, env=None, max_bytes=DEFAULT_MAX_BYTES, jobs=None, ignore=(),
               select=(), infos=False, progress=None, targets=None):
    """Findings of every file under `paths`, sorted (selected as `lint_source` selects
    them); `(findings, number_of_files)`. `progress(done, total)`, when given, is called
    after each batch of files. `targets` (a set): see `lint_source`.

    Uses a process pool of `jobs` workers (default: the CPU count) when there are many files.
    """
    chosen = _selection(ignore, select, infos)
    files = list(iter_python_files(paths))
    jobs = jobs or os.cpu_count() or 1
    targets = set() if targets is None else targets
    if jobs <= 1 or len(files) < 64:
        findings = []
        step = len(files) if progress is None else 32
        for i in range(0, len(files), step or 1):
            part, used = _lint_many((files[i:i + step], product, env, max_bytes, chosen))
            findings.extend(part)
            targets.update(used)
            if progress is not None:
                progress(min(i + 32, len(files)), len(files))
        return sorted(findings), len(files)
    # Batches of up to 128 files (fewer round trips), at least 4 per worker (balance).
    chunk = max(8, min(128, len(files) // (jobs * 4) or 1))
    batches = [(files[i:i + chunk], product, env, max_bytes, chosen)
               for i in range(0, len(files), chunk)]
    findings = []
    # Workers are forked on Linux, after the catalog and the resolver
    # are loaded here, so no worker loads them again (nor anything else: TensorFlow never).
    _catalog()
    _plugin_args.spec()
    from npu_bridge.ge import resolve  # noqa: F401  (loaded before the fork)
    context = None
    if sys.platform.startswith("linux"):   # (macOS: fork is unsafe there, spawn stays)
        context = multiprocessing.get_context("fork")
    done = 0
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for batch, (part, used) in zip(batches, pool.map(_lint_many, batches)):
            findings.extend(part)
            targets.update(used)
            done += len(batch[0])
            if progress is not None:
                progress(done, len(files))
    return sorted(findings), len(files)
