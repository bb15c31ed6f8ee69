"""Modules of the real adapter that scripts import: npu_bridge.tf_adapter, npu_bridge.tbe."""
import subprocess
import sys

import pytest


def test_tf_adapter_datatype_constants_and_clear_error_without_tensorflow():
    # as WideDeep host-embedding: from npu_bridge import tf_adapter; tf_adapter.DT_FLOAT
    code = ("import sys\nfrom npu_bridge import tf_adapter\n"
            "print(tf_adapter.DT_FLOAT, tf_adapter.DT_INT64, tf_adapter.DT_BOOL, "
            "'tensorflow' in sys.modules)\n"
            "try:\n    tf_adapter.PluginInit\nexcept AttributeError as e:\n    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": ".", "PATH": "/usr/bin:/bin"})
    lines = out.stdout.splitlines()
    assert lines[0] == "0 9 12 False", out.stderr      # ge::DataType values; no TensorFlow import
    assert lines[1].startswith("ERR") and "DataType constants" in lines[1]


def test_tbe_vector_ops_import_and_fail_clearly_at_the_call():
    from npu_bridge.tbe import npu_vector_ops
    with pytest.raises(NotImplementedError, match="lamb_apply_optimizer_assign.*unfused LAMB"):
        npu_vector_ops.lamb_apply_optimizer_assign(*range(12))
    with pytest.raises(NotImplementedError, match="lamb_apply_weight_assign"):
        npu_vector_ops.lamb_apply_weight_assign(1, 2, 3, 4, 5)
    import numpy as np
    import tensorflow as tf
    with tf.Graph().as_default():
        layer = npu_vector_ops.PReLU(alpha_initializer=tf.compat.v1.constant_initializer(0.25))
        out = layer(tf.constant([[-2.0, 3.0]]))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(out), [[-0.5, 3.0]])
    with pytest.raises(ImportError):     # absent on purpose: scripts fall back to composed ops
        import npu_bridge.tbe.npu_cube_ops  # noqa: F401
