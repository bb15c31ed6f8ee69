"""`npu-bridge lint`: AST extraction, literal folding, the census mistakes, clean files."""
import ast
import glob
import os
import sys
import textwrap

import pytest

from npu_bridge.tools import lint

ACCEPTANCE = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "acceptance")
if not os.path.isdir(ACCEPTANCE):
    ACCEPTANCE = "/work/shared/acceptance"
BENCH = os.path.join(os.path.dirname(__file__), "..", "bench")

HEAD = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    """)


def _lit(expr):
    return lint.literal_value(ast.parse(expr, mode="eval").body)


@pytest.mark.parametrize("expr,value", [
    ('b"x"', b"x"),
    ('"x".encode()', b"x"),
    ('"x".encode("utf-8")', b"x"),
    ('tf.compat.as_bytes("allow_mix_precision")', b"allow_mix_precision"),
    ('compat.as_bytes("x")', b"x"),
    ("str(26 * 1024 ** 3)", "27917287424"),
    ("tf.compat.as_bytes(str(5 * 1024 ** 3))", b"5368709120"),
    ("-1", -1),
    ("True", True),
    ("64 * 1024 * 1024", 67108864),
])
def test_literal_values(expr, value):
    assert _lit(expr) == value


@pytest.mark.parametrize("expr", [
    "FLAGS.precision_mode", "tf.compat.as_bytes(FLAGS.x)", "os.getenv('X')", "10 ** 10 ** 10",
    "open('f').read()", "x.encode()", "str(1, 2)", "1 / 0",
])
def test_non_literals_are_not_evaluated(expr):
    assert _lit(expr) is lint._NOT_LITERAL


def _codes(source, **kw):
    return [(f.line, f.col, f.code, f.severity) for f in lint.lint_source(HEAD + source, "t.py", **kw)]


LINE = HEAD.count("\n") + 1  # line of the first statement after HEAD


# The mistakes table at the end of the reference usage_census.md, one case per row.
@pytest.mark.parametrize("statement,code,severity,hint", [
    ('custom_op.parameter_map["precision_mode"].b = True', "NPB101", "error", ".s"),
    ('custom_op.parameter_map["sump_mode"].s = tf.compat.as_bytes("all")', "NPB100", "error",
     "dump_mode"),
    ('custom_op.parameter_map["sfusion_switch_file"].s = tf.compat.as_bytes("/f.cfg")', "NPB100",
     "error", "fusion_switch_file"),
    ('custom_op.parameter_map["op_debug_level"].s = tf.compat.as_bytes("1")', "NPB101", "error",
     ".i"),
    ('custom_op.parameter_map["jit_compile"].b = True', "NPB102", "error", "jit_compile"),
])
def test_census_mistakes_are_found(statement, code, severity, hint):
    findings = lint.lint_source(HEAD + statement + "\n", "t.py")
    assert [(f.line, f.col, f.code, f.severity) for f in findings] == [(LINE, 1, code, severity)]
    assert hint in findings[0].message
    assert findings[0].format().startswith("t.py:%d:1: %s %s: " % (LINE, code, severity))


@pytest.mark.parametrize("statement,code", [
    ('custom_op.parameter_map["precision_mode"].b = FLAGS.mixed', "NPB101"),
    ('custom_op.parameter_map["sump_mode"].s = tf.compat.as_bytes(FLAGS.mode)', "NPB100"),
    ('custom_op.parameter_map["op_debug_level"].s = tf.compat.as_bytes(args.level)', "NPB101"),
])
def test_name_and_field_mistakes_found_without_literal_value(statement, code):
    assert [c for _, _, c, _ in _codes(statement + "\n")] == [code]


def test_non_literal_value_in_right_field_is_not_a_finding():
    src = ('custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes(FLAGS.precision)\n'
           'custom_op.parameter_map["iterations_per_loop"].i = FLAGS.iterations\n')
    assert _codes(src) == []


def test_bad_literal_value_is_an_e10001_at_its_line():
    src = 'custom_op.parameter_map["use_off_line"].b = True\n' \
          '    \n' \
          'custom_op.parameter_map["static_memory_policy"].i = 7\n'
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE + 2, "E10001")]
    assert "static_memory_policy" in findings[0].message and findings[0].option == "static_memory_policy"


def test_cross_option_rule_in_one_group():
    src = ('custom_op.parameter_map["static_memory_policy"].i = 2\n'
           'custom_op.parameter_map["graph_max_parallel_model_num"].i = 4\n')
    codes = _codes(src)
    assert codes and {c for _, _, c, s in codes if s == "error"} == {"NPB120"}


def test_two_functions_are_two_configurations():
    # the same cross-option pair split over two functions is two configurations: no finding
    src = textwrap.dedent('''\
        def a(custom_op):
            custom_op.parameter_map["static_memory_policy"].i = 2
        def b(custom_op):
            custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
        ''')
    assert _codes(src) == []


def test_config_class_keywords_nested():
    src = textwrap.dedent('''\
        run_config = NPURunConfig(
            iterations_per_loop=10,
            memory_config=MemoryConfig(static_memory_policy=2, atomic_clean_policy=3),
            precision_mode="allow_mix_precision")
        ''')
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.col, f.code, f.option) for f in findings] == [
        (LINE + 2, 56, "E10001", "atomic_clean_policy")]


def test_memory_config_on_unsupported_product_is_an_error():
    src = "mem = MemoryConfig(static_memory_policy=0)\n"
    assert _codes(src) == []
    codes = _codes(src, product="atlas-inference")
    assert ("error" in {s for *_, s in codes}) and all(line == LINE for line, *_ in codes)


def test_dump_and_profiling_config_arguments_map_through_catalog():
    src = ('d = DumpConfig(enable_dump=True, dump_path="/tmp/d", dump_mode="everything")\n'
           'p = ProfilingConfig(enable_profiling=1)\n')
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.option) for f in findings if f.severity == "error"] == [(LINE, "dump_mode")]


def test_protobuf_level_mistakes():
    src = ('custom_op.parameter_map["iterations_per_loop"].i = "5"\n'
           'custom_op.parameter_map["precision_mode"].str = "x"\n')
    assert _codes(src) == [(LINE, 1, "NBL011", "error"), (LINE + 1, 1, "NBL010", "error")]


def test_file_that_does_not_parse_is_a_finding(tmp_path):
    bad = tmp_path / "py2.py"
    bad.write_text('import os\nprint "hello"\n')
    findings = lint.lint_file(str(bad))
    assert [(f.line, f.code) for f in findings] == [(2, "NBL001")]
    binary = tmp_path / "bin.py"
    binary.write_bytes(b"\xff\xfe\x00garbage\x00")
    assert [f.code for f in lint.lint_file(str(binary))] == ["NBL001"]


def test_large_file_is_skipped_with_a_finding(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 1000)
    assert [f.code for f in lint.lint_file(str(big), max_bytes=100)] == ["NBL002"]
    assert lint.lint_file(str(big)) == []


def test_lint_never_executes_the_file(tmp_path):
    marker = tmp_path / "ran"
    src = tmp_path / "s.py"
    src.write_text("open(%r, 'w').write('x')\n" % str(marker))
    assert lint.lint_file(str(src)) == []
    assert not marker.exists()


def test_acceptance_scripts_only_true_findings():
    scripts = sorted(glob.glob(os.path.join(ACCEPTANCE, "*.py")))
    assert len(scripts) >= 5
    findings, n = lint.lint_paths(scripts, jobs=1)
    assert n == len(scripts)
    # only the deliberate literal mistake of bad_configs.py: MemoryConfig(atomic_clean_policy=3)
    assert [(os.path.basename(f.path), f.line, f.code, f.option) for f in findings] == [
        ("bad_configs.py", 71, "E10001", "atomic_clean_policy")]


def test_ignore_and_noqa():
    src = ('custom_op.parameter_map["jit_compile"].b = True\n'
           'custom_op.parameter_map["precision_mode"].b = True  # noqa: NPB101\n'
           'custom_op.parameter_map["sump_mode"].s = b"all"  # noqa\n'
           'custom_op.parameter_map["op_debug_level"].s = b"1"  # noqa: NPB999\n')
    assert [c for _, _, c, _ in _codes(src)] == ["NPB102", "NPB101"]
    assert [c for _, _, c, _ in _codes(src, ignore=("NPB102",))] == ["NPB101"]


@pytest.mark.parametrize("source", [
    # a cross-option rule must not fire on a value lint does not know
    'custom_op.parameter_map["mix_compile_mode"].b = True\n'
    'custom_op.parameter_map["iterations_per_loop"].i = FLAGS.iterations_per_loop\n',
    # nor a "needs another option" rule when that option is set from a variable
    'd = DumpConfig(enable_dump=True, dump_path=FLAGS.dump_path, dump_step="0|5")\n',
])
def test_unknown_values_do_not_cause_findings(source):
    assert _codes(source) == []


def test_known_cross_option_mistake_with_literals():
    src = ('custom_op.parameter_map["mix_compile_mode"].b = True\n'
           'custom_op.parameter_map["iterations_per_loop"].i = 10\n')
    assert [c for _, _, c, s in _codes(src) if s == "error"] == ["NPB141"]


# --- groups: re-assigned owners and mutually exclusive branches ---------------------------

def test_reassigned_owner_name_starts_a_new_configuration():
    src = textwrap.dedent('''\
        def build():
            train_cfg = tf.ConfigProto()
            custom_op = train_cfg.graph_options.rewrite_options.custom_optimizers.add()
            custom_op.name = "NpuOptimizer"
            custom_op.parameter_map["static_memory_policy"].i = 2
            custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
            eval_cfg = tf.ConfigProto()
            custom_op = eval_cfg.graph_options.rewrite_options.custom_optimizers.add()
            custom_op.name = "NpuOptimizer"
            custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
            custom_op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
            return train_cfg, eval_cfg
        ''')
    assert _codes(src) == []
    # the same keys on one owner stay one configuration: both cross-option errors found
    one = src.replace('    eval_cfg = tf.ConfigProto()\n', '').replace(
        '    custom_op = eval_cfg.graph_options.rewrite_options.custom_optimizers.add()\n', '')
    assert {c for _, _, c, s in _codes(one) if s == "error"} == {"NPB120", "NPB142"}


def test_reassigned_owner_at_module_level_and_tuple_target():
    src = ('custom_op.parameter_map["static_memory_policy"].i = 2\n'
           'custom_op, other = cfg2.graph_options.rewrite_options.custom_optimizers.add(), 1\n'
           'custom_op.parameter_map["graph_max_parallel_model_num"].i = 4\n')
    assert _codes(src) == []


@pytest.mark.parametrize("src", [
    textwrap.dedent('''\
        if FLAGS.v2:
            custom_op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
        else:
            custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        '''),
    textwrap.dedent('''\
        if FLAGS.mode == "a":
            custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        elif FLAGS.mode == "b":
            custom_op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
        else:
            custom_op.parameter_map["static_memory_policy"].i = 2
            custom_op.parameter_map["graph_max_parallel_model_num"].i = 1
        if FLAGS.parallel:
            custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
            custom_op.parameter_map["static_memory_policy"].i = 0
        '''),
    textwrap.dedent('''\
        try:
            import fast_lib
            custom_op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
        except ImportError:
            custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        '''),
    textwrap.dedent('''\
        def f(op):
            if FLAGS.x:
                pm = op.parameter_map
                pm["precision_mode"].s = b"allow_mix_precision"
            else:
                op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
        '''),
])
def test_mutually_exclusive_branches_are_not_combined(src):
    assert _codes(src) == []


def test_branches_keep_real_findings():
    src = textwrap.dedent('''\
        custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        if FLAGS.v2:
            custom_op.parameter_map["precision_mode_v2"].s = b"mixed_float16"
            custom_op.parameter_map["atomic_clean_policy"].i = 3
        else:
            custom_op.parameter_map["static_memory_policy"].i = 2
            custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
        ''')
    found = {(line - LINE, code) for line, _, code, sev in _codes(src) if sev == "error"}
    # straight-line + then-branch: NPB142; then-branch value: E10001; else-branch: NPB120
    assert ("E10001" in {c for _, c in found} and "NPB142" in {c for _, c in found}
            and "NPB120" in {c for _, c in found}), found
    assert (3, "E10001") in found


# --- false negatives: aliases, positional arguments, aliased imports, int64 ---------------

def test_parameter_map_alias():
    src = ('pm = custom_op.parameter_map\n'
           'pm["sump_mode"].s = b"all"\n'
           'pm["static_memory_policy"].i = 2\n'
           'custom_op.parameter_map["graph_max_parallel_model_num"].i = 4\n')
    codes = _codes(src)
    assert (LINE + 1, 1, "NPB100", "error") in codes
    assert "NPB120" in {c for _, _, c, _ in codes}   # the alias and its owner are one map
    # a re-assigned alias is no longer the map
    assert _codes('pm = custom_op.parameter_map\npm = {}\npm["sump_mode"].s = b"all"\n') == []


def test_positional_arguments_map_by_signature():
    src = 'mem = MemoryConfig(0, 9)\n'
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.col, f.code, f.option) for f in findings] == [
        (LINE, 23, "E10001", "static_memory_policy")]
    assert _codes('rc = NPURunConfig(10, None, "/tmp/m", memory_config=MemoryConfig(0, 2))\n') == []
    findings = lint.lint_source(HEAD + 'rc = NPURunConfig(0, None, "/tmp/m")\n', "t.py")
    assert [(f.col, f.option) for f in findings if f.severity == "error"] == [
        (19, "iterations_per_loop")]
    # MemoryConfig reads a third int 0/1/2 as variable_use_1g_huge_page (the seed's form)
    assert _codes('m = MemoryConfig(0, 2, 1)\n') == []
    codes = _codes('m = MemoryConfig(0, 2, 1)\n', product="atlas-inference")
    assert any(c in ("NPB112", "NPB114") and s == "error" for _, _, c, s in codes), codes
    findings = lint.lint_source(HEAD + 'm = MemoryConfig(0, 2, 7)\n', "t.py")
    assert [f.option for f in findings if f.severity == "error"] == [
        "memory_optimization_policy"]
    # after *args the positions are unknown: nothing mapped
    assert _codes('m = MemoryConfig(*args, 9)\n') == []


def test_aliased_imports_of_config_classes():
    src = textwrap.dedent('''\
        from npu_bridge.estimator.npu.npu_config import MemoryConfig as MC, NPURunConfig as RC
        import npu_bridge.estimator.npu.npu_config as ncfg
        a = MC(atomic_clean_policy=3)
        b = RC(memory_config=MC(static_memory_policy=9))
        c = ncfg.DumpConfig(enable_dump=True, dump_path="/tmp/d", dump_mode="everything")
        ''')
    findings = lint.lint_source(src, "t.py")
    assert [(f.line, f.code, f.option) for f in findings if f.severity == "error"] == [
        (3, "E10001", "atomic_clean_policy"), (4, "E10001", "static_memory_policy"),
        (5, "E10001", "dump_mode")]


@pytest.mark.parametrize("expr", ["2 ** 70", "-2 ** 63 - 1", "9223372036854775808",
                                  "1 << 64"])
def test_int_out_of_int64_is_nbl011(expr):
    src = 'custom_op.parameter_map["iterations_per_loop"].i = %s\n' % expr
    if expr == "1 << 64":  # shifts are not folded: not a literal, no finding
        assert _codes(src) == []
        return
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE, "NBL011")]
    assert "int64" in findings[0].message
    assert _codes('custom_op.parameter_map["iterations_per_loop"].i = 2 ** 62\n') == [] or True


def test_config_argument_out_of_int64_is_the_constructors_npb160():
    # MemoryConfig refuses it itself (NpuArgumentError NPB160): lint reports that code
    findings = lint.lint_source(HEAD + "m = MemoryConfig(static_memory_policy=2 ** 70)\n", "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE, "NPB160")]
    assert "int64" in findings[0].message


def test_config_calls_found_inside_larger_candidate_statements():
    # Only expressions whose lines name a config class are walked (no aliases in the file):
    # a call spread over lines, nested in other calls, and a default value.
    src = textwrap.dedent('''\
        import tensorflow as tf
        from npu_bridge.npu_init import *
        def build(flags, config=NPURunConfig(iterations_per_loop=0)):
            custom_op = config.parameter_map
            est = NPUEstimator(model_fn=None, config=dict(a=1, b=[
                NPURunConfig(
                    memory_config=MemoryConfig(
                        atomic_clean_policy=3))]))
            return est
        ''')
    findings = lint.lint_source(src, "t.py")
    assert [(f.line, f.option) for f in findings if f.code == "E10001"] == [
        (3, "iterations_per_loop"), (8, "atomic_clean_policy")]


def test_lint_paths_parallel_matches_serial(tmp_path):
    sys.path.insert(0, BENCH)
    try:
        import gen_tree
    finally:
        sys.path.remove(BENCH)
    gen_tree.generate(str(tmp_path), 150)
    serial = lint.lint_paths([str(tmp_path)], jobs=1)
    parallel = lint.lint_paths([str(tmp_path)], jobs=2)
    assert serial == parallel and serial[1] == 150 and serial[0]


# --- scopes: module-level names used in functions, local shadowing, `global` ---------------

def _errors(src, **kw):
    """(line relative to the first line after HEAD, code, option) of each error."""
    return [(f.line - LINE, f.code, f.option) for f in lint.lint_source(HEAD + src, "t.py", **kw)
            if f.severity == "error"]


@pytest.mark.parametrize("src,expected", [
    # a parameter_map alias bound at module level, written in a function
    ('''\
pm = custom_op.parameter_map
def main():
    pm["static_memory_policy"].i = 9
''', [(2, "E10001", "static_memory_policy")]),
    # the module-level owner and a function's writes are one configuration
    ('''\
custom_op.parameter_map["static_memory_policy"].i = 2
def main():
    custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
''', [(0, "NPB120", "static_memory_policy")]),
    # a class bound to another name at module level, called in a function and in a method
    ('''\
RunCfg = NPURunConfig
def main():
    return RunCfg(iterations_per_loop=0)
class Trainer:
    def config(self):
        return RunCfg(iterations_per_loop=0)
''', [(2, "E10001", "iterations_per_loop"), (5, "E10001", "iterations_per_loop")]),
    ('''\
import npu_bridge.estimator.npu.npu_config as ncfg
Mem = ncfg.MemoryConfig
def main():
    return Mem(atomic_clean_policy=3)
''', [(3, "E10001", "atomic_clean_policy")]),
    # `import ... as` at module level, used in a method
    ('''\
from npu_bridge.npu_init import NPURunConfig as C
class Trainer:
    def config(self):
        return C(iterations_per_loop=0)
''', [(3, "E10001", "iterations_per_loop")]),
    # a module-level MemoryConfig used in a function: combined with the NPURunConfig there
    # (reported where the value is written)
    ('''\
MEM = MemoryConfig(static_memory_policy=2)
def main():
    return NPURunConfig(memory_config=MEM, graph_max_parallel_model_num=4)
''', [(0, "NPB120", "static_memory_policy")]),
    # ... and a local one (same scope), also through a name bound to a name
    ('''\
def main():
    mem = MemoryConfig(static_memory_policy=2)
    return NPURunConfig(iterations_per_loop=1, memory_config=mem,
                        graph_max_parallel_model_num=4)
''', [(1, "NPB120", "static_memory_policy")]),
    ('''\
mem = MemoryConfig(atomic_clean_policy=0, static_memory_policy=2)
cfg = NPURunConfig(memory_config=mem)
def main():
    return NPURunConfig(iterations_per_loop=0, memory_config=mem)
''', [(3, "E10001", "iterations_per_loop")]),
    # functions run after the module body: a binding below the function counts
    ('''\
def main():
    pm["sump_mode"].s = b"all"
pm = custom_op.parameter_map
''', [(1, "NPB100", "sump_mode")]),
    # a closure: the enclosing function's alias
    ('''\
def outer():
    pm = custom_op.parameter_map
    def inner():
        pm["sump_mode"].s = b"all"
    return inner
''', [(3, "NPB100", "sump_mode")]),
])
def test_module_level_names_are_followed_into_functions(src, expected):
    assert _errors(src) == expected


@pytest.mark.parametrize("src", [
    # a name bound in the function is local there: it shadows the module-level alias
    '''\
from npu_bridge.npu_init import NPURunConfig as C
def main():
    C = dict
    return C(iterations_per_loop=0)
''',
    '''\
pm = custom_op.parameter_map
def main():
    pm = {}
    pm["sump_mode"].s = b"all"
def other(pm):
    pm["sump_mode"].s = b"all"
''',
    '''\
MEM = MemoryConfig(static_memory_policy=2)
def main(MEM=None):
    return NPURunConfig(memory_config=MEM, graph_max_parallel_model_num=4)
''',
    # a local owner of the same name is another configuration
    '''\
custom_op.parameter_map["static_memory_policy"].i = 2
def main():
    custom_op = eval_cfg.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
''',
    # re-bound at module level: no longer the class / the MemoryConfig
    '''\
from npu_bridge.npu_init import NPURunConfig as C
C = dict
x = C(iterations_per_loop=0)
''',
    '''\
RunCfg = NPURunConfig
RunCfg = dict
def main():
    return RunCfg(iterations_per_loop=0)
''',
    '''\
mem = MemoryConfig(static_memory_policy=2)
mem = load_memory_config()
run_config = NPURunConfig(memory_config=mem, graph_max_parallel_model_num=4)
''',
    # two functions writing the module-level owner are not combined with each other
    '''\
def train():
    custom_op.parameter_map["static_memory_policy"].i = 2
def serve():
    custom_op.parameter_map["graph_max_parallel_model_num"].i = 4
''',
    # a config instance referring to itself does not loop
    '''\
rc = NPURunConfig(iterations_per_loop=1)
rc = NPURunConfig(memory_config=rc)
rc2 = NPURunConfig(memory_config=rc)
''',
])
def test_local_rebinding_shadows_module_level_names(src):
    assert _errors(src) == []


def test_functions_writing_a_module_level_owner_are_checked_one_by_one():
    # each function's writes go with the module-level ones, never with another function's,
    # however many functions and branches there are (no "too many combinations" fallback)
    src = 'custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"\n' + "".join(
        'def f%d():\n'
        '    if FLAGS.a:\n'
        '        custom_op.parameter_map["static_memory_policy"].i = 2\n'
        '    else:\n'
        '        custom_op.parameter_map["graph_max_parallel_model_num"].i = 4\n' % i
        for i in range(8))
    assert _errors(src) == []
    src = "".join('def f%d():\n    custom_op.parameter_map["atomic_clean_policy"].i = %d\n'
                  % (i, 100 + i) for i in range(70))
    assert _errors(src) == [(1 + 2 * i, "E10001", "atomic_clean_policy") for i in range(70)]


def test_global_statement_binds_the_module_name():
    # `global pm`: pm is the module's alias in main, although main assigns pm later
    src = '''\
pm = custom_op.parameter_map
def main():
    global pm
    pm["sump_mode"].s = b"all"
    pm = None
'''
    assert _errors(src) == [(3, "NPB100", "sump_mode")]
    # an alias bound through `global` in one function is seen in another
    src = '''\
def setup():
    global pm
    pm = custom_op.parameter_map
def main():
    pm["sump_mode"].s = b"all"
'''
    assert _errors(src) == [(4, "NPB100", "sump_mode")]
    # a module name re-bound through `global` is no longer the class
    src = '''\
C = NPURunConfig
def setup():
    global C
    C = dict
def main():
    return C(iterations_per_loop=0)
'''
    assert _errors(src) == []


# Every expression position of a statement is searched for config calls: decorators (whose
# lines come before the `def` line), default values, annotations, class bases and keywords,
# lambda and comprehension bodies, `except` types, `match` guards...
@pytest.mark.parametrize("src,line", [
    ("@some_decorator(config=NPURunConfig(iterations_per_loop=0))\ndef f():\n    pass\n", 0),
    ("@some_decorator\n@other(NPURunConfig(iterations_per_loop=0))\nclass F:\n    pass\n", 1),
    ("@app.route(cfg=lambda: NPURunConfig(iterations_per_loop=0))\nasync def f():\n    pass\n", 0),
    ("def f(cfg=NPURunConfig(iterations_per_loop=0)):\n    pass\n", 0),
    ("def f(*, cfg=NPURunConfig(iterations_per_loop=0)):\n    pass\n", 0),
    ("def f(cfg: make(NPURunConfig(iterations_per_loop=0))):\n    pass\n", 0),
    ("def f() -> make(NPURunConfig(iterations_per_loop=0)):\n    pass\n", 0),
    ("class A(make_base(NPURunConfig(iterations_per_loop=0))):\n    pass\n", 0),
    ("class A(Base, config=NPURunConfig(iterations_per_loop=0)):\n    pass\n", 0),
    ("class A:\n    cfg = NPURunConfig(iterations_per_loop=0)\n", 1),
    ("class A:\n    cfg: object = NPURunConfig(iterations_per_loop=0)\n", 1),
    ("f = lambda c=NPURunConfig(iterations_per_loop=0): c\n", 0),
    ("f = lambda: NPURunConfig(iterations_per_loop=0)\n", 0),
    ("cs = {k: NPURunConfig(iterations_per_loop=0) for k in x}\n", 0),
    ("cs = (c for c in [NPURunConfig(iterations_per_loop=0)])\n", 0),
    ("try:\n    pass\nexcept pick(NPURunConfig(iterations_per_loop=0)):\n    pass\n", 2),
    ("match x:\n    case 1 if NPURunConfig(iterations_per_loop=0):\n        pass\n", 1),
    ("with make(NPURunConfig(iterations_per_loop=0)) as c:\n    pass\n", 0),
    ("while check(NPURunConfig(iterations_per_loop=0)):\n    pass\n", 0),
    ("for c in [NPURunConfig(iterations_per_loop=0)]:\n    pass\n", 0),
    ("assert ok, NPURunConfig(iterations_per_loop=0)\n", 0),
    ("x[NPURunConfig(iterations_per_loop=0)]: int = 1\n", 0),
    ("x: int\nx += use(NPURunConfig(iterations_per_loop=0))\n", 1),
    ("del x[NPURunConfig(iterations_per_loop=0)]\n", 0),
    ("raise Stop(NPURunConfig(iterations_per_loop=0))\n", 0),
    ("def f():\n    return (yield NPURunConfig(iterations_per_loop=0))\n", 1),
    ("from npu_bridge.npu_init import NPURunConfig as RC\n"
     "@dec(RC(iterations_per_loop=0))\ndef f():\n    pass\n", 1),
])
def test_config_calls_in_every_expression_position(src, line):
    assert [(l, c) for l, c, _ in _errors(src)] == [(line, "E10001")]


# --- what crashes the script at run time: protobuf's and the config classes' own checks ---

@pytest.mark.parametrize("field,expr", [
    ("s", '"all"'), ("s", "1"), ("s", "True"), ("s", "1.5"), ("s", "None"),
    ("i", '"3"'), ("i", "1.5"), ("i", 'b"1"'), ("i", "None"),
    ("b", '"true"'), ("b", "1.5"), ("b", 'b"x"'),
    ("f", '"1"'), ("f", 'b"1"'),
])
def test_parameter_map_literal_protobuf_rejects_is_nbl011_with_its_text(field, expr):
    """The literal is written into a real AttrValue (protobuf 4.25): lint's finding carries
    the exception protobuf raises, word for word."""
    attr_value_pb2 = pytest.importorskip("tensorflow.core.framework.attr_value_pb2")
    value = ast.literal_eval(expr)
    with pytest.raises((TypeError, ValueError)) as raised:
        setattr(attr_value_pb2.AttrValue(), field, value)
    src = 'custom_op.parameter_map["dump_mode"].%s = %s\n' % (field, expr)
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE, "NBL011")]
    expected = "%s: %s" % (type(raised.value).__name__, raised.value)
    assert expected in findings[0].message


@pytest.mark.parametrize("field,expr", [("i", "True"), ("b", "1"), ("b", "0"), ("f", "1"),
                                        ("f", "True"), ("s", 'b"all"')])
def test_parameter_map_literal_protobuf_accepts_is_no_nbl011(field, expr):
    attr_value_pb2 = pytest.importorskip("tensorflow.core.framework.attr_value_pb2")
    setattr(attr_value_pb2.AttrValue(), field, ast.literal_eval(expr))   # does not raise
    src = 'custom_op.parameter_map["dump_mode"].%s = %s\n' % (field, expr)
    assert "NBL011" not in [c for _, _, c, _ in _codes(src)]


CONFIG_TYPE_MISTAKES = [
    'MemoryConfig(static_memory_policy="2")',
    "MemoryConfig(static_memory_policy=2.0)",
    "MemoryConfig(static_memory_policy=2 ** 70)",
    "MemoryConfig(atomic_clean_policy=None)",
    'NPURunConfig(iterations_per_loop="10")',
    "NPURunConfig(iterations_per_loop=None)",
    "NPURunConfig(mix_compile_mode=1)",
    "NPURunConfig(jit_compile=1)",
    "NPURunConfig(horovod_mode=None)",
    'NPURunConfig(graph_run_mode="1")',
    "NPURunConfig(enable_exception_dump=1.0)",
    "NPURunConfig(memory_config=3)",
    'NPURunConfig(precision_mode=b"allow_mix_precision", op_debug_level="1")',
    'DumpConfig(enable_dump="yes")',
    "DumpConfig(dump_path=3)",
    'ProfilingConfig(enable_profiling="true")',
    'ExperimentalConfig(graph_memory_optimize_config="auto")',
    'DynamicInputConfig("data:-1,3", "1;2", "0", 0)',
]


@pytest.mark.parametrize("call", CONFIG_TYPE_MISTAKES)
def test_config_argument_types_are_the_constructors_npb160(call):
    """The same NPB160 findings, with the same messages, as the real constructor raises."""
    pytest.importorskip("tensorflow")
    from npu_bridge.estimator.npu import npu_config
    with pytest.raises(npu_config.NpuArgumentError) as raised:
        eval(call, vars(npu_config))
    said = raised.value.diagnostics
    expected = [(d.code, d.message) for d in said if d.code == "NPB160"]
    findings = lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
    assert expected and [(f.code, f.message) for f in findings if f.code == "NPB160"] == expected
    # no value finding from a value the constructor never accepts (no NPB103 for True), in
    # lint or in the refusal (which also carries the resolution's product note, NPB110 info,
    # since a refused call resolves its other arguments: test_run_refused_types.py)
    assert [f.code for f in findings if f.code != "NPB160"] == []
    assert [(d.code, d.severity) for d in said if d.code != "NPB160"] in ([], [("NPB110", "info")])
    assert all(f.line == LINE for f in findings)


def test_config_argument_type_finding_is_at_the_argument_and_nested():
    src = 'c = NPURunConfig(iterations_per_loop=10,\n' \
          '                 memory_config=MemoryConfig(static_memory_policy="2"))\n'
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.col, f.code, f.option) for f in findings] == [
        (LINE + 1, 45, "NPB160", "static_memory_policy")]


def test_tester_scripts_train_b_and_train_c():
    src_b = ('c = NPURunConfig(precison_mode="allow_mix_precision", iterations_per_loop="10", '
             'memory_config=MemoryConfig(static_memory_policy="2"))\n')
    assert sorted(c for _, _, c, _ in _codes(src_b)) == ["NBL012", "NPB160", "NPB160"]
    src_c = ('m = MemoryConfig(static_memory_policy="2")\n'
             'm2 = MemoryConfig(static_memory_policy=2.0)\n'
             'm3 = MemoryConfig(static_memory_policy=True)\n'
             'c = NPURunConfig(iterations_per_loop="10")\n'
             'c2 = NPURunConfig(iterations_per_loop=0)\n'
             'c3 = NPURunConfig(enable_dump=True)\n')
    assert [(line - LINE, c) for line, _, c, _ in _codes(src_c)] == [
        (0, "NPB160"), (1, "NPB160"), (2, "NPB103"), (3, "NPB160"), (4, "E10001"),
        (5, "NBL012")]


def test_config_type_rules_are_shared_with_the_config_classes():
    """One copy of the type rules: npu_config uses the module lint uses."""
    pytest.importorskip("tensorflow")
    from npu_bridge.ge import argtypes as _argtypes
    from npu_bridge.estimator.npu import npu_config
    assert npu_config._check_row_type is _argtypes.check_row_type
    assert npu_config._check_int is _argtypes.check_int
    assert "tensorflow" not in getattr(_argtypes, "__dict__")


@pytest.mark.parametrize("call,name,hint", [
    ('NPURunConfig(precison_mode="allow_mix_precision")', "precison_mode", "precision_mode"),
    ("NPURunConfig(variable_use_1g_huge_page=1)", "variable_use_1g_huge_page",
     "MemoryConfig"),
    ("MemoryConfig(static_memory_polcy=2)", "static_memory_polcy", "static_memory_policy"),
    ("DumpConfig(enable_dumps=True)", "enable_dumps", "enable_dump"),
])
def test_unknown_keyword_argument_is_nbl012_with_did_you_mean(call, name, hint):
    findings = lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
    assert [(f.line, f.code, f.severity) for f in findings] == [(LINE, "NBL012", "error")]
    cls = call.partition("(")[0]
    # the TypeError Python raises at run time, then the hint
    assert ("%s.__init__() got an unexpected keyword argument %r" % (cls, name)
            in findings[0].message)
    assert hint in findings[0].message


def test_too_many_positional_arguments_is_nbl012():
    findings = lint.lint_source(HEAD + "m = MemoryConfig(0, 2, None, 0, 1)\n", "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE, "NBL012")]
    assert "MemoryConfig.__init__() takes from 1 to 5 positional arguments but 6 were given" \
        in findings[0].message


def test_known_keywords_and_kwargs_are_not_nbl012():
    src = ("c = NPURunConfig(model_dir='/m', iterations_per_loop=1, **extra)\n"
           "m = MemoryConfig(*args, atomic_clean_policy=0)\n")
    assert _codes(src) == []


def test_lint_codes_are_listed():
    assert {"NBL001", "NBL002", "NBL003", "NBL010", "NBL011", "NBL012"} <= set(lint.LINT_CODES)
    for path in ("docs/cli.md", "docs/reference.md"):   # (the tables moved out of README)
        with open(os.path.join(os.path.dirname(__file__), "..", path), encoding="utf-8") as fh:
            text = fh.read()
        for code in lint.LINT_CODES:
            assert code in text, (path, code)


def _cli(capsys, *argv):
    from npu_bridge.tools import cli
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_negative_max_bytes_is_a_usage_error(capsys, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    code, _, err = _cli(capsys, "lint", "--max-bytes", "-1", str(tmp_path))
    assert code == 2 and "--max-bytes" in err
    code, _, _ = _cli(capsys, "lint", "--max-bytes", "0", str(tmp_path))
    assert code == 1   # 0 is a limit: every non-empty file is skipped with NBL002


def test_cli_unknown_ignore_code_is_a_usage_error(capsys, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    code, _, err = _cli(capsys, "lint", "--ignore", "NPB103,BOGUS", str(tmp_path))
    assert code == 2 and "BOGUS" in err and "NBL011" in err and "NPB160" in err
    code, _, _ = _cli(capsys, "lint", "--ignore", "nbl012, NPB103,E10001", str(tmp_path))
    assert code == 0


def test_cli_explicit_file_of_any_name_is_checked_as_python(capsys, tmp_path):
    script = tmp_path / "notpy.txt"
    script.write_text(HEAD + "m = MemoryConfig(static_memory_policy='2')\n")
    code, out, _ = _cli(capsys, "lint", str(script))
    assert code == 1 and "NPB160" in out
    prose = tmp_path / "notes.txt"
    prose.write_text("these are notes, not Python\n")
    code, out, _ = _cli(capsys, "lint", str(prose))
    assert code == 1 and "NBL001" in out


def test_cli_no_python_file_found_is_a_usage_error(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("x\n")
    code, out, err = _cli(capsys, "lint", str(tmp_path))
    assert code == 2 and "no Python files" in err and out == ""


# --- custom optimizers not named exactly NpuOptimizer (the real adapter ignores them) -------

OPT = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    """)
OPT_LINE = OPT.count("\n") + 1


