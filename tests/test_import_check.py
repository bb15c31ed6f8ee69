"""Session configurations are checked whenever `npu_bridge` is imported, not only with
`from npu_bridge.npu_init import *`.

On the real stack, importing any `npu_bridge` module loads the adapter library, whose C++
NpuOptimizer reads and checks the `parameter_map` of every session config that carries one;
the Python-side defaults (adding an NpuOptimizer, the rewrite options) only come with
`npu_init`. Here: any import of `npu_bridge` installs the Session patch in check-only mode
(`_session_patch.patch(inject_defaults=False)`) as soon as TensorFlow is (or gets) imported;
`npu_init` upgrades it to the full patch. Each scenario runs in a fresh interpreter.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import _pool

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The environment of every run, taken at import: the runs start in the background while other
# tests run (EARLY_RUNS below), and those may monkeypatch os.environ meanwhile.
_ENVIRON = dict(os.environ)

# The part every scenario shares, after its own imports. It does not import any other
# npu_bridge module before the sessions are made (that would hide what the import did).
BODY = r'''
import json, sys
r = {"patch_loaded_early": "npu_bridge.hooks.session_patch" in sys.modules,
     "ge_loaded_early": "npu_bridge.ge.resolver" in sys.modules}
Session = tf.compat.v1.Session


def npu_config(**params):
    config = tf.compat.v1.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    for key, (field, value) in params.items():
        setattr(op.parameter_map[key], field, value)
    return config


bad = npu_config(precision_mode=("s", b"allow_mix_precison"))   # typo: GE rejects it
try:
    Session(config=bad).close()
    r["bad"] = "accepted"
except Exception as err:
    r["bad"] = [type(err).__name__] + sorted(d.code for d in getattr(err, "diagnostics", ())
                                             if d.severity == "error")
good = npu_config(static_memory_policy=("i", 2), iterations_per_loop=("i", 3))
with Session(config=good) as sess:
    r["one"] = int(sess.run(tf.constant(1)))
    from npu_bridge.hooks import state
    r["guard"] = state.guard_policy(sess)
    # an iteration loop registered on the session runs N steps per run (as on the NPU)
    from npu_bridge.estimator.npu import util
    counter = tf.compat.v1.Variable(0, name="counter")
    step = tf.compat.v1.assign_add(counter, 1)
    sess.run(tf.compat.v1.global_variables_initializer())
    loop = util.set_iteration_per_loop(sess, step.op, 3)
    sess.run(loop)
    r["counter"] = int(sess.run(counter))
r["good_soft_placement"] = good.allow_soft_placement
plain = tf.compat.v1.ConfigProto()
with Session(config=plain) as sess:
    sess.run(tf.constant(2))
r["plain_optimizers"] = len(plain.graph_options.rewrite_options.custom_optimizers)
from npu_bridge.ge import records as _records
r["records"] = [[x["kind"], x["refused"]] for x in _records.records()]
r["npu_init"] = "npu_bridge.npu_init" in sys.modules
print("RESULT " + json.dumps(r))
'''


def run_scenario(tmp_path, head, env=None):
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(head) + BODY)
    full_env = {k: v for k, v in _ENVIRON.items() if not k.startswith("NPU_BRIDGE_")}
    full_env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in [_ENVIRON.get("PYTHONPATH")] if p])
    full_env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), env=full_env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    assert len(lines) == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(lines[0][len("RESULT "):])


def _first_import_env():
    env = {k: v for k, v in _ENVIRON.items() if not k.startswith("NPU_BRIDGE_")}
    env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in [_ENVIRON.get("PYTHONPATH")] if p])
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def _first_import(module):
    """`import module` first in a fresh interpreter: (module, exit code, output)."""
    code = ("import %s\nfrom npu_bridge.hooks import session_patch as p\n"
            "print('PATCHED', p.is_patched())\n" % module)
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=_first_import_env(),
                          capture_output=True, text=True, timeout=600)
    return module, proc.returncode, proc.stdout + proc.stderr[-1500:]


CHECK_ONLY = {
    "bad": ["NpuConfigError", "E10001"],
    "one": 1, "guard": "2", "counter": 3,
    "good_soft_placement": False,   # check only: the caller's proto is not edited
    "plain_optimizers": 0,          # no NpuOptimizer: not added, not resolved, not recorded
    "records": [["session", True], ["session", False]],
    "npu_init": False,
}


_HEADS = {
    "tf_then_npu_bridge": "import tensorflow as tf\nimport npu_bridge\n",          # TF first
    "npu_bridge_then_tf": "import npu_bridge\nimport tensorflow as tf\n",          # TF after
    "npu_ops_only": "import tensorflow as tf\nfrom npu_bridge.estimator import npu_ops\n",
    "tf2_opt_out": ("import npu_bridge\nimport tensorflow as tf\n"
                    "tf.compat.v1.disable_v2_behavior()\n", {"NPU_BRIDGE_TF2": "1"}),
    "star": "import tensorflow as tf\nfrom npu_bridge.npu_init import *\n",
}
# Every fresh interpreter the module's tests read (a TensorFlow start each), started two at a
# time by the `runs` fixture: the scenarios, then each module imported first.
_JOBS = {name: (lambda tmp, head=head: run_scenario(tmp, *head) if isinstance(head, tuple)
                else run_scenario(tmp, head)) for name, head in _HEADS.items()}
_MODULES = None


def _module_jobs():
    global _MODULES
    if _MODULES is None:
        _MODULES = _modules_importing_tensorflow()
        for module in _MODULES:
            _JOBS["first " + module] = lambda tmp, module=module: _first_import(module)
    return _MODULES


def _needs(item):
    if item.originalname == "test_import_without_npu_init_checks_sessions":
        return (item.callspec.id,)
    if item.originalname == "test_every_module_imports_first_and_installs_the_check":
        return ["first " + m for m in _module_jobs()]
    return {"test_import_only_is_checked_under_tf2_opt_out": ("tf2_opt_out",),
            "test_star_import_checks_and_injects_defaults": ("star",)}.get(item.originalname, ())


# The 39 runs (about 4 minutes of one core) start when collection ends, in the background,
# beside the in-process tests (tests/_pool.py)
EARLY_RUNS = (_JOBS, _needs)


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    yield from _pool.prestart(request, tmp_path_factory, _JOBS, _needs)


@pytest.mark.parametrize("head,ge_loaded", [
    ("tf_then_npu_bridge", False), ("npu_bridge_then_tf", False), ("npu_ops_only", None),
], ids=["tf_then_npu_bridge", "npu_bridge_then_tf", "npu_ops_only"])
def test_import_without_npu_init_checks_sessions(runs, head, ge_loaded):
    r = dict(runs[head])
    assert r.pop("patch_loaded_early") is True
    # the patch is cheap: the resolver layer is loaded when a config first needs it
    early = r.pop("ge_loaded_early")
    assert ge_loaded is None or early is ge_loaded
    assert r == CHECK_ONLY


def test_import_only_is_checked_under_tf2_opt_out(runs):
    # NPU_BRIDGE_TF2=1 only keeps the TF 2 API; configurations are still checked.
    r = dict(runs["tf2_opt_out"])
    assert r.pop("patch_loaded_early") is True
    r.pop("ge_loaded_early")
    assert r == CHECK_ONLY


def test_star_import_checks_and_injects_defaults(runs):
    r = dict(runs["star"])
    assert r.pop("patch_loaded_early") is True
    r.pop("ge_loaded_early")
    assert r == dict(CHECK_ONLY, good_soft_placement=True, plain_optimizers=1, npu_init=True,
                     records=[["session", True], ["session", False], ["session", False]])


def test_npu_bridge_ge_alone_stays_tensorflow_free():
    code = ("import sys, npu_bridge.ge\n"
            "bad = [m for m in sys.modules if m.split('.')[0] == 'tensorflow'"
            " or m == 'npu_bridge.hooks.session_patch']\n"
            "assert not bad, bad[:5]\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, timeout=120)


def _modules_importing_tensorflow():
    """Every module of the two packages that imports TensorFlow at its top level."""
    found = []
    for package in ("npu_bridge", "hccl"):
        root = os.path.join(REPO, package)
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    top = [l for l in f if l.startswith(("import tensorflow", "from tensorflow"))]
                if top:
                    rel = os.path.relpath(path, REPO)[:-3].replace(os.sep, ".")
                    found.append(rel[:-len(".__init__")] if rel.endswith(".__init__") else rel)
    return sorted(found)


def test_every_module_imports_first_and_installs_the_check(runs):
    # Importing a module of the package first (before tensorflow, in a fresh interpreter)
    # runs the Session check's installation while that module is half imported: it must
    # neither crash (a circular import) nor be skipped. Real scripts begin with any of
    # these (`from npu_bridge.estimator.npu import util`: usage_census.md).
    modules = _modules_importing_tensorflow()
    assert "npu_bridge.estimator.npu.util" in modules and len(modules) >= 15
    results = [runs["first " + module] for module in modules]
    failed = ["%s: exit %d\n%s" % r for r in results if r[1] != 0 or "PATCHED True" not in r[2]]
    assert not failed, "\n\n".join(failed)
