"""GE's memory assignment of one graph, end to end (no TensorFlow): `assign(graph)`.

Steps as GE runs them (hicann/ge ffdcbc9, compiler/graph/build/memory/):
1. topological order (`topo_order`), ids = positions;
2. HybridMemAssigner::Assign (hybrid_mem_assigner.cc L69-149): binary-block and max-block
   (+ four range assigners under ge.exec.memoryOptimizationPolicy=MemoryPriority) each plan
   the reusable region (`block_assigner`); the smallest region wins, ties keep the earlier
   (std::sort over at most 6 entries is an insertion sort, hence stable);
3. AtomicMemoryAssigner::ReAssignAtomicMemory (atomic_memory_assigner.cc L96-146, L711-800):
   under ge.exec.atomicCleanPolicy=0 the atomic outputs, then atomic workspaces, of each
   atomic node (graph order) follow the reusable region, each 512-aligned; added to
   theory_min;
4. GraphMemoryAssigner::AssignZeroCopyMemory (graph_mem_assigner.cc L665-751): zero-copy
   blocks (graph outputs, then graph inputs by size) after that.
total_hbm = mem_offset[RT_MEMORY_HBM] = reusable + atomic + zero-copy. GE's out-of-memory check
(graph_mem_assigner.cc ReAssignMemory L610-640) compares reusable + atomic + variables with
the device's figure, before the zero-copy region is added.
"""
import contextlib
import gc
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from npu_bridge.ge import block_assigner as ba
from npu_bridge.ge import mem_block as mb
from npu_bridge.ge.ge_graph import DATA_TYPES
from npu_bridge.ge.topo_order import MODES, topological_order


@dataclass
class StrategyResult:
    """One assigner's figures (bytes): mem_offset (HBM reusable region), theory_min,
    total_size, no_reuse (the `[IMAS]AfterAssignMemory` names), its block count and the
    figure HybridMemAssigner compares (all memory types)."""
    name: str
    mem_offset: int
    theory_min: int
    total_size: int
    no_reuse: int
    blocks: int
    compared: int = 0

    def to_dict(self):
        return dict(self.__dict__)


@dataclass
class Tensor:
    """One output or workspace as placed: offset and size in bytes (offset None: no
    feature-map memory), region 'reusable' | 'atomic' | 'zero_copy' | 'none', life
    [begin, end] in op ids (end None: to the end of the graph)."""
    node: str
    kind: str
    index: int
    size: int
    offset: Optional[int]
    region: str
    begin: int
    end: Optional[int]

    @property
    def name(self):
        return "%s:%s%d" % (self.node, "" if self.kind == "out" else "ws", self.index)


