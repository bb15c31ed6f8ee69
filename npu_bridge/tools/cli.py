"""The `npu-bridge` command (also `python -m npu_bridge`); see docs/cli.md.

Subcommands: `run` (run a script, report its resolved NPU configurations), `options`
(resolve a ConfigProto or key=value pairs), `lint` (static check), `explain` (one option).
Exit codes: 0 clean, 1 findings or errors, 2 usage; `run` keeps a failing script's own code.
Every rule applied comes from `npu_bridge.ge` (catalog and resolver); none lives here.
"""
import json
import os
import re
import sys

from npu_bridge.tools.cli_args import (  # noqa: F401  (the command's constants, here too)
    DEFAULT_REPORT, FAIL_ON, LINT_FORMATS, build_parser)

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 141   # 128 + SIGPIPE: what a shell reports for a tool killed by the signal


class _UsageError(Exception):
    """A bad command line or input file: exit code 2."""


def main(argv=None):
    """Run the command line `argv` (default `sys.argv[1:]`); returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = {"run": _cmd_run, "options": _cmd_options, "lint": _cmd_lint,
               "explain": _cmd_explain, "memory": _cmd_memory, "diff": _cmd_diff,
               "partition": _cmd_partition}[args.command]
    try:
        try:
            return handler(args)
        finally:
            sys.stdout.flush()   # a closed pipe shows here, not at interpreter exit
    except _UsageError as err:
        print("npu-bridge %s: error: %s" % (args.command, err), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`npu-bridge explain X | head -1`): stop quietly, as CLI tools
        # do. Point stdout at /dev/null so the interpreter's final flush does not fail again.
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _silence_stdout():
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return   # not a real file (tests): nothing is flushed at exit
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


# --- run ---------------------------------------------------------------------------------

def _cmd_run(args):
    from npu_bridge.ge import records as _records
    from npu_bridge.tools import runner as _runner, report

    if args.ranks is None and not args.rank_table:   # else silently ignored (a tryout)
        given = [flag for flag, value in (("--hosts", args.hosts),
                                          ("--collective-timeout", args.collective_timeout))
                 if value is not None]
        if given:
            raise _UsageError("%s only %s with --ranks N or --rank-table FILE (several "
                              "ranks: docs/collectives.md)"
                              % (" and ".join(given), "act" if len(given) > 1 else "acts"))
    report_path = None
    if not args.no_report:
        try:  # checked before the script runs, so a bad path costs nothing
            script = os.path.abspath(args.script) if os.path.exists(args.script) else None
            report_path = report.check_writable(args.report, script=script)
        except report.ReportPathError as err:
            raise _UsageError("%s; to run the script without a report, use --no-report "
                              "(in place of --report FILE)" % err)
    problem = _runner.script_problem(args.script)
    if problem:
        raise _UsageError(problem)
    _set_precision(args)
    try:
        from npu_bridge.tools import partition_cli
        partition_cli.use_supported_ops(args.supported_ops)
    except ValueError as err:
        raise _UsageError("--supported-ops: %s" % err)
    ranks = args.ranks is not None or args.rank_table
    # SIGTERM/SIGHUP from here on end the run with its report (before the lock is taken, so a
    # signal cannot leave the lock behind); the launcher of --ranks has its own handler
    stop = None if ranks else _runner.stop_signals()
    lock = None
    if report_path is not None:
        try:   # one run per report at a time: a second one refuses, it never overwrites
            lock = report.ReportLock(report_path)
        except report.ReportLockedError as err:
            if stop is not None:
                stop.uninstall()
            raise _UsageError(str(err))
    if ranks:   # several ranks: npu_bridge.tools.launcher
        from npu_bridge.tools import launcher as _launcher
        try:
            return _launcher.run_job(args, report_path)
        except _launcher.LaunchError as err:
            raise _UsageError(err)
        finally:
            if lock is not None:
                lock.release()
    cwd = os.getcwd()
    pid = os.getpid()
    _records.clear()
    report.forget_capture_failures()
    _records.RUN.capture = True   # the GE graphs of the run, for the memory plan (docs/memory.md)

    def finish(result):
        """Summary, report and exit code of the run that ended with `result`; also what
        `os._exit` in the script runs before the process ends (`_runner.run_script`)."""
        try:
            return _finish_run(args, cwd, report_path, result)
        finally:
            if lock is not None:
                lock.release()   # (also on the way out through os._exit)

    # at_exit: the script's non-daemon threads are waited for and its atexit handlers run
    # (python's order) before the summary, so what they do is in the run
    try:
        result = _runner.run_script(args.script, args.args, product=args.product,
                                    on_os_exit=finish, at_exit=True, stop=stop)
        if os.getpid() != pid:
            # A child the script forked (os.fork, multiprocessing) ended without os._exit: it
            # exits as it would under python; the run, its summary and report are the parent's.
            return result.script_exit_code
        code = finish(result)
    finally:
        stop.uninstall()   # the handlers the process had before (a script's own stays)
    if result.signal:   # stopped: end now, as the signal would have
        _runner.exit_now(code)
    _keep_exit_code(code)
    return code


def _set_precision(args):
    """`--precision` (else $NPU_BRIDGE_PRECISION) for this process, and through the variable
    for the ranks and processes the script starts."""
    from npu_bridge.ge import records as _records
    name = "NPU_BRIDGE_PRECISION"
    value = getattr(args, "precision", None)
    if value is None:
        value = os.environ.get(name, "").strip().lower() or "off"
        if value not in ("off", "emulate"):
            raise _UsageError("%s=%r: allowed values are off, emulate (docs/precision.md)"
                              % (name, value))
    os.environ[name] = value
    _records.RUN.precision = value == "emulate"


def _cmd_memory(args):
    from npu_bridge.tools import memory_cli
    try:
        return memory_cli.run(args, _finish_run)
    except ValueError as err:
        raise _UsageError(str(err))


def _cmd_partition(args):
    from npu_bridge.tools import partition_cli
    try:
        return partition_cli.run(args)
    except ValueError as err:
        raise _UsageError(str(err))


def _keep_exit_code(code):
    """After the run finished with exit code `code`, an `os._exit(n)` still to come (a
    handler registered after the script's atexit handlers ran, a daemon thread) must not
    turn a failed run into a clean exit: from now on `os._exit(n)` ends the process with
    `code` when it is non-zero, else with n (a late failure is not hidden either)."""
    real = getattr(os._exit, "real", os._exit)   # a previous run's wrapper: not chained

    def _exit(n, /):
        real(code if code else n)

    _exit.real = real
    os._exit = _exit


def _finish_run(args, cwd, report_path, result):
    """Build the report of the run that ended with `result` (a `_runner.RunResult`), write
    it, print the summary to stderr; returns the exit code of `npu-bridge run`."""
    from npu_bridge.ge import records as _records
    from npu_bridge.tools import report
    data = report.build_run_report(
        script=os.path.abspath(args.script), argv=[args.script] + list(args.args), cwd=cwd,
        product=args.product, strict=args.strict, environment_set=result.environment_set,
        records=_records.records(), script_exit_code=result.script_exit_code, exit_code=0,
        exception=result.exception, config_error=result.config_error, notes=result.notes,
        signal=getattr(result, "signal", None), unattached=_records.waiting(),
        capture=report.capture_failures())
    summary = data["summary"]
    failing = FAIL_ON[getattr(args, "fail_on", None) or "error"]
    if args.strict:
        failing = tuple(dict.fromkeys(failing + FAIL_ON["warning"]))
    counted = {"error": summary["errors"], "warning": summary["warnings"],
               "info": summary.get("infos", 0)}
    unconfigured = getattr(args, "require_config", False) and not summary["configurations"]
    if result.script_exit_code != 0:
        code = result.script_exit_code
    elif any(counted[s] for s in failing) or unconfigured:
        code = EXIT_FINDINGS
    else:
        code = EXIT_OK
    data["outcome"]["exit_code"] = code
    lines = report.summary_lines(data, show_defaults=getattr(args, "all", False),
                                 show_source=getattr(args, "show_source", False))
    if unconfigured:
        lines.insert(1, "no NPU configuration resolved: the script never built an NPU "
                        "session, estimator or npu_resource_init (--require-config)")
    if report_path is not None:
        try:
            script = os.path.abspath(args.script) if os.path.exists(args.script) else None
            report.check_replaceable(report_path, script=script)   # still a report (or nothing)
            report.write_report(report_path, data)
            if not _in_job_dir(report_path):   # a rank's report: the job merges it, then deletes it
                lines.append("report: %s" % report_path)
        except (report.ReportPathError, OSError) as err:
            lines.append("report NOT written: %s" % err)
            if not code:   # the summary states the code the process really exits with
                code = EXIT_FINDINGS
                lines = [("exit code: %d" % code) if line.startswith("exit code: ") else line
                         for line in lines]
    try:
        sys.stdout.flush()
    except BrokenPipeError:   # the script's reader went away: the summary still goes out
        _silence_stdout()
    except (OSError, ValueError):
        pass
    print("\n".join(lines), file=sys.stderr)
    return code


# --- diff --------------------------------------------------------------------------------

def _cmd_diff(args):
    from npu_bridge.tools import report_diff
    try:
        before, after = report_diff.load(args.before), report_diff.load(args.after)
    except report_diff.DiffInputError as err:
        raise _UsageError(str(err))
    diff = report_diff.compare(before, after)
    if args.format == "json":
        sys.stdout.write(json.dumps({"schema": "npu-bridge-diff", "version": 1,
                                     "before": args.before, "after": args.after,
                                     "report": diff["report"], "lists": diff["lists"],
                                     "changes": diff["changes"]},
                                    indent=2, ensure_ascii=False) + "\n")
    else:
        print("\n".join(report_diff.text_lines(diff, args.before, args.after)))
    return EXIT_FINDINGS if diff["changes"] or diff["report"] or diff["lists"] else EXIT_OK


# --- options -----------------------------------------------------------------------------

# A `.b` value: the spellings docs/cli.md lists, in any case (`True` as a Python script
# writes it). `yes`/`on` and the like are refused: a typo must not pass as a bool.
_TRUE, _FALSE = ("1", "true"), ("0", "false")


def _typed_entry(text):
    """`KEY=VALUE` or `KEY.FIELD=VALUE` as (key, LiteralAttr), typed by the catalog."""
    from npu_bridge.ge import catalog
    from npu_bridge.tools.lint import LiteralAttr

    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise _UsageError("--set takes KEY=VALUE, got %r" % text)
    key, _, field = name.partition(".")
    if not field:
        row = catalog.BY_KEY.get(key)
        # An unknown key goes in as a string; the resolver reports it with a suggestion.
        field = row.field if row is not None and row.field else "s"
    try:
        if field == "b":
            low = raw.strip().lower()
            if low not in _TRUE + _FALSE:
                raise ValueError("expected a bool for AttrValue .b (true, false, 1 or 0, in "
                                 "any case), got %r" % raw)
            value = low in _TRUE
        elif field == "i":
            digits = raw.strip()
            if not re.fullmatch(r"[-+]?[0-9]{1,40}", digits, re.ASCII):
                raise ValueError("expected a decimal integer for AttrValue .i, got %r" % raw)
            value = int(digits)
            if not -(1 << 63) <= value < (1 << 63):
                raise ValueError("%s is outside the int64 range of AttrValue .i" % digits)
        elif field == "f":
            value = float(raw)
        elif field == "s":
            value = raw.encode("utf-8")
        else:
            raise ValueError("field must be one of b, i, f, s")
    except ValueError as err:
        raise _UsageError("--set %s: bad value for %s.%s: %s" % (text, key, field, err))
    return key, LiteralAttr(field, value)


def _typed_entries(entries):
    """The `--set` entries as a parameter_map dict. A key given twice (also through another
    field, `KEY=...` and `KEY.FIELD=...`) is a usage error naming it: a parameter_map holds
    one value per key, and silently keeping the last one hides a typo in a long command."""
    config, seen = {}, {}
    for text in entries:
        key, value = _typed_entry(text)
        if key in seen:
            raise _UsageError("--set %s given more than once (%r and %r); give each key once"
                              % (key, seen[key], text))
        seen[key] = text
        config[key] = value
    return config


def _quiet_tensorflow_import():
    """Import TensorFlow's protobuf schemas without its C++ start-up banner (the CPU feature
    and oneDNN INFO lines): `TF_CPP_MIN_LOG_LEVEL` is 1 while TensorFlow loads unless the
    user set it, then restored. Warnings and errors still show."""
    if "tensorflow" in sys.modules or "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        from tensorflow.core.protobuf import config_pb2
        return config_pb2
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "1"
    try:
        from tensorflow.core.protobuf import config_pb2
    finally:
        os.environ.pop("TF_CPP_MIN_LOG_LEVEL", None)
    return config_pb2


def _load_pbtxt(path):
    """The ConfigProto in text format in `path`. Every way the file cannot be used (unreadable,
    not UTF-8 text, not a text-format ConfigProto) is a usage error (exit 2) with one line
    naming the file and, where known, the line and column."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise _UsageError("cannot read %s: %s" % (path, err.strerror or err))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise _UsageError("cannot read %s:%d:%d: not UTF-8 text (byte 0x%02x): expected a "
                          "ConfigProto in protobuf text format"
                          % (path, line, col, data[err.start]))
    from google.protobuf import text_format
    config_pb2 = _quiet_tensorflow_import()   # the ConfigProto schema
    config = config_pb2.ConfigProto()
    try:
        text_format.Parse(text, config)
    except text_format.ParseError as err:
        line, col = err.GetLine(), err.GetColumn()
        message = str(err)
        if line is not None:   # the message starts with "LINE:COL : "
            message = message.split(" : ", 1)[-1]
            where = "%s:%d:%d" % (path, line, col or 0)
        else:
            where = path
        message = " ".join(message.split())
        if len(message) > 300:
            message = message[:297] + "..."
        raise _UsageError("cannot parse %s: %s (expected a ConfigProto in protobuf text format)"
                          % (where, message))
    except RecursionError:
        raise _UsageError("cannot parse %s: nested too deeply" % path)
    return config


