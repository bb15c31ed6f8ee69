"""The JSON report of `npu-bridge run` (schema: docs/report_schema.md) and its atomic writer.

No TensorFlow import. Configurations come from `npu_bridge.ge.records.records()`: each holds a
`npu_bridge.ge.GeOptions`, read through its documented attributes (docs/INTERFACES.md).
"""
import collections
import datetime
import json
import os
import re
import stat
import tempfile

from npu_bridge.ge import diagnostics as _diagnostics
from npu_bridge.ge import memory_report as _memory_report
from npu_bridge.ge import precision as _precision
from npu_bridge.ge import records as _records
from npu_bridge.ge import partition_report as _partition_report

SCHEMA = "npu-bridge-report"
SCHEMA_VERSION = 1       # the options/lint JSON
RUN_SCHEMA_VERSION = 2   # the run report: 2 adds each configuration's `memory` (the GE memory plan)
LEVELS = ("global", "session", "graph", "adapter")
_LEVEL_ATTRS = {"global": "global_options", "session": "session_options",
                "graph": "graph_options", "adapter": "adapter_options"}


class ReportPathError(ValueError):
    """The report destination cannot be used (a symlink, a folder, a device, FIFO, socket or
    other node that is not a regular file, a missing parent, a folder refusing new files)."""


def _tool_version():
    try:
        from importlib.metadata import version
        return version("npu_bridge")
    except Exception:  # not installed (a source checkout on sys.path)
        return "unknown"


def diagnostic_dict(diag):
    """A `Diagnostic` as a dict, keys in the schema's order: `message` the full text (the
    provenance included), then what the `text` outputs print of it: `short` (one line),
    `fix` (null when none), `provenance` (`--show-source`) and `more` (where the rest of a
    shortened line is: the explain pointer; null when none)."""
    value = getattr(diag, "value", None)
    if value is not None and not isinstance(value, (str, int, float, bool)):
        value = str(value)
    message = diag.message
    return {"code": diag.code, "severity": diag.severity, "option": diag.option,
            "value": value, "message": str(message), "short": _diagnostics.short_of(message),
            "fix": _diagnostics.fix_of(message) or None,
            "provenance": _diagnostics.provenance_of(message) or None,
            "more": _diagnostics.more_of(message) or None}


def _sorted_str_dict(mapping):
    return {str(k): _jsonable(mapping[k]) for k in sorted(mapping or {}, key=str)}


