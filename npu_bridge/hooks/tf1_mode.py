"""The TF 1.x API mode: make the process's `tensorflow` module answer as TensorFlow 1.15 did
(`enable()`), for scripts only. Notes: docs/design.md "Module notes"; docs/tf1_mode.md.
"""
import os
import sys
import threading
import types

from npu_bridge.hooks import keras2, patching as _patching, state as _state, tf1_contrib
from npu_bridge.hooks.tf1_contrib import (  # noqa: F401  (part of this module's API)
    MissingTF1APIError, MissingTF1AttributeError, MissingTF1ModuleError)

OPT_OUT_ENV = "NPU_BRIDGE_TF2"

# Top-level packages written for TensorFlow 2: their modules get the real TF 2 `tensorflow`
# module (`library_tensorflow()`) whenever they import it, while every other module (scripts,
# their own packages, npu_bridge) gets the TF 1.x API. Add the name of another such package
# to have its imports executed from then on served the same way.
LIBRARY_PACKAGES = {
    "tensorflow", "tensorflow_estimator", "keras", "tf_keras", "tensorboard",
    "tensorflow_addons", "tensorflow_hub", "tensorflow_io", "tensorflow_probability",
    "tensorflow_datasets", "tensorflow_text", "tf_slim",
}


TAG = "tf1"   # the mode's changes in npu_bridge.hooks.patching: `patching.undo(TAG)` ends it
_MODE = _state.TF1   # the mode's state (npu_bridge.hooks.state.TF1Mode)


def opted_out(environ=None):
    """True when `NPU_BRIDGE_TF2` asks to leave TensorFlow 2 behaviour alone."""
    value = (os.environ if environ is None else environ).get(OPT_OUT_ENV, "")
    return value.strip().lower() not in ("", "0", "false", "no")


def is_enabled():
    """True once `enable()` has switched this process to the TF 1.x API."""
    return _MODE.enabled


def lookup_equivalent(name):
    """What the TF 1.x mode maps a TF 1.x name to (`tf1_contrib.lookup_equivalent`)."""
    return tf1_contrib.lookup_equivalent(name)


def _tensorflow_getattr_factory(tf, v1):
    def __getattr__(name):
        """Fallback for names the TF 2 `tensorflow` module lacks (PEP 562)."""
        if not name.startswith("_") and name in v1.__dict__:
            return v1.__dict__[name]
        raise AttributeError("module 'tensorflow' has no attribute %r" % name)
    return __getattr__


def is_library(module_name):
    """True when code in the module `module_name` gets the TF 2 `tensorflow` module: its
    top-level package is one of `LIBRARY_PACKAGES`."""
    return isinstance(module_name, str) and module_name.partition(".")[0] in LIBRARY_PACKAGES


def library_tensorflow():
    """The `tensorflow` module library code gets: TensorFlow 2's, as stock TensorFlow has it
    (a module object of its own, holding the TF 2 names and meanings). When the mode is off
    (opted out), the `tensorflow` module itself. Imports TensorFlow if needed."""
    if _MODE.library_tf is None:
        import tensorflow
        if _MODE.library_tf is None:
            return tensorflow
    return _MODE.library_tf


def _path_entries(paths):
    """The str entries of a module's `__path__`: TF 2.15 puts None there for a lazily loaded
    package that is missing (tf_keras under TF_USE_LEGACY_KERAS=1)."""
    return [p for p in paths if isinstance(p, str)]


def _is_lazy(value):
    from tensorflow.python.util.lazy_loader import LazyLoader
    return isinstance(value, LazyLoader)


