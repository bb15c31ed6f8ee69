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


def check_legacy_keras(what):
    """Raise ImportError when TF_USE_LEGACY_KERAS asks for tf_keras and it cannot be imported:
    TF 2.15's tf.keras is then unusable, and so tensorflow_estimator (its import uses
    tf.keras), which `what` needs. Stock TF fails the same way, less clearly. Touches no tf.keras."""
    value = os.environ.get("TF_USE_LEGACY_KERAS")
    if value not in ("true", "True", "1"):   # TF's own test (KerasLazyLoader)
        return
    try:
        import tf_keras  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "%s needs tf.estimator and tf.keras, but TF_USE_LEGACY_KERAS=%s (environment) "
            "routes tf.keras to the tf_keras package, which cannot be imported (%s); "
            "TensorFlow 2.15's tensorflow_estimator cannot be imported without it either. "
            "Install tf_keras (pip install tf_keras) or unset TF_USE_LEGACY_KERAS (Keras 2.15); "
            "`import npu_bridge` alone gives the TF 1.x mode without them" % (what, value, e)
        ) from e


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
