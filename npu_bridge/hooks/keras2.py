"""Keras classes that `tf.keras` names, without loading the v1 Keras API.

In the TF 1.x mode `tf.keras` is the v1 Keras API: its first use imports ~75 modules (~12 ms
of `import npu_bridge.npu_init`). The classes npu_bridge subclasses at import are Keras 2's,
whose modules TensorFlow's own import has loaded already: `keras_class` takes them from there.

Also the TF 1.x mode's Keras optimizers (`LEGACY_OPTIMIZERS`) and its join of TF 2.15's two Keras
copies (`ONE_KERAS`), applied by `tf1_mode`; docs/tf1_mode.md "Known limits".
"""
import collections
import os
import sys

from npu_bridge.hooks import patching as _patching

TAG = "tf1"   # part of the TF 1.x mode's changes (npu_bridge.hooks.tf1_mode.TAG)


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
        if isinstance(value, type) and module.__dict__.get(name) is not value:
            _patching.replace(module, name, value, TAG)


def use_legacy_optimizers_loaded():
    """`use_legacy_optimizers` on every `LEGACY_OPTIMIZERS` module already imported."""
    for name in LEGACY_OPTIMIZERS:
        module = sys.modules.get(name)
        if module is not None:
            use_legacy_optimizers(module)


# The TF 1.x mode: TF 1.15 had one Keras (tf.keras was tensorflow.python.keras); TF 2.15 has
# two, Keras 2.15 (tf.keras in the mode) and TF's frozen copy `tensorflow.python.keras`, which
# scripts written against TF 1.15 import by path (DeepCTR: a tensorflow.python.keras Layer
# calling tf.keras.layers.BatchNormalization in its `call`). Joined as TF 1.15 had them:
# - one record of the variables each Keras session initializes on use (`_GRAPH_VARIABLES`,
#   `_GRAPH_TF_OPTIMIZERS`), one Keras session per thread (`_SESSION`) and one learning phase
#   per graph (`learning_phase`, ...): a model of one copy trains the other's layers (their
#   variables initialized, BatchNormalization in training mode during `fit`), and `set_session`
#   of either is the session of both; one count of layer names per graph (`dense`, `dense_1`:
#   names unique in a model of both);
# - one kind of layer: a layer's sublayers of the other copy count (their `updates`: the moving
#   statistics of a BatchNormalization);
# - one "inside a layer's call": a layer of one copy called in the `call` of the other's does not
#   build Keras history (TF 1.15: `needs_keras_history` is False in a call), which evaluated the
#   enclosing layer's tensors before any initializer ran (FailedPreconditionError "Could not find
#   variable .../bias0" from `_create_keras_history_helper`).
# Keras 2.15's module first: its objects are kept, the copy's are pointed at them.
ONE_KERAS = {
    "backend": ("keras.src.backend", "tensorflow.python.keras.backend"),
    "base_layer_utils": ("keras.src.engine.base_layer_utils",
                         "tensorflow.python.keras.engine.base_layer_utils"),
    "base_layer": ("keras.src.engine.base_layer", "tensorflow.python.keras.engine.base_layer"),
    # the copy's Model.compile takes tf.keras optimizers (Keras 2.15's legacy ones in the mode)
    "optimizers": ("keras.src.optimizers.legacy.optimizer_v2", "tensorflow.python.keras.optimizers"),
}
ONE_KERAS_MODULES = frozenset(name for pair in ONE_KERAS.values() for name in pair)
_SHARED_STATE = ("_GRAPH_VARIABLES", "_GRAPH_TF_OPTIMIZERS", "_SESSION",
                 "PER_GRAPH_OBJECT_NAME_UIDS", "OBSERVED_NAMES")
# the two keep their learning phases differently (weak references in Keras 2.15): the copy's
# functions are Keras 2.15's
_SHARED_FUNCTIONS = ("learning_phase", "symbolic_learning_phase", "set_learning_phase",
                     "learning_phase_scope")


