"""The per-graph table of `npu-bridge memory SCRIPT` (no TensorFlow): one row function per
block of lines, in the order of `GRAPH_ROWS` (reorder or drop rows there; each row reads the
`Table` context and returns its lines). Rules: docs/memory.md "What `npu-bridge memory` shows".
"""
import dataclasses

from npu_bridge.ge import mem_assign
from npu_bridge.ge import memory_graph as mg
from npu_bridge.ge import memory_plan as mp

YES_NO = {True: "yes", False: "NO", None: "unknown"}
TOPO = (("0", "BFS"), ("1", "DFS"), ("2", "RDFS"), ("3", "StableRDFS"))
"""ge.topoSortingMode values and GE's names (compute_graph.cc GetTopoSortingStrategy)."""


@dataclasses.dataclass
class Table:
    """What the rows read: `plan` (GraphPlan), `verdict`, `options` (MemoryOptions),
    `variables` (the session's bytes), `graph` (the captured memory_plan.Graph, folded),
    `assumptions`, `top` (largest tensors listed), `ge_graph` (its GeGraph, made on demand)."""
    plan: object
    verdict: object
    options: object
    variables: int
    graph: object
    assumptions: object
    top: int = 5
    _ge: object = None

    @property
    def ge_graph(self):
        if self._ge is None:
            self._ge = mg.to_ge_graph(self.graph, self.options, self.assumptions)
        return self._ge


def row(label, nbytes, note=""):
    """One figure row: label, bytes as text, a note."""
    return "    %-34s %12s  %s" % (label, mp.mib(nbytes), note)


def _delta(new, base):
    d = new - base
    return "%s%s" % ("-" if d < 0 else "+", mp.mib(abs(d)))


# ------------------------------------------------------------------ rows
def feature_map_row(t):
    g, o = t.plan, t.options
    a = g.assignment
    others = ", ".join("%s %s" % (s.name, mp.mib(s.mem_offset)) for s in a.strategies
                       if s.name != g.strategy)
    return [row("feature map (reuse %s)" % ("on" if o.reuse else "off"), g.feature_map,
                "total_hbm = reusable %s + atomic %s + zero-copy %s" % (
                    mp.mib(a.reusable), mp.mib(a.atomic), mp.mib(a.zero_copy))),
            row("theory_min ([IMAS])", g.theory_min,
                "GE's own lower figure for this order; the plan: %s" % (
                    "= theory_min" if g.feature_map == g.theory_min else "%s (%+.2f%%)" % (
                        _delta(g.feature_map, g.theory_min),
                        100.0 * (g.feature_map - g.theory_min) / g.theory_min)
                    if g.theory_min else _delta(g.feature_map, 0))),
            "    strategy: %s wins%s; topological order %s (%s)" % (
                g.strategy, " (%s)" % others if others else "", g.topo_mode, a.topo_reason)]


def live_row(t):
    g = t.plan
    return [row("largest live set", g.largest_live,
                "peak at node %s (step %d of %d)" % (g.peak_node, g.peak_step + 1, len(g.steps))
                if g.peak_step is not None else "")]


def memory_rows(t):
    g = t.plan
    return [row("variables", g.variables),
            row("weights on device", g.weights, "(%s external)" % mp.mib(g.external_weights)
                if g.external_weights else "")]


def fits_row(t):
    v = t.verdict
    return ["    fits: %s%s" % (YES_NO[v.fits], " - " + v.text() if v.fits is not True else "")]


def option_changes(t):
    """[(label, GE options changed, note)]: reuse off, the other topological orders,
    MemoryPriority, the other atomic-clean policy."""
    g = t.plan
    out = []
    if t.options.reuse:
        out.append(("reuse off (ge.exec.disableReuseMemory=1)",
                    {"ge.exec.disableReuseMemory": "1"}, ""))
    for mode, name in TOPO:
        if name != g.topo_mode:
            out.append(("ge.topoSortingMode=%s (%s)" % (mode, name),
                        {"ge.topoSortingMode": mode}, ""))
    if t.options.memory_optimization_policy != "MemoryPriority":
        out.append(("ge.exec.memoryOptimizationPolicy=MemoryPriority",
                    {"ge.exec.memoryOptimizationPolicy": "MemoryPriority"}, ""))
    flip = "0" if t.options.atomic_clean_policy == "1" else "1"
    out.append(("ge.exec.atomicCleanPolicy=%s" % flip, {"ge.exec.atomicCleanPolicy": flip}, ""))
    return out


