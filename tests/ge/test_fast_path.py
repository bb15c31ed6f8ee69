"""The resolver's fast path (`_entries` through the generated `_read`) must do exactly what
its general path (`_entry_effect`, one entry at a time) does: same values kept, same GE
writes, same sources, same diagnostics in the same order (catalog order, then the keys the
catalog lacks in map order), for every catalog row and value.
"""
import re
import types

import pytest
from hypothesis import given, strategies as st
from tensorflow.core.framework import attr_value_pb2
from tensorflow.core.protobuf import config_pb2

from npu_bridge.ge import catalog
from npu_bridge.ge import resolver as R

ROWS = [row for row in catalog.OPTIONS if row.key]
_ORDER = {row.key: index for index, row in enumerate(ROWS)}


def in_order(pmap):
    """The keys of `pmap` in the order `_entries` takes them."""
    known = sorted((k for k in pmap if isinstance(k, str) and k in _ORDER), key=_ORDER.get)
    return known + [k for k in pmap if not (isinstance(k, str) and k in _ORDER)]


def reference(pmap):
    """`_entries` computed through the general path only."""
    diags = []
    levels = tuple(dict(d) for d in R._DEFAULTS)
    sources = dict(R._DEFAULT_SOURCES)
    values = {}
    for key in in_order(pmap):
        forward, value, writes, found = R._entry_effect(key, pmap[key])
        diags.extend(found)
        if forward is not None:
            values[key] = value
            for level, gekey, text in writes:
                levels[level][gekey] = text
            sources.update(forward)
    return values, tuple(diags), levels, sources


def candidates(row):
    """Values worth trying for a row: valid, unset, boundaries, wrong types, wrong fields."""
    out = [True, False, 0, 1, -1, 2, 3, 5, 2 ** 31, -(2 ** 40), "", "0", "1", "abc", "-1",
           "x\0y", "a\nb", "1,2|3,4", "0|5|10", "/tmp", "{}", "[1]", b"raw", "é"]
    if row.allowed and isinstance(row.allowed, (tuple, list)):
        out.extend(row.allowed)
    for bound in (row.min, row.max):
        if bound is not None:
            out.extend([bound - 1, bound, bound + 1, str(bound), str(bound + 1)])
    if row.adapter_default is not None:
        out.append(row.adapter_default)
    if getattr(row, "example", None):
        out.append(row.example)
    out.extend(getattr(row, "legacy_values", None) or ())
    return out


def as_attr(value):
    attr = attr_value_pb2.AttrValue()
    if isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        if not -2 ** 63 <= value < 2 ** 63:
            return None
        attr.i = value
    else:
        attr.s = value if isinstance(value, bytes) else value.encode("utf-8")
    return attr


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_every_row_and_value_matches_the_general_path(row):
    compared = 0
    for value in candidates(row):
        for form in (value, as_attr(value)):
            if form is None:
                continue
            pmap = {row.key: form}
            assert R._entries(pmap) == reference(pmap), (row.key, value, type(form).__name__)
            compared += 1
    assert compared >= 40


def test_an_unset_attrvalue_and_an_unknown_key_take_the_general_path():
    pmap = {"static_memory_policy": attr_value_pb2.AttrValue(),   # nothing set: proto default
            "static_memory_polcy": attr_value_pb2.AttrValue(i=2),
            5: attr_value_pb2.AttrValue(i=1)}
    got = R._entries(pmap)
    assert got == reference(pmap)
    assert [d.code for d in got[1]] == ["NPB100", "NPB100"]
    assert got[0] == {"static_memory_policy": 0}


_KEYS = st.sampled_from([row.key for row in ROWS] + ["unknown_key", "static_memory_polcy"])
_VALUES = st.one_of(st.booleans(), st.integers(-2 ** 63, 2 ** 63 - 1), st.text(max_size=12),
                    st.sampled_from(["", "0", "1", "2", "true", "allow_mix_precision", "0|5",
                                     "/tmp", "{}", "ERROR", "auto_tune"]))


@given(st.dictionaries(_KEYS, _VALUES, max_size=25), st.booleans())
def test_whole_maps_match_the_general_path(values, attrs):
    pmap = {k: as_attr(v) for k, v in values.items()} if attrs else values
    assert R._entries(pmap) == reference(pmap)


class _Duck:
    """A parameter_map that is no `Mapping`: keys by iteration, `[]`, `items()`."""
    def __init__(self, data):
        self._data = data

    def __iter__(self):
        return iter(self._data)

    def __getitem__(self, key):
        return self._data[key]

    def __len__(self):
        return len(self._data)

    def items(self):
        return self._data.items()


