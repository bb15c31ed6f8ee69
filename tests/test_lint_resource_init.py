"""`npu-bridge lint` checks `npu_resource_init(...)` (npu_plugin) statically the way
`npu_resource_init` checks its arguments at run time: each argument is the catalog row of its
name, an unknown argument is Python's TypeError (NBL012, did you mean), a literal of the wrong
type the plugin's NPB160, a bad literal value the resolver's E10001, profiling without
profiling_options NPB143, a key the plugin spells itself that GE does not read NPB135.

The parity tests run the real function (`npu_bridge.estimator.npu.npu_plugin`) on the same
arguments and compare every error and warning, code and message, with what lint reports.
"""
import inspect
import os
import subprocess
import sys
import textwrap

import pytest

from npu_bridge.ge import plugin_args as _plugin_args, records as _records
from npu_bridge.tools import lint
from npu_bridge.estimator.npu import npu_plugin
from npu_bridge.ge import NpuConfigError
from npu_bridge.ge.products import forced_product


@pytest.fixture(autouse=True)
def _no_target_product(monkeypatch):
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    monkeypatch.delenv("GE_USE_STATIC_MEMORY", raising=False)
    with forced_product(None):
        yield


def _lint(source):
    return lint.lint_source(textwrap.dedent(source), "t.py")


def _found(source):
    return [(f.line, f.col, f.code, f.severity) for f in _lint(source)]


def _runtime(kwargs):
    """(code, severity, message) of the errors and warnings of the real call."""
    _records.clear()
    try:
        npu_plugin.npu_resource_init(**kwargs)
        diags = _records.records()[-1]["options"].diagnostics
    except NpuConfigError as err:
        diags = err.diagnostics
    finally:
        npu_plugin.npu_resource_shutdown()
    return sorted((d.code, d.severity, d.message) for d in diags
                  if d.severity in ("error", "warning"))


def _linted(kwargs):
    call = "npu_plugin.npu_resource_init(%s)\n" % ", ".join(
        "%s=%r" % item for item in kwargs.items())
    source = "from npu_bridge.estimator.npu import npu_plugin\n" + call
    return sorted((f.code, f.severity, f.message) for f in lint.lint_source(source, "t.py"))


# ------------------------------------------------------------------ the mapping is npu_plugin's
def test_lint_and_npu_plugin_share_one_table():
    # one TensorFlow-free module holds the arguments, rows and messages of both
    # (tests/test_npu_plugin.py: its signature is the function's)
    assert lint._plugin_args is npu_plugin._plugin_args is _plugin_args
    assert lint.PLUGIN_FUNCTION == npu_plugin.npu_resource_init.__name__
    params = inspect.signature(npu_plugin.npu_resource_init).parameters
    assert _plugin_args.PARAMS == tuple(params)
    assert _plugin_args.DEFAULTS == {name: p.default for name, p in params.items()}


