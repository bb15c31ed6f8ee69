"""The graph description the partition reads (no TensorFlow), and the graph as the adapter's
pass holds it: node ids and edge ids in TensorFlow's order, and the rewrites the pass makes
before it partitions. Rules and sources: docs/partition.md.

A `PGraph` is a GraphDef-like list of `PNode`s. Each data input names its producer, the
producer's output slot and the dtype *the consumer declares* for that input (TensorFlow's
input type: `float32_ref` for a Ref input such as `ApplyMomentum`'s `var`, `float32` for
`Identity`'s, which reads a Ref output as a value). Outputs are `(shape, dtype)` pairs, shape a
tuple of ints (-1 or None for an unknown dimension) or None for an unknown rank; dtype a
TensorFlow dtype name (`float32`, `string`, `resource`, `variant`, `float32_ref`).
"""
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple, Tuple

_EMPTY = MappingProxyType({})
CONTROL = -1   # TensorFlow's Graph::kControlSlot
NEXT_ITERATION = frozenset(("NextIteration", "RefNextIteration"))


class PNode(NamedTuple):
    """One node: `inputs` ((producer, slot, dtype), ...) in input order, `controls` producer
    names, `outputs` ((shape, dtype), ...), `attrs` the attributes the pass reads
    (`_without_npu_compile`, `_op_max_size`, `frame_name` of an Enter, `funcs`: names of the
    functions its attributes call, `op_names` of `_UnaryOpsComposition`,
    `_graph_dynamic_input`, `_graph_dynamic_graph_execute_mode`, `_NoNeedOptimize`)."""
    name: str
    op: str
    inputs: Tuple[Tuple[str, int, str], ...] = ()
    controls: Tuple[str, ...] = ()
    outputs: Tuple[Tuple[Any, str], ...] = ()
    attrs: Mapping[str, Any] = _EMPTY


class PGraph(NamedTuple):
    """A graph: `nodes` in GraphDef order; `functions`: function name -> the (op, funcs) of its
    nodes (what `IsNpuSupportingFunc` walks)."""
    name: str
    nodes: Tuple[PNode, ...]
    functions: Mapping[str, Tuple[Tuple[str, Tuple[str, ...]], ...]] = _EMPTY


def node(name, op, inputs=(), out=(), **attrs):
    """A `PNode` from a compact spelling: `inputs` strings "src", "src:1", "src@float32_ref",
    "src:1@string" (dtype default float32) and "^src" (control); `out` a dtype, or a list of
    dtypes or (shape, dtype) pairs."""
    data, ctl = [], []
    for spec in inputs:
        if spec.startswith("^"):
            ctl.append(spec[1:])
            continue
        spec, _, dtype = spec.partition("@")
        src, _, slot = spec.rpartition(":") if ":" in spec else (spec, "", "0")
        data.append((src, int(slot), dtype or "float32"))
    outs = (out,) if isinstance(out, str) else tuple(out)
    outs = tuple((None, o) if isinstance(o, str) else (tuple(o[0]) if o[0] is not None
                                                        else None, o[1]) for o in outs)
    return PNode(name, op, tuple(data), tuple(ctl), outs, MappingProxyType(dict(attrs)))


def is_ref(dtype):
    return dtype.endswith("_ref")


def base(dtype):
    return dtype[:-4] if dtype.endswith("_ref") else dtype


class Edge:
    """An edge of the working graph (TensorFlow's Edge): ids only grow, a removed edge
    leaves a hole."""
    __slots__ = ("id", "src", "slot", "dst", "dst_slot", "dtype")

    def __init__(self, eid, src, slot, dst, dst_slot, dtype):
        self.id, self.src, self.slot, self.dst, self.dst_slot, self.dtype = (
            eid, src, slot, dst, dst_slot, dtype)

    @property
    def control(self):
        return self.slot == CONTROL