def _jsonable(value):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        return _sorted_str_dict(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


def configuration_dict(ge_options, index=None, kind=None, name=None, refused=None):
    """One resolved configuration (a `GeOptions`) as the schema's `configuration` object.
    `refused` (run reports only): the resolver refused it (`NpuConfigError` raised)."""
    out = {}
    if index is not None:
        out["index"] = index
    if kind is not None:
        out["kind"] = kind
    if name is not None:
        out["name"] = name
    if refused is not None:
        out["refused"] = bool(refused)
    out["product"] = getattr(ge_options, "product", None)
    out["options"] = {level: _sorted_str_dict(getattr(ge_options, attr, None) or {})
                      for level, attr in _LEVEL_ATTRS.items()}
    out["effective"] = _sorted_str_dict(getattr(ge_options, "effective", None) or {})
    out["sources"] = _sorted_str_dict(getattr(ge_options, "sources", None) or {})
    out["diagnostics"] = [diagnostic_dict(d) for d in getattr(ge_options, "diagnostics", ())]
    return out


def count_severities(diagnostics):
    counts = {"errors": 0, "warnings": 0, "infos": 0}
    for d in diagnostics:
        key = {"error": "errors", "warning": "warnings"}.get(d["severity"], "infos")
        counts[key] += 1
    return counts


def _record_index(records, error):
    """The 1-based index of the record `error` (an escaped `NpuConfigError`) came from: the
    one it is linked to (`npu_bridge.ge.records.link`: a refused configuration, or the session
    whose run the guard refused), else the refused record holding its partial `GeOptions`;
    None when it came from none."""
    from npu_bridge.ge.records import record_of
    linked = record_of(error)
    partial = getattr(error, "ge_options", None)
    found = None
    for i, r in enumerate(records):
        if linked is not None and r is linked:
            return i + 1
        if partial is not None and r.get("refused") and r["options"] is partial:
            found = i + 1
    return found


def build_run_report(*, script, argv, cwd, product, strict, environment_set, records,
                     script_exit_code, exit_code, exception=None, config_error=None, notes=(),
                     signal=None, unattached=(), capture=None):
    """The report of one `npu-bridge run`, as an ordered dict (docs/report_schema.md).

    Args:
      records: `npu_bridge.ge.records.records()` (dicts with kind, name, options, refused and
        runtime: errors raised later for that configuration, listed with its diagnostics).
      exception: None or (type name, message) of an exception that escaped the script.
      config_error: None or the `NpuConfigError` that escaped the script.
      signal: None or the name of the signal that stopped the run ("SIGTERM", "SIGHUP",
        "SIGINT"); its exit code is then 128 + the signal.
      unattached: diagnostics made while no configuration was resolved, that none came for
        by the run's end (`npu_bridge.ge.records.waiting()`); counted in the summary.
      capture: `capture_failures()`: the graphs the run's capture could not plan or
        partition and the runs it did not capture (`not_planned`, `not_partitioned`,
        `not_captured`); None: none.
    """
    configurations = []
    for i, r in enumerate(records):
        conf = configuration_dict(r["options"], i + 1, r["kind"], r["name"],
                                  refused=r.get("refused", False))
        # errors raised later for this configuration (the Session patch's NPB123)
        conf["diagnostics"].extend(diagnostic_dict(d) for d in r.get("runtime", ()))
        if r.get("ignored_globals"):   # NPB126: what GE ignores of its global options
            by, keys = r["ignored_globals"]
            conf["ignored_globals"] = {"by": by, "keys": sorted(keys)}
        conf["memory"] = _memory_report.configuration_memory(r)
        conf["precision"] = _precision.configuration_precision(r, _records.RUN.precision)
        conf["partition"] = _partition_report.configuration_partition(r)
        configurations.append(conf)
    unattached = [diagnostic_dict(d) for d in unattached]
    all_diags = [d for c in configurations for d in c["diagnostics"]] + unattached
    uncaught = None
    if exception is not None:
        uncaught = {"type": exception[0], "message": exception[1], "diagnostics": [],
                    "configuration": None}
        if config_error is not None:
            uncaught["diagnostics"] = [diagnostic_dict(d)
                                       for d in getattr(config_error, "diagnostics", ())]
            index = _record_index(records, config_error)
            if index is not None:  # the configuration it came from: already counted there
                uncaught["configuration"] = index
            else:
                all_diags = all_diags + uncaught["diagnostics"]
    summary = {"configurations": len(configurations),
               "refused": sum(1 for c in configurations if c.get("refused"))}
    summary.update(count_severities(all_diags))
    return {
        "schema": SCHEMA,
        "version": RUN_SCHEMA_VERSION,
        "tool": {"name": "npu-bridge", "version": _tool_version()},
        "command": "run",
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "script": {"path": script, "argv": list(argv), "cwd": cwd},
        "product": product,
        "strict": bool(strict),
        "environment": {"set": _sorted_str_dict(environment_set)},
        "outcome": {"exit_code": exit_code, "script_exit_code": script_exit_code,
                    "signal": signal, "uncaught": uncaught},
        "summary": summary,
        "precision": {"emulate": bool(_records.RUN.precision)},
        "configurations": configurations,
        "unattached": unattached,
        "not_planned": list((capture or {}).get("not_planned", ())),
        "not_partitioned": list((capture or {}).get("not_partitioned", ())),
        "not_captured": list((capture or {}).get("not_captured", ())),
        "notes": list(notes),
    }


CAPTURE_KEPT = 16   # hooks.graph_capture and partition_capture keep at most 16 of each


def capture_failures():
    """The graphs of this run the capture could not plan or partition, and the runs of its NPU
    sessions it did not capture, as the hooks noted them (`npu_bridge.hooks.state.CAPTURE`):
    `{"not_planned": ["<session>: <error>"], "not_partitioned": ["<graph>: <error>"],
    "not_captured": ["<session>: <what>: <count> run(s)"]}` (at most `CAPTURE_KEPT` of the
    first two)."""
    import sys
    from npu_bridge.hooks import state   # no TensorFlow
    capture = sys.modules.get("npu_bridge.hooks.graph_capture")   # loaded by any capture
    return {"not_planned": list(state.CAPTURE.unplanned),
            "not_partitioned": list(state.CAPTURE.unpartitioned),
            "not_captured": capture.uncaptured() if capture is not None else []}


def forget_capture_failures():
    """Start a run with no capture failures noted (a previous run's in this process)."""
    from npu_bridge.hooks import state
    del state.CAPTURE.unplanned[:]
    del state.CAPTURE.unpartitioned[:]


def capture_failure_lines(report):
    """One line per graph a report (or `capture_failures()`) says was not planned or not
    partitioned, and per session and kind of run not captured (`run`'s summary, `npu-bridge
    memory`): what is left out of the memory lines is said, not dropped."""
    lines = ["memory NOT planned: %s (its capture or GE memory plan failed: in no memory "
             "line; docs/memory.md)" % f for f in report.get("not_planned", ())]
    lines += ["partition NOT made: %s (its GE memory is planned for the whole graph; "
              "docs/partition.md)" % f for f in report.get("not_partitioned", ())]
    lines += ["not captured: %s ran, in no plan (docs/memory.md)" % f
              for f in report.get("not_captured", ())]
    for key, what in (("not_planned", "not planned"), ("not_partitioned", "not partitioned")):
        # capped per process: a `--ranks` report's items are each `rank N: ...`
        per_rank = collections.Counter(_RANK_ITEM.match(f).group(1) or "" for f in
                                       report.get(key, ()))
        for rank, count in per_rank.items():
            if count >= CAPTURE_KEPT:
                lines.append("(the first %d graphs %s%s are listed; there may be more)"
                             % (CAPTURE_KEPT, what, " of " + rank if rank else ""))
    return lines


_RANK_ITEM = re.compile(r"(rank \d+(?=: ))?")


def note_lines(report):
    """`note: TEXT` once per note of a report (`notes`: what the runner could not do, e.g.
    `job environment not set: ...`), each one line of at most 120 characters (`short_line`;
    the report keeps it whole): `run`'s summary, `npu-bridge memory`."""
    return list(dict.fromkeys("note: " + _diagnostics.short_line(n)
                              for n in report.get("notes", ())))


def dumps(report):
    """The report as text: two-space indent, keys in the order built, newline at the end."""
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def check_destination(path, what="report"):
    """The absolute destination path, after checking it can be replaced safely. `what`
    names the file in the messages ("report", "--plot").

    `..` and symlinked folders are resolved as the OS resolves them (the returned path is
    the physical one); only the last component is never followed.

    Raises:
      ReportPathError: the destination is a symlink (never followed), a folder (or ends
        with a separator), or anything else that is not a regular file (a device, FIFO,
        socket, ...: never replaced, never opened), or its parent folder does not exist
        (nothing is created but the report itself).
    """
    path = os.fspath(path)
    if not path or path.endswith(os.sep) or (os.altsep and path.endswith(os.altsep)):
        raise ReportPathError("%s destination %r names a directory" % (what, path))
    # Not os.path.abspath: it drops `link/..` lexically, while the OS goes to the parent of
    # the link's target. Resolve the folder physically, keep the last component as given.
    folder, base = os.path.split(os.path.join(os.getcwd(), path))
    if base in (".", ".."):
        raise ReportPathError("%s destination %s is a directory" % (what, os.path.abspath(path)))
    if not os.path.isdir(folder):
        raise ReportPathError("%s folder %s does not exist" % (what, _missing_folder(folder)))
    path = os.path.join(os.path.realpath(folder), base)
    try:
        mode = os.lstat(path).st_mode   # the node itself: a symlink is never followed
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise ReportPathError("%s destination %s cannot be examined: %s"
                              % (what, path, err.strerror or err))
    if mode is not None:
        if stat.S_ISLNK(mode):
            raise ReportPathError("%s destination %s is a symbolic link: refusing to "
                                  "replace it" % (what, path))
        if stat.S_ISDIR(mode):
            raise ReportPathError("%s destination %s is a directory" % (what, path))
        if not stat.S_ISREG(mode):
            raise ReportPathError("%s destination %s is %s, not a regular file: refusing "
                                  "to replace it" % (what, path, _node_kind(mode)))
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise ReportPathError("%s folder %s does not exist" % (what, parent))
    return path


def _missing_folder(folder):
    """The first folder of `folder` (absolute) the OS does not find, walked as the OS walks
    it (`a/../b` goes through `a`, which must exist), so the message names the one missing."""
    parts = folder.split(os.sep)
    for i in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:i]) or os.sep
        if parts[i - 1] in ("", ".", ".."):
            continue
        if not os.path.isdir(prefix):
            return os.path.normpath(prefix) if ".." not in parts[:i] else prefix
    return os.path.abspath(folder)


