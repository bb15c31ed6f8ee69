"""npu_bridge: a pure-Python drop-in for Huawei's Ascend TensorFlow adapter.

Importing any part of it switches on the TF 1.x API mode (opt out: `NPU_BRIDGE_TF2=1`) and,
once TensorFlow is imported, the check-only Session patch; this file imports no TensorFlow.
Layers and notes: docs/design.md.
"""
import importlib as _importlib

from npu_bridge.hooks import tf1_mode as _tf1_mode

_tf1_mode.install_import_hook()

__version__ = "0.1.0"

# name -> (module, attribute or None for the module itself); loaded on first access.
_LAZY = {
    "npu_estimator": ("npu_bridge.estimator.npu.npu_estimator", None),
    "hccl_ops": ("npu_bridge.hccl.hccl_ops", None),
    "npu_close": ("npu_bridge.estimator.npu.npu_plugin", "npu_close"),
}
__all__ = sorted(_LAZY)


def __getattr__(name):
    """Lazy exports and submodules (`npu_bridge.estimator` without importing it first)."""
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        value = _importlib.import_module(module_name)
        value = value if attr is None else getattr(value, attr)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:
            return _importlib.import_module("%s.%s" % (__name__, name))
        except ModuleNotFoundError as err:
            if err.name != "%s.%s" % (__name__, name):
                raise
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _check_sessions():
    """Session configs that carry an NpuOptimizer are resolved, checked, recorded and guarded
    (as the real adapter library does once any npu_bridge module is loaded); the defaults
    `npu_init` adds stay with `npu_init` (`_session_patch.patch(inject_defaults=False)`).
    The patch's modules import no TensorFlow of their own (npu_bridge.hooks.lazy), so this
    never runs while one of them is half loaded."""
    from npu_bridge.hooks import session_patch as _session_patch
    _session_patch.patch(inject_defaults=False)


# Once TensorFlow is (or gets) imported; also under the NPU_BRIDGE_TF2 opt-out.
_tf1_mode.call_when_tensorflow_imported(_check_sessions)