def enable():
    """Switch this process's `tensorflow` module to the TF 1.x API (see the module docstring
    for everything it changes). Imports TensorFlow if needed.

    Returns True when this call changed something, False when the mode was already on or
    `NPU_BRIDGE_TF2` opts out. Thread-safe and idempotent. Raises ImportError only when
    TensorFlow itself cannot be imported. Every change goes through `npu_bridge.hooks.patching`
    under `TAG`: `patching.undo(TAG)` gives TensorFlow 2 back (tests/test_patching.py)."""
    if opted_out():
        return False
    with _MODE.lock:
        if _MODE.enabled:
            return False
        import tensorflow as tf
        if _MODE.enabled:   # this import ran the import hook, which switched the mode on
            return True
        from tensorflow.python.util import deprecation
        v1 = tf.compat.v1
        library_tf = _snapshot(tf)   # the TF 2 module, for library code (before any change)
        _patching.on_undo(_forget, TAG)   # undone last: the mode's state once all is back
        with deprecation.silence():   # TF 1.15 printed no "disable_resource_variables" notice
            v1.disable_v2_behavior()
        _patching.on_undo(v1.enable_v2_behavior, TAG)

        tf_dir = os.path.dirname(tf.__file__)
        api_v1_dir = os.path.join(tf_dir, "_api", "v2", "compat", "v1")
        replaced = {}
        for name, value in list(v1.__dict__.items()):
            if name.startswith("_") or name == "compat":
                continue
            replaced[name] = tf.__dict__.get(name)
            # Raw __dict__ values: keeps TF's lazy loaders (keras, estimator, layers) lazy.
            _patching.replace(tf, name, value, TAG)
        # `import tensorflow.nn` must find the v1 module, not load the TF 2 one and rebind
        # tf.nn to it. Real subpackages (tensorflow/lite, tensorflow/distribute) stay.
        for name, old in replaced.items():
            value = tf.__dict__[name]
            if not isinstance(value, types.ModuleType) or _is_lazy(value):
                continue
            key = "tensorflow." + name
            existing = sys.modules.get(key)
            if (existing is None and not os.path.isdir(os.path.join(tf_dir, name))) or \
                    (existing is not None and existing is old):
                _patching.replace_item(sys.modules, key, value, TAG)
        # The v1 Keras / estimator / legacy-layers API folders, as tf.compat.v1 has them.
        v1_dirs = [p for p in _path_entries(v1.__path__)
                   if os.path.normpath(p) != os.path.normpath(api_v1_dir)]
        for p in reversed([p for p in v1_dirs if p not in tf.__path__]):
            _patching.insert(tf.__path__, 0, p, TAG)
        _patching.on_undo(_drop_v1_modules_factory(set(sys.modules)), TAG)
        _patching.replace(tf, "__getattr__", _tensorflow_getattr_factory(tf, v1), TAG)
        tf1_contrib.patch_loaded_modules()   # tf.contrib, moved names (lazily resolved)
        keras2.use_legacy_optimizers_loaded()   # keras.optimizers.Adam: the graph-mode one
        keras2.join_keras_copies_loaded()   # tensorflow.python.keras and tf.keras: one Keras
        _tolerate_str_enum_values()
        _patching.replace(tf, "__all__", sorted(
            n for n in tf.__dict__ if not n.startswith("_")) + [
            n for n in getattr(tf, "_names_with_underscore", [])], TAG)
        _ensure_finder().handle_tensorflow = False
        _serve_libraries(tf, library_tf, replaced, v1_dirs)
        _MODE.enabled = True
        return True


def _forget():
    """The mode's state once its changes are undone: off, ready to be switched on again."""
    with _MODE.lock:
        _MODE.forget()
        if _MODE.finder is not None:
            _MODE.finder.handle_tensorflow = bool(_MODE.after_import)


def _drop_v1_modules_factory(loaded):
    def drop():
        """Modules imported as `tensorflow.<name>` through the v1 API folders while the mode
        was on (not in `loaded`) leave `sys.modules`: `import tensorflow.<name>` is TF 2's
        again."""
        for key, module in list(sys.modules.items()):
            if key.startswith("tensorflow.") and key not in loaded and \
                    not key.startswith("tensorflow._api.") and _is_v1_module(module) and \
                    getattr(module, "__name__", None) == key:
                del sys.modules[key]
    return drop