_REPORT_EMPTY = "  (no options set by the script)"   # report.configuration_lines, for `run`


def _cmd_options(args):
    from npu_bridge.tools import report
    from npu_bridge.ge import NpuConfigError, resolve

    if args.pbtxt:
        config = _load_pbtxt(args.pbtxt)
        given = {"pbtxt": os.path.abspath(args.pbtxt)}
    else:
        config = _typed_entries(args.entries)
        given = {"set": list(args.entries)}
    try:
        ge = resolve(config, product=args.product)
        conf = report.configuration_dict(ge)
        diags = conf["diagnostics"]
        product = ge.product
    except NpuConfigError as err:
        conf = None
        diags = [report.diagnostic_dict(d) for d in err.diagnostics]
        # the product the resolver used (product=, soc_config, $NPU_BRIDGE_PRODUCT), also
        # when it refused the configuration: its product rules were applied
        product = getattr(err.ge_options, "product", None) or args.product
    errors = [d for d in diags if d["severity"] == "error"]
    if args.format == "json":
        out = {"schema": "npu-bridge-options", "version": report.SCHEMA_VERSION, "input": given,
               "product": product, "resolved": conf is not None, "configuration": conf,
               "diagnostics": diags}
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        print("product: %s" % (product or "none"))
        if conf is not None:
            lines = report.configuration_lines(conf, show_defaults=args.all,
                                               hidden_hint="--all lists them",
                                               show_source=args.show_source)
            # the report's line for an empty table speaks of `run`'s script
            where = "in %s" % args.pbtxt if args.pbtxt else "by --set"
            print("\n".join("  (no options set %s)" % where if line == _REPORT_EMPTY else line
                            for line in lines))
        else:
            print("  not resolved: the configuration has errors")
        if conf is None:
            print("\n".join(report.diagnostic_lines(diags, show_source=args.show_source)))
        for d in diags:   # (the table's lines leave out the run-level infos: said here)
            if d["code"] in report.RUN_INFOS:
                print("\n".join(report.finding_lines("  %s %s [%s]" % (
                    d["severity"], d["code"], d["option"]), d, "      ", args.show_source)))
    return EXIT_FINDINGS if errors else EXIT_OK