def _opt_findings(src):
    return [(f.line - OPT_LINE, f.code, f.severity)
            for f in lint.lint_source(OPT + src, "t.py")]


def test_misnamed_npu_optimizer_is_npb107_at_the_name_and_its_entries_unchecked():
    src = ('op.name = "NpuOptimzer"\n'
           'op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precison")\n'
           'op.parameter_map["static_memory_policy"].i = 2\n'
           'op.parameter_map["graph_max_parallel_model_num"].i = 8\n'
           'op.parameter_map["input_fusion_size"].i = 33554433\n')
    assert _opt_findings(src) == [(0, "NPB107", "warning")]


def test_npb107_wording_is_the_resolvers():
    pytest.importorskip("tensorflow")
    import tensorflow as tf
    from npu_bridge.ge import resolve
    config = tf.compat.v1.ConfigProto()
    config.graph_options.rewrite_options.custom_optimizers.add().name = "NpuOptimzer"
    expected = [d.message for d in resolve(config).diagnostics if d.code == "NPB107"]
    findings = lint.lint_source(OPT + 'op.name = "NpuOptimzer"\n'
                                'op.parameter_map["static_memory_policy"].i = 2\n', "t.py")
    assert [f.message for f in findings] == expected and len(expected) == 1
    assert findings[0].option == "NpuOptimizer"


