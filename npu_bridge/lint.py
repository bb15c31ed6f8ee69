"""Static check of Ascend TF1 scripts: `npu-bridge lint`.

Reads Python files with `ast` only (never imports or runs them) and finds the two ways a
script configures the NPU:

* `<obj>.parameter_map["KEY"].FIELD = VALUE` assignments (a hand-written `NpuOptimizer`),
  also through an alias (`pm = op.parameter_map; pm["KEY"].FIELD = VALUE`) and through the
  map methods returning a key's entry as `[KEY]` does (`.get_or_create("KEY")`,
  `.setdefault("KEY")`; not `.get("KEY")`: see `_ENTRY_METHODS`), with the
  custom optimizer's literal name (`<obj>.name = "..."`, `<obj>` bound to
  `...custom_optimizers.add()` or owning the parameter_map): the real adapter reads only
  custom optimizers named exactly `NpuOptimizer`, so the entries of another one are not
  checked, and a name close to it is reported as the resolver reports it (NPB107, at the
  name's line);
* keyword and positional arguments of `NPURunConfig`, `MemoryConfig`, `DumpConfig`,
  `ProfilingConfig`, `ExperimentalConfig`, `GraphMemoryOptimizeConfig` and
  `DynamicInputConfig` calls (also imported under another name);
* keyword and positional arguments of `npu_plugin.npu_resource_init` calls, checked as the
  function checks them (`_plugin_entries`: its signature, rows, type rule and messages are
  `npu_bridge._plugin_args`, the TensorFlow-free module the function itself uses).

Where the values are literals, each group of assignments (one `parameter_map` owner in one
scope, or one config call with its nested config calls) is turned into the input
`npu_bridge.ge.resolve()` takes, resolved, and every error or warning it returns is mapped
back to the source line of the assignment or argument it is about. No rule lives here: the
checks are the resolver's, the names and fields the catalog's (`npu_bridge.ge.catalog`).

The only checks of this module's own are about the file and about protobuf itself:

| code | meaning |
| --- | --- |
| NBL001 | the file does not parse (syntax error, bad encoding) |
| NBL002 | the file is larger than the size limit and was not checked |
| NBL003 | the file cannot be read |
| NBL010 | `AttrValue` has no such field (protobuf raises `AttributeError` at run time) |
| NBL011 | the literal does not fit the `AttrValue` field: the `TypeError` (`ValueError` for an int outside int64, `OverflowError` for a float) protobuf raises, word for word |
| NBL012 | a config class (or `npu_resource_init`) called with an argument it does not have (Python's `TypeError`: unexpected keyword argument, too many positional arguments), with a "did you mean" |

A literal config-class argument of a type its constructor refuses is reported with the
constructor's own code and message, NPB160 (the rules are `npu_bridge._argtypes`, the ones
`npu_config` applies at construction); such a value is then not resolved (the constructor
never accepts it, so no value rule applies to it). An int other than 0/1 for a bool
option is the constructor's NPB162 warning for an argument, and the same warning (worded for
the entry: `_bool_int_finding`) for `parameter_map["KEY"].b = 2`, which protobuf stores as True.

Groups: one owner's assignments; re-binding the owner's name starts a new group. Names are
resolved per scope as Python does (function locals shadow module names; `global`, `nonlocal`,
closures; `name := value` binds as `name = value` does), so module-level owners, `parameter_map` aliases, class aliases and config
instances are followed into functions; function bodies are read after the module body, and
each function's writes to a module-level owner are resolved with the module's, not with
another function's. Assignments in mutually exclusive branches (if/else arms, try body vs.
each except, match cases) are resolved per combination of arms, never together. Config calls
are looked for in every expression of a statement (decorators, defaults, annotations, bases,
lambda and comprehension bodies, except types, match guards).
"""
import ast
import bisect
import concurrent.futures
import dataclasses
import gc
import itertools
import multiprocessing
import os
import re
import stat
import sys

from npu_bridge import _argtypes, _plugin_args

# Files above this size are reported (NBL002) instead of parsed: bounded time per file.
DEFAULT_MAX_BYTES = 2 * 1024 * 1024

ATTR_FIELDS = ("s", "i", "f", "b", "list", "type", "shape", "tensor", "func", "placeholder")
SCALAR_FIELDS = ("s", "i", "f", "b")

# Config class -> the prefix its arguments carry in the catalog's `runconfig_arg` column.
CONFIG_CLASSES = {
    "NPURunConfig": "",
    "MemoryConfig": "memory_config.",
    "DumpConfig": "dump_config.",
    "ProfilingConfig": "profiling_config.",
    "ExperimentalConfig": "experimental_config.",
    "GraphMemoryOptimizeConfig": "experimental_config.graph_memory_optimize_config.",
    "DynamicInputConfig": "dynamic_input_config.",
}

# Positional parameters of each config class, in order: the signatures of the real adapter's
# classes (reference npu_options.json `classes`), so `MemoryConfig(0, 2)` maps like keywords.
# tests/test_lint.py checks this table against `inspect.signature` of npu_config's classes
# (lint itself never imports TensorFlow).
CONFIG_SIGNATURES = {
    "NPURunConfig": (
        "iterations_per_loop", "profiling_config", "model_dir", "tf_random_seed",
        "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
        "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
        "log_step_count_steps", "distribute", "enable_data_pre_proc", "precision_mode",
        "enable_reduce_precision", "variable_format_optimize", "mix_compile_mode",
        "hcom_parallel", "graph_memory_max_size", "variable_memory_max_size", "dump_config",
        "stream_max_parallel_num", "is_tailing_optimization", "horovod_mode",
        "graph_run_mode", "op_debug_level", "enable_scope_fusion_passes",
        "enable_exception_dump", "op_select_implmode", "optypelist_for_implmode",
        "dynamic_input_config", "aoe_mode", "work_path", "buffer_optimize",
        "enable_small_channel", "fusion_switch_file", "enable_compress_weight",
        "compress_weight_conf", "op_compiler_cache_mode", "op_compiler_cache_dir",
        "debug_dir", "hcom_multi_mode", "dynamic_input", "dynamic_graph_execute_mode",
        "dynamic_inputs_shape_range", "train_distribute", "eval_distribute", "local_rank_id",
        "local_device_list", "session_device_id", "distribute_config", "modify_mixlist",
        "op_precision_mode", "device_type", "soc_config", "hccl_timeout", "op_wait_timeout",
        "op_execute_timeout", "HCCL_algorithm", "customize_dtypes", "op_debug_config",
        "memory_config", "experimental_config", "topo_sorting_mode", "aoe_config_file",
        "insert_op_file", "stream_sync_timeout", "event_sync_timeout", "external_weight",
        "deterministic", "frozen_variable", "variable_placement", "jit_compile",
        "precision_mode_v2", "ac_parallel_enable", "quant_dumpable", "input_fusion_size",
        "compile_dynamic_mode", "graph_max_parallel_model_num", "export_compile_stat",
        "aicore_num", "oo_constant_folding", "input_batch_cpy", "shape_generalization_mode",
        "all_tensor_not_empty", "auto_multistream_parallel_mode", "oo_level",
        "optimization_switch",
    ),
    "MemoryConfig": (
        "atomic_clean_policy", "static_memory_policy", "memory_optimization_policy",
        "variable_use_1g_huge_page",
    ),
    "DumpConfig": (
        "enable_dump", "dump_path", "dump_step", "dump_mode", "enable_dump_debug",
        "dump_debug_mode", "dump_data", "dump_layer",
    ),
    "ProfilingConfig": (
        "enable_profiling", "profiling_options",
    ),
    "ExperimentalConfig": (
        "logical_device_cluster_deploy_mode", "logical_device_id", "model_deploy_mode",
        "model_deploy_devicelist", "graph_memory_optimize_config", "enable_graph_parallel",
        "graph_parallel_option_path", "graph_compiler_cache_dir", "resource_config_path",
        "accelerate_train_mode",
    ),
    "GraphMemoryOptimizeConfig": (
        "recompute", "graph_slice",
    ),
    "DynamicInputConfig": (
        "input_shape", "dynamic_dims", "dynamic_node_type", "compile_hybrid_mode",
    ),
}

# `npu_plugin.npu_resource_init(...)` is checked as a config class is (one group of its own,
# NBL012 for an unknown argument), with the checks the function itself makes (`_plugin_args`).
PLUGIN_FUNCTION = _plugin_args.OWNER
# The names lint follows as config callables (imports, aliases, calls).
_CALLABLES = frozenset(CONFIG_CLASSES) | {PLUGIN_FUNCTION}