# --- lint --------------------------------------------------------------------------------

def _codes_option(name, text, known):
    """`--select`/`--ignore` CODES: comma-separated codes or prefixes, each matching a known
    code (else a usage error listing them)."""
    given = tuple(c.strip().upper() for c in text.split(",") if c.strip())
    unknown = [c for c in given if not any(k.startswith(c) for k in known)]
    if unknown:
        raise _UsageError("%s: unknown code%s %s; known codes: %s" % (
            name, "s" if len(unknown) > 1 else "", ", ".join(unknown), ", ".join(known)))
    return given


class _Progress:
    """`linted N/M files` on a terminal's stderr, once the run has taken 2 seconds."""

    def __init__(self, stream):
        import time
        self._time = time.monotonic
        self._start = self._time()
        self._stream = stream
        self.shown = False

    def __call__(self, done, total):
        if self._time() - self._start < 2.0:
            return
        self.shown = True
        self._stream.write("\rnpu-bridge lint: %d/%d files" % (done, total))
        self._stream.flush()

    def clear(self):
        if self.shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()


def _stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _cmd_lint(args):
    from npu_bridge import __version__
    from npu_bridge.tools import lint
    from npu_bridge.tools.lint import output

    paths = [p for p in args.paths if p != "-"]   # `-`: the script on stdin, as flake8 reads it
    if len(args.paths) - len(paths) > 1:
        raise _UsageError("'-' (stdin) given twice: it is read once")
    for p in paths:
        if not os.path.exists(p):
            raise _UsageError("no such file or folder: %s" % p)
    if args.jobs is not None and args.jobs < 1:
        raise _UsageError("--jobs must be at least 1")
    if args.max_bytes is not None and args.max_bytes < 0:
        raise _UsageError("--max-bytes must be at least 0")
    known = lint.known_codes()
    select = _codes_option("--select", args.select, known)
    ignore = _codes_option("--ignore", args.ignore, known)
    env = {}
    if os.environ.get("NPU_BRIDGE_PRODUCT"):  # the only environment a static check reads
        env["NPU_BRIDGE_PRODUCT"] = os.environ["NPU_BRIDGE_PRODUCT"]
    progress = _Progress(sys.stderr) if _stderr_is_terminal() else None
    targets = set()   # the product each configuration was checked for, and from where
    max_bytes = lint.DEFAULT_MAX_BYTES if args.max_bytes is None else args.max_bytes
    chosen = lint.Selection(select, ignore, infos=True)
    try:
        findings, nfiles = lint.lint_paths(
            paths, product=args.product, env=env, jobs=args.jobs, max_bytes=max_bytes,
            ignore=chosen, progress=progress, targets=targets)
    finally:
        if progress is not None:
            progress.clear()
    if len(paths) < len(args.paths):
        findings = sorted(findings + lint.lint_stdin(
            sys.stdin, args.stdin_display_name, product=args.product, env=env,
            max_bytes=max_bytes, ignore=chosen, targets=targets))
        nfiles += 1
    if nfiles == 0:   # only folders without a *.py: nothing was checked
        raise _UsageError("no Python files checked: no *.py file under %s (a file named "
                          "explicitly is checked whatever its suffix)" % ", ".join(args.paths))
    product, used = output.products_used(targets, args.product, env.get("NPU_BRIDGE_PRODUCT"))
    if args.format == "json":
        sys.stdout.write(output.render_json(findings, nfiles, product, used))
    elif args.format == "sarif":
        sys.stdout.write(output.render_sarif(findings, nfiles, __version__, product, used))
    elif args.format == "github":
        sys.stdout.write(output.render_github(findings))
    else:
        sys.stdout.write(output.render_text(findings, show_source=args.show_source))
    sys.stdout.flush()
    print(output.summary_line(findings, nfiles, product, used), file=sys.stderr)
    failing = FAIL_ON[args.fail_on]
    if not args.exit_zero and any(f.severity in failing for f in findings):
        return EXIT_FINDINGS
    return EXIT_OK