@dataclass
class Assignment:
    """GE's plan of one graph. total_hbm: mem_offset[RT_MEMORY_HBM] in bytes; reusable,
    atomic, zero_copy: its three regions; theory_min / total_size / no_reuse: the
    `[IMAS]AfterAssignMemory` figures (theory_min includes the atomic bytes, as GE's
    memory_offset_ theory_min does); strategy: the winning assigner's name; strategies: all
    assigners' results in GE's order; order: node names in GE's topological order;
    topo_mode: 'BFS' | 'DFS' | 'RDFS' | 'StableRDFS' and why; largest_live: the peak of the
    bytes alive at once (each tensor 512-aligned, output from its producer to its last
    consumer, workspace during its node, graph inputs/outputs for the whole graph) and
    peak_node where it is; reuse_off: total_hbm with ge.exec.disableReuseMemory=1 (every
    request its own block: total_size, plus the graph inputs GE pre-charges to its statistic
    instead, plus the atomic region); session_scope: bytes of session-scope workspaces
    (their own memory type, kSessionScopeMemory|HBM, not in total_hbm); tensors: every
    placed output/workspace; blocks: sizes of the reusable region's top-level blocks;
    streams: the number of streams with memory (GE's `streams[...]` figure)."""
    graph: str
    total_hbm: int
    reusable: int
    atomic: int
    zero_copy: int
    theory_min: int
    total_size: int
    no_reuse: int
    strategy: str
    strategies: List[StrategyResult]
    order: List[str]
    topo_mode: str
    topo_reason: str
    largest_live: int
    peak_node: Optional[str]
    options: Dict[str, str] = field(default_factory=dict)
    tensors: List[Tensor] = field(default_factory=list)
    live_steps: List[int] = field(default_factory=list)
    blocks: List[int] = field(default_factory=list)
    session_scope: int = 0
    reuse_off: int = 0
    streams: int = 1

    @property
    def ge_check_bytes(self):
        """The figure GE's ReAssignMemory checks against device memory (with the variables):
        reusable + atomic regions (the zero-copy region is added after the check)."""
        return self.reusable + self.atomic + self.session_scope

    def imas_line(self):
        """The `[IMAS]AfterAssignMemory` figures as GE names them (graph_mem_assigner.cc
        L1664-1670), one line."""
        return ("[IMAS]AfterAssignMemory : %s memoffset[%d], memtype[0], theory_min[%d], "
                "zero_copy[%d], total_size[%d], no_reuse[%d], streams[%d] topo_mode[%s], mop[%s]"
                % (self.graph, self.total_hbm, self.theory_min, self.zero_copy,
                   self.total_size, self.no_reuse, self.streams, self.topo_mode,
                   self.options.get("ge.exec.memoryOptimizationPolicy", "")))

    def to_dict(self):
        return {"graph": self.graph, "total_hbm": self.total_hbm, "memoffset": self.total_hbm,
                "reusable": self.reusable, "atomic": self.atomic, "zero_copy": self.zero_copy,
                "theory_min": self.theory_min, "total_size": self.total_size,
                "no_reuse": self.no_reuse, "strategy": self.strategy,
                "strategies": [s.to_dict() for s in self.strategies],
                "topo_mode": self.topo_mode, "topo_reason": self.topo_reason,
                "largest_live": self.largest_live, "peak_node": self.peak_node,
                "session_scope": self.session_scope, "nodes": len(self.order)}


def _tensors(run, atomic_placed):
    out = []
    regions = []
    for b in run.blocks:
        if not b.child_block:
            regions.append(b)

    def walk(block, region):
        for t in block.tenants:
            end = None if t.end >= mb.DEFAULT_LIFE else t.end
            out.append(Tensor(t.node, t.kind, t.index, t.real_size, block.offset, region,
                              t.life_begin(), end))
        for c in block.children:
            walk(c, region)
    for b in regions:
        walk(b, "zero_copy" if b.is_zero_copy else "reusable")
    out.extend(atomic_placed)
    return out


def _live(prep):
    """Largest set of tensors alive at once (bytes, 512-aligned), GE's lifetime rules, and
    the bytes alive at each node."""
    n = len(prep.order)
    delta = [0] * (n + 1)
    last = {}
    for (dst, _), (src, o) in prep.in_src.items():
        s = prep.sym[("out", src, o)]
        last[s] = max(last.get(s, -1), prep.id[dst])
    first = {}
    for nm in prep.order:
        node = prep.by[nm]
        if node.type in ba.ZERO_MEMORY_TYPES:
            continue
        for i, size in enumerate(node.outputs):
            if size <= 0 or prep.is_output_ref(node, i) and prep.ref_input_of(node, i) is not None:
                continue
            s = prep.sym[("out", nm, i)]
            first.setdefault(s, prep.id[nm])
        i_ = prep.id[nm]
        for w in node.workspace:
            if w > 0:
                delta[i_] += mb.align(w)
                delta[i_ + 1] -= mb.align(w)
    for s, begin in first.items():
        size = mb.align(prep.sym_size.get(s, 0))
        whole = not prep.pre.get(s, True) and not prep.post.get(s, True)
        b = 0 if whole else begin
        e = n - 1 if whole else max(last.get(s, begin), begin)
        delta[b] += size
        delta[e + 1] -= size
    steps, cur = [], 0
    for i in range(n):
        cur += delta[i]
        steps.append(cur)
    if not steps:
        return 0, None, []
    peak = max(steps)
    return peak, prep.order[steps.index(peak)], steps


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off for the block (back on after, if it was on).
    A plan allocates ~10^5 short-lived objects per 10,000 nodes; with the collector on,
    each 700 of them start a collection and every 10th/100th of those walks the older
    objects too (0.2-0.5 s of a ~2.2 s plan of bench/gen_memgraph.py's 10k graph, measured
    with gc.callbacks). Off, one young-generation collection runs after the plan instead.
    The plan creates no cycle it needs collected while it runs."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def assign(graph, env=None):
    """Plan `graph` (a GeGraph) as GE does; returns an Assignment. `env`: the environment
    GE reads (OP_NO_REUSE_MEM; default none). Runs with the garbage collector paused
    (`gc_paused`)."""
    with gc_paused():
        return _assign(graph, env)