_INT64 = (-(1 << 63), (1 << 63) - 1)

# Lint's own codes (the resolver's are npu_bridge.ge.diagnostics.CODES): code -> meaning.
LINT_CODES = {
    "NBL001": "the file does not parse",
    "NBL002": "the file is larger than the size limit and was not checked",
    "NBL003": "the file cannot be read",
    "NBL010": "AttrValue has no such field (AttributeError at run time)",
    "NBL011": "the literal does not fit the AttrValue field (protobuf's TypeError/ValueError)",
    "NBL012": "config class (or npu_resource_init) called with an argument it does not have "
              "(TypeError at run time)",
}


def known_codes():
    """Every code lint can report: its own and the resolver's (for `--ignore`)."""
    from npu_bridge.ge.diagnostics import CODES
    return sorted(set(LINT_CODES) | set(CODES))


def close_names(name, candidates, n=3, cutoff=0.6):
    """`npu_bridge.ge.catalog.close_names` (case-insensitive "did you mean" of explain and
    NBL012), imported when first needed: importing lint does not load the catalog."""
    from npu_bridge.ge import catalog   # pylint: disable=import-outside-toplevel
    return catalog.close_names(name, candidates, n=n, cutoff=cutoff)


# Calls whose result is their (single) argument converted to bytes or str.
_CONVERTERS = {"as_bytes", "as_str", "as_text", "compat.as_bytes", "str", "bytes", "int",
               "float", "bool"}
_MAX_POW = 64  # refuse 10 ** huge in literal folding...
_MAX_POW_BITS = 4096  # ...unless the integer result stays this small (2 ** 70 folds)

# Resolver codes about a key's name or AttrValue field, not its value
# (`npu_bridge.ge.diagnostics.CODES`): the only ones kept for a non-literal value.
NAME_FIELD_CODES = frozenset({"NPB100", "NPB101", "NPB102"})


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One finding: `path:line:col: CODE severity: message` (column 1-based, as flake8)."""
    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    option: str = ""

    def format(self):
        return "%s:%d:%d: %s %s: %s" % (self.path, self.line, self.col, self.code,
                                        self.severity, self.message)

    def to_dict(self):
        return {"path": self.path, "line": self.line, "col": self.col, "code": self.code,
                "severity": self.severity, "option": self.option, "message": self.message}


class LiteralList:
    """The `list` field of an AttrValue-like: empty repeated fields."""

    def __init__(self, **values):
        for name in ("s", "i", "f", "b"):
            setattr(self, name, list(values.get(name, ())))

    def ListFields(self):  # noqa: N802 (protobuf spelling)
        return [(_Field(n), getattr(self, n)) for n in ("s", "i", "f", "b") if getattr(self, n)]


class _Field:
    def __init__(self, name):
        self.name = name


class LiteralAttr:
    """A duck-typed `tensorflow.AttrValue` with one field set, so that lint and `options
    --set` can call `npu_bridge.ge.resolve()` without importing TensorFlow.

    Raises:
      ValueError: `field` is not a field of AttrValue.
    """
    _DEFAULTS = {"s": b"", "i": 0, "f": 0.0, "b": False}

    def __init__(self, field, value):
        if field not in ATTR_FIELDS:
            raise ValueError("AttrValue has no field %r" % field)
        self._field = field
        for name, default in self._DEFAULTS.items():
            setattr(self, name, default)
        self.list = LiteralList()
        if field == "list":
            self.list = value if isinstance(value, LiteralList) else LiteralList()
        elif field in self._DEFAULTS:
            setattr(self, field, value)
        else:
            setattr(self, field, value)

    def WhichOneof(self, name):  # noqa: N802 (protobuf spelling)
        return self._field if name == "value" else None

    def HasField(self, name):  # noqa: N802
        return name == self._field

    def ListFields(self):  # noqa: N802
        return [(_Field(self._field), getattr(self, self._field))]

    def __repr__(self):
        return "%s: %r" % (self._field, getattr(self, self._field))


class _ResolveInput:
    """What an `NPURunConfig` hands the resolver: its parameter_map and the classes used."""

    def __init__(self, parameter_map, used_classes):
        self._pm = parameter_map
        self._used = frozenset(used_classes)

    def _npu_resolve_input(self):
        return self._pm, self._used


_NOT_LITERAL = object()


def literal_value(node):
    """The value of a literal expression, or `_NOT_LITERAL`.

    Accepts what `ast.literal_eval` accepts, arithmetic on numbers (`26 * 1024 ** 3`),
    `b"x"`, `"x".encode()`, and converter calls on a literal (`tf.compat.as_bytes("x")`,
    `str(...)`, `int(...)`). Never evaluates anything else.
    """
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.BinOp):
        left, right = literal_value(node.left), literal_value(node.right)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            return _NOT_LITERAL
        op = type(node.op)
        try:
            if op is ast.Add:
                return left + right
            if op is ast.Sub:
                return left - right
            if op is ast.Mult:
                return left * right
            if op is ast.Pow and (abs(right) <= _MAX_POW or (
                    isinstance(left, int) and isinstance(right, int) and right > 0
                    and abs(left).bit_length() * right <= _MAX_POW_BITS)):
                return left ** right
            if op is ast.FloorDiv:
                return left // right
            if op is ast.Div:
                return left / right
            if op is ast.Mod:
                return left % right
        except (ZeroDivisionError, OverflowError):
            return _NOT_LITERAL
        return _NOT_LITERAL
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = literal_value(node.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
        return _NOT_LITERAL
    if isinstance(node, ast.Call) and not node.keywords:
        name = _dotted(node.func)
        if name is None:
            return _NOT_LITERAL
        # "x".encode() / "x".encode("utf-8")
        if isinstance(node.func, ast.Attribute) and node.func.attr == "encode":
            inner = literal_value(node.func.value)
            if isinstance(inner, str) and len(node.args) <= 1:
                return inner.encode("utf-8")
            return _NOT_LITERAL
        short = name.rsplit(".", 2)
        if len(node.args) != 1 or not (name in _CONVERTERS or short[-1] in _CONVERTERS
                                       and (len(short) == 1 or short[-2] == "compat")):
            return _NOT_LITERAL
        inner = literal_value(node.args[0])
        if inner is _NOT_LITERAL:
            return _NOT_LITERAL
        func = short[-1]
        try:
            if func == "as_bytes":
                return inner if isinstance(inner, bytes) else (
                    inner.encode("utf-8") if isinstance(inner, str) else _NOT_LITERAL)
            if func in ("as_str", "as_text"):
                return inner.decode("utf-8") if isinstance(inner, bytes) else (
                    inner if isinstance(inner, str) else _NOT_LITERAL)
            if func == "str":
                return str(inner) if not isinstance(inner, bytes) else _NOT_LITERAL
            if func == "int":
                return int(inner)
            if func == "float":
                return float(inner)
            if func == "bool":
                return bool(inner)
            if func == "bytes" and isinstance(inner, bytes):
                return inner
        except (ValueError, TypeError, UnicodeError):
            return _NOT_LITERAL
    return _NOT_LITERAL


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Constant):  # "x".encode
        parts.append("<const>")
        return ".".join(reversed(parts))
    return None


def _attr_for_field(field, value):
    """Protobuf's own typing of an AttrValue scalar field, or None when it would raise."""
    if field == "s":
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode("utf-8")
        return None
    if field == "b":
        if isinstance(value, bool) or (isinstance(value, int) and not isinstance(value, bool)):
            return bool(value)
        return None
    if field == "i":
        if isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
            return int(value)
        return None   # protobuf: TypeError for a non-int, ValueError beyond int64
    if field == "f":
        if isinstance(value, (int, float)):
            try:
                return float(value)
            except OverflowError:
                return None
        return None
    return None


def _misfit_reason(field, value):
    """Why `value` does not fit AttrValue field `field` (for NBL011)."""
    if field == "i" and isinstance(value, int) and not isinstance(value, bool):
        return "out of the int64 range of .i (protobuf raises ValueError)"
    if field == "f" and isinstance(value, int):
        return "too large for a float (protobuf raises OverflowError)"
    return "a %s does not fit the AttrValue field .%s" % (type(value).__name__, field)


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
# Lines that can hold what lint looks for; statements spanning none are skipped unvisited.
_CUSTOM_OPTIMIZERS = "custom_optimizers"
_CUSTOM_GRAPH_OPTIMIZER = "CustomGraphOptimizer"   # RewriterConfig.CustomGraphOptimizer(...)
_CANDIDATE = re.compile(r"parameter_map|%s|%s|" % (_CUSTOM_OPTIMIZERS, _CUSTOM_GRAPH_OPTIMIZER)
                        + "|".join(list(CONFIG_CLASSES) + [PLUGIN_FUNCTION]))
