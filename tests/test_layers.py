"""The layers of docs/design.md, checked statically over every module of the packages: each
package imports only its own layer and the ones below (GE < config < hooks < tools), the GE
layer and `hccl` import no TensorFlow, `hccl` and `moxing` no `npu_bridge`, and no private
name (`_x`, a module `_m`) is used outside the package that defines it."""
import ast
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOTS = ("npu_bridge", "hccl", "moxing")

GE, CONFIG, HOOKS, TOOLS = 0, 1, 2, 3
LAYER_NAMES = {GE: "GE model", CONFIG: "config", HOOKS: "TF hooks", TOOLS: "tools"}
# package -> layer (docs/design.md, "Layers"). `npu_bridge` is the package's own modules
# (`__init__`, `npu_init`, `tf_adapter`); a module's package is `npu_bridge.X` for a module
# inside the folder npu_bridge/X/, else its top-level package.
PACKAGES = {
    "npu_bridge.ge": GE,
    "npu_bridge.config": CONFIG,
    "npu_bridge.hooks": HOOKS,
    "npu_bridge": HOOKS,
    "npu_bridge.estimator": HOOKS,
    "npu_bridge.hccl": HOOKS,
    "npu_bridge.npu_cpu": HOOKS,
    "npu_bridge.profiler": HOOKS,
    "npu_bridge.tbe": HOOKS,
    "hccl": HOOKS,
    "moxing": HOOKS,
    "npu_bridge.tools": TOOLS,
}
MODULE_LAYERS = {"npu_bridge.__main__": TOOLS}   # `python -m npu_bridge`: the command
NO_TENSORFLOW = ("npu_bridge.ge", "hccl")
NO_NPU_BRIDGE = ("hccl", "moxing")


def modules(repo=REPO):
    """{dotted name: path} of every module of the packages."""
    out = {}
    for root in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(repo, root)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in files:
                if f.endswith(".py"):
                    path = os.path.join(folder, f)
                    parts = os.path.relpath(path, repo)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts.pop()
                    out[".".join(parts)] = path
    return out


def package_of(module, repo=REPO):
    parts = module.split(".")
    if parts[0] == "npu_bridge" and len(parts) > 1 and \
            os.path.isdir(os.path.join(repo, "npu_bridge", parts[1])):
        return "npu_bridge." + parts[1]
    return parts[0]


def layer_of(module, repo=REPO):
    if module in MODULE_LAYERS:
        return MODULE_LAYERS[module]
    return PACKAGES.get(package_of(module, repo))


def _ours(name):
    return name.split(".")[0] in ROOTS


