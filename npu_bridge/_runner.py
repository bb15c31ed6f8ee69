"""Run an unmodified script in this process, as `python SCRIPT ARGS` would, for `npu-bridge run`.

Same `sys.argv`, `__name__ == "__main__"`, working directory and `sys.path[0]` (the script's
folder). Before the script's first line: the TF 1.x API mode (`npu_bridge.tf1_mode.enable()`)
and the single-device Ascend job environment (`npu_bridge._jobenv.single_device_env`).
"""
import contextlib
import dataclasses
import os
import runpy
import sys
import traceback


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
            runpy.run_path(script_path, run_name="__main__")
    except SystemExit as exc:
        result.script_exit_code = _exit_code(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        result.script_exit_code = 130
        result.exception = ("KeyboardInterrupt", "")
    except Exception as exc:  # the script failed: report it the way Python would
        sys.stdout.flush()
        traceback.print_exc()
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