def _tolerate_str_enum_values():
    """absl-py 2.0 refuses `DEFINE_enum(..., enum_values="a', 'b")` (a str; the official
    ResNet r1 flags pass one by a quoting slip) that absl-py 0.x/1.x, TF 1.15's, took: it kept
    the str, so a value was valid when it was a substring of it. Do that again, with a warning.
    Source: absl-py CHANGELOG 2.0.0, `EnumParser.__init__`."""
    from absl.flags import _argument_parser
    parser = _argument_parser.EnumParser
    if not _patching.wrapped(parser, "__init__"):
        _patching.wrap(parser, "__init__", _tolerant_enum_init_factory, TAG)


def _tolerant_enum_init_factory(original):
    from absl.flags import _argument_parser

    def __init__(self, enum_values, case_sensitive=True):
        if not isinstance(enum_values, str) or not enum_values:
            return original(self, enum_values, case_sensitive)
        import warnings
        warnings.warn("absl flags: enum_values given as the str %r; absl-py 2.x refuses it, "
                      "TF 1.15's absl-py accepted any substring of it: doing that (TF 1.x mode)"
                      % (enum_values,), stacklevel=3)
        _argument_parser.ArgumentParser.__init__(self)
        self.enum_values = enum_values
        self.case_sensitive = case_sensitive
    return __init__


def _snapshot(tf):
    """A module named `tensorflow` with the TF 2 module's current namespace (taken before
    `enable()` changes anything): what library code gets."""
    view = types.ModuleType(tf.__name__, tf.__doc__)
    view.__dict__.update(tf.__dict__)
    view.__path__ = list(tf.__path__)
    if isinstance(tf.__dict__.get("__all__"), list):
        view.__all__ = list(tf.__all__)
    return view


# Names the mode serves on `tensorflow` that library code (TF 2) must not see.
_TF1_ONLY = frozenset(("contrib", "examples"))


def _library_getattr_factory(tf, v1_only):
    def __getattr__(name):
        """Names added to `tensorflow` after the mode went on (a submodule imported later),
        but not the TF 1.x names the mode added."""
        if name not in v1_only and name not in _TF1_ONLY and not name.startswith("__"):
            try:
                return tf.__dict__[name]
            except KeyError:
                pass
        raise AttributeError("module 'tensorflow' has no attribute %r" % name)
    return __getattr__


def _serve_libraries(tf, view, replaced, v1_dirs):
    """Give library code (`LIBRARY_PACKAGES`) the TF 2 module `view`: TF 2's lazy loaders that
    the v1 ones replaced on `tensorflow` now load into `view`; already imported library
    modules bound to `tensorflow` are bound to `view`; `builtins.__import__` is wrapped so
    that later imports by library code return `view` (module or function level, any time)."""
    from tensorflow.python.util.lazy_loader import LazyLoader
    for name, value in view.__dict__.items():
        if isinstance(value, LazyLoader) and tf.__dict__.get(name) is not value:
            _patching.replace_item(value.__dict__, "_parent_module_globals", view.__dict__, TAG)
    v1_only = frozenset(name for name in replaced if name not in view.__dict__)
    view.__getattr__ = _library_getattr_factory(tf, v1_only)
    api_v1_dir = os.path.join(os.path.dirname(tf.__file__), "_api", "v2", "compat", "v1")
    _MODE.v1_origins = (
        tuple(os.path.join(os.path.normpath(p), "") for p in list(v1_dirs) + [api_v1_dir]),
        ("tensorflow._api.v2.compat.v1", "keras.api._v1", "tf_keras.api._v1",
         "tensorflow_estimator.python.estimator.api._v1"))
    _MODE.tensorflow, _MODE.library_tf = tf, view
    for module_name, module in list(sys.modules.items()):
        if module is not tf and is_library(module_name):
            namespace = getattr(module, "__dict__", None)
            if type(namespace) is dict:
                for key in ("tf", "tensorflow"):   # `import tensorflow [as tf]`: not each value
                    if namespace.get(key) is tf:   # (touching them all costs tens of ms)
                        _patching.replace_item(namespace, key, view, TAG)
    import builtins
    _patching.wrap(builtins, "__import__", _library_import_factory, TAG)