class Work:
    """The pass's mutable graph: `ids` node name -> id (creation order, from 2: TensorFlow's
    _SOURCE and _SINK are 0 and 1), `op`, `attrs`, `outputs`, `edges` (id-indexed, None where
    removed), `ins` / `outs` node -> edge ids."""

    def __init__(self):
        self.ids, self.op, self.attrs, self.outputs = {}, {}, {}, {}
        self.input_types = {}
        self.edges = []
        self.ins, self.outs = {}, {}
        self.next_id = 2

    def add_node(self, name, op, attrs=_EMPTY, outputs=(), input_types=()):
        self.ids[name] = self.next_id
        self.next_id += 1
        self.op[name], self.attrs[name], self.outputs[name] = op, dict(attrs), tuple(outputs)
        self.input_types[name] = list(input_types)
        self.ins[name], self.outs[name] = [], []

    def add_edge(self, src, slot, dst, dst_slot, dtype=None):
        if dtype is None and slot != CONTROL:
            types = self.input_types[dst]
            dtype = types[dst_slot] if dst_slot < len(types) else "float32"
        e = Edge(len(self.edges), src, slot, dst, dst_slot, dtype)
        self.edges.append(e)
        self.outs[src].append(e.id)
        self.ins[dst].append(e.id)
        return e

    def remove_edge(self, e):
        self.edges[e.id] = None
        self.outs[e.src].remove(e.id)
        self.ins[e.dst].remove(e.id)

    def remove_node(self, name):
        for eid in list(self.ins[name]) + list(self.outs[name]):
            if self.edges[eid] is not None:
                self.remove_edge(self.edges[eid])
        for table in (self.ids, self.op, self.attrs, self.outputs, self.ins, self.outs,
                      self.input_types):
            del table[name]

    def live_edges(self):
        return [e for e in self.edges if e is not None]

    def in_edges(self, name):
        return [self.edges[i] for i in self.ins[name]]

    def out_edges(self, name):
        return [self.edges[i] for i in self.outs[name]]

    def nodes(self):
        """Op nodes in id order."""
        return sorted(self.ids, key=self.ids.__getitem__)

    def output_type(self, name, slot):
        outs = self.outputs[name]
        return outs[slot][1] if 0 <= slot < len(outs) else "float32"

    def output_shape(self, name, slot):
        outs = self.outputs[name]
        return outs[slot][0] if 0 <= slot < len(outs) else None


def construct(graph: PGraph) -> Work:
    """The graph as TensorFlow's GraphConstructor builds it from a GraphDef (what the pass
    receives): nodes are created from a ready set, smallest GraphDef index first; a node's
    input edges are made when it is created, in input order; a Merge fed by a NextIteration
    waits for one input only and its back edges are added last (tensorflow
    core/common_runtime/graph_constructor.cc, InitFromEdges / Convert / AddBackEdges).
    Raises ValueError naming a node whose input is not in the graph, or nodes in a cycle."""
    index = {n.name: i for i, n in enumerate(graph.nodes)}
    missing = sorted({"%s <- %s" % (n.name, src) for n in graph.nodes
                      for src in [i[0] for i in n.inputs] + list(n.controls) if src not in index})
    if missing:
        raise ValueError("graph %r: inputs not in the graph: %s" % (graph.name, ", ".join(missing)))
    next_iter = {n.name for n in graph.nodes if n.op in NEXT_ITERATION}
    pending = []
    consumers = [[] for _ in graph.nodes]
    for i, n in enumerate(graph.nodes):
        count = len(n.inputs) + len(n.controls)
        if n.op in ("Merge", "RefMerge") and any(s in next_iter for s, _, _ in n.inputs):
            count = len(n.controls) + 1
        pending.append(count)
        for src in [s for s, _, _ in n.inputs] + list(n.controls):
            consumers[index[src]].append(i)
    import heapq
    ready = [i for i, c in enumerate(pending) if c == 0]
    heapq.heapify(ready)
    work = Work()
    back = []
    while ready:
        i = heapq.heappop(ready)
        n = graph.nodes[i]
        work.add_node(n.name, n.op, n.attrs, n.outputs, [d for _, _, d in n.inputs])
        for slot, (src, out, dtype) in enumerate(n.inputs):
            if src in work.ids:
                work.add_edge(src, out, n.name, slot, dtype)
            else:
                back.append((src, out, n.name, slot, dtype))
        for src in n.controls:
            if src in work.ids:
                work.add_edge(src, CONTROL, n.name, CONTROL)
            else:
                back.append((src, CONTROL, n.name, CONTROL, None))
        for c in consumers[i]:
            pending[c] -= 1
            if pending[c] == 0:
                heapq.heappush(ready, c)
    if len(work.ids) != len(graph.nodes):
        stuck = [n.name for n in graph.nodes if n.name not in work.ids]
        raise ValueError("graph %r has a cycle that is not a while loop: %s"
                         % (graph.name, ", ".join(stuck[:8])))
    for src, out, dst, slot, dtype in back:
        work.add_edge(src, out, dst, slot, dtype)
    return work


