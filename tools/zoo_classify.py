"""The classes of a zoo script's run and the classifier of its output (the first error), for
tools/zoo_probe.py; the class rules: docs/real_scripts.md."""
import ast
import os
import re
import sys

from zoo_entry import _inside

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
        # the stacks dumped when the timeout hit (faulthandler, see zoo_probe.STACK_SIGNAL): a script
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