def _is_v1_module(module):
    """True for a module of the TF 1.x API that the mode made `import tensorflow.<name>` give
    (`sys.modules` entries, modules found through the v1 API folders on `tensorflow.__path__`)."""
    files, names = _MODE.v1_origins
    file = getattr(module, "__file__", None) or ""
    return file.startswith(files) or (getattr(module, "__name__", None) or "").startswith(names)


def _for_library(name, fromlist, module):
    """What `import <name>` (a tensorflow import) gives library code: the TF 2 module."""
    if name == "tensorflow" or not fromlist:   # the result is the top-level package
        return _MODE.library_tf if module is _MODE.tensorflow else module
    if not _is_v1_module(module):   # tensorflow.python..., tensorflow.compat...: unchanged
        return module
    value = _MODE.library_tf
    try:
        for part in name.split(".")[1:]:
            value = getattr(value, part)
    except AttributeError:
        return module
    return value if isinstance(value, types.ModuleType) else module


def _rebind_pending():
    """A library module's `import tensorflow` that imported TensorFlow and so switched the
    mode on got `tensorflow` before `__import__` was wrapped: once that statement has stored
    it (its frame has moved on), bind the module's globals that hold it to the TF 2 module."""
    for entry in list(_MODE.pending):
        frame, offset = entry
        if frame.f_lasti == offset:   # still importing
            continue
        namespace = frame.f_globals
        for key in [key for key, value in list(namespace.items()) if value is _MODE.tensorflow]:
            _patching.replace_item(namespace, key, _MODE.library_tf, TAG)
        try:
            _MODE.pending.remove(entry)
        except ValueError:   # another thread did it
            pass


def _note_importer():
    """Called once TensorFlow's import switched the mode on: if the statement that imported it
    runs in library code, have `_rebind_pending` fix that module's binding."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    if frame is not None and _MODE.library_tf is not None and \
            is_library(frame.f_globals.get("__name__")):
        _MODE.pending.append((frame, frame.f_lasti))


def _library_import_factory(original):
    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        """`builtins.__import__` while the mode is on: library code importing `tensorflow`
        gets the TF 2 module (`library_tensorflow()`), everything else what it got before."""
        module = original(name, globals, locals, fromlist, level)
        if _MODE.pending:
            _rebind_pending()
        if level == 0 and name.startswith("tensorflow") and (len(name) == 10 or name[10] == "."):
            if globals is None:   # __import__("tensorflow") called by hand: the caller's
                globals = sys._getframe(1).f_globals
            try:
                importer = globals.get("__name__")
            except AttributeError:   # not a mapping: not a module's namespace
                importer = None
            if is_library(importer):
                return _for_library(name, fromlist, module)
        return module
    return __import__


class _WrappingLoader:
    """Wraps a module's real loader: runs it, then `after(module)`. (Duck-typed loader:
    importlib.abc would cost `import npu_bridge.ge` about 20 ms.)"""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # Give the module its real loader back: tools inspect __loader__ (get_source, ...).
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self.after(module)

    def after(self, module):
        raise NotImplementedError

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _PostImportLoader(_WrappingLoader):
    """tensorflow's loader, then `enable()`."""

    def after(self, module):
        enable()
        _note_importer()
        _run_after_import()


