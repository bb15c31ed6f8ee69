"""The NPU-only failure kinds a static read can find (no TensorFlow import); `npu-bridge lint`
adds these to its findings. The run-time checks (npu_bridge/ge/npu_failures.py) see the real
graph; these see only the source:
- NPB176: `ExponentialUpdateLossScaleManager(...)` called inside a `with
  ...control_dependencies(...)` block (npu_failure_cases.md row 7);
- NPB174: one `group(...)` or `.run(...)` call holding both a `*variables_initializer()` call
  (`global_variables_initializer`, `variables_initializer`; not `local_variables_initializer`
  alone: local variables are metrics' totals and counts, zeros, which a host-side
  initialization leaves anyway, and the run-time check sees their values) and an
  `X.initializer` attribute (row 5; X is taken to be an iterator).
"""
import ast

from npu_bridge.ge.diagnostics import make

_TOKENS = ("ExponentialUpdateLossScaleManager", "initializer")


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


def _found(node, diag):
    return (node.lineno, node.col_offset + 1, diag.code, diag.severity, diag.message,
            diag.option)


class _Visitor(ast.NodeVisitor):
    def __init__(self):
        self.deps = 0
        self.findings = []

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
        if name == "ExponentialUpdateLossScaleManager" and self.deps:
            self.findings.append(_found(node, make("NPB176", name, None, deps="...")))
        elif name in ("group", "run"):
            elems = list(_elements(node.args))
            var_init = any(isinstance(e, ast.Call) and _name(e.func).endswith(
                "variables_initializer") and _name(e.func) != "local_variables_initializer"
                for e in elems)
            it_init = [e for e in elems if isinstance(e, ast.Attribute)
                       and e.attr == "initializer"]
            if var_init and it_init:
                self.findings.append(_found(node, make(
                    "NPB174", "initializer", ast.unparse(it_init[0]),
                    subject="%s(...)" % name, initializers="the variable initializers")))
        self.generic_visit(node)


def findings(tree, source):
    """(line, col, code, severity, message, option) of the kinds above in the parsed `tree`
    of `source` (str or bytes); a file holding neither token is not walked."""
    text = source if isinstance(source, str) else source.decode("utf-8", "replace")
    if not any(t in text for t in _TOKENS):
        return []
    v = _Visitor()
    try:
        v.visit(tree)
    except RecursionError:   # nested too deeply: the main checks report it (NBL001)
        return []
    return v.findings
