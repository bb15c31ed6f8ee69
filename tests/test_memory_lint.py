"""`npu-bridge lint` finds the NPU-only failure kinds a static read can (rows 5 and 7)."""
import textwrap

from npu_bridge.tools.lint import lint_source


def _codes(src):
    return [(f.code, f.line) for f in lint_source(textwrap.dedent(src))]


def test_loss_scale_manager_under_control_dependencies():
    src = """
        import tensorflow as tf
        with tf.control_dependencies(update_ops):
            m = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10, incr_every_n_steps=10)
        n = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10, incr_every_n_steps=10)
        with tf.control_dependencies(update_ops):
            def make():   # called elsewhere: not under the block
                return ExponentialUpdateLossScaleManager(1, 1)
    """
    assert _codes(src) == [("NPB176", 4)]


def test_iterator_initializer_grouped_with_variable_initializers():
    src = """
        init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer(),
                        iterator.initializer)
        sess.run([tf.global_variables_initializer(), it.initializer])
        sess.run(tf.global_variables_initializer())
        sess.run(iterator.initializer)
        scaffold = tf.train.Scaffold(local_init_op=tf.group(tf.local_variables_initializer(),
                                                            iterator.initializer))
    """
    found = lint_source(textwrap.dedent(src))
    # the Scaffold's local variables (metrics) start at zeros: the run-time check tells
    assert [(f.code, f.line) for f in found] == [("NPB174", 2), ("NPB174", 4)]
    assert found[0].severity == "warning" and "iterator.initializer" in found[0].message