# --- rewrites the pass makes before it partitions (ProcessGraph) ---------------------------

def split_unary_ops(work, name):
    """`_UnaryOpsComposition` becomes a chain of its ops, named `<node>_<i>_<op>`
    (om_partition_subgraphs_pass.cc:2636-2666)."""
    first = work.in_edges(name)[0]
    pre, slot = first.src, first.slot
    dtype = base(work.output_type(pre, slot))
    last = None
    for i, op in enumerate(work.attrs[name].get("op_names", ())):
        last = "%s_%d_%s" % (name, i, op)
        work.add_node(last, op, {}, ((work.output_shape(pre, slot), dtype),), (dtype,))
        work.add_edge(pre, slot, last, 0)
        pre, slot = last, 0
    if last is not None:
        for e in list(work.out_edges(name)):
            work.add_edge(last, 0 if not e.control else CONTROL, e.dst, e.dst_slot, e.dtype)
    work.remove_node(name)


def fuse_accumulate_n(work, name):
    """TensorFlow's AccumulateN lowering (TemporaryVariable, Assign, AssignAdd..,
    DestroyTemporaryVariable) fused back into one `AccumulateNV2` of the same name
    (om_partition_subgraphs_pass.cc:51-83, :2668-2699)."""
    inputs, controls, delete = [], [], []
    for e in work.in_edges(name):
        src = e.src
        if work.op[src] == "AssignAdd":
            for a in work.in_edges(src):
                if work.op[a.src] != "Assign":
                    inputs.append((a.src, a.slot))
                    continue
                controls.extend(c.src for c in work.in_edges(a.src) if c.control)
        else:
            for a in work.in_edges(src):
                if work.op[a.src] in ("Const", "TemporaryVariable") and not a.control:
                    delete.append(a.src)
        delete.append(src)
    out_type = base(work.output_type(name, 0))
    outs = list(work.out_edges(name))
    work.remove_node(name)
    for d in dict.fromkeys(delete):
        if d in work.ids:
            work.remove_node(d)
    work.add_node(name, "AccumulateNV2", {}, ((None, out_type),), [out_type] * len(inputs))
    for slot, (src, out) in enumerate(inputs):
        work.add_edge(src, out, name, slot)
    for c in controls:
        if c in work.ids:
            work.add_edge(c, CONTROL, name, CONTROL)
    for e in outs:
        if e.dst in work.ids:
            work.add_edge(name, CONTROL if e.control else 0, e.dst, e.dst_slot, e.dtype)


def route_save_v2(work):
    """Under mix_compile_mode the value inputs of each SaveV2 (not string, not resource) go
    through one new IdentityN `<SaveV2 name>dummyIdentityN`, which also takes SaveV2's control
    inputs (om_partition_subgraphs_pass.cc:997-1049). Returns the names of the new nodes."""
    made = []
    for name in [n for n in work.nodes() if work.op[n] == "SaveV2"]:
        data, ctl = [], []
        for e in work.in_edges(name):
            if e.control:
                ctl.append(e)
            elif base(e.dtype) not in ("string", "resource"):
                data.append(e)
        if len(data) <= 1:
            continue
        ident = name + "dummyIdentityN"
        types = [base(work.output_type(e.src, e.slot)) for e in data]
        work.add_node(ident, "IdentityN", {}, tuple(
            (work.output_shape(e.src, e.slot), t) for e, t in zip(data, types)), types)
        for i, e in enumerate(data):
            work.add_edge(e.src, e.slot, ident, i)
        for e in ctl:
            work.add_edge(e.src, CONTROL, ident, CONTROL)
        for i, e in enumerate(data):
            work.remove_edge(e)
            work.add_edge(ident, i, name, e.dst_slot, e.dtype)
        for e in ctl:
            work.remove_edge(e)
        made.append(ident)
    return made


