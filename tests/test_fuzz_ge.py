"""Property-based tests of the GE layer's entry points: `resolve`, `resolve_ge`, `check_graph`.

Contract (the issue "messiest input there is"): for any input the answer is a `GeOptions` or
an `NpuConfigError`, nothing else; every error diagnostic names the key it is about; the same
input gives the same output; a valid result round-trips through `GeOptions.to_json` and
through the report's JSON (`npu_bridge.tools.report.configuration_dict`).

Profiles (tests/conftest.py): `fast` in `make test`, `full` (10,000 examples each) in
`make fuzz`. Failures the fuzzing found are kept as explicit `@example`s.
"""
import json
import math

import pytest
from hypothesis import example, given, strategies as st

from npu_bridge.tools import report
from npu_bridge.ge import (GeOptions, NpuConfigError, catalog, check_graph, products, resolve,
    resolve_ge)
from npu_bridge.ge.scopes import SCOPES
from npu_bridge.ge.diagnostics import SHOWN_PER_CODE
from tensorflow.core.framework import attr_value_pb2, tensor_pb2, types_pb2

pytestmark = pytest.mark.fuzz

AttrValue = attr_value_pb2.AttrValue
KEYS = catalog.PARAMETER_MAP_KEYS
GE_KEYS = tuple(sorted(set(SCOPES) | set(catalog.BY_GE_KEY)))
IR_NAMES = tuple(catalog.BY_IR_OPTION)
ENV_KEYS = ("GE_USE_STATIC_MEMORY", "ASCEND_WORK_PATH", "NPU_BRIDGE_PRODUCT")

# ------------------------------------------------------------------------------ strategies
ints = st.one_of(st.integers(-3, 10), st.integers(-2 ** 63, 2 ** 63 - 1),
                 st.sampled_from([2 ** 31 - 1, 2 ** 31, 2 ** 32, 33554432, 33554433, -2 ** 63]))
big_ints = st.one_of(ints, st.integers(-2 ** 200, 2 ** 200))
long_bytes = st.builds(lambda c, n: c * n, st.sampled_from([b"7", b"a", b"\xff", b"\x00", b","]),
                       st.integers(0, 50_000))
byte_strings = st.one_of(
    st.binary(max_size=40), long_bytes,
    st.sampled_from([b"", b"\xff\xfe", b"\xc3", b"0", b"1", b"-1", b"2", b"auto", b"true",
                     b"99999999999999999999", b"0,1|6,8", b"\xd9\xa3", b"\xc2\xb2", b"1\n", b" 1"]))
texts = st.one_of(st.text(max_size=30), byte_strings.map(lambda b: b.decode("utf-8", "replace")))


@st.composite
def attr_values(draw):
    """An AttrValue with any one of its fields set (or none)."""
    a = AttrValue()
    which = draw(st.sampled_from(["s", "i", "f", "b", "list", "type", "shape", "tensor", "func",
                                  "placeholder", "unset"]))
    if which == "s":
        a.s = draw(byte_strings)
    elif which == "i":
        a.i = draw(ints)
    elif which == "f":
        a.f = draw(st.floats(width=32))
    elif which == "b":
        a.b = draw(st.booleans())
    elif which == "list":
        part = draw(st.sampled_from(["empty", "s", "i", "f", "b", "type", "shape", "tensor", "func"]))
        if part == "empty":
            a.list.SetInParent()
        elif part == "s":
            a.list.s.extend(draw(st.lists(byte_strings, max_size=3)))
        elif part == "i":
            a.list.i.extend(draw(st.lists(ints, max_size=3)))
        elif part == "f":
            a.list.f.extend(draw(st.lists(st.floats(width=32), max_size=3)))
        elif part == "b":
            a.list.b.extend(draw(st.lists(st.booleans(), max_size=3)))
        elif part == "type":
            a.list.type.extend(draw(st.lists(st.sampled_from([1, 2, 3, 9]), max_size=3)))
        elif part == "shape":
            a.list.shape.add().dim.add().size = draw(st.integers(-1, 10))
        elif part == "tensor":
            a.list.tensor.add().dtype = types_pb2.DT_INT32
        else:
            a.list.func.add().name = draw(st.text(max_size=8))
    elif which == "type":
        a.type = draw(st.sampled_from([0, 1, 2, 3, 9, 23]))
    elif which == "shape":
        if draw(st.booleans()):
            a.shape.unknown_rank = True
        for size in draw(st.lists(st.integers(-1, 2 ** 40), max_size=3)):
            a.shape.dim.add().size = size
    elif which == "tensor":
        t = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING)
        t.string_val.extend(draw(st.lists(byte_strings, max_size=2)))
        a.tensor.CopyFrom(t)
    elif which == "func":
        a.func.name = draw(st.text(max_size=10))
        if draw(st.booleans()):
            a.func.attr["k"].i = draw(ints)
    elif which == "placeholder":
        a.placeholder = draw(st.text(max_size=10))
    return a