def _node_kind(mode):
    """What a file system node that is not a regular file, a folder or a symlink is."""
    for test, kind in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDOOR, "a door"), (stat.S_ISPORT, "an event port"),
                       (stat.S_ISWHT, "a whiteout")):
        if test(mode):
            return kind
    return "a special file (mode %o)" % stat.S_IFMT(mode)


# What every report `dumps` writes starts with: its first two top-level keys, in the
# schema's order (docs/report_schema.md). Only a bounded prefix of an existing file is read.
_OWN_REPORT = re.compile(rb'\A\s*\{\s*"schema"\s*:\s*"npu-bridge-report"\s*,\s*"version"\s*:')
_PREFIX_BYTES = 4096


def is_own_report(path):
    """True when the regular file at `path` starts as a report npu-bridge wrote (`{"schema":
    "npu-bridge-report", "version": ...`); reads at most `_PREFIX_BYTES` bytes, never follows
    a symlink, never blocks on a FIFO. Raises OSError when it cannot be read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        data = os.read(fd, _PREFIX_BYTES)
    finally:
        os.close(fd)
    return _OWN_REPORT.match(data) is not None


def check_replaceable(path, script=None):
    """Refuse to replace an existing regular file at `path` (absolute, checked by
    `check_destination`) that is the script being run (`script`: the same file, also
    through another path or a hard link) or that is not a report npu-bridge wrote. A
    missing destination or a previous report is fine (the default report is rewritten by
    every run).

    Raises:
      ReportPathError: naming the path and why.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as err:
        raise ReportPathError("report destination %s cannot be examined: %s"
                              % (path, err.strerror or err))
    if not stat.S_ISREG(st.st_mode):
        return path   # check_destination's business
    if script is not None:
        try:
            same = os.path.samefile(path, script)
        except OSError:
            same = False
        if same:
            raise ReportPathError("report destination %s is the script itself (%s): refusing "
                                  "to replace it" % (path, script))
    try:
        own = is_own_report(path)
    except OSError as err:
        raise ReportPathError("report destination %s exists and cannot be read to check that "
                              "it is a previous report: %s" % (path, err.strerror or err))
    if not own:
        raise ReportPathError("report destination %s exists and is not a report npu-bridge "
                              "wrote (it does not start with {\"schema\": \"%s\"): refusing "
                              "to replace it; remove it or choose another path" % (path, SCHEMA))
    return path