_NPU_OPTIMIZER = "NpuOptimizer"   # the only custom optimizer name the real adapter reads
_CANDIDATE_B = re.compile(_CANDIDATE.pattern.encode())


class _Collector:
    """Collects parameter_map assignments (grouped by owner and scope) and config calls.

    Walks statements, not every node: a statement whose lines hold no candidate text
    (`_CANDIDATE`, or a name lint follows) is skipped whole, which keeps lint fast on large
    model files. Every expression of a visited statement is searched for config calls
    (decorators, defaults, annotations, bases, lambda and comprehension bodies...).

    Names are resolved as Python does: a name bound in a function (or class) body is local
    there, else it is the enclosing function's, else the module's (`global` and `nonlocal`
    honoured). Function bodies are visited after the module body (they run when called,
    typically from its end), nested ones after their enclosing function's.
    """

    def __init__(self, candidate_lines, class_lines=None, source=None, names=()):
        self.groups = []
        self.findings = []  # (line, col, code, severity, message, option)
        # whether the file may hold `:=` (a binding inside an expression): when not, no
        # expression is searched for one (see `_expressions`, `_local_names`); the sorted
        # numbers of the lines holding one (None: unknown, search every expression)
        self._walrus = source is None or (b":=" if isinstance(source, bytes) else ":=") in source
        self._walrus_lines = _text_lines(source, ":=") if self._walrus and source is not None \
            else None
        self._module = self._cur = _Scope("module")
        self._pending = []             # function bodies to visit: (def, enclosing scope, path)
        self._functions = 0
        self._done_calls = set()
        self._checked_calls = set()    # config calls whose arguments were checked (NBL012, NPB160)
        self._lines = candidate_lines  # sorted line numbers
        # sorted numbers of the lines naming a config class (None: unknown, walk everything)
        self._class_lines = class_lines
        self._any_alias = False        # a config class is bound to another name somewhere
        # current ((branch point, arm), ...); an arm is an int, or the frozenset of the arms
        # falling through for the statements after a branch point where some arm leaves
        self._path = ()
        self._exits = {}               # branch point -> how its leaving arms leave (`_arms`)
        self._branch_points = 0
        self._source = source          # to add the lines of a name followed (`_track`)
        self._tracked = set(names)     # names whose lines are already candidates
        # names that are (or were) in some scope's owners (first part), aliases, classes or
        # configs: binding any other name needs no scope lookup
        self._followed = set(_CALLABLES)

    # --- walking --------------------------------------------------------------------------

    def visit_module(self, tree):
        self.visit_body(tree.body)
        pending = self._pending
        i = 0
        while i < len(pending):
            node, parent, path = pending[i]
            i += 1
            self._cur = _Scope("function", parent, node, self._walrus)
            self._path = path
            self.visit_body(node.body)
        self._cur, self._path = self._module, ()

    def visit_body(self, body):
        lines = self._lines
        for stmt in body:
            lo = stmt.lineno
            if type(stmt) in _SCOPE_TYPES and stmt.decorator_list:
                lo = stmt.decorator_list[0].lineno   # decorators come before the `def` line
            i = bisect.bisect_left(lines, lo)
            if i < len(lines) and lines[i] <= (stmt.end_lineno or lo):
                self._statement(stmt)
                lines = self._lines   # `_track` may have added lines

    def _statement(self, stmt):
        # Every expression the statement holds (not its nested statements), first: they are
        # evaluated before the statement binds anything.
        fields = _EXPR_FIELDS.get(type(stmt))
        if fields is None:
            fields = _EXPR_FIELDS[type(stmt)] = tuple(
                f for f in stmt._fields if f not in _NESTED)
        for name in fields:
            value = getattr(stmt, name, None)
            if isinstance(value, ast.AST):
                self._expressions(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self._expressions(item)
        if isinstance(stmt, _SCOPES):
            self._bind(stmt.name)
            if isinstance(stmt, ast.ClassDef):
                # a class body runs now, in a scope of its own
                saved, self._cur = self._cur, _Scope("class", self._cur, stmt, self._walrus)
                self.visit_body(stmt.body)
                self._cur = saved
            else:
                # a function body runs later (visit_module), as an arm of its own
                self._functions += 1
                path = tuple(p for p in self._path if p[0] != _FUNCTION_POINT)
                self._pending.append((stmt, self._cur,
                                      path + ((_FUNCTION_POINT, self._functions),)))
            return
        if isinstance(stmt, (ast.ImportFrom, ast.Import)):
            for alias in stmt.names:
                if alias.name == "*":
                    continue
                cls = alias.name if isinstance(stmt, ast.ImportFrom) \
                    and alias.name in _CALLABLES else None
                self._bind(alias.asname or alias.name.partition(".")[0], cls)
                if cls and alias.asname:
                    self._any_alias = True
                    self._track(alias.asname)
            return
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self._assignment(target, stmt.value)
            for target in stmt.targets:
                self._rebind(target, stmt.value)
            return
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:   # `x: int` alone binds nothing
                self._assignment(stmt.target, stmt.value)
                self._rebind(stmt.target, stmt.value)
            return
        if isinstance(stmt, (ast.AugAssign, ast.For, ast.AsyncFor)):
            self._rebind(stmt.target, None)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._rebind(item.optional_vars, None)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self._rebind(target, None)
        elif isinstance(stmt, ast.If):
            self._path = self._arms([stmt.body, stmt.orelse])
            return
        elif isinstance(stmt, _TRY):
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._expressions(handler.type)
                if handler.name:
                    self._bind(handler.name)
            # the body (then its else) and each handler are exclusive; finally always runs
            # (also after an arm that leaves: the arms' exits apply after it)
            saved = self._path
            after = self._arms([stmt.body + stmt.orelse] + [h.body for h in stmt.handlers],
                               caught=stmt.handlers)
            self._path = saved
            self.visit_body(stmt.finalbody)
            self._path = after + self._path[len(saved):]
            return
        elif isinstance(stmt, _MATCH):
            for case in stmt.cases:
                if case.guard is not None:
                    self._expressions(case.guard)
            bodies = [case.body for case in stmt.cases]
            if not (stmt.cases and _catch_all(stmt.cases[-1])):
                bodies.append([])   # no case matches: nothing runs
            self._path = self._arms(bodies)
            return
        if type(stmt) in _LOOP_TYPES:
            # continue/break leave the rest of the loop body only
            saved = self._path
            self.visit_body(stmt.body)
            kinds = self._exits
            self._path = saved + tuple(c for c in self._path[len(saved):]
                                       if "loop" not in kinds[c[0]])
            self.visit_body(stmt.orelse)
            return
        for name in ("body", "orelse", "finalbody"):
            value = getattr(stmt, name, None)
            if value:
                self.visit_body(value)

    def _expressions(self, node):
        # Only calls of a config class matter (visit_Call), and `:=` bindings. Without aliases
        # of a class such a call names its class in its own lines, so an expression whose
        # lines name none holds none: not walked (most of a model file's candidate
        # statements), unless the expression's lines hold a `:=`.
        if self._walrus:
            lines = self._walrus_lines
            lo = getattr(node, "lineno", None)
            if lines is None or lo is None:
                self._walk_walrus(node)
                return
            i = bisect.bisect_left(lines, lo)
            if i < len(lines) and lines[i] <= (node.end_lineno or lo):
                self._walk_walrus(node)
                return
        lines = self._class_lines
        if lines is not None and not self._any_alias:
            lo = getattr(node, "lineno", None)
            if lo is not None:
                i = bisect.bisect_left(lines, lo)
                if i == len(lines) or lines[i] > (node.end_lineno or lo):
                    return
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.visit_Call(sub)

    def _walk_walrus(self, node):
        """`_expressions` in a file holding `:=`: config calls, and each `name := value`
        bound as `name = value` is (`_rebind`) once its value is read, in source order. A
        lambda's `:=` binds in the lambda (not followed); a comprehension's in this scope."""
        stack = [(node, False)]
        while stack:
            n, bound = stack.pop()
            if bound:
                self._rebind(n.target, n.value)
                continue
            t = type(n)
            if t is ast.Call:
                self.visit_Call(n)
            elif t is ast.NamedExpr:
                stack.append((n, True))
            elif t is ast.Lambda:
                for sub in ast.walk(n):
                    if isinstance(sub, ast.Call):
                        self.visit_Call(sub)
                continue
            children = list(ast.iter_child_nodes(n))
            stack.extend((c, False) for c in reversed(children))

    def _arms(self, bodies, caught=()):
        """Visit mutually exclusive statement lists (if/else, try/except, match cases): their
        entries get different arms of one new branch point, so they are never combined.

        Returns the path of the statements after them. When some arm always leaves the block
        (`_exit_kinds`: return, raise, continue, break), those statements run only after
        the arms that fall through: the path gets `(point, frozenset(those arms))`, an
        exit constraint, kept until the place the exit goes to (`self._exits[point]`:
        a loop's end for continue/break, a try with handlers for a raise in its body
        (`caught`), else the function's end). The exit constraints left by a falling-through
        arm (an exit in one of its own nested arms) are kept too."""
        self._branch_points += 1
        point, saved = self._branch_points, self._path
        start = len(saved) + 1
        kept, falls, exits = [], [], frozenset()
        for arm, body in enumerate(bodies):
            self._path = saved + ((point, arm),)
            self.visit_body(body)
            kinds = _exit_kinds(body) if body else None
            if kinds is not None and caught and arm == 0:
                kinds = kinds - _RAISE or None   # (a handler may catch it: then it goes on)
            if kinds is not None:
                exits |= kinds
                continue
            falls.append(arm)
            extra = self._path[start:]
            if extra and caught and arm == 0:
                extra = tuple(c for c in extra if "raise" not in self._exits[c[0]])
            kept.extend(extra)
        after = saved + tuple(kept)
        if exits:
            self._exits[point] = exits
            after += ((point, frozenset(falls)),)
        return after

    # --- names ------------------------------------------------------------------------------

    def _scope_of(self, name):
        """The scope `name` belongs to where the walk is: the current body when the name is
        local there, else the nearest enclosing function that binds it, else the module.
        (Class bodies are not seen from the functions inside them.)"""
        cur = self._cur
        if cur.kind == "module":
            return cur
        found = cur.resolved.get(name, _MISSING)
        if found is _MISSING:
            found, scope, first = self._module, cur, True
            while scope.kind != "module":
                if first or scope.kind == "function":
                    if name in scope.local_names():   # (never a `global` name)
                        found = scope
                        break
                    if name in scope.globals:
                        break
                first = False
                scope = scope.parent
            cur.resolved[name] = None if found is cur else found
            return found
        return cur if found is None else found

    def _track(self, name):
        """Make every line using `name` a candidate line (the name is followed from now on)."""
        if name in self._tracked:
            return
        self._tracked.add(name)
        source = self._source
        if source is None:
            return
        found = _word_lines(source, name.encode("utf-8") if isinstance(source, bytes) else name)
        if not found.issubset(self._lines):
            self._lines = sorted(found.union(self._lines))

    def _bind(self, name, cls=None, value_node=None):
        """`name` bound anew (to config class `cls`, to a config call `value_node`, or to
        something else) in the scope it belongs to."""
        if name not in self._followed and cls is None and value_node is None:
            return None   # nothing lint follows has this name: nothing to forget
        self._followed.add(name)
        scope = self._scope_of(name)
        for owner in [o for o in scope.owners if o == name or o.startswith(name + ".")]:
            del scope.owners[owner]
        scope.aliases.pop(name, None)
        scope.configs.pop(name, None)
        if cls is not None or name in scope.classes or name in _CALLABLES:
            scope.classes[name] = cls
        if value_node is not None:
            scope.configs[name] = (value_node, None if self._cur is scope else self._cur)
            self._track(name)
        return scope

    def _class_of_name(self, name):
        """The config class `name` is bound to where the walk is, or None."""
        if name not in _CALLABLES and not self._any_alias:
            return None
        scope = self._scope_of(name)
        cls = scope.classes.get(name, _MISSING)
        if cls is not _MISSING:
            return cls
        if scope.kind != "module":
            return None   # a local name bound to something else (a parameter, ...)
        return name if name in _CALLABLES else None

    def _class_ref(self, node):
        """The config class an expression names (`NPURunConfig`, `ncfg.MemoryConfig`, an
        alias), or None."""
        if isinstance(node, ast.Name):
            return self._class_of_name(node.id)
        if isinstance(node, ast.Attribute) and node.attr in _CALLABLES:
            return node.attr
        return None

    def _rebind(self, target, value_node):
        """A name (or attribute) bound anew: a parameter_map owner or alias of that name is
        another object from here on; `name = <owner>.parameter_map` makes an alias,
        `name = MemoryConfig` a class alias, `name = MemoryConfig(...)` a config instance."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._rebind(elt.value if isinstance(elt, ast.Starred) else elt, None)
            return
        if isinstance(target, ast.Name):
            name = target.id
            cls = config = None
            if value_node is not None:
                cls = self._class_ref(value_node)
                if cls is None and isinstance(value_node, ast.Call) \
                        and self._class_name(value_node) in CONFIG_CLASSES:
                    config = value_node
            is_map = isinstance(value_node, ast.Attribute) and value_node.attr == "parameter_map"
            if is_map:
                self._followed.add(name)
            scope = self._bind(name, cls, config)
            if cls is not None:
                self._any_alias = True
                self._track(name)
            if is_map:
                owner, owner_scope = self._owner(value_node.value)
                scope.aliases[name] = self._owner_group(owner, owner_scope, value_node)
                if owner == name and owner_scope is scope:
                    # `op = op.parameter_map`: the map outlives the name
                    owner_scope.owners.pop(owner, None)
                self._track(name)
            elif _adds_custom_optimizer(value_node):
                self._name_from_add(self._owner_group(*self._owner(target), value_node),
                                    value_node)
            return
        text = _dotted(target) if isinstance(target, ast.Attribute) else None
        if text is None:
            return
        if text.partition(".")[0] in self._followed:
            scope = self._scope_of(text.partition(".")[0])
            for owner in [o for o in scope.owners if o == text or o.startswith(text + ".")]:
                del scope.owners[owner]
        if _adds_custom_optimizer(value_node):   # `self.op = ...custom_optimizers.add()`
            self._name_from_add(self._owner_group(*self._owner(target), value_node), value_node)

    def _optimizer_name(self, target, value_node):
        """`<owner>.name = VALUE` for a custom optimizer lint follows (bound to
        `...custom_optimizers.add()` or owning a parameter_map): its group takes the name
        when it is a literal string (else the name is unknown: read as NpuOptimizer). A
        group named otherwise is checked even without entries (NPB107)."""
        owner, scope = self._owner(target.value)
        group = scope.owners.get(owner)
        if group is None or group.kind != "parameter_map":
            return
        self._set_name(group, value_node, target)

    def _name_from_add(self, group, add_node):
        """`.add(name="...")`: the custom optimizer's name given where it is made."""
        if group.name_pos is not None or not _adds_custom_optimizer(add_node):
            return
        for keyword in add_node.keywords:
            self._set_name(group, keyword.value, keyword.value)

    def _set_name(self, group, value_node, at):
        """The group's custom optimizer is named `value_node` (a literal string, else unknown:
        read as NpuOptimizer), at the position of node `at`; a group named otherwise is
        checked even without entries (NPB107)."""
        value = literal_value(value_node)
        group.opt_name = value if isinstance(value, str) else None
        group.name_pos = (at.lineno, at.col_offset + 1)
        if group.opt_name not in (None, _NPU_OPTIMIZER) and not group.added:
            group.added = True
            group.line, group.col = group.name_pos
            self.groups.append(group)

    def _owner(self, node):
        """`(text, scope)` of a parameter_map owner expression (`custom_op`, `self.op`)."""
        text = _dotted(node)
        if text is None:
            return ast.dump(node), self._cur
        return text, self._scope_of(text.partition(".")[0])

    def _owner_group(self, owner, scope, node):
        groups = scope.owners
        group = groups.get(owner)
        if group is None:
            group = groups[owner] = _Group("parameter_map", node.lineno, node.col_offset + 1)
            self._followed.add(owner.partition(".")[0])
            self._track(owner.rpartition(".")[2])
        return group

    def _assignment(self, target, value_node):
        # <owner>.parameter_map["KEY"].FIELD = VALUE (or .get_or_create("KEY"): _map_entry)
        entry = _map_entry(target.value) if isinstance(target, ast.Attribute) else None
        if entry is None:
            if isinstance(target, ast.Attribute) and target.attr == "name":
                self._optimizer_name(target, value_node)
            return
        pm, key_node, method = entry
        alias = self._scope_of(pm.id).aliases.get(pm.id) if isinstance(pm, ast.Name) else None
        if alias is None and not ((isinstance(pm, ast.Attribute) and pm.attr == "parameter_map")
                                  or (isinstance(pm, ast.Name) and pm.id == "parameter_map")):
            return
        if not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
            return
        key, field = key_node.value, target.attr
        line, col = target.lineno, target.col_offset + 1
        access = ('parameter_map.%s("%s")' % (method, key) if method
                  else 'parameter_map["%s"]' % key)
        if field not in ATTR_FIELDS:
            self.findings.append((line, col, "NBL010", "error",
                                  '%s.%s: AttrValue has no field %r (one of %s)'
                                  % (access, field, field, ", ".join(SCALAR_FIELDS + ("list",))),
                                  key))
            return
        value = literal_value(value_node)
        bool_int = None
        if value is not _NOT_LITERAL and field in SCALAR_FIELDS:
            if field == "b" and type(value) is int and value not in (0, 1):
                bool_int = value   # protobuf stores True (NPB162: _bool_int_finding)
            error = _argtypes.protobuf_error(field, value)
            if error is not None:
                hint = ""
                if field == "s" and isinstance(value, str):
                    hint = " (write b%r or tf.compat.as_bytes(%r))" % (value, value)
                self.findings.append((line, col, "NBL011", "error",
                                      '%s.%s = %r: protobuf raises %s%s'
                                      % (access, field, value, error, hint), key))
                return
            value = _attr_for_field(field, value)
        elif field not in SCALAR_FIELDS:
            value = _NOT_LITERAL
        if alias is not None:
            group = alias
        elif isinstance(pm, ast.Attribute):
            group = self._owner_group(*self._owner(pm.value), target)
            self._name_from_add(group, pm.value)   # `...add(name="...").parameter_map[...]`
        else:
            group = self._owner_group("<parameter_map>", self._scope_of("parameter_map"), target)
        if not group.added:
            group.added = True
            group.line, group.col = line, col
            self.groups.append(group)
        group.entries.append(_Entry(key, field, value, line, col,
                                    '%s.%s' % (access, field), self._path, bool_int))

    # --- config calls -----------------------------------------------------------------------

    def visit_Call(self, node):
        name = self._class_name(node)
        if name in _CALLABLES and id(node) not in self._done_calls:
            kind = "plugin" if name == PLUGIN_FUNCTION else "config"
            group = _Group(kind, node.lineno, node.col_offset + 1)
            self._config_call(node, name, group)
            self.groups.append(group)

    def _class_name(self, node):
        """The config class a call makes (through aliases of the class), or another name."""
        func = node.func
        if isinstance(func, ast.Name):
            return self._class_of_name(func.id)
        if isinstance(func, ast.Attribute):
            return func.attr
        return None

    def _config_call(self, node, name, group):
        self._done_calls.add(id(node))
        group.calls.add(id(node))
        group.classes.add(name)
        group.class_pos.setdefault(name, (node.lineno, node.col_offset + 1))
        plugin = name == PLUGIN_FUNCTION
        params = _plugin_args.PARAMS if plugin else CONFIG_SIGNATURES.get(name, ())
        check = id(node) not in self._checked_calls
        self._checked_calls.add(id(node))
        arguments = []
        if any(kw.arg is None for kw in node.keywords):
            group.open_args = True   # **kwargs
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                group.open_args = True
                break   # *args: the positions after it are unknown
            if i >= len(params):
                if check:
                    self._too_many_positional(node, name, params)
                break
            arguments.append((params[i], arg, arg))
        arguments += [(kw.arg, kw.value, kw) for kw in node.keywords if kw.arg is not None]
        if check:
            known = set(params)
            for kw in node.keywords:
                if kw.arg is not None and kw.arg not in known:
                    self._unknown_keyword(kw, name, params)
            arguments = [a for a in arguments if a[0] in known]
        else:
            arguments = [a for a in arguments if a[0] in params]
        if plugin:
            # the function's own checks need every argument at once: `_plugin_entries`
            for arg_name, value, where in arguments:
                group.entries.append(_Entry(arg_name, None, literal_value(value), where.lineno,
                                            where.col_offset + 1,
                                            "%s(%s=...)" % (name, arg_name)))
            return
        if name == "MemoryConfig":
            arguments = _memory_config_seed_form(arguments)
        for arg_name, value, where in arguments:
            if isinstance(value, ast.Call):
                inner = self._class_name(value)
                if inner in CONFIG_CLASSES:
                    if id(value) not in group.calls:
                        self._config_call(value, inner, group)
                    continue
            elif isinstance(value, ast.Name) and value.id in self._followed:
                # a name bound to a config call (`mem = MemoryConfig(...)`): that call's
                # arguments, with their own positions, as the name's scope reads them
                scope = self._scope_of(value.id)
                bound = scope.configs.get(value.id)
                if bound is not None:
                    call, scope = bound[0], bound[1] or scope
                    if id(call) not in group.calls:
                        saved, self._cur = self._cur, scope
                        try:
                            inner = self._class_name(call)
                            if inner in CONFIG_CLASSES:
                                self._config_call(call, inner, group)
                        finally:
                            self._cur = saved
                    continue
            literal = literal_value(value)
            if literal is not _NOT_LITERAL:
                problems, warnings = [], []
                _argtypes.check_arg(name, arg_name, literal, problems, warnings=warnings)
                if check and (problems or warnings):
                    opt = _catalog().by_arg.get(CONFIG_CLASSES[name] + arg_name)
                    for diag in problems + warnings:
                        self.findings.append((where.lineno, where.col_offset + 1,
                                              diag.code, diag.severity, diag.message,
                                              opt.key if opt is not None else arg_name))
                if problems:
                    # the constructor refuses it (NPB160): never written, nothing to resolve
                    literal = _NOT_LITERAL
            group.entries.append(_Entry(CONFIG_CLASSES[name] + arg_name, None,
                                        literal, where.lineno,
                                        where.col_offset + 1, "%s(%s=...)" % (name, arg_name)))

    def _unknown_keyword(self, kw, name, params):
        """NBL012: Python's TypeError for a keyword the class (or npu_resource_init) does not
        have, with the close names of its signature, or the config class that has it."""
        message = "%s() got an unexpected keyword argument %r (TypeError at run time)" \
            % (_callee(name), kw.arg)
        close = close_names(kw.arg, params, n=2, cutoff=0.75)
        folded = kw.arg.casefold()
        owners = [(cls, arg) for cls, other in CONFIG_SIGNATURES.items() if cls != name
                  for arg in other if arg.casefold() == folded] \
            if name != PLUGIN_FUNCTION else ()
        if close:
            message += "; did you mean %s?" % " or ".join(repr(c) for c in close)
        elif owners:
            message += "; it is an argument of %s" % " and ".join(
                "%s(%s=...)" % owner for owner in owners)
        self.findings.append((kw.lineno, kw.col_offset + 1, "NBL012", "error", message, kw.arg))

    def _too_many_positional(self, node, name, params):
        self_arg = 0 if name == PLUGIN_FUNCTION else 1   # a class counts self, as Python does
        given = len(node.args) + self_arg
        if name == "DynamicInputConfig":   # no defaults
            takes = "takes %d positional arguments" % (len(params) + 1)
        else:   # (every argument of npu_resource_init has a default)
            takes = "takes from %d to %d positional arguments" % (self_arg, len(params) + self_arg)
        arg = node.args[len(params)]
        self.findings.append((arg.lineno, arg.col_offset + 1, "NBL012", "error",
                              "%s() %s but %d were given (TypeError at run time)"
                              % (_callee(name), takes, given), ""))


def _callee(name):
    """How Python's TypeError names a config class's constructor or npu_resource_init."""
    return name if name == PLUGIN_FUNCTION else name + ".__init__"


# Methods of a protobuf message map that return the entry of their key, creating it when
# missing, as `map[KEY]` does: a write through them adds or changes that key
# (`get_or_create(KEY)`; `setdefault(KEY[, default])`, which returns the map's own entry).
# Not `get(KEY)`: it never creates the entry (a missing key gives None, so the write raises
# AttributeError instead of adding a key), and changes a key only when it is already there,
# written by the `[KEY]` lint reads or by code lint does not see. Arguments: (min, max).
_ENTRY_METHODS = {"get_or_create": (1, 1), "setdefault": (1, 2)}


def _map_entry(node):
    """`(map, key node, method)` when `node` is the entry of one key of a map: `map[KEY]`
    (method None) or `map.get_or_create(KEY)` / `map.setdefault(KEY)`; else None."""
    if isinstance(node, ast.Subscript):
        return node.value, node.slice, None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    bounds = _ENTRY_METHODS.get(node.func.attr)
    if bounds is None or node.keywords or not bounds[0] <= len(node.args) <= bounds[1] \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return node.func.value, node.args[0], node.func.attr


def _adds_custom_optimizer(node):
    """`...custom_optimizers.add()` or `.add(name=...)` (a new custom optimizer of a
    ConfigProto), or `RewriterConfig.CustomGraphOptimizer()` / `(name=...)` (one made on
    its own, added later with `custom_optimizers.extend([...])`)."""
    if not isinstance(node, ast.Call) or node.args or any(k.arg != "name" for k in node.keywords):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == _CUSTOM_GRAPH_OPTIMIZER:
        return True
    if not (isinstance(func, ast.Attribute) and func.attr == "add"):
        return False
    holder = func.value
    return (isinstance(holder, ast.Attribute) and holder.attr == _CUSTOM_OPTIMIZERS) or (
        isinstance(holder, ast.Name) and holder.id == _CUSTOM_OPTIMIZERS)


def _memory_config_seed_form(arguments):
    """As `MemoryConfig` reads them (npu_config.py): an int 0, 1 or 2 given as
    memory_optimization_policy (a str in the real signature), with variable_use_1g_huge_page
    left at 0, is the seed's three-argument form `MemoryConfig(a, s, variable_use_1g_huge_page)`."""
    given = {arg_name: literal_value(value) for arg_name, value, _ in arguments}
    third = given.get("memory_optimization_policy", _NOT_LITERAL)
    if isinstance(third, int) and not isinstance(third, bool) and third in (0, 1, 2) \
            and given.get("variable_use_1g_huge_page", 0) == 0 \
            and not isinstance(given.get("variable_use_1g_huge_page"), bool):
        return [("variable_use_1g_huge_page" if arg_name == "memory_optimization_policy"
                 else arg_name, value, where) for arg_name, value, where in arguments
                if arg_name != "variable_use_1g_huge_page"]
    return arguments


def _call_name(node):
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _Catalog:
    """The catalog lookups lint needs, built once per process from `npu_bridge.ge.catalog`."""

    def __init__(self):
        from npu_bridge.ge import catalog
        self.catalog = catalog
        self.by_arg = {}
        for opt in catalog.OPTIONS:
            arg = getattr(opt, "runconfig_arg", None)
            if arg and getattr(opt, "key", None):
                self.by_arg.setdefault(arg, opt)

    def option_for_key(self, key):
        return self.catalog.find(key)


_CATALOG = None


def _catalog():
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = _Catalog()
    return _CATALOG


def _plugin_entries(group, entries):
    """`(parameter_map, positions, placeholders, findings)` of an `npu_resource_init` call,
    as `npu_plugin._resource_init` builds and checks its arguments, with the same table,
    type rule and messages (`npu_bridge._plugin_args`): every argument at its value or
    default (in a call with `*args`/`**kwargs`, an argument it does not name is unknown: not
    checked); an argument read only with another (`profiling_options` with
    `enable_profiling`, `work_path` and `distribute_config` with `aoe_mode`) is skipped
    when that one is None or False (or not a literal), and takes its catalog default when
    None; a literal of the wrong type for its row's field is the function's NPB160 and is
    not sent; `enable_profiling=True` without `profiling_options` is NPB143; an argument
    sent under a key GE does not read is NPB135 (the function reports it when the call
    succeeds; lint whatever else is wrong). The parameter_map is then resolved as the
    function resolves it."""
    spec = _plugin_args.spec()
    given = {e.key: e for e in entries}
    call = (group.line, group.col)

    def value_of(arg):
        e = given.get(arg)
        if e is not None:
            return e.value
        return _MISSING if group.open_args else spec.defaults[arg]

    pm, positions, placeholders, out = {}, {}, set(), []
    for arg, row in spec.rows.items():
        value = value_of(arg)
        e = given.get(arg)
        where = (e.line, e.col) if e is not None else call
        needs = spec.requires.get(arg)
        if needs is not None:
            needed = value_of(needs)
            if needed is _NOT_LITERAL or needed is _MISSING or needed is None or needed is False:
                continue
            if value is None:
                value = row.estimator_default
        if value is None:
            if arg in spec.sent_when_none and arg in spec.unread:
                out.append(_finding_at(where, _plugin_args.unread_key(arg)))
            continue
        if value is _MISSING:
            continue
        positions[row.key] = where
        if value is _NOT_LITERAL:
            pm[row.key] = _placeholder(row.field)
            placeholders.add(row.key)
        else:
            problem = _plugin_args.type_problem(arg, value, row)
            if problem is not None:
                out.append(_finding_at(where, problem))
                continue
            if isinstance(value, str):
                value = value.encode("utf-8", "surrogatepass")
            pm[row.key] = LiteralAttr(row.field, value)
        if arg in spec.unread:
            out.append(_finding_at(where, _plugin_args.unread_key(arg)))
    profiling = pm.get("profiling_mode")
    if profiling is not None and "profiling_mode" not in placeholders and profiling.b is True \
            and "profiling_options" not in pm and not group.open_args:
        out.append(_finding_at(positions["profiling_mode"],
                               _plugin_args.profiling_without_options()))
    return pm, positions, placeholders, out


def _finding_at(where, diag):
    """A Diagnostic as a finding at `where` (line, col): (line, col, code, severity, message,
    option)."""
    return where + (diag.code, diag.severity, diag.message, diag.option)


def _config_entry_to_attr(cat, entry):
    """Turn `Class(arg=value)` into `(key, LiteralAttr)` the way NPUEstimator renders it, or None."""
    opt = cat.by_arg.get(entry.key)
    if opt is None or entry.value is _NOT_LITERAL or entry.value is None:
        return None
    field = opt.field
    value = entry.value
    if field == "s":
        if isinstance(value, bool):
            return None  # rendering of bools into strings differs per option: leave to run time
        if isinstance(value, (int, float)):
            value = str(value)
    elif field == "i" and isinstance(value, bool):
        value = int(value)
    typed = _attr_for_field(field, value) if field in SCALAR_FIELDS else None
    if typed is None:
        return None
    return opt.key, LiteralAttr(field, typed)


_RESOLVED = {}  # memo: the same configuration recurs across a tree's scripts
# Resolver codes about the machine resolving, not the script: lint is static (the same
# findings wherever it runs), so they are left to the run-time check. NPB144: dump_path /
# work_path must be an existing writable directory on the machine running the script.
_RUN_TIME_CODES = frozenset(("NPB144",))
_RESOLVED_MAX = 4096


def _attr_id(attr):
    field = attr.WhichOneof("value")
    value = getattr(attr, field)
    return field, (tuple(map(tuple, (value.s, value.i, value.f, value.b)))
                   if isinstance(value, LiteralList) else value)


def _resolve(config, product, env):
    """Resolve with `npu_bridge.ge.resolve`; the diagnostics, also when it raises."""
    from npu_bridge.ge import NpuConfigError, resolve
    if isinstance(config, _ResolveInput):
        pm, classes = config._npu_resolve_input()
    else:
        pm, classes = config, None
    memo = (tuple((k, _attr_id(a)) for k, a in pm.items()), classes, product,
            tuple(sorted(env.items())))
    found = _RESOLVED.get(memo)
    if found is None:
        try:
            found = resolve(config, product=product, env=env).diagnostics
        except NpuConfigError as err:
            found = err.diagnostics
        found = tuple(d for d in found if d.code not in _RUN_TIME_CODES)
        if len(_RESOLVED) >= _RESOLVED_MAX:
            _RESOLVED.clear()
        _RESOLVED[memo] = found
    return list(found)


_ONES = {"s": b"x", "i": 1, "f": 1.0, "b": True}


def _placeholder(field, one=False):
    """A stand-in value for a non-literal: the field's zero, or (one=True) a non-zero value."""
    table = _ONES if one else LiteralAttr._DEFAULTS
    return LiteralAttr(field, table.get(field, LiteralList()))


_MAX_PATHS = 64  # branch combinations resolved per group; beyond, all entries as one


def _paths(entries):
    """The entry lists that can hold together: one per combination of if/try/match arms
    (only arms holding entries of the group count). Entries in exclusive arms never share
    a list; entries outside any branch are in every list."""
    arms = {}
    for e in entries:
        for point, arm in e.path:
            if type(arm) is frozenset:   # an exit constraint: any one arm falling through
                arm = min(arm, default=-1)
            arms.setdefault(point, set()).add(arm)
    if not arms:
        return [entries]
    points = sorted(arms)
    total = 1
    for point in points:
        total *= len(arms[point])
    if total == 1 or total > _MAX_PATHS:   # (1: one arm each, as a function body's entries)
        return [entries]
    out, seen = [], set()
    for choice in itertools.product(*(sorted(arms[p]) for p in points)):
        chosen = dict(zip(points, choice))
        picked = tuple(i for i, e in enumerate(entries)
                       if all(chosen[p] == a or (type(a) is frozenset and chosen[p] in a)
                              for p, a in e.path))
        if picked not in seen:
            seen.add(picked)
            out.append([entries[i] for i in picked])
    return out


def _by_function(entries):
    """A group's entries split per function body: the entries outside any function (module
    level) with those of one function, for each function that has some (`_FUNCTION_POINT`)."""
    functions = {}
    for i, e in enumerate(entries):
        for point, arm in e.path:
            if point == _FUNCTION_POINT:
                functions.setdefault(arm, []).append(i)
                break
    if len(functions) <= 1:
        return [entries]
    inside = {i for indices in functions.values() for i in indices}
    base = [i for i in range(len(entries)) if i not in inside]
    return [[entries[i] for i in sorted(base + indices)] for indices in functions.values()]


def _check_group(group, cat, product, env):
    """Findings of one group, as (line, col, code, severity, message, option): each set of
    entries that can hold together (`_paths`, per function: `_by_function`) is resolved on
    its own."""
    if group.kind == "parameter_map" and group.opt_name not in (None, _NPU_OPTIMIZER):
        return _misnamed_optimizer(group, product, env)
    if not group.entries and group.kind != "plugin":   # (a plugin call sends its defaults)
        return []
    paths = [p for part in _by_function(group.entries) for p in _paths(part)]
    if len(paths) == 1:
        return _check_entries(group, paths[0], cat, product, env)
    out, seen = [], set()
    for entries in paths:
        for finding in _check_entries(group, entries, cat, product, env):
            if finding not in seen:
                seen.add(finding)
                out.append(finding)
    return out


class _Namespace:
    def __init__(self, **values):
        self.__dict__.update(values)


_NAMED = {}   # memo: (custom optimizer name, product, env) -> the resolver's NPB107 findings


def _misnamed_optimizer(group, product, env):
    """Findings of a custom optimizer not named exactly NpuOptimizer. The real adapter
    ignores it and its parameter_map (its entries are not checked); whether the name is
    close enough to be a typo (NPB107), and the message, are the resolver's: a ConfigProto
    holding only that custom optimizer is resolved and its NPB107 kept, at the name."""
    from npu_bridge.ge import NpuConfigError, resolve
    memo = (group.opt_name, product, tuple(sorted(env.items())))
    found = _NAMED.get(memo)
    if found is None:
        optimizer = _Namespace(name=group.opt_name, parameter_map={})
        config = _Namespace(graph_options=_Namespace(rewrite_options=_Namespace(
            custom_optimizers=(optimizer,))))
        try:
            diags = resolve(config, product=product, env=env).diagnostics
        except NpuConfigError as err:
            diags = err.diagnostics
        found = tuple((d.code, d.severity, d.message, d.option) for d in diags
                      if d.code == "NPB107")
        if len(_NAMED) >= _RESOLVED_MAX:
            _NAMED.clear()
        _NAMED[memo] = found
    line, col = group.name_pos
    return [(line, col) + f for f in found]


def _check_entries(group, entries, cat, product, env):
    """Findings of one set of a group's entries, as (line, col, code, severity, message, option).

    An entry whose value is not a literal still counts: it is resolved twice, with two
    different stand-in values (zero and non-zero). A diagnostic is kept when both
    resolutions give it (so it does not depend on the unknown value), or when it is about a
    stand-in key's name or field (NAME_FIELD_CODES), which needs no value.
    """
    pm, positions, placeholders = {}, {}, set()
    out = []
    if group.kind == "parameter_map":
        last = {}
        for e in entries:
            positions[e.key] = (e.line, e.col)
            last[e.key] = e
            if e.value is _NOT_LITERAL or e.field == "list":
                pm[e.key] = _placeholder(e.field)
                placeholders.add(e.key)
            else:
                pm[e.key] = LiteralAttr(e.field, e.value)
                placeholders.discard(e.key)
        for e in last.values():   # the value the session reads: each key's last write
            if e.bool_int is not None:
                found = _bool_int_finding(cat, e)
                if found is not None:
                    out.append(found)
        make = dict
    elif group.kind == "plugin":
        pm, positions, placeholders, out = _plugin_entries(group, entries)
        make = dict
    else:
        for e in entries:
            opt = cat.by_arg.get(e.key)
            if opt is None or not opt.key or e.value is None:
                continue  # not an NPU option (model_dir, ...) or None (= not written)
            converted = _config_entry_to_attr(cat, e)
            positions[opt.key] = (e.line, e.col)
            if converted is None and opt.field in SCALAR_FIELDS and e.value is not _NOT_LITERAL \
                    and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) \
                    and _attr_for_field(opt.field, e.value) is None \
                    and (opt.field != "s"):
                # the config class cannot write it into parameter_map["KEY"].FIELD
                out.append((e.line, e.col, "NBL011", "error", "%s = %r: %s" % (
                    e.label, e.value, _misfit_reason(opt.field, e.value)), opt.key))
            if converted is None:
                pm[opt.key] = _placeholder(opt.field)
                placeholders.add(opt.key)
            else:
                pm[converted[0]] = converted[1]
                placeholders.discard(opt.key)
        if not pm and not (group.classes - {"NPURunConfig"}):
            return []
        classes = frozenset(group.classes)
        make = lambda m: _ResolveInput(m, classes)  # noqa: E731
    diags = _resolve(make(pm), product, env)
    if placeholders:
        other = {k: (_placeholder(v.WhichOneof("value"), one=True) if k in placeholders else v)
                 for k, v in pm.items()}
        known = {_diag_id(d) for d in _resolve(make(other), product, env)}
    for diag in diags:
        if diag.severity not in ("error", "warning"):
            continue
        option = getattr(diag, "option", "") or ""
        row = cat.option_for_key(option) if option not in positions else None
        key = option if row is None else (row.key or option)
        if placeholders and _diag_id(diag) not in known and not (
                key in placeholders and diag.code in NAME_FIELD_CODES):
            continue  # depends on a value lint does not know
        where = positions.get(key) or group.class_pos.get(option, (group.line, group.col))
        out.append((where[0], where[1], diag.code, diag.severity, diag.message, option))
    return out