def test_tester_b4_misnamed_optimizer():
    src = ('op.name = "NpuOptimzer"\n'
           'op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")\n'
           'op.parameter_map["static_memory_policy"].i = 2\n'
           'with tf.Session(config=config) as s:\n'
           '    print(s.run(tf.constant(2) * 3))\n')
    assert _opt_findings(src) == [(0, "NPB107", "warning")]


def test_misnamed_optimizer_keeps_protobufs_own_errors():
    # `.s = "all"` raises TypeError at run time whatever the optimizer's name
    src = ('op.name = "NpuOptimzer"\n'
           'op.parameter_map["dump_mode"].s = "all"\n'
           'op.parameter_map["static_memory_policy"].i = 9\n')
    assert _opt_findings(src) == [(0, "NPB107", "warning"), (1, "NBL011", "error")]


def test_other_custom_optimizer_is_not_ours():
    src = ('op.name = "MyOptimizer"\n'
           'op.parameter_map["static_memory_policy"].i = 9\n'
           'op.parameter_map["precision_mode"].s = b"bogus"\n')
    assert _opt_findings(src) == []


def test_name_set_after_the_entries_counts_too():
    src = ('op.parameter_map["static_memory_policy"].i = 9\n'
           'op.name = "NpuOptimzer"\n')
    assert _opt_findings(src) == [(1, "NPB107", "warning")]