def check_writable(path, script=None):
    """`check_destination(path)` and `check_replaceable(path, script)` (never the script,
    never an existing file that is not an npu-bridge report), then a check that the
    destination's folder really accepts a new file: a temporary file (the kind `write_atomic` writes) is created there and removed
    at once, so a folder that refuses one (read-only, `/proc`, no permission) is found
    before the script runs. Returns the absolute destination path; leaves nothing behind.

    Raises:
      ReportPathError: see `check_destination`; or the folder refuses a new file.
    """
    return check_folder_accepts(check_replaceable(check_destination(path), script))


def check_folder_accepts(path, what="report"):
    """Check that the folder of `path` (absolute, from `check_destination`) accepts a new
    file: a temporary file is created there and removed at once. Returns `path`.

    Raises:
      ReportPathError: the folder refuses a new file (read-only, `/proc`, no permission) or
        does not let it be removed.
    """
    folder, base = os.path.split(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + base + ".", suffix=".tmp", dir=folder)
    except OSError as err:
        raise ReportPathError("%s folder %s does not accept a new file: %s"
                              % (what, folder, err.strerror or err))
    os.close(fd)
    try:
        os.unlink(tmp)
    except OSError as err:
        raise ReportPathError("%s folder %s lets a file be created but not removed (%s "
                              "left there): %s" % (what, folder, tmp, err.strerror or err))
    return path


