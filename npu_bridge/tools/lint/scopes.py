"""What the visitor records and how Python scopes and control flow are modelled: entries,
groups, scopes (`_local_names`: the names a def/class body binds) and how a statement list
always leaves its block (`_exit_kinds`)."""
import ast
import dataclasses

from npu_bridge.tools.lint.literals import _dotted


@dataclasses.dataclass
class _Entry:
    key: str          # parameter_map key
    field: str        # AttrValue field
    value: object     # Python value or _NOT_LITERAL
    line: int
    col: int
    label: str        # how the source wrote it, for messages
    path: tuple = ()  # ((branch point, arm), ...): the if/try/match arms it is inside
    bool_int: object = None   # `.b = N`, N an int other than 0/1 (stored as True): N


@dataclasses.dataclass
class _Group:
    kind: str                      # "parameter_map", "config" or "plugin" (npu_resource_init)
    line: int
    col: int
    entries: list = dataclasses.field(default_factory=list)
    classes: set = dataclasses.field(default_factory=set)
    class_pos: dict = dataclasses.field(default_factory=dict)  # class name -> (line, col)
    calls: set = dataclasses.field(default_factory=set)        # ids of the config calls in it
    added: bool = False            # appended to the collector's groups (at its first entry)
    # parameter_map groups: the custom optimizer's literal name (None: unknown or not set,
    # read as NpuOptimizer) and the (line, col) of the `.name = ...` that set it
    opt_name: object = None
    name_pos: tuple = None
    # a call with `*args` or `**kwargs`: the arguments it does not name are unknown
    open_args: bool = False
    # parameter_map groups: (name, scope) of the ConfigProto whose custom_optimizers.add()
    # made the optimizer; config groups: (name, scope) of NPURunConfig's session_config and
    # the parameter_map groups of that ConfigProto (linked by `registry.config_findings`)
    container: tuple = None
    session_config: tuple = None
    user_maps: list = dataclasses.field(default_factory=list)


class _Scope:
    """The names of one module, function or class body that lint follows: parameter_map
    owners and aliases, config classes under other names, config instances."""

    def __init__(self, kind, parent=None, node=None, walrus=True):
        self.kind = kind      # "module", "function" or "class"
        self.parent = parent  # the enclosing scope (None for the module)
        self.node = node      # the def/class statement
        self.walrus = walrus  # the file may hold `:=` (else its bindings need no search)
        self.owners = {}      # owner text -> _Group
        self.aliases = {}     # name bound to `<owner>.parameter_map` -> _Group
        self.classes = {}     # name -> config class it is bound to, or None (bound to another thing)
        self.configs = {}     # name -> (config class call, scope it was made in or None: this)
        self._locals = None   # names local to a function/class body (computed when first needed)
        self.globals = frozenset()
        # name -> the scope it belongs to seen from this body, None for this body (memo).
        # (No scope refers to itself: lint runs with the cyclic GC off, see `_lint_many`.)
        self.resolved = {}

    def local_names(self):
        if self._locals is None:
            self._locals, self.globals = _local_names(self.node, self.walrus)
        return self._locals


def _local_names(node, walrus=True):
    """`(names local to the body of def/class `node`, names it declares global)`, as Python
    decides them: parameters and every name the body's statements bind (assignment, for,
    with, import, def, class, except ... as, del, match captures) or its expressions bind
    with `:=` (also inside a comprehension, whose `:=` binds in the enclosing function; not
    inside a lambda), minus `global` and `nonlocal` names. Nested function and class bodies
    are their own scopes. `walrus=False` (the file holds no `:=`) skips the expressions.

    (The standard library's `symtable` gives the same answer for a whole file, but costs a
    second compile of it: about 18 times what this costs per file on generated scripts.)"""
    names, declared_global, declared_nonlocal = set(), set(), set()
    if walrus:
        _walrus_names(node.body, names)
    if not isinstance(node, ast.ClassDef):
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
            if arg is not None:
                names.add(arg.arg)
    stack = list(node.body)
    targets = []
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Assign:
            targets.extend(n.targets)
        elif t is ast.AugAssign or t is ast.AnnAssign:
            targets.append(n.target)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.ClassDef:
            names.add(n.name)
        elif t is ast.Import or t is ast.ImportFrom:
            for alias in n.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.partition(".")[0])
        elif t is ast.Global:
            declared_global.update(n.names)
        elif t is ast.Nonlocal:
            declared_nonlocal.update(n.names)
        else:
            if t is ast.For or t is ast.AsyncFor:
                targets.append(n.target)
            elif t is ast.With or t is ast.AsyncWith:
                targets.extend(i.optional_vars for i in n.items if i.optional_vars is not None)
            elif t is ast.Delete:
                targets.extend(n.targets)
            elif t in _TRY:
                for handler in n.handlers:
                    if handler.name:
                        names.add(handler.name)
                    stack.extend(handler.body)
            elif t is _MATCH:
                for case in n.cases:
                    for sub in ast.walk(case.pattern):
                        name = getattr(sub, "name", None) or getattr(sub, "rest", None)
                        if name:
                            names.add(name)
                    stack.extend(case.body)
            for field in ("body", "orelse", "finalbody"):
                body = getattr(n, field, None)
                if body:
                    stack.extend(body)
    while targets:
        target = targets.pop()
        t = type(target)
        if t is ast.Name:
            names.add(target.id)
        elif t is ast.Tuple or t is ast.List:
            targets.extend(target.elts)
        elif t is ast.Starred:
            targets.append(target.value)
    names -= declared_global
    names -= declared_nonlocal
    return names, frozenset(declared_global)


