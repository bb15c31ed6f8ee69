"""Run an unmodified script in this process, as `python SCRIPT ARGS` would, for `npu-bridge run`.

Same `sys.argv`, `__name__ == "__main__"`, working directory and `sys.path[0]` (the script's
folder; for a directory or zip file holding `__main__.py`, that directory or file). Before the
script's first line: the TF 1.x API mode (`npu_bridge.hooks.tf1_mode.enable()`) and the
single-device Ascend job environment (`npu_bridge.tools.jobenv.single_device_env`).
"""
import atexit
import contextlib
import dataclasses
import importlib.util
import io
import marshal
import operator
import os
import pkgutil
import signal
import sys
import threading
import traceback
import types


@dataclasses.dataclass
class RunResult:
    script_exit_code: int
    environment_set: dict
    exception: tuple = None        # (type name, message) of an exception that escaped
    config_error: object = None    # the NpuConfigError that escaped, if it was one
    notes: list = dataclasses.field(default_factory=list)
    signal: str = None             # "SIGTERM"/"SIGHUP": the stop signal that ended the run
    steps_done: str = None         # why `npu-bridge memory --steps N` stopped the script


# A cancelled or timed-out CI job gets SIGTERM (then SIGKILL after a grace period), a closed
# terminal SIGHUP: both end the run as Ctrl-C does, so its summary and report still come.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(BaseException):
    """Raised in the main thread when a stop signal (`STOP_SIGNALS`) arrives while the script
    runs; a BaseException, so the script's `except Exception` does not swallow it (its
    `finally` blocks run). `signum`: the signal."""

    def __init__(self, signum):
        self.signum = signum
        super().__init__("%s received: the script is stopped, its summary and report follow"
                         % signal.Signals(signum).name)


class _StopSignals:
    """The `npu-bridge run` process's handler of `STOP_SIGNALS`: while `armed` (the script
    and the wait for its threads) the first signal raises `Stopped`; otherwise (before the
    script starts, during the atexit handlers and the summary) it is noted in `received`
    and acted on once the run can stop. A handler the script installs replaces this one, as
    under `python`; it is not overridden at the end."""

    def __init__(self):
        self.received = None
        self.armed = False
        self._old = {}

    def install(self):
        for sig in STOP_SIGNALS:
            try:
                self._old[sig] = signal.signal(sig, self._handler)
            except (ValueError, OSError):   # not the main thread: nothing to install
                pass
        return self

    def _handler(self, signum, frame):
        if self.received is None:
            self.received = signum
        if self.armed:
            self.armed = False
            raise Stopped(signum)

    def arm(self):
        """From now on a stop signal stops the script (at once for one already received)."""
        if self.received is not None:
            raise Stopped(self.received)
        self.armed = True

    def uninstall(self):
        self.armed = False
        for sig, old in self._old.items():
            if signal.getsignal(sig) == self._handler:
                signal.signal(sig, old if old is not None else signal.SIG_DFL)


