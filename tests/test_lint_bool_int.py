"""NPB162 from `npu-bridge lint`: an int other than 0/1 written to a bool (`.b`) option.

protobuf stores `attr.b = 2` as True, so GE gets the option's "on" value, not 2; for
`NPURunConfig(external_weight=2)` the constructor warns (NPB162, `_argtypes.bool_int_warning`).
Lint reports both forms: the config-class argument and the hand-written parameter_map entry.
"""
import textwrap

import pytest

from npu_bridge.tools import lint
from npu_bridge.estimator.npu.npu_config import NPURunConfig

HEAD = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    """)
LINE = HEAD.count("\n") + 1


def _lint(source):
    return lint.lint_source(HEAD + textwrap.dedent(source), "t.py")


@pytest.mark.parametrize("statement", [
    'custom_op.parameter_map["external_weight"].b = 2',
    'custom_op.parameter_map.get_or_create("external_weight").b = 2',
    'pm = custom_op.parameter_map\npm["external_weight"].b = 2',
])
def test_parameter_map_b_given_two(statement):
    findings = _lint(statement + "\n")
    line = LINE + statement.count("\n")
    assert [(f.line, f.code, f.severity, f.option) for f in findings] == [
        (line, "NPB162", "warning", "external_weight")]
    message = findings[0].message
    # the option, the value, what GE gets, what to do
    assert "external_weight" in message and "= 2" in message
    assert "protobuf stores" in message and "True" in message
    assert "ge.externalWeight '1'" in message
    assert "set ge.externalWeight='2' directly" in message


def test_parameter_map_message_is_the_constructors_in_content():
    """The GE part of the message (what GE gets, how to get 2) is the constructor's."""
    runtime = [d for d in NPURunConfig(external_weight=2)._npu_arg_warnings()
               if d.code == "NPB162"][0].message
    linted = _lint('custom_op.parameter_map["external_weight"].b = 2\n')[0].message
    sent = runtime.split("so GE gets ", 1)[1].split(" (source:", 1)[0]
    assert "so GE gets %s" % sent in linted
    advice = runtime.split("; GE's own ", 1)[1]
    assert "; GE's own " + advice.replace("which external_weight cannot",
                                          'which parameter_map["external_weight"].b cannot') \
        in linted


@pytest.mark.parametrize("value", ["3", "-1"])
def test_other_bool_keys(value):
    findings = _lint('custom_op.parameter_map["hcom_parallel"].b = %s\n' % value)
    assert [f.code for f in findings] == ["NPB162"]
    assert findings[0].message.startswith('parameter_map["hcom_parallel"].b = %s: ' % value)
    assert "so GE gets hcom_parallel '1' (session)" in findings[0].message


@pytest.mark.parametrize("value", ["True", "False", "0", "1", "FLAGS.w"])
def test_bool_or_zero_one_is_fine(value):
    assert _lint('custom_op.parameter_map["external_weight"].b = %s\n' % value) == []


def test_only_the_value_that_stays():
    # overwritten before the session reads it: only the last write counts
    assert _lint('custom_op.parameter_map["external_weight"].b = 2\n'
                 'custom_op.parameter_map["external_weight"].b = True\n') == []


def test_not_for_a_key_read_from_another_field_or_unknown():
    # precision_mode is read from .s: NPB101 (ignored), not NPB162
    assert [f.code for f in _lint('custom_op.parameter_map["precision_mode"].b = 2\n')] \
        == ["NPB101"]
    assert [f.code for f in _lint('custom_op.parameter_map["extrnal_weight"].b = 2\n')] \
        == ["NPB100"]


def test_not_for_another_custom_optimizer():
    source = ('other = config.graph_options.rewrite_options.custom_optimizers.add()\n'
              'other.name = "MyOptimizer"\n'
              'other.parameter_map["external_weight"].b = 2\n')
    assert "NPB162" not in [f.code for f in _lint(source)]


def test_config_class_argument_form():
    findings = lint.lint_source("from npu_bridge.npu_init import *\n"
                                "cfg = NPURunConfig(external_weight=2)\n", "t.py")
    assert [(f.line, f.col, f.code) for f in findings] == [(2, 20, "NPB162")]
    runtime = [d for d in NPURunConfig(external_weight=2)._npu_arg_warnings()
               if d.code == "NPB162"]
    assert findings[0].message == runtime[0].message
