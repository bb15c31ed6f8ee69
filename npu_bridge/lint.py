"""Static check of Ascend TF1 scripts: `npu-bridge lint`.

Reads Python files with `ast` only (never imports or runs them) and finds the two ways a
script configures the NPU:

* `<obj>.parameter_map["KEY"].FIELD = VALUE` assignments (a hand-written `NpuOptimizer`);
* keyword arguments of `NPURunConfig`, `MemoryConfig`, `DumpConfig`, `ProfilingConfig`,
  `ExperimentalConfig`, `GraphMemoryOptimizeConfig` and `DynamicInputConfig` calls.

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
| NBL011 | the literal does not fit the `AttrValue` field (protobuf raises `TypeError`) |
"""
import ast
import bisect
import concurrent.futures
import dataclasses
import os
import re
import stat

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

# Calls whose result is their (single) argument converted to bytes or str.
_CONVERTERS = {"as_bytes", "as_str", "as_text", "compat.as_bytes", "str", "bytes", "int",
               "float", "bool"}
_MAX_POW = 64  # refuse 10 ** huge in literal folding

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
            if op is ast.Pow and abs(right) <= _MAX_POW:
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
        if isinstance(value, int):
            return int(value)
        return None
    if field == "f":
        if isinstance(value, (int, float)):
            return float(value)
        return None
    return None


@dataclasses.dataclass
class _Entry:
    key: str          # parameter_map key
    field: str        # AttrValue field
    value: object     # Python value or _NOT_LITERAL
    line: int
    col: int
    label: str        # how the source wrote it, for messages


@dataclasses.dataclass
class _Group:
    kind: str                      # "parameter_map" or "config"
    line: int
    col: int
    entries: list = dataclasses.field(default_factory=list)
    classes: set = dataclasses.field(default_factory=set)
    class_pos: dict = dataclasses.field(default_factory=dict)  # class name -> (line, col)


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

    def __init__(self, candidate_lines):
        self.groups = []
        self.findings = []  # (line, col, code, severity, message, option)
        self._scope = [{}]
        self._done_calls = set()
        self._lines = candidate_lines  # sorted line numbers

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
            self._scope.append({})
            self.visit_body(stmt.body)
            self._scope.pop()
            return
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self._assignment(target, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._assignment(stmt.target, stmt.value)
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
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.visit_Call(sub)

    def _assignment(self, target, value_node):
        # <owner>.parameter_map["KEY"].FIELD = VALUE
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Subscript)):
            return
        sub = target.value
        pm = sub.value
        if not ((isinstance(pm, ast.Attribute) and pm.attr == "parameter_map")
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
                                      'parameter_map["%s"].%s = %r: a %s does not fit the AttrValue '
                                      'field .%s' % (key, field, value, type(value).__name__, field),
                                      key))
                return
            value = typed
        elif field not in SCALAR_FIELDS:
            value = _NOT_LITERAL
        owner = ast.dump(pm.value) if isinstance(pm, ast.Attribute) else "<parameter_map>"
        groups = self._scope[-1]
        group = groups.get(owner)
        if group is None:
            group = groups[owner] = _Group("parameter_map", line, col)
            self.groups.append(group)
        group.entries.append(_Entry(key, field, value, line, col,
                                    'parameter_map["%s"].%s' % (key, field)))

    def visit_Call(self, node):
        name = _call_name(node)
        if name in CONFIG_CLASSES and id(node) not in self._done_calls:
            group = _Group("config", node.lineno, node.col_offset + 1)
            self._config_call(node, name, group)
            self.groups.append(group)

    def _config_call(self, node, name, group):
        self._done_calls.add(id(node))
        group.classes.add(name)
        group.class_pos.setdefault(name, (node.lineno, node.col_offset + 1))
        for kw in node.keywords:
            if kw.arg is None:
                continue
            if isinstance(kw.value, ast.Call) and _call_name(kw.value) in CONFIG_CLASSES:
                self._config_call(kw.value, _call_name(kw.value), group)
                continue
            group.entries.append(_Entry(CONFIG_CLASSES[name] + kw.arg, None,
                                        literal_value(kw.value), kw.lineno,
                                        kw.col_offset + 1, "%s(%s=...)" % (name, kw.arg)))


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


def _check_group(group, cat, product, env):
    """Findings of one group, as (line, col, code, severity, message, option).

    An entry whose value is not a literal still counts: it is resolved twice, with two
    different stand-in values (zero and non-zero). A diagnostic is kept when both
    resolutions give it (so it does not depend on the unknown value), or when it is about a
    stand-in key's name or field (NAME_FIELD_CODES), which needs no value.
    """
    pm, positions, placeholders = {}, {}, set()
    if group.kind == "parameter_map":
        for e in group.entries:
            positions[e.key] = (e.line, e.col)
            if e.value is _NOT_LITERAL or e.field == "list":
                pm[e.key] = _placeholder(e.field)
                placeholders.add(e.key)
            else:
                pm[e.key] = LiteralAttr(e.field, e.value)
                placeholders.discard(e.key)
        make = dict
    else:
        for e in group.entries:
            opt = cat.by_arg.get(e.key)
            if opt is None or not opt.key or e.value is None:
                continue  # not an NPU option (model_dir, ...) or None (= not written)
            converted = _config_entry_to_attr(cat, e)
            positions[opt.key] = (e.line, e.col)
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
    out = []
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


def _candidate_lines(text):
    """Sorted numbers of the lines where `_CANDIDATE` matches (one pass over the text)."""
    lines, line, pos = [], 1, 0
    newline = b"\n" if isinstance(text, bytes) else "\n"
    for m in (_CANDIDATE_B if isinstance(text, bytes) else _CANDIDATE).finditer(text):
        line += text.count(newline, pos, m.start())
        pos = m.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


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
    lines = _candidate_lines(source)
    collector = _Collector(lines)
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
    return [f for p in paths for f in lint_file(p, product, env, max_bytes, ignore)]


def lint_paths(paths, product=None, env=None, max_bytes=DEFAULT_MAX_BYTES, jobs=None, ignore=()):
    """Findings of every file under `paths`, sorted; `(findings, number_of_files)`.

    Uses a process pool of `jobs` workers (default: the CPU count) when there are many files.
    """
    files = list(iter_python_files(paths))
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < 64:
        findings = _lint_many((files, product, env, max_bytes, ignore))
        return sorted(findings), len(files)
    chunk = max(8, min(64, len(files) // (jobs * 4) or 1))
    batches = [(files[i:i + chunk], product, env, max_bytes, ignore) for i in range(0, len(files), chunk)]
    findings = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_lint_many, batches):
            findings.extend(part)
    return sorted(findings), len(files)
