"""The project's own stand-ins for TF 1.15 parts no maintained library has (served through
`npu_bridge.hooks.tf1_contrib.MOVED`): `hparam` (tf.contrib.training.HParams), `mnist`
(tensorflow.examples.tutorials.mnist.input_data), `threadpool`, `rnn`, `linear` (_Linear),
`framework` (with_same_shape), `seq2seq` (dynamic_decode), `attention` (AttentionWrapper's zero_state), `decoders`
(BasicDecoder and helpers on TFA's samplers), `opt`
(LazyAdamOptimizer), `keras` (multi_gpu_model)."""
