"""`npu-bridge lint` follows names bound with `:=` as it follows plain assignments:
parameter_map aliases, custom optimizers, config classes and config instances; and a name
bound by `:=` in a function (also inside a comprehension there) is local to that function,
as Python decides."""
import ast
import textwrap

from npu_bridge.tools import lint

HEAD = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    """)
LINE = HEAD.count("\n") + 1


def _found(source):
    return [(f.line, f.code) for f in lint.lint_source(HEAD + textwrap.dedent(source), "t.py")]


def test_parameter_map_alias_in_if():
    assert _found("""\
        if (pm := custom_op.parameter_map) is not None:
            pm["precison_mode"].s = b"allow_mix_precision"
        """) == [(LINE + 1, "NPB100")]


def test_parameter_map_alias_in_while_and_call():
    assert _found("""\
        print(pm := custom_op.parameter_map)
        pm["precision_mode"].b = True
        """) == [(LINE + 1, "NPB101")]


def test_parameter_map_alias_in_a_function():
    assert _found("""\
        def configure(op):
            if pm := op.parameter_map:
                pm["precison_mode"].s = b"allow_mix_precision"
        """) == [(LINE + 2, "NPB100")]


def test_custom_optimizer_bound_with_walrus():
    source = textwrap.dedent("""\
        import tensorflow as tf
        config = tf.ConfigProto()
        if (op := config.graph_options.rewrite_options.custom_optimizers.add()):
            op.name = "NpuOptimizr"
            op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        """)
    assert [(f.line, f.code) for f in lint.lint_source(source, "t.py")] == [(4, "NPB107")]


def test_config_instance_bound_with_walrus():
    source = textwrap.dedent("""\
        from npu_bridge.npu_init import *
        if (mem := MemoryConfig(atomic_clean_policy=1)):
            pass
        cfg = NPURunConfig(memory_config=mem, precision_mode="allow_mix_precision")
        """)
    # one configuration: the MemoryConfig is resolved with the NPURunConfig that uses it
    assert lint.lint_source(source, "t.py") == []
    tree = ast.parse(source)
    collector = lint._Collector(list(range(1, 5)), source=source)
    collector.visit_module(tree)
    run = [g for g in collector.groups if "NPURunConfig" in g.classes]
    assert len(run) == 1 and run[0].classes == {"NPURunConfig", "MemoryConfig"}
    bad = source.replace("atomic_clean_policy=1", "atomic_clean_policy=3")
    assert [(f.line, f.code) for f in lint.lint_source(bad, "t.py")] == [(2, "E10001")]


def test_class_alias_bound_with_walrus():
    source = textwrap.dedent("""\
        from npu_bridge.npu_init import *
        if (Cfg := NPURunConfig) is not None:
            run = Cfg(precison_mode="allow_mix_precision")
        """)
    assert [(f.line, f.code) for f in lint.lint_source(source, "t.py")] == [(3, "NBL012")]


def test_walrus_rebinding_forgets_the_old_object():
    assert _found("""\
        pm = custom_op.parameter_map
        if (pm := other.parameter_map_copy()) is not None:
            pm["precison_mode"].s = b"allow_mix_precision"
        """) == []


def test_walrus_in_a_function_is_local_there():
    # `pm` bound by := in f is f's own: the module's pm (the map) is not rebound by it,
    # and g's writes through the module's pm are still checked
    assert _found("""\
        pm = custom_op.parameter_map
        def f():
            if (pm := other.parameter_map_copy()):
                pm["precison_mode"].s = b"allow_mix_precision"
        def g():
            pm["precison_mode"].s = b"allow_mix_precision"
        """) == [(LINE + 5, "NPB100")]


def test_walrus_in_a_comprehension_binds_in_the_function():
    assert _found("""\
        def f(ops):
            [pm := op.parameter_map for op in ops]
            pm["precison_mode"].s = b"allow_mix_precision"
        """) == [(LINE + 2, "NPB100")]


def test_local_names_see_walrus():
    tree = ast.parse(textwrap.dedent("""\
        def f(a):
            if (b := a):
                [c := x for x in a]
            lambda: (d := 1)
            def inner(e=(g := 2)):
                h = 3
        """))
    names, _ = lint._local_names(tree.body[0], walrus=True)
    assert names == {"a", "b", "c", "g", "inner"}


def test_walrus_on_a_later_line_of_the_expression():
    assert _found("""\
        print("map:",
              pm := custom_op.parameter_map)
        pm["precison_mode"].s = b"allow_mix_precision"
        """) == [(LINE + 2, "NPB100")]


def test_text_lines():
    assert lint._text_lines("a\nb := 1\n(c := 2) or (d := 3)\n", ":=") == [2, 3]
    assert lint._text_lines(b"x := 1", ":=") == [1]
    assert lint._text_lines("x = 1", ":=") == []
