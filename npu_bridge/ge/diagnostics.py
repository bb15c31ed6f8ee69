"""Diagnostics: the `Diagnostic` record, `NpuConfigError`, and every code the resolver emits.

`E10001` is GE's own code for an invalid option value (parameter, value, reason). The
`NPBxxx` codes are this project's own checks; they are stable (never renumbered) and listed
in `docs/diagnostics.md`, which `tools/gen_catalog_doc.py` generates from `CODES`.
`NBLxxx` are `npu-bridge lint`'s own codes (the file, protobuf and Python's own errors).
"""
import re
from types import MappingProxyType
from typing import Any, NamedTuple

SEVERITIES = ("error", "warning", "info")
SHOWN_PER_CODE = 5   # repeated diagnostics of one code shown in a message (all are kept)


class Diagnostic(NamedTuple):
    """One finding (an immutable record; a named tuple, as it is built for every deprecated or
    invalid entry of every resolution, and a tuple is built in under half a frozen
    dataclass's time). Being a tuple, it unpacks, compares equal to a plain tuple of the same
    fields and `json.dumps` writes it as a list: use `to_dict()` for JSON.

    code: `E10001` or `NPBxxx` (see `CODES`); severity: "error" | "warning" | "info";
    option: the name the user wrote (parameter_map key, GE key, ir_option name, config class
    or environment variable); value: the offending value (None when not about one value);
    message: one self-contained sentence or two, naming the option, the value, what is
    allowed and where the rule comes from.
    """
    code: str
    severity: str
    option: str
    value: Any
    message: str

    def to_dict(self):
        return {"code": self.code, "severity": self.severity, "option": self.option,
                "value": self.value, "message": self.message}

    def __str__(self):
        return "%s %s [%s]: %s" % (self.severity, self.code, self.option, self.message)


class NpuConfigError(ValueError):
    """The configuration has errors. `.diagnostics` holds every diagnostic of the failed
    resolution (errors, warnings and infos), not only the first error; `.ge_options` the
    partial `GeOptions` (may be None)."""

    def __init__(self, diagnostics, ge_options=None):
        self.diagnostics = list(diagnostics)
        self.ge_options = ge_options
        errors = [d for d in self.diagnostics if d.severity == "error"]
        lines = ["%d NPU configuration error(s):" % len(errors)]
        shown, more = {}, {}
        for d in errors:   # at most SHOWN_PER_CODE of one code; `.diagnostics` keeps all
            if shown.get(d.code, 0) >= SHOWN_PER_CODE:
                more[d.code] = more.get(d.code, 0) + 1
            else:
                shown[d.code] = shown.get(d.code, 0) + 1
                lines.append("  " + str(d))
        lines += ["  ... and %d more of %s (all in .diagnostics)" % (n, code)
                  for code, n in more.items()]
        super().__init__("\n".join(lines))


# The seeds are copies of vendor documentation pages; a source names the page and keeps the
# seed file name in parentheses (a user's clone has the vendor docs, not the seed files).
SEED_PAGES = MappingProxyType({
    "ge_memory_options_zh.txt": "GE options: memory management (zh)",
    "ir_memory_options_en.txt": "ir_option: memory management",
    "memoryconfig_constructor_zh.txt": "MemoryConfig constructor (zh)",
})
_SEED_RE = re.compile(r"(?<![(\w])seed[: ](%s)" % "|".join(re.escape(n) for n in SEED_PAGES))


def cite(text):
    """Name the vendor page of each seed cited in `text`: `seed:x.txt` or `seed x.txt` becomes
    `vendor page '<title>' (seed:x.txt)` (already wrapped citations are left alone)."""
    if "seed" not in text:
        return text
    return _SEED_RE.sub(lambda m: "vendor page '%s' (seed:%s)" % (SEED_PAGES[m.group(1)],
                                                                   m.group(1)), text)


