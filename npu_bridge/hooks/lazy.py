"""TensorFlow's modules for the modules the Session patch imports, loaded on first use.

`import npu_bridge` installs the patch once TensorFlow is imported, so the patch's own modules
(`session_patch`, `session_guard`, `cluster`) must not be the ones that import it: each names
the TensorFlow modules it uses as `LazyModule`s, which import on the first attribute read.
"""
import importlib


class LazyModule:
    """Stands for the module `name` (e.g. "tensorflow.python.client.session"): reading an
    attribute imports the module (once; then a `sys.modules` lookup) and reads it there."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):
        module = self._module
        if module is None:   # (import_module costs microseconds even when loaded: once)
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self):
        return "<lazy module %s>" % self._name
