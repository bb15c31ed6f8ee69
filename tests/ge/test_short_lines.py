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
    if short != full:   # a fix below it, else the pointer to the rest (never as the fix)
        assert d.message.fix or d.message.more, (code, short)
    assert not d.message.fix.startswith("see npu-bridge explain"), d.message.fix
    assert d.message.more == "" or d.message.fix == "", (d.message.fix, d.message.more)


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
    assert d.message.fix == ""   # the pointer is no fix: its own part, `more`
    assert d.message.more == "see npu-bridge explain precision_mode; the full message: --format json"


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


# --- a shortened line never leaves a bracket, parenthesis or quote open ----------------------

def _open_marks(text):
    """The brackets and quotes `text` leaves open (a checker of its own, not the module's):
    a `'` with a letter before and a letter or digit after is an apostrophe (`adapter's`),
    except after a lone b/r/u prefix (`b'x'`); inside quotes nothing else counts."""
    pairs, stack = {"(": ")", "[": "]", "{": "}"}, []
    for at, ch in enumerate(text):
        if ch == "'" and text[at - 1:at].isalpha() and text[at + 1:at + 2].isalnum() and not (
                text[at - 1] in "bBrRuU" and not text[at - 2:at - 1].isalnum()):
            continue   # an apostrophe
        if stack and stack[-1] in "'\"":
            if ch == stack[-1]:
                stack.pop()
        elif ch in "'\"" or ch in pairs:
            stack.append(ch)
        elif ch in ")]}":
            if not stack or pairs[stack[-1]] != ch:
                return stack + ["unmatched " + ch]
            stack.pop()
    return stack


def _with(words):
    def grow(value):
        return value + words if isinstance(value, str) and value else value
    return grow


_RULE_WORDS = " ".join("because_of the rule number_%d" % i for i in range(8))
_SHAPES = {   # how a cut or trimmed field can hold brackets and quotes
    "example": None,
    "long": _long,
    "aside": _with(" (named 'x_y' %s)" % _RULE_WORDS),
    "quoted": _with(" '%s'" % " ".join("word_%d" % i for i in range(30))),
    "double-quoted": _with(' "%s"' % " ".join("word_%d" % i for i in range(30))),
    "list": _with("=[%s]" % ", ".join("item number %d" % i for i in range(30))),
    "names": _with(" [%s]" % ", ".join("'n%d'" % i for i in range(40))),
    "nested": _with(" (see {'a': [1, 2, (3, 4)], 'b': %s})" % _RULE_WORDS),
    "bytes": _with(" b'%s'" % _RULE_WORDS),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_short_line_never_leaves_a_bracket_or_quote_open(code, shape):
    option, value, fields = EXAMPLES[code]
    row = codes.CODES[code]
    grow = _SHAPES[shape]
    if grow is not None:
        names = {n for _, n, spec, _ in string.Formatter().parse(row.short)
                 if n and spec in ("cut", "trim")}
        fields = {k: grow(v) if k in names else v for k, v in fields.items()}
    d = make(code, option, value, **fields)
    every = dict(fields, option=option, value=value, source=row.source)
    full = fill(row.short, every, limit=10 ** 6) if row.short else str(d.message)
    if _open_marks(full):
        pytest.skip("the full line itself is not balanced: %r" % full)
    assert len(d.message.short) <= SHORT_LIMIT
    assert _open_marks(d.message.short) == [], d.message.short


def test_npb160_short_line_closes_the_bracket_it_cuts_into():
    """NPB160 from the constructors' own type check, with a value long enough to be cut:
    the line closes the list or tuple it cut into, after the "..."."""
    from npu_bridge.ge import argtypes
    problems = []
    argtypes.check_arg("DumpConfig", "dump_step", [str(i) for i in range(40)], problems)
    argtypes.check_arg("NPURunConfig", "iterations_per_loop", ("a long tuple value",) * 9,
                       problems)
    assert [d.message.short for d in problems] == [
        "dump_step=['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', +28 more]: "
        "expected a str or None, got list",
        "iterations_per_loop=('a long tuple value'...): expected an int >= 1 (a bool counts "
        "as 1/0), got tuple"]
    d = make("NPB160", "static_memory_policy", "2", subject="MemoryConfig(x='%s')" % ("y" * 90),
             expected="an int (or a bool, written as 1/0) " + _RULE_WORDS, got="str",
             detail="", where="x")
    assert _open_marks(d.message.short) == [], d.message.short


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_json_fix_is_a_fix_and_the_pointer_is_more(code):
    """Every JSON form of a diagnostic (Diagnostic.to_dict, a report's or `memory --format
    json`'s diagnostic, lint's JSON finding) keeps the explain pointer out of `fix`: `fix` is
    what to write (null/empty when none), `more` the pointer (null/empty when none), and
    both read back."""
    import json
    from npu_bridge.ge.diagnostics import Diagnostic
    from npu_bridge.tools import report
    from npu_bridge.tools.lint.checks import Finding
    option, value, fields = EXAMPLES[code]
    row = codes.CODES[code]
    names = {n for _, n, spec, _ in string.Formatter().parse(row.short)
             if n and spec in ("cut", "trim")}
    for given in (fields, {k: _long(v) if k in names else v for k, v in fields.items()}):
        d = make(code, option, value, **given)
        forms = [d.to_dict(), report.diagnostic_dict(d),
                 Finding("t.py", 1, 1, code, d.severity, d.message, option).to_dict()]
        for form in forms:
            assert "see npu-bridge explain" not in (form["fix"] or ""), form
            assert form["more"] in ("", None) or form["more"].startswith(
                "see npu-bridge explain "), form
            assert (form["more"] or "") == d.message.more
            assert (form["fix"] or "") == d.message.fix
        back = Diagnostic.from_dict(json.loads(json.dumps(forms[1])))
        assert (back.message.fix, back.message.more) == (d.message.fix, d.message.more)


def test_a_line_that_fits_exactly_is_whole_and_one_character_more_is_cut():
    value = "aaaa bbbb cccc dddd"   # 19 characters, + "!" = 20
    assert fill("{value:cut}!", {"value": value}, limit=20) == value + "!"
    assert fill("{value:trim}!", {"value": value}, limit=20) == value + "!"
    cut = fill("{value:cut}!", {"value": value}, limit=19)
    assert len(cut) <= 19 and cut.endswith("...!") and cut[:-4] in value
    # a field without a mark is never cut, whatever the limit
    assert fill("{value}!", {"value": value}, limit=5) == value + "!"