# --- explain -----------------------------------------------------------------------------

def _argument_text(runconfig_arg):
    """`memory_config.static_memory_policy` -> `NPURunConfig(memory_config=MemoryConfig(...))`."""
    from npu_bridge.ge import config_schema

    cls, arg = config_schema.owner(runconfig_arg)
    inner = "%s(%s=...)" % (cls.name, arg)
    while cls.prefix:   # wrapped in the class that takes it, up to NPURunConfig
        cls, arg = config_schema.owner(cls.prefix)
        inner = "%s(%s=%s)" % (cls.name, arg, inner)
    return inner


def _show(value):
    if value is None:
        return "-"
    if value == "":
        return '"" (empty)'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v) for v in value) or "-"
    if isinstance(value, dict) or hasattr(value, "items"):
        return "; ".join("%s: %s" % (_show(k), _show(v)) for k, v in value.items()) or "-"
    return str(value)


def explain_lines(row):
    """The lines `npu-bridge explain` prints for one catalog row, one field per line (its
    sources with the vendor pages' titles and paths: `diagnostics.name_pages`)."""
    from npu_bridge.ge import catalog
    from npu_bridge.ge.diagnostics import name_pages

    routes = ["%s %s%s" % (r.level, r.key, "" if r.when == "always" else " (when %s)" % r.when)
              for r in row.routes]
    if not routes and row.ge_key:
        routes = ["%s %s" % (lvl, row.ge_key) for lvl in row.levels]
    lines = [
        ("name", row.name),
        ("parameter_map", 'custom_op.parameter_map["%s"].%s' % (row.key, row.field)
         if row.key else None),
        ("other fields", _show({"." + f: m for f, m in row.other_fields.items()})
         if row.other_fields else None),
        ("argument", _argument_text(row.runconfig_arg) if row.runconfig_arg else None),
        ("ir_option", row.ir_option),
        ("GE keys", "; ".join(routes) if routes else None),
        ("level", ", ".join(row.levels or dict.fromkeys(r.level for r in row.routes)) or None),
        ("type", row.type),
        ("default", row.default),
        ("adapter default", row.adapter_default),
        ("values", row.allowed_text),
        ("example", row.example),
        ("products", (_show(row.products) if row.products else "all")
         + (" (as a parameter_map entry)" if len(catalog.product_support(row)) > 1 else "")),
    ] + [   # a config class of its own product table (catalog.product_support)
        ("products (as %s)" % spelling, "%s (source: %s)" % (_show(allowed), name_pages(src)))
        for spelling, allowed, src in catalog.product_support(row)[1:] if row.key
    ] + [
        ("value products", _show(row.value_products) if row.value_products else None),
        ("scenario", row.scenario),
        ("deprecated", ("yes" + (", use %s" % row.replacement if row.replacement else ""))
         if row.deprecated else "no"),
        ("adapter check", row.adapter_check),
        ("source", name_pages(row.source) if row.source else None),
        ("doc", name_pages(row.doc) if row.doc else None),
        ("notes", row.notes or None),
    ]
    return ["%s: %s" % (k, _show(v)) for k, v in lines if v is not None]