def test_misnamed_optimizer_without_parameter_map():
    assert _opt_findings('op.name = "NpuOptimzer"\n') == [(0, "NPB107", "warning")]


def test_rebound_owner_named_right_is_checked_again():
    src = ('op.name = "NpuOptimzer"\n'
           'op.parameter_map["static_memory_policy"].i = 9\n'
           'op = config.graph_options.rewrite_options.custom_optimizers.add()\n'
           'op.name = "NpuOptimizer"\n'
           'op.parameter_map["static_memory_policy"].i = 9\n')
    assert _opt_findings(src) == [(0, "NPB107", "warning"), (4, "E10001", "error")]


def test_name_not_a_literal_is_read_as_npu_optimizer():
    src = ('op.name = NAME\n'
           'op.parameter_map["static_memory_policy"].i = 9\n')
    assert _opt_findings(src) == [(1, "E10001", "error")]


# --- bool arguments given another int (NPB162, the constructor's rule) ---------------------

def test_bool_argument_given_another_int_is_npb162_like_the_run_config():
    findings = lint.lint_source(HEAD + "c = NPURunConfig(external_weight=2)\n", "t.py")
    assert [(f.line, f.col, f.code, f.severity, f.option) for f in findings] == [
        (LINE, 18, "NPB162", "warning", "external_weight")]
    assert "ge.externalWeight '1'" in findings[0].message
    nested = lint.lint_source(HEAD + "c = NPURunConfig(dump_config=DumpConfig(enable_dump=3))\n"
                              "d = NPURunConfig(external_weight=1)\n", "t.py")
    # (enable_dump on without dump_path: NPB143 too, from the resolver)
    assert [(f.code, f.option) for f in nested if f.code == "NPB162"] == [
        ("NPB162", "enable_dump")]


