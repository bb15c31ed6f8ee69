"""The config-class schema lint reads: each class's argument prefix in the catalog and its
positional signature, the plugin function, and the adapter's custom optimizer names.
(Kept in one module so that a shared schema can replace these tables in one place.)"""
from npu_bridge.ge import plugin_args as _plugin_args

# Config class -> the prefix its arguments carry in the catalog's `runconfig_arg` column.
CONFIG_CLASSES = {
    "NPURunConfig": "",
    "MemoryConfig": "memory_config.",
    "DumpConfig": "dump_config.",
    "ProfilingConfig": "profiling_config.",
    "ExperimentalConfig": "experimental_config.",
    "GraphMemoryOptimizeConfig": "experimental_config.graph_memory_optimize_config.",
    "DynamicInputConfig": "dynamic_input_config.",
}

# Positional parameters of each config class, in order: the signatures of the real adapter's
# classes (reference npu_options.json `classes`), so `MemoryConfig(0, 2)` maps like keywords.
# tests/test_lint.py checks this table against `inspect.signature` of npu_config's classes
# (lint itself never imports TensorFlow).
CONFIG_SIGNATURES = {
    "NPURunConfig": (
        "iterations_per_loop", "profiling_config", "model_dir", "tf_random_seed",
        "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
        "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
        "log_step_count_steps", "distribute", "enable_data_pre_proc", "precision_mode",
        "enable_reduce_precision", "variable_format_optimize", "mix_compile_mode",
        "hcom_parallel", "graph_memory_max_size", "variable_memory_max_size", "dump_config",
        "stream_max_parallel_num", "is_tailing_optimization", "horovod_mode",
        "graph_run_mode", "op_debug_level", "enable_scope_fusion_passes",
        "enable_exception_dump", "op_select_implmode", "optypelist_for_implmode",
        "dynamic_input_config", "aoe_mode", "work_path", "buffer_optimize",
        "enable_small_channel", "fusion_switch_file", "enable_compress_weight",
        "compress_weight_conf", "op_compiler_cache_mode", "op_compiler_cache_dir",
        "debug_dir", "hcom_multi_mode", "dynamic_input", "dynamic_graph_execute_mode",
        "dynamic_inputs_shape_range", "train_distribute", "eval_distribute", "local_rank_id",
        "local_device_list", "session_device_id", "distribute_config", "modify_mixlist",
        "op_precision_mode", "device_type", "soc_config", "hccl_timeout", "op_wait_timeout",
        "op_execute_timeout", "HCCL_algorithm", "customize_dtypes", "op_debug_config",
        "memory_config", "experimental_config", "topo_sorting_mode", "aoe_config_file",
        "insert_op_file", "stream_sync_timeout", "event_sync_timeout", "external_weight",
        "deterministic", "frozen_variable", "variable_placement", "jit_compile",
        "precision_mode_v2", "ac_parallel_enable", "quant_dumpable", "input_fusion_size",
        "compile_dynamic_mode", "graph_max_parallel_model_num", "export_compile_stat",
        "aicore_num", "oo_constant_folding", "input_batch_cpy", "shape_generalization_mode",
        "all_tensor_not_empty", "auto_multistream_parallel_mode", "oo_level",
        "optimization_switch",
    ),
    "MemoryConfig": (
        "atomic_clean_policy", "static_memory_policy", "memory_optimization_policy",
        "variable_use_1g_huge_page",
    ),
    "DumpConfig": (
        "enable_dump", "dump_path", "dump_step", "dump_mode", "enable_dump_debug",
        "dump_debug_mode", "dump_data", "dump_layer",
    ),
    "ProfilingConfig": (
        "enable_profiling", "profiling_options",
    ),
    "ExperimentalConfig": (
        "logical_device_cluster_deploy_mode", "logical_device_id", "model_deploy_mode",
        "model_deploy_devicelist", "graph_memory_optimize_config", "enable_graph_parallel",
        "graph_parallel_option_path", "graph_compiler_cache_dir", "resource_config_path",
        "accelerate_train_mode",
    ),
    "GraphMemoryOptimizeConfig": (
        "recompute", "graph_slice",
    ),
    "DynamicInputConfig": (
        "input_shape", "dynamic_dims", "dynamic_node_type", "compile_hybrid_mode",
    ),
}

# `npu_plugin.npu_resource_init(...)` is checked as a config class is (one group of its own,
# NBL012 for an unknown argument), with the checks the function itself makes (`_plugin_args`).
PLUGIN_FUNCTION = _plugin_args.OWNER
# The names lint follows as config callables (imports, aliases, calls).
_CALLABLES = frozenset(CONFIG_CLASSES) | {PLUGIN_FUNCTION}

_CUSTOM_OPTIMIZERS = "custom_optimizers"
_CUSTOM_GRAPH_OPTIMIZER = "CustomGraphOptimizer"   # RewriterConfig.CustomGraphOptimizer(...)
_NPU_OPTIMIZER = "NpuOptimizer"   # the only custom optimizer name the real adapter reads
