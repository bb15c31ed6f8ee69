"""Mistakes that run on a CPU but fail (error) or misbehave (warning) on the NPU, found from a
captured GE graph and the session's configuration (no TensorFlow import).

Rows 1-7 and 12 of reference npu_failure_cases.md; codes NPB170-NPB178 in
`npu_bridge.ge.diagnostics.CODES`. Input: `GraphFacts` (what `npu_bridge.hooks.graph_capture`
read from the graph), the graph's `memory_plan.GraphPlan`, the session's `GeOptions` and the
environment. docs/memory.md "NPU-only failures".
"""
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from npu_bridge.ge import memory_plan as mp, products
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

# Row 3's sources: a severity follows what the real stack does (an abort is an error).
ONE_SHOT_ABORT = ("hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc:"
                  "2440-2443 (OneShotIterator with iterations_per_loop != 1: LOG(FATAL), the "
                  "process aborts)")
LOOP_GUIDE = ("vendor migration guide (hicann/tensorflow docs/en/tfadapter_1/migration), "
              "iterations_per_loop restrictions (not checked by the adapter)")

PER_SESSION = frozenset(("NPB145", "NPB172", "NPB175"))
"""Codes about the configuration more than one graph: reported once per session."""


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
            out.append(make("NPB170", graph_name, name, graph=graph_name, why=why,
                            count=len(facts.v1_control), node=name, kind=kind, fix=fix_v2))
        elif facts.merges > V1_MERGE_LIMIT:
            out.append(make("NPB171", graph_name, facts.merges, graph=graph_name,
                            limit=V1_MERGE_LIMIT, fix=fix_v2))
    # row 3: the loop is not offloaded
    if ipl > 1 and facts.getnext:
        one_shot = [g for g in facts.getnext if g[1] == "OneShotIterator"]
        if one_shot:
            out.append(make("NPB172", "iterations_per_loop", ipl, severity="error",
                            subject="iterations_per_loop=%d with a one-shot iterator" % ipl,
                            effect="the real adapter aborts the process (LOG(FATAL)): a "
                            "one-shot iterator allows 1 step per loop (%s feeds %s in graph %s)"
                            % (one_shot[0][1], one_shot[0][0], graph_name),
                            fix="tf.compat.v1.data.make_initializable_iterator and run its "
                            "initializer", where=ONE_SHOT_ABORT))
        elif not pre_proc:
            out.append(make("NPB172", "enable_data_pre_proc", "0",
                            subject="iterations_per_loop=%d with enable_data_pre_proc off" % ipl,
                            effect="the dataset is not sunk to the device, so the loop is not "
                            "offloaded (graph %s reads %s)" % (graph_name, facts.getnext[0][0]),
                            fix="parameter_map[\"enable_data_pre_proc\"].b = True",
                            where=LOOP_GUIDE))
    # row 4: a batch of non-static size in the offloaded loop
    if ipl > 1 and pre_proc and facts.training:
        unknown = [g for g in facts.getnext if g[2] and g[1] != "OneShotIterator"]
        if unknown:
            out.append(make("NPB173", graph_name, unknown[0][0], graph=graph_name, ipl=ipl))
    # row 5: iterator initializer with the variable initializers
    if facts.var_inits and facts.iterator_inits:
        out.append(make("NPB174", graph_name, facts.iterator_inits[0],
                        subject="graph %s" % graph_name,
                        initializers="%d variable initializer(s)" % facts.var_inits))
    # row 6: a lookup table in the input pipeline
    if facts.tables_in_pipeline and not mix:
        out.append(make("NPB175", "mix_compile_mode", "0", graph=graph_name,
                        table=facts.tables_in_pipeline[0]))
    # row 12: out of memory
    mo = memory_options
    if (plan is not None and not plan.dynamic and mo.product and mo.device_memory is None
            and mo.graph_budget is None and mo.var_budget is None):
        # the product has no memory figure: the fit is not checked, said (explain NPB145)
        out.append(make("NPB145", "graph_memory_max_size", None, product=mo.product,
                        figure=products.memory_figure(mo.product)[1], rule="NPB177"))
    if plan is not None and not plan.dynamic:
        v = mp.verdict(plan.checked, plan.variables, memory_options)
        if v.fits is False:
            out.append(make("NPB177", graph_name, plan.checked + plan.variables,
                            graph=graph_name, target=memory_options.product or "the budget",
                            verdict=v.message, feature_map=mp.mib(plan.feature_map),
                            reuse="on" if memory_options.reuse else "off",
                            reuse_off=mp.mib(plan.reuse_off), variables=mp.mib(plan.variables),
                            budget=memory_options.graph_budget_source, sizes=v.sizes,
                            fix=_oom_fix(plan.checked, plan.variables, memory_options)))
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
        fixes.append("raise %s (%s, set by the script) to at least %d (%s)%s" % (
            option, mp.mib(budget), need, mp.mib(need),
            ", within the device's memory" if options.device_memory is None else
            ", within %s's %s" % (options.product, mp.mib(options.device_memory))))
    if over_vars:
        fixes.append("fewer or smaller variables")
    else:
        fixes.append("a smaller batch (fewer live activations)")
    if option is None:
        fixes.append("a product with more memory than %s" % (options.product or "this one"))
    return "; or ".join(fixes)


def session_findings(session_name, session_plan):
    """NPB178: the static graphs of one session fit one by one, but not together under
    static_memory_policy 0 (each its own memory); policy 2 would need only the largest."""
    s = session_plan
    if s is None or s.session_verdict.fits is not False or any(v.fits is False for v in s.verdicts):
        return []
    return [make("NPB178", "static_memory_policy", s.options.policy, count=len(s.graphs),
                 session=session_name, verdict=s.session_verdict.message,
                 policy2=mp.mib(s.policy_alternatives["2"]),
                 policy0=mp.mib(s.policy_alternatives["0"]))]


def loss_scale_finding(manager, control_inputs):
    """NPB176 (row 7): a loss-scale manager created while `control_inputs` (op names) are the
    active control dependencies."""
    shown = ", ".join(control_inputs[:3])
    return make("NPB176", manager, shown,
                deps=shown + (" ..." if len(control_inputs) > 3 else ""))
