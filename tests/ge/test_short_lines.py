"""A short line (the `text` outputs' one line per finding, at most SHORT_LIMIT characters) is
cut only between words and whole names, and a line that lost something has a fix line below
it or a pointer to `npu-bridge explain` (try-out 10: "did you mean 'pre...",
"allowed: high_precision, high_performanc...")."""
import re
import string

import pytest

from npu_bridge.ge import codes
from npu_bridge.ge.diagnostics import SHORT_LIMIT, fill, make
from tests.ge.test_codes import EXAMPLES

_INSERTED = re.compile(r"^\+?\d+$|^(more|values)$")   # "+3 more", "12 values"


def _words(text):
    return {w.strip("[]{},;:.!?\"'") for w in re.split(r"[\s=()]+", text.replace("...", " "))} - {""}


def _long(value):
    """A field's value made long but realistic: a list gets more names, text more words."""
    if not isinstance(value, str) or not value:
        return value
    if ", " in value and all(i.count(" ") < 2 for i in value.split(", ")):
        return ", ".join(["%s_%d" % (value.split(", ")[0], i) for i in range(14)])
    return value + " " + " ".join("because_of the rule number_%d" % i for i in range(8))


@pytest.mark.parametrize("long", [False, True], ids=["example", "long"])
@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_short_line_never_cuts_a_word_and_a_cut_line_points_on(code, long):
    option, value, fields = EXAMPLES[code]
    row = codes.CODES[code]
    if long:
        names = {n for _, n, spec, _ in string.Formatter().parse(row.short)
                 if n and spec in ("cut", "trim")}   # the fields the template lets grow
        fields = {k: _long(v) if k in names else v for k, v in fields.items()}
    d = make(code, option, value, **fields)
    short = d.message.short
    assert len(short) <= SHORT_LIMIT, short
    every = dict(fields, option=option, value=value, source=row.source)
    full = fill(row.short, every, limit=10 ** 6) if row.short else str(d.message)
    whole = _words(full)
    for word in _words(short):
        assert word in whole or _INSERTED.match(word), (word, short)
    if short != full:
        assert d.message.fix, (code, short)


def test_tryout_lint_lines_keep_the_name_the_value_and_the_suggestion():
    from npu_bridge.ge import catalog, rule_kinds
    d = rule_kinds._check(catalog.find("op_select_implmode"), "op_select_implmode",
                          "high_precison")[1][0]
    assert "'high_precison' (did you mean 'high_precision'?); allowed: high_precision, " \
        in d.message.short and d.message.short.endswith(" more")
    d = make("NPB113", "precision_mode", "allow_mix_precision_bf16",
             shown="allow_mix_precision_bf16", product="atlas-200i-500-a2",
             products=", ".join("atlas-a%d-training-series" % i for i in range(9)), where="x")
    assert d.message.short.startswith("precision_mode=allow_mix_precision_bf16 is not "
                                      "supported on atlas-200i-500-a2; supported on: 9 values")
    assert d.message.fix == "see npu-bridge explain precision_mode; the full message: --format json"


def test_nbl012_fix_names_the_argument_to_write():
    from npu_bridge.ge import config_schema
    assert config_schema.keyword_fix("NPURunConfig", "precison_mode") == \
        "NPURunConfig(precision_mode=...) (or precision_mode_v2=...)"
    assert config_schema.keyword_fix("NPURunConfig", "enable_dump_debug") == \
        "DumpConfig(enable_dump_debug=...)"
    assert config_schema.keyword_fix("NPURunConfig", "no_such_thing_at_all") == ""


def test_every_name_a_pointer_names_is_one_explain_knows():
    from npu_bridge.ge import catalog, diagnostics
    assert [n for n in diagnostics._explain_names() if catalog.find(n) is None] == []


def test_a_line_that_fits_exactly_is_whole_and_one_character_more_is_cut():
    value = "aaaa bbbb cccc dddd"   # 19 characters, + "!" = 20
    assert fill("{value:cut}!", {"value": value}, limit=20) == value + "!"
    assert fill("{value:trim}!", {"value": value}, limit=20) == value + "!"
    cut = fill("{value:cut}!", {"value": value}, limit=19)
    assert len(cut) <= 19 and cut.endswith("...!") and cut[:-4] in value
    # a field without a mark is never cut, whatever the limit
    assert fill("{value}!", {"value": value}, limit=5) == value + "!"