def effects_row(t):
    """Each option's effect on the feature map against this plan, GE's assigner run again with
    the option changed (the session's policy 2 against 0 is on the session line)."""
    g = t.plan
    if not g.feature_map:
        return ["    each option's effect: none (no feature-map memory)"]
    ge = t.ge_graph
    has_atomic = any(n.attrs.get("atomic_output_index") or n.attrs.get("atomic_workspace_info")
                     for n in ge.nodes)
    lines = ["    each option's effect (GE's assigner run again; against %s):" % mp.mib(
        g.feature_map)]
    for label, changes, _ in option_changes(t):
        if label.startswith("ge.exec.atomicCleanPolicy") and not has_atomic:
            lines.append("      %s: no change: a captured graph has no atomic-clean memory "
                         "known (which kernels need a memset is known only to the compiled "
                         "kernels; docs/memory.md)" % label)
            continue
        opts = dict(ge.options, **changes)
        a = mem_assign.assign(dataclasses.replace(ge, options=opts),
                              {"OP_NO_REUSE_MEM": ",".join(sorted(t.options.no_reuse_ops))})
        fits = mp.verdict(a.ge_check_bytes, t.variables, t.options).fits
        lines.append("      %s: feature map %s (%s), fits %s (%s wins)" % (
            label, mp.mib(a.total_hbm), _delta(a.total_hbm, g.feature_map), YES_NO[fits],
            a.strategy))
    return lines


def largest_row(t):
    """The largest tensors with their shapes and dtypes; an output that is its input's memory
    (an Identity, a Reshape, an Apply's ref output) is not a tensor of its own."""
    a = t.plan.assignment
    by = {n.name: n for n in t.ge_graph.nodes}

    def alias(tensor):
        ref = by[tensor.node].attrs.get("ref_output_to_input") or {}
        return tensor.kind == "out" and str(tensor.index) in {str(k) for k in ref}

    own = [x for x in a.tensors if x.offset is not None and not alias(x)]
    big = sorted(own, key=lambda x: (-x.size, x.begin))[:t.top]
    if not big:
        return []
    lines = ["    largest tensors (of %d with memory of their own):" % len(own)]
    for x in big:
        shapes = by[x.node].shapes
        if x.kind == "out" and shapes and x.index < len(shapes):
            shape, dtype = shapes[x.index]
            planned = mp.dtype_of(dtype, t.assumptions or mp.Assumptions(),
                                  t.options.precision_mode)
            if planned != dtype:   # --fp16 or force_fp16: the size is the planned type's
                dtype = "%s as %s" % (dtype, planned)
            what = "[%s] %s" % (", ".join("?" if d is None else str(d) for d in shape or ()),
                                dtype) if shape is not None else "unknown shape %s" % dtype
        else:
            what = "workspace (assumed)"
        lines.append("      %12s  %-28s %s (%s, steps %d-%s)" % (
            mp.mib(x.size), what, x.name, x.region, x.begin + 1,
            "end" if x.end is None else x.end + 1))
    return lines


GRAPH_ROWS = (feature_map_row, live_row, memory_rows, fits_row, largest_row, effects_row)
"""The table's rows in order (each `row(Table) -> [lines]`)."""


def graph_lines(table, rows=GRAPH_ROWS):
    """The lines of one static graph's table (`table`: a `Table`)."""
    out = []
    for r in rows:
        out.extend(r(table))
    return out


# ------------------------------------------------------------------ the picture
def draw_layout(ax, plan, scale=2 ** 20, limit=4000):
    """Draw the blocks of `plan` (a static GraphPlan) as GE lays them out: each tensor a
    rectangle from its first to its last step in GE's order (x) at its offset (y, MiB), by
    region; at most `limit` tensors (the largest), so a huge graph still draws fast."""
    from matplotlib.collections import PolyCollection
    a = plan.assignment
    n = len(a.order)
    colors = {"reusable": "tab:blue", "atomic": "tab:orange", "zero_copy": "tab:green"}
    placed = sorted((x for x in a.tensors if x.offset is not None and x.region in colors),
                    key=lambda x: -x.size)[:limit]
    for region, color in colors.items():
        polys = []
        for x in placed:
            if x.region != region:
                continue
            lo = x.offset / scale   # offsets are from the start of total_hbm
            hi = lo + x.size / scale
            b = x.begin + 1
            e = (n if x.end is None else x.end + 1) + 1
            polys.append(((b, lo), (e, lo), (e, hi), (b, hi)))
        if polys:
            ax.add_collection(PolyCollection(polys, facecolors=color, edgecolors="black",
                                             linewidths=0.2, alpha=0.6,
                                             label="%s blocks" % region.replace("_", "-")))
    ax.set_xlim(0, n + 2)
    ax.set_ylim(0, max(plan.feature_map / scale, 1e-3) * 1.05)
    ax.set_ylabel("offset (MiB)")
    ax.legend(fontsize=7, loc="upper right")
