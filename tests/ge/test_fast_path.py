"""The resolver's fast path (`_entries` reading the precompiled `_FAST` specs) must do exactly
what its general path (`_entry_effect`, one entry at a time) does: same values kept, same GE
writes, same sources, same diagnostics in the same order, for every catalog row and value.
"""
import pytest
from hypothesis import given, strategies as st
from tensorflow.core.framework import attr_value_pb2

from npu_bridge.ge import catalog
from npu_bridge.ge import resolver as R

ROWS = [row for row in catalog.OPTIONS if row.key]


def reference(pmap):
    """`_entries` computed through the general path only."""
    diags = []
    levels = tuple(dict(d) for d in R._DEFAULTS)
    sources = dict(R._DEFAULT_SOURCES)
    values = {}
    for key, attr in pmap.items():
        forward, value, writes, found = R._entry_effect(key, attr)
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