def frames(work) -> Mapping[str, Tuple[str, Tuple[str, ...]]]:
    """Node -> (its loop frame's name, the names of its frame and every enclosing frame,
    innermost first), as TensorFlow's BuildControlFlowInfo assigns frames
    (core/graph/control_flow.cc): an Enter opens the frame its `frame_name` names and is in it;
    an Exit is in the frame it leaves, its consumers in the parent frame. "" and () outside
    every loop."""
    frame_of, parent_of = {}, {}
    enter = ("Enter", "RefEnter")
    order = work.nodes()
    roots = [n for n in order if not work.ins[n]]
    for r in roots:
        frame_of[r] = r if work.op[r] in enter else None
        parent_of[r] = None
    queue = list(roots)
    seen = set(roots)
    head = 0
    while head < len(queue):
        cur = queue[head]
        head += 1
        f = frame_of[cur]
        if work.op[cur] in ("Exit", "RefExit") and f is not None:
            f = parent_of.get(f)
        for e in work.out_edges(cur):
            out = e.dst
            if out in seen:
                continue
            seen.add(out)
            queue.append(out)
            if work.op[out] in enter:
                frame_of[out], parent_of[out] = out, f
            else:
                frame_of[out] = f
    result = {}
    for n in order:
        chain = []
        f = frame_of.get(n)
        while f is not None:
            chain.append(work.attrs[f].get("frame_name", ""))
            f = parent_of.get(f)
        result[n] = (chain[0] if chain else "", tuple(c for c in chain if c))
    return result


class Cycles:
    """TensorFlow's GraphCycles (compiler/jit/graphcycles, after Pearce and Kelly): a DAG of
    clusters kept in a topological rank order, with edge contraction that refuses to make a
    cycle. Node indices are the clusters' own."""

    def __init__(self, order, edges):
        """`order`: every index; `edges`: (a, b) pairs. Raises ValueError on a cycle."""
        self.out = {i: set() for i in order}
        self.inn = {i: set() for i in order}
        for a, b in edges:
            if a != b:
                self.out[a].add(b)
                self.inn[b].add(a)
        indeg = {i: len(self.inn[i]) for i in order}
        import heapq
        ready = [i for i in order if not indeg[i]]
        heapq.heapify(ready)
        self.rank = {}
        while ready:
            i = heapq.heappop(ready)
            self.rank[i] = len(self.rank)
            for j in self.out[i]:
                indeg[j] -= 1
                if not indeg[j]:
                    heapq.heappush(ready, j)
        if len(self.rank) != len(order):
            raise ValueError("cycle")

    def has_edge(self, a, b):
        return b in self.out[a]

    def reachable(self, x, y):
        """Is y reachable from x (IsReachableNonConst): a DFS bounded by y's rank."""
        if x == y:
            return True
        rank, limit = self.rank, self.rank[y]
        if rank[x] >= limit:
            return False
        stack, seen = [x], {x}
        out = self.out
        while stack:
            for n in out[stack.pop()]:
                if n == y:
                    return True
                if n not in seen and rank[n] < limit:
                    seen.add(n)
                    stack.append(n)
        return False

    def insert(self, x, y):
        """Add x -> y, reordering ranks where needed (InsertEdge); False on a cycle."""
        if x == y:
            return False
        if y in self.out[x]:
            return True
        self.out[x].add(y)
        self.inn[y].add(x)
        rank = self.rank
        if rank[x] < rank[y]:
            return True
        upper, lower = rank[x], rank[y]
        fwd, stack = {y}, [y]
        while stack:
            for n in self.out[stack.pop()]:
                if n == x:
                    self.out[x].discard(y)
                    self.inn[y].discard(x)
                    return False
                if n not in fwd and rank[n] < upper:
                    fwd.add(n)
                    stack.append(n)
        back, stack = {x}, [x]
        while stack:
            for n in self.inn[stack.pop()]:
                if n not in back and rank[n] > lower:
                    back.add(n)
                    stack.append(n)
        moved = sorted(back, key=rank.__getitem__) + sorted(fwd, key=rank.__getitem__)
        slots = sorted(rank[n] for n in moved)
        for n, r in zip(moved, slots):
            rank[n] = r
        return True

    def contract(self, a, b):
        """Merge b into a along the edge a -> b unless another path a ~> b exists
        (ContractEdge): the surviving index (the one with more edges) or None."""
        self.out[a].discard(b)
        self.inn[b].discard(a)
        if self.out[a] and self.inn[b] and self.reachable(a, b):
            self.out[a].add(b)
            self.inn[b].add(a)
            return None
        if len(self.inn[b]) + len(self.out[b]) > len(self.inn[a]) + len(self.out[a]):
            a, b = b, a
        outs, ins = self.out.pop(b), self.inn.pop(b)
        for y in outs:
            self.inn[y].discard(b)
        for y in ins:
            self.out[y].discard(b)
        del self.rank[b]
        for y in outs:
            self.insert(a, y)
        for y in ins:
            self.insert(y, a)
        return a
