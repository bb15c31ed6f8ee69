"""`npu-bridge lint`: a custom optimizer made with `RewriterConfig.CustomGraphOptimizer(name=...)`
is read like one made with `custom_optimizers.add(name=...)`."""
import textwrap

from npu_bridge.tools import lint


def _codes(source):
    return sorted((f.line, f.code) for f in lint.lint_source(textwrap.dedent(source), "t.py"))


MIXED = '''\
    import tensorflow as tf
    from tensorflow.core.protobuf import rewriter_config_pb2
    config = tf.ConfigProto()
    op = rewriter_config_pb2.RewriterConfig.CustomGraphOptimizer(name="%s")
    op.parameter_map["mix_compile_mode"].b = True
    op.parameter_map["iterations_per_loop"].i = 10
    config.graph_options.rewrite_options.custom_optimizers.extend([op])
    '''


def test_misspelled_name_is_npb107_and_its_entries_are_not_checked():
    assert _codes(MIXED % "NPUOptimizer") == [(4, "NPB107")]


def test_npu_optimizer_entries_are_checked():
    assert [c for _, c in _codes(MIXED % "NpuOptimizer")] == ["NPB141"]


def test_short_forms():
    src = '''\
        from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
        op = RewriterConfig.CustomGraphOptimizer(name="NpuOptimzer")
        op.parameter_map["precision_mode"].s = b"allow_mix_precision"
        '''
    assert _codes(src) == [(2, "NPB107")]
