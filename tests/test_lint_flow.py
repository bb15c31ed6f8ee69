"""`npu-bridge lint`: an arm that always leaves its block (return, raise, continue, break,
sys.exit()) is never combined with the statements after it in that block."""
import textwrap

import pytest

from npu_bridge.tools import lint

HEAD = textwrap.dedent("""\
    import sys
    import tensorflow as tf
    from npu_bridge.npu_init import *
    """)

OP = textwrap.dedent("""\
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    """)

V2 = 'custom_op.parameter_map["precision_mode_v2"].s = tf.compat.as_bytes("mixed_float16")'
V1 = 'custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")'
MIX = 'custom_op.parameter_map["mix_compile_mode"].b = True'
LOOP = 'custom_op.parameter_map["iterations_per_loop"].i = 10'


def _codes(body):
    src = HEAD + body.replace("%OP", OP.strip().replace("\n", "\n    "))
    return sorted({(f.code, f.line) for f in lint.lint_source(src, "t.py")})


def _fn(body):
    """`body` as the body of `def f(a, b):`, after the custom optimizer is made."""
    return "def f(a, b):\n    %OP\n" + textwrap.indent(textwrap.dedent(body), "    ")


EXCLUSIVE = {
    "return": _fn('''\
        if a:
            %s
            return config
        %s
        return config
        ''' % (V2, V1)),
    "raise": _fn('''\
        if a:
            %s
            raise SystemExit(0)
        %s
        ''' % (MIX, LOOP)),
    "sys.exit": _fn('''\
        if a:
            %s
            sys.exit(1)
        %s
        ''' % (MIX, LOOP)),
    "continue": '''\
for m in modes:
    %%OP
    if m == "mix":
        %s
        continue
    %s
''' % (MIX, LOOP),
    "break in while": _fn('''\
        while True:
            if a:
                %s
                break
            %s
            break
        ''' % (MIX, LOOP)),
    "elif arm returns": _fn('''\
        if a:
            pass
        elif b:
            %s
            return config
        else:
            custom_op.parameter_map["op_debug_level"].i = 0
        %s
        ''' % (V2, V1)),
    "both arms of a nested if return": _fn('''\
        if a:
            %s
            if b:
                return config
            else:
                raise ValueError(b)
        %s
        ''' % (V2, V1)),
    "nested if returns, after the outer if": _fn('''\
        if a:
            if b:
                %s
                return config
            custom_op.parameter_map["op_debug_level"].i = 0
        %s
        ''' % (V2, V1)),
    "try body returns, handler too": _fn('''\
        if a:
            %s
            try:
                return config
            except ValueError:
                return None
        %s
        ''' % (V2, V1)),
    "with body returns": _fn('''\
        if a:
            %s
            with open("x") as fh:
                return config
        %s
        ''' % (V2, V1)),
    "else arm raises": _fn('''\
        if a:
            pass
        else:
            %s
            raise ValueError(a)
        %s
        ''' % (V2, V1)),
    "handler returns": _fn('''\
        try:
            import fast_lib
        except ImportError:
            %s
            return config
        %s
        ''' % (V2, V1)),
    "return in a loop": _fn('''\
        for m in b:
            if m:
                %s
                return config
        %s
        ''' % (V2, V1)),
    "match case returns": _fn('''\
        match a:
            case "v2":
                %s
                return config
            case _:
                pass
        %s
        ''' % (V2, V1)),
}


@pytest.mark.parametrize("name", sorted(EXCLUSIVE))
def test_an_arm_that_leaves_its_block_is_not_combined_with_what_follows(name):
    assert _codes(EXCLUSIVE[name]) == []


def test_tester_repro_flow3():
    src = textwrap.dedent('''\
        import tensorflow as tf
        def session_config(use_v2):
            config = tf.ConfigProto()
            custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
            custom_op.name = "NpuOptimizer"
            if use_v2:
                custom_op.parameter_map["precision_mode_v2"].s = tf.compat.as_bytes("mixed_float16")
                return config
            custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
            return config
        ''')
    assert lint.lint_source(src, "t.py") == []