def _exit_code(exc):
    """The process exit code Python gives `raise SystemExit(code)`."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)  # Python prints a non-int exit code and exits 1
    return 1


def prepare(product=None, environ=None):
    """Switch on the TF 1.x API mode and set the job environment; returns
    `(environment_set, notes)`. `product` also goes to `NPU_BRIDGE_PRODUCT`, for processes
    the script starts (there it has the lowest precedence); in this process `run_script`
    makes it an explicit product (`forced_product`), which beats `soc_config`."""
    environ = os.environ if environ is None else environ
    notes, env_set = [], {}
    try:
        from npu_bridge.tools import jobenv as _jobenv
        env_set = dict(_jobenv.single_device_env(environ))
    except ImportError as err:
        notes.append("job environment not set: %s" % err)
    for key, value in env_set.items():
        environ[key] = str(value)
    if product:
        environ["NPU_BRIDGE_PRODUCT"] = product
    try:
        from npu_bridge.hooks import tf1_mode
        tf1_mode.enable()
    except ImportError as err:
        notes.append("TF 1.x API mode not enabled: %s" % err)
    return env_set, notes


def _forced_product(product, notes):
    """A context manager making `product` the explicit target of every `resolve()` in this
    process (`npu_bridge.ge.forced_product`: DESIGN.md Products, `--product` beats
    `soc_config`, which beats `$NPU_BRIDGE_PRODUCT`)."""
    if not product:
        return contextlib.nullcontext()
    try:
        from npu_bridge import ge
        forced = getattr(ge, "forced_product", None)
        if forced is None:
            from npu_bridge.ge.products import forced_product as forced
    except ImportError as err:
        notes.append("--product passed through $NPU_BRIDGE_PRODUCT only (the script's "
                     "soc_config wins over it): %s" % err)
        return contextlib.nullcontext()
    return forced(product)


def _main_importer(path):
    """The importer `python PATH` takes `__main__` from when PATH is a directory or a zip
    file (found through `sys.path_hooks`, as Python's start-up does), else None: PATH is a
    script file."""
    if not (os.path.isdir(path) or os.path.isfile(path)):
        return None
    return pkgutil.get_importer(path)


def script_problem(script):
    """Why `python SCRIPT` could not start `script`, as one line; None when it can: a script
    file, or a directory or zip file holding a `__main__` module."""
    path = os.path.join(os.getcwd(), script)
    if not (os.path.isfile(path) or os.path.isdir(path)):
        return "cannot open script %r" % script
    importer = _main_importer(path)
    if importer is None and os.path.isfile(path):
        return None   # a script file
    if importer is not None and importer.find_spec("__main__") is not None:
        return None   # a directory or zip file with its __main__ module
    return "can't find '__main__' module in %r" % script


def _code_of(path):
    """The code object of the script at `path` (source, or a compiled `.pyc` as `python`
    runs one), compiled with `path` as its file name, as `runpy.run_path` does."""
    with io.open_code(path) as fh:
        data = fh.read()
    if data[:4] == importlib.util.MAGIC_NUMBER:
        return marshal.loads(data[16:])
    return compile(data, path, "exec", dont_inherit=True)


def _main_code(path):
    """The code object to run for `path` (absolute) and the module globals `python PATH`
    gives it: a script file as `runpy.run_path` runs one; a directory or zip file's
    `__main__` module with its spec, loader and file, as `python DIR` sets them."""
    importer = _main_importer(path)
    if importer is None:
        return _code_of(path), dict(__file__=path, __cached__=None, __loader__=None,
                                    __package__=None, __spec__=None, __doc__=None)
    spec = importer.find_spec("__main__")
    if spec is None:
        raise ImportError("can't find '__main__' module in %r" % path)
    return spec.loader.get_code("__main__"), dict(
        __file__=spec.origin, __cached__=spec.cached, __loader__=spec.loader,
        __package__=spec.parent, __spec__=spec, __doc__=None)


def _run_main(path):
    """Run the script at `path` (absolute) as `__main__`, like `runpy.run_path(path,
    run_name="__main__")` (a fresh module in `sys.modules["__main__"]` while it runs, the same
    globals; a directory or zip file runs its `__main__` module), but leaving `sys.argv` and
    `sys.path` alone: run_path sets `sys.argv[0]` to the path it is given (absolute), while
    `python SCRIPT` keeps it as typed."""
    code, attrs = _main_code(path)
    module = types.ModuleType("__main__")
    module.__dict__.update(attrs)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)  # pylint: disable=exec-used
    finally:
        if saved is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = saved


def _script_traceback(exc):
    """`exc`'s traceback from the script's frame on, without this module's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb or exc.__traceback__


def _set_last(exc):
    """`sys.last_type`, `sys.last_value`, `sys.last_traceback` (and `sys.last_exc` from 3.12)
    set to the exception that ended the script, as python's PyErr_Print sets them before the
    excepthook and the atexit handlers run (these read them: the exit barrier of a rank,
    `npu_bridge.hooks.cluster`)."""
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    if sys.version_info >= (3, 12):
        sys.last_exc = exc


def _print_traceback(exc):
    """Print `exc` as Python prints an exception that ends a script: through the script's
    `sys.excepthook` when it replaced the default one (as Python calls it), else as the
    default hook prints it, from the script's frame on, without this module's frames. A hook
    that fails is reported as Python reports it ("Error in sys.excepthook:", its exception,
    then the original one)."""
    tb = _script_traceback(exc)
    hook = getattr(sys, "excepthook", None)
    if hook is None or hook is sys.__excepthook__:
        traceback.print_exception(type(exc), exc, tb)
        return
    try:
        hook(type(exc), exc, tb)
    except BaseException as err:   # pylint: disable=broad-except
        print("Error in sys.excepthook:", file=sys.stderr)
        traceback.print_exception(type(err), err, _script_traceback(err))
        print("\nOriginal exception was:", file=sys.stderr)
        traceback.print_exception(type(exc), exc, tb)


def _stopped(result, exc, show=True):
    """Make `result` that of a run stopped by the signal of `exc` (a `Stopped`)."""
    result.signal = signal.Signals(exc.signum).name
    result.script_exit_code = 128 + exc.signum
    result.exception = None
    if show:   # where the script was when it was stopped, as Ctrl-C shows it
        sys.stdout.flush()
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
        print("Traceback (most recent call last):\n%s%s" % (
            "".join(traceback.format_list(frames)), exc), file=sys.stderr)


def exit_now(code):
    """End the process with `code` at once, stdout and stderr flushed: after a stop signal,
    without waiting at interpreter exit for the script's threads (one that never ends would
    hang the job). The real `os._exit` (the script's may be wrapped)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    getattr(os._exit, "real", os._exit)(code)


def stop_signals():
    """Install the run's handler of SIGTERM and SIGHUP (`_StopSignals`); give it to
    `run_script(stop=...)`, then `uninstall()` it once the report is written."""
    return _StopSignals().install()


def _interpreter_exit(stop=None, result=None):
    """What Python does after the main module's body ended and before the process exits
    (Py_FinalizeEx): `threading._shutdown()` (the threading atexit calls, such as
    concurrent.futures' stopping its workers, then a join of every non-daemon thread but the
    main one; if one never ends this hangs, as python does), then the `atexit` handlers, last
    registered first (`atexit._run_exitfuncs`: a failing handler is reported and the next
    one runs; they are not run again at the real exit). Must run in the main thread. A
    KeyboardInterrupt while waiting is reported as Python reports it ("Exception ignored
    in: <module 'threading'>") and the handlers still run."""
    shutdown = getattr(threading, "_shutdown", None)
    try:
        if stop is not None and result.signal is None:
            stop.arm()   # a thread that never ends can still be stopped
        if shutdown is not None and threading.current_thread() is threading.main_thread():
            shutdown()
        else:   # no private hook: join the non-daemon threads, new ones too
            while True:
                others = [t for t in threading.enumerate() if not t.daemon and t.is_alive()
                          and t is not threading.current_thread()
                          and t is not threading.main_thread()]
                if not others:
                    break
                for thread in others:
                    thread.join()
    except Stopped as exc:
        _stopped(result, exc)
    except BaseException:   # pylint: disable=broad-except
        print("Exception ignored in: %r" % threading, file=sys.stderr)
        traceback.print_exc()
    if stop is not None:
        stop.armed = False   # a signal during the handlers is acted on after them
    atexit._run_exitfuncs()   # pylint: disable=protected-access


class _OsExitHook:
    """Stands in for `os._exit` while the script runs. `os._exit(n)` called in the script's
    own process first hands `on_os_exit` the `RunResult` of a script that ended with code n
    (once: the first caller wins, a second waits; an exception that escaped the script and
    went to its `sys.excepthook` is in that result) and then ends the process with the status
    it returns, through the real `os._exit`. In a forked child (another pid: multiprocessing
    workers end with `os._exit`) or once uninstalled, it is the real `os._exit`."""

    def __init__(self, on_os_exit, result):
        self.real = os._exit
        self._pid = os.getpid()
        self._lock = threading.RLock()
        self._on_os_exit = on_os_exit
        self._result = result   # the run's RunResult (an escaped exception already in it)
        self._active = True

    def __call__(self, n, /):
        status = operator.index(n)   # os._exit's own TypeError for a non-integer
        if os.getpid() == self._pid and -2 ** 31 <= status < 2 ** 31:
            with self._lock:
                if self._active:
                    self._active = False
                    status = self._finish(status & 0xFF)
        self.real(status)

    def _finish(self, status):
        try:
            self._result.script_exit_code = status
            status = self._on_os_exit(self._result)
        except BaseException:   # the run could not be finished: say so, never exit clean
            try:
                traceback.print_exc()
            except Exception:
                pass
            status = status or 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        return status

    def uninstall(self):
        """Give `os._exit` back; waits for an `os._exit` finishing the run in another thread
        (which then ends the process). In a forked child nothing is waited for."""
        if os.getpid() == self._pid:
            with self._lock:
                self._active = False
        else:
            self._active = False
        os._exit = self.real


def run_script(script, args, product=None, on_os_exit=None, at_exit=False, stop=None):
    """Run `script` (a file, or a directory or zip file holding `__main__.py`) with `args`;
    returns a `RunResult`. Never raises for the script's own failures: `SystemExit` gives the
    exit code, any other exception is printed as Python prints it (through the script's
    `sys.excepthook` when it set one) and gives exit code 1.

    `at_exit` (the `npu-bridge run` process only, from its main thread): then do what Python
    does before exiting, in its order (`_interpreter_exit`): wait for the script's
    non-daemon threads, then run the `atexit` handlers; the result covers them (what they
    resolved is in `_records`; an `os._exit` in them goes to `on_os_exit`).

    `on_os_exit`: called as `on_os_exit(result)` when the script calls `os._exit(n)` in this
    process (not in a forked child), `result.script_exit_code` being n; the process then ends
    with the status it returns (`run_script` never returns). The real `os._exit` is given
    back when the script ends.

    `stop`: a `_StopSignals` installed by the caller (`stop_signals()`): SIGTERM or SIGHUP
    while the script runs (or while its threads are waited for) stops it as Ctrl-C would;
    the result then has `signal` set and exit code 128 + the signal. One that arrives after
    (in the atexit handlers) is noted and gives the same result once they ran.
    """
    env_set, notes = prepare(product)
    forced = _forced_product(product, notes)
    from npu_bridge.ge.records import StepsDone
    try:
        from npu_bridge.ge import NpuConfigError
    except ImportError:  # the resolver layer is missing: nothing can be one
        NpuConfigError = ()
    if _main_importer(os.path.join(os.getcwd(), script)) is not None:
        # a directory or zip file: `python` puts it first on sys.path as typed, made absolute
        script_path = os.path.join(os.getcwd(), script)
        path0 = script_path
    else:
        script_path = os.path.abspath(script)
        path0 = os.path.dirname(script_path)
    pid = os.getpid()
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [script] + list(args)
    if sys.path:
        sys.path[0] = path0
    else:
        sys.path.insert(0, path0)
    result = RunResult(0, env_set, notes=notes)
    hook = None
    if on_os_exit is not None:
        hook = _OsExitHook(on_os_exit, result)
        os._exit = hook
    try:
        try:
            with forced:
                if stop is not None:
                    stop.arm()
                _run_main(script_path)
        except Stopped as exc:
            _stopped(result, exc)
        except StepsDone as exc:   # memory --steps N: a clean end, the plan is made
            result.steps_done = str(exc)
        except SystemExit as exc:
            result.script_exit_code = _exit_code(exc)
        except KeyboardInterrupt as exc:
            result.script_exit_code = 130
            result.exception = ("KeyboardInterrupt", "")
            _set_last(exc)
            _print_traceback(exc)
        except Exception as exc:  # the script failed: report it the way Python would
            result.script_exit_code = 1
            result.exception = (type(exc).__name__, str(exc))
            if NpuConfigError and isinstance(exc, NpuConfigError):
                result.config_error = exc
            sys.stdout.flush()
            _set_last(exc)
            _print_traceback(exc)   # the result first: the script's hook may os._exit
        if at_exit and os.getpid() == pid:
            sys.argv = [script] + list(args)   # handlers see what the script saw
            _interpreter_exit(stop, result)
        if stop is not None:
            stop.armed = False
            if stop.received is not None and result.signal is None:
                _stopped(result, Stopped(stop.received), show=False)
    finally:
        if hook is not None:
            hook.uninstall()
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return result