def test_lint_imports_no_tensorflow():
    code = textwrap.dedent("""\
        import sys
        import npu_bridge.ge.plugin_args
        import npu_bridge.tools.lint as lint
        npu_bridge.ge.plugin_args.spec()
        source = ("from npu_bridge.estimator.npu import npu_plugin\\n"
                  "npu_plugin.npu_resource_init(aicore_num=5, enable_profiling=True)\\n"
                  "c = NPURunConfig(external_weight=2)\\n"
                  "custom_op.parameter_map['external_weight'].b = 2\\n")
        codes = sorted(f.code for f in lint.lint_source(source, "t.py"))
        assert codes == ["NPB143", "NPB160", "NPB162", "NPB162"], codes
        bad = [m for m in sys.modules if m.split(".")[0] == "tensorflow"]
        assert not bad, bad[:5]
        """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300,
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ------------------------------------------------------------------ the forms of the call
@pytest.mark.parametrize("source", [
    """\
    from npu_bridge.estimator.npu import npu_plugin
    npu_plugin.npu_resource_init(precison_mode="allow_mix_precision")
    """,
    """\
    from npu_bridge.npu_init import *
    npu_plugin.npu_resource_init(precison_mode="allow_mix_precision")
    """,
    """\
    from npu_bridge.estimator.npu.npu_plugin import npu_resource_init
    npu_resource_init(precison_mode="allow_mix_precision")
    """,
    """\
    from npu_bridge.estimator.npu.npu_plugin import npu_resource_init as init_npu
    init_npu(precison_mode="allow_mix_precision")
    """,
    """\
    import npu_bridge.estimator.npu.npu_plugin
    npu_bridge.estimator.npu.npu_plugin.npu_resource_init(precison_mode="allow_mix_precision")
    """,
    """\
    from npu_bridge.estimator.npu import npu_plugin
    def main():
        npu_plugin.npu_resource_init(precison_mode="allow_mix_precision")
    """,
    """\
    from npu_bridge.estimator.npu import npu_plugin
    init = npu_plugin.npu_resource_init
    def main():
        init(precison_mode="allow_mix_precision")
    """,
])
def test_unknown_argument_is_a_type_error_with_did_you_mean(source):
    findings = _lint(source)
    assert [(f.code, f.severity) for f in findings] == [("NBL012", "error")]
    assert findings[0].line == 2 or findings[0].line == 3 or findings[0].line == 4
    assert findings[0].message == (
        "npu_resource_init() got an unexpected keyword argument 'precison_mode' "
        "(TypeError at run time); did you mean 'precision_mode' or 'precision_mode_v2'?")


def test_unknown_argument_at_its_keyword():
    assert _found("""\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(graph_run_mode=1,
                                     OP_DEBUG_LEVELS=0)
        """) == [(3, 30, "NBL012", "error")]


def test_too_many_positional_arguments():
    findings = _lint("""\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(%s)
        """ % ", ".join(["None"] * 23))
    assert [(f.code, f.message) for f in findings] == [(
        "NBL012", "npu_resource_init() takes from 0 to 22 positional arguments but 23 were "
                  "given (TypeError at run time)")]


def test_positional_arguments_map_as_in_the_signature():
    # npu_resource_init(graph_run_mode, op_debug_level, ...)
    findings = _lint("""\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(1, 9)
        """)
    assert [(f.line, f.col, f.code) for f in findings] == [(2, 33, "E10001")]
    assert "op_debug_level: 9" in findings[0].message


def test_findings_at_the_argument():
    assert _found("""\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(
            precision_mode="allow_mix_precision",
            oo_level="O9",
            aicore_num=5)
        """) == [(4, 5, "E10001", "error"), (5, 5, "NPB160", "error")]


def test_a_function_of_the_script_named_so_is_not_checked():
    assert _found("""\
        def npu_resource_init(**kw):
            return kw
        npu_resource_init(precison_mode=3, oo_level="O9")
        """) == []


@pytest.mark.parametrize("call", [
    "npu_plugin.npu_resource_init()",
    "npu_plugin.npu_resource_init(graph_run_mode=1, precision_mode='allow_mix_precision')",
    "npu_plugin.npu_resource_init(op_debug_level=FLAGS.level, oo_level=FLAGS.oo)",
    "npu_plugin.npu_resource_init(**kwargs)",
    "npu_plugin.npu_resource_init(enable_profiling=True, **kwargs)",
    "npu_plugin.npu_resource_init(enable_profiling=FLAGS.prof)",
    # work_path is only read with aoe_mode (the real plugin checks nothing else of it)
    "npu_plugin.npu_resource_init(work_path=5)",
    "npu_plugin.npu_resource_init(aoe_mode=FLAGS.aoe, work_path=5)",
])
def test_clean_or_unknown_calls_give_nothing(call):
    assert _found("from npu_bridge.estimator.npu import npu_plugin\n" + call + "\n") == []


def test_non_literal_value_keeps_the_checks_that_do_not_depend_on_it():
    findings = _lint("""\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(op_debug_level=FLAGS.level, oo_level="O9")
        """)
    assert [(f.code, f.option) for f in findings] == [("E10001", "oo_level")]


def test_noqa_and_ignore():
    source = ("from npu_bridge.estimator.npu import npu_plugin\n"
              "npu_plugin.npu_resource_init(oo_level='O9')  # noqa: E10001\n")
    assert lint.lint_source(source, "t.py") == []
    source = source.replace("  # noqa: E10001", "")
    assert lint.lint_source(source, "t.py", ignore={"E10001"}) == []


# ------------------------------------------------------------------ parity with the run time
PARITY = [
    {"op_debug_level": 9},
    {"op_debug_level": "3"},
    {"oo_level": "O9"},
    {"precision_mode": "bad"},
    {"precision_mode": "allow_mix_precision", "oo_level": "O1"},
    {"aicore_num": 5},
    {"aicore_num": "2|4"},
    {"hcom_multi_mode": 2},
    {"hcom_multi_mode": True},
    {"graph_run_mode": True},
    {"graph_run_mode": 3},
    {"export_compile_stat": True},
    {"enable_scope_fusion_passes": 3},
    {"enable_profiling": True},
    {"enable_profiling": True, "profiling_options": '{"output": "/tmp/p"}'},
    {"enable_profiling": True, "profiling_options": "not json"},
    {"enable_profiling": 1},
    {"profiling_options": 5},
    {"enable_exception_dump": 7},
    {"oo_constant_folding": "yes"},
    {"input_batch_cpy": 1},
    {"precision_mode": b"allow_mix_precision"},
    {"optimization_switch": "x:on"},
    {"precision_mode_v2": "fp16", "precision_mode": "allow_mix_precision"},
    {"op_compiler_cache_mode": "bogus"},
    {"aoe_mode": "9"},
    {"distribute_config": 3},
    {"aoe_mode": "2", "distribute_config": 3},
]


@pytest.mark.parametrize("kwargs", PARITY, ids=[repr(k) for k in PARITY])
def test_lint_reports_what_the_call_reports(kwargs):
    runtime = _runtime(kwargs)
    linted = _linted(kwargs)
    # NPB135 is a warning of a call that succeeds; lint reports it whatever else is wrong
    if any(sev == "error" for _, sev, _ in runtime):
        linted = [f for f in linted if f[0] != "NPB135"]
    assert linted == runtime


PRODUCT_PARITY = [
    {},
    {"precision_mode": "allow_mix_precision_bf16"},
    {"aicore_num": "2"},
    {"aoe_mode": "1"},
    {"input_batch_cpy": True},
]


@pytest.mark.parametrize("product", ["atlas-training", "atlas-a2-training"])
@pytest.mark.parametrize("kwargs", PRODUCT_PARITY, ids=[repr(k) for k in PRODUCT_PARITY])
def test_product_rules_as_the_call_applies_them(kwargs, product):
    with forced_product(product):
        runtime = _runtime(kwargs)
    call = "npu_plugin.npu_resource_init(%s)\n" % ", ".join(
        "%s=%r" % item for item in kwargs.items())
    linted = sorted((f.code, f.severity, f.message) for f in lint.lint_source(
        "from npu_bridge.estimator.npu import npu_plugin\n" + call, "t.py", product=product))
    if any(sev == "error" for _, sev, _ in runtime):
        linted = [f for f in linted if f[0] != "NPB135"]
    assert linted == runtime