class _Weird:
    def __repr__(self):
        return "<weird>"


plain_values = st.one_of(
    st.none(), st.booleans(), big_ints, st.floats(), texts, byte_strings,
    st.lists(st.integers(), max_size=3), st.tuples(st.integers()), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(_Weird()), st.just(object()))


def _row_value(row):
    """Values near a row's rule, in its own field (as an AttrValue or a plain value)."""
    if row.rule == "enum":
        near = st.sampled_from(list(row.allowed) + list(row.legacy_values))
    elif row.rule in ("range", "clamp"):
        lo = -5 if row.min is None else row.min
        hi = lo + 100 if row.max is None else row.max
        near = st.one_of(st.integers(lo, hi), st.integers(lo - 3, lo + 3), st.integers(hi - 3, hi + 3))
    elif row.rule == "int_string":
        near = st.integers(-3, (row.max or 10) + 3).map(str)
    elif row.rule == "regex":
        near = st.one_of(st.just(row.example or ""), st.from_regex(row.pattern, fullmatch=True).filter(lambda s: len(s) < 200))
    elif row.rule == "json":
        near = st.sampled_from(['{"output": "/tmp/p"}', "{}", "[1]", "{", '"x"'])
    elif row.rule == "path":
        near = st.sampled_from(["/tmp/x", "./rel", "../up", "a\0b", "a\nb", ""])
    elif row.rule == "bool":
        near = st.booleans()
    else:
        near = texts
    return near


def _as_field(field, value):
    a = AttrValue()
    if field == "s":
        a.s = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else (
            value if isinstance(value, bytes) else str(value).encode())
    elif field == "i":
        if isinstance(value, bool) or not isinstance(value, int) or not -2 ** 63 <= value < 2 ** 63:
            return None
        a.i = value
    elif field == "b":
        if not isinstance(value, (bool, int)):
            return None
        a.b = bool(value)
    return a


@st.composite
def known_entries(draw):
    key = draw(st.sampled_from(KEYS))
    row = catalog.BY_KEY[key]
    value = draw(_row_value(row))
    form = draw(st.sampled_from(["attr", "plain", "attr", "other"]))
    if form == "attr":
        attr = _as_field(row.field, value)
        return key, attr if attr is not None else value
    if form == "plain":
        return key, value
    return key, draw(st.one_of(attr_values(), plain_values))


unknown_keys = st.one_of(st.text(max_size=25), st.sampled_from(
    ["", "static_memory_policy ", "Static_Memory_Policy", "precison_mode", "ge.exec.staticMemoryPolicy",
     "\x00", "\ud800", "k" * 10_000]))


@st.composite
def parameter_maps(draw):
    entries = draw(st.lists(st.one_of(known_entries(), known_entries(),
                                      st.tuples(unknown_keys, st.one_of(attr_values(), plain_values))),
                            max_size=10))
    return dict(entries)


product_args = st.one_of(st.none(), st.sampled_from(list(products.PRODUCTS)),
                         st.sampled_from(["Ascend910B1", "Ascend910A", "Ascend310P3", "Ascend950PR",
                                          "bogus", "", "ascend-950 "]), st.text(max_size=10))
envs = st.dictionaries(st.sampled_from(ENV_KEYS),
                       st.one_of(st.sampled_from(["", "0", "1", "2", "3", "4", "5", "-1", " 2", "2\n",
                                                  "atlas-a2-training", "Ascend910B1", "/tmp/w",
                                                  "../../etc", "\x00"]), texts), max_size=3)


# ------------------------------------------------------------------------------ contract
def _names_a_key(diag, given_keys):
    """The error names what it is about: a non-empty option (or an empty key of the input,
    quoted in the message), and the message mentions the option."""
    assert isinstance(diag.option, str), diag
    if diag.option == "":
        assert "" in given_keys and "''" in diag.message, diag
    else:
        assert diag.option in diag.message or repr(diag.option) in diag.message, diag
    assert diag.code and diag.message, diag


def _report_roundtrip(ge):
    conf = report.configuration_dict(ge)
    text = json.dumps(conf, allow_nan=False, ensure_ascii=False)
    assert json.loads(text) == conf
    again = report.configuration_dict(GeOptions.from_json(ge.to_json()))
    assert again == conf


def _outcome(call):
    """('ok', GeOptions) or ('error', NpuConfigError); anything else fails the test."""
    try:
        return "ok", call()
    except NpuConfigError as err:
        return "error", err


