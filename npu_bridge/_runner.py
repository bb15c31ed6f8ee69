"""Run an unmodified script in this process, as `python SCRIPT ARGS` would, for `npu-bridge run`.

Same `sys.argv`, `__name__ == "__main__"`, working directory and `sys.path[0]` (the script's
folder). Before the script's first line: the TF 1.x API mode (`npu_bridge.tf1_mode.enable()`)
and the single-device Ascend job environment (`npu_bridge._jobenv.single_device_env`).
"""
import contextlib
import dataclasses
import importlib.util
import io
import marshal
import os
import sys
import traceback
import types


@dataclasses.dataclass
class RunResult:
    script_exit_code: int
    environment_set: dict
    exception: tuple = None        # (type name, message) of an exception that escaped
    config_error: object = None    # the NpuConfigError that escaped, if it was one
    notes: list = dataclasses.field(default_factory=list)


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
        from npu_bridge import _jobenv
        env_set = dict(_jobenv.single_device_env(environ))
    except ImportError as err:
        notes.append("job environment not set: %s" % err)
    for key, value in env_set.items():
        environ[key] = str(value)
    if product:
        environ["NPU_BRIDGE_PRODUCT"] = product
    try:
        from npu_bridge import tf1_mode
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


def _code_of(path):
    """The code object of the script at `path` (source, or a compiled `.pyc` as `python`
    runs one), compiled with `path` as its file name, as `runpy.run_path` does."""
    with io.open_code(path) as fh:
        data = fh.read()
    if data[:4] == importlib.util.MAGIC_NUMBER:
        return marshal.loads(data[16:])
    return compile(data, path, "exec", dont_inherit=True)


def _run_main(path):
    """Run the script at `path` (absolute) as `__main__`, like `runpy.run_path(path,
    run_name="__main__")` (a fresh module in `sys.modules["__main__"]` while it runs, the same
    globals), but leaving `sys.argv` alone: run_path sets `sys.argv[0]` to the path it is
    given (absolute), while `python SCRIPT` keeps it as typed."""
    code = _code_of(path)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __loader__=None, __package__=None,
                           __spec__=None, __doc__=None)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)  # pylint: disable=exec-used
    finally:
        if saved is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = saved


def _print_traceback(exc):
    """Print `exc` as Python prints an exception that ends a script: from the script's frame
    on, without this module's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__)


def run_script(script, args, product=None):
    """Run `script` with `args`; returns a `RunResult`. Never raises for the script's own
    failures: `SystemExit` gives the exit code, any other exception is printed as Python
    prints it and gives exit code 1."""
    env_set, notes = prepare(product)
    forced = _forced_product(product, notes)
    try:
        from npu_bridge.ge import NpuConfigError
    except ImportError:  # the resolver layer is missing: nothing can be one
        NpuConfigError = ()
    script_path = os.path.abspath(script)
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [script] + list(args)
    if sys.path:
        sys.path[0] = os.path.dirname(script_path)
    else:
        sys.path.insert(0, os.path.dirname(script_path))
    result = RunResult(0, env_set, notes=notes)
    try:
        with forced:
            _run_main(script_path)
    except SystemExit as exc:
        result.script_exit_code = _exit_code(exc)
    except KeyboardInterrupt as exc:
        _print_traceback(exc)
        result.script_exit_code = 130
        result.exception = ("KeyboardInterrupt", "")
    except Exception as exc:  # the script failed: report it the way Python would
        sys.stdout.flush()
        _print_traceback(exc)
        result.script_exit_code = 1
        result.exception = (type(exc).__name__, str(exc))
        if NpuConfigError and isinstance(exc, NpuConfigError):
            result.config_error = exc
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return result
