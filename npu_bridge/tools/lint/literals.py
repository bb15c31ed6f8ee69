"""Literal folding: the value of a literal expression (`26 * 1024 ** 3`, `b"x"`,
`tf.compat.as_bytes("x")`), protobuf's typing of AttrValue scalar fields, and `LiteralAttr`,
a TensorFlow-free stand-in for `AttrValue` that the resolver accepts."""
import ast

ATTR_FIELDS = ("s", "i", "f", "b", "list", "type", "shape", "tensor", "func", "placeholder")
SCALAR_FIELDS = ("s", "i", "f", "b")

_INT64 = (-(1 << 63), (1 << 63) - 1)

# Calls whose result is their (single) argument converted to bytes or str.
_CONVERTERS = {"as_bytes", "as_str", "as_text", "compat.as_bytes", "str", "bytes", "int",
               "float", "bool"}
_MAX_POW = 64  # refuse 10 ** huge in literal folding...
_MAX_POW_BITS = 4096  # ...unless the integer result stays this small (2 ** 70 folds)


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


MAX_ALTERNATIVES = 8   # values of one expression followed arm by arm; beyond, not a literal


def alternatives(node):
    """The expressions `node` evaluates to, one per arm of the conditional expressions it
    holds (`b"a" if amp else b"b"`, also inside a converter: `tf.compat.as_bytes("a" if amp
    else "b")`, nested ones too), in source order; `[node]` when it holds none, or when
    there would be more than MAX_ALTERNATIVES. Each arm is then checked as a literal of its
    own (the statement's entries, each on an arm of one new branch point)."""
    if isinstance(node, (ast.Constant, ast.Name)):   # most values: nothing to look into
        return [node]
    out, todo = [], [node]
    while todo:
        expr = todo.pop(0)
        found = next((n for n in ast.walk(expr) if isinstance(n, ast.IfExp)), None)
        if found is None:
            out.append(expr)
        else:
            todo[:0] = [_replaced(expr, found, found.body), _replaced(expr, found, found.orelse)]
        if len(out) + len(todo) > MAX_ALTERNATIVES:
            return [node]
    return out


def _replaced(node, target, by):
    """`node` with its sub-node `target` replaced by `by` (new nodes on the way down only)."""
    if node is target:
        return by
    if not isinstance(node, ast.AST):
        return node
    fields, changed = dict(ast.iter_fields(node)), False
    for name, value in fields.items():
        if isinstance(value, list):
            new = [_replaced(v, target, by) for v in value]
            changed = changed or any(a is not b for a, b in zip(new, value))
        else:
            new = _replaced(value, target, by)
            changed = changed or new is not value
        fields[name] = new
    return ast.copy_location(type(node)(**fields), node) if changed else node


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




_ONES = {"s": b"x", "i": 1, "f": 1.0, "b": True}


def _placeholder(field, one=False):
    """A stand-in value for a non-literal: the field's zero, or (one=True) a non-zero value."""
    table = _ONES if one else LiteralAttr._DEFAULTS
    return LiteralAttr(field, table.get(field, LiteralList()))

