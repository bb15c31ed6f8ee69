"""The NPU-only failure kinds a static read can find in a call (no TensorFlow import), one
handler each in `CALL_CHECKS` (pyflakes' way: a new kind is one handler in the list). The
run-time checks (npu_bridge/ge/npu_failures.py) see the real graph; these see only the source:
- NPB176: `ExponentialUpdateLossScaleManager(...)` called inside a `with
  ...control_dependencies(...)` block (npu_failure_cases.md row 7);
- NPB174: one `group(...)` or `.run(...)` call holding both a `*variables_initializer()` call
  (`global_variables_initializer`, `variables_initializer`; not `local_variables_initializer`
  alone: local variables are metrics' totals and counts, zeros, which a host-side
  initialization leaves anyway, and the run-time check sees their values) and an
  `X.initializer` attribute (row 5; X is taken to be an iterator).
"""
import ast
from typing import Callable, FrozenSet, NamedTuple

from npu_bridge.ge.diagnostics import make


class CallCheck(NamedTuple):
    """One check of a call.

    Attributes:
      names: the called names it reads (a call's function name or last attribute).
      token: text a file must hold for the check to apply (files without it are not walked).
      handle: `handle(node, name, walk)` -> a `Diagnostic` or None; `walk` is the walk's
        state (`deps`: how many `control_dependencies` blocks enclose the call).
    """
    names: FrozenSet[str]
    token: str
    handle: Callable


def _name(func):
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _elements(args):
    for a in args:
        if isinstance(a, (ast.List, ast.Tuple, ast.Set)):
            yield from _elements(a.elts)
        elif isinstance(a, ast.Starred):
            continue
        else:
            yield a


def _loss_scale_under_deps(node, name, walk):
    """NPB176: a loss-scale manager made under control dependencies."""
    if walk.deps:
        return make("NPB176", name, None, deps="...")
    return None


def _initializers_together(node, name, walk):
    """NPB174: the variable initializers and an iterator's initializer in one run/group."""
    elems = list(_elements(node.args))
    var_init = any(isinstance(e, ast.Call) and _name(e.func).endswith("variables_initializer")
                   and _name(e.func) != "local_variables_initializer" for e in elems)
    it_init = [e for e in elems if isinstance(e, ast.Attribute) and e.attr == "initializer"]
    if var_init and it_init:
        return make("NPB174", "initializer", ast.unparse(it_init[0]),
                    subject="%s(...)" % name, initializers="the variable initializers")
    return None


CALL_CHECKS = (
    CallCheck(frozenset({"ExponentialUpdateLossScaleManager"}),
              "ExponentialUpdateLossScaleManager", _loss_scale_under_deps),
    CallCheck(frozenset({"group", "run"}), "initializer", _initializers_together),
)


class _Walk(ast.NodeVisitor):
    def __init__(self, checks):
        self.deps = 0
        self.findings = []
        self.by_name = {}
        for check in checks:
            for name in check.names:
                self.by_name.setdefault(name, []).append(check)

    def visit_With(self, node):
        ctl = any(isinstance(i.context_expr, ast.Call)
                  and _name(i.context_expr.func) == "control_dependencies" for i in node.items)
        for item in node.items:
            self.visit(item)
        self.deps += ctl
        for stmt in node.body:
            self.visit(stmt)
        self.deps -= ctl

    def visit_FunctionDef(self, node):   # a function body runs where it is called
        saved, self.deps = self.deps, 0
        self.generic_visit(node)
        self.deps = saved

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Call(self, node):
        name = _name(node.func)
        for check in self.by_name.get(name, ()):
            diag = check.handle(node, name, self)
            if diag is not None:
                self.findings.append((node.lineno, node.col_offset + 1, diag.code,
                                      diag.severity, diag.message, diag.option))
        self.generic_visit(node)


def findings(tree, source):
    """(line, col, code, severity, message, option) of the `CALL_CHECKS` whose token `source`
    (str or bytes) holds, in the parsed `tree`; a file holding no token is not walked."""
    text = source if isinstance(source, str) else source.decode("utf-8", "replace")
    checks = [c for c in CALL_CHECKS if c.token in text]
    if not checks:
        return []
    walk = _Walk(checks)
    try:
        walk.visit(tree)
    except RecursionError:   # nested too deeply: the config producer reports it (NBL001)
        return []
    return walk.findings
