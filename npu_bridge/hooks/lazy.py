"""TensorFlow's modules for the modules the Session patch imports, loaded on first use.

`import npu_bridge` installs the patch once TensorFlow is imported, so the patch's own modules
(`session_patch`, `session_guard`, `cluster`) must not be the ones that import it: each names
the TensorFlow modules it uses as `LazyModule`s, which import on the first attribute read.
"""
import importlib


class LazyModule:
    """Stands for the module `name` (e.g. "tensorflow.python.client.session"): reading an
    attribute imports the module (once; then a `sys.modules` lookup) and reads it there."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self):
        return "<lazy module %s>" % self._name
