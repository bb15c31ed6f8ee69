"""Static check of Ascend TF1 scripts: `npu-bridge lint`.

Reads Python files with `ast` only (never imports or runs them) and finds the two ways a
script configures the NPU:

* `<obj>.parameter_map["KEY"].FIELD = VALUE` assignments (a hand-written `NpuOptimizer`),
  also through an alias (`pm = op.parameter_map; pm["KEY"].FIELD = VALUE`);
* keyword and positional arguments of `NPURunConfig`, `MemoryConfig`, `DumpConfig`,
  `ProfilingConfig`, `ExperimentalConfig`, `GraphMemoryOptimizeConfig` and
  `DynamicInputConfig` calls (also imported under another name).

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
| NBL011 | the literal does not fit the `AttrValue` field (protobuf: `TypeError`; `ValueError` for an int outside int64) |

Groups: one owner's assignments per function; re-binding the owner's name starts a new group.
Assignments in mutually exclusive branches (if/else arms, try body vs. each except, match
cases) are resolved per combination of arms, never together.
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

_INT64 = (-(1 << 63), (1 << 63) - 1)

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


@dataclasses.dataclass
class _Group:
    kind: str                      # "parameter_map" or "config"
    line: int
    col: int
    entries: list = dataclasses.field(default_factory=list)
    classes: set = dataclasses.field(default_factory=set)
    class_pos: dict = dataclasses.field(default_factory=dict)  # class name -> (line, col)
    added: bool = False            # appended to the collector's groups (at its first entry)


class _Scope:
    """parameter_map owners of one function/class body (or the module)."""

    def __init__(self):
        self.owners = {}    # owner text -> _Group
        self.aliases = {}   # name bound to `<owner>.parameter_map` -> _Group


_STMT_LISTS = ("body", "orelse", "finalbody")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Lines that can hold what lint looks for; statements spanning none are skipped unvisited.
_CANDIDATE = re.compile(r"parameter_map|" + "|".join(CONFIG_CLASSES))
_CANDIDATE_B = re.compile(_CANDIDATE.pattern.encode())


class _Collector:
    """Collects parameter_map assignments (grouped by owner and scope) and config calls.

    Walks statements, not every node: a statement whose lines hold no candidate text
    (`_CANDIDATE`) is skipped whole, which keeps lint fast on large model files.
    """

    def __init__(self, candidate_lines, class_lines=None):
        self.groups = []
        self.findings = []  # (line, col, code, severity, message, option)
        self._scope = [_Scope()]
        self._done_calls = set()
        self._lines = candidate_lines  # sorted line numbers
        # sorted numbers of the lines naming a config class (None: unknown, walk everything)
        self._class_lines = class_lines
        self._path = ()                # current ((branch point, arm), ...)
        self._branch_points = 0
        self.class_aliases = {}        # `from ... import MemoryConfig as MC`: MC -> MemoryConfig

    def _spans_candidate(self, node):
        lo, hi = node.lineno, getattr(node, "end_lineno", None) or node.lineno
        i = bisect.bisect_left(self._lines, lo)
        return i < len(self._lines) and self._lines[i] <= hi

    def visit_body(self, body):
        for stmt in body:
            if self._spans_candidate(stmt):
                self._statement(stmt)

    def _statement(self, stmt):
        if isinstance(stmt, _SCOPES):
            # a function or class body starts a new set of parameter_map owners
            for expr in stmt.decorator_list:
                self._expressions(expr)
            if not isinstance(stmt, ast.ClassDef):
                self._expressions(stmt.args)  # default values
            self._scope.append(_Scope())
            saved, self._path = self._path, ()
            self.visit_body(stmt.body)
            self._path = saved
            self._scope.pop()
            return
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.asname and alias.name in CONFIG_CLASSES:
                    self.class_aliases[alias.asname] = alias.name
            return
        if isinstance(stmt, ast.Assign):
            self._expressions(stmt.value)
            for target in stmt.targets:
                self._expressions(target)
                self._assignment(target, stmt.value)
            for target in stmt.targets:
                self._rebind(target, stmt.value)
            return
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._expressions(stmt.value)
                self._assignment(stmt.target, stmt.value)
            self._rebind(stmt.target, stmt.value)
            return
        if isinstance(stmt, (ast.AugAssign, ast.For, ast.AsyncFor)):
            self._rebind(stmt.target, None)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._rebind(item.optional_vars, None)
        if isinstance(stmt, ast.If):
            self._expressions(stmt.test)
            self._arms([stmt.body, stmt.orelse])
            return
        if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            # the body (then its else) and each handler are exclusive; finally always runs
            self._arms([stmt.body + stmt.orelse] + [h.body for h in stmt.handlers])
            self.visit_body(stmt.finalbody)
            return
        if isinstance(stmt, getattr(ast, "Match", ())):
            self._expressions(stmt.subject)
            self._arms([case.body for case in stmt.cases])
            return
        for name, value in ast.iter_fields(stmt):
            if name in _STMT_LISTS and isinstance(value, list):
                self.visit_body(value)
            elif name == "handlers":
                for handler in value:
                    self.visit_body(handler.body)
            elif name == "cases":
                for case in value:
                    self.visit_body(case.body)
            elif isinstance(value, ast.AST):
                self._expressions(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self._expressions(item)

    def _expressions(self, node):
        # Only calls of a config class matter (visit_Call). Without `import ... as` aliases
        # such a call names its class in its own lines, so an expression whose lines name
        # none holds none: not walked (most of a model file's candidate statements).
        lines = self._class_lines
        if lines is not None and not self.class_aliases:
            lo = getattr(node, "lineno", None)
            if lo is not None:
                i = bisect.bisect_left(lines, lo)
                if i == len(lines) or lines[i] > (node.end_lineno or lo):
                    return
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.visit_Call(sub)

    def _arms(self, bodies):
        """Visit mutually exclusive statement lists (if/else, try/except, match cases): their
        entries get different arms of one new branch point, so they are never combined."""
        self._branch_points += 1
        point, saved = self._branch_points, self._path
        for arm, body in enumerate(bodies):
            self._path = saved + ((point, arm),)
            self.visit_body(body)
        self._path = saved

    def _rebind(self, target, value_node):
        """A name (or attribute) bound anew: a parameter_map owner or alias of that name is
        another object from here on; `name = <owner>.parameter_map` makes an alias."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._rebind(elt.value if isinstance(elt, ast.Starred) else elt, None)
            return
        text = _dotted(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if text is None:
            return
        scope = self._scope[-1]
        for owner in [o for o in scope.owners if o == text or o.startswith(text + ".")]:
            del scope.owners[owner]
        scope.aliases.pop(text, None)
        if isinstance(target, ast.Name) and isinstance(value_node, ast.Attribute) \
                and value_node.attr == "parameter_map":
            owner = _dotted(value_node.value) or ast.dump(value_node.value)
            scope.aliases[target.id] = self._owner_group(owner, value_node)
            if owner == text:   # `op = op.parameter_map`: the map outlives the name
                scope.owners.pop(owner, None)

    def _owner_group(self, owner, node):
        groups = self._scope[-1].owners
        group = groups.get(owner)
        if group is None:
            group = groups[owner] = _Group("parameter_map", node.lineno, node.col_offset + 1)
        return group

    def _assignment(self, target, value_node):
        # <owner>.parameter_map["KEY"].FIELD = VALUE
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Subscript)):
            return
        sub = target.value
        pm = sub.value
        alias = self._scope[-1].aliases.get(pm.id) if isinstance(pm, ast.Name) else None
        if alias is None and not ((isinstance(pm, ast.Attribute) and pm.attr == "parameter_map")
                                  or (isinstance(pm, ast.Name) and pm.id == "parameter_map")):
            return
        key_node = sub.slice
        if not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
            return
        key, field = key_node.value, target.attr
        line, col = target.lineno, target.col_offset + 1
        if field not in ATTR_FIELDS:
            self.findings.append((line, col, "NBL010", "error",
                                  'parameter_map["%s"].%s: AttrValue has no field %r (one of %s)'
                                  % (key, field, field, ", ".join(SCALAR_FIELDS + ("list",))), key))
            return
        value = literal_value(value_node)
        if value is not _NOT_LITERAL and field in SCALAR_FIELDS:
            typed = _attr_for_field(field, value)
            if typed is None:
                self.findings.append((line, col, "NBL011", "error",
                                      'parameter_map["%s"].%s = %r: %s'
                                      % (key, field, value, _misfit_reason(field, value)), key))
                return
            value = typed
        elif field not in SCALAR_FIELDS:
            value = _NOT_LITERAL
        if alias is not None:
            group = alias
        else:
            owner = ((_dotted(pm.value) or ast.dump(pm.value)) if isinstance(pm, ast.Attribute)
                     else "<parameter_map>")
            group = self._owner_group(owner, target)
        if not group.added:
            group.added = True
            group.line, group.col = line, col
            self.groups.append(group)
        group.entries.append(_Entry(key, field, value, line, col,
                                    'parameter_map["%s"].%s' % (key, field), self._path))

    def visit_Call(self, node):
        name = self._class_name(node)
        if name in CONFIG_CLASSES and id(node) not in self._done_calls:
            group = _Group("config", node.lineno, node.col_offset + 1)
            self._config_call(node, name, group)
            self.groups.append(group)

    def _class_name(self, node):
        """The config class a call makes (through `import ... as` aliases), or another name."""
        name = _call_name(node)
        if isinstance(node.func, ast.Name):
            return self.class_aliases.get(name, name)
        return name

    def _config_call(self, node, name, group):
        self._done_calls.add(id(node))
        group.classes.add(name)
        group.class_pos.setdefault(name, (node.lineno, node.col_offset + 1))
        params = CONFIG_SIGNATURES.get(name, ())
        arguments = []
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred) or i >= len(params):
                break   # *args: the positions after it are unknown
            arguments.append((params[i], arg, arg))
        arguments += [(kw.arg, kw.value, kw) for kw in node.keywords if kw.arg is not None]
        if name == "MemoryConfig":
            arguments = _memory_config_seed_form(arguments)
        for arg_name, value, where in arguments:
            if isinstance(value, ast.Call) and self._class_name(value) in CONFIG_CLASSES:
                self._config_call(value, self._class_name(value), group)
                continue
            group.entries.append(_Entry(CONFIG_CLASSES[name] + arg_name, None,
                                        literal_value(value), where.lineno,
                                        where.col_offset + 1, "%s(%s=...)" % (name, arg_name)))


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
            found = tuple(resolve(config, product=product, env=env).diagnostics)
        except NpuConfigError as err:
            found = tuple(err.diagnostics)
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
            arms.setdefault(point, set()).add(arm)
    if not arms:
        return [entries]
    points = sorted(arms)
    total = 1
    for point in points:
        total *= len(arms[point])
    if total > _MAX_PATHS:
        return [entries]
    out, seen = [], set()
    for choice in itertools.product(*(sorted(arms[p]) for p in points)):
        chosen = dict(zip(points, choice))
        picked = tuple(i for i, e in enumerate(entries)
                       if all(chosen[p] == a for p, a in e.path))
        if picked not in seen:
            seen.add(picked)
            out.append([entries[i] for i in picked])
    return out