COMBINED = {
    # the arm falls through
    "no exit": _fn('''\
        if a:
            %s
        %s
        ''' % (V2, V1)),
    # only a nested arm leaves: the outer arm's other path falls through
    "nested if exits only sometimes": _fn('''\
        if a:
            if b:
                return config
            %s
        %s
        ''' % (V2, V1)),
    # the exit comes after the later write's block: before the if, always combined
    "write before the if": _fn('''\
        %s
        if a:
            %s
            return config
        ''' % (V1, V2)),
    # a raise in a try body is caught by its handler: the statements after the try run
    "raise caught": _fn('''\
        try:
            if a:
                %s
                raise ValueError(a)
        except ValueError:
            pass
        %s
        ''' % (V2, V1)),
    # finally runs also when the arm returns
    "finally": _fn('''\
        try:
            if a:
                %s
                return config
        finally:
            %s
        ''' % (V2, V1)),
    # break leaves the loop only: the statements after the loop run
    "after the loop": _fn('''\
        for m in b:
            if m:
                %s
                break
        %s
        ''' % (V2, V1)),
    # an arm that exits only in one of its own arms
    "if without else returns": _fn('''\
        if a:
            %s
            if b:
                return config
        %s
        ''' % (V2, V1)),
}


@pytest.mark.parametrize("name", sorted(COMBINED))
def test_real_combinations_stay_reported(name):
    assert "NPB142" in {c for c, _ in _codes(COMBINED[name])}, _codes(COMBINED[name])


# --- conditional expressions: each arm a value of its own (a tryout: the typo in one arm of
# `b"allow_mix_precison" if amp else b"force_fp32"` was never reported) --------------------

def _found(src):
    return sorted((f.line, f.code, f.message.split(";")[0])
                  for f in lint.lint_source(HEAD + OP + textwrap.dedent(src), "t.py"))


def test_each_arm_of_a_conditional_parameter_map_value_is_checked():
    line = (HEAD + OP).count("\n") + 1
    found = _found('''\
        custom_op.parameter_map["precision_mode"].s = b"allow_mix_precison" if AMP else b"force_fp32"
        custom_op.parameter_map["op_debug_level"].i = 2 if A else ("3" if B else 7)
        custom_op.parameter_map["dump_mode"].s = tf.compat.as_bytes("all" if A else "outptu")
        custom_op.parameter_map["dump_path"].s = b"/tmp/dump"
        custom_op.parameter_map["enable_dump"].b = True
        ''')
    assert [(ln, code) for ln, code, _ in found] == [
        (line, "E10001"), (line + 1, "E10001"), (line + 1, "NBL011"), (line + 2, "E10001")]
    assert "'allow_mix_precison'" in found[0][2] and "op_debug_level: 7" in found[1][2]
    assert "'outptu'" in found[3][2]


def test_the_arms_of_one_conditional_are_never_combined_but_each_meets_the_rest():
    # two arms of one value are exclusive (no NPB142 between them); each arm combines with
    # the entries around it: precision_mode_v2 beside either precision_mode value is NPB142
    assert _found('custom_op.parameter_map["precision_mode"].s = '
                  '(b"force_fp16" if A else b"allow_mix_precision")\n') == []
    found = _found('''\
        custom_op.parameter_map["precision_mode"].s = b"force_fp16" if A else b"force_fp32"
        custom_op.parameter_map["precision_mode_v2"].s = b"fp16"
        ''')
    assert {code for _, code, _ in found} == {"NPB142"}


def test_each_arm_of_a_conditional_config_class_argument_is_checked():
    found = _found('''\
        run_config = NPURunConfig(
            precision_mode="allow_mix_precision" if AMP else "must_keep_orign_dtype",
            memory_config=MemoryConfig(static_memory_policy=2 if A else "2"))
        ''')
    assert [code for _, code, _ in found] == ["E10001", "NPB160"], found
    assert "'must_keep_orign_dtype'" in found[0][2]