def check_contract(call, given_keys=()):
    kind, out = _outcome(call)
    kind2, out2 = _outcome(call)
    assert kind == kind2
    if kind == "error":
        errors = [d for d in out.diagnostics if d.severity == "error"]
        assert errors, out.diagnostics
        seen = {}
        for d in errors:
            _names_a_key(d, given_keys)
            # The message shows the first SHOWN_PER_CODE errors of a code and counts the rest
            # ("... and N more of CODE"); .diagnostics keeps them all (issue 17, defect 9).
            seen[d.code] = seen.get(d.code, 0) + 1
            if seen[d.code] <= SHOWN_PER_CODE:
                assert str(d) in str(out)
        for code, n in seen.items():
            more = "... and %d more of %s " % (n - SHOWN_PER_CODE, code)
            assert (more in str(out)) == (n > SHOWN_PER_CODE), (code, n, str(out))
        assert [d.to_dict() for d in out.diagnostics] == [d.to_dict() for d in out2.diagnostics] or \
            _nan_equal(out.diagnostics, out2.diagnostics)
        return out
    assert out.to_json() == out2.to_json()
    for level in (out.global_options, out.session_options, out.graph_options, out.effective):
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in level.items()), level
    assert not out.errors
    back = GeOptions.from_json(out.to_json())
    assert back.to_json() == out.to_json()
    if not _has_nan(out):
        assert back == out
    _report_roundtrip(out)
    return out


def _has_nan(ge):
    return any(isinstance(d.value, float) and math.isnan(d.value) for d in ge.diagnostics)


def _nan_equal(a, b):
    return [str(d) for d in a] == [str(d) for d in b]


# ------------------------------------------------------------------------------ properties
@given(parameter_maps(), product_args, envs)
@example({"": AttrValue()}, None, {})                        # unset AttrValue, unknown key: TypeError
@example({"variable_format_optimize": None}, None, {})        # None value: AttributeError
@example({"precision_mode": [1, 2]}, None, {})                 # list value: AttributeError
@example({"ge.exec.inputReuseMemIndexes": "\u0663"}, None, {})
@example({"graph_memory_max_size": "7" * 5000}, None, {})     # above int()'s digit limit
@example({"local_device_list": AttrValue(s="\u0663,\u0664".encode())}, None, {})  # non-ASCII digits
def test_resolve_parameter_map(pmap, product, env):
    check_contract(lambda: resolve(pmap, product=product, env=env), tuple(pmap))


@given(parameter_maps())
@example({"\ud800": AttrValue(s=b"")})   # not a possible proto map key: left out
def test_resolve_config_proto_same_as_parameter_map(pmap):
    """A ConfigProto carrying the map resolves like the map itself (AttrValue entries only)."""
    from tensorflow.core.protobuf import config_pb2
    # a protobuf map key must be valid UTF-8 (protobuf itself refuses a lone surrogate)
    attrs = {k: v for k, v in pmap.items() if isinstance(v, AttrValue)
             and not any("\ud800" <= c <= "\udfff" for c in k)}
    proto = config_pb2.ConfigProto()
    opt = proto.graph_options.rewrite_options.custom_optimizers.add()
    opt.name = "NpuOptimizer"
    for k, v in attrs.items():
        opt.parameter_map[k].CopyFrom(v)
    before = proto.SerializeToString(deterministic=True)
    a = check_contract(lambda: resolve(proto, env={}), tuple(attrs))
    b = check_contract(lambda: resolve(attrs, env={}), tuple(attrs))
    assert proto.SerializeToString(deterministic=True) == before  # input not modified
    # A protobuf map iterates in its own (hash) order, so diagnostics may come in another
    # order; the set of diagnostics and every option must be the same.
    assert type(a) is type(b)
    assert sorted(str(d) for d in a.diagnostics) == sorted(str(d) for d in b.diagnostics)
    if isinstance(a, GeOptions):
        a.diagnostics[:] = b.diagnostics[:] = []
        assert a.to_json() == b.to_json()


ge_values = st.one_of(st.sampled_from(["0", "1", "2", "3", "4", "", "0,1", "0,1|2,3", "1,a", "-1", "\u0663",
                                       "\u00b2", "33554433", "/tmp/w", "../w", "true"]),
                      texts, byte_strings, big_ints, st.booleans(), st.none(), st.floats())
