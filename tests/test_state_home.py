"""The hooks' state has one home, `npu_bridge/hooks/state.py` (issue 23): no other module keeps
mutable state in a module-level global, checked statically over every module of the packages.
A module-level name is state when a function of its module rebinds it (`global`) or changes
it in place (`x[k] = v`, `del x[k]`, `x.append/add/update/setdefault/pop/clear/...`). Locks
are not state; tables built at import (a loop at module level) are constants.

The exceptions are listed, each with the reason it stays where it is."""
import ast

import pytest

import test_layers  # noqa: E402  (tests/test_layers.py: the modules of the packages)

MUTATORS = frozenset(("append", "extend", "add", "update", "pop", "clear", "setdefault",
                      "insert", "remove", "discard", "popitem", "appendleft", "sort"))

ALLOWED = {
    # the state module itself
    ("npu_bridge.hooks.state", "_SESSIONS"): "the sessions' states (by id, beside a weak reference)",
    # the Session patch's registries (docs/design.md "The Session patch"); GE_INITIALIZATION
    # and GUARD are objects whose methods change them (not seen here)
    ("npu_bridge.hooks.session_patch", "RESOLUTIONS"): "the resolution cache (registry)",
    # the registries of rule kinds: a kind's class registers itself where it is defined
    ("npu_bridge.ge.rule_kinds", "KINDS"): "value-rule kinds, filled by their classes",
    ("npu_bridge.ge.cross", "KINDS"): "cross-rule kinds, filled by their classes",
    # the GE layer keeps the run's records; it may import no hook (tests/test_layers.py)
    ("npu_bridge.ge.records", "_records"): "the process's resolved configurations",
    ("npu_bridge.ge.records", "_settlers"): "functions registered once, run by settle()",
    # caches of values computed from constant tables (same input, same value)
    ("npu_bridge.ge.argtypes", "_ROWS_BY_ARG"): "index of the catalog, built on first use",
    ("npu_bridge.ge.plugin_args", "_SPEC"): "npu_resource_init's argument rows, on first use",
    ("npu_bridge.ge.resolver", "_NEAR_MISS"): "did-you-mean memo over the catalog's keys",
    ("npu_bridge.tools.lint.checks", "_CATALOG"): "the catalog's lint view, on first use",
    ("npu_bridge.tools.lint.checks", "_RESOLVED"): "memo of resolved literal maps",
    ("npu_bridge.tools.lint.checks", "_NAMED"): "memo of rule names",
    # the config layer notes the ConfigProtos it rendered (by identity, weakly): below hooks
    ("npu_bridge.config._render", "_BY_ID"): "rendered session configs by id (config layer)",
    ("npu_bridge.config._render", "_RENDERED"): "the user keys of each rendered map",
    # hccl imports nothing of npu_bridge (tests/test_layers.py): its own process state
    ("hccl.manage.api", "_initialized"): "hccl (no npu_bridge import)",
    ("hccl.manage.api", "_warned"): "hccl (no npu_bridge import)",
    ("hccl.manage.api", "_groups"): "hccl (no npu_bridge import): create_group's groups",
    ("hccl.manage.api", "_table_cache"): "hccl (no npu_bridge import): parsed rank tables",
    ("hccl.split.api", "_strategies"): "hccl (no npu_bridge import): split strategies",
}


def mutable_globals(source):
    """{name: how} for the module-level names of `source` its functions rebind or change."""
    tree = ast.parse(source)
    top = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            top.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    found = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Global):
                for name in n.names:
                    found.setdefault(name, "rebound (global)")
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    isinstance(n.func.value, ast.Name) and n.func.value.id in top and \
                    n.func.attr in MUTATORS:
                found.setdefault(n.func.value.id, "changed (.%s)" % n.func.attr)
            elif isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = [n.target] if isinstance(n, ast.AugAssign) else n.targets
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                            t.value.id in top:
                        found.setdefault(t.value.id, "changed (item)")
    return found


def test_no_module_keeps_mutable_state_outside_the_state_module():
    found = []
    for module, path in sorted(test_layers.modules().items()):
        with open(path, encoding="utf-8") as f:
            for name, how in sorted(mutable_globals(f.read()).items()):
                if (module, name) not in ALLOWED:
                    found.append("%s.%s: %s" % (module, name, how))
    assert found == [], "module-level state outside npu_bridge/hooks/state.py: %s" % found


def test_every_exception_is_still_needed():
    """An exception no module needs any more is removed from `ALLOWED`."""
    mods = test_layers.modules()
    stale = []
    for module, name in sorted(ALLOWED):
        with open(mods[module], encoding="utf-8") as f:
            if name not in mutable_globals(f.read()):
                stale.append("%s.%s" % (module, name))
    assert stale == []


@pytest.mark.parametrize("source,expected", [
    ("X = []\ndef f():\n    X.append(1)\n", {"X": "changed (.append)"}),
    ("X = {}\ndef f(k):\n    X[k] = 1\n", {"X": "changed (item)"}),
    ("X = None\ndef f():\n    global X\n    X = 1\n", {"X": "rebound (global)"}),
    ("X = {}\nfor k in 'ab':\n    X[k] = 1\ndef f():\n    return X['a']\n", {}),
    ("import threading\nLOCK = threading.Lock()\ndef f():\n    with LOCK:\n        pass\n", {}),
])
def test_the_scan_sees_state(source, expected):
    assert mutable_globals(source) == expected