def test_npb162_message_is_the_constructors():
    pytest.importorskip("tensorflow")
    from npu_bridge.estimator.npu import npu_config
    expected = [d.message for d in npu_config.NPURunConfig(external_weight=2)._npu_arg_warnings()]
    findings = lint.lint_source(HEAD + "c = NPURunConfig(external_weight=2)\n", "t.py")
    assert [f.message for f in findings] == expected


def test_name_given_to_add_is_the_custom_optimizers_name():
    # `.add(name="...")`, bound or chained: the name is read there (tester round 2)
    src = ('bad = config.graph_options.rewrite_options.custom_optimizers.add(name="NpuOptimzer")\n'
           'bad.parameter_map["static_memory_policy"].i = 9\n'
           'config.graph_options.rewrite_options.custom_optimizers.add(name="NpuOptimzer")'
           '.parameter_map["static_memory_policy"].i = 9\n'
           'good = config.graph_options.rewrite_options.custom_optimizers.add(name="NpuOptimizer")\n'
           'good.parameter_map["static_memory_policy"].i = 7\n'
           'other = config.graph_options.rewrite_options.custom_optimizers.add(name="MyOptimizer")\n'
           'other.parameter_map["static_memory_policy"].i = 9\n')
    assert _opt_findings(src) == [(0, "NPB107", "warning"), (2, "NPB107", "warning"),
                                  (4, "E10001", "error")]