_TEMPLATE_FIELD = re.compile(r"\{(\w+)[^}]*\}")
_SPEC_WORDS = {"field": "field", "owner": "class", "arg": "argument"}   # {option:owner}


def _placeholders(template):
    """A template with its fields as <name> (`{option:owner}` as <class>)."""
    def word(match):
        spec = match.group(0)[1:-1].partition(":")[2]
        return "<%s>" % _SPEC_WORDS.get(spec, match.group(1))
    return _TEMPLATE_FIELD.sub(word, template)


def _fix_text(template):
    """A fix template as `explain` prints it: its fields as <name>; a template that is one
    field alone (the finding writes the whole fix) says so instead of a bare <name>."""
    shown = _placeholders(template)
    if re.fullmatch(r"\s*<\w+>\s*", shown):
        return "written for each finding (the fix: line under it names what to change)"
    return shown


def _explain_code(text):
    """`npu-bridge explain NPB126`: a diagnostic code's severity, title, the fix it prints
    (its fields as <name>) and the source of its rule (vendor pages by title and path, the
    adapter or GE file and line: what `--show-source` prints under each finding)."""
    from npu_bridge.ge.diagnostics import CODES

    code = text.upper()
    entry = CODES.get(code)
    if entry is None:
        return None
    severity, title, source = entry.severity, entry.title, entry.source
    if entry.severity_note:   # a finding of another severity than the default, and when
        severity = "%s (default); %s" % (severity, entry.severity_note)
    lines = ["code: %s" % code, "severity: %s" % severity, "what: %s" % title,
             "source: %s" % source, "list: docs/diagnostics.md"]
    if entry.arg_fix:   # one spelling per finding: the one the user wrote
        lines.insert(3, "fix (config-class argument): %s" % _fix_text(entry.arg_fix))
    if entry.fix:
        lines.insert(3, "fix%s: %s" % (" (parameter_map)" if entry.arg_fix else "",
                                       _fix_text(entry.fix)))
    if code.startswith("NBL"):
        lines.insert(3, "reported by: npu-bridge lint")
    return lines


