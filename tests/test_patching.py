"""npu_bridge.hooks.patching: every change is recorded under its tag and undone exactly
(issue 23). The Session patch goes through it: installed by any `import npu_bridge...` once
TensorFlow is imported, removed by `undo("session")`, Session's methods are TensorFlow's own
again (a fresh interpreter, so nothing else has patched them)."""
import json
import os
import subprocess
import sys
import types

from npu_bridge.hooks import patching, state

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_replace_wrap_and_items_are_undone_last_first():
    owner = types.SimpleNamespace(f=lambda x: x + 1, kept=1)
    table = {"a": 1}
    before = len(state.PATCHES)
    wrapper = patching.wrap(owner, "f", lambda original: lambda x: original(x) * 10, "t-test")
    assert owner.f(1) == 20 and patching.wrapped(owner, "f") and patching.original(wrapper)(1) == 2
    patching.replace(owner, "new", 5, "t-test")
    patching.replace(owner, "kept", 2, "t-test")
    patching.replace(owner, "kept", 3, "t-test")
    patching.replace_item(table, "a", 2, "t-test")
    patching.replace_item(table, "b", 3, "t-test")
    calls = []
    patching.on_undo(lambda: calls.append("undone"), "t-test")
    patching.replace(owner, "other", 1, "t-other")
    assert patching.installed("t-test") == 7
    assert patching.undo("t-test") == 7
    assert owner.f(1) == 2 and not patching.wrapped(owner, "f") and owner.kept == 1
    assert not hasattr(owner, "new") and table == {"a": 1} and calls == ["undone"]
    assert owner.other == 1 and patching.installed("t-other") == 1   # another tag stays
    patching.undo("t-other")
    assert not hasattr(owner, "other") and len(state.PATCHES) == before


SCRIPT = r'''
import json, sys
import tensorflow as tf
from tensorflow.python.client import session as s
from tensorflow.python.training import queue_runner_impl as q
TARGETS = [(s.Session, "__init__"), (s.InteractiveSession, "__init__"), (s.BaseSession, "run"),
           (s.BaseSession, "make_callable"), (s.BaseSession, "partial_run"),
           (s.BaseSession, "close"), (q.QueueRunner, "create_threads"),
           (s.BaseSession, "_make_callable_from_options")]
def now():
    return [id(vars(cls).get(name)) for cls, name in TARGETS]
before = now()
import npu_bridge.npu_init
from npu_bridge.hooks import patching, session_patch
patched = now()
out = {"changed": [a != b for a, b in zip(before, patched)], "patched": session_patch.is_patched(),
       "undone": patching.undo("session"), "after_is_patched": session_patch.is_patched(),
       "same": now() == before}
with tf.compat.v1.Session() as sess:   # a plain session works, unpatched
    out["runs"] = int(sess.run(tf.constant(3)))
out["repatched"] = session_patch.patch()
print(json.dumps(out))
'''


def test_the_session_patch_is_removed_and_tensorflow_is_as_it_was():
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"changed": [True] * 8, "patched": True, "undone": 8,
                   "after_is_patched": False, "same": True, "runs": 3, "repatched": True}