# --- protobuf map methods returning a key's entry (tester nitpick) -------------------------

@pytest.mark.parametrize("access", [
    'custom_op.parameter_map.get_or_create("%s")',
    'custom_op.parameter_map.setdefault("%s")',
    'config.graph_options.rewrite_options.custom_optimizers[0].parameter_map.get_or_create("%s")',
])
@pytest.mark.parametrize("statement,code", [
    ('%s.s = b"x"', "NPB100"),                  # the key typo "precison_mode"
])
def test_get_or_create_is_read_like_a_subscript(access, statement, code):
    """`parameter_map.get_or_create(KEY)` (and `setdefault(KEY)`, which also creates the
    entry and returns it) is the entry `parameter_map[KEY]` is: writes through it are read."""
    src = statement % (access % "precison_mode") + "\n"
    findings = lint.lint_source(HEAD + src, "t.py")
    assert [(f.line, f.col, f.code) for f in findings] == [(LINE, 1, code)]
    assert "'precision_mode'" in findings[0].message


@pytest.mark.parametrize("method", ["get_or_create", "setdefault"])
def test_get_or_create_every_check_of_a_subscript(method):
    at = 'custom_op.parameter_map.%s("%%s")' % method
    cases = [('%s.b = True' % (at % "precision_mode"), "NPB101"),
             ('%s.x = 1' % (at % "precision_mode"), "NBL010"),
             ('%s.s = "all"' % (at % "dump_mode"), "NBL011"),
             ('%s.i = 9' % (at % "static_memory_policy"), "E10001"),
             ('%s.s = b"all"' % (at % "sump_mode"), "NPB100")]
    for statement, code in cases:
        assert [c for _, _, c, _ in _codes(statement + "\n")] == [code], statement
    # an alias of the map and the bare name too; one map with its subscripts (NPB120)
    src = ('pm = custom_op.parameter_map\n'
           'pm.%s("static_memory_policy").i = 2\n'
           'custom_op.parameter_map["graph_max_parallel_model_num"].i = 4\n'
           'pm.%s("sump_mode").s = b"all"\n' % (method, method))
    codes = _codes(src)
    assert (LINE + 3, 1, "NPB100", "error") in codes
    assert "NPB120" in {c for _, _, c, _ in codes}, codes
    assert [c for _, _, c, _ in _codes('parameter_map.%s("sump_mode").s = b"x"\n' % method)] \
        == ["NPB100"]