def write_atomic(path, text):
    """Write `text` to `path` atomically: a temporary file in the same folder, then
    `os.replace`. A reader sees the old file or the new one, never half of one.

    Raises:
      ReportPathError: see `check_destination`.
      OSError: the folder is not writable, the disk is full, ...
    """
    path = check_destination(path)
    folder, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix="." + base + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file 0600; a report is an ordinary file (keep an existing mode).
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


class ReportLockedError(ValueError):
    """Another `npu-bridge run` is writing the same report."""


class ReportLock:
    """An exclusive lock on one report path while a run writes it: a `.NAME.lock` file
    beside the report, locked with `flock` (released when the process ends, however it
    ends). A second run for the same report refuses (`ReportLockedError`) instead of
    replacing the first run's report with its own."""

    def __init__(self, report_path):
        import fcntl
        folder, name = os.path.split(os.path.abspath(report_path))
        self.path = os.path.join(folder, ".%s.lock" % name)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
                os.close(fd)
                raise ReportLockedError(
                    "report %s is being written by another npu-bridge run%s; wait for it to "
                    "end, or give this run its own --report FILE"
                    % (report_path, " (pid %s)" % holder if holder.isdigit() else ""))
            try:   # the file locked must still be the one at the path (a release unlinks it)
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        self._fd = fd
        self._pid = os.getpid()

    def release(self):
        """Remove the lock file and unlock (in the process that took it; a forked child
        leaves both to its parent)."""
        if self._fd is None or os.getpid() != self._pid:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def write_report(path, report):
    """Write one report (see `write_atomic` for the errors raised); returns the absolute path."""
    return write_atomic(path, dumps(report))


# --- text rendering ---------------------------------------------------------------------

def _table(rows, header):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = "  ".join("%%-%ds" % w for w in widths[:-1]) + "  %s"
    return [fmt % tuple(header)] + [fmt % tuple(r) for r in rows]


# Repeated diagnostics of one code shown on the console (the report keeps them all).
from npu_bridge.ge.diagnostics import SHOWN_PER_CODE  # noqa: E402
# Infos about the run, not about one configuration: said once in the summary.
RUN_INFOS = {"NPB110": "no target product: product rules skipped (NPB110; give --product)"}


def diagnostic_lines(diagnostics, indent="  ", per_code=SHOWN_PER_CODE, show_source=False):
    """`severity CODE [option]: short message` lines (`finding_lines`: then its `fix:` line,
    and with `show_source` its `source:` line), at most `per_code` of each code, then
    `... and N more of CODE`; the run-level infos (`RUN_INFOS`) are left out."""
    lines, shown, more = [], {}, {}
    for d in diagnostics:
        code = d["code"]
        if code in RUN_INFOS:
            continue
        if shown.get(code, 0) >= per_code:
            more[code] = more.get(code, 0) + 1
            continue
        shown[code] = shown.get(code, 0) + 1
        lines.extend(finding_lines("%s%s %s [%s]" % (indent, d["severity"], code, d["option"]),
                                   d, indent + "    ", show_source))
    for code, n in more.items():
        lines.append("%s... and %d more of %s (all in the report)" % (indent, n, code))
    return lines


def finding_lines(head, d, indent, show_source=False):
    """`HEAD: short message`, then `INDENT fix: ...` where the diagnostic has a fix, else
    `INDENT more: ...` where its line was shortened (the explain pointer), and with
    `show_source` `INDENT source: ...` (its provenance). `d`: a diagnostic's dict (the
    report's, or one read back from a report's JSON: its `short`, `fix`, `provenance`, `more`
    keys)."""
    message = _diagnostics.message_of(d)
    lines = ["%s: %s" % (head, _diagnostics.short_of(message))]
    lines += ["%s%s: %s" % (indent, part, text) for part, text in _diagnostics.below(message)]
    if show_source:
        lines.append("%ssource: %s" % (indent, _diagnostics.provenance_of(message) or message))
    return lines


