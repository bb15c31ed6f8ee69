"""A fix line shows one spelling: the one the user wrote (a parameter_map entry, or a config
class argument), never both (fresh-user try-out: E10001's fix showed both)."""
import pytest

from npu_bridge.ge import NpuConfigError, UserSet, codes, resolve
from npu_bridge.tools import lint


def _diags(config, **kw):
    try:
        return resolve(config, env={}, **kw).diagnostics
    except NpuConfigError as err:
        return err.diagnostics


def _fix(diags, code):
    (d,) = [d for d in diags if d.code == code]
    return d.message.fix


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_no_fix_template_offers_two_spellings_of_one_option(code):
    row = codes.CODES[code]
    assert not ("parameter_map[" in row.fix and ("NPURunConfig(" in row.fix
                                                 or "{option}=" in row.fix)), row.fix


def test_parameter_map_entry_gets_the_parameter_map_spelling():
    diags = _diags({"precision_mode": "allow_mix_precisoin"})
    assert _fix(diags, "E10001") == 'parameter_map["precision_mode"].s = b"allow_mix_precision"'


def test_config_class_argument_gets_the_argument_spelling():
    # what NPURunConfig resolves through: a map the class wrote, the user's keys named
    diags = _diags({"precision_mode": "allow_mix_precisoin", "enable_dump": True},
                   user_set=UserSet("NPURunConfig", frozenset({"precision_mode"})))
    assert _fix(diags, "E10001") == "NPURunConfig(precision_mode='allow_mix_precision')"
    diags = _diags({"static_memory_policy": 1},
                   user_set=UserSet("NPURunConfig", frozenset({"static_memory_policy"})))
    assert _fix(diags, "NPB103") == "MemoryConfig(static_memory_policy=2)"


def test_lint_says_the_spelling_of_each_line():
    src = ('from npu_bridge.npu_init import *\n'
           'config = NPURunConfig(precision_mode="allow_mix_precisoin")\n'
           'custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes('
           '"allow_mix_precisoin")\n'
           'mem = MemoryConfig(static_memory_policy=1)\n')
    fixes = [(f.line, f.code, f.message.fix) for f in lint.lint_source(src, "t.py")
             if f.code in ("E10001", "NPB103")]
    assert fixes == [
        (2, "E10001", "NPURunConfig(precision_mode='allow_mix_precision')"),
        (3, "E10001", 'parameter_map["precision_mode"].s = b"allow_mix_precision"'),
        (4, "NPB103", "MemoryConfig(static_memory_policy=2)")]