def _explain_config_argument(text):
    """`npu-bridge explain memory_config` (or `MemoryConfig`, the name NPB114 prints): an
    NPURunConfig argument that takes a config class, with the options of that class (each
    explained by its own name) and where the class is supported (`catalog.CLASS_PRODUCTS`)."""
    from npu_bridge.ge import catalog, config_schema
    from npu_bridge.ge.diagnostics import name_pages

    for config in config_schema.CLASSES:
        if not config.prefix or text not in (config.argument, config.name):
            continue
        cls, prefix = config.name, config.prefix + "."
        args = sorted(r.runconfig_arg[len(prefix):] for r in catalog.OPTIONS
                      if r.runconfig_arg and r.runconfig_arg.startswith(prefix)
                      and "." not in r.runconfig_arg[len(prefix):])
        table = catalog.CLASS_PRODUCTS.get(cls)
        products = ("%s (NPB114 elsewhere; source: %s)" % (", ".join(table[0]), name_pages(table[1]))
                    if table else "all")
        return ["name: %s" % text,
                "argument: %s" % _argument_text(prefix + "...").replace("(...=...)", "(...)"),
                "takes: %s(...)" % cls,
                "options: %s" % (", ".join(args) or "-"),
                "products: %s" % products,
                "explain each: npu-bridge explain %s.<option>" % config.prefix]
    return None