def configuration_lines(conf, show_defaults=False, hidden_hint="see the report", same=None,
                        show_source=False):
    """Text lines for one configuration: level, GE key, value, effective, source; then its
    diagnostics (errors, warnings and infos; `diagnostic_lines`). Keys whose source is a
    default are left out unless `show_defaults`. `same`: the configurations shown as this one
    (`resolution_key` equal; default `[conf]`): a key's source is each one's where they
    differ, and a key is a default only when it is one in all of them. A global option GE
    ignores (`ignored_globals`, NPB126) says so in the effective column, defaults too."""
    same = same or [conf]
    ignored = conf.get("ignored_globals") or {}
    ignored_keys = frozenset(ignored.get("keys", ()))
    rows, hidden = [], 0
    for level in LEVELS:
        for key, value in conf["options"][level].items():
            sources = [c["sources"].get(key, "") for c in same]
            skipped = level == "global" and key in ignored_keys
            if not show_defaults and not skipped and all(
                    not s or "default" in str(s) for s in sources):
                hidden += 1
                continue
            if len(set(sources)) == 1:
                source = sources[0]
            else:   # one resolution reached from different settings: each one's, by index
                by = {}
                for c, s in zip(same, sources):
                    by.setdefault(s or "adapter default", []).append(str(c["index"]))
                source = "; ".join("%s [%s]" % (s, ",".join(i)) for s, i in by.items())
            eff = conf["effective"].get(key, value)
            eff = "" if eff == value else eff
            if skipped:
                eff = "ignored (GE initialized by %s)" % ignored.get("by", "another")
            rows.append((level, key, value, eff, source))
    if conf.get("refused"):
        rows.extend(_refused_rows(conf, {r[1] for r in rows}))
    lines = []
    if rows:
        lines.extend("  " + l.rstrip() for l in _table(
            rows, ("level", "GE key", "value", "effective", "source")))
    else:
        lines.append("  (no options set by the script)")
    if hidden:
        lines.append("  (%d default option(s) not shown: %s)" % (hidden, hidden_hint))
    lines.extend(diagnostic_lines(conf["diagnostics"], show_source=show_source))
    return lines


def _refused_rows(conf, shown):
    """Table rows of the values a refused configuration was refused for: a value its checks
    refuse never reaches the options (GE would not get it), yet it is what the script set.
    One row per error diagnostic naming an option not in the table, with the value given:
    level `refused`, effective `not sent (CODE)`, source the configuration's source for it
    when the script set it, else `set by the script`."""
    rows, seen = [], set(shown)
    for d in conf["diagnostics"]:
        option = d.get("option")
        if d["severity"] != "error" or not option or option in seen or d.get("value") is None:
            continue
        seen.add(option)
        source = conf["sources"].get(option) or ""
        if not source or "default" in source:   # the default it would have kept instead
            source = "set by the script"
        rows.append(("refused", option, repr(d["value"]) if isinstance(d["value"], str)
                     else d["value"], "not sent (%s)" % d["code"], source))
    return rows


# What a configuration resolved to: two with these equal are shown as one in the summary,
# whatever produced them (an estimator and its sessions; a hand-written map and the same
# arguments): their names, sources (shown per key where they differ) and captured graphs
# (shown per configuration) are not part of it.
RESOLUTION_KEYS = ("product", "refused", "options", "effective", "diagnostics",
                   "ignored_globals")


def resolution_key(conf):
    """The part of a report configuration that makes two print as one (`RESOLUTION_KEYS`)."""
    return json.dumps({k: conf.get(k) for k in RESOLUTION_KEYS}, sort_keys=True, default=str)


def _count_line(report, command="run"):
    s = report["summary"]
    return ("npu-bridge %s: %d configuration(s), %d error(s), %d warning(s), %d info(s)"
            % (command, s["configurations"], s["errors"], s["warnings"], s.get("infos", 0)))


def _groups(report):
    """The report's configurations grouped by `resolution_key` (the summary prints each
    group once), in order."""
    groups = {}
    for conf in report["configurations"]:
        groups.setdefault(resolution_key(conf), []).append(conf)
    return list(groups.values())