def _bool_int_finding(cat, entry):
    """NPB162 for `parameter_map["KEY"].b = N`, N an int other than 0 and 1, KEY a bool
    option (its catalog row reads `.b`): protobuf stores True, so GE gets the option's "on"
    value, not N. The constructor's rule and GE part of the message (what GE gets, and, when
    the GE key itself takes N, how to set it), worded for a hand-written parameter_map:
    `_argtypes.bool_int_entry_warning`. As (line, col, code, severity, message, option), or
    None for another key (an unknown key or one read from another field is the resolver's
    NPB100/NPB101)."""
    row = cat.catalog.BY_KEY.get(entry.key)
    if row is None:
        return None
    diag = _argtypes.bool_int_entry_warning(entry.label, entry.bool_int, row)
    if diag is None:
        return None
    return (entry.line, entry.col, diag.code, diag.severity, diag.message, entry.key)


def _diag_id(diag):
    return (diag.code, diag.severity, diag.option, repr(diag.value), diag.message)


# flake8's inline suppression: `# noqa` (every code on the line) or `# noqa: CODE,CODE`.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9]+(?:[,\s]+[A-Za-z0-9]+)*))?", re.I)


# Names whose lines matter too: the owners of a parameter_map (`custom_op` of
# `custom_op.parameter_map`: a line re-binding it starts a new configuration), names bound to
# a parameter_map (`pm = op.parameter_map`), config classes imported under another name.
_OWNER = r"([A-Za-z_]\w*)\s*\.\s*parameter_map\b"
_PM_ALIAS = r"\b([A-Za-z_]\w*)\s*(?::[^=\n]*)?=[^=\n]*\bparameter_map\s*(?:#[^\n]*)?$"
_CLASS_ALIAS = r"\b(?:%s)\s+as\s+([A-Za-z_]\w*)" % "|".join(
    list(CONFIG_CLASSES) + [PLUGIN_FUNCTION])