def imports(path, module, known):
    """(line, imported module, name or None) of each import statement of the module, at any
    depth (function-level imports count). `from P import N` is module P.N when that exists."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    is_pkg = path.endswith("__init__.py")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                parts = parts[:len(parts) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                full = "%s.%s" % (base, a.name)
                out.append((node.lineno, full, None) if full in known
                           else (node.lineno, base, a.name))
    return tree, out


def module_aliases(src, owner):
    """The names a module binds to the module `owner` by importing it."""
    names = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == owner and a.asname:
                    names.add(a.asname)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                if "%s.%s" % (node.module, a.name) == owner:
                    names.add(a.asname or a.name)
    return names


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owner_of_private(target, name, repo):
    """(module, private name) when importing `name` from `target` (or `target` itself, for a
    module import) reaches a private name: a private function/class/constant, or a private
    module on the path (`npu_bridge._records`, `hccl.manage._ranktable`)."""
    if name is not None and _private(name):
        return target, name
    parts = target.split(".")
    for i in range(1, len(parts)):
        if _private(parts[i]):
            return ".".join(parts[:i]), parts[i]
    return None


def private_crossings(repo=REPO):
    """[(owner module, private name)] used by a module of another package: imported (`from
    a.b import _x`, `import a._m`) or read as an attribute of an imported module (`b._x`)."""
    known = modules(repo)
    found = []
    for module, path in sorted(known.items()):
        mine = package_of(module, repo)
        tree, imps = imports(path, module, known)
        for _, target, name in imps:
            if not _ours(target):
                continue
            hit = _owner_of_private(target, name, repo)
            if hit and package_of(hit[0], repo) != mine:
                found.append(hit + (module,))
        # attributes of imported modules: alias._x
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if _ours(a.name):
                        top = a.name.split(".")[0]
                        aliases[a.asname or top] = a.name if a.asname else top
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for a in node.names:
                    full = "%s.%s" % (node.module, a.name)
                    if full in known:
                        aliases[a.asname or a.name] = full
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                chain, value = [node.attr], node.value
                while isinstance(value, ast.Attribute):
                    chain.insert(0, value.attr)
                    value = value.value
                if not isinstance(value, ast.Name) or value.id not in aliases:
                    continue
                dotted = aliases[value.id]
                # the longest module prefix of alias.chain
                for i, part in enumerate(chain):
                    if "%s.%s" % (dotted, part) in known and i < len(chain) - 1:
                        dotted = "%s.%s" % (dotted, part)
                        continue
                    if _private(part) and package_of(dotted, repo) != mine:
                        found.append((dotted, part, module))
                    break
    return found


def test_every_module_belongs_to_a_layer():
    missing = sorted(m for m in modules() if layer_of(m) is None)
    assert not missing, ("modules of no package of docs/design.md's Layers (add the package "
                         "to PACKAGES here and to the table there): %s" % missing)


def test_each_package_imports_only_its_layer_and_the_ones_below():
    known = modules()
    bad = []
    for module, path in sorted(known.items()):
        mine = layer_of(module)
        for line, target, _ in imports(path, module, known)[1]:
            if not _ours(target):
                continue
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                bad.append("%s:%d imports %s (%s layer, above %s)" % (
                    os.path.relpath(path, REPO), line, target, LAYER_NAMES[theirs],
                    LAYER_NAMES[mine]))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", NO_TENSORFLOW)
def test_no_tensorflow_in(package):
    known = modules()
    bad = ["%s:%d imports %s" % (os.path.relpath(path, REPO), line, target)
           for module, path in sorted(known.items()) if package_of(module) == package
           for line, target, _ in imports(path, module, known)[1]
           if target.split(".")[0] in ("tensorflow", "tensorflow_estimator", "keras")]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", NO_NPU_BRIDGE)
def test_no_npu_bridge_in(package):
    known = modules()
    bad = ["%s:%d imports %s" % (os.path.relpath(path, REPO), line, target)
           for module, path in sorted(known.items()) if package_of(module) == package
           for line, target, _ in imports(path, module, known)[1]
           if target.split(".")[0] == "npu_bridge"]
    assert not bad, "\n".join(bad)


def test_no_private_name_crosses_a_package():
    bad = ["%s uses %s.%s" % (user, owner, name) for owner, name, user in private_crossings()]
    assert not bad, ("private names used outside their package (make them public where they "
                     "are defined):\n" + "\n".join(bad))


def test_the_checks_see_a_crossing(tmp_path):
    """The analysis finds each kind of violation in a tree made for it."""
    pkg = tmp_path / "npu_bridge"
    for sub in ("ge", "hooks", "tools"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "hooks" / "patch.py").write_text("_CACHE = {}\ndef _helper():\n    pass\n")
    (pkg / "tools" / "cli.py").write_text(
        "from npu_bridge.hooks.patch import _helper\nfrom npu_bridge.hooks import patch\n"
        "x = patch._CACHE\n")
    found = sorted(private_crossings(str(tmp_path)))
    assert found == [("npu_bridge.hooks.patch", "_CACHE", "npu_bridge.tools.cli"),
                     ("npu_bridge.hooks.patch", "_helper", "npu_bridge.tools.cli")], found


def _load_time_imports(path, module, known):
    """The modules of ours `module` imports while it loads: its import statements outside
    functions and classes' methods (under `if`/`try` too), each resolved to a known module
    (`from a.b import c` is a.b.c when that is a module, else a.b)."""
    tree, imps = imports(path, module, known)
    lines, stack = set(), list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.add(node.lineno)
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ClassDef)):
            for name in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, name, ()))
            stack.extend(s for h in getattr(node, "handlers", ()) for s in h.body)
    out = set()
    for line, target, _ in imps:
        while line in lines and target and target not in known:
            target = target.rpartition(".")[0]
        if line in lines and target and target != module:
            out.add(target)
    return out


def _all_imports(path, module, known):
    """The modules of ours `module` imports anywhere (inside functions too)."""
    out = set()
    for _, target, _ in imports(path, module, known)[1]:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != module:
            out.add(target)
    return out


def import_cycles(repo=REPO, deferred=False):
    """The cycles (sorted module lists) of the load-time import graph of our modules (with
    `deferred`, of every import, inside functions too)."""
    known = modules(repo)
    find = _all_imports if deferred else _load_time_imports
    graph = {m: find(p, m, known) for m, p in known.items()}
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):   # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    """No module needs another to be half loaded (issue 23: session_patch, session_guard and
    graph_capture imported each other, and npu_bridge/__init__ read CPython's private
    `__spec__._initializing` to cope)."""
    assert import_cycles() == []


def test_no_cycle_through_imports_inside_functions():
    """A cycle hidden in a function's import is still two modules needing each other: none.
    Removed: ge_graph <-> continuous_mem and memory_plan <-> memory_graph (issue 22, shared
    types in memory_desc); the catalog layer's (diagnostics and rule_kinds read the rows'
    data in `_rows`, config_schema reads `text` and `legacy`, not the catalog) and the
    Session patch's hooks' (graph_capture and partition_capture read the emulation's round
    trips through `hooks.state.script_inputs`, npu_plugin joins `GE_INITIALIZATION` itself,
    precision_emulation reads the overflow mode from `hooks.state.ADAPTER`) in issue 23."""
    assert import_cycles(deferred=True) == []


def test_the_cycle_check_sees_a_cycle(tmp_path):
    pkg = tmp_path / "npu_bridge"
    (pkg / "hooks").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "hooks" / "__init__.py").write_text("")
    (pkg / "hooks" / "a.py").write_text("from npu_bridge.hooks import b\n")
    (pkg / "hooks" / "b.py").write_text("try:\n    import npu_bridge.hooks.a\nexcept ImportError:\n"
                                        "    pass\n\n\ndef later():\n    from npu_bridge.hooks import c\n")
    (pkg / "hooks" / "c.py").write_text("from npu_bridge.hooks import b\n")
    assert import_cycles(str(tmp_path)) == [["npu_bridge.hooks.a", "npu_bridge.hooks.b"]]
    assert import_cycles(str(tmp_path), deferred=True) == [
        ["npu_bridge.hooks.a", "npu_bridge.hooks.b", "npu_bridge.hooks.c"]]
