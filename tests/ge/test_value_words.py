"""Value errors say a format in words with a documented example, and an enum typo gets a
"did you mean" (issue 17 defect 7)."""
import re

import pytest

from npu_bridge.tools import cli
from npu_bridge.ge import NpuConfigError, catalog, resolve


def _message(pmap):
    with pytest.raises(NpuConfigError) as err:
        resolve(pmap)
    return [d.message for d in err.value.diagnostics if d.code == "E10001"]


def test_format_error_in_words_with_an_example():
    (message,) = _message({"aicore_num": "2,4"})
    assert "^" not in message and "\\d" not in message
    assert "two positive integers joined by '|'" in message
    assert "e.g. '2|4'" in message


@pytest.mark.parametrize("row", [r for r in catalog.OPTIONS if r.rule == "regex"],
                         ids=lambda r: r.name)
def test_every_format_row_has_words_and_a_matching_example(row):
    assert row.format and not re.search(r"[\^$\\]", row.format)
    assert re.fullmatch(row.pattern, row.example, re.ASCII)
    assert row.pattern not in row.allowed_text and repr(row.example) in row.allowed_text


def test_explain_shows_the_format_and_the_example():
    lines = cli.explain_lines(catalog.BY_KEY["aicore_num"])
    assert "example: 2|4" in lines
    assert any(line.startswith("values: two positive integers") for line in lines)


def test_enum_typo_gets_did_you_mean():
    (message,) = _message({"precision_mode": "allow_mixed_precision"})
    assert "did you mean 'allow_mix_precision'?" in message
    (message,) = _message({"precision_mode": "zzz"})
    assert "did you mean" not in message