_OPT_BOUND = r"\b([A-Za-z_]\w*)\s*=[^=\n]*\b%s\s*\.\s*add\s*\(" % _CUSTOM_OPTIMIZERS
_NAMES = re.compile("|".join((_OWNER, _PM_ALIAS, _CLASS_ALIAS, _OPT_BOUND)))
_NAMES_B = re.compile(_NAMES.pattern.encode())


def _scan(pattern, text, newline, found, names=None, class_lines=None):
    """Add to `found` the numbers of the lines where `pattern` matches; with `names`, also
    collect the `_NAMES` those lines hold (each line scanned once); with `class_lines`, add
    there the lines where the match is not `parameter_map` (a config class name)."""
    line, pos, last = 1, 0, None
    names_re = _NAMES_B if newline == b"\n" else _NAMES
    pm = b"parameter_map" if newline == b"\n" else "parameter_map"
    co = _CUSTOM_OPTIMIZERS.encode() if newline == b"\n" else _CUSTOM_OPTIMIZERS
    for m in pattern.finditer(text):
        line += text.count(newline, pos, m.start())
        pos = m.start()
        if class_lines is not None and m.group() != pm and m.group() != co:
            class_lines.add(line)
        if line != last:
            last = line
            found.add(line)
            if names is not None:
                start = text.rfind(newline, 0, pos) + 1
                end = text.find(newline, pos)
                for nm in names_re.finditer(text, start, len(text) if end < 0 else end):
                    names.update(g for g in nm.groups() if g)


