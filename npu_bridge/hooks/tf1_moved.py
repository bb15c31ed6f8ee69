"""The data table of the TF 1.x mode: `MOVED`, each TF 1.15 name (`tf.contrib` and the names
TensorFlow 2.15 moved or dropped) -> where it is served from, with the package release and the
source of the mapping. Read by `npu_bridge.hooks.tf1_contrib`; docs/contrib.md."""
import collections


# target: None, a string or a tuple of strings (docs/design.md, "tf1_contrib"); version: the target's package and the
# release pinned in setup.py; source: where the mapping comes from; nearest: the replacement
# named for None targets and for names a module row does not have.
Row = collections.namedtuple("Row", "target version source nearest", defaults=("", "", ""))


_SLIM = "tf-slim 1.1.0"
_TFP = "tensorflow-probability 0.23.0"
_TFA = "tensorflow-addons 0.23.0"
_TF = "tensorflow 2.15.1"
_EST = "tensorflow-estimator 2.15.0"
_TB = "tensorboard 2.15.2 (tensorflow 2.15.1's dependency)"
_OWN = "npu_bridge (own code, TF 1.15 behaviour)"
_MAP = "../shared/reference/contrib_map.md"
_C = "tensorflow.contrib."

MOVED = {
    "tensorflow.contrib": Row((), _TF, _MAP, "no single replacement: tf.contrib was removed in "
                              "TensorFlow 2 (see npu_bridge.hooks.tf1_contrib.MOVED)"),
    # slim, layers, framework, metrics, losses: tf_slim (written from tf.contrib's code)
    _C + "slim": Row(("tf_slim",), _SLIM, _MAP, "tf_slim"),
    _C + "slim.nets": Row(("tf_slim.nets",), _SLIM, _MAP, "tf_slim.nets"),
    _C + "slim.python.slim": Row(("tf_slim",), _SLIM, _MAP, "tf_slim"),
    _C + "slim.python.slim.nets": Row(("tf_slim.nets",), _SLIM, _MAP, "tf_slim.nets"),
    _C + "layers": Row(("tf_slim.layers",), _SLIM, _MAP,
                       "tf_slim.layers, tf.compat.v1.layers or tf.feature_column"),
    _C + "layers.python.layers": Row(("tf_slim.layers",), _SLIM, _MAP, "tf_slim.layers"),
    _C + "layers.embed_sequence": Row(None, nearest="tf.keras.layers.Embedding"),
    _C + "layers.real_valued_column": Row(None, nearest="tf.feature_column.numeric_column"),
    _C + "layers.sparse_column_with_hash_bucket": Row(
        None, nearest="tf.feature_column.categorical_column_with_hash_bucket"),
    _C + "layers.embedding_column": Row(None, nearest="tf.feature_column.embedding_column"),
    _C + "layers.input_from_feature_columns": Row(
        None, nearest="tf.compat.v1.feature_column.input_layer"),
    _C + "framework": Row(("tf_slim.ops.variables", "tf_slim.ops.arg_scope",
                           "tf.compat.v1.train"), _SLIM, _MAP, "tf_slim or tf.compat.v1.train"),
    _C + "framework.nest": Row("tensorflow.python.util.nest", _TF, _MAP),
    _C + "framework.is_tensor": Row("tf.compat.v1.is_tensor", _TF, _MAP),
    _C + "framework.sort": Row("tf.compat.v1.sort", _TF, _MAP),
    _C + "framework.argsort": Row("tf.compat.v1.argsort", _TF, _MAP),
    _C + "framework.python.ops": Row(("tf_slim.ops.arg_scope", "tf_slim.ops.variables"),
                                     _SLIM, _MAP, "tf_slim.ops"),
    _C + "framework.python.ops.arg_scope": Row("tf_slim.ops.arg_scope:arg_scope", _SLIM, _MAP),
    _C + "framework.python.ops.add_arg_scope": Row("tf_slim.ops.arg_scope:add_arg_scope",
                                                   _SLIM, _MAP),
    _C + "framework.python.ops.variables": Row("tf_slim.ops.variables", _SLIM, _MAP),
    _C + "metrics": Row(("tf_slim.metrics",), _SLIM, _MAP, "tf_slim.metrics or tf.compat.v1.metrics"),
    _C + "losses": Row(("tf_slim.losses",), _SLIM, _MAP, "tf_slim.losses or tf.compat.v1.losses"),
    # data: the v1 tf.data.experimental (v1 datasets, as the mode's tf.data)
    _C + "data": Row(("tf.compat.v1.data.experimental",), _TF, _MAP,
                     "tf.data.experimental or tf.data.Dataset methods"),
    _C + "data.TFRecordDataset": Row("tf.compat.v1.data.TFRecordDataset", _TF, _MAP),
    _C + "data.Dataset": Row("tf.compat.v1.data.Dataset", _TF, _MAP),
    _C + "data.batch_and_drop_remainder": Row(
        "npu_bridge.hooks.contrib.data:batch_and_drop_remainder", _OWN,
        "TF 1.15 contrib/data/python/ops/batching.py (Dataset.batch(n, drop_remainder=True))"),
    _C + "data.padded_batch_and_drop_remainder": Row(
        "npu_bridge.hooks.contrib.data:padded_batch_and_drop_remainder", _OWN,
        "TF 1.15 contrib/data/python/ops/batching.py"),
    _C + "data.sliding_window_batch": Row(None, nearest="Dataset.window(size, shift, stride)"),
    # distributions: TensorFlow Probability
    _C + "distributions": Row(("tensorflow_probability.python.distributions",), _TFP, _MAP,
                              "tensorflow_probability.distributions"),
    _C + "bayesflow": Row((), _TFP, _MAP, "tensorflow_probability (its mcmc, vi, ... modules)"),
    # rnn: TF's own v1 cells
    _C + "rnn": Row(("tf.compat.v1.nn.rnn_cell",), _TF, _MAP,
                    "tf.compat.v1.nn.rnn_cell or tensorflow_addons.rnn (Keras-style cells)"),
    _C + "rnn.static_rnn": Row("tf.compat.v1.nn.static_rnn", _TF, _MAP),
    _C + "rnn.static_bidirectional_rnn": Row("tf.compat.v1.nn.static_bidirectional_rnn", _TF, _MAP),
    _C + "rnn.static_state_saving_rnn": Row("tf.compat.v1.nn.static_state_saving_rnn", _TF, _MAP),
    _C + "rnn.LayerNormBasicLSTMCell": Row(
        None, nearest="tensorflow_addons.rnn.LayerNormLSTMCell (a Keras cell: "
                      "tf.compat.v1.keras.layers.RNN(cell))"),
    _C + "rnn.AttentionCellWrapper": Row(None, nearest="tensorflow_addons.seq2seq.AttentionWrapper"),
    _C + "rnn.stack_bidirectional_dynamic_rnn": Row(
        None, nearest="tf.compat.v1.nn.bidirectional_dynamic_rnn, layer by layer"),
    _C + "rnn.LSTMBlockCell": Row(None, nearest="tf.compat.v1.nn.rnn_cell.LSTMCell"),
    _C + "rnn.GRUBlockCell": Row(None, nearest="tf.compat.v1.nn.rnn_cell.GRUCell"),
    _C + "cudnn_rnn": Row((), _TF, _MAP, "tf.compat.v1.keras.layers.LSTM / GRU (cuDNN kernels "
                                         "when a GPU is there)"),
    # internal module paths scripts import (their names fail when used, naming the nearest)
    **{_C + path: Row((), "", _MAP, "tf.compat.v1.keras.layers.LSTM / GRU, or "
                                    "tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell")
       for path in ("cudnn_rnn.python", "cudnn_rnn.python.layers",
                    "cudnn_rnn.python.layers.cudnn_rnn", "cudnn_rnn.python.ops",
                    "cudnn_rnn.python.ops.cudnn_rnn_ops")},
    **{_C + "cudnn_rnn." + path + ".CudnnCompatibleLSTMCell": Row(
        "npu_bridge.hooks.contrib.rnn:CudnnCompatibleLSTMCell", _OWN, "TF 1.15 cudnn_rnn_ops.py")
       for path in ("python.ops.cudnn_rnn_ops", "python.layers.cudnn_rnn", "python.layers")},
    **{_C + path: Row((), "", _MAP, "tensorflow_addons.seq2seq (Keras-style, other signatures)")
       for path in ("seq2seq.python", "seq2seq.python.ops", "seq2seq.python.ops.decoder",
                    "seq2seq.python.ops.basic_decoder", "seq2seq.python.ops.helper",
                    "seq2seq.python.ops.attention_wrapper", "seq2seq.python.ops.beam_search_ops",
                    "seq2seq.python.ops.beam_search_decoder", "seq2seq.python.ops.loss")},
    **{_C + path: Row((), "", _MAP, "tensorflow_model_optimization.quantization.keras")
       for path in ("quantize.python", "quantize.python.graph_matcher", "quantize.python.quant_ops",
                    "quantize.python.input_to_ops", "quantize.python.common")},
    _C + "rnn.python": Row((), _TF, _MAP, "tf.compat.v1.nn.rnn_cell"),
    _C + "rnn.python.ops": Row((), _TF, _MAP, "tf.compat.v1.nn.rnn_cell"),
    _C + "rnn.python.ops.rnn_cell": Row(("tf.compat.v1.nn.rnn_cell",), _TF, _MAP,
                                        "tf.compat.v1.nn.rnn_cell"),
    _C + "rnn.python.ops.core_rnn_cell": Row(("tf.compat.v1.nn.rnn_cell",), _TF, _MAP,
                                             "tf.compat.v1.nn.rnn_cell (_Linear served; "
                                             "else tf.compat.v1.layers.dense)"),
    _C + "cudnn_rnn.CudnnCompatibleLSTMCell": Row(
        "npu_bridge.hooks.contrib.rnn:CudnnCompatibleLSTMCell", _OWN, "TF 1.15 cudnn_rnn_ops.py"),
    _C + "cudnn_rnn.CudnnLSTM": Row(None, nearest="cudnn_rnn.CudnnCompatibleLSTMCell in "
                                                  "tf.compat.v1.nn.dynamic_rnn (the CPU form)"),
    _C + "cudnn_rnn.CudnnGRU": Row(None, nearest="tf.compat.v1.keras.layers.GRU"),
    # tpu, cluster_resolver: the v1 TPU estimator (TPUEstimator(use_tpu=False) runs on the CPU)
    _C + "tpu": Row(("tf.compat.v1.estimator.tpu", "tf.compat.v1.tpu"), _EST, _MAP,
                    "tf.compat.v1.estimator.tpu or tf.compat.v1.tpu"),
    _C + "tpu.CrossShardOptimizer": Row("tf.compat.v1.tpu.CrossShardOptimizer", _TF, _MAP),
    # contrib.tpu's protos: TF 2.15 ships the same .proto files under core/protobuf/tpu
    _C + "tpu.proto": Row((), _TF, "TF 2.15 core/protobuf/tpu (moved)",
                          "tensorflow.core.protobuf.tpu (its *_pb2 modules)"),
    **{_C + "tpu.proto." + name: Row("tensorflow.core.protobuf.tpu." + name, _TF,
                                     "TF 2.15 core/protobuf/tpu/%s (moved)" % name)
       for name in ("compilation_result_pb2", "dynamic_padding_pb2", "optimization_parameters_pb2",
                    "topology_pb2", "tpu_embedding_configuration_pb2")},
    # contrib.tensorboard's projector: TensorBoard's plugin (the same ProjectorConfig proto;
    # visualize_embeddings takes a FileWriter as TF 1.15's did)
    _C + "tensorboard": Row((), _TB, _MAP, "tensorboard.plugins"),
    _C + "tensorboard.plugins": Row((), _TB, _MAP, "tensorboard.plugins"),
    _C + "tensorboard.plugins.projector": Row(
        "tensorboard.plugins.projector", _TB,
        "tensorboard/plugins/projector/__init__.py (ProjectorConfig, visualize_embeddings)"),
    _C + "cluster_resolver": Row(("tf.compat.v1.distribute.cluster_resolver",), _TF, _MAP,
                                 "tf.distribute.cluster_resolver"),
    # stock homes
    _C + "lookup": Row(("tf.compat.v1.lookup", "tensorflow.python.ops.lookup_ops"), _TF, _MAP,
                       "tf.compat.v1.lookup"),
    _C + "lookup.HashTable": Row("tensorflow.python.ops.lookup_ops:HashTable", _TF, _MAP),
    _C + "lookup.index_table_from_file": Row(
        "tensorflow.python.ops.lookup_ops:index_table_from_file", _TF, _MAP),
    _C + "lookup.index_to_string_table_from_file": Row(
        "tensorflow.python.ops.lookup_ops:index_to_string_table_from_file", _TF, _MAP),
    _C + "lookup.index_table_from_tensor": Row(
        "tensorflow.python.ops.lookup_ops:index_table_from_tensor", _TF, _MAP),
    _C + "lookup.index_to_string_table_from_tensor": Row(
        "tensorflow.python.ops.lookup_ops:index_to_string_table_from_tensor", _TF, _MAP),
    _C + "mixed_precision": Row(("tf.compat.v1.mixed_precision",), _TF, _MAP,
                                "tf.compat.v1.mixed_precision"),
    # contrib's loss-scale managers and optimizer are what the Ascend adapter's are built on
    _C + "mixed_precision.FixedLossScaleManager": Row(
        "npu_bridge.estimator.npu.npu_loss_scale_manager:FixedLossScaleManager", "npu_bridge",
        "TF 1.15 contrib/mixed_precision loss_scale_manager.py (same contract)"),
    _C + "mixed_precision.ExponentialUpdateLossScaleManager": Row(
        "npu_bridge.estimator.npu.npu_loss_scale_manager:ExponentialUpdateLossScaleManager",
        "npu_bridge", "TF 1.15 contrib/mixed_precision loss_scale_manager.py (same contract)"),
    _C + "mixed_precision.LossScaleOptimizer": Row(
        "npu_bridge.estimator.npu.npu_loss_scale_optimizer:NPULossScaleOptimizer", "npu_bridge",
        "TF 1.15 contrib/mixed_precision loss_scale_optimizer.py (opt, loss_scale_manager)"),
    _C + "mixed_precision.python": Row((), "npu_bridge", _MAP, "tf.contrib.mixed_precision"),
    _C + "mixed_precision.python.loss_scale_manager": Row(
        "npu_bridge.estimator.npu.npu_loss_scale_manager", "npu_bridge",
        "TF 1.15 contrib/mixed_precision/python/loss_scale_manager.py (same contract)"),
    _C + "mixed_precision.python.loss_scale_optimizer": Row(
        (), "npu_bridge", _MAP, "tf.contrib.mixed_precision.LossScaleOptimizer"),
    _C + "mixed_precision.python.loss_scale_optimizer.LossScaleOptimizer": Row(
        "npu_bridge.estimator.npu.npu_loss_scale_optimizer:NPULossScaleOptimizer", "npu_bridge",
        "TF 1.15 contrib/mixed_precision loss_scale_optimizer.py (opt, loss_scale_manager)"),
    _C + "summary": Row(("tensorflow.python.ops.summary_ops_v2",), _TF, _MAP,
                        "tf.compat.v2.summary"),
    _C + "summary.all_summary_ops": Row(
        "tensorflow.python.ops.summary_ops_v2:all_v2_summary_ops", _TF, _MAP),
    _C + "estimator": Row(("tf.compat.v1.estimator", "tf.compat.v1.estimator.experimental"),
                          _EST, _MAP, "tf.compat.v1.estimator"),
    _C + "distribute": Row(("tf.compat.v1.distribute",), _TF, _MAP, "tf.distribute"),
    _C + "keras": Row(("tf.compat.v1.keras",), _TF, _MAP, "tf.compat.v1.keras"),
    _C + "util": Row(("tensorflow.python.framework.tensor_util",), _TF, _MAP,
                     "tf.make_tensor_proto / tf.make_ndarray"),
    _C + "util.make_tensor_proto": Row("tf.compat.v1.make_tensor_proto", _TF, _MAP),
    _C + "util.make_ndarray": Row("tf.compat.v1.make_ndarray", _TF, _MAP),
    _C + "compiler": Row((), _TF, _MAP, "tf.xla.experimental"),
    _C + "compiler.jit": Row((), _TF, _MAP, "tf.xla.experimental"),
    _C + "compiler.jit.experimental_jit_scope": Row("tf.compat.v1.xla.experimental.jit_scope",
                                                    _TF, _MAP),
    _C + "resampler": Row((), _TFA, _MAP, "tensorflow_addons.image.resampler"),
    _C + "resampler.resampler": Row("tensorflow_addons.image:resampler", _TFA, _MAP),
    # training: HParams is the project's own (no maintained library has it)
    _C + "training": Row(("tf_slim.training.training", "tf_slim.training.evaluation"),
                         _SLIM, _MAP, "tf_slim.training or tf.compat.v1.train"),
    _C + "training.HParams": Row("npu_bridge.hooks.contrib.hparam:HParams", _OWN,
                                 "TF 1.15 contrib/training/python/training/hparam.py"),
    _C + "training.parse_values": Row("npu_bridge.hooks.contrib.hparam:parse_values", _OWN,
                                      "TF 1.15 contrib/training/python/training/hparam.py"),
    _C + "training.python.training.hparam": Row("npu_bridge.hooks.contrib.hparam", _OWN,
                                                "TF 1.15 contrib/training/python/training/hparam.py"),
    _C + "training.python.training.evaluation": Row("tf_slim.training.evaluation", _SLIM, _MAP),
    _C + "training.python.training.training": Row("tf_slim.training.training", _SLIM, _MAP),
    # framework's tensor_util (TF 1.15 contrib/framework/python/framework/tensor_util.py
    # __all__): the names TF 2.15 still has, at their TF 2.15 homes; with_same_shape own code
    _C + "framework.python.framework.tensor_util": Row(
        (), _TF, "TF 1.15 contrib/framework/python/framework/tensor_util.py",
        "tf.debugging.assert_* / tf.ensure_shape"),
    **{_C + "framework.python.framework.tensor_util." + name: Row(home + ":" + name, _TF,
                                                                  "TF 2.15 (moved)")
       for name, home in (("assert_same_float_dtype", "tensorflow.python.ops.check_ops"),
                          ("assert_scalar", "tensorflow.python.ops.check_ops"),
                          ("is_tensor", "tensorflow.python.framework.tensor_util"),
                          ("convert_to_tensor_or_sparse_tensor",
                           "tensorflow.python.framework.sparse_tensor"),
                          ("remove_squeezable_dimensions",
                           "tensorflow.python.ops.confusion_matrix"))},
    _C + "framework.python.framework.tensor_util.with_same_shape": Row(
        "npu_bridge.hooks.contrib.framework:with_same_shape", _OWN,
        "TF 1.15 contrib/framework/python/framework/tensor_util.py"),
    # rnn_cell_impl's _Linear (TF 1.15), which contrib's rnn_cell / core_rnn_cell re-exported
    **{_C + path + "._Linear": Row("npu_bridge.hooks.contrib.linear:_Linear", _OWN,
                                   "TF 1.15 python/ops/rnn_cell_impl.py")
       for path in ("rnn.python.ops.rnn_cell", "rnn.python.ops.core_rnn_cell")},
    # TF 1.15 seq2seq decoder.py: `_transpose_batch_time = rnn._transpose_batch_time`
    _C + "seq2seq.python.ops.decoder._transpose_batch_time": Row(
        "tensorflow.python.ops.rnn:_transpose_batch_time", _TF, "TF 2.15 python/ops/rnn.py"),
    # seq2seq's abstract Decoder: TFA's is the same interface (batch_size, output_size,
    # output_dtype, initialize, step, finalize, tracks_own_finished); dynamic_decode: TF 1.15's
    # signature and variable scope on TFA's loop (npu_bridge/hooks/contrib/seq2seq.py)
    **{_C + path + ".Decoder": Row("tensorflow_addons.seq2seq:Decoder", _TFA,
                                   "tensorflow_addons/seq2seq/decoder.py (TF 1.x Decoder interface)")
       for path in ("seq2seq", "seq2seq.python.ops.decoder")},
    **{_C + path + ".dynamic_decode": Row("npu_bridge.hooks.contrib.seq2seq:dynamic_decode", _OWN,
                                          "TF 1.15 contrib/seq2seq/python/ops/decoder.py")
       for path in ("seq2seq", "seq2seq.python.ops.decoder")},
    # TF 1.15 contrib/all_reduce was `from tensorflow.python.distribute.all_reduce import *`
    _C + "all_reduce": Row(("tensorflow.python.distribute.v1.all_reduce",), _TF,
                           "TF 2.15 python/distribute/v1/all_reduce.py (moved)",
                           "tf.distribute cross-device ops"),
    _C + "all_reduce.python": Row((), _TF, _MAP, "tensorflow.python.distribute.v1.all_reduce"),
    _C + "all_reduce.python.all_reduce": Row("tensorflow.python.distribute.v1.all_reduce", _TF,
                                             "TF 2.15 python/distribute/v1/all_reduce.py (moved)"),
    # contrib's loader of its own op libraries (.so files TF 2.15 does not ship)
    _C + "util.loader": Row((), "", "TF 1.15 contrib/util/loader.py",
                            "tf.load_op_library(path) with the library's absolute path"),
    # contrib.image's generated ops; ImageProjectiveTransformV2 moved to TF core (TF 2.x added
    # fill_mode, default CONSTANT: zeros outside, as contrib's op did)
    _C + "image.ops": Row((), _TF, _MAP, "tensorflow.python.ops.gen_image_ops"),
    _C + "image.ops.gen_image_ops": Row("tensorflow.python.ops.gen_image_ops", _TF,
                                        "TF 2.15 python/ops/gen_image_ops.py (moved to core)"),
    _C + "framework.python.framework.checkpoint_utils": Row(
        "tensorflow.python.training.checkpoint_utils", _TF, "TF 2.15 (moved)"),
    _C + "training.bucket_by_sequence_length": Row(
        None, nearest="tf.data.experimental.bucket_by_sequence_length"),
    # seq2seq, crf, image: TensorFlow Addons where its function has the TF 1.x meaning
    _C + "seq2seq": Row((), _TFA, _MAP,
                        "tensorflow_addons.seq2seq (Keras-style: BasicDecoder(cell, sampler), "
                        "samplers instead of helpers, not the TF 1.x signatures)"),
    **{_C + "seq2seq." + name: Row("tensorflow_addons.seq2seq:" + name, _TFA, _MAP)
       for name in ("sequence_loss", "tile_batch", "gather_tree", "hardmax", "safe_cumprod",
                    "monotonic_attention")},
    # seq2seq attention: TFA's classes take TF 1.15's leading arguments (num_units, memory,
    # memory_sequence_length, normalize / scale) and compute the same; probability_fn is a name
    # ("softmax", "hardmax") and score_mask_value / custom_key_value_fn are not taken; variable
    # names differ (TF 1.15 checkpoints do not load). AttentionWrapper: TFA's + TF 1.x zero_state
    **{_C + path + name: Row("tensorflow_addons.seq2seq:" + name, _TFA,
                             "tensorflow_addons/seq2seq/attention_wrapper.py (TF 1.15's arguments)")
       for path in ("seq2seq.", "seq2seq.python.ops.attention_wrapper.")
       for name in ("BahdanauAttention", "LuongAttention", "AttentionWrapperState")},
    **{_C + path + "AttentionWrapper": Row("npu_bridge.hooks.contrib.attention:AttentionWrapper",
                                           _TFA + " + " + _OWN,
                                           "tensorflow_addons/seq2seq/attention_wrapper.py; TF 1.15 "
                                           "rnn_cell_impl.py (zero_state)")
       for path in ("seq2seq.", "seq2seq.python.ops.attention_wrapper.")},
    **{_C + path + "BasicDecoderOutput": Row("tensorflow_addons.seq2seq:BasicDecoderOutput", _TFA,
                                             "tensorflow_addons/seq2seq/basic_decoder.py")
       for path in ("seq2seq.", "seq2seq.python.ops.basic_decoder.")},
    # BasicDecoder and the helpers of the zoo: TF 1.15's signatures on TFA's samplers
    # (npu_bridge/hooks/contrib/decoders.py; TFA's BasicDecoder takes a sampler and gets inputs and
    # initial state in its call)
    **{_C + path + name: Row("npu_bridge.hooks.contrib.decoders:" + name, _TFA + " + " + _OWN,
                             "TF 1.15 contrib/seq2seq/python/ops/basic_decoder.py, helper.py; "
                             "tensorflow_addons/seq2seq/sampler.py")
       for path, names in (("seq2seq.", ("BasicDecoder", "TrainingHelper", "GreedyEmbeddingHelper",
                                         "SampleEmbeddingHelper")),
                           ("seq2seq.python.ops.basic_decoder.", ("BasicDecoder",)),
                           ("seq2seq.python.ops.helper.", ("TrainingHelper", "GreedyEmbeddingHelper",
                                                           "SampleEmbeddingHelper")))
       for name in names},
    # the abstract Helper: TFA's Sampler has the same methods (batch_size, sample_ids_shape,
    # sample_ids_dtype, initialize, sample, next_inputs); a TF 1.x subclass runs in BasicDecoder
    **{_C + path + "Helper": Row("tensorflow_addons.seq2seq:Sampler", _TFA,
                                 "tensorflow_addons/seq2seq/sampler.py (TF 1.x Helper interface)")
       for path in ("seq2seq.", "seq2seq.python.ops.helper.")},
    # the other decoders and helpers: TFA's take a sampler and get the inputs, initial state
    # and tokens in their call (other signatures): errors naming them
    **{_C + path + name: Row(None, nearest=nearest)
       for paths, names in (
           (("seq2seq.", "seq2seq.python.ops.beam_search_decoder."), (
               ("BeamSearchDecoder", "tensorflow_addons.seq2seq.BeamSearchDecoder(cell, beam_width, "
                                     "output_layer=...), called as decoder(embedding, "
                                     "start_tokens=..., end_token=..., initial_state=...)"),)),
           (("seq2seq.", "seq2seq.python.ops.helper."), tuple(
               (helper, "tensorflow_addons.seq2seq.%s (a sampler: its inputs are given to the "
                        "decoder's call)" % sampler)
               for helper, sampler in (
                   ("CustomHelper", "CustomSampler"),
                   ("ScheduledEmbeddingTrainingHelper", "ScheduledEmbeddingTrainingSampler"),
                   ("ScheduledOutputTrainingHelper", "ScheduledOutputTrainingSampler"),
                   ("InferenceHelper", "InferenceSampler")))))
       for path in paths for name, nearest in names},
    _C + "legacy_seq2seq": Row((), "", "TF 1.15 contrib/legacy_seq2seq (removed in TF 2)",
                               "tensorflow_addons.seq2seq.sequence_loss on [batch, time] tensors; "
                               "tf.compat.v1.nn.dynamic_rnn with tf.contrib.seq2seq's attention"),
    _C + "graph_editor": Row((), "", "TF 1.15 contrib/graph_editor (removed in TF 2)",
                             "tf.compat.v1.import_graph_def(graph_def, input_map=...) to rewire "
                             "inputs (edit the GraphDef of tf.Graph.as_graph_def())"),
    _C + "crf": Row((), _TFA, _MAP, "tensorflow_addons.text (crf_* functions)"),
    **{_C + "crf." + name: Row("tensorflow_addons.text:" + name, _TFA, _MAP)
       for name in ("crf_log_likelihood", "crf_decode", "crf_sequence_score", "crf_log_norm",
                    "crf_unary_score", "crf_binary_score", "crf_multitag_sequence_score",
                    "viterbi_decode")},
    _C + "image": Row((), _TFA, _MAP, "tensorflow_addons.image or tf.image"),
    **{_C + "image." + name: Row("tensorflow_addons.image:" + name, _TFA, _MAP)
       for name in ("rotate", "transform", "translate", "angles_to_projective_transforms",
                    "translations_to_projective_transforms", "compose_transforms",
                    "connected_components", "dense_image_warp", "interpolate_spline",
                    "sparse_image_warp", "random_hsv_in_yiq", "adjust_hsv_in_yiq")},
    _C + "image.python.ops.distort_image_ops": Row("tensorflow_addons.image.distort_image_ops",
                                                   _TFA, _MAP),
    # deep paths real scripts import (probe findings)
    _C + "tpu.python.ops": Row(("tensorflow.python.tpu.ops",), _TF, "TF 2.15 python/tpu/ops",
                               "tensorflow.python.tpu.ops"),
    _C + "tpu.python.tpu": Row(("tensorflow.python.tpu",), _TF, "TF 2.15 python/tpu",
                               "tensorflow.python.tpu"),
    _C + "tpu.python.tpu.tpu_estimator": Row(
        "tensorflow_estimator.python.estimator.tpu.tpu_estimator", _EST, "tensorflow-estimator"),
    _C + "tpu.python.tpu.tpu_config": Row(
        "tensorflow_estimator.python.estimator.tpu.tpu_config", _EST, "tensorflow-estimator"),
    _C + "compiler.xla": Row("tensorflow.python.compiler.xla.xla", _TF, "TF 2.15 python/compiler/xla"),
    _C + "framework.python.ops.audio_ops": Row(   # TF 1.15: `from gen_audio_ops import *`
        "tensorflow.python.ops.gen_audio_ops", _TF, "TF 1.15 contrib/framework/python/ops/audio_ops.py"),
    _C + "saved_model": Row(("tf.compat.v1.saved_model",), _TF, _MAP, "tf.compat.v1.saved_model"),
    _C + "saved_model.python.saved_model.reader": Row(
        "tensorflow.python.tools.saved_model_utils", _TF,
        "TF 2.15 python/tools/saved_model_utils.py (read_saved_model, get_saved_model_tag_sets)"),
    # opt: TensorFlow Addons' optimizers are Keras ones (no global_step, no tf.train.Optimizer)
    _C + "opt": Row((), _TFA, _MAP, "tensorflow_addons.optimizers (Keras optimizers, not "
                                    "tf.train.Optimizer subclasses: minimize(loss, var_list))"),
    _C + "opt.AdamWOptimizer": Row(None, nearest="tensorflow_addons.optimizers.AdamW (a Keras "
                                                 "optimizer: minimize(loss, var_list), no "
                                                 "global_step)"),
    _C + "opt.MomentumWOptimizer": Row(None, nearest="tensorflow_addons.optimizers.SGDW (a Keras "
                                                     "optimizer)"),
    _C + "opt.NadamOptimizer": Row(None, nearest="tf.keras.optimizers.Nadam (a Keras optimizer)"),
    _C + "opt.LARSOptimizer": Row(None, nearest="tf.compat.v1.train.MomentumOptimizer (without "
                                                "LARS' per-layer trust ratio)"),
    _C + "opt.ScipyOptimizerInterface": Row(
        None, nearest="scipy.optimize.minimize on values read with Session.run, or "
                      "tensorflow_probability.optimizer.lbfgs_minimize"),
    # LazyAdamOptimizer: a v1 Optimizer of its own (TFA's LazyAdam is a Keras one)
    _C + "opt.LazyAdamOptimizer": Row("npu_bridge.hooks.contrib.opt:LazyAdamOptimizer", _OWN,
                                      "TF 1.15 contrib/opt/python/training/lazy_adam_optimizer.py"),
    _C + "opt.MovingAverageOptimizer": Row(
        None, nearest="tf.compat.v1.train.ExponentialMovingAverage"),
    # no maintained library
    _C + "learn": Row((), "", _MAP, "tf.estimator (tf.contrib.learn was deprecated in TF 1.x)"),
    _C + "learn.ModeKeys": Row("tf.compat.v1.estimator.ModeKeys", _EST, _MAP),
    _C + "learn.python.learn.datasets.mnist": Row(
        "npu_bridge.hooks.contrib.mnist", _OWN, "TF 1.15 contrib/learn/python/learn/datasets/mnist.py"),
    _C + "learn.python.learn.datasets.base": Row(
        (), _OWN, _MAP, "collections.namedtuple (TF 1.15's base.py helpers download files)"),
    _C + "learn.python.learn.datasets.base.Datasets": Row(
        "npu_bridge.hooks.contrib.mnist:Datasets", _OWN,
        "TF 1.15 contrib/learn/python/learn/datasets/base.py (namedtuple train, validation, test)"),
    _C + "learn.datasets.mnist": Row(
        "npu_bridge.hooks.contrib.mnist", _OWN, "TF 1.15 contrib/learn/python/learn/datasets/mnist.py"),
    _C + "quantize": Row((), "", _MAP, "tensorflow_model_optimization.quantization.keras "
                                       "(quantization-aware training of Keras models)"),
    _C + "cloud": Row((), "", _MAP, "tf.io.gfile for gs:// paths; tensorflow_io.bigquery"),
    _C + "tfprof": Row((), "", _MAP, "tf.compat.v1.profiler (profile, ProfileOptionBuilder)"),
    # tensorflow.examples: the MNIST reader, on local files
    "tensorflow.examples": Row((), _OWN, _MAP, "tf.keras.datasets"),
    "tensorflow.examples.tutorials": Row((), _OWN, _MAP, "tf.keras.datasets"),
    "tensorflow.examples.tutorials.mnist": Row((), _OWN, _MAP, "tf.keras.datasets.mnist"),
    "tensorflow.examples.tutorials.mnist.input_data": Row(
        "npu_bridge.hooks.contrib.mnist", _OWN, "TF 1.15 examples/tutorials/mnist/input_data.py"),
    # other TF 1.15 names scripts use, at their TF 1.15 paths
    "tensorflow.python.util.nest.is_sequence": Row(
        "tensorflow.python.util.nest:is_nested", _TF, "TF 2.15 nest.py (renamed)"),
    "tensorflow.python.util.nest.is_sequence_or_composite": Row(
        "tensorflow.python.util.nest:is_nested_or_composite", _TF, "TF 2.15 nest.py (renamed)"),
    "tensorflow.python.pywrap_tensorflow.NewCheckpointReader": Row(
        "tensorflow.python.training.py_checkpoint_reader:NewCheckpointReader", _TF,
        "TF 2.15 py_checkpoint_reader.py"),
    "tensorflow.python.data.experimental.ops.threadpool": Row(
        "npu_bridge.hooks.contrib.threadpool", _OWN, "TF 1.15 data/experimental/ops/threadpool.py"),
    "tensorflow._api.v2.compat.v1.summary.create_file_writer": Row(
        "tensorflow.python.ops.summary_ops_v2:create_file_writer", _TF, _MAP),
    "tensorflow._api.v2.compat.v1.summary.always_record_summaries": Row(
        "tensorflow.python.ops.summary_ops_v2:always_record_summaries", _TF, _MAP),
    "tensorflow._api.v2.compat.v1.summary.never_record_summaries": Row(
        "tensorflow.python.ops.summary_ops_v2:never_record_summaries", _TF, _MAP),
    "tensorflow._api.v2.compat.v1.summary.all_summary_ops": Row(
        "tensorflow.python.ops.summary_ops_v2:all_v2_summary_ops", _TF, _MAP),
    "tensorflow._api.v2.compat.v1.nn.deconv2d": Row(   # TF 0.x name of conv2d_transpose
        "tf.compat.v1.nn.conv2d_transpose", _TF, "TF 0.x nn.deconv2d"),
    "tensorflow.compat.v2.OptimizerOptions": Row(
        "tensorflow.core.protobuf.config_pb2:OptimizerOptions", _TF, "config.proto"),
    "tensorflow.python.keras._impl": Row((), _TF, _MAP, "tf.compat.v1.keras"),
    "tensorflow.python.keras._impl.keras": Row(("tf.compat.v1.keras",), _TF, _MAP,
                                               "tf.compat.v1.keras"),
    # TF 2.15's frozen copy of the old Keras lacks these: the v1 Keras API's (tf.keras's)
    "tensorflow.python.keras.layers.LSTM": Row("tf.compat.v1.keras.layers.LSTM", _TF, _MAP),
    "tensorflow.python.keras.layers.GRU": Row("tf.compat.v1.keras.layers.GRU", _TF, _MAP),
    "tensorflow.python.keras.layers.BatchNormalization": Row(
        "tf.compat.v1.keras.layers.BatchNormalization", _TF, _MAP),
    "tensorflow.python.keras.layers.LayerNormalization": Row(
        "tf.compat.v1.keras.layers.LayerNormalization", _TF, _MAP),
    # TF 2.15 points this module at the tf_keras package (not a dependency here); keras 2.15
    # has the same v1 layer (it is tf.compat.v1.layers.BatchNormalization). tf_slim's batch_norm
    # builds it.
    **{"tensorflow.python.layers.normalization." + name: Row(
        "keras.src.legacy_tf_layers.normalization:" + name, "keras 2.15.0",
        "TF 2.15 python/layers/normalization.py (lazy tf_keras.legacy_tf_layers.normalization)")
       for name in ("BatchNormalization", "BatchNorm", "batch_normalization", "batch_norm")},
    "tensorflow.python.keras.applications": Row(("keras.src.applications",), "keras 2.15.0",
                                                "keras 2.15 (TF 2.15's old Keras copy lacks it)",
                                                "tf.keras.applications"),
    **{"tensorflow.python.keras.optimizers." + name: Row(
        "tf.compat.v1.keras.optimizers." + name, _TF, "the v1 Keras API (tf.keras in the mode)")
       for name in ("Adam", "SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam")},
    "tensorflow.python.keras.utils.Sequence": Row("tf.compat.v1.keras.utils.Sequence", _TF,
                                                  "the v1 Keras API (tf.keras in the mode)"),
    "tensorflow.python.keras.utils.to_categorical": Row(
        "tf.compat.v1.keras.utils.to_categorical", _TF, "the v1 Keras API (tf.keras in the mode)"),
    "tensorflow.python.training.tracking": Row(("tensorflow.python.trackable",), _TF,
                                               "TF 2.15 python/trackable (moved)",
                                               "tensorflow.python.trackable"),
    # TF 1.15's pip package kept its code in `tensorflow_core` (`tensorflow` re-exported it)
    "tensorflow_core": Row("tensorflow", _TF, "TF 1.15 pip package layout"),
    "tensorflow.python.graph_util": Row("tensorflow.python.framework.graph_util", _TF,
                                        "TF 1.15 tensorflow/python/__init__.py alias"),
    # TF 2.15's old Keras copy has no datasets package (CS-GAN: datasets.cifar.load_batch)
    "tensorflow.python.keras.datasets": Row(("keras.src.datasets",), "keras 2.15.0",
                                            "keras 2.15 (TF 2.15's old Keras copy lacks it)",
                                            "tf.keras.datasets"),
    "tensorflow.python.keras.preprocessing": Row(("keras.src.preprocessing",), "keras 2.15.0",
                                                 "keras 2.15 (TF 2.15's old Keras copy lacks it)",
                                                 "tf.keras.preprocessing"),
    # Keras 2.x module paths (keras 2.15 keeps the classes in keras.layers)
    **{"keras.layers." + name: Row(("keras.layers",), "keras 2.15.0", "keras 2.15 (flattened)",
                                   "keras.layers")
       for name in ("advanced_activations", "core", "convolutional", "pooling", "normalization",
                    "recurrent", "merge", "embeddings", "wrappers", "noise", "local",
                    "convolutional_recurrent")},
    # standalone Keras 2.15's keras.backend dropped the TF 1.x session functions
    **{"keras.backend." + name: Row("tf.compat.v1.keras.backend." + name, "keras 2.15.0",
                                    "keras 2.15 (the v1 Keras API keeps them)")
       for name in ("set_session", "get_session")},
    "keras.utils.np_utils": Row("keras.src.utils.np_utils", "keras 2.15.0", "keras 2.15 (moved)"),
    # Keras 2.2/2.3's keras.engine package and keras.engine.topology (their exports), where
    # keras 2.15 has keras.src.engine (Network renamed Functional)
    "keras.engine": Row(("keras.src.engine",), "keras 2.15.0", "keras 2.15 (moved)",
                        "keras.layers.Layer, keras.Model, keras.Input"),
    "keras.engine.topology": Row(("keras.src.engine.base_layer",), "keras 2.15.0",
                                 "Keras 2.3 engine/topology.py (its exports)",
                                 "keras.layers.Layer, keras.layers.InputSpec, keras.Input"),
    **{_path + "." + _name: Row(_home, "keras 2.15.0", "Keras 2.3 engine/__init__.py, "
                                "engine/topology.py (exports)")
       for _path in ("keras.engine", "keras.engine.topology")
       for _name, _home in (("Layer", "keras.src.engine.base_layer:Layer"),
                            ("InputSpec", "keras.src.engine.input_spec:InputSpec"),
                            ("Input", "keras.src.engine.input_layer:Input"),
                            ("InputLayer", "keras.src.engine.input_layer:InputLayer"),
                            ("get_source_inputs", "keras.src.utils.layer_utils:get_source_inputs"),
                            ("Model", "keras.src.engine.training:Model"),
                            ("Node", "keras.src.engine.node:Node"),
                            ("Network", "keras.src.engine.functional:Functional"))},
    "keras.backend.tensorflow_backend": Row(("tf.compat.v1.keras.backend",), "keras 2.15.0",
                                            "Keras 2.2's backend module (the v1 Keras backend)",
                                            "tf.compat.v1.keras.backend"),
    # Keras 2.x's keras.utils.*_utils modules: keras 2.15's, then its public keras.utils (where
    # get_custom_objects, CustomObjectScope, ... went)
    **{"keras.utils." + name: Row(("keras.src.utils." + name, "keras.utils"), "keras 2.15.0",
                                  "keras 2.15 (moved)", "keras.utils")
       for name in ("generic_utils", "layer_utils", "data_utils", "vis_utils", "tf_utils",
                    "conv_utils", "io_utils")},
    # Keras-Applications 1.0.8, installed by TF 1.15's pip package: imagenet_utils on Keras
    # 2.15's; its model modules take backend=/layers=/... that Keras 2.15's do not
    "keras_applications": Row((), "keras 2.15.0", "TF 1.15 setup.py (keras_applications >= 1.0.8)",
                              "keras.applications (Keras 2.15: its model functions take no "
                              "backend=, layers=, models=, utils= arguments)"),
    "keras_applications.imagenet_utils": Row(
        "npu_bridge.hooks.contrib.keras_applications", _OWN,
        "keras_applications 1.0.8 imagenet_utils.py on keras 2.15's"),
    "keras.api._v1.keras.mixed_precision.experimental": Row(
        (), "keras 2.15.0", _MAP, "tf.keras.mixed_precision (set_global_policy, Policy)"),
    "keras.api._v1.keras.mixed_precision.experimental.set_policy": Row(
        "keras.src.mixed_precision.policy:set_global_policy", "keras 2.15.0", "keras 2.15 (renamed)"),
    "keras.api._v1.keras.mixed_precision.experimental.global_policy": Row(
        "keras.src.mixed_precision.policy:global_policy", "keras 2.15.0", "keras 2.15"),
    "keras.api._v1.keras.mixed_precision.experimental.Policy": Row(
        "keras.src.mixed_precision.policy:Policy", "keras 2.15.0", "keras 2.15 (no loss_scale)"),
    "keras.api._v1.keras.mixed_precision.experimental.LossScaleOptimizer": Row(
        None, nearest="tf.keras.mixed_precision.LossScaleOptimizer(opt, dynamic=...)"),
    # removed in TF 2.4; TF 1.15's checks (too few GPUs: ValueError) are all a CPU/NPU host
    # reaches; with the GPUs there it refuses, naming MirroredStrategy
    "tensorflow.python.keras.utils.multi_gpu_model": Row(
        "npu_bridge.hooks.contrib.keras:multi_gpu_model", _OWN,
        "TF 1.15 python/keras/utils/multi_gpu_utils.py (its device checks)"),
    # TF 2.15 compiles the C++ transforms in but does not ship TF 1.15's Python wrapper
    "tensorflow.tools.graph_transforms": Row(
        "npu_bridge.hooks.contrib.graph_transforms", _OWN,
        "TF 1.15 tools/graph_transforms/__init__.py (on TF 2.15's _pywrap_transform_graph)"),
}
for _path in ("tensorflow.python.distribute.distribution_strategy_context",
              "tensorflow.python.training.distribution_strategy_context"):
    MOVED[_path] = Row(("tensorflow.python.distribute.distribute_lib",), _TF,
                       "TF 2.15 distribute_lib.py (merged)", "tf.distribute")
    for _old, _new in (("get_tower_context", "get_replica_context"),
                       ("get_cross_tower_context", "get_cross_replica_context"),
                       ("get_distribution_strategy", "get_strategy"),
                       ("has_distribution_strategy", "has_strategy")):
        MOVED[_path + "." + _old] = Row("tensorflow.python.distribute.distribute_lib:" + _new, _TF,
                                        "TF 1.x alias")