def _check_group(group, cat, product, env):
    """Findings of one group, as (line, col, code, severity, message, option): each set of
    entries that can hold together (`_paths`) is resolved on its own."""
    paths = _paths(group.entries)
    if len(paths) == 1:
        return _check_entries(group, paths[0], cat, product, env)
    out, seen = [], set()
    for entries in paths:
        for finding in _check_entries(group, entries, cat, product, env):
            if finding not in seen:
                seen.add(finding)
                out.append(finding)
    return out


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
        for e in entries:
            positions[e.key] = (e.line, e.col)
            if e.value is _NOT_LITERAL or e.field == "list":
                pm[e.key] = _placeholder(e.field)
                placeholders.add(e.key)
            else:
                pm[e.key] = LiteralAttr(e.field, e.value)
                placeholders.discard(e.key)
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


def _diag_id(diag):
    return (diag.code, diag.severity, diag.option, repr(diag.value), diag.message)


# flake8's inline suppression: `# noqa` (every code on the line) or `# noqa: CODE,CODE`.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9]+(?:[,\s]+[A-Za-z0-9]+)*))?", re.I)


# Names whose lines matter too: the owners of a parameter_map (`custom_op` of
# `custom_op.parameter_map`: a line re-binding it starts a new configuration), names bound to
# a parameter_map (`pm = op.parameter_map`), config classes imported under another name.
_OWNER = r"([A-Za-z_]\w*)\s*\.\s*parameter_map\b"
_PM_ALIAS = r"\b([A-Za-z_]\w*)\s*(?::[^=\n]*)?=[^=\n]*\bparameter_map\s*(?:#[^\n]*)?$"
_CLASS_ALIAS = r"\b(?:%s)\s+as\s+([A-Za-z_]\w*)" % "|".join(CONFIG_CLASSES)
_NAMES = re.compile("|".join((_OWNER, _PM_ALIAS, _CLASS_ALIAS)))
_NAMES_B = re.compile(_NAMES.pattern.encode())


