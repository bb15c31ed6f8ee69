"""The table of diagnostic codes (data; no TensorFlow): one `Code` row per code, its default
severity, title (docs/diagnostics.md), the source of its rule, and the one message template
every diagnostic of that code is built from (`npu_bridge.ge.diagnostics.make(code, option,
value, **fields)`). How to add a code: docs/INTERFACES.md "Diagnostics".

Templates are `str.format` strings over the fields the code's callers pass, plus `option`,
`value` (the Diagnostic's own) and `source` (the row's source, seed pages named). Each row has
three: the full message (JSON, SARIF, GitHub), the short line and the fix line of the `text`
outputs (issue 28). `E10001` is
GE's own code for an invalid value; `NPBxxx` this project's checks (stable, never
renumbered); `NBLxxx` `npu-bridge lint`'s own (about the file, and what protobuf or Python
would raise).
"""
from types import MappingProxyType
from typing import NamedTuple


class Code(NamedTuple):
    """One code.

    Attributes:
      severity: the default severity, "error" | "warning" | "info" (a call may give another
        where the rule's row says so: a catalog row's product_severity, a figure of low
        confidence).
      title: one line, the docs' description of the code.
      source: where the rule comes from (seed pages cited by `diagnostics.cite`).
      template: the full message, `str.format` over the fields (see the module doc): what
        the JSON, SARIF and GitHub outputs carry, provenance included.
      short: the line the `text` outputs print: at most `diagnostics.SHORT_LIMIT` (120)
        characters once filled, no provenance, sizes in KiB/MiB/GiB (`{x:size}`); fields
        marked `{x:cut}` are shortened to fit (`diagnostics.fill`).
      fix: what to write instead, printed as an indented `fix:` line under the finding (the
        exact `parameter_map[...]` or argument spelling where there is one); "" when no fix
        exists. Left out when a field it names is not given (or None, or empty).
      arg_fix: the fix spelled as a config-class argument (`{option:owner}` the class,
        `{option:arg}` the argument: ``MemoryConfig(static_memory_policy=2)``), for an option
        the user set through one (`diagnostics.as_argument`); "" when `fix` already fits.
        A fix shows one spelling, the one the user wrote, never both.
      severity_note: when a finding has another severity than the default (the calls that
        give one), as `explain` and docs/diagnostics.md say it; "" when it never does.
      cite: where this diagnostic's rule comes from (`--show-source`, `explain`), a template
        over the same fields; "" means the call's `where` (or `source`) field, else `source`.
    """
    severity: str
    title: str
    source: str
    template: str
    short: str = ""
    fix: str = ""
    cite: str = ""
    arg_fix: str = ""
    severity_note: str = ""