# TF 1.15 names at tensorflow.python... paths that TF 2.15 moved to other modules.
for _module, _names in {
        "tensorflow.python.framework.graph_util": {
            "convert_variables_to_constants": "tensorflow.python.framework.convert_to_constants"},
        "tensorflow.python.framework.graph_util_impl": {
            "convert_variables_to_constants": "tensorflow.python.framework.convert_to_constants"},
        "tensorflow.python.framework.ops": {
            "Tensor": "tensorflow.python.framework.tensor",
            "IndexedSlices": "tensorflow.python.framework.indexed_slices",
            "register_tensor_conversion_function":
                "tensorflow.python.framework.tensor_conversion_registry"},
        "tensorflow.python.ops.control_flow_ops": {
            "cond": "tensorflow.python.ops.cond",
            "while_loop": "tensorflow.python.ops.while_loop",
            "case": "tensorflow.python.ops.control_flow_case",
            "Assert": "tensorflow.python.ops.control_flow_assert"},
        "tensorflow.python.ops.array_ops": {
            "stack": "tensorflow.python.ops.array_ops_stack",
            "unstack": "tensorflow.python.ops.array_ops_stack"},
        "tensorflow.python.ops.functional_ops": {"map_fn": "tensorflow.python.ops.map_fn"},
        "tensorflow.python.ops.random_ops": {"random_crop": "tensorflow.python.ops.random_crop_ops"},
        # XLNet's tpu_estimator.py registers its loop variable with these (TF 1.15's home)
        "tensorflow.python.ops.resource_variable_ops": {
            "_to_proto_fn": "tensorflow.python.ops.ref_variable",
            "_from_proto_fn": "tensorflow.python.ops.ref_variable"},
}.items():
    for _name, _home in _names.items():
        MOVED[_module + "." + _name] = Row(_home + ":" + _name, _TF, "TF 2.15 (moved)")