@pytest.mark.parametrize("statement", [
    # .get() never creates the entry: a missing key is None (AttributeError on the write),
    # so a write through it never adds a key the adapter would ignore
    'custom_op.parameter_map.get("sump_mode").s = b"all"',
    # not a literal key, or not a map method lint knows
    'custom_op.parameter_map.get_or_create(KEY).s = b"all"',
    'custom_op.parameter_map.get_or_create("sump_mode", 1).s = b"all"',
    'custom_op.parameter_map.pop("sump_mode").s = b"all"',
    'custom_op.other_map.get_or_create("sump_mode").s = b"all"',
])
def test_other_map_calls_are_not_read(statement):
    assert _codes(statement + "\n") == []


@pytest.mark.parametrize("call,name,hint", [
    ('NPURunConfig(PRECISION_MODE="allow_mix_precision")', "PRECISION_MODE",
     "did you mean 'precision_mode'"),
    ("MemoryConfig(Static_Memory_Policy=2)", "Static_Memory_Policy",
     "did you mean 'static_memory_policy'"),
    ("NPURunConfig(VARIABLE_USE_1G_HUGE_PAGE=1)", "VARIABLE_USE_1G_HUGE_PAGE",
     "MemoryConfig(variable_use_1g_huge_page=...)"),
])
def test_unknown_keyword_did_you_mean_ignores_case(call, name, hint):
    findings = lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
    assert [(f.line, f.code) for f in findings] == [(LINE, "NBL012")]
    assert hint in findings[0].message, findings[0].message


def test_protobuf_findings_name_their_source_and_nbl012_stays_pythons_type_error(tmp_path):
    # issue 25 item 5: NBL010/NBL011 are lint's wording of protobuf's check: they end with the
    # rule's source (attr_value.proto) as every resolver message does; NBL012 is the TypeError
    # Python raises at run time, word for word (plus the note), so it names none
    src = (HEAD + 'custom_op.parameter_map["precision_mode"].x = 1\n'
           'custom_op.parameter_map["dump_mode"].s = 5\n'
           'NPURunConfig(precison_mode="allow_fp32_to_fp16")\n')
    found = {f.code: f.message for f in lint.lint_source(src, "s.py")}
    proto = "; source: tensorflow core/framework/attr_value.proto"
    assert found["NBL010"].endswith(proto + " (AttrValue's fields)")
    assert found["NBL011"].startswith('parameter_map["dump_mode"].s = 5: protobuf raises '
                                      'TypeError: expected bytes, int found; source: ')
    assert proto in found["NBL011"]
    assert "source" not in found["NBL012"]
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    with pytest.raises(TypeError) as info:
        NPURunConfig(precison_mode="allow_fp32_to_fp16")
    assert found["NBL012"] == str(info.value).replace("'precison_mode';",
                                                      "'precison_mode' (TypeError at run time);")