def _scan(pattern, text, newline, found, names=None, class_lines=None):
    """Add to `found` the numbers of the lines where `pattern` matches; with `names`, also
    collect the `_NAMES` those lines hold (each line scanned once); with `class_lines`, add
    there the lines where the match is not `parameter_map` (a config class name)."""
    line, pos, last = 1, 0, None
    names_re = _NAMES_B if newline == b"\n" else _NAMES
    pm = b"parameter_map" if newline == b"\n" else "parameter_map"
    for m in pattern.finditer(text):
        line += text.count(newline, pos, m.start())
        pos = m.start()
        if class_lines is not None and m.group() != pm:
            class_lines.add(line)
        if line != last:
            last = line
            found.add(line)
            if names is not None:
                start = text.rfind(newline, 0, pos) + 1
                end = text.find(newline, pos)
                for nm in names_re.finditer(text, start, len(text) if end < 0 else end):
                    names.update(g for g in nm.groups() if g)


def _candidate_lines(text, class_lines=None):
    """Sorted numbers of the lines where `_CANDIDATE` matches, and of the lines that use a
    name those lines bind or own (`_NAMES`): two passes, the second only when needed. With
    `class_lines` (a set), also fills it with the lines naming a config class."""
    found, names = set(), set()
    is_bytes = isinstance(text, bytes)
    newline = b"\n" if is_bytes else "\n"
    _scan(_CANDIDATE_B if is_bytes else _CANDIDATE, text, newline, found, names, class_lines)
    names.discard(b"parameter_map" if is_bytes else "parameter_map")
    if names:
        alternatives = b"|".join(sorted(map(re.escape, names))) if is_bytes else \
            "|".join(sorted(map(re.escape, names)))
        pattern = (rb"\b(?:%s)\b" % alternatives) if is_bytes else (r"\b(?:%s)\b" % alternatives)
        _scan(re.compile(pattern), text, newline, found)
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
    class_lines = set()
    lines = _candidate_lines(source, class_lines)
    collector = _Collector(lines, sorted(class_lines))
    try:
        if lines:
            collector.visit_body(tree.body)
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
    from npu_bridge.ge import resolve  # noqa: F401  (loaded before the fork)
    context = None
    if sys.platform.startswith("linux"):   # (macOS: fork is unsafe there, spawn stays)
        context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for part in pool.map(_lint_many, batches):
            findings.extend(part)
    return sorted(findings), len(files)
