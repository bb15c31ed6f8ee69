"""GE's topological order of a graph (the memory assigner's time axis), no TensorFlow.

Rules, all from graph_metadef/graph/normal_graph/compute_graph.cc (hicann/ge ffdcbc9):
- mode (`GetTopoSortingStrategy` L43-64): `ge.topoSortingMode` 0 BFS, 1 DFS, 2 RDFS,
  3 StableRDFS; unset or empty: BFS for a training graph (ge.graphRunMode >= 1,
  ge_context.cc GetTrainGraphFlag), DFS otherwise.
- sources (`SortNodes` L2374-2415): nodes without in-edges; non-Data sources are taken after
  the Data sources, each group in insertion order.
- DFS (L1502-1557): a stack; a node becomes ready when its last in-edge is consumed; ready
  successors are pushed per output anchor in edge order, then control successors.
- BFS (L1656-1694, `CollectBreadthOutNode` L2221-2255): a FIFO; the successors made ready
  by one node are queued in name order; the next source is taken only when the FIFO is empty.
- RDFS (L1618-1654): reverse DFS from the sink nodes; inputs visited by output size
  (larger first pushed, so the smaller is walked first; `NodeCmp` L109-120).
- StableRDFS (L1559-1616): reverse DFS from every node in insertion order, inputs in their
  existing order.
- `ge.exec.memoryOptimizationPolicy=MemoryPriority`: DFS/BFS pop the smallest
  (out-data-node count, output bytes, name) (`NodeOutInfo` L122-147), and with RDFS or
  MemoryPriority (not StableRDFS) `DelayTopoSort` (L239-278) moves short chains fed only by
  Data/Const/Variable nodes to just before their first consumer.
Node sizes for the ordering are the output bytes given (GE computes them from the shape,
`TensorUtils::CalcTensorMemSize`: the same figure for an unpadded tensor).
"""
import heapq

from npu_bridge.ge.ge_graph import DATA_TYPES

MODES = {0: "BFS", 1: "DFS", 2: "RDFS", 3: "StableRDFS"}
CONST_TYPES = frozenset(("Const", "Constant", "ConstantOp", "FileConstant"))
VARIABLE_TYPES = frozenset(("Variable", "VariableV2", "VarHandleOp", "RefData"))
_NEXT_ITERATION = frozenset(("NextIteration", "RefNextIteration"))


def sorting_mode(graph):
    """(mode int, how it was chosen) for `graph` (a GeGraph) per GetTopoSortingStrategy."""
    text = graph.options.get("ge.topoSortingMode", "")
    if text.strip():
        mode = int(text)
        if mode in MODES:
            return mode, "ge.topoSortingMode=%s" % text
    if graph.train:
        return 0, "unset; training graph (ge.graphRunMode>=1): BFS"
    return 1, "unset; not a training graph: DFS"


class _Adj:
    """Adjacency of a GeGraph in GE's anchor order."""

    def __init__(self, graph):
        self.nodes = [n.name for n in graph.nodes]
        self.by = {n.name: n for n in graph.nodes}
        self.index = {nm: i for i, nm in enumerate(self.nodes)}
        self.out_data = {nm: {} for nm in self.nodes}     # name -> {out idx: [dst...]}
        self.in_data = {nm: [] for nm in self.nodes}      # name -> [src...] by in index
        self.out_ctrl = {nm: [] for nm in self.nodes}
        self.in_ctrl = {nm: [] for nm in self.nodes}
        ins = {}
        for src, o, dst, i in graph.edges:
            self.out_data[src].setdefault(o, []).append(dst)
            ins.setdefault(dst, []).append((i, src))
        for dst, lst in ins.items():
            self.in_data[dst] = [s for _, s in sorted(lst)]
        for src, dst in graph.control:
            self.out_ctrl[src].append(dst)
            self.in_ctrl[dst].append(src)
        sizes = {}
        for n in graph.nodes:
            sizes[n.name] = sum(n.outputs)
        self.size = sizes

    def in_edges(self, nm):
        count = len(self.in_data[nm]) + len(self.in_ctrl[nm])
        count -= sum(1 for s in self.in_data[nm] if self.by[s].type in _NEXT_ITERATION)
        return count

    def successors(self, nm):
        """Per output anchor (index order) the data successors, then control successors."""
        out = [self.out_data[nm][o] for o in sorted(self.out_data[nm])]
        out.append(self.out_ctrl[nm])
        return out

    def in_all(self, nm):
        return self.in_data[nm] + self.in_ctrl[nm]

    def out_all(self, nm):
        return [d for o in sorted(self.out_data[nm]) for d in self.out_data[nm][o]] + \
            self.out_ctrl[nm]

    def out_data_count(self, nm):
        return sum(len(v) for v in self.out_data[nm].values())