def _word_lines(text, word):
    """The numbers of the lines where identifier `word` occurs as a whole word."""
    found = set()
    is_bytes = isinstance(text, bytes)
    newline = b"\n" if is_bytes else "\n"
    size, end = len(word), len(text)
    line, counted, pos = 1, 0, text.find(word)
    while pos >= 0:
        after = pos + size
        if (pos == 0 or not _word_char(text[pos - 1:pos], is_bytes)) and (
                after == end or not _word_char(text[after:after + 1], is_bytes)):
            line += text.count(newline, counted, pos)
            counted = pos
            found.add(line)
        pos = text.find(word, after)
    return found


def _text_lines(text, needle):
    """The sorted numbers of the lines where `needle` (str) occurs in `text` (str or bytes)."""
    if isinstance(text, bytes):
        needle, newline = needle.encode(), b"\n"
    else:
        newline = "\n"
    found, line, counted, pos = [], 1, 0, text.find(needle)
    while pos >= 0:
        line += text.count(newline, counted, pos)
        counted = pos
        if not found or found[-1] != line:
            found.append(line)
        pos = text.find(needle, pos + len(needle))
    return found


def _word_char(char, is_bytes):
    return (char.isalnum() or char == (b"_" if is_bytes else "_")) if char.isascii() \
        else True   # a non-ASCII byte or character may continue an identifier


