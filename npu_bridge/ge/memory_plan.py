"""GE's device-memory plan of a graph, computed on the CPU (no TensorFlow import).
Notes: docs/design.md "Module notes"; rules: docs/memory.md.
"""
import heapq
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple

from npu_bridge.ge import mem_assign, memory_graph, products
from npu_bridge.ge.text import size_text
from npu_bridge.ge.memory_desc import (  # noqa: F401  (re-exported: the planner's input types)
    ALIAS_OPS, CONST_OPS, DATA_OPS, DTYPE_BYTES, NEVER_REUSED, TENSOR_ALIGN, TENSOR_PAD,
    VARIABLE_OPS, Assumptions, Graph, Node, dtype_of, tensor_bytes)

GIB = 1024 ** 3
BLOCK_ALIGN = 512     # block_mem_assigner MEM_ALIGN_SIZE
BUDGET_CAP = 256 * GIB   # graph_var_manager.h: at most 256 GiB each
GRAPH_SHARE = (26, 32)   # feature-map share of the device memory when graph_memory_max_size unset
VAR_SHARE = (5, 32)      # variable share when variable_memory_max_size unset

# ------------------------------------------------------------------ sizes
def block_bytes(nbytes, align=BLOCK_ALIGN):
    """`nbytes` rounded up to a whole number of `align` bytes (GE MEM_ALIGN_SIZE = 512)."""
    return -(-nbytes // align) * align


def gib_pages(nbytes):
    """`nbytes` rounded up to whole 1 GiB pages (ge.variableUse1gHugePage 1/2)."""
    return -(-nbytes // GIB) * GIB


# ------------------------------------------------------------------ the graph description
# ------------------------------------------------------------------ options
def _indexes(text):
    return frozenset(int(x) for x in (text or "").split(",") if x.strip().isdigit())


def _pairs(text):
    out = []
    for part in (text or "").split("|"):
        bits = part.split(",")
        if len(bits) == 2 and bits[0].strip().isdigit() and bits[1].strip().isdigit():
            out.append((int(bits[0]), int(bits[1])))
    return tuple(out)


def _run_mode(eff):
    text = (eff.get("ge.graphRunMode") or eff.get("graph_run_mode") or "").strip()
    return int(text) if text.isdigit() else 0


def _size(text):
    text = (text or "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


@dataclass(frozen=True)
class MemoryOptions:
    """The memory options as GE applies them (from `GeOptions.effective`, `from_ge`).

    reuse: block reuse on (ge.exec.disableReuseMemory != "1"); no_reuse_ops: node names or
    op types of OP_NO_REUSE_MEM (comma list; their outputs are not reused); input_reuse /
    output_reuse: graph input / output indexes of ge.exec.inputReuseMemIndexes /
    outputReuseMemIndexes; output_reuse_input: (input, output) pairs of
    ge.exec.outputReuseInputMemIndexes; policy: effective ge.exec.staticMemoryPolicy (0..4,
    1 already read as 2); external_weights: ge.externalWeight 1/2; huge_pages:
    ge.variableUse1gHugePage 1/2; graph_budget / var_budget: bytes (graph_memory_max_size /
    variable_memory_max_size, else the 26/32 and 5/32 shares of `device_memory`, None when
    neither is known); device_memory: bytes of the product (None: unknown); product: id;
    precision_mode: ge.exec.precision_mode as given ('' unset); topo_sorting_mode:
    ge.topoSortingMode ('' unset: GE picks by the train flag); memory_optimization_policy:
    ge.exec.memoryOptimizationPolicy ('' or 'MemoryPriority'); atomic_clean_policy:
    ge.exec.atomicCleanPolicy ('0' together, '1' separately); train: GE's train flag
    (ge.graphRunMode >= 1; the adapter sends 1 unless graph_run_mode=0).
    """
    reuse: bool = True
    no_reuse_ops: FrozenSet[str] = frozenset()
    input_reuse: FrozenSet[int] = frozenset()
    output_reuse: FrozenSet[int] = frozenset()
    output_reuse_input: Tuple[Tuple[int, int], ...] = ()
    policy: int = 0
    external_weights: bool = False
    huge_pages: bool = False
    graph_budget: Optional[int] = None
    var_budget: Optional[int] = None
    graph_budget_source: str = "unknown product"
    var_budget_source: str = "unknown product"
    device_memory: Optional[int] = None
    product: Optional[str] = None
    precision_mode: str = ""
    topo_sorting_mode: str = ""
    memory_optimization_policy: str = ""
    atomic_clean_policy: str = "0"
    train: bool = False

    def ge_options(self):
        """The GE option keys the memory assigner reads (ge_graph.OPTION_KEYS), as text."""
        out = {"ge.exec.disableReuseMemory": "0" if self.reuse else "1",
               "ge.exec.atomicCleanPolicy": self.atomic_clean_policy,
               "ge.graphRunMode": "1" if self.train else "0"}
        if self.topo_sorting_mode:
            out["ge.topoSortingMode"] = self.topo_sorting_mode
        if self.memory_optimization_policy:
            out["ge.exec.memoryOptimizationPolicy"] = self.memory_optimization_policy
        if self.input_reuse:
            out["ge.exec.inputReuseMemIndexes"] = ",".join(str(i) for i in sorted(
                self.input_reuse))
        if self.output_reuse:
            out["ge.exec.outputReuseMemIndexes"] = ",".join(str(i) for i in sorted(
                self.output_reuse))
        return out

    @classmethod
    def from_ge(cls, ge_options=None, env=None, product=None):
        """Read a `GeOptions` (or a plain dict of effective GE keys) and the environment
        (`OP_NO_REUSE_MEM`; default none). `product` overrides the GeOptions' target."""
        eff = dict(getattr(ge_options, "effective", ge_options) or {})
        env = env or {}
        pid = product or getattr(ge_options, "product", None)
        if pid is not None:
            pid = products.lookup(pid)
        socs = (eff.get("ge.socVersion"), eff.get("soc_config"))
        device = products.memory_figure(pid, socs)[0] if pid else None

        def budget(keys, share, what):
            for key in keys:
                value = _size(eff.get(key))
                if value is not None:
                    return value, key
            if device is None:
                return None, ("memory of %s unknown: no %s budget" % (pid, what) if pid else
                              "no target product: no %s budget" % what)
            # read by people (the header, NPB177): binary units; the bytes are the budget's
            return min(device * share[0] // share[1], BUDGET_CAP), "%d/%d of %s's %s" % (
                share[0], share[1], pid, size_text(device))
        gb, gsrc = budget(("graph_memory_max_size", "ge.graphMemoryMaxSize"), GRAPH_SHARE,
                          "feature-map")
        vb, vsrc = budget(("variable_memory_max_size", "ge.variableMemoryMaxSize"), VAR_SHARE,
                          "variable")
        policy_text = (eff.get("ge.exec.staticMemoryPolicy") or eff.get("static_memory_policy")
                       or "0")
        policy = int(policy_text) if policy_text.isdigit() else 0
        policy = 2 if policy == 1 else policy
        return cls(
            reuse=eff.get("ge.exec.disableReuseMemory", "0") not in ("1", "true"),
            no_reuse_ops=frozenset(x.strip() for x in env.get("OP_NO_REUSE_MEM", "").split(",")
                                   if x.strip()),
            input_reuse=_indexes(eff.get("ge.exec.inputReuseMemIndexes")),
            output_reuse=_indexes(eff.get("ge.exec.outputReuseMemIndexes")),
            output_reuse_input=_pairs(eff.get("ge.exec.outputReuseInputMemIndexes")),
            policy=policy,
            external_weights=(eff.get("ge.externalWeight") or eff.get("external_weight") or "0")
            in ("1", "2", "true"),
            huge_pages=(eff.get("ge.variableUse1gHugePage") or "0") in ("1", "2"),
            graph_budget=gb, var_budget=vb, graph_budget_source=gsrc, var_budget_source=vsrc,
            device_memory=device, product=pid,
            precision_mode=eff.get("ge.exec.precision_mode") or eff.get("precision_mode") or "",
            topo_sorting_mode=(eff.get("ge.topoSortingMode") or eff.get("topo_sorting_mode")
                               or "").strip(),
            memory_optimization_policy=(eff.get("ge.exec.memoryOptimizationPolicy")
                                        or eff.get("memory_optimization_policy") or ""),
            atomic_clean_policy=(eff.get("ge.exec.atomicCleanPolicy")
                                 or eff.get("atomic_clean_policy") or "0"),
            train=_run_mode(eff) >= 1)


# ------------------------------------------------------------------ the plan
@dataclass
class GraphPlan:
    """The plan of one graph (sizes in bytes), GE's memory assigner run on it
    (`npu_bridge.ge.mem_assign`).

    dynamic: a device tensor has an unknown shape (then the feature-map figures are None);
    dynamic_inputs / dynamic_nodes: the inputs / nodes of unknown shape;
    feature_map: GE's mem_offset[RT_MEMORY_HBM] (total_hbm: reusable + atomic + zero-copy
    regions); reuse_off: the same with ge.exec.disableReuseMemory=1; largest_live: the
    largest set of tensors alive at once in GE's order (512-aligned; graph inputs and
    outputs for the whole graph); peak_step / peak_node: where it is; imas: GE's
    `[IMAS]AfterAssignMemory` figures {memoffset, theory_min, total_size, no_reuse,
    zero_copy}; strategy: the winning assigner (binary-block, max-block, range-...);
    topo_mode: BFS | DFS | RDFS | StableRDFS; variables: bytes of the graph's variables
    (huge pages: whole GiB); var_names: name -> bytes; weights: device bytes of constants
    (0 with external weights; external_weights: the bytes moved off); steps: per node (name,
    live bytes, highest address used so far, bytes requested so far); largest: the largest
    tensors (name, bytes); blocks: sizes of the top-level blocks of the reusable region;
    assignment: the full `mem_assign.Assignment` (None when dynamic); checked: the bytes GE's
    out-of-memory check adds to the variables (reusable + atomic regions + session-scope
    workspaces, without the zero-copy region: graph_mem_assigner.cc ReAssignMemory).
    """
    name: str
    nodes: int
    dynamic: bool
    dynamic_inputs: List[str]
    dynamic_nodes: List[str]
    feature_map: Optional[int]
    reuse_off: Optional[int]
    largest_live: Optional[int]
    peak_step: Optional[int]
    peak_node: Optional[str]
    variables: int
    var_names: Dict[str, int]
    weights: int
    external_weights: int
    steps: List[Tuple[str, int, int, int]] = field(default_factory=list)
    largest: List[Tuple[str, int]] = field(default_factory=list)
    blocks: List[int] = field(default_factory=list)
    num_inputs: int = 0
    num_outputs: int = 0
    imas: Dict[str, int] = field(default_factory=dict)
    strategy: Optional[str] = None
    topo_mode: Optional[str] = None
    assignment: object = None
    checked: Optional[int] = None

    @property
    def theory_min(self):
        return self.imas.get("theory_min")

    def to_dict(self):
        return {"name": self.name, "nodes": self.nodes, "dynamic": self.dynamic,
                "dynamic_inputs": list(self.dynamic_inputs),
                "feature_map": self.feature_map, "reuse_off": self.reuse_off,
                "largest_live": self.largest_live, "peak_node": self.peak_node,
                "imas": dict(self.imas), "strategy": self.strategy,
                "topo_mode": self.topo_mode, "checked": self.checked,
                "variables": self.variables, "weights": self.weights,
                "external_weights": self.external_weights, "blocks": len(self.blocks),
                "inputs": self.num_inputs, "outputs": self.num_outputs,
                "largest": [[n, b] for n, b in self.largest[:5]]}


def _steps(assignment):
    """Per node: (name, live bytes, highest address used so far, bytes requested so far)."""
    n = len(assignment.order)
    top = [0] * n
    req = [0] * n
    for t in assignment.tensors:
        if t.offset is None:
            continue
        b = min(max(t.begin, 0), n - 1) if n else 0
        top[b] = max(top[b], t.offset + t.size)
        req[b] += -(-t.size // BLOCK_ALIGN) * BLOCK_ALIGN
    out, high, total = [], 0, 0
    for i, name in enumerate(assignment.order):
        high = max(high, top[i])
        total += req[i]
        out.append((name, assignment.live_steps[i], high, total))
    return out


def plan_graph(graph, options=None, assumptions=None):
    """Plan `graph` (a `Graph`, nodes in topological order) under `options` (`MemoryOptions`,
    default GE's defaults) and `assumptions` (`Assumptions`). Returns a `GraphPlan`.

    The graph becomes GE's graph (`memory_graph.to_ge_graph`: sizes, Data/Const/Variable,
    aliases, one NetOutput) and GE's assigner plans it (`mem_assign.assign`: GE's
    topological order, both strategies, atomic and zero-copy regions); `reuse_off` is what
    ge.exec.disableReuseMemory=1 gives (`Assignment.reuse_off`). Variables go to variable
    memory, constants to weight memory (off the device with external weights). A graph with an unknown device shape is dynamic:
    no feature-map figure.
    Raises ValueError naming the node for an input that names no earlier node's output.
    Runs with the garbage collector paused (`mem_assign.gc_paused`).
    """
    with mem_assign.gc_paused():
        return _plan_graph(graph, options, assumptions)


def _plan_graph(graph, options, assumptions):
    options = options or MemoryOptions()
    assumptions = assumptions or Assumptions()
    graph = memory_graph.fold_constants(graph)   # GE's folding passes run before assignment
    var_names = {}
    weights = 0
    dynamic_nodes = []
    for node in graph.nodes:
        for shape, dtype in node.outputs:
            if dtype not in DTYPE_BYTES:
                continue
            nbytes = tensor_bytes(shape, dtype)
            if node.op in VARIABLE_OPS:
                if nbytes is not None:
                    var_names[node.var_name or node.name] = block_bytes(nbytes)
            elif node.op in CONST_OPS:
                if nbytes is not None:
                    weights += block_bytes(nbytes)
            elif nbytes is None and node.name not in dynamic_nodes:
                dynamic_nodes.append(node.name)
    ge_graph = memory_graph.to_ge_graph(graph, options, assumptions)
    variables = sum(var_names.values())
    if options.huge_pages:
        variables = gib_pages(variables)
        weights = gib_pages(weights)
    ext = 0
    if options.external_weights:
        ext, weights = weights, 0
    base = dict(name=graph.name, nodes=len(graph.nodes), var_names=var_names,
                variables=variables, weights=weights, external_weights=ext,
                num_inputs=len(graph.inputs), num_outputs=len(graph.outputs))
    if dynamic_nodes:
        return GraphPlan(dynamic=True, dynamic_inputs=graph.unknown_inputs(),
                         dynamic_nodes=dynamic_nodes, feature_map=None, reuse_off=None,
                         largest_live=None, peak_step=None, peak_node=None, **base)
    a = mem_assign.assign(ge_graph, {"OP_NO_REUSE_MEM": ",".join(sorted(options.no_reuse_ops))})
    reuse_off = a.reuse_off
    # the ten largest outputs, larger first, by name among equal sizes
    largest = [(name, -neg) for neg, name in heapq.nsmallest(
        10, ((-t.size, t.name) for t in a.tensors if t.kind == "out"))]
    peak_step = a.order.index(a.peak_node) if a.peak_node is not None else None
    return GraphPlan(dynamic=False, dynamic_inputs=[], dynamic_nodes=[],
                     feature_map=a.total_hbm, reuse_off=reuse_off, largest_live=a.largest_live,
                     peak_step=peak_step, peak_node=a.peak_node, steps=_steps(a),
                     largest=largest, blocks=list(a.blocks), imas={"memoffset": a.total_hbm,
                                            "theory_min": a.theory_min,
                                            "total_size": a.total_size,
                                            "no_reuse": a.no_reuse, "zero_copy": a.zero_copy},
                     strategy=a.strategy, topo_mode=a.topo_mode, assignment=a,
                     checked=a.ge_check_bytes, **base)


# ------------------------------------------------------------------ a session's graphs
GE_OOM = ("Sum of total_mem_offset:%d and var_mem_size:%d is greater than memory manager "
          "malloc max size %d")
"""GE's own failure text (graph_mem_assigner.cc ReAssignMemory), sizes in bytes."""


@dataclass
class Verdict:
    """fits: True / False / None (unknown: dynamic graph or no budget); message: GE's text
    (or the variable-budget text) when it does not fit, sizes in bytes (JSON); reason: why
    unknown; sizes: the same comparison in KiB/MiB/GiB, for the text outputs."""
    fits: Optional[bool]
    message: str = ""
    reason: str = ""
    sizes: str = ""

    def text(self):
        """What a person reads after "fits: NO - ": the sizes in binary units, GE's error
        named (its exact text, bytes, is the JSON's `message`)."""
        if self.sizes:
            return "%s (GE: ACL_ERROR_GE_MEMORY_ALLOCATION; exact text: --format json)" % self.sizes
        return self.message or self.reason

    def to_dict(self):
        return {"fits": self.fits, "message": self.message, "reason": self.reason}


def verdict(feature_map, variables, options):
    """GE's check: `feature_map` (the bytes GE checks: `GraphPlan.checked`, reusable + atomic
    regions) + variables above the feature-map budget fails graph build with `GE_OOM`
    (ACL_ERROR_GE_MEMORY_ALLOCATION); variables above the variable budget fail too."""
    if feature_map is None:
        return Verdict(None, reason="dynamic shape: no static size")
    if options.graph_budget is None:   # a product without a figure is not "no product"
        return Verdict(None, reason="no budget: %s and no graph_memory_max_size" % (
            "memory of %s unknown (NPB145)" % options.product if options.product
            else "no target product"))
    if feature_map + variables > options.graph_budget:
        return Verdict(False, GE_OOM % (feature_map, variables, options.graph_budget),
                       sizes="checked feature map %s + variables %s > budget %s" % (
                           size_text(feature_map), size_text(variables),
                           size_text(options.graph_budget)))
    if options.var_budget is not None and variables > options.var_budget:
        return Verdict(False, "variable memory %d bytes is greater than the variable memory "
                              "max size %d (%s)" % (variables, options.var_budget,
                                                    options.var_budget_source),
                       sizes="variables %s > variable budget %s (%s)" % (
                           size_text(variables), size_text(options.var_budget),
                           options.var_budget_source))
    return Verdict(True)


@dataclass
class SessionPlan:
    """The graphs of one session under static_memory_policy (sizes in bytes).

    feature_map: policy 1/2/4 (static graphs): one pool at the largest graph's size; 0 or 3:
    each static graph its own, the sum; None if every graph is dynamic. variables: the
    session's variables (each counted once across graphs; huge pages: whole GiB).
    policy_alternatives: {"0": sum, "2": max} of the static graphs. dynamic_expansion: policy
    3/4 expand dynamic graphs' memory (GE reads it in VarManager::IsGeUseExtendSizeMemory).
    """
    graphs: List[GraphPlan]
    options: MemoryOptions
    feature_map: Optional[int]
    variables: int
    weights: int
    policy_alternatives: Dict[str, Optional[int]]
    dynamic_expansion: bool
    verdicts: List[Verdict]
    session_verdict: Verdict

    def to_dict(self):
        o = self.options
        return {"product": o.product, "policy": o.policy, "reuse": o.reuse,
                "graph_budget": o.graph_budget, "graph_budget_source": o.graph_budget_source,
                "var_budget": o.var_budget, "var_budget_source": o.var_budget_source,
                "feature_map": self.feature_map, "variables": self.variables,
                "weights": self.weights, "policy_alternatives": dict(self.policy_alternatives),
                "dynamic_expansion": self.dynamic_expansion,
                "verdict": self.session_verdict.to_dict(),
                "graphs": [dict(g.to_dict(), verdict=v.to_dict())
                           for g, v in zip(self.graphs, self.verdicts)]}


def plan_session(graphs, options=None, assumptions=None):
    """Plan every graph of one session (a list of `Graph` or `GraphPlan`) and combine them by
    `options.policy`. Returns a `SessionPlan`; each graph's verdict uses the session's
    variables (GE's var_mem_size is the session's)."""
    options = options or MemoryOptions()
    plans = [g if isinstance(g, GraphPlan) else plan_graph(g, options, assumptions)
             for g in graphs]
    names = {}
    for p in plans:
        names.update(p.var_names)
    variables = sum(names.values())
    if options.huge_pages:
        variables = gib_pages(variables)
    static = [p.feature_map for p in plans if not p.dynamic]
    alternatives = {"0": sum(static) if static else None, "2": max(static) if static else None}
    if not static:
        fm = None
    elif options.policy in (2, 4):
        fm = alternatives["2"]
    else:
        fm = alternatives["0"]
    weights = sum(p.weights for p in plans)
    verdicts = [verdict(p.checked, variables, options) for p in plans]
    checked = [p.checked for p in plans if not p.dynamic]
    if not checked:
        session_checked = None
    elif options.policy in (2, 4):
        session_checked = max(checked)
    else:
        session_checked = sum(checked)
    session = verdict(session_checked, variables, options)
    return SessionPlan(plans, options, fm, variables, weights, alternatives,
                       options.policy in (3, 4), verdicts, session)


# ------------------------------------------------------------------ text
mib = size_text   # bytes as text (npu_bridge.ge.text: the diagnostics' short lines use it too)


def summary_line(plan, verdict_, options):
    """One line for the `npu-bridge run` summary: feature map, variables, total, budget, fits."""
    if plan.dynamic:
        where = plan.dynamic_inputs or plan.dynamic_nodes[:3]
        return ("graph %s: dynamic shape (%s %s%s): no static size; GE compiles it with "
                "dynamic_input/dynamic_dims/input_shape, or as a dynamic graph (policy 3/4 "
                "expand its memory)" % (
                    plan.name, "inputs" if plan.dynamic_inputs else "unknown shapes from",
                    ", ".join(where), "" if plan.dynamic_inputs or len(plan.dynamic_nodes) <= 3
                    else " ..."))
    total = plan.checked + plan.variables
    text = "graph %s: feature map %s (GE checks %s), variables %s, total %s, budget %s, " \
        "fits %s" % (
        plan.name, mib(plan.feature_map), mib(plan.checked), mib(plan.variables), mib(total),
        mib(options.graph_budget), {True: "yes", False: "NO", None: "unknown"}[verdict_.fits])
    return text