# code -> (default severity, title, source of the rule)
CODES = MappingProxyType({
    "E10001": ("error", "invalid option value (GE's code: parameter, value, reason)",
               "GE; allowed values from the catalog row's source"),
    "NPB100": ("error", "unknown parameter_map key (the real adapter silently ignores it)",
               "reference usage_census.md mistakes table; catalog: docs/options.md (the parameter_map keys)"),
    "NPB101": ("error", "value set in an AttrValue field the adapter does not read (the value is lost)",
               "reference npu_options.json field; catalog: docs/options.md (field column)"),
    "NPB102": ("warning", "value in the field older adapter releases read; accepted and converted",
               "reference usage_census.md (jit_compile .b)"),
    "NPB103": ("warning", "legacy value: accepted by the adapter/GE although the docs omit it",
               "seeds (static_memory_policy 1 runs as 2); reference option_values.json checked_by_adapter"),
    "NPB104": ("warning", "value out of range: clamped to the bound, as the real adapter does",
               "seed ge_memory_options_zh.txt (input_fusion_size); option_values.json"),
    "NPB105": ("info", "deprecated option", "vendor docs deprecated_options.md"),
    "NPB106": ("warning", "several NpuOptimizer custom optimizers: a later one overrode (or reset to "
               "its default) a key an earlier one set to another value; the real adapter reads "
               "them all in order",
               "hicann/tensorflow tf_adapter/util/npu_attrs.cc (NpuAttrs::SetNpuOptimizerAttr, "
               "NpuAttrs::GetPassOptions: loop over custom_optimizers without a break); catalog "
               "column merge_reset: docs/options.md 'Several NpuOptimizer custom optimizers'"),
    "NPB107": ("warning", "custom optimizer named like but not exactly NpuOptimizer: the real "
               "adapter ignores it (did you mean 'NpuOptimizer'?)",
               "hicann/tensorflow tf_adapter/util/npu_attrs.cc (name() == \"NpuOptimizer\")"),
    "NPB108": ("warning", "argument or parameter_map key of an older adapter release (not of the "
               "current one): accepted; the message says what the current adapter does with it "
               "(ignored, or where the setting moved) and what the older NPUEstimator wrote",
               "the legacy table npu_bridge/ge/legacy.py (Ascend/tensorflow release branches "
               "r1.1.1..r3.2.0, hicann/tensorflow docs); docs/options.md 'Spellings of older "
               "adapter releases'"),
    "NPB110": ("info", "no target product: product rules skipped",
               "docs/reference.md 'Products' / docs/options.md Products (product=, soc_config, "
               "NPU_BRIDGE_PRODUCT)"),
    "NPB111": ("error", "unknown product id or SoC name",
               "docs/reference.md 'Products' / docs/options.md Products"),
    "NPB115": ("warning", "explicit target product (product=, forced_product(), --product) and the "
               "soc_config SoC name disagree; the explicit one wins",
               "target precedence: docs/reference.md 'Products' / docs/options.md Products"),
    "NPB117": ("warning", "$NPU_BRIDGE_PRODUCT names no known product, and is not used: "
               "product= / --product or soc_config wins",
               "target precedence: docs/reference.md 'Products' / docs/options.md Products"),
    "NPB116": ("info", "no custom optimizer named exactly NpuOptimizer in the ConfigProto: GE "
               "gets the adapter defaults only",
               "hicann/tensorflow tf_adapter/util/npu_attrs.cc (name() == \"NpuOptimizer\")"),
    "NPB112": ("error", "option not supported on the target product (error where the seeds say so, "
               "else warning)", "seeds; vendor docs product lists"),
    "NPB113": ("warning", "value not supported on the target product (an error where GE refuses "
               "it: the bfloat16 precision modes on a SoC without bfloat16)",
               "vendor docs per-value product lists; hicann/ge fe_context_utils.cc "
               "(GetPrecisionMode: 'Current soc not support dtype of BFloat16')"),
    "NPB114": ("error", "config class not supported on the target product",
               "seed memoryconfig_constructor_zh.txt product table"),
    "NPB120": ("error", "static_memory_policy 2 or 4 with concurrently executing graphs "
               "(graph_max_parallel_model_num > 1)", "seed memoryconfig_constructor_zh.txt"),
    "NPB121": ("warning", "GE_USE_STATIC_MEMORY set together with static_memory_policy; merged",
               "reference README (GE merge rule); vendor docs"),
    "NPB122": ("info", "input_fusion_size only acts on static-shape graphs run asynchronously",
               "seed ge_memory_options_zh.txt"),
    "NPB123": ("error", "two graphs of one process executed concurrently under static_memory_policy "
               "2 or 4 (raised at run time by the Session patch, recorded on the session's "
               "configuration; runs of QueueRunner ops, the host input pipeline, are exempt)",
               "seed memoryconfig_constructor_zh.txt"),
    "NPB124": ("warning", "training steps of a train() call not a multiple of iterations_per_loop "
               "(on the NPU every loop runs iterations_per_loop steps; raised at run time by "
               "NPUEstimator)", "reference option_values.json (iterations_per_loop notes); vendor "
               "docs npu_config/npurunconfig_constructor/performance_tuning.md"),
    "NPB125": ("error", "util.set_iteration_per_loop (or IterationPerLoop.load_iteration_per_loop_var) "
               "given another value than the session configuration's parameter_map "
               "iterations_per_loop: an error when that is 1 (set or unset: adapter default 1), "
               "where the NPU would not loop at all; a warning when both are above 1 (the NPU "
               "loops the value given to the call) or the call gives 1 (raised at run time, "
               "recorded on the session's configuration)",
               "reference option_values.json (iterations_per_loop notes); vendor docs "
               "apiref/session_config/performance_tuning.md and apiref/npu_util/"
               "set_iteration_per_loop.md; hicann/tensorflow tf_adapter/kernels/geop_npu.cc "
               "(the value only switches the device loop on, when > 1)"),
    "NPB126": ("warning", "a session's global (GEInitialize) options ignored: GE is initialized "
               "once per process while NPU sessions are open, by the first (recorded at "
               "session creation by the Session patch); options the session also sends to "
               "ge::Session apply to it and are not reported", "hicann/tensorflow "
               "tf_adapter/util/ge_plugin.cc GePlugin::Init; tf_adapter/kernels/geop_npu.cc "
               "GeOp::Finalize, GeOp::Initialize (ge::Session gets NpuAttrs::GetSessOptions)"),
    "NPB130": ("error", "GE option given at a level GE does not accept it at",
               "seeds (生效级别), else reference ge_option_scopes.json"),
    "NPB131": ("warning", "reuse index at or beyond the graph's input/output count: dropped",
               "seed ge_memory_options_zh.txt"),
    "NPB132": ("info", "reused graph inputs/outputs must be 32-byte aligned",
               "seed ge_memory_options_zh.txt"),
    "NPB133": ("error", "ge.externalWeightDir without external weights on",
               "seed ge_memory_options_zh.txt"),
    "NPB134": ("info", "directory external weight files are written to",
               "seed ge_memory_options_zh.txt (precedence rule)"),
    "NPB135": ("warning", "unknown GE option key or ir_option name", "reference ge_option_scopes.json"),
    "NPB136": ("error", "unsafe directory for files GE writes (ge.externalWeightDir, ASCEND_WORK_PATH): "
               "a '..' component, a symbolic link, an existing non-directory, NUL or line break",
               "project rule (npu_bridge/ge/paths.py); seed ge_memory_options_zh.txt for the directory"),
    "NPB140": ("error", "graph_memory_max_size + variable_memory_max_size exceed the product's "
               "on-chip memory (a warning where the product's figure has low confidence)",
               "GE's defaults and budget check (hicann/ge base/graph/manager/graph_var_manager.h, "
               "graph_mem_assigner.cc); figures: npu_bridge/ge/products.py, each with its "
               "confidence and source (vendor platform configs, reference ge_memory.md)"),
    "NPB145": ("info", "the memory-size rule (NPB140) skipped: no on-chip memory figure is known "
               "for the target product", "project rule; figures: npu_bridge/ge/products.py"),
    "NPB141": ("error", "mix_compile_mode needs iterations_per_loop == 1",
               "vendor docs mixed_computing / NPURunConfig"),
    "NPB142": ("error", "mutually exclusive options set together (error where the real adapter "
               "rejects it; warning where only the docs say so)",
               "reference option_values.json checked_by_adapter; rules: docs/options.md "
               "'Cross-option rules'"),
    "NPB143": ("error", "option needs another option the configuration lacks (error where the real "
               "adapter rejects it; warning where only the docs say so)",
               "reference option_values.json checked_by_adapter; rules: docs/options.md "
               "'Cross-option rules'"),
    "NPB144": ("warning", "directory the real adapter requires to exist and be writable "
               "(dump_path, work_path) is not one here; checked on the machine running the script",
               "reference option_values.json checked_by_adapter (dump_path, work_path)"),
    "NPB150": ("warning", "GE_USE_STATIC_MEMORY holds an invalid value", "reference README"),
    "NPB160": ("error", "config-class argument of a type the real NPUEstimator cannot write "
               "(raised by the constructor as NpuArgumentError)",
               "hicann/tensorflow npu_config.py / npu_estimator.py; catalog field column"),
    "NPB161": ("error", "one of the real NPURunConfig's own Python checks (ps mode: TF_CONFIG "
               "cluster, ParameterServerStrategy, mix_compile_mode)",
               "hicann/tensorflow npu_config.py"),
    "NPB162": ("warning", "bool config-class argument given an int other than 0 and 1 (e.g. "
               "external_weight=2): the real NPUEstimator writes it to an AttrValue .b field, "
               "where protobuf stores True, so GE gets the 'on' value; where the GE key itself "
               "takes that number (ge.externalWeight 2), the message says to set the GE key "
               "directly",
               "hicann/tensorflow npu_estimator.py (parameter_map[KEY].b = value); catalog "
               "field column; GE values: the GE key's catalog row (seed "
               "ge_memory_options_zh.txt for ge.externalWeight)"),
    # npu-bridge lint's own codes: about the file, and about what protobuf or Python itself
    # raises when the script runs (found without running it).
    "NBL001": ("error", "the file does not parse", "project rule (npu-bridge lint)"),
    "NBL002": ("warning", "the file is larger than the size limit and was not checked",
               "project rule (npu-bridge lint --max-bytes)"),
    "NBL003": ("error", "the file cannot be read", "project rule (npu-bridge lint)"),
    "NBL010": ("error", "AttrValue has no such field (AttributeError at run time)",
               "tensorflow core/framework/attr_value.proto (AttrValue's fields)"),
    "NBL011": ("error", "the literal does not fit the AttrValue field (protobuf's "
               "TypeError/ValueError)", "tensorflow core/framework/attr_value.proto (field "
               "types: s bytes, i int64, f float, b bool), checked by protobuf's Python "
               "runtime"),
    "NBL012": ("error", "config class (or npu_resource_init) called with an argument it does "
               "not have (TypeError at run time)", "hicann/tensorflow npu_config.py, "
               "npu_plugin.py signatures (reference npu_options.json classes)"),
    # NPU-only failures found from the captured graphs (npu_bridge/ge/npu_failures.py,
    # reference npu_failure_cases.md rows 1-7 and 12; docs/memory.md)
    "NPB170": ("error", "V1 control flow (Switch/Merge/Enter/Exit/NextIteration) in a graph the "
               "NPU runs as dynamic shape: refused as 'v1 control operator'",
               "hicann/tensorflow faq dynamic_shape_v1_control_unsupported_error.md"),
    "NPB171": ("warning", "many V1 control-flow branches in a static graph: memory grows past "
               "the device", "hicann/tensorflow faq v1_control_ops_out_of_memory.md"),
    "NPB172": ("warning", "iterations_per_loop > 1 with a one-shot iterator or with "
               "enable_data_pre_proc off: the loop is not offloaded",
               "vendor migration guide, iterations_per_loop restrictions"),
    "NPB173": ("error", "a batch of non-static size in a training graph sunk with "
               "iterations_per_loop > 1", "vendor migration guide (dataset, dynamic shape)"),
    "NPB174": ("warning", "iterator initializer run together with the variable initializers: "
               "variables stay 0 on the NPU",
               "hicann/tensorflow faq variable_preprocess_init_subgraph_error_fix.md"),
    "NPB175": ("error", "lookup table read by the input pipeline without mix_compile_mode: "
               "'Table not initialized'",
               "hicann/tensorflow faq resource_operator_preprocess_fix.md"),
    "NPB176": ("error", "loss-scale manager created inside tf.control_dependencies: "
               "'Placeholder not support'",
               "hicann/tensorflow faq npu_loss_scale_optimizer_faq.md"),
    "NPB177": ("error", "graph does not fit the device: feature map + variables above the "
               "budget (GE: ACL_ERROR_GE_MEMORY_ALLOCATION)",
               "GE graph_mem_assigner.cc ReAssignMemory via reference ge_memory.md"),
    "NPB178": ("warning", "a session's graphs fit one by one but not together under "
               "static_memory_policy 0 (policy 2 needs only the largest)",
               "seed ge_memory_options_zh.txt (ge.exec.staticMemoryPolicy)"),
    # precision emulation (npu-bridge run --precision emulate; docs/precision.md)
    "NPB180": ("warning", "under the emulated NPU precision a fetched loss became non-finite; "
               "the first op whose float32 output was finite but beyond the low-precision "
               "range is named (the NPU's overflow dump answers this on the device)",
               "hicann/tensorflow accuracy_tuning.md (precision_mode), set_device_sat_mode.md; "
               "docs/precision.md"),
    "NPB181": ("error", "modify_mixlist file unreadable, not JSON, or with sections/actions "
               "the vendor doc does not have",
               "hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/accuracy_tuning.md "
               "(modify_mixlist)"),
    # the partition of each graph into GeOps and host ops (npu_bridge/ge/partition.py,
    # docs/partition.md): hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc
    "NPB190": ("warning", "a dataset yields strings while enable_data_pre_proc is off (the "
               "adapter's warning)", "hicann/tensorflow om_partition_subgraphs_pass.cc:2276-2283"),
    "NPB191": ("error", "in_out_pair set without mix_compile_mode: the adapter fails the graph",
               "hicann/tensorflow om_partition_subgraphs_pass.cc:1063-1066"),
    "NPB192": ("error", "in_out_pair invalid, or an op on its paths not supported: the adapter "
               "fails the graph", "hicann/tensorflow om_partition_subgraphs_pass.cc:531-590"),
    "NPB193": ("error", "a Ref / resource tensor would cross between a GeOp and the host (or "
               "the graph has a cycle): the adapter fails the graph",
               "hicann/tensorflow om_partition_subgraphs_pass.cc:1097-1118, :1913-1944, "
               ":2546-2555"),
    "NPB195": ("error", "dynamic input in lazy_recompile mode with iterations_per_loop > 1",
               "hicann/tensorflow om_partition_subgraphs_pass.cc:2481-2485"),
    "NPB197": ("warning", "compilable ops run on the host: full offload keeps one GeOp, "
               "and a host op separates a cluster from it",
               "hicann/tensorflow om_partition_subgraphs_pass.cc:932-980, :1348-1354"),
    "NPB198": ("warning", "iterations_per_loop > 1 with host ops exchanging tensors with the GeOp "
               "that holds IterationOp: the device loops N times per Session.run, the host ops "
               "run once", "hicann/tensorflow tf_adapter/kernels/geop_npu.cc:1148-1150, "
               ":1248-1250, :1545-1548"),
})
CODES = MappingProxyType({code: (sev, title, cite(source))
                          for code, (sev, title, source) in CODES.items()})

# Codes about a choice, reported only for an option the user set: never for a default a
# config class (NPURunConfig) or npu_resource_init writes itself (issue 17). The resolver
# drops them for the keys its input says the user did not set (`resolve(user_set=...)`),
# for `npu-bridge run` and `npu-bridge lint` alike.
USER_SET_ONLY = frozenset(("NPB105", "NPB122"))


def make(code, option, value, message, severity=None):
    """Build a Diagnostic with the code's default severity unless one is given; seed
    citations in the message name their vendor page (`cite`)."""
    if "seed" in message:
        message = cite(message)
    return Diagnostic(code, severity or CODES[code][0], option, value, message)