class _TF1ModeFinder:
    """On `sys.meta_path`: wraps tensorflow's loader (post-import hook) until the mode is on,
    and turns imports of removed TF 1.x modules into `MissingTF1ModuleError`."""

    def __init__(self):
        self.handle_tensorflow = True
        self._local = threading.local()

    def find_spec(self, fullname, path=None, target=None):
        if _MODE.enabled:
            if tf1_contrib.handles(fullname):   # tf.contrib, tensorflow.examples, moved names
                return tf1_contrib.find_spec(fullname)
            # a real module some moved names (or the legacy Keras optimizers) go onto
            if fullname in tf1_contrib.PATCHED or fullname in keras2.LEGACY_OPTIMIZERS or \
                    fullname in keras2.ONE_KERAS_MODULES:
                return self._wrapped_spec(fullname, path, target, _PatchingLoader)
            return None
        if fullname != "tensorflow" or not self.handle_tensorflow:
            return None
        return self._wrapped_spec(fullname, path, target, _PostImportLoader)

    def _wrapped_spec(self, fullname, path, target, wrapper):
        """The spec the other finders give, its loader wrapped in `wrapper`."""
        if getattr(self._local, "busy", False):
            return None
        self._local.busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._local.busy = False
        if spec.loader is not None:
            spec.loader = wrapper(spec.loader)
        return spec


class _PatchingLoader(_WrappingLoader):
    """A real module's loader, then the module's `tf1_contrib.MOVED` names
    (`tf1_contrib.patch_module`), `keras2.LEGACY_OPTIMIZERS` and `keras2.ONE_KERAS`."""

    def after(self, module):
        tf1_contrib.patch_module(module)
        keras2.use_legacy_optimizers(module)
        keras2.join_keras_copies(module)


def _ensure_finder():
    with _MODE.lock:
        if _MODE.finder is None:
            _MODE.finder = _patching.insert(sys.meta_path, 0, _TF1ModeFinder(), TAG)
            _patching.on_undo(_drop_finder, TAG)
        return _MODE.finder


def _drop_finder():
    """Undone: the finder left `sys.meta_path` (the patching helper removed it)."""
    with _MODE.lock:
        _MODE.finder = None
        del _MODE.after_import[:]


def _run_after_import():
    with _MODE.lock:
        if _MODE.finder is not None:
            _MODE.finder.handle_tensorflow = False
        callbacks = list(_MODE.after_import)
        del _MODE.after_import[:]
    for callback in callbacks:
        callback()


def call_when_tensorflow_imported(callback):
    """Call `callback()` once TensorFlow is imported: at once when `tensorflow` is already
    imported, otherwise right after `import tensorflow` completes (after `enable()`).

    Independent of the `NPU_BRIDGE_TF2` opt-out (`npu_bridge/__init__.py` installs the Session
    check this way: the opt-out is about the API only). Never imports TensorFlow itself.
    Returns True when `callback` was called now, False when it waits for the import."""
    with _MODE.lock:
        if not _tensorflow_imported():
            _MODE.after_import.append(callback)
            _ensure_finder().handle_tensorflow = True
            return False
    callback()
    return True


def _tensorflow_imported():
    """True when `tensorflow` is in `sys.modules`, taken as imported: in this thread npu_bridge
    runs inside TensorFlow's import only from `_PostImportLoader`, after TensorFlow's own
    code; an import still under way in another thread is waited for by the `import
    tensorflow` in `enable()` and the Session patch (the import system locks a module while it
    loads; tests/test_tf1_mode.py)."""
    return sys.modules.get("tensorflow") is not None


def install_import_hook():
    """Arrange for the mode to be on whenever TensorFlow is in use, without importing it.

    If `tensorflow` is already imported, calls `enable()` at once; otherwise puts a finder
    first on `sys.meta_path` that runs `enable()` right after `import tensorflow` completes.
    Does nothing under the `NPU_BRIDGE_TF2` opt-out. Idempotent; returns True when the mode
    is on (or will be switched on by the import), False when opted out."""
    if opted_out():
        return False
    with _MODE.lock:
        imported = _tensorflow_imported()
        if not imported:
            _ensure_finder()
    if imported:
        enable()
    return True