@given(st.dictionaries(_KEYS, _VALUES, max_size=25))
def test_a_protobuf_map_and_other_mappings_read_as_a_dict_of_the_same_entries(values):
    """A protobuf parameter_map is asked `key in map` itself (no set of its keys) and its
    unknown keys found by count: the outcome is the dict's, in the map's own order."""
    custom = config_pb2.ConfigProto().graph_options.rewrite_options.custom_optimizers.add()
    for key, value in values.items():
        attr = as_attr(value)
        if attr is not None:
            custom.parameter_map[key].CopyFrom(attr)
    pmap = custom.parameter_map
    plain = {key: pmap[key] for key in pmap}   # the protobuf map's iteration order
    expected = reference(plain)
    assert R._entries(pmap) == expected
    assert R._entries(types.MappingProxyType(plain)) == expected
    assert R._entries(_Duck(plain)) == expected
    assert len(pmap) == len(plain)   # reading added no entry


_REGEX_ROWS = [row for row in catalog.OPTIONS if row.rule == "regex"]


@pytest.mark.parametrize("pattern, plain", [
    (r"^\d+(,\d+)*$", r"\d+(?:,\d+)*"),
    (r"^a\$", r"a\$"),                       # an escaped "$" is no anchor
    (r"^a\\$", r"a\\"),                      # an escaped backslash, then the anchor
    (r"[(]x(y)", r"[(]x(?:y)"),              # "(" in a class is a character
    (r"[]()](z)", r"[]()](?:z)"),            # "]" first in a class is a character
    (r"[^]\]](q)", r"[^]\]](?:q)"),
    (r"\((a)\)", r"\((?:a)\)"),
    (r"(?P<n>a)(b)", r"(?P<n>a)(b)"),        # a named group: the pattern as it is
])
def test_plain_groups_rewrites_only_capturing_groups_and_anchors(pattern, plain):
    assert R._plain_groups(pattern) == plain


@pytest.mark.parametrize("row", _REGEX_ROWS, ids=lambda r: r.key or r.ge_key)
@given(text=st.text(alphabet="0123456789,;|:-.[]~ adfgnprtxACLMSOB_", max_size=30))
def test_the_fast_regex_accepts_what_the_row_pattern_accepts(row, text):
    ok = R._fast_ok(row)
    unset = bool(row.key) and text in ("", row.adapter_default)   # parameter_map rows only
    assert bool(ok(text)) == (unset or re.fullmatch(row.pattern, text, re.ASCII) is not None)


def test_plainly_valid_entries_never_take_the_general_path(monkeypatch):
    """Every row with a valid, diagnostic-free value (and deprecated rows: NPB105 only) is
    written by the generated `_read`; the general path is not called."""
    from bench import _configs   # noqa: E402  (the every-key valid map of bench_resolve)
    values = _configs.valid_values()
    general = []
    real = R._entry_effect
    monkeypatch.setattr(R, "_entry_effect", lambda key, attr: general.append(key) or real(key, attr))
    for pmap in (values, {k: as_attr(v) for k, v in values.items()}):
        got = R._entries(pmap)
        assert general == [] and len(got[0]) == len(values) == len(catalog.PARAMETER_MAP_KEYS)
        assert {d.code for d in got[1]} == {"NPB105"}


def test_the_readers_are_built_from_the_catalog_at_import():
    """`_read` is generated from the catalog rows and compiled in memory at import (no
    checked-in generated module), reads every row's key, and gives the general path's outcome."""
    import importlib.util
    assert R._read.__code__.co_filename == R._READER_FILE
    assert importlib.util.find_spec("npu_bridge.ge._reader") is None
    assert all("%r in keys" % row.key in R._READER_SOURCE for row in ROWS)
    from bench import _configs   # noqa: E402
    pmap = {k: as_attr(v) for k, v in _configs.valid_values().items()}
    pmap["static_memory_policy"] = as_attr(9)
    got = R._entries(pmap)
    assert got == reference(pmap) and "E10001" in [d.code for d in got[1]]


def test_plain_groups_keeps_a_pattern_whose_rewrite_would_not_compile():
    assert R._plain_groups(r"^(a)\1$") == r"^(a)\1$"   # a backreference needs its group


def test_json_nested_too_deep_is_an_invalid_value_not_a_crash():
    from npu_bridge.ge import NpuConfigError, resolve
    deep = "[" * 100000 + "]" * 100000
    for value in (deep, '{"a": %s}' % deep):
        with pytest.raises(NpuConfigError) as err:
            resolve({"profiling_options": value}, env={})
        (diag,) = [d for d in err.value.diagnostics if d.code == "E10001"]
        assert diag.option == "profiling_options" and "not valid JSON" in diag.message
