"""Keras classes that `tf.keras` names, without loading the v1 Keras API.

In the TF 1.x mode `tf.keras` is the v1 Keras API: its first use imports ~75 modules (~12 ms
of `import npu_bridge.npu_init`). The classes npu_bridge subclasses at import are Keras 2's,
whose modules TensorFlow's own import has loaded already: `keras_class` takes them from there.

Also the TF 1.x mode's Keras optimizers (`LEGACY_OPTIMIZERS`, applied by `tf1_mode`).
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


# The TF 1.x mode: public Keras modules whose optimizer names give Keras 2.15's legacy
# (graph-mode) classes, `<module>.legacy.<name>`, as TF 1.15's tf.keras and standalone Keras
# 2.2/2.3 had (Keras 2.15's new ones cannot train in graph mode). tf.keras (the v1 Keras API)
# has them already; `.legacy` and `.experimental` keep their meaning.
LEGACY_OPTIMIZERS = {
    "keras.optimizers": ("Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "RMSprop",
                         "SGD"),
}


def use_legacy_optimizers(module):
    """Bind `module`'s `LEGACY_OPTIMIZERS` names to its `legacy` classes (names its `legacy`
    lacks, as in Keras 3, stay). Idempotent."""
    legacy = getattr(module, "legacy", None)
    for name in LEGACY_OPTIMIZERS.get(getattr(module, "__name__", None), ()):
        value = getattr(legacy, name, None)
        if isinstance(value, type):
            setattr(module, name, value)


def use_legacy_optimizers_loaded():
    """`use_legacy_optimizers` on every `LEGACY_OPTIMIZERS` module already imported."""
    for name in LEGACY_OPTIMIZERS:
        module = sys.modules.get(name)
        if module is not None:
            use_legacy_optimizers(module)
