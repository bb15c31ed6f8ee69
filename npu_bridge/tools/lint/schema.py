"""What lint follows as config callables (the config classes of `npu_bridge.ge.config_schema`
and the plugin function) and the adapter's custom optimizer names."""
from npu_bridge.ge import plugin_args as _plugin_args
from npu_bridge.ge.config_schema import BY_NAME as _CLASSES

# `npu_plugin.npu_resource_init(...)` is checked as a config class is (one group of its own,
# NBL012 for an unknown argument), with the checks the function itself makes (`_plugin_args`).
PLUGIN_FUNCTION = _plugin_args.OWNER
# The names lint follows as config callables (imports, aliases, calls).
_CALLABLES = frozenset(_CLASSES) | {PLUGIN_FUNCTION}

_CUSTOM_OPTIMIZERS = "custom_optimizers"
_CUSTOM_GRAPH_OPTIMIZER = "CustomGraphOptimizer"   # RewriterConfig.CustomGraphOptimizer(...)
_NPU_OPTIMIZER = "NpuOptimizer"   # the only custom optimizer name the real adapter reads
