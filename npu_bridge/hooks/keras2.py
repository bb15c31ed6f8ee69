"""Keras classes that `tf.keras` names, without loading the v1 Keras API.

In the TF 1.x mode `tf.keras` is the v1 Keras API: its first use imports ~75 modules (~12 ms
of `import npu_bridge.npu_init`). The classes npu_bridge subclasses at import are Keras 2's,
whose modules TensorFlow's own import has loaded already: `keras_class` takes them from there.
"""
import os
import sys


def keras_class(module_name, class_name, api_lookup):
    """`module_name.class_name` when that Keras 2 module is loaded and `tf.keras` is Keras 2
    (TF_USE_LEGACY_KERAS unset), else `api_lookup()` (the `tf.keras...` expression)."""
    module = sys.modules.get(module_name)
    if module is not None and os.environ.get("TF_USE_LEGACY_KERAS") not in ("true", "True", "1"):
        return getattr(module, class_name)
    return api_lookup()