def _explain_names():
    """Every name `explain` takes: the catalog's (parameter_map keys, NPURunConfig and
    config-class arguments, GE keys, ir_option names), the arguments taking a config class
    (`memory_config`) and the diagnostic codes (the resolver's and lint's)."""
    from npu_bridge.ge import catalog, config_schema
    from npu_bridge.ge.diagnostics import CODES

    names = list(catalog.all_names())
    names.extend(c.argument for c in config_schema.CLASSES if c.prefix)
    names.extend(c.name for c in config_schema.CLASSES if c.prefix)
    names.extend(CODES)
    return list(dict.fromkeys(names))


def _cmd_explain(args):
    from npu_bridge.ge import catalog
    from npu_bridge.tools.lint import close_names

    if not args.option.strip():
        raise _UsageError("OPTION is empty: give a parameter_map key, an NPURunConfig argument, "
                          "a GE key or an ir_option name")
    row = catalog.find(args.option)
    if row is None:
        # another case of one known name (PRECISION_MODE): that name, as a code is
        same_case = [n for n in _explain_names() if n.casefold() == args.option.strip().casefold()]
        if len(same_case) == 1:
            row = catalog.find(same_case[0])
            name = same_case[0]
        else:
            name = args.option.strip()
    if row is None:
        lines = _explain_code(name) or _explain_config_argument(name)
        if lines:
            print("\n".join(lines))
            return EXIT_OK
        close = close_names(args.option.strip(), _explain_names(), n=3, cutoff=0.6)
        hint = "; did you mean %s?" % " or ".join(close) if close else ""
        # an unknown name is a usage error (2), as an unknown option of any command is
        print("npu-bridge explain: error: unknown option %r%s" % (args.option, hint),
              file=sys.stderr)
        return EXIT_USAGE
    print("\n".join(explain_lines(row)))
    return EXIT_OK


def _in_job_dir(path):
    """Is `path` in the temporary folder of the `run --ranks` job this process is a rank of?"""
    from hccl.manage import ranktable as _ranks
    job_dir = os.environ.get(_ranks.ENV_JOB_DIR) if os.environ.get(_ranks.ENV_CHILD) == "1" else None
    return bool(job_dir) and os.path.dirname(os.path.abspath(path)) == os.path.abspath(job_dir)


if __name__ == "__main__":
    sys.exit(main())

