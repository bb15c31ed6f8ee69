"""`tf.contrib.seq2seq.BasicDecoder` and its helpers with TF 1.15's signatures, on TensorFlow
Addons' samplers (tensorflow-addons 0.23.0, where contrib's helpers went as "samplers").

TF 1.15's helpers took their inputs when made (`TrainingHelper(inputs, sequence_length)`,
`GreedyEmbeddingHelper(embedding, start_tokens, end_token)`); TFA's samplers take them in
`initialize(...)`. Each helper here is the TFA sampler, initialized when made, whose
`initialize(name=None)` returns that. `BasicDecoder(cell, helper, initial_state,
output_layer=None)` is a `tf.contrib.seq2seq.Decoder` (TFA's abstract interface, which
`dynamic_decode` runs): each step calls the cell, the output layer, then the helper's
`sample` and `next_inputs`, as TF 1.15's. Variables: the cell's and the output layer's, under
`dynamic_decode`'s variable scope `decoder`, as in TF 1.15."""
import tensorflow as tf
import tensorflow_addons as tfa
from tensorflow.python.util import nest


class _Bound:
    """A TFA sampler initialized when made: TF 1.15's helper interface."""

    def _bind(self, *args, **kwargs):
        self._first = super().initialize(*args, **kwargs)

    def initialize(self, name=None):
        return self._first

    def sample(self, time, outputs, state, name=None):
        return super().sample(time, outputs, state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        return super().next_inputs(time, outputs, state, sample_ids)


class TrainingHelper(_Bound, tfa.seq2seq.TrainingSampler):
    """TF 1.15 `TrainingHelper(inputs, sequence_length, time_major=False, name=None)`."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        tfa.seq2seq.TrainingSampler.__init__(self, time_major=time_major)
        with tf.name_scope(name or "TrainingHelper"):
            self._bind(inputs, sequence_length=sequence_length)


class GreedyEmbeddingHelper(_Bound, tfa.seq2seq.GreedyEmbeddingSampler):
    """TF 1.15 `GreedyEmbeddingHelper(embedding, start_tokens, end_token)`; `embedding` the
    params of `embedding_lookup` or a callable of the ids."""

    def __init__(self, embedding, start_tokens, end_token):
        tfa.seq2seq.GreedyEmbeddingSampler.__init__(
            self, embedding_fn=embedding if callable(embedding) else None)
        self._bind(embedding, start_tokens=start_tokens, end_token=end_token)


class SampleEmbeddingHelper(_Bound, tfa.seq2seq.SampleEmbeddingSampler):
    """TF 1.15 `SampleEmbeddingHelper(embedding, start_tokens, end_token,
    softmax_temperature=None, seed=None)`."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None, seed=None):
        tfa.seq2seq.SampleEmbeddingSampler.__init__(
            self, embedding_fn=embedding if callable(embedding) else None,
            softmax_temperature=softmax_temperature, seed=seed)
        self._bind(embedding, start_tokens=start_tokens, end_token=end_token)


class BasicDecoder(tfa.seq2seq.Decoder):
    """TF 1.15 `BasicDecoder(cell, helper, initial_state, output_layer=None)`; outputs
    `BasicDecoderOutput(rnn_output, sample_id)`. Raises TypeError, with TF 1.15's texts, for
    an `output_layer` that is not a layer."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        if output_layer is not None and not hasattr(output_layer, "compute_output_shape"):
            raise TypeError("output_layer must be a Layer, received: %s" % type(output_layer))
        self._cell, self._helper, self._initial_state = cell, helper, initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        with_batch = nest.map_structure(lambda s: tf.TensorShape([None]).concatenate(s), size)
        out = self._output_layer.compute_output_shape(with_batch)
        return nest.map_structure(lambda s: s[1:], out)

    @property
    def output_size(self):
        return tfa.seq2seq.BasicDecoderOutput(rnn_output=self._rnn_output_size(),
                                              sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_state)[0].dtype
        return tfa.seq2seq.BasicDecoderOutput(
            nest.map_structure(lambda _: dtype, self._rnn_output_size()),
            self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, training=None, name=None):
        with tf.name_scope(name or "BasicDecoderStep"):
            outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                outputs = self._output_layer(outputs)
            sample_ids = self._helper.sample(time=time, outputs=outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=outputs, state=cell_state, sample_ids=sample_ids)
        return (tfa.seq2seq.BasicDecoderOutput(outputs, sample_ids), next_state, next_inputs,
                finished)