ge_keys = st.one_of(st.sampled_from(GE_KEYS), st.sampled_from(tuple(catalog.BY_GE_KEY)), unknown_keys)
ge_levels = st.one_of(st.none(), st.dictionaries(ge_keys, ge_values, max_size=6))
ir_maps = st.one_of(st.none(), st.dictionaries(
    st.one_of(st.sampled_from(IR_NAMES), st.sampled_from(["ge::ir_option::" + n for n in IR_NAMES]),
              st.text(max_size=12)), ge_values, max_size=3))


@given(ge_levels, ge_levels, ge_levels, ir_maps, product_args, envs)
@example({"ge.externalWeightDir": b"\xff"}, None, None, None, None, {})          # UnicodeDecodeError
@example(None, None, {"ge.exec.inputReuseMemIndexes": "\u00b2"}, None, None, {})
@example(None, None, None, {"": b""}, None, {})   # bytes value of an unknown ir_option: to_json TypeError
def test_resolve_ge_levels(g, s, gr, ir, product, env):
    keys = tuple(g or ()) + tuple(s or ()) + tuple(gr or ()) + tuple(ir or ())
    out = check_contract(lambda: resolve_ge(g, s, gr, ir, product=product, env=env), keys)
    if isinstance(out, GeOptions):
        # check_graph on a valid result: the same contract for any input/output counts.
        for n_in, n_out in ((0, 0), (1, 3), (2 ** 31, 1)):
            check_contract(lambda: check_graph(out, n_in, n_out))


index_text = st.one_of(st.from_regex(r"[0-9,|]{0,12}", fullmatch=True), texts,
                       st.sampled_from(["\u00b2", "\u0663", "1,\u00b2", "0,1|\u00b2,1", "|", ",", "0,,1"]))


@given(st.dictionaries(st.sampled_from(["ge.exec.inputReuseMemIndexes", "ge.exec.outputReuseMemIndexes",
                                        "ge.exec.outputReuseInputMemIndexes"]), index_text),
       st.integers(0, 10), st.integers(0, 10))
@example({"ge.exec.inputReuseMemIndexes": "\u00b2"}, 3, 3)   # '²'.isdigit() but int('²') fails
@example({"ge.exec.inputReuseMemIndexes": "7" * 4301}, 0, 0)  # int() digit limit: ValueError
def test_check_graph_any_index_text(graph, n_in, n_out):
    ge = GeOptions(graph_options=dict(graph), effective=dict(graph))
    before = ge.to_json()
    out = check_contract(lambda: check_graph(ge, n_in, n_out))
    assert ge.to_json() == before  # the input is not changed
    if isinstance(out, GeOptions):
        assert out.graph_options == ge.graph_options  # sent as given; GE ignores bad indices
        for key, text in out.effective.items():
            for part in (text.replace("|", ",").split(",") if text else ()):  # "" = unset
                assert part.isascii() and part.isdigit(), (key, text)


# ------------------------------------------------------------------------------ regressions
def test_regression_unset_attr_value_unknown_key():
    with pytest.raises(NpuConfigError) as err:
        resolve({"typo_key": AttrValue()}, env={})
    assert err.value.diagnostics[0].code == "NPB100"


@pytest.mark.parametrize("value", [None, [1], (1,), {"a": 1}, object()])
def test_regression_non_attr_value_is_a_field_error(value):
    with pytest.raises(NpuConfigError) as err:
        resolve({"static_memory_policy": value}, env={})
    codes = {d.code for d in err.value.diagnostics if d.severity == "error"}
    assert codes == {"NPB101"}
    assert "static_memory_policy" in str(err.value)


def test_regression_non_ascii_digits_are_not_digits():
    with pytest.raises(NpuConfigError) as err:
        resolve_ge(graph_options={"ge.exec.inputReuseMemIndexes": "\u0663"}, env={})
    assert err.value.diagnostics[0].option == "ge.exec.inputReuseMemIndexes"


def test_regression_non_utf8_bytes_at_ge_level():
    with pytest.raises(NpuConfigError) as err:
        resolve_ge(global_options={"ge.externalWeightDir": b"\xff/w"}, env={})
    assert any(d.option == "ge.externalWeightDir" for d in err.value.diagnostics)


def test_regression_huge_index_through_resolve_ge_and_check_graph():
    ge = resolve_ge(graph_options={"ge.exec.inputReuseMemIndexes": "0," + "7" * 4301}, env={})
    out = check_graph(ge, 2, 2)
    assert out.effective["ge.exec.inputReuseMemIndexes"] == "0"
    assert any(d.code == "NPB131" for d in out.diagnostics)


def test_regression_int_string_strict_decimal():
    for bad in ("\u0663", "1_000", " 1", "7" * 5000):
        with pytest.raises(NpuConfigError) as err:
            resolve({"graph_memory_max_size": bad}, env={})
        assert err.value.diagnostics[0].option == "graph_memory_max_size"
