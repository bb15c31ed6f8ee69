"""`tf.contrib.seq2seq.AttentionWrapper`: TensorFlow Addons' (tensorflow-addons 0.23.0, the
code contrib's was moved to; same signature and state, `AttentionWrapperState`) plus the one
method of TF 1.15's RNNCell it lacks, `zero_state(batch_size, dtype)` (TF 1.x scripts start
decoding from `cell.zero_state(batch, dtype).clone(cell_state=encoder_state)`). TFA's own
batch-size check against the memory's stays. Checkpoints of TF 1.15 do not load: TFA names the
variables otherwise (`BahdanauAttention/kernel`, not `memory_layer/kernel`)."""
import tensorflow as tf
import tensorflow_addons as tfa


class AttentionWrapper(tfa.seq2seq.AttentionWrapper):
    """TFA's AttentionWrapper with TF 1.15's `zero_state`."""

    def zero_state(self, batch_size, dtype):
        """TF 1.15: the initial `AttentionWrapperState` (zeros; the wrapped cell's zero state)."""
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            return self.get_initial_state(batch_size=batch_size, dtype=dtype)