_MIGRATION_FAQ = "hicann/tensorflow docs/en/tfadapter_1/migration/faq/"
_PASS = "hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc"
CODES = MappingProxyType({
    "E10001": Code(
        "error", "invalid option value (GE's code: parameter, value, reason)",
        "GE; allowed values from the catalog row's source",
        "invalid value for {option}: {shown} ({reason}); allowed: {allowed}; source: {where}",
        short="invalid {option}={shown:cut} ({reason:cut}); allowed: {allowed:trim}",
        fix='parameter_map["{option}"].{option:field} = {suggestion:lit}',
        arg_fix="{option:owner}({option:arg}={suggestion!r})"),
    "NPB100": Code(
        "error", "unknown parameter_map key (the real adapter silently ignores it)",
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 NpuAttrs::SetNpuOptimizerAttr (the "
        "parameter_map keys it reads); catalog: docs/options.md",
        "parameter_map key {key} {what}: the real adapter {effect}; source: the parameter_map "
        "keys the real adapter reads (hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 "
        "NpuAttrs::SetNpuOptimizerAttr; docs/options.md)",
        short="parameter_map key {key:cut} {what}: the real adapter {effect:cut}",
        fix='parameter_map["{suggestion}"].{suggestion:field} = {value:lit}'),
    "NPB101": Code(
        "error", "value set in an AttrValue field the adapter does not read (the value is lost "
        "or refused)",
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 NpuAttrs::SetNpuOptimizerAttr (the "
        "AttrValue field each key is read from; a field check refuses another, e.g. :2635); "
        "catalog: docs/options.md (field column)",
        "{option} is read from AttrValue field {want_name} but was set in {field_name}: the "
        "real adapter {effect}; set parameter_map[{option!r}].{want} (source: "
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 NpuAttrs::SetNpuOptimizerAttr "
        "reads each key from one field)",
        short="{option} was set in AttrValue field {field_name} but is read from {want_name}: "
              "{outcome}",
        fix='parameter_map["{option}"].{want} = {value:lit}'),
    "NPB102": Code(
        "error", "value in the field older adapter releases read; the current adapter does "
        "not read it there",
        "scripts written for older adapter releases (jit_compile .b); the current adapter reads "
        "it from .s only and refuses another field (hicann/tensorflow "
        "tf_adapter/util/npu_attrs.cc:2635)",
        "{option} set in AttrValue field {field_name}, as older adapter releases read it: the "
        "current one reads {want_name} and {effect}; set parameter_map[{option!r}].{want}",
        short="{option} set in AttrValue field {field_name}, as older adapters read it: "
              "{outcome}",
        fix='parameter_map["{option}"].{want} = b"{converted:cut}"'),
    "NPB103": Code(
        "warning", "legacy value: accepted by the adapter/GE although the docs omit it",
        "seed:memoryconfig_constructor_zh.txt (static_memory_policy 1 runs as 2); reference "
        "option_values.json checked_by_adapter (the values the adapter accepts)",
        "{option}={shown} is accepted but not documented: {note}; documented values: "
        "{allowed}; source: {where}",
        short="{option}={shown:cut} is accepted but not documented: {note:cut}; documented: "
              "{allowed:cut}",
        fix='parameter_map["{option}"].{option:field} = {runs_as}',
        arg_fix="{option:owner}({option:arg}={runs_as})"),
    "NPB104": Code(
        "warning", "value out of range: clamped to the bound, as the real adapter does",
        "seed:ge_memory_options_zh.txt (input_fusion_size); reference option_values.json "
        "checked_by_adapter (input_fusion_size)",
        "{option}={value} is outside {allowed}; clamped to {bound} {how}; source: {where}",
        short="{option}={value:cut} is outside {allowed:cut}; clamped to {bound} {how:cut}",
        fix='parameter_map["{option}"].{option:field} = {bound}',
        arg_fix="{option:owner}({option:arg}={bound})"),
    "NPB105": Code(
        "info", "deprecated option", "vendor docs deprecated_options.md",
        "{option} is deprecated{replacement}; source: {where}",
        short="{option} is deprecated{replacement:cut}"),
    "NPB106": Code(
        "warning", "several NpuOptimizer custom optimizers: a later one overrode (or reset to "
        "its default) a key an earlier one set to another value; the real adapter reads "
        "them all in order",
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc (NpuAttrs::SetNpuOptimizerAttr, "
        "NpuAttrs::GetPassOptions: loop over custom_optimizers without a break); catalog "
        "column merge_reset: docs/options.md 'Several NpuOptimizer custom optimizers'",
        "{count} NpuOptimizer custom optimizers: the real adapter reads them all in order, a "
        "later one overriding the keys it sets and resetting a few it lacks; values changed: "
        "{changes}. Keep one NpuOptimizer (NPUEstimator appends its own after those of "
        "session_config); source: hicann/tensorflow tf_adapter/util/npu_attrs.cc: "
        "NpuAttrs::SetNpuOptimizerAttr (GE and adapter options) and NpuAttrs::GetPassOptions "
        "loop over every custom optimizer without a break",
        short="{count} NpuOptimizer custom optimizers, read in order; values changed: "
              "{changes:cut}",
        fix="keep one custom optimizer named NpuOptimizer (NPUEstimator appends its own)"),
    "NPB107": Code(
        "warning", "custom optimizer named like but not exactly NpuOptimizer: the real "
        "adapter ignores it (did you mean 'NpuOptimizer'?)",
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc (name() == \"NpuOptimizer\")",
        "custom optimizer {value!r} is not named exactly 'NpuOptimizer': the real adapter "
        "ignores it and its parameter_map; did you mean 'NpuOptimizer'? (source: "
        "tf_adapter/util/npu_attrs.cc reads only custom optimizers whose name() == "
        "\"NpuOptimizer\")",
        short="custom optimizer {value!r:cut} is not named exactly 'NpuOptimizer': the real "
              "adapter ignores it",
        fix='custom_op.name = "NpuOptimizer"'),
    "NPB108": Code(
        "warning", "argument or parameter_map key of an older adapter release (not of the "
        "current one): accepted; the message says what the current adapter does with it "
        "(ignored, or where the setting moved) and what the older NPUEstimator wrote",
        "the legacy table npu_bridge/ge/legacy.py (Ascend/tensorflow release branches "
        "r1.1.1..r3.2.0, hicann/tensorflow docs); docs/options.md 'Spellings of older "
        "adapter releases'",
        "{spelling} is {what} of older adapter releases{note}: {effect}; accepted with this "
        "warning; source: {releases}",
        short="{spelling:cut} is {what:cut} of older adapter releases{note:trim}: {effect:trim}"),
    "NPB110": Code(
        "info", "no target product: product rules skipped",
        "docs/reference.md 'Products' / docs/options.md Products (product=, soc_config, "
        "NPU_BRIDGE_PRODUCT)",
        "no target product (product=, soc_config or ${env}): product rules skipped",
        short="no target product (product=, soc_config or ${env}): product rules skipped",
        fix='--product PRODUCT, $NPU_BRIDGE_PRODUCT or parameter_map["soc_config"].s'),
    "NPB111": Code(
        "error", "unknown product id or SoC name",
        "docs/reference.md 'Products' / docs/options.md Products",
        "unknown product {value!r} (from {where}); known product ids: {ids}; known SoC names: "
        "{socs} (docs/reference.md 'Products'; docs/options.md)",
        short="unknown product {value!r:cut} (from {where}); known: {known:cut}",
        fix="{fix}"),
    "NPB115": Code(
        "warning", "explicit target product (product=, forced_product(), --product) and the "
        "soc_config SoC name disagree; the explicit one wins",
        "target precedence: docs/reference.md 'Products' / docs/options.md Products",
        "the target product {product} ({where} {name}) and soc_config={value!r} "
        "({soc_product}) disagree; {where} wins; source: target precedence product= > "
        "soc_config > $NPU_BRIDGE_PRODUCT (docs/reference.md 'Products')",
        short="soc_config={value!r:cut} is a SoC of {soc_product}; the target product {product} "
              "({where:trim}) wins"),
    "NPB117": Code(
        "warning", "$NPU_BRIDGE_PRODUCT names no known product, and is not used: "
        "product= / --product or soc_config wins",
        "target precedence: docs/reference.md 'Products' / docs/options.md Products",
        "${env}={value!r} is not used: {where} {name} wins (product {product}); it is no known "
        "name: {unknown}",
        short="${env}={value!r:cut} is no known product and is not used: {where} {name:cut} "
              "wins"),
    "NPB116": Code(
        "info", "no custom optimizer named exactly NpuOptimizer in the ConfigProto: GE "
        "gets the adapter defaults only",
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc (name() == \"NpuOptimizer\")",
        "no custom optimizer named exactly NpuOptimizer in the ConfigProto: the real adapter "
        "sends GE only its defaults (tf_adapter/util/npu_attrs.cc reads custom optimizers "
        "whose name() == \"NpuOptimizer\")",
        short="no custom optimizer named exactly NpuOptimizer: the real adapter sends GE only "
              "its defaults",
        fix='custom_op.name = "NpuOptimizer"'),
    "NPB112": Code(
        "error", "option not supported on the target product (error where the seeds say so, "
        "else warning)", "the product tables of the vendor pages (seed:memoryconfig_constructor_zh.txt, the "
        "adapter's option pages)",
        "{option}={shown} is not supported on {product}; supported on: {products}; source: "
        "{where}",
        short="{option}={shown:cut} is not supported on {product}; supported on: "
              "{products:cut}",
        severity_note="warning where the option's catalog row says so (its product_severity)"),
    "NPB113": Code(
        "warning", "value not supported on the target product (an error where GE refuses "
        "it: the bfloat16 precision modes on a SoC without bfloat16)",
        "vendor docs per-value product lists; hicann/ge fe_context_utils.cc "
        "(GetPrecisionMode: 'Current soc not support dtype of BFloat16')",
        "{option}={shown} is not supported on {product}; that value is supported on: "
        "{products}; source: {where}",
        short="{option}={shown:cut} is not supported on {product}; supported on: "
              "{products:trim}",
        severity_note="error where GE refuses the value on that product (value_product_severity)"),
    "NPB114": Code(
        "error", "config class not supported on the target product",
        "seed memoryconfig_constructor_zh.txt product table",
        "{option} is not supported on {product}; supported on: {products}; source: {where}",
        short="{option} is not supported on {product}; supported on: {products:cut}"),
    "NPB120": Code(
        "error", "static_memory_policy 2 or 4 with concurrently executing graphs "
        "(graph_max_parallel_model_num > 1)", "seed memoryconfig_constructor_zh.txt",
        "{option}={shown}{runs_as} is not supported with concurrently executing graphs "
        "(graph_max_parallel_model_num={parallel} > 1); use 0 or 3, or run graphs one at a "
        "time; source: {where}",
        short="{option}={shown}{runs_as:cut} is not supported with concurrently executing "
              "graphs (graph_max_parallel_model_num={parallel})",
        fix='parameter_map["static_memory_policy"].i = 0 (or 3), or '
            "graph_max_parallel_model_num 1"),
    "NPB121": Code(
        "warning", "GE_USE_STATIC_MEMORY set together with static_memory_policy; merged",
        "reference README (GE merge rule); vendor docs",
        "{option}={shown} and environment {var}={env_value} are both set (the docs say use "
        "one); GE merges them to policy {merged}; source: {where}",
        short="{option}={shown} and environment {var}={env_value:cut} are both set; GE merges "
              "them to policy {merged}",
        fix="unset {var} (keep {option}={shown})"),
    "NPB122": Code(
        "info", "input_fusion_size only acts on static-shape graphs run asynchronously",
        "seed ge_memory_options_zh.txt",
        "{option} only acts on static-shape graphs run asynchronously (RunGraphAsync); "
        "source: {where}",
        short="{option} only acts on static-shape graphs run asynchronously (RunGraphAsync)"),
    "NPB123": Code(
        "error", "two graphs of one process executed concurrently under static_memory_policy "
        "2 or 4 (raised at run time by the Session patch, recorded on the session's "
        "configuration; runs of QueueRunner ops, the host input pipeline, are exempt)",
        "seed memoryconfig_constructor_zh.txt",
        "{shown} does not support graphs that execute concurrently: {what}; run the graphs "
        "one after the other, or use static_memory_policy 0 or 3; allowed: {allowed}; GE key "
        "{key}; source: seed memoryconfig_constructor_zh.txt",
        short="{shown:cut} does not support graphs that execute concurrently: {what:cut}",
        fix='parameter_map["static_memory_policy"].i = 0 (or 3), or run the graphs one '
            "after the other"),
    "NPB124": Code(
        "warning", "training steps of a train() call not a multiple of iterations_per_loop "
        "(on the NPU every loop runs iterations_per_loop steps; raised at run time by "
        "NPUEstimator)", "reference option_values.json (iterations_per_loop notes); vendor "
        "docs npu_config/npurunconfig_constructor/performance_tuning.md",
        "train() runs {steps} steps (global step {start} to {last}, set by {end_by}), not a "
        "multiple of iterations_per_loop={value}: on the NPU every loop runs {value} steps, so "
        "training would end at step {npu_end}; here the last loop runs {last_loop} and "
        "training ends at {last}. The docs require the training steps to be a multiple of "
        "iterations_per_loop; source: {source}",
        short="train() runs {steps} steps, not a multiple of iterations_per_loop={value}: on "
              "the NPU training ends at step {npu_end}",
        fix="{fix}"),
    "NPB125": Code(
        "error", "util.set_iteration_per_loop (or IterationPerLoop.load_iteration_per_loop_var) "
        "given another value than the session configuration's parameter_map "
        "iterations_per_loop: an error when that is 1 (set or unset: adapter default 1), "
        "where the NPU would not loop at all; a warning when both are above 1 (the NPU "
        "loops the value given to the call) or the call gives 1 (raised at run time, "
        "recorded on the session's configuration)",
        "reference option_values.json (iterations_per_loop notes); vendor docs "
        "apiref/session_config/performance_tuning.md and apiref/npu_util/"
        "set_iteration_per_loop.md; hicann/tensorflow tf_adapter/kernels/geop_npu.cc "
        "(the value only switches the device loop on, when > 1)",
        "{call} on {session}, whose configuration has {shown}: {effect}; source: reference "
        "option_values.json (iterations_per_loop notes: in sess.run mode it must equal the "
        "value given to set_iteration_per_loop); vendor docs "
        "apiref/session_config/performance_tuning.md and apiref/npu_util/"
        "set_iteration_per_loop.md; hicann/tensorflow tf_adapter/kernels/geop_npu.cc "
        "(SetNeedIteration only when the value is above 1)",
        short="{call:trim} on {session:cut} ({shown:cut}): {effect:trim}",
        fix='parameter_map["iterations_per_loop"].i = {value}'),
    "NPB126": Code(
        "warning", "a session's global (GEInitialize) options ignored: GE is initialized "
        "once per process while NPU sessions are open, by the first (recorded at "
        "session creation by the Session patch); options the session also sends to "
        "ge::Session apply to it and are not reported", "hicann/tensorflow "
        "tf_adapter/util/ge_plugin.cc GePlugin::Init; tf_adapter/kernels/geop_npu.cc "
        "GeOp::Finalize, GeOp::Initialize (ge::Session gets NpuAttrs::GetSessOptions)",
        "GE is initialized once per process while NPU sessions are open, and {owner} "
        "initialized it, so these global (GEInitialize) options of this configuration are "
        "ignored: {listed}; {advice}; source: hicann/tensorflow tf_adapter/util/ge_plugin.cc "
        "(GePlugin::Init returns when GE is already initialized), "
        "tf_adapter/kernels/geop_npu.cc (GeOp::Finalize finalizes GE only when no GE session "
        "is left; ge::Session gets only NpuAttrs::GetSessOptions)",
        short="GE was initialized by {owner:cut}: this configuration's global options are "
              "ignored: {listed:cut}",
        fix="{advice:cut}"),
    "NPB130": Code(
        "error", "GE option given at a level GE does not accept it at",
        "seed:ge_memory_options_zh.txt (生效级别: the level of each key), else reference "
        "ge_option_scopes.json",
        "{option} is not accepted at the {level} level; GE accepts it at: {levels}; source: "
        "{where}",
        short="{option} is not accepted at the {level} level; GE accepts it at: {levels:cut}"),
    "NPB131": Code(
        "warning", "reuse index at or beyond the graph's input/output count: dropped",
        "seed ge_memory_options_zh.txt",
        "{option}: {dropped} out of range for a graph with {inputs} inputs and {outputs} "
        "outputs; dropped (GE ignores them); source: seed ge_memory_options_zh.txt",
        short="{option}: {dropped:cut} out of range for a graph with {inputs} inputs and "
              "{outputs} outputs; dropped"),
    "NPB132": Code(
        "info", "reused graph inputs/outputs must be 32-byte aligned",
        "seed ge_memory_options_zh.txt",
        "{option}: the reused graph inputs/outputs must be 32-byte aligned, and their "
        "contents are overwritten; source: {where}",
        short="{option}: reused graph inputs/outputs must be 32-byte aligned; their contents are overwritten"),
    "NPB133": Code(
        "error", "ge.externalWeightDir without external weights on",
        "seed ge_memory_options_zh.txt",
        "{option}={value!r} has no effect without ge.externalWeight 1 or 2 (got {got!r}); "
        "source: {where}",
        short="{option}={value!r:cut} has no effect without ge.externalWeight 1 or 2 (got "
              "{got!r:cut})",
        fix='parameter_map["external_weight"].b = True (ge.externalWeight "1")'),
    "NPB134": Code(
        "info", "directory external weight files are written to",
        "seed ge_memory_options_zh.txt (precedence rule)",
        "external weight files go to {wdir} ({key} > ${var}/tmp_weight_<pid>_<sessionid> > "
        "./tmp_weight_<pid>_<sessionid>); source: {where}",
        short="external weight files go to {wdir:cut}"),
    "NPB135": Code(
        "warning", "unknown GE option key or ir_option name", "reference ge_option_scopes.json",
        "{what} {key!r}{detail}: a key GE does not read, the setting has no effect; source: "
        "reference ge_option_scopes.json",
        short="{what} {key!r:cut}{detail:cut}: GE ignores it"),
    "NPB136": Code(
        "error", "unsafe directory for files GE writes (ge.externalWeightDir, ASCEND_WORK_PATH): "
        "a '..' component, a symbolic link, an existing non-directory, NUL or line break",
        "project rule (npu_bridge/ge/paths.py); seed ge_memory_options_zh.txt for the directory",
        "{option}={value!r} is not a safe directory for the {files} GE writes: it {reason}; "
        "source: {where}",
        short="{option}={value!r:cut} is not a safe directory for the {files:trim} GE writes: "
              "it {reason:cut}"),
    "NPB140": Code(
        "error", "graph_memory_max_size + variable_memory_max_size exceed the product's "
        "on-chip memory (a warning where the product's figure has low confidence)",
        "GE's defaults and budget check (hicann/ge base/graph/manager/graph_var_manager.h:48 "
        "(26/32 and 5/32 of the memory), compiler/graph/build/memory/graph_mem_assigner.cc:631); "
        "figures: npu_bridge/ge/products.py, each with its "
        "confidence and source (the SoCs' platform configs, public device figures)",
        "{sizes} = {value} bytes exceed the {memory} bytes of on-chip memory of {product} "
        "(figure confidence {confidence}: {figure}); source: {where}",
        short="{parts:sizes} = {value:size} exceed the {memory:size} of an {product} device",
        fix='parameter_map["{fix_key}"].s = b"{fit}" ({fit:size})',
        arg_fix="NPURunConfig({fix_key}={fit})",
        cite="figure confidence {confidence}: {figure}; {where}",
        severity_note="warning where the product's memory figure has low confidence"),
    "NPB145": Code(
        "info", "the memory-size rule (NPB140) skipped: no on-chip memory figure is known "
        "for the target product", "project rule; figures: npu_bridge/ge/products.py",
        "graph_memory_max_size + variable_memory_max_size not checked against the on-chip "
        "memory of {product}: no figure is known for it ({figure}); rule {rule} skipped",
        short="graph_memory_max_size + variable_memory_max_size not checked: no memory figure "
              "for {product}"),
    "NPB141": Code(
        "error", "mix_compile_mode needs iterations_per_loop == 1",
        "vendor docs mixed_computing / NPURunConfig",
        "{option}={shown} needs {needs} == {allowed}, got {got}; source: {where}",
        short="{option}={shown} needs {needs} == {allowed}, got {got:cut}",
        fix='parameter_map["{needs}"].i = {allowed}',
        arg_fix="NPURunConfig({needs}={allowed})"),
    "NPB142": Code(
        "error", "mutually exclusive options set together (error where the real adapter "
        "rejects it; warning where only the docs say so)",
        "reference option_values.json checked_by_adapter; rules: docs/options.md "
        "'Cross-option rules'",
        "{option}={shown} and {other}={other_shown} must not be set together; {failure}; "
        "source: {where}",
        short="{option}={shown:cut} and {other}={other_shown:cut} must not be set together: {failure:trim}"),
    "NPB143": Code(
        "error", "option needs another option the configuration lacks (error where the real "
        "adapter rejects it; warning where only the docs say so)",
        "reference option_values.json checked_by_adapter; rules: docs/options.md "
        "'Cross-option rules'",
        "{subject} needs {needed}; {failure}; source: {where}",
        short="{subject:cut} needs {needed:cut}; {failure}",
        fix="{fix}"),
    "NPB144": Code(
        "warning", "directory the real adapter requires to exist and be writable "
        "(dump_path, work_path) is not one here; checked on the machine running the script",
        "reference option_values.json checked_by_adapter (dump_path, work_path)",
        "{option}={value!r} (used because {cause}) is not an existing writable directory on "
        "this machine; the real adapter requires one on the machine that runs the script and "
        "checks it there at session creation ({failure}); source: {where}",
        short="{option}={value!r:cut} ({cause:cut}) is not an existing writable directory on "
              "this machine",
        fix="mkdir -p {value:cut} on the machine that runs the script"),
    "NPB150": Code(
        "warning", "GE_USE_STATIC_MEMORY holds an invalid value",
        "seed:ge_memory_options_zh.txt (ge.exec.staticMemoryPolicy: the same values as "
        "GE_USE_STATIC_MEMORY)",
        "{option}={value!r} is not one of {allowed}; ignored; source: {where}",
        short="{option}={value!r:cut} is not one of {allowed}; ignored"),
    "NPB160": Code(
        "error", "config-class argument of a type the real NPUEstimator cannot write "
        "(raised by the constructor as NpuArgumentError)",
        "hicann/tensorflow npu_config.py / npu_estimator.py; catalog field column",
        "{subject}: expected {expected}, got {got}{detail} (source: {where})",
        short="{subject:cut}: expected {expected:cut}, got {got:cut}"),
    "NPB161": Code(
        "error", "one of the real NPURunConfig's own Python checks (ps mode: TF_CONFIG "
        "cluster, ParameterServerStrategy, mix_compile_mode)",
        "hicann/tensorflow npu_config.py",
        "{subject}: {rule} (source: {source})",
        short="{subject:cut}: {rule:cut}"),
    "NPB162": Code(
        "warning", "bool config-class argument given an int other than 0 and 1 (e.g. "
        "external_weight=2): the real NPUEstimator writes it to an AttrValue .b field, "
        "where protobuf stores True, so GE gets the 'on' value; where the GE key itself "
        "takes that number (ge.externalWeight 2), the message says to set the GE key "
        "directly",
        "hicann/tensorflow npu_estimator.py (parameter_map[KEY].b = value); catalog "
        "field column; GE values: the GE key's catalog row (seed:"
        "ge_memory_options_zh.txt for ge.externalWeight)",
        "{subject}: a bool {what} (allowed: True, False); {how}, which protobuf stores as "
        "True, so GE gets {sent} (source: {where}){advice}",
        short="{subject:cut}: a bool {what} given an int: GE gets {sent:cut}"),
    # npu-bridge lint's own codes: about the file, and about what protobuf or Python itself
    # raises when the script runs (found without running it).
    "NBL001": Code("error", "the file does not parse", "project rule (npu-bridge lint)",
                   "file {problem}",
        short="file {problem:cut}"),
    "NBL002": Code("warning", "the file is larger than the size limit and was not checked",
                   "project rule (npu-bridge lint --max-bytes)",
                   "file is {size} bytes, above the {limit}-byte limit: not checked",
        short="file is {size:size}, above the {limit:size} limit: not checked",
        fix="--max-bytes {size}"),
    "NBL003": Code("error", "the file cannot be read", "project rule (npu-bridge lint)",
                   "cannot read file: {error}",
        short="cannot read file: {error:cut}"),
    "NBL010": Code(
        "error", "AttrValue has no such field (AttributeError at run time)",
        "tensorflow core/framework/attr_value.proto (AttrValue's fields)",
        "{subject}: AttrValue has no field {field!r} (one of {fields}); source: {source}",
        short="{subject:cut}: AttrValue has no field {field!r:cut} (one of {fields:trim})"),
    "NBL011": Code(
        "error", "the literal does not fit the AttrValue field (protobuf's "
        "TypeError/ValueError)", "tensorflow core/framework/attr_value.proto (field "
        "types: s bytes, i int64, f float, b bool), checked by protobuf's Python runtime",
        "{subject} = {shown}: {error}; source: {source}",
        short="{subject:cut} = {shown:cut}: {error:cut}"),
    "NBL012": Code(
        "error", "config class (or npu_resource_init) called with an argument it does "
        "not have (TypeError at run time)", "hicann/tensorflow npu_config.py, "
        "npu_plugin.py signatures",
        "{error}",
        short="{error:cut}",
        fix="{fix}"),
    # NPU-only failures found from the captured graphs (npu_bridge/ge/npu_failures.py,
    # reference npu_failure_cases.md rows 1-7 and 12; docs/memory.md) or from the source
    # (npu-bridge lint: npu_bridge/tools/lint/npu_failures.py)
    "NPB170": Code(
        "error", "V1 control flow (Switch/Merge/Enter/Exit/NextIteration) in a graph the "
        "NPU runs as dynamic shape: refused as 'v1 control operator'",
        "hicann/tensorflow faq dynamic_shape_v1_control_unsupported_error.md",
        "graph {graph} runs as dynamic shape ({why}) and holds V1 control flow ({count} "
        "ops): the NPU refuses it: \"node {node}({kind}) is v1 control operator, which is not "
        "supported, please convert to v2 control operator\"; fix: {fix}; source: "
        + _MIGRATION_FAQ + "dynamic_shape_v1_control_unsupported_error.md",
        short="graph {graph:cut} runs as dynamic shape and holds V1 control flow ({count} "
              "ops): the NPU refuses it",
        fix="{fix:cut}"),
    "NPB171": Code(
        "warning", "many V1 control-flow branches in a static graph: memory grows past "
        "the device", "hicann/tensorflow faq v1_control_ops_out_of_memory.md",
        "graph {graph} holds {value} V1 control-flow branches (Merge ops; more than "
        "{limit}): on the NPU their memory grows past the device (the FAQ's example: above "
        "31 GB); fix: {fix}; source: " + _MIGRATION_FAQ + "v1_control_ops_out_of_memory.md",
        short="graph {graph:cut} holds {value} V1 control-flow branches (> {limit}): on the "
              "NPU its memory grows past the device",
        fix="{fix:cut}"),
    "NPB172": Code(
        "warning", "iterations_per_loop > 1 with a one-shot iterator (an error: the real "
        "adapter aborts) or with enable_data_pre_proc off (the loop is not offloaded); or a "
        "step count of the host that is not a multiple of it",
        "vendor migration guide, iterations_per_loop restrictions; hicann/tensorflow "
        "tf_adapter/optimizers/om_partition_subgraphs_pass.cc:2440-2443 (one-shot iterator: "
        "LOG(FATAL))",
        "{subject}: {effect}; fix: {fix}; source: {where}",
        short="{subject:cut}: {effect:trim}",
        fix="{fix:cut}",
        severity_note="error for a one-shot iterator (the real adapter aborts: LOG(FATAL))"),
    "NPB173": Code(
        "error", "a batch of non-static size in a training graph sunk with "
        "iterations_per_loop > 1", "vendor migration guide (dataset, dynamic shape)",
        "graph {graph} trains on {value}, whose batch has a dimension of unknown size, with "
        "iterations_per_loop={ipl}: the offloaded loop needs static shapes (the last, "
        "smaller batch recompiles or fails); fix: Dataset.batch(n, drop_remainder=True), or "
        "the dynamic shape options (dynamic_input, dynamic_dims, input_shape); source: "
        "vendor migration guide (hicann/tensorflow docs/en/tfadapter_1/migration), dataset "
        "and dynamic shape chapters",
        short="graph {graph:cut} trains on {value:cut}, a batch of unknown size, with "
              "iterations_per_loop={ipl}",
        fix="Dataset.batch(n, drop_remainder=True), or the dynamic shape options"),
    "NPB174": Code(
        "warning", "iterator initializer run together with the variable initializers: "
        "variables stay 0 on the NPU",
        "hicann/tensorflow faq variable_preprocess_init_subgraph_error_fix.md",
        "{subject} runs {initializers} together with the iterator initializer {value}: on "
        "the NPU every variable stays 0 and the model does not learn; fix: run "
        "iterator.initializer in a sess.run of its own; source: "
        + _MIGRATION_FAQ + "variable_preprocess_init_subgraph_error_fix.md",
        short="{subject:cut} runs the iterator initializer {value:cut} with the variable "
              "initializers: variables stay 0 on the NPU",
        fix="run iterator.initializer in a sess.run of its own"),
    "NPB175": Code(
        "error", "lookup table read by the input pipeline without mix_compile_mode: "
        "'Table not initialized'",
        "hicann/tensorflow faq resource_operator_preprocess_fix.md",
        "graph {graph}: the input pipeline reads lookup table {table}; without "
        "mix_compile_mode the NPU fails with \"Failed precondition: Table not initialized\"; "
        "fix: parameter_map[\"mix_compile_mode\"].b = True; source: "
        + _MIGRATION_FAQ + "resource_operator_preprocess_fix.md",
        short="graph {graph:cut} reads table {table:cut} in its input "
              "pipeline: 'Table not initialized' on the NPU",
        fix='parameter_map["mix_compile_mode"].b = True'),
    "NPB176": Code(
        "error", "loss-scale manager created inside tf.control_dependencies: "
        "'Placeholder not support'",
        "hicann/tensorflow faq npu_loss_scale_optimizer_faq.md",
        "{option} created inside tf.control_dependencies({deps}): on the NPU its variables "
        "depend on the training step and graph build fails with \"Placeholder not support\"; "
        "fix: create the manager outside the with block; source: "
        + _MIGRATION_FAQ + "npu_loss_scale_optimizer_faq.md",
        short="{option:cut} created inside tf.control_dependencies({deps:trim}): 'Placeholder "
              "not support' on the NPU",
        fix="create the loss-scale manager outside the with block"),
    "NPB177": Code(
        "error", "graph does not fit the device: feature map + variables above the "
        "budget (GE: ACL_ERROR_GE_MEMORY_ALLOCATION)",
        "hicann/ge compiler/graph/build/memory/graph_mem_assigner.cc:590 ReAssignMemory",
        "graph {graph} does not fit {target}: graph build fails with "
        "ACL_ERROR_GE_MEMORY_ALLOCATION: \"{verdict}\" (feature map {feature_map} with reuse "
        "{reuse}, reuse off {reuse_off}, variables {variables}; budget: {budget}); fix: {fix}; "
        "source: hicann/ge compiler/graph/build/memory/graph_mem_assigner.cc:631 "
        "(ReAssignMemory)",
        short="{graph:cut} does not fit {target:cut}: {sizes:cut}",
        fix="{fix:cut}"),
    "NPB178": Code(
        "warning", "a session's graphs fit one by one but not together under "
        "static_memory_policy 0 (policy 2 needs only the largest)",
        "seed ge_memory_options_zh.txt (ge.exec.staticMemoryPolicy)",
        "the {count} graphs of {session} fit one by one but not together under "
        "static_memory_policy {value}: \"{verdict}\"; policy 2 (one pool at the largest "
        "graph) needs {policy2} instead of {policy0}, unless graphs execute concurrently; "
        "source: seed ge_memory_options_zh.txt (ge.exec.staticMemoryPolicy)",
        short="the {count} graphs of {session:cut} fit one by one but not together under "
              "static_memory_policy {value}",
        fix='parameter_map["static_memory_policy"].i = 2 (one pool: {policy2} instead of '
            "{policy0})"),
    # precision emulation (npu-bridge run --precision emulate; docs/precision.md)
    "NPB180": Code(
        "warning", "under the emulated NPU precision a fetched loss became non-finite; "
        "the first op whose float32 output was finite but beyond the low-precision "
        "range is named (the NPU's overflow dump answers this on the device)",
        "hicann/tensorflow accuracy_tuning.md (precision_mode), set_device_sat_mode.md; "
        "docs/precision.md",
        "{graph}: the loss became non-finite at step {step} under the emulated {value} ({low}, "
        "{sat_mode} mode): the first op whose output overflowed{when} is {op} ({op_type}), "
        "finite in float32 (max |x| {max_abs:.4g}) but beyond {low}'s range. Fixes: {fixes} "
        "(docs/precision.md)",
        short="{graph:cut}: non-finite loss at step {step} ({value}, {low}); first overflow: {op:cut}",
        fix="keep_dtype_scope() around {op:cut}{fix_more}"),
    "NPB181": Code(
        "error", "modify_mixlist file unreadable, not JSON, or with sections/actions "
        "the vendor doc does not have",
        "hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/accuracy_tuning.md "
        "(modify_mixlist)",
        "modify_mixlist file {value} {problem} (accuracy_tuning.md 'modify_mixlist'; GE fails "
        "to initialize with it); the built-in lists were emulated",
        short="modify_mixlist file {value:cut} {problem:cut}; the built-in lists were "
              "emulated"),
    "NPB182": Code(
        "warning", "under the emulated saturation mode an op's output went beyond the "
        "low-precision range and was clipped to +-max, and the step used the clipped values "
        "(no overflow check) or was skipped for a forward-pass overflow no loss scale removes; "
        "the NPU itself reports nothing",
        "hicann/tensorflow docs/en/tfadapter_1/apiref/npu_plugin/set_device_sat_mode.md "
        "(saturation: +-MAX, the only mode of the Atlas training product), "
        "tf_adapter/python/npu_bridge/estimator/npu/npu_loss_scale_optimizer.py lines 50-87 "
        "(the float status read only with the overflow check on); docs/precision.md",
        "{graph}: at step {step} {op} ({op_type}) overflowed {low} under the emulated {value} "
        "(saturation mode): the NPU clips its output to +-{limit:g} (max |x| {max_abs:.4g} in "
        "float32) and reports nothing itself (set_device_sat_mode.md); {outcome}. Fixes: "
        "{fixes} (docs/precision.md)",
        short="{graph:cut}: {op:cut} saturated at +-{limit:g} at step {step} (max |x| "
              "{max_abs:.3g}); {outcome_short}",
        fix="keep_dtype_scope() around {op:cut}{fix_more}"),
    # the partition of each graph into GeOps and host ops (npu_bridge/ge/partition.py,
    # docs/partition.md): hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc
    "NPB190": Code(
        "warning", "a dataset yields strings while enable_data_pre_proc is off (the adapter's "
        "warning)", "hicann/tensorflow om_partition_subgraphs_pass.cc:2276-2283",
        "{node} outputs a string from the dataset while enable_data_pre_proc is off: the "
        "adapter warns 'Dataset outputs have string output_type, please set "
        "enable_data_pre_proc=True.' (" + _PASS + ":2276-2283)",
        short="{node:cut} outputs a string from the dataset while enable_data_pre_proc is off",
        fix='parameter_map["enable_data_pre_proc"].b = True'),
    "NPB191": Code(
        "error", "in_out_pair set without mix_compile_mode: the adapter fails the graph",
        "hicann/tensorflow om_partition_subgraphs_pass.cc:1063-1066",
        "in_out_pair is set without mix_compile_mode: the adapter fails the graph "
        "('mix_compile_mode must be True when use in_out_pair.', " + _PASS + ":1063-1066)",
        short="in_out_pair is set without mix_compile_mode: the adapter fails the graph",
        fix='parameter_map["mix_compile_mode"].b = True'),
    "NPB192": Code(
        "error", "in_out_pair invalid, or an op on its paths not supported: the adapter "
        "fails the graph", "hicann/tensorflow om_partition_subgraphs_pass.cc:531-590",
        "{subject}: the adapter fails the graph ('{adapter}', " + _PASS + ":{lines}){fix}",
        short="{subject:cut}: the adapter fails the graph ('{adapter:cut}')",
        fix="{fix:bare}"),
    "NPB193": Code(
        "error", "a Ref / resource tensor would cross between a GeOp and the host (or "
        "the graph has a cycle): the adapter fails the graph",
        "hicann/tensorflow om_partition_subgraphs_pass.cc:1097-1118, :1913-1944, "
        ":2546-2555",
        "{subject}: the adapter fails the graph ('{adapter}', " + _PASS + ":{lines})",
        short="{subject:cut}: the adapter fails the graph ('{adapter:cut}')"),
    "NPB195": Code(
        "error", "dynamic input in lazy_recompile mode with iterations_per_loop > 1",
        "hicann/tensorflow om_partition_subgraphs_pass.cc:2481-2485",
        "dynamic input in lazy_recompile mode runs only with iterations_per_loop 1: the "
        "adapter fails the graph ('iterations_per_loop only support 1 in lazy_recompile "
        "mode', " + _PASS + ":2481-2485)",
        short="dynamic input in lazy_recompile mode runs only with iterations_per_loop 1: the "
              "adapter fails the graph",
        fix='parameter_map["iterations_per_loop"].i = 1'),
    "NPB197": Code(
        "warning", "compilable ops run on the host: full offload keeps one GeOp, "
        "and a host op separates a cluster from it",
        "hicann/tensorflow om_partition_subgraphs_pass.cc:932-980, :1348-1354",
        "{count} op(s) that would be compiled run on the host CPU in graph {graph} ({ops}): "
        "full offload keeps one GeOp ({geop}) and a cluster that a host op separates from it "
        "cannot join it (" + _PASS + ":932-980, :1348-1354); move the host op out of the "
        "model, or set mix_compile_mode=True (with iterations_per_loop 1)",
        short="{count} compilable op(s) run on the host in graph {graph:cut} ({ops:cut}): "
              "full offload keeps one GeOp",
        fix='move the host op out of the model, or parameter_map["mix_compile_mode"].b = '
            "True"),
    "NPB198": Code(
        "warning", "iterations_per_loop > 1 with host ops exchanging tensors with the GeOp "
        "that holds IterationOp: the device loops N times per Session.run, the host ops "
        "run once", "hicann/tensorflow tf_adapter/kernels/geop_npu.cc:1148-1150, "
        ":1248-1250, :1545-1548",
        "iterations_per_loop is {value}: GeOp {geop} of graph {graph} holds IterationOp and "
        "runs {value} iterations on the device per Session.run (hicann/tensorflow "
        "tf_adapter/kernels/geop_npu.cc:1148-1150, :1248-1250, :1545-1548) while host op(s) "
        "{hosts} exchanging tensors with it run once per Session.run",
        short="iterations_per_loop={value}: GeOp {geop:cut} of graph {graph:cut} loops on the "
              "device, host op(s) {hosts:trim} run once"),
})