def _walrus_names(body, names):
    """Add to `names` the targets of the `:=` of statement list `body` that bind in its own
    scope: its expressions and comprehensions, the decorators and defaults of the functions
    and lambdas it defines and the decorators, bases and keywords of its classes; not the
    bodies of those (their own scopes)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.NamedExpr:
            names.add(n.target.id)
            stack.append(n.value)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.Lambda:
            if t is not ast.Lambda:
                stack.extend(n.decorator_list)
            stack.extend(n.args.defaults)
            stack.extend(d for d in n.args.kw_defaults if d is not None)
        elif t is ast.ClassDef:
            stack.extend(n.decorator_list)
            stack.extend(n.bases)
            stack.extend(k.value for k in n.keywords)
        else:
            stack.extend(ast.iter_child_nodes(n))



# Statement lists nested in a statement (visited as statements, not as expressions).
_NESTED = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPE_TYPES = frozenset(_SCOPES)
_EXPR_FIELDS = {}   # statement type -> its fields that are not nested statement lists
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))
_TRY_TYPES = frozenset(_TRY)
_MATCH = getattr(ast, "Match", ())
# Branch point of function bodies: each function body is an arm of its own, so writes of two
# functions to one module-level owner are never combined (each is with the module's writes).
_FUNCTION_POINT = 0
_MISSING = object()
_LOOP_TYPES = frozenset((ast.For, ast.AsyncFor, ast.While))
# How a statement list can leave its block for good: "return" (the function), "raise" (up to
# a `try` whose handlers may catch it, else the function) and "loop" (continue/break: the
# rest of the loop body). Calls that end the process count as a raise (SystemExit).
_EXIT_STMTS = {ast.Return: frozenset(("return",)), ast.Raise: frozenset(("raise",)),
               ast.Continue: frozenset(("loop",)), ast.Break: frozenset(("loop",))}
_EXIT_CALLS = frozenset(("sys.exit", "exit", "quit", "os._exit", "os.abort"))
_RAISE = frozenset(("raise",))


def _exit_kinds(body):
    """How the statement list `body` always leaves its block (a frozenset of the kinds above),
    or None when some path through it falls through to the statement after it. Top-level
    statements only, and the compound statements whose every path leaves (if/else, try,
    with, match with a catch-all case): no per-file cost beyond the arms lint visits."""
    for stmt in body:
        t = type(stmt)
        kinds = _EXIT_STMTS.get(t)
        if kinds is not None:
            return kinds
        if t is ast.Expr:
            value = stmt.value
            if type(value) is ast.Call and _dotted(value.func) in _EXIT_CALLS:
                return _RAISE
        elif t is ast.If:
            if stmt.orelse:
                a = _exit_kinds(stmt.body)
                if a is not None:
                    b = _exit_kinds(stmt.orelse)
                    if b is not None:
                        return a | b
        elif t is ast.With or t is ast.AsyncWith:
            kinds = _exit_kinds(stmt.body)
            # (a context manager may swallow an exception: then the statement falls through)
            if kinds is not None and "raise" not in kinds:
                return kinds
        elif t in _TRY_TYPES:
            kinds = _exit_kinds(stmt.finalbody)
            if kinds is not None:
                return kinds
            kinds = _exit_kinds(stmt.body + stmt.orelse)
            for handler in stmt.handlers:
                if kinds is None:
                    break
                more = _exit_kinds(handler.body)
                kinds = None if more is None else kinds | more
            if kinds is not None:
                return kinds
        elif t is _MATCH and stmt.cases and _catch_all(stmt.cases[-1]):
            kinds = frozenset()
            for case in stmt.cases:
                more = _exit_kinds(case.body)
                if more is None:
                    break
                kinds |= more
            else:
                return kinds
    return None


def _catch_all(case):
    """Whether a match case matches every subject (`case _:`, `case x:`, no guard)."""
    if case.guard is not None:
        return False
    pattern = case.pattern
    alternatives = pattern.patterns if type(pattern) is ast.MatchOr else (pattern,)
    return any(type(p) is ast.MatchAs and p.pattern is None for p in alternatives)