def _candidate_lines(text, class_lines=None, names=None):
    """Sorted numbers of the lines where `_CANDIDATE` matches, and of the lines that use a
    name those lines bind or own (`_NAMES`): two passes, the second only when needed. With
    `class_lines` (a set), also fills it with the lines naming a config class; with `names`
    (a set), with those names (str)."""
    found = set()
    names = set() if names is None else names
    is_bytes = isinstance(text, bytes)
    newline = b"\n" if is_bytes else "\n"
    _scan(_CANDIDATE_B if is_bytes else _CANDIDATE, text, newline, found, names, class_lines)
    names.discard(b"parameter_map" if is_bytes else "parameter_map")
    if names:
        alternatives = b"|".join(sorted(map(re.escape, names))) if is_bytes else \
            "|".join(sorted(map(re.escape, names)))
        pattern = (rb"\b(?:%s)\b" % alternatives) if is_bytes else (r"\b(?:%s)\b" % alternatives)
        _scan(re.compile(pattern), text, newline, found)
        if is_bytes:
            decoded = {n.decode("utf-8", "replace") for n in names}
            names.clear()
            names.update(decoded)
    return sorted(found)


def _suppressed(findings, source, ignore):
    if not findings:
        return findings
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    lines = source.splitlines()
    out = []
    for f in findings:
        if f.code in ignore:
            continue
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        m = _NOQA.search(text) if "noqa" in text.lower() else None
        if m and (not m.group("codes") or f.code.upper() in
                  {c.upper() for c in re.split(r"[,\s]+", m.group("codes")) if c}):
            continue
        out.append(f)
    return out