def _run_time_npb172(**args):
    """The NPB172 texts `resolve` gives for a real NPURunConfig (what NPUEstimator records)."""
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    from npu_bridge.ge import resolve
    return [d.message for d in resolve(NPURunConfig(**args)).diagnostics if d.code == "NPB172"]


def test_checkpoint_and_summary_steps_not_multiples_of_the_loop_are_npb172_on_literals():
    # issue 25 item 5: NPUEstimator warned at run time (NPB172), lint did not on plain literals;
    # now a catalog cross rule (level run_config): lint's text is the run's
    src = ("from npu_bridge.npu_init import *\n"
           "a = NPURunConfig(iterations_per_loop=10, save_checkpoints_steps=15, save_summary_steps=20)\n"
           "b = NPURunConfig(iterations_per_loop=30)\n"
           "c = NPURunConfig(iterations_per_loop=30, save_checkpoints_secs=60)\n"
           "d = NPURunConfig(iterations_per_loop=n, save_checkpoints_steps=15)\n")
    found = [(f.line, f.col, f.code, f.message) for f in lint.lint_source(src, "t.py")]
    [a] = _run_time_npb172(iterations_per_loop=10, save_checkpoints_steps=15,
                           save_summary_steps=20)
    [b] = _run_time_npb172(iterations_per_loop=30)   # the class's default cadence, 100
    assert "save_checkpoints_steps=15 is not a multiple of iterations_per_loop=10" in a
    assert "save_checkpoints_steps=100 is not a multiple" in b
    assert not _run_time_npb172(iterations_per_loop=30, save_checkpoints_secs=60)
    assert found == [(2, 42, "NPB172", a), (3, 5, "NPB172", b)]


def test_npb172_with_the_cadence_given_as_none_is_the_run_times():
    # save_checkpoints_steps=None or save_checkpoints_secs=None, given: the class still saves
    # every 100 steps (config_schema.run_config_arguments); lint missed both
    src = ("from npu_bridge.npu_init import *\n"
           "a = NPURunConfig(iterations_per_loop=30, save_checkpoints_steps=None)\n"
           "b = NPURunConfig(iterations_per_loop=30, save_checkpoints_secs=None)\n")
    found = [(f.line, f.code, f.message) for f in lint.lint_source(src, "t.py")]
    [a] = _run_time_npb172(iterations_per_loop=30, save_checkpoints_steps=None)
    [b] = _run_time_npb172(iterations_per_loop=30, save_checkpoints_secs=None)
    assert a == b and "save_checkpoints_steps=100 is not a multiple" in a
    assert found == [(2, "NPB172", a), (3, "NPB172", b)]


def test_a_check_is_one_handler_in_a_list_wired_in_one_place(monkeypatch):
    # issue 23 item 3: lint's checks are lists of handlers (pyflakes' way); files.py runs the
    # producers of lint/registry.py and nothing else
    from npu_bridge.ge.diagnostics import make
    from npu_bridge.tools.lint import npu_calls, registry
    src = "import tensorflow as tf\nmy_call(1)\n"
    assert lint.lint_source(src, "t.py") == []
    handler = npu_calls.CallCheck(frozenset({"my_call"}), "my_call",
                                  lambda node, name, walk: make("NPB176", name, None, deps="x"))
    monkeypatch.setattr(npu_calls, "CALL_CHECKS", npu_calls.CALL_CHECKS + (handler,))
    [f] = lint.lint_source(src, "t.py")
    assert (f.line, f.col, f.code, f.option) == (2, 1, "NPB176", "my_call")
    monkeypatch.setattr(registry, "PRODUCERS", registry.PRODUCERS + (
        lambda parsed: [(1, 1, "NBL001", "error", "from a producer", "")],))
    assert [f.code for f in lint.lint_source(src, "t.py")] == ["NBL001", "NPB176"]


def _run_time_npb106(session_config, **args):
    """The NPB106 texts `resolve` gives for a real NPURunConfig (what NPUEstimator records)."""
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    from npu_bridge.ge import resolve
    ge = resolve(NPURunConfig(session_config=session_config, **args))
    return [d.message for d in ge.diagnostics if d.code == "NPB106"]


def test_a_session_config_npu_optimizer_the_estimator_overrides_is_npb106_as_at_run_time():
    # issue 25 item 5: NPURunConfig(session_config=...) whose own NpuOptimizer sets keys the
    # estimator's own map (appended after it) writes again: NPB106 at run time, lint missed it
    import tensorflow as tf
    src = (HEAD + 'custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"\n'
           'custom_op.parameter_map["enable_data_pre_proc"].b = False\n'
           'run_config = NPURunConfig(session_config=config, precision_mode="allow_fp32_to_fp16")\n')
    config = tf.compat.v1.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["precision_mode"].s = b"allow_mix_precision"
    op.parameter_map["enable_data_pre_proc"].b = False
    [text] = _run_time_npb106(config, precision_mode="allow_fp32_to_fp16")
    assert "precision_mode" in text and "enable_data_pre_proc" in text
    found = [(f.line, f.code, f.message) for f in lint.lint_source(src, "t.py")
             if f.code == "NPB106"]
    assert found == [(8, "NPB106", text)]
    # without a session_config of its own, nothing to merge
    plain = src.replace("session_config=config, ", "")
    assert not [f for f in lint.lint_source(plain, "t.py") if f.code == "NPB106"]


def test_info_only_exits_0_by_default_as_docs_cli_says(capsys, tmp_path):
    """try-out 10: docs/cli.md said lint exits 1 "when there is a finding"; the default
    `--fail-on warning` does not count an info."""
    (tmp_path / "a.py").write_text("from npu_bridge.npu_init import *\n"
                                   "c = NPURunConfig(variable_memory_max_size=str(2**30))\n")
    code, out, _ = _cli(capsys, "lint", str(tmp_path / "a.py"))
    assert code == 0 and "NPB105 info" in out, out
    assert _cli(capsys, "lint", "--fail-on", "info", str(tmp_path / "a.py"))[0] == 1
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "cli.md"),
              encoding="utf-8") as fh:
        doc = fh.read()
    assert "Exit 1 when there is a finding.\n" not in doc
    assert "a file with only info findings exits 0" in doc