def _assign(graph, env):
    order, mode, why = topological_order(graph)
    prep = ba.Prepared(graph, order, env)
    runs = [ba.BlockAssigner(prep, s).assign() for s in ba.strategies(prep.memory_priority)]
    results = [StrategyResult(r.s.name, r.mem_offset, r.theory_min, r.total_size,
                              r.no_reuse_stat, len(r.blocks), r.size_compared) for r in runs]
    best = min(range(len(runs)), key=lambda k: (runs[k].size_compared, k))
    run = runs[best]
    offset = run.mem_offset
    theory_min = run.theory_min
    atomic_placed = []
    start = offset
    for nm in [n.name for n in graph.nodes]:
        node = prep.by[nm]
        if not prep.atomic_node(node):
            continue
        for i in node.attrs.get("atomic_output_index") or []:
            if prep.is_zero_copy(node, i):
                continue
            size = node.outputs[i]
            atomic_placed.append(Tensor(nm, "out", i, size, offset, "atomic", 0, None))
            offset = mb.align(offset + size)
        info = node.attrs.get("atomic_workspace_info") or {}
        for sub in info.values():
            for k, size in sorted((int(a), int(b)) for a, b in (sub or {}).items()):
                atomic_placed.append(Tensor(nm, "ws", k, size, offset, "atomic", 0, None))
                offset = mb.align(offset + size)
    atomic = offset - start
    theory_min += atomic
    zc_start = offset
    inputs = []
    for b in run.zero_copy_blocks:
        data = [t for t in b.tenants if prep.by[t.node].type in DATA_TYPES]
        if data:
            inputs.append((data[0].no_align_size, b))
            continue
        b.resize()
        b.place(offset)
        offset += b.size
    for _, b in sorted(inputs, key=lambda x: x[0]):
        b.resize()
        b.place(offset)
        offset += b.size
    peak, peak_node, steps = _live(prep)
    return Assignment(
        graph=graph.name, total_hbm=offset, reusable=run.mem_offset, atomic=atomic,
        zero_copy=offset - zc_start, theory_min=theory_min, total_size=run.total_size,
        no_reuse=run.no_reuse_stat, strategy=run.s.name, strategies=results, order=order,
        topo_mode=MODES[mode], topo_reason=why, largest_live=peak, peak_node=peak_node,
        options=dict(graph.options), tensors=_tensors(run, atomic_placed),
        live_steps=steps,
        blocks=[b.size for b in run.blocks if not b.child_block and not b.is_zero_copy
                and b.memory_type == ba.HBM],
        session_scope=run.mem_offsets.get(ba.SESSION_SCOPE, 0),
        reuse_off=run.total_size + (prep.theory_precharge if prep.reuse else 0) + atomic,
        # MemoryStat stream_count_: the streams with a pool of HBM blocks (bma L2644-2646)
        streams=len({b.stream for b in run.blocks if b.memory_type == ba.HBM}) or 1)
