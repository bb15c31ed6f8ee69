"""NPU resource control of the Ascend adapter (``npu_plugin``): checked, recorded, no device.

``npu_resource_init`` takes the real signature and defaults, runs the real argument checks,
and builds the same GEInitialize options the real one passes to the plugin (kept in
``last_init_options()``); there is no NPU to initialise, so nothing else happens.
``npu_resource_shutdown`` / ``npu_close`` are no-ops. The RDMA and shared-memory helpers need
device memory and raise ``NotImplementedError``. ``set_device_sat_mode`` records the float
overflow mode (0 saturation, 1 INF/NaN) that ``is_inf_nan_enabled`` reports.
"""
import os

import tensorflow as tf

_state = {"init_options": None, "sat_mode": None}

# GE option keys the real plugin module takes from the adapter library's constants.
_OP_DEBUG_LEVEL = "ge.opDebugLevel"
_SCOPE_FUSION_PASSES = "ge.exec.enableScopeFusionPasses"
_PROFILING_MODE = "ge.exec.profilingMode"
_PROFILING_OPTIONS = "ge.exec.profilingOptions"
_GRAPH_RUN_MODE = "ge.graphRunMode"


def _check_nonnegative_int(value, name):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError('"%s" type must be a non-negative int, got %r' % (name, value))


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise ValueError('"%s" type must be bool, got %r' % (name, value))


def npu_resource_init(graph_run_mode=1, op_debug_level=0, enable_profiling=False, profiling_options=None,
                      precision_mode=None, enable_scope_fusion_passes=None, enable_exception_dump=2,
                      aoe_mode=None, work_path=None, op_compiler_cache_mode=None, op_compiler_cache_dir=None,
                      debug_dir=None, hcom_multi_mode=False, distribute_config=None, aoe_config_file=None,
                      precision_mode_v2=None, export_compile_stat=1, aicore_num=None, oo_constant_folding=True,
                      input_batch_cpy=False, oo_level="O3", optimization_switch=None):
    """Check the arguments and build the GEInitialize options (returned as a dict of str).

    Raises ValueError as the real one: ``graph_run_mode`` not 0/1, negative or non-int
    ``op_debug_level`` / ``enable_exception_dump``, non-bool flags, profiling without options.
    """
    _check_nonnegative_int(graph_run_mode, "graph_run_mode")
    if graph_run_mode > 1:
        raise ValueError('"graph_run_mode" value must be 0 or 1')
    _check_nonnegative_int(enable_exception_dump, "enable_exception_dump")
    _check_nonnegative_int(op_debug_level, "op_debug_level")
    _check_bool(enable_profiling, "enable_profiling")
    _check_bool(hcom_multi_mode, "hcom_multi_mode")
    options = {_GRAPH_RUN_MODE: str(graph_run_mode), _OP_DEBUG_LEVEL: str(op_debug_level),
               _PROFILING_MODE: str(int(enable_profiling))}
    if enable_profiling:
        if profiling_options is None:
            raise ValueError("profiling_options must be set when use profiling")
        options[_PROFILING_OPTIONS] = str(profiling_options)
    if precision_mode is not None:
        options["ge.exec.precision_mode"] = str(precision_mode)
    if precision_mode_v2 is not None:
        options["ge.exec.precision_mode_v2"] = str(precision_mode_v2)
    if enable_scope_fusion_passes is not None:
        options[_SCOPE_FUSION_PASSES] = str(enable_scope_fusion_passes)
    options["ge.exec.enable_exception_dump"] = str(enable_exception_dump)
    if aoe_mode is not None:
        options["ge.jobType"] = str(aoe_mode)
        options["ge.tuningPath"] = os.path.realpath(work_path if work_path is not None else "./")
        if distribute_config is not None:
            options["distribute_config"] = str(distribute_config)
    if op_compiler_cache_mode is not None:
        options["ge.op_compiler_cache_mode"] = op_compiler_cache_mode
    if op_compiler_cache_dir is not None:
        options["ge.op_compiler_cache_dir"] = op_compiler_cache_dir
    if debug_dir is not None:
        options["ge.debugDir"] = debug_dir
    options["ge.hcomMultiMode"] = str(int(hcom_multi_mode))
    options["ge.aoe_config_file"] = str(aoe_config_file)
    if export_compile_stat is not None:
        options["ge.exportCompileStat"] = str(export_compile_stat)
    if aicore_num is not None:
        options["ge.aicoreNum"] = str(aicore_num)
    if oo_constant_folding is not None:
        _check_bool(oo_constant_folding, "oo_constant_folding")
        options["ge.oo.constantFolding"] = "true" if oo_constant_folding else "false"
    if input_batch_cpy is not None:
        _check_bool(input_batch_cpy, "input_batch_cpy")
        options["ge.inputBatchCpy"] = "true" if input_batch_cpy else "false"
    if oo_level is not None:
        options["ge.oo.level"] = str(oo_level)
    if optimization_switch is not None:
        options["ge.optimization_switch"] = str(optimization_switch)
    _state["init_options"] = dict(options)
    return options


def last_init_options():
    """The options of the last ``npu_resource_init`` call (dict) or None. Not in the real API."""
    return None if _state["init_options"] is None else dict(_state["init_options"])


def npu_resource_shutdown():
    """No NPU to release: a no-op."""


def npu_close():
    """No NPU to close: a no-op."""


def _device_memory(name):
    raise NotImplementedError("npu_plugin.%s manages NPU device or RDMA memory; a CPU run has none" % name)


def init_rdma_pool(mem_size):
    """Raises ValueError for a non-int size, then NotImplementedError (device memory)."""
    if not isinstance(mem_size, int):
        raise ValueError("{} should be int".format(mem_size))
    _device_memory("init_rdma_pool")


def rdma_remote_register(remote_var_list):
    """Raises NotImplementedError (RDMA)."""
    _device_memory("rdma_remote_register")


def rdma_remote_init(remote_var_list, mem_size):
    """Raises NotImplementedError (RDMA)."""
    _device_memory("rdma_remote_init")


def get_var_addr_and_size(var_name):
    """Raises NotImplementedError (device addresses)."""
    _device_memory("get_var_addr_and_size")


def malloc_shared_memory(var_name, shape, data_type):
    """Raises NotImplementedError (device shared memory)."""
    _device_memory("malloc_shared_memory")


def get_rdma_cache(data_type, shape, name="rdma_w"):
    """A zero-initialised variable ``name`` of ``shape``/``data_type`` tagged for host memory."""
    from npu_bridge.estimator.npu import npu_scope
    with npu_scope.npu_mem_type_scope():
        return tf.compat.v1.get_variable(name=name, shape=shape, dtype=data_type,
                                         initializer=tf.compat.v1.zeros_initializer())


def set_device_sat_mode(mode):
    """Record the overflow mode: 0 saturation, 1 INF/NaN. Raises ValueError otherwise."""
    if mode not in (0, 1) or isinstance(mode, bool):
        raise ValueError("device sat mode must be 0 (saturation) or 1 (INF/NaN), got %r" % (mode,))
    _state["sat_mode"] = mode


def is_inf_nan_enabled():
    """True when ``set_device_sat_mode(1)`` was called (INF/NaN mode)."""
    return _state["sat_mode"] == 1
