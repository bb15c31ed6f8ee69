"""``npu_dynamic_rnn``: the adapter's RNN helper (real ``npu_rnn``), same computation on the CPU.

The real helper unrolls a time-major input with ``static_rnn`` (which the NPU compiles
better than a while loop) and stacks the outputs back; this does the same with stock ops.
"""
import tensorflow as tf


def npu_dynamic_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Run ``cell`` over time-major ``inputs`` [T, B, ...] by static unrolling.

    Returns ``(outputs, state)``: outputs stacked time-major [T, B, cell.output_size], and the
    final state. ``inputs`` needs a static time dimension (``tf.unstack``); ValueError otherwise.
    """
    steps = tf.unstack(inputs, axis=0)
    outputs, state = tf.compat.v1.nn.static_rnn(cell, steps, initial_state=initial_state, dtype=dtype,
                                                sequence_length=sequence_length, scope=scope)
    return tf.stack(outputs, axis=0), state
