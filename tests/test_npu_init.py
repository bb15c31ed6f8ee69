"""`from npu_bridge.npu_init import *`: the names scripts use and what the helpers do."""
import os

import pytest
import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.hooks import session_patch as _session_patch

ns = {}
exec("from npu_bridge.npu_init import *", ns)  # pylint: disable=exec-used

tf.compat.v1.disable_eager_execution()


def npu_optimizers(config):
    return [o for o in config.graph_options.rewrite_options.custom_optimizers if o.name == "NpuOptimizer"]


STAR_NAMES = """
os tf config_pb2 rewriter_config_pb2 RewriterConfig session session_run_hook backend
experimental_options NPURunConfig ProfilingConfig MemoryConfig DumpConfig DynamicInputConfig
NPUEstimator NPUEstimatorSpec NPUCheckpointSaverHook NPUOutputTensorHook
NPUBroadcastGlobalVariablesHook SetIterationsVarHook TellMeStepOrLossHook
NPUDistributedOptimizer KerasDistributeOptimizer npu_distributed_optimizer_wrapper NPUOptimizer
npu_allreduce NPULossScaleOptimizer FixedLossScaleManager ExponentialUpdateLossScaleManager
NPUBroadcastGlobalVariablesCallback npu_ops npu_rnn npu_scope keras_to_npu npu_strategy util
npu_plugin npu_unary_ops hccl_ops npu_cpu_ops create_group destroy_group get_rank_size
get_local_rank_size get_rank_id get_local_rank_id get_world_rank_from_group_rank
get_group_rank_from_world_rank set_split_strategy_by_idx set_split_strategy_by_size
npu_hooks_append npu_callbacks_append npu_config_proto npu_graph_options npu_optimizer_options
npu_run_config_init npu_session_config_init set_keras_session_npu_config init_resource
shutdown_resource close_session get_npu_rank_id get_npu_local_rank_id get_npu_rank_size
get_npu_local_rank_size NpuEmptyHook npu_keras_optimizer npu_tf_optimizer npu_clear_session
""".split()


def test_star_import_gives_every_name_of_the_real_module():
    missing = [name for name in STAR_NAMES if name not in ns]
    assert not missing, missing
    assert ns["os"] is os and ns["tf"] is tf
    assert ns["RewriterConfig"].OFF == RewriterConfig.OFF
    assert ns["config_pb2"].ConfigProto is tf.compat.v1.ConfigProto
    assert callable(ns["util"].set_iteration_per_loop)


def test_import_patches_the_session():
    assert _session_patch.is_patched()


def test_npu_config_proto_edits_in_place_and_never_duplicates():
    config = tf.compat.v1.ConfigProto(allow_soft_placement=False, log_device_placement=True)
    out = ns["npu_config_proto"](config_proto=config)
    assert out is config
    assert ns["npu_config_proto"](config) is config
    assert len(npu_optimizers(config)) == 1
    assert config.allow_soft_placement and not config.log_device_placement
    assert config.graph_options.rewrite_options.remapping == RewriterConfig.OFF
    assert config.graph_options.rewrite_options.memory_optimization == RewriterConfig.OFF
    assert config.graph_options.optimizer_options.global_jit_level == tf.compat.v1.OptimizerOptions.OFF
    fresh = ns["npu_config_proto"]("not a proto")
    assert isinstance(fresh, tf.compat.v1.ConfigProto) and len(npu_optimizers(fresh)) == 1
    assert len(npu_optimizers(ns["npu_session_config_init"]())) == 1


def test_graph_and_optimizer_options_turn_jit_off():
    options = tf.compat.v1.GraphOptions()
    options.optimizer_options.global_jit_level = tf.compat.v1.OptimizerOptions.ON_1
    assert ns["npu_graph_options"](options) is options
    assert options.optimizer_options.global_jit_level == tf.compat.v1.OptimizerOptions.OFF
    opt = ns["npu_optimizer_options"]()
    assert opt.global_jit_level == tf.compat.v1.OptimizerOptions.OFF


@pytest.mark.parametrize("make", [
    lambda: tf.estimator.RunConfig(),
    lambda: tf.compat.v1.estimator.tpu.RunConfig(
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10)),
    lambda: None,
])
def test_npu_run_config_init(make):
    run_config = make()
    out = ns["npu_run_config_init"](run_config=run_config)
    assert isinstance(out, tf.estimator.RunConfig)
    if run_config is not None:
        assert out is run_config
    assert len(npu_optimizers(out.session_config)) == 1
    assert out.session_config.graph_options.rewrite_options.remapping == RewriterConfig.OFF


def test_hook_and_callback_lists():
    hooks = ns["npu_hooks_append"]()
    assert len(hooks) == 1 and isinstance(hooks[0], ns["NPUBroadcastGlobalVariablesHook"])
    mine = [ns["NpuEmptyHook"]()]
    assert ns["npu_hooks_append"](hooks_list=mine) is mine and len(mine) == 2
    callbacks = ns["npu_callbacks_append"]()
    assert len(callbacks) == 1 and isinstance(callbacks[0], ns["NPUBroadcastGlobalVariablesCallback"])


def test_init_and_shutdown_resource_and_rank_getters():
    with tf.Graph().as_default():
        sess, shutdown = ns["init_resource"]()
        assert len(npu_optimizers(sess._config)) == 1
        assert ns["get_npu_rank_id"]() == ns["get_rank_id"]()
        assert ns["get_npu_rank_size"]() == ns["get_rank_size"]()
        assert ns["get_npu_local_rank_id"]() == ns["get_local_rank_id"]()
        assert ns["get_npu_local_rank_size"]() == ns["get_local_rank_size"]()
        ns["shutdown_resource"](sess, shutdown)
        ns["close_session"](sess)
        assert sess._closed


def test_optimizer_wrappers():
    opt = ns["npu_tf_optimizer"](tf.compat.v1.train.GradientDescentOptimizer(0.1))
    assert isinstance(opt, ns["NPUDistributedOptimizer"])