def _group_header(same):
    """`[1] session Session#1 (product: P)` or `[1,2] x2: ...` for configurations `same`."""
    conf = same[0]
    tail = " (product: %s)%s" % (conf["product"] or "none",
                                 " REFUSED: NpuConfigError raised" if conf.get("refused") else "")
    if len(same) == 1:
        return "[%d] %s %s%s" % (conf["index"], conf["kind"], conf["name"], tail)
    return "[%s] x%d: %s%s" % (",".join(str(c["index"]) for c in same), len(same),
                               ", ".join("%s %s" % (c["kind"], c["name"]) for c in same), tail)


def _run_infos(groups):
    infos = []
    for same in groups:
        for d in same[0]["diagnostics"]:
            if d["code"] in RUN_INFOS and RUN_INFOS[d["code"]] not in infos:
                infos.append(RUN_INFOS[d["code"]])
    return infos


def _unattached_and_uncaught_lines(report, show_source=False):
    lines = []
    if report.get("unattached"):
        lines.append("made while no NPU configuration was resolved, and none came after:")
        lines.extend(diagnostic_lines(report["unattached"]))
    if not (report.get("precision") or {}).get("emulate"):
        lines.append(_precision.NOT_EMULATED_LINE)
    unc = report["outcome"]["uncaught"]
    if unc:
        lines.append("uncaught %s: %s%s" % (unc["type"], unc["message"].splitlines()[0]
                                            if unc["message"] else "",
                                            " (rank %d)" % unc["rank"] if unc.get("rank")
                                            is not None else ""))
        if unc.get("configuration"):
            lines.append("  (the refused configuration [%d] above)" % unc["configuration"])
        lines.extend(diagnostic_lines(() if unc.get("configuration") else unc["diagnostics"],
                                      show_source=show_source))
    return lines


def diagnostics_summary_lines(report, command="memory", show_source=False):
    """The findings of a run as `summary_lines` prints them, without the options, plans and
    partitions (`npu-bridge memory`): the count line (`npu-bridge memory: 1 configuration(s),
    0 error(s), ...`), each configuration with diagnostics under its header, the run infos,
    the diagnostics made with no configuration and an uncaught exception's."""
    lines = [_count_line(report, command)]
    groups = _groups(report)
    for same in groups:
        found = diagnostic_lines(same[0]["diagnostics"], show_source=show_source)
        if found:
            lines.append(_group_header(same))
            lines.extend(found)
    lines.extend(_run_infos(groups))
    lines.extend(l for l in _unattached_and_uncaught_lines(report, show_source)
                 if l != _precision.NOT_EMULATED_LINE)
    return lines


def summary_lines(report, show_defaults=False, show_source=False):
    """The compact summary `npu-bridge run` prints at exit: counts, then each distinct
    configuration once (identical ones as `[1,2] x2: estimator ..., session ...`);
    `show_source`: each diagnostic's provenance under it (`--show-source`)."""
    lines = [_count_line(report)]
    groups = _groups(report)
    for same in groups:
        conf = same[0]
        lines.append(_group_header(same))
        lines.extend(configuration_lines(conf, show_defaults=show_defaults,
                                         hidden_hint="--all lists them", same=same,
                                         show_source=show_source))
        for member in same:   # the graphs each one captured
            lines.extend(_memory_report.memory_lines(member, show_all=show_defaults))
            lines.extend(_precision.precision_lines(member))
            lines.extend(_partition_report.summary_lines(member, show_all=show_defaults))
    lines.extend(capture_failure_lines(report))
    lines.extend(_run_infos(groups))
    lines.extend(_unattached_and_uncaught_lines(report, show_source))
    lines.extend(note_lines(report))
    stopped = report["outcome"].get("signal")
    if stopped:
        lines.append("stopped by %s: the script did not finish; what it resolved until then "
                     "is above" % stopped)
    env = report["environment"]["set"]
    if env:
        lines.append("environment set: " + " ".join("%s=%s" % kv for kv in env.items()))
    lines.append("exit code: %d" % report["outcome"]["exit_code"])
    return lines
