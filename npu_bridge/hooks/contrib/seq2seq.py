"""`tf.contrib.seq2seq.dynamic_decode` with TF 1.15's signature and variable scope, run by
TensorFlow Addons' loop (tensorflow-addons 0.23.0, `tfa.seq2seq.dynamic_decode`, the same
algorithm: `initialize()` once, `step()` until all finished, optional imputation). TF 1.15
(contrib/seq2seq/python/ops/decoder.py) took `scope` as its 7th argument and opened a variable
scope `scope or "decoder"` (caching on the ops' devices); TFA takes `training` there and opens
only a name scope, so a TF 1.x decoder's variables would be named differently. One TFA
difference stays: with `impute_finished`, a state part of rank 1 ([batch]) fails in TFA's
broadcast (TF 1.15 accepted it); cell states ([batch, units]) are fine."""
import tensorflow as tf


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None, **kwargs):
    """TF 1.15's `dynamic_decode(decoder, ...)` -> `(final_outputs, final_state,
    final_sequence_lengths)`: outputs [batch, time, ...] (time-major with
    `output_time_major`), lengths [batch] int32. `decoder` is a `tf.contrib.seq2seq.Decoder`
    (TFA's `Decoder`, the same abstract interface; its `step(time, inputs, state, name=None)`
    gets `name=None`). Raises TypeError for anything else, as TF 1.15 did; ValueError from TFA
    for a non-scalar `maximum_iterations`."""
    import tensorflow_addons as tfa   # only when a script decodes
    if not isinstance(decoder, tfa.seq2seq.Decoder):
        raise TypeError("Expected decoder to be type Decoder, but saw: %s" % type(decoder))
    with tf.compat.v1.variable_scope(scope, "decoder") as varscope:
        if not tf.executing_eagerly() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        return tfa.seq2seq.dynamic_decode(
            decoder, output_time_major=output_time_major, impute_finished=impute_finished,
            maximum_iterations=maximum_iterations, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, training=None, **kwargs)
