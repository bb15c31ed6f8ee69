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
