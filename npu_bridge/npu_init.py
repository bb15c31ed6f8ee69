"""What `from npu_bridge.npu_init import *` gives an Ascend script (the real module's names,
no `__all__` on purpose), and the full Session patch. Notes: docs/design.md "Module notes".
"""
import os  # noqa: F401  (exported: scripts use `os` after the star import)
import types as _types

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf import rewriter_config_pb2  # noqa: F401
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
from tensorflow.python.client import session
from tensorflow.python.training import session_run_hook

from npu_bridge.hooks import keras2 as _keras2
from npu_bridge.hooks import session_patch as _session_patch

_keras2.check_legacy_keras("npu_bridge.npu_init")
from npu_bridge.estimator.npu.npu_config import NPURunConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_config import ProfilingConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_config import MemoryConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_config import DumpConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_config import DynamicInputConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator  # noqa: F401
from npu_bridge.estimator.npu.npu_estimator import NPUEstimatorSpec  # noqa: F401
from npu_bridge.estimator.npu.npu_hook import NPUCheckpointSaverHook  # noqa: F401
from npu_bridge.estimator.npu.npu_hook import NPUOutputTensorHook  # noqa: F401
from npu_bridge.estimator.npu.npu_hook import NPUBroadcastGlobalVariablesHook
from npu_bridge.estimator.npu.npu_hook import SetIterationsVarHook  # noqa: F401
from npu_bridge.estimator.npu.npu_hook import TellMeStepOrLossHook  # noqa: F401
from npu_bridge.estimator.npu.npu_optimizer import NPUDistributedOptimizer
from npu_bridge.estimator.npu.npu_optimizer import KerasDistributeOptimizer
from npu_bridge.estimator.npu.npu_optimizer import npu_distributed_optimizer_wrapper  # noqa: F401
from npu_bridge.estimator.npu.npu_optimizer import NPUOptimizer  # noqa: F401
from npu_bridge.estimator.npu.npu_optimizer import npu_allreduce  # noqa: F401
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer  # noqa: F401
from npu_bridge.estimator.npu.npu_loss_scale_manager import FixedLossScaleManager  # noqa: F401
from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager  # noqa: F401
from npu_bridge.estimator.npu.npu_callbacks import NPUBroadcastGlobalVariablesCallback
from npu_bridge.estimator import npu_ops
from npu_bridge.estimator.npu import npu_rnn  # noqa: F401
from npu_bridge.estimator.npu import npu_scope  # noqa: F401
from npu_bridge.estimator.npu import keras_to_npu  # noqa: F401
from npu_bridge.estimator.npu import npu_strategy  # noqa: F401
from npu_bridge.estimator.npu import util
from npu_bridge.estimator.npu import npu_plugin  # noqa: F401
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops  # noqa: F401
from npu_bridge.hccl import hccl_ops  # noqa: F401
from npu_bridge.profiler import profiler  # noqa: F401  (checks only: no profile data on the CPU)
from npu_bridge.npu_cpu import npu_cpu_ops  # noqa: F401

from hccl.manage.api import create_group  # noqa: F401
from hccl.manage.api import destroy_group  # noqa: F401
from hccl.manage.api import get_rank_size
from hccl.manage.api import get_local_rank_size
from hccl.manage.api import get_rank_id
from hccl.manage.api import get_local_rank_id
from hccl.manage.api import get_world_rank_from_group_rank  # noqa: F401
from hccl.manage.api import get_group_rank_from_world_rank  # noqa: F401
from hccl.split.api import set_split_strategy_by_idx  # noqa: F401
from hccl.split.api import set_split_strategy_by_size  # noqa: F401


class _KerasBackend(_types.ModuleType):
    """`tf.compat.v1.keras.backend`, loaded on first use (as TensorFlow's own LazyLoader):
    loading the v1 Keras API costs ~12 ms, which a script that uses no Keras does not pay."""

    def __getattr__(self, name):
        real = tf.compat.v1.keras.backend
        globals()["backend"] = real
        self.__dict__.update(real.__dict__)
        return getattr(real, name)

    def __dir__(self):
        return dir(tf.compat.v1.keras.backend)


backend = _KerasBackend("backend")

# The grappler switches the real module publishes for scripts that turn them back on.
experimental_options = {
    "disable_model_pruning": False,
    "function_optimization": RewriterConfig.ON,
    "constant_folding": RewriterConfig.ON,
    "shape_optimization": RewriterConfig.ON,
    "arithmetic_optimization": RewriterConfig.ON,
    "loop_optimization": RewriterConfig.ON,
    "dependency_optimization": RewriterConfig.ON,
    "layout_optimizer": RewriterConfig.ON,
}


def npu_hooks_append(hooks_list=()):
    """`hooks_list` (a new list if it is not a list) with an NPUBroadcastGlobalVariablesHook
    from rank 0 appended (this process's rank from $RANK_ID, default 0). Returns the list."""
    if not isinstance(hooks_list, list):
        hooks_list = []
    hooks_list.append(NPUBroadcastGlobalVariablesHook(0, int(os.getenv("RANK_ID", "0"))))
    return hooks_list