def lint_source(source, path="<string>", product=None, env=None, ignore=()):
    """Findings of one file's source (str or bytes), sorted by position; codes in `ignore`
    and findings on a line with a matching `# noqa` comment are left out.

    Never raises for bad input: a syntax error is finding NBL001.
    """
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError) as err:
        line = getattr(err, "lineno", None) or 1
        col = getattr(err, "offset", None) or 1
        msg = getattr(err, "msg", None) or str(err)
        return [Finding(path, line, max(col, 1), "NBL001", "error", "file does not parse: %s" % msg)]
    class_lines, names = set(), set()
    lines = _candidate_lines(source, class_lines, names)
    collector = _Collector(lines, sorted(class_lines), source, names)
    try:
        if lines:
            collector.visit_module(tree)
    except RecursionError:
        return [Finding(path, 1, 1, "NBL001", "error", "file nests too deeply to check")]
    findings = [Finding(path, line, col, code, sev, msg, opt)
                for line, col, code, sev, msg, opt in collector.findings]
    if not collector.groups:
        return sorted(_suppressed(findings, source, frozenset(ignore)))
    cat = _catalog()
    env = {} if env is None else env
    seen = set()
    for group in collector.groups:
        for line, col, code, sev, msg, opt in _check_group(group, cat, product, env):
            f = Finding(path, line, col, code, sev, msg, opt)
            if f not in seen:
                seen.add(f)
                findings.append(f)
    return sorted(_suppressed(findings, source, frozenset(ignore)))


def lint_file(path, product=None, env=None, max_bytes=DEFAULT_MAX_BYTES, ignore=()):
    """Findings of one file; unreadable (NBL003) and oversized (NBL002) files are findings."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            return [Finding(path, 1, 1, "NBL003", "error",
                            "cannot read file: not a regular file")]
        size = info.st_size
        if size > max_bytes:
            return [Finding(path, 1, 1, "NBL002", "warning",
                            "file is %d bytes, above the %d-byte limit: not checked"
                            % (size, max_bytes))]
        with open(path, "rb") as fh:
            source = fh.read(max_bytes + 1)
    except OSError as err:
        return [Finding(path, 1, 1, "NBL003", "error", "cannot read file: %s" % (
            err.strerror or err))]
    findings = lint_source(source, path, product, env, ignore)
    return [f for f in findings if f.code not in ignore]


def iter_python_files(paths):
    """Files to check: each file given, and every `*.py` under each folder (hidden folders
    and `__pycache__` skipped, symlinked folders not followed), in sorted order."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(root, name)
        else:
            yield path


def _lint_many(args):
    paths, product, env, max_bytes, ignore = args
    # Each file's syntax tree is thousands of GC-tracked nodes freed by reference counting;
    # the cyclic collector only re-scans them (a third of the time). Off while linting a
    # batch, back on (collecting whatever cycles there are) after it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [f for p in paths for f in lint_file(p, product, env, max_bytes, ignore)]
    finally:
        if enabled:
            gc.enable()


def lint_paths(paths, product=None, env=None, max_bytes=DEFAULT_MAX_BYTES, jobs=None, ignore=()):
    """Findings of every file under `paths`, sorted; `(findings, number_of_files)`.

    Uses a process pool of `jobs` workers (default: the CPU count) when there are many files.
    """
    files = list(iter_python_files(paths))
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < 64:
        findings = _lint_many((files, product, env, max_bytes, ignore))
        return sorted(findings), len(files)
    # Batches of up to 128 files (fewer round trips), at least 4 per worker (balance).
    chunk = max(8, min(128, len(files) // (jobs * 4) or 1))
    batches = [(files[i:i + chunk], product, env, max_bytes, ignore) for i in range(0, len(files), chunk)]
    findings = []
    # Workers are forked on Linux, after the catalog and the resolver
    # are loaded here, so no worker loads them again (nor anything else: TensorFlow never).
    _catalog()
    _plugin_args.spec()
    from npu_bridge.ge import resolve  # noqa: F401  (loaded before the fork)
    context = None
    if sys.platform.startswith("linux"):   # (macOS: fork is unsafe there, spawn stays)
        context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for part in pool.map(_lint_many, batches):
            findings.extend(part)
    return sorted(findings), len(files)
