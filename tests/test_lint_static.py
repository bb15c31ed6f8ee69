"""`npu-bridge lint` is static: nothing it reports depends on the linting machine's files or
working directory (NPB144, a directory that must exist, is checked when the script runs)."""
import os
import textwrap

import pytest

from npu_bridge.tools import lint

SOURCES = {
    "dump_config": textwrap.dedent('''\
        from npu_bridge.npu_init import *
        cfg = NPURunConfig(dump_config=DumpConfig(enable_dump=True, dump_path="./dumpdir",
                                                  dump_step="0", dump_mode="all"))
        '''),
    "parameter_map": textwrap.dedent('''\
        import tensorflow as tf
        config = tf.ConfigProto()
        custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
        custom_op.name = "NpuOptimizer"
        custom_op.parameter_map["enable_dump"].b = True
        custom_op.parameter_map["dump_path"].s = b"./dumpdir"
        custom_op.parameter_map["enable_dump_debug"].b = True
        '''),
    "aoe work_path": textwrap.dedent('''\
        from npu_bridge.npu_init import *
        cfg = NPURunConfig(aoe_mode="2", work_path="./dumpdir")
        '''),
    "npu_resource_init": textwrap.dedent('''\
        from npu_bridge.estimator.npu import npu_plugin
        npu_plugin.npu_resource_init(aoe_mode="2", work_path="./dumpdir")
        '''),
}


def _findings(source):
    return sorted((f.line, f.col, f.code, f.severity, f.message)
                  for f in lint.lint_source(source, "t.py"))


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_no_npb144_and_the_same_findings_with_or_without_the_directory(name, tmp_path,
                                                                     monkeypatch):
    source = SOURCES[name]
    lint._RESOLVED.clear()
    monkeypatch.chdir(tmp_path)
    without = _findings(source)
    os.mkdir(tmp_path / "dumpdir")
    lint._RESOLVED.clear()
    with_dir = _findings(source)
    assert without == with_dir
    assert "NPB144" not in {f[2] for f in without}


def test_a_bool_for_an_int_argument_is_resolved_as_the_int():
    # protobuf's .i = True stores 1: MemoryConfig accepts it; lint resolves 1 (legacy: NPB103)
    source = textwrap.dedent('''\
        from npu_bridge.npu_init import *
        cfg = NPURunConfig(memory_config=MemoryConfig(static_memory_policy=True))
        ''')
    assert {f[2] for f in _findings(source)} == {"NPB103"}