def npu_callbacks_append(callbacks_list=()):
    """`callbacks_list` (a new list if it is not a list) with a Keras
    NPUBroadcastGlobalVariablesCallback from rank 0 appended. Returns the list."""
    if not isinstance(callbacks_list, list):
        callbacks_list = []
    callbacks_list.append(NPUBroadcastGlobalVariablesCallback(0))
    return callbacks_list


def npu_config_proto(config_proto=None):
    """`config_proto` (a new ConfigProto if it is not one) edited in place with the NPU
    session settings (NpuOptimizer added if missing, soft placement, remapping and XLA off;
    see `_session_patch.apply_npu_session_defaults`). Returns it."""
    if not isinstance(config_proto, config_pb2.ConfigProto):
        config_proto = config_pb2.ConfigProto()
    return _session_patch.apply_npu_session_defaults(config_proto)


def npu_graph_options(graph_options=None):
    """`graph_options` (a new GraphOptions if it is not one) with XLA jit off. Returns it."""
    if not isinstance(graph_options, config_pb2.GraphOptions):
        graph_options = config_pb2.GraphOptions()
    graph_options.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return graph_options


def npu_optimizer_options(optimizer_options=None):
    """`optimizer_options` (a new OptimizerOptions if it is not one) with XLA jit off."""
    if not isinstance(optimizer_options, config_pb2.OptimizerOptions):
        optimizer_options = config_pb2.OptimizerOptions()
    optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return optimizer_options


def npu_run_config_init(run_config=None):
    """`run_config` (any tf.estimator.RunConfig, TPU RunConfig included; a new RunConfig if it
    is not one) with its session_config replaced by `npu_config_proto(session_config)`.
    Edits and returns the same object, as the real function."""
    if not isinstance(run_config, tf.estimator.RunConfig):
        run_config = tf.estimator.RunConfig()
    # RunConfig has no setter for session_config; the real adapter writes the slot directly.
    run_config.__dict__["_session_config"] = npu_config_proto(run_config.session_config)
    return run_config


def npu_session_config_init(session_config=None):
    """`session_config` (a new ConfigProto if it is not one) with the NPU session settings."""
    return npu_config_proto(session_config)


def set_keras_session_npu_config(config=None):
    """Create a Session with the NPU settings of `config`, make it Keras's session, return it."""
    sess = session.Session(config=npu_config_proto(config))
    backend.set_session(sess)
    return sess


def init_resource(config=None):
    """Open the NPU: a Session with the NPU settings of `config` (edited in place, as the real
    one) that has run the system-initialize op; the rank getters' values are stored in
    `util`'s process store.

    Returns:
      (sess, npu_shutdown): the session and the shutdown op for `shutdown_resource`.
    Raises:
      npu_bridge.ge.NpuConfigError: the configuration has errors.
    """
    config = npu_config_proto(config)
    util.global_dict_init()
    npu_init = npu_ops.initialize_system()
    npu_shutdown = npu_ops.shutdown_system()
    sess = session.Session(config=config)
    sess.run(npu_init)
    util.set_value("npu_rank_id", get_rank_id())
    util.set_value("npu_local_rank_id", get_local_rank_id())
    util.set_value("npu_rank_size", get_rank_size())
    util.set_value("npu_local_rank_size", get_local_rank_size())
    return sess, npu_shutdown


def shutdown_resource(sess, npu_shutdown):
    """Run the shutdown op `init_resource` returned."""
    sess.run(npu_shutdown)


def close_session(sess):
    """Close `sess`."""
    sess.close()


def get_npu_rank_id():
    """This process's rank as stored by `init_resource` (0 before it ran)."""
    return util.get_value("npu_rank_id", 0)


def get_npu_local_rank_id():
    """This process's rank on its server as stored by `init_resource` (0 before it ran)."""
    return util.get_value("npu_local_rank_id", 0)


def get_npu_rank_size():
    """The job's rank count as stored by `init_resource` (1 before it ran)."""
    return util.get_value("npu_rank_size", 1)


def get_npu_local_rank_size():
    """The rank count on this server as stored by `init_resource` (1 before it ran)."""
    return util.get_value("npu_local_rank_size", 1)


class NpuEmptyHook(session_run_hook.SessionRunHook):
    """A hook that does nothing (the migration tool puts it where a hook list must not be
    empty)."""


def npu_keras_optimizer(opt):
    """`opt` (a Keras optimizer) wrapped in KerasDistributeOptimizer."""
    return KerasDistributeOptimizer(opt)


def npu_tf_optimizer(opt):
    """`opt` (a tf.compat.v1.train.Optimizer) wrapped in NPUDistributedOptimizer."""
    return NPUDistributedOptimizer(opt)


def npu_clear_session(config=None):
    """Reset Keras's graph and give it a new Session with the NPU settings of `config`."""
    backend.clear_session()
    backend.set_session(session.Session(config=npu_config_proto(config)))


_session_patch.patch()