# Every module loaded before npu_bridge, and the classes the patches touch, are compared
# name by name (identity) before `import npu_bridge.npu_init` and after `undo()`.
UNDO_ALL = r'''
import builtins, json, sys, types
import tensorflow as tf
import keras, keras.optimizers
import tensorflow.python.keras.backend, tensorflow.python.keras.engine.base_layer
from absl.flags import _argument_parser
from tensorflow.python.util.lazy_loader import LazyLoader
# Switching the v2 behaviour back on (tf.compat.v1.enable_v2_behavior, the undo of the mode's
# disable_v2_behavior) creates TF's eager context and rebinds context.context to
# context_safe: TensorFlow's own doing (tensorflow/python/framework/ops.py,
# enable_eager_execution_internal).
EAGER_CONTEXT = {("tensorflow.python.eager.context", "_context"),
                 ("tensorflow.python.eager.context", "context"),
                 # and what a Session run sets in TF itself (its flags, made on first use; the
                 # note that a session without mixed precision was created)
                 ("tensorflow.core.config.flags", "FLAGS"),
                 ("tensorflow.python.training.experimental.mixed_precision_global_state",
                  "_non_mixed_precision_session_created")}
CLASSES = [sys.modules["keras.src.engine.base_layer"].Layer,
           sys.modules["tensorflow.python.keras.engine.base_layer"].Layer,
           _argument_parser.EnumParser, tf.compat.v1.Session, tf.compat.v1.InteractiveSession,
           tf.compat.v1.train.QueueRunner, tf.keras.layers.Dropout]
for cls in list(CLASSES):
    CLASSES.extend(c for c in cls.__mro__ if c is not object and c not in CLASSES)
def snapshot():
    spaces = {name: m.__dict__ for name, m in list(sys.modules.items())
              if isinstance(getattr(m, "__dict__", None), dict)}
    spaces.update(("class " + c.__qualname__, vars(c)) for c in CLASSES)
    spaces["tensorflow.__path__"] = dict(enumerate(tf.__path__))
    spaces["sys.meta_path"] = dict(enumerate(sys.meta_path))
    return {key: {n: id(v) for n, v in list(space.items())} for key, space in spaces.items()}, \
        {name: m for name, m in sys.modules.items()}
before, modules_before = snapshot()
held = [v for space in [m.__dict__ for m in list(sys.modules.values())
                        if isinstance(getattr(m, "__dict__", None), dict)] for v in space.values()]

import npu_bridge.npu_init
from npu_bridge.hooks import patching, tf1_mode
from npu_bridge.estimator.npu import npu_convert_dropout
assert tf1_mode.is_enabled() and not tf.executing_eagerly()
touched = [tf.contrib.framework, tf.keras.optimizers.Adam, keras.optimizers.Adam, tf.nn.rnn_cell,
           tf.Session]
import tensorflow.contrib.framework
import tensorflow.python.keras.engine.base_layer_utils   # loaded after: the copies joined

# A guarded session (static_memory_policy 2) with a QueueRunner: what the patch keeps for the
# session, its graph and the runners lives in npu_bridge.hooks.state, not on TF's objects.
config = tf.compat.v1.ConfigProto()
npu = config.graph_options.rewrite_options.custom_optimizers.add()
npu.name = "NpuOptimizer"
npu.parameter_map["static_memory_policy"].i = 2
g = tf.Graph()
with g.as_default():
    q = tf.compat.v1.FIFOQueue(4, tf.float32)
    tf.compat.v1.train.add_queue_runner(tf.compat.v1.train.QueueRunner(q, [q.enqueue([1.0])]))
    x = q.dequeue() + 1
    with tf.compat.v1.Session(config=config) as sess:
        coord = tf.compat.v1.train.Coordinator()
        threads = tf.compat.v1.train.start_queue_runners(sess, coord)
        assert sess.run(x) == 2.0
        coord.request_stop()
        coord.join(threads)
objects = [g, sess, q] + list(g.get_operations())
for m in list(sys.modules.values()):
    if (getattr(m, "__name__", None) or "").partition(".")[0] in ("tensorflow", "keras", "absl"):
        objects.append(m)
        objects.extend(v for v in list(vars(m).values()) if isinstance(v, type))
out_npu = sorted({"%r.%s" % (type(o).__name__, n) for o in objects
                  for n in list(getattr(o, "__dict__", {})) if str(n).startswith("_npu")})

undone = patching.undo()
after, modules_after = snapshot()
out = {"undone": undone, "left": patching.installed(), "eager": tf.executing_eagerly(),
       "enabled": tf1_mode.is_enabled(), "import": builtins.__import__.__module__,
       "npu_attributes": out_npu}
changed = []
for key, names in before.items():
    now = after.get(key, {})
    for n in set(names) | set(now):
        if names.get(n) == now.get(n):
            continue
        old = modules_before.get(key)
        old_value = old.__dict__.get(n) if old is not None else None
        new_value = sys.modules[key].__dict__.get(n) if key in sys.modules else None
        if isinstance(old_value, LazyLoader) and isinstance(new_value, types.ModuleType):
            continue   # TensorFlow's own lazy loading, not a patch
        if n not in names and isinstance(new_value, types.ModuleType) and \
                sys.modules.get(key + "." + n) is new_value and \
                not type(new_value.__spec__.loader).__module__.startswith("npu_bridge"):
            continue   # a submodule imported since (the import system binds it)
        if n in ("__warningregistry__",) or key in ("__main__", "__mp_main__"):
            continue
        if key == "six.moves" or (key, n) in EAGER_CONTEXT:
            continue   # six resolves its moved names on first use (MovedAttribute.__get__)
        changed.append("%s.%s" % (key, n))
out["changed"] = sorted(changed)
added = []
for key in set(modules_after) - set(modules_before):
    module = modules_after[key]
    spec = getattr(module, "__spec__", None)
    loader = type(getattr(spec, "loader", None)).__module__
    if key == "npu_bridge.estimator.npu.npu_config":
        continue   # the config layer's module under its real name (docs/design.md, thin modules)
    if getattr(module, "__name__", None) != key or loader.startswith("npu_bridge"):
        added.append(key)
out["added_modules"] = sorted(added)
out["replaced_modules"] = sorted(k for k in modules_before if modules_after.get(k) is not modules_before[k])
out["again"] = [tf1_mode.enable(), tf.executing_eagerly(), tf.Session is tf.compat.v1.Session,
                patching.installed("tf1") > 100]
print(json.dumps(out))
'''


def test_everything_npu_init_installs_is_removed_and_tensorflow_is_as_it_was():
    """`patching.undo()` after `import npu_bridge.npu_init`, a contrib import, the Keras
    copies joined and a guarded session run: every module loaded before and the classes
    patched hold the same objects as before, sys.modules has no entry the package served,
    eager execution is back; and no `_npu*` attribute was set on a TensorFlow, Keras or
    absl object (module, class, graph, session, op) meanwhile."""
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("NPU_BRIDGE_TF2", None)
    proc = subprocess.run([sys.executable, "-c", UNDO_ALL], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["undone"] > 100 and out["left"] == 0
    assert out == dict(out, eager=True, enabled=False, changed=[], added_modules=[],
                       replaced_modules=[], npu_attributes=[], **{"import": "builtins"})
    assert out["again"] == [True, False, True, True]   # the mode can be switched on again
