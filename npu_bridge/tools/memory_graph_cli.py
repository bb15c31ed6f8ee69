"""`npu-bridge memory --graph FILE.json [--format text|json]`: GE's memory plan of a graph
given as data (one case object of the reference/ge_memtests.json format, docs/memory.md
"A graph given as data"), with each option's effect.

Exit codes: 0 planned; 2 a bad file or a GE feature the planner does not model (the message
names it; no figure is printed).
"""
import dataclasses
import json

from npu_bridge.ge import mem_assign
from npu_bridge.ge.ge_graph import GeGraph, GraphError, NotModelled


class GraphFileError(ValueError):
    """A --graph file that cannot be planned: exit code 2 with this message."""


def load(path):
    """The GeGraph of the case file at `path`. Raises GraphFileError (unreadable, not one
    case object, malformed: every problem listed) or NotModelled (features named)."""
    try:
        with open(path) as f:
            obj = json.load(f)
    except OSError as err:
        raise GraphFileError("--graph %s: cannot read it (%s)" % (path, err.strerror or err))
    except ValueError as err:
        raise GraphFileError("--graph %s: not JSON (%s)" % (path, err))
    if isinstance(obj, dict) and "cases" in obj and "nodes" not in obj:
        raise GraphFileError("--graph %s: holds %d cases; give one case object (with "
                             "'nodes', 'edges', 'options')" % (path, len(obj["cases"] or ())))
    try:
        return GeGraph.from_case(obj)
    except GraphError as err:
        raise GraphFileError("--graph %s: %s" % (path, err))


def _with(graph, **changes):
    opts = dict(graph.options)
    for key, value in changes.items():
        if value is None:
            opts.pop(key, None)
        else:
            opts[key] = value
    return dataclasses.replace(graph, options=opts)


def effects(graph, base):
    """Each option's effect on total_hbm: {label: (options changed, Assignment)}. Reuse off;
    ge.exec.atomicCleanPolicy flipped (when the graph has atomic outputs or workspaces);
    every ge.topoSortingMode other than the effective one; MemoryPriority on/off."""
    out = {}
    g = graph.options
    if g.get("ge.exec.disableReuseMemory", "0") != "1":
        out["reuse off"] = {"ge.exec.disableReuseMemory": "1"}
    if any(n.attrs.get("atomic_output_index") or n.attrs.get("atomic_workspace_info")
           for n in graph.nodes):
        flip = "0" if g.get("ge.exec.atomicCleanPolicy", "0") == "1" else "1"
        out["atomic clean %s" % flip] = {"ge.exec.atomicCleanPolicy": flip}
    for mode, name in ((0, "BFS"), (1, "DFS"), (2, "RDFS"), (3, "StableRDFS")):
        if name != base.topo_mode:
            out["topological order %s" % name] = {"ge.topoSortingMode": str(mode)}
    mp_on = g.get("ge.exec.memoryOptimizationPolicy") == "MemoryPriority"
    out["MemoryPriority %s" % ("off" if mp_on else "on")] = {
        "ge.exec.memoryOptimizationPolicy": None if mp_on else "MemoryPriority"}
    return {label: (changes, mem_assign.assign(_with(graph, **changes)))
            for label, changes in out.items()}


def _mib(n):
    from npu_bridge.ge.memory_plan import mib
    return mib(n)


def plan_object(graph):
    """The --format json object: total_hbm (bytes), the [IMAS] figures, the regions, the
    winning strategy, every strategy's region, and each option's total_hbm."""
    a = mem_assign.assign(graph)
    out = a.to_dict()
    out["imas"] = {"memoffset": a.total_hbm, "theory_min": a.theory_min,
                   "total_size": a.total_size, "no_reuse": a.no_reuse, "zero_copy": a.zero_copy}
    out["effects"] = {label: {"options": {k: v for k, v in ch.items()},
                              "total_hbm": e.total_hbm, "strategy": e.strategy,
                              "atomic": e.atomic}
                      for label, (ch, e) in effects(graph, a).items()}
    return a, out


def text_lines(graph, a, obj):
    lines = ["graph %s: %d nodes, topological order %s (%s)" % (
        a.graph, len(a.order), a.topo_mode, a.topo_reason),
        "  total_hbm (mem_offset[RT_MEMORY_HBM]) %d bytes (%s): reusable %d + atomic %d + "
        "zero-copy %d" % (a.total_hbm, _mib(a.total_hbm), a.reusable, a.atomic, a.zero_copy),
        "  " + a.imas_line(),
        "  strategy: %s wins (%s)" % (a.strategy, ", ".join(
            "%s %d" % (s.name, s.mem_offset) for s in a.strategies)),
        "  largest live set %d bytes at node %s; theory_min %d" % (
            a.largest_live, a.peak_node, a.theory_min)]
    for label, eff in obj["effects"].items():
        delta = eff["total_hbm"] - a.total_hbm
        lines.append("  %-28s total_hbm %d (%s%d)%s" % (
            label + ":", eff["total_hbm"], "+" if delta >= 0 else "-", abs(delta),
            " atomic region %d" % eff["atomic"] if label.startswith("atomic") else ""))
    big = sorted((t for t in a.tensors if t.offset is not None), key=lambda t: -t.size)[:5]
    if big:
        lines.append("  largest tensors:")
        for t in big:
            lines.append("    %12d  %s (%s, offset %d)" % (t.size, t.name, t.region, t.offset))
    return lines


def run(path, fmt="text", out=print):
    """Plan the case file at `path`; print text or one JSON object. Returns the exit code
    (0, or 2 with the message on `err` for a feature not modelled). Raises GraphFileError
    for a bad file."""
    try:
        graph = load(path)
    except NotModelled as err:
        raise GraphFileError("--graph %s: %s" % (path, err))
    a, obj = plan_object(graph)
    if fmt == "json":
        out(json.dumps(obj, sort_keys=True))
    else:
        out("\n".join(text_lines(graph, a, obj)))
    return 0