def _sources(adj, counts):
    """SortNodes: the stack (pop from the back) of the nodes without in-edges."""
    stack = []
    spec = 0
    for nm in adj.nodes:
        counts[nm] = adj.in_edges(nm)
        if counts[nm] == 0:
            if adj.by[nm].type not in DATA_TYPES and adj.by[nm].type not in ("Input", "Recv",
                                                                                "Send"):
                stack.insert(0, nm)
                spec += 1
            else:
                stack.insert(spec, nm)
    return stack


class _Stack:
    """TopoSortStack: DFS pushes to the back, BFS to the front, both pop the back; with
    MemoryPriority a priority map pops the smallest NodeOutInfo."""

    def __init__(self, adj, priority, dfs):
        self.adj, self.priority, self.dfs = adj, priority, dfs
        self.items = []

    def push(self, nm):
        if self.priority:
            heapq.heappush(self.items, (self.adj.out_data_count(nm), self.adj.size[nm], nm))
        elif self.dfs:
            self.items.append(nm)
        else:
            self.items.insert(0, nm)

    def pop(self):
        if self.priority:
            return heapq.heappop(self.items)[2]
        return self.items.pop()

    def __bool__(self):
        return bool(self.items)


def _dfs(adj, priority):
    counts = {}
    stack = _sources(adj, counts)
    st = _Stack(adj, priority, True)
    for nm in stack:
        st.push(nm)
    order = []
    while st:
        nm = st.pop()
        order.append(nm)
        for group in adj.successors(nm):
            ready = []
            for d in group:
                counts[d] -= 1
                if counts[d] == 0:
                    ready.append(d)
            for d in ready:
                st.push(d)
    return order


def _bfs(adj, priority):
    counts = {}
    stack_input = _sources(adj, counts)
    st = _Stack(adj, priority, False)
    order = []
    while stack_input or st:
        nm = st.pop() if st else stack_input.pop()
        order.append(nm)
        ready = {}
        for group in adj.successors(nm):
            for d in group:
                counts[d] -= 1
                if counts[d] == 0:
                    ready.setdefault(d, d)
        for d in sorted(ready):
            st.push(d)
    return order


def _reverse_dfs(adj, stable):
    status = {nm: 0 for nm in adj.nodes}    # 0 not walked, 1 walking, 2 walked
    order = []
    starts = adj.nodes if stable else [nm for nm in adj.nodes if not adj.out_all(nm)]
    for start in starts:
        if stable and status[start] == 2:
            continue
        stack = [start]
        while stack:
            cur = stack[-1]
            if status[cur] == 0:
                status[cur] = 1
                ins = set(adj.in_all(cur))
                if stable:
                    ins = [s for s in ins if status[s] == 0]
                    stack.extend(sorted(ins, key=lambda s: -adj.index[s]))
                else:
                    # NodeCmp: larger output first, equal sizes: larger name first
                    stack.extend(sorted(ins, key=lambda s: (-adj.size[s], _neg(s))))
                continue
            stack.pop()
            if status[cur] == 1:
                status[cur] = 2
                order.append(cur)
    return order


class _neg:
    """Sort key reversing string order (strcmp > 0 first)."""

    def __init__(self, s):
        self.s = s

    def __lt__(self, other):
        return self.s > other.s

    def __eq__(self, other):
        return self.s == other.s


def _long_life_inputs(adj, nm):
    match = False
    for src in adj.in_data[nm]:
        t = adj.by[src].type
        if t in CONST_TYPES or t in VARIABLE_TYPES or t in DATA_TYPES or t == "ConstPlaceHolder":
            match = True
        else:
            return False
    return match


def _delay(adj, order):
    """DelayTopoSort (compute_graph.cc L239-278)."""
    ids = {nm: i for i, nm in enumerate(order)}
    slots = [[True, [nm]] for nm in order]
    moved = 0
    for i, slot in enumerate(slots):
        chain = slot[1]
        if not slot[0] or not chain:
            continue
        if len(chain) == 1 and not _long_life_inputs(adj, chain[0]):
            continue
        last = chain[-1]
        if len(chain) != 1 and len(adj.in_data[last]) != 1:
            continue
        outs = adj.out_all(last)
        if not outs:
            continue
        to = min(ids[d] for d in outs)
        if to < len(slots) and to > i + 1:
            slots[to][1] = chain + slots[to][1]
            if len(outs) > 1:
                slots[to][0] = False
            slot[1] = []
            moved += 1
    if not moved:
        return order
    return [nm for s in slots for nm in s[1]]


def topological_order(graph):
    """The node names of `graph` (a GeGraph) in GE's order; their positions are GE's op ids.
    Returns (names, mode, how the mode was chosen)."""
    adj = _Adj(graph)
    mode, why = sorting_mode(graph)
    priority = graph.options.get("ge.exec.memoryOptimizationPolicy") == "MemoryPriority"
    if mode == 0:
        order = _bfs(adj, priority)
    elif mode == 1:
        order = _dfs(adj, priority)
    else:
        order = _reverse_dfs(adj, stable=(mode == 3))
    if (priority and mode != 3) or mode == 2:
        order = _delay(adj, order)
    return order, mode, why
