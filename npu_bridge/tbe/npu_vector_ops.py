"""`npu_bridge.tbe.npu_vector_ops` of older adapter releases (Ascend/tensorflow r1.x).

Same names and signatures as the real module. The fused LAMB kernels have no documented
formula beyond their inputs (the NPU kernel's bias correction and zero-norm handling are not
specified), so they raise NotImplementedError naming the stock path; `PReLU` is the Keras
layer of the same arguments (`max(0, x) + alpha * min(0, x)`).
"""
import tensorflow as tf


def _not_on_cpu(name):
    raise NotImplementedError(
        "npu_vector_ops.%s is a fused NPU LAMB kernel whose exact arithmetic is not documented; "
        "npu_bridge has no CPU equivalent: use the script's unfused LAMB update (for example "
        "the branch taken when its fused-LAMB flag is off)" % name)


def lamb_apply_optimizer_assign(input0, input1, input2, input3, mul0_x, mul1_x,
                                mul2_x, mul3_x, add2_y, steps, do_use_weight, weight_decay_rate,
                                name=None):
    """Real ``LambApplyOptimizerAssign`` (returns update, next_v, next_m there).
    Raises NotImplementedError."""
    _not_on_cpu("lamb_apply_optimizer_assign")


def lamb_apply_weight_assign(input0, input1, input2, input3, input4, name=None):
    """Real ``LambApplyWeightAssign``. Raises NotImplementedError."""
    _not_on_cpu("lamb_apply_weight_assign")


class PReLU(tf.keras.layers.PReLU):
    """Parametric ReLU layer (real ``npu_vector_ops.PReLU``; the arguments of Keras'
    ``PReLU``: alpha_initializer, alpha_regularizer, alpha_constraint, shared_axes)."""