def join_keras_copies(module):
    """When `module` is one of `ONE_KERAS` and its counterpart is loaded, join the two (above).
    Idempotent."""
    name = getattr(module, "__name__", None)
    if name not in ONE_KERAS_MODULES:
        return
    for kind, (keras_name, copy_name) in ONE_KERAS.items():
        if name not in (keras_name, copy_name):
            continue
        keras_module, copy_module = sys.modules.get(keras_name), sys.modules.get(copy_name)
        if name == keras_name:
            keras_module = module
        else:
            copy_module = module
        if keras_module is None or copy_module is None:
            return
        if kind == "backend":
            _share_backend_state(keras_module, copy_module)
        elif kind == "base_layer":
            _both_layers(keras_module.Layer, copy_module.Layer)
        elif kind == "optimizers":
            _copy_takes_keras_optimizers(keras_module.OptimizerV2, copy_module)
        else:
            _one_call_context(keras_module, copy_module)
            _one_call_context(copy_module, keras_module)


def join_keras_copies_loaded():
    """`join_keras_copies` on the `ONE_KERAS` modules already imported."""
    for name in sorted(ONE_KERAS_MODULES):
        module = sys.modules.get(name)
        if module is not None:
            join_keras_copies(module)


def _share_backend_state(keras_backend, copy_backend):
    for attr in _SHARED_STATE:
        mine, theirs = getattr(keras_backend, attr, None), getattr(copy_backend, attr, None)
        if mine is None or theirs is None or mine is theirs:
            continue
        if attr == "_SESSION":
            session = getattr(theirs, "session", None)
            if session is not None and getattr(mine, "session", None) is None:
                mine.session = session   # only this thread's is reachable
        elif attr == "OBSERVED_NAMES":
            mine.update(theirs)
        elif attr == "PER_GRAPH_OBJECT_NAME_UIDS":
            for graph, uids in list(theirs.items()):   # names the copy gave already
                counts = mine.setdefault(graph, collections.defaultdict(int))
                for name, uid in uids.items():
                    counts[name] = max(counts[name], uid)
        else:
            for graph, values in list(theirs.items()):   # what the copy recorded already
                for value in values:
                    mine[graph].add(value)
        _patching.replace(copy_backend, attr, mine, TAG)
    for name in _SHARED_FUNCTIONS:
        if hasattr(keras_backend, name) and \
                copy_backend.__dict__.get(name) is not getattr(keras_backend, name):
            _patching.replace(copy_backend, name, getattr(keras_backend, name), TAG)


def _both_layers(keras_layer, copy_layer):
    """A layer's sublayers (its `updates`, `losses`, `layers`) are the layers of both copies."""
    classes = (keras_layer, copy_layer)

    def make(original):
        def _flatten_layers(self, recursive=True, include_self=True):
            for module in self._flatten_modules(recursive=recursive, include_self=include_self):
                if isinstance(module, classes):
                    yield module
        return _flatten_layers
    for cls in classes:
        if not _patching.wrapped(cls, "_flatten_layers"):
            _patching.wrap(cls, "_flatten_layers", make, TAG)


def _copy_takes_keras_optimizers(optimizer_v2, copy_optimizers):
    """The copy's `optimizers.get` returns a Keras 2.15 (legacy) optimizer unchanged, as it
    returns its own: its v1 training loop calls only `get_updates`, which both have."""
    if _patching.wrapped(copy_optimizers, "get"):
        return

    def make(original):
        def get(identifier):
            if isinstance(identifier, optimizer_v2):
                return identifier
            return original(identifier)
        return get
    _patching.wrap(copy_optimizers, "get", make, TAG)


def _one_call_context(module, other):
    """`module.needs_keras_history` is False inside a call of `other`'s layers too."""
    if _patching.wrapped(module, "needs_keras_history"):
        return

    def make(original):
        def needs_keras_history(tensors, ignore_call_context=False):
            if not ignore_call_context and other.call_context().in_call:
                return False
            return original(tensors, ignore_call_context)
        return needs_keras_history
    _patching.wrap(module, "needs_keras_history", make, TAG)
