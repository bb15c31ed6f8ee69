"""Mistakes that run on a CPU but fail (error) or misbehave (warning) on the NPU, found from a
captured GE graph and the session's configuration (no TensorFlow import).

Rows 1-7 and 12 of reference npu_failure_cases.md; codes NPB170-NPB178 in
`npu_bridge.ge.diagnostics.CODES`. Input: `GraphFacts` (what `npu_bridge.hooks.graph_capture`
read from the graph), the graph's `memory_plan.GraphPlan`, the session's `GeOptions` and the
environment. docs/memory.md "NPU-only failures".
"""
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from npu_bridge.ge import memory_plan as mp
from npu_bridge.ge.diagnostics import make

V1_CONTROL = frozenset(("Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                        "RefExit", "NextIteration", "RefNextIteration", "LoopCond"))
"""TF1 control-flow op types (tf.cond / tf.while_loop without control flow v2)."""

DATA_DEPENDENT = frozenset(("Where", "Unique", "UniqueV2", "UniqueWithCounts", "NonZero",
                            "DynamicPartition", "ListDiff", "SetSize", "DenseToDenseSetOperation",
                            "SparseReshape", "RaggedTensorToTensor"))
"""Ops whose output shape depends on the data: a graph holding one runs as dynamic shape."""

V1_MERGE_LIMIT = 100
"""Merge ops (one per output of each tf.cond branch pair and loop variable) above which a
static graph's V1 control flow is reported (row 2). The FAQ gives no number; this one is the
project's, stated here and in docs/memory.md."""

PER_SESSION = frozenset(("NPB172", "NPB175"))
"""Codes about the configuration more than one graph: reported once per session."""

_FAQ = "hicann/tensorflow docs/en/tfadapter_1/migration/faq/"
_GUIDE = "vendor migration guide (hicann/tensorflow docs/en/tfadapter_1/migration)"


@dataclass
class GraphFacts:
    """What the capture read from one GE graph (names are TF op names).

    v1_control: (name, type) of the V1 control-flow ops in the GE graph; merges: their Merge
    count; data_dependent: (name, type) of ops with data-dependent shapes whose output shape
    is unknown; getnext: (name, iterator op type, has an unknown dimension) per GetNext;
    var_inits: variable initializers run by this graph, not counting those writing zeros
    (what a host-side initialization leaves anyway); iterator_inits: MakeIterator ops run
    by it; tables_in_pipeline: lookup tables read by the input pipeline's dataset ops;
    training: the graph updates variables (optimizer Apply* ops)."""
    v1_control: List[Tuple[str, str]] = field(default_factory=list)
    merges: int = 0
    data_dependent: List[Tuple[str, str]] = field(default_factory=list)
    getnext: List[Tuple[str, str, bool]] = field(default_factory=list)
    var_inits: int = 0
    iterator_inits: List[str] = field(default_factory=list)
    tables_in_pipeline: List[str] = field(default_factory=list)
    training: bool = False


def _adapter(ge_options, key, default=""):
    for attr in ("adapter_options", "effective"):
        value = (getattr(ge_options, attr, None) or {}).get(key)
        if value not in (None, ""):
            return value
    return default


def _int(text, default):
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


def runs_dynamic(facts, ge_options):
    """Why the NPU runs this graph as dynamic shape ("" when it does not): dynamic_input /
    compile_dynamic_mode set, or an op whose output shape depends on the data."""
    if _adapter(ge_options, "dynamic_input", "0") in ("1", "true"):
        return "dynamic_input is set"
    if _adapter(ge_options, "compile_dynamic_mode", "0") in ("1", "true"):
        return "compile_dynamic_mode is set"
    if facts.data_dependent:
        name, kind = facts.data_dependent[0]
        return "%s (%s) has a data-dependent output shape" % (name, kind)
    return ""


def graph_findings(graph_name, facts, plan, ge_options, memory_options, env=None):
    """The diagnostics of one captured graph. `plan` is its `GraphPlan`, `memory_options` the
    session's `MemoryOptions`, `env` the environment (ENABLE_FORCE_V2_CONTROL)."""
    env = env or {}
    out = []
    ipl = _int(_adapter(ge_options, "iterations_per_loop", "1"), 1)
    pre_proc = _adapter(ge_options, "enable_data_pre_proc", "0") in ("1", "true")
    mix = _adapter(ge_options, "mix_compile_mode", "0") in ("1", "true")
    force_v2 = env.get("ENABLE_FORCE_V2_CONTROL") == "1"
    fix_v2 = ("call tf.compat.v1.enable_control_flow_v2() and "
              "tf.compat.v1.enable_resource_variables() before building the graph, or set "
              "ENABLE_FORCE_V2_CONTROL=1")
    # rows 1 and 2: V1 control flow
    if facts.v1_control and not force_v2:
        why = runs_dynamic(facts, ge_options)
        name, kind = facts.v1_control[0]
        if why:
            out.append(make("NPB170", graph_name, name,
                            "graph %s runs as dynamic shape (%s) and holds V1 control flow (%d "
                            "ops): the NPU refuses it: \"node %s(%s) is v1 control operator, "
                            "which is not supported, please convert to v2 control operator\"; "
                            "fix: %s; source: %sdynamic_shape_v1_control_unsupported_error.md"
                            % (graph_name, why, len(facts.v1_control), name, kind, fix_v2, _FAQ)))
        elif facts.merges > V1_MERGE_LIMIT:
            out.append(make("NPB171", graph_name, facts.merges,
                            "graph %s holds %d V1 control-flow branches (Merge ops; more than "
                            "%d): on the NPU their memory grows past the device (the FAQ's "
                            "example: above 31 GB); fix: %s; source: "
                            "%sv1_control_ops_out_of_memory.md"
                            % (graph_name, facts.merges, V1_MERGE_LIMIT, fix_v2, _FAQ)))
    # row 3: the loop is not offloaded
    if ipl > 1 and facts.getnext:
        one_shot = [g for g in facts.getnext if g[1] == "OneShotIterator"]
        if one_shot:
            out.append(make("NPB172", "iterations_per_loop", ipl,
                            "iterations_per_loop=%d with a one-shot iterator (%s feeds %s in "
                            "graph %s): the NPU does not offload the loop; fix: "
                            "tf.compat.v1.data.make_initializable_iterator and run its "
                            "initializer; source: %s, iterations_per_loop restrictions"
                            % (ipl, one_shot[0][1], one_shot[0][0], graph_name, _GUIDE)))
        elif not pre_proc:
            out.append(make("NPB172", "enable_data_pre_proc", "0",
                            "iterations_per_loop=%d with enable_data_pre_proc off (graph %s reads "
                            "%s): the dataset is not sunk to the device, so the loop is not "
                            "offloaded; fix: parameter_map[\"enable_data_pre_proc\"].b = True; "
                            "source: %s, iterations_per_loop restrictions"
                            % (ipl, graph_name, facts.getnext[0][0], _GUIDE)))
    # row 4: a batch of non-static size in the offloaded loop
    if ipl > 1 and pre_proc and facts.training:
        unknown = [g for g in facts.getnext if g[2] and g[1] != "OneShotIterator"]
        if unknown:
            out.append(make("NPB173", graph_name, unknown[0][0],
                            "graph %s trains on %s, whose batch has a dimension of unknown size, "
                            "with iterations_per_loop=%d: the offloaded loop needs static shapes "
                            "(the last, smaller batch recompiles or fails); fix: "
                            "Dataset.batch(n, drop_remainder=True), or the dynamic shape options "
                            "(dynamic_input, dynamic_dims, input_shape); source: %s, dataset and "
                            "dynamic shape chapters" % (graph_name, unknown[0][0], ipl, _GUIDE)))
    # row 5: iterator initializer with the variable initializers
    if facts.var_inits and facts.iterator_inits:
        out.append(make("NPB174", graph_name, facts.iterator_inits[0],
                        "graph %s runs %d variable initializer(s) together with the iterator "
                        "initializer %s: on the NPU every variable stays 0 and the model does "
                        "not learn; fix: run iterator.initializer in a sess.run of its own; "
                        "source: %svariable_preprocess_init_subgraph_error_fix.md"
                        % (graph_name, facts.var_inits, facts.iterator_inits[0], _FAQ)))
    # row 6: a lookup table in the input pipeline
    if facts.tables_in_pipeline and not mix:
        out.append(make("NPB175", "mix_compile_mode", "0",
                        "graph %s: the input pipeline reads lookup table %s; without "
                        "mix_compile_mode the NPU fails with \"Failed precondition: Table not "
                        "initialized\"; fix: parameter_map[\"mix_compile_mode\"].b = True; "
                        "source: %sresource_operator_preprocess_fix.md"
                        % (graph_name, facts.tables_in_pipeline[0], _FAQ)))
    # row 12: out of memory
    if plan is not None and not plan.dynamic:
        v = mp.verdict(plan.checked, plan.variables, memory_options)
        if v.fits is False:
            out.append(make("NPB177", graph_name, plan.checked + plan.variables,
                            "graph %s does not fit %s: graph build fails with "
                            "ACL_ERROR_GE_MEMORY_ALLOCATION: \"%s\" (feature map %s with reuse "
                            "%s, reuse off %s, variables %s; budget: %s); fix: %s; source: GE "
                            "graph_mem_assigner.cc via reference ge_memory.md" % (
                                graph_name, memory_options.product or "the budget", v.message,
                                mp.mib(plan.feature_map), "on" if memory_options.reuse else "off",
                                mp.mib(plan.reuse_off), mp.mib(plan.variables),
                                memory_options.graph_budget_source,
                                _oom_fix(plan.checked, plan.variables, memory_options))))
    return out


# The options that set a budget themselves (MemoryOptions.from_ge's budget sources): when one
# of them binds, raising it is the fix; otherwise the product's share does.
_BUDGET_OPTIONS = {"graph_memory_max_size": "graph_memory_max_size",
                   "ge.graphMemoryMaxSize": "graph_memory_max_size",
                   "variable_memory_max_size": "variable_memory_max_size",
                   "ge.variableMemoryMaxSize": "variable_memory_max_size"}


def _oom_fix(feature_map, variables, options):
    """NPB177's fix, naming what binds (a static graph: the dynamic-shape policies do not
    apply): block reuse when it is off; the budget option the script set (with the size it
    needs); else the product's memory share (a smaller batch or a product with more memory)."""
    fixes = []
    if not options.reuse:
        fixes.append("block reuse is off (ge.exec.disableReuseMemory=1): turn it on (0, the "
                     "default) first")
    over_vars = options.var_budget is not None and variables > options.var_budget \
        and feature_map + variables <= (options.graph_budget or 0)
    source, budget, need = ((options.var_budget_source, options.var_budget, variables)
                            if over_vars else
                            (options.graph_budget_source, options.graph_budget,
                             feature_map + variables))
    option = _BUDGET_OPTIONS.get(source)
    if option is not None:
        fixes.append("raise %s (%d bytes, set by the script) to at least %d bytes (%s)%s" % (
            option, budget, need, mp.mib(need),
            ", within the device's memory" if options.device_memory is None else
            ", within %s's %s" % (options.product, mp.mib(options.device_memory))))
    if over_vars:
        fixes.append("fewer or smaller variables")
    else:
        fixes.append("a smaller batch (fewer live activations)")
    if option is None:
        fixes.append("a product with more memory than %s" % (options.product or "this one"))
    return "; or ".join(fixes)


def loop_cadence_findings(iterations_per_loop, steps):
    """NPB172 (row 3) for each of `steps` (name -> step count or None, e.g.
    save_checkpoints_steps, save_summary_steps) that is not a multiple of
    `iterations_per_loop` > 1: the NPU acts only at the end of a loop, so the checkpoints or
    summaries are not written at the configured steps."""
    out = []
    if not isinstance(iterations_per_loop, int) or iterations_per_loop <= 1:
        return out
    for name, n in steps.items():
        if isinstance(n, int) and n > 0 and n % iterations_per_loop:
            out.append(make("NPB172", name, n,
                            "%s=%d is not a multiple of iterations_per_loop=%d: on the NPU the "
                            "host acts only between loops, so it happens at the end of the loop "
                            "that crosses each such step (the first at step %d), not at the "
                            "configured steps; fix: a multiple of iterations_per_loop; source: "
                            "%s, iterations_per_loop restrictions" % (
                                name, n, iterations_per_loop,
                                -(-n // iterations_per_loop) * iterations_per_loop, _GUIDE)))
    return out


def session_findings(session_name, session_plan):
    """NPB178: the static graphs of one session fit one by one, but not together under
    static_memory_policy 0 (each its own memory); policy 2 would need only the largest."""
    s = session_plan
    if s is None or s.session_verdict.fits is not False or any(v.fits is False for v in s.verdicts):
        return []
    return [make("NPB178", "static_memory_policy", s.options.policy,
                 "the %d graphs of %s fit one by one but not together under "
                 "static_memory_policy %d: \"%s\"; policy 2 (one pool at the largest graph) "
                 "needs %s instead of %s, unless graphs execute concurrently; source: seed "
                 "ge_memory_options_zh.txt (ge.exec.staticMemoryPolicy)"
                 % (len(s.graphs), session_name, s.options.policy, s.session_verdict.message,
                    mp.mib(s.policy_alternatives["2"]), mp.mib(s.policy_alternatives["0"])))]


def loss_scale_finding(manager, control_inputs):
    """NPB176 (row 7): a loss-scale manager created while `control_inputs` (op names) are the
    active control dependencies."""
    return make("NPB176", manager, ", ".join(control_inputs[:3]),
                "%s created inside tf.control_dependencies(%s): on the NPU its variables "
                "depend on the training step and graph build fails with \"Placeholder not "
                "support\"; fix: create the manager outside the with block; source: "
                "%snpu_loss_scale_optimizer_faq.md"
                % (manager, ", ".join(control_inputs[:3]) + (" ..." if len(control_inputs) > 3
                                                              else ""), _FAQ))
