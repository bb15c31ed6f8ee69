"""GE's continuous memory (no TensorFlow): which variants the block assigner models and
what they change. Source: hicann/ge ffdcbc9, compiler/graph/build/memory/
block_mem_assigner.cc ("bma") and memory_block.cc ("mb").

Modelled:
- no-padding continuous inputs (`_no_padding_continuous_input`, e.g. PhonyConcat), also
  reached through ref outputs: the producer of input 0 gets one block (its symbol's size)
  living from the earliest producer of the node's inputs to their last reader; the other
  inputs' producers get none (plan_output, cascade_begins, ref_no_assign, exit_symbol_life);
- inputs cleaned separately (need_gentask_atomic + atomic_input_index on a padded
  continuous-input node): the same, the block sized for all inputs (separate_total);
- the attributes count only on a node with more than one input (continuous input) or output
  (continuous output) anchor (mem_layout_conflict_util.cc IsContinuousInput L684-691,
  IsContinuousOutput L698-705): with one, the node is planned as any other.
Written, refused until a GE case checks them (exit 2 naming them):
- continuous input (ATTR_NAME_CONTINUOUS_INPUT, padded): each producer output feeding it gets
  a block of its own that takes no freed block at level 1 and is flagged continuous (bma
  IsOutNodeSetContinuousInput L778-854, ApplyMemory L1408-1447); at level 2 a continuous block
  only nests whole into another block or takes one whole (mb AddLifeReuseBlock L515-521,
  AddContinuousLifeReuseBlock L382-416); after level 2 the blocks are laid out side by side in
  input order (bma AssignContinuousBlocks L2749-2777, after ReuseBlocksByLifeTime L2651-2652),
  which moves offsets, not the total; graph_mem_assigner.cc AssignContinuousInputMemory
  (L1172-1270) then only writes offsets from a local copy of the running offset.
- continuous output (ATTR_NAME_CONTINUOUS_OUTPUT, padded): one block at output 0 of the sum of
  the 512-aligned output sizes, the other outputs get none; it may take a freed block at level
  1 (continuous flag not set, bma ApplyContinuousMemory L1523-1631).
Refused by name (exit 2): no-padding continuous outputs, a continuous output feeding a
continuous input (handled by
ContinuousMemMng, continuous_mem.cc), continuous outputs that are ref outputs (bma L1529-1545),
a continuous output of several outputs (not yet: their joint life end).
"""
from npu_bridge.ge.ge_op_types import ZERO_MEMORY_TYPES


def continuous_input(node, n_in):
    """MemLayoutConflictUtil::IsContinuousInput (mem_layout_conflict_util.cc L684-691): the
    attribute counts only on a node with more than one input anchor (`n_in`)."""
    return bool(node.attrs.get("continuous_input")) and n_in > 1


def continuous_output(node):
    """IsContinuousOutput (mem_layout_conflict_util.cc L698-705, mem_reuse_strategy.cc
    L366-376): only on a node with more than one output anchor."""
    return bool(node.attrs.get("continuous_output")) and len(node.outputs) > 1


def unmodelled(graph):
    """Names of continuous-memory variants the planner does not model in `graph`."""
    out = []
    by = {n.name: n for n in graph.nodes}
    for src, _, dst, _ in graph.edges:
        if continuous_output(by[src]) and continuous_input(by[dst], graph.node_inputs(by[dst])):
            out.append("continuous memory: continuous output feeding a continuous input (ContinuousMemMng; nodes "
                       "%s -> %s)" % (src, dst))
    for n in graph.nodes:
        n_in = graph.node_inputs(n)
        if ("atomic_input_index" in n.attrs or n.attrs.get("need_gentask_atomic")) and \
                not separate_clean(n, n_in):
            out.append("atomic-clean inputs (ATOMIC_ATTR_INPUT_INDEX / need_gentask_atomic) "
                       "other than a separately cleaned continuous input (node %s)" % n.name)
        if continuous_input(n, n_in) and not separate_clean(n, n_in):
            # the level-1/level-2/layout rules below are written but no GE case checks them yet
            out.append("continuous memory: padded continuous input of several inputs "
                       "(node %s)" % n.name)
        if continuous_output(n):
            out.append("continuous memory: continuous output of several outputs (node %s: their joint life end, "
                       "bma GetContinuousOutputMaxLife)" % n.name)
        if continuous_output(n) and n.attrs.get("ref_output_to_input"):
            out.append("continuous memory: continuous output with ref outputs (node %s)" % n.name)
    return out


def output_total(node):
    """Size of a continuous-output node's one block: the sum of its 512-aligned outputs
    (bma ApplyContinuousMemory L1553-1580), bytes."""
    return sum(-(-max(s, 0) // 512) * 512 for s in node.outputs)


def order_input_blocks(prep, blocks, symbol_blocks):
    """AssignContinuousBlocks (bma L2749-2777): for each continuous-input node whose inputs all
    have a block, move those blocks after the others in input order. Returns the new list."""
    for name in prep.order:
        node = prep.by[name]
        if not continuous_input(node, prep.n_in[name]):
            continue
        mine = []
        for i in range(prep.n_in[name]):
            src = prep.in_src.get((name, i))
            block = symbol_blocks.get(prep.sym.get(("out",) + src)) if src else None
            if block is None or block.child_block or block in mine:
                mine = None
                break
            mine.append(block)
        if not mine:
            continue
        blocks = [b for b in blocks if b not in mine] + mine
    return blocks


def separate_clean(node, n_in):
    """MemReuseUtils::IsSeparateCleanContinuousInputNode (mem_reuse_strategy.cc): a continuous
    input node that cleans its own inputs (need_gentask_atomic and ATOMIC_ATTR_INPUT_INDEX)."""
    return continuous_input(node, n_in) and bool(node.attrs.get("need_gentask_atomic")) and \
        "atomic_input_index" in node.attrs


def nopadding_input(node, n_in):
    """IsNoPaddingContinuousInput (mem_layout_conflict_util.cc L502-509): the node reads its
    inputs as one buffer, no padding between (ATTR_NAME_NOPADDING_CONTINUOUS_INPUT), and has
    more than one input anchor."""
    return bool(node.attrs.get("_no_padding_continuous_input")) and n_in > 1


def _peer_hit(prep, dst, idx):
    """`(hit, nopad)`: the continuous-input node (and its input) that input `idx` of `dst`
    reaches, through refs, looked for first as a no-padding node (nopad True), else as a
    padded one; `(None, False)` when neither."""
    hit = through_ref(prep, dst, idx, True)
    if hit is not None:
        return hit, True
    return through_ref(prep, dst, idx, False), False


def through_ref(prep, dst, idx, nopadding):
    """IsContinuousInputThroughRefNode (mem_layout_conflict_util.cc L606-634): following ref
    outputs from input `idx` of `dst`, the (node, input) of a continuous-input node
    (no-padding or padded); the last one the walk meets, or None."""
    stack, found = [(dst, idx)], None
    while stack:
        nm, k = stack.pop()
        node = prep.by[nm]
        n_in = prep.n_in[nm]
        if nopadding_input(node, n_in) if nopadding else continuous_input(node, n_in):
            found = (nm, k)
        for o in range(len(node.outputs)):
            if prep.ref_input_of(node, o) == k:
                stack.extend(prep.out_peers.get((nm, o), ()))
    return found


def src_through_ref(prep, dst, idx):
    """MemReuseUtils::GetSrcNodeThroughRefNode (mem_reuse_strategy.cc L171-199): the producer
    of input `idx` of `dst`, followed back through ref outputs to the first one."""
    stack, src = [(dst, idx)], None
    while stack:
        src = prep.in_src.get(stack.pop())
        if src is None:
            return None
        r = prep.ref_input_of(prep.by[src[0]], src[1])
        if r is not None and (src[0], r) in prep.in_src:
            stack.append((src[0], r))
    return src


def continuous_lives(prep, node, cnode, streams):
    """CalNodeAsContinuousInputMaxLife (bma L856-920): the one block of a continuous-input
    node `cnode`'s inputs, applied at `node`'s output, lives from the earliest producer of
    those inputs (seen from node's stream, GetDiffStreamMinLifeTime) to the latest reader of
    any of them (GetNodeMaxLife). Returns (life begin, life end) in op ids; `streams` (a
    set) collects the readers' streams."""
    st = prep.streams
    stream = st.stream[node.name]
    begin, end = prep.id[node.name], 0
    for k in range(prep.n_in[cnode.name]):
        src = prep.in_src.get((cnode.name, k))
        if src is None:
            continue
        first = src_through_ref(prep, cnode.name, k)
        begin = min(begin, st.min_life(first[0], stream))
        end = max(end, st.max_life(src[0], src[1], 0, streams, stream)[0])
    return begin, end


class OutPlan:
    """What GE decides for one output before applying memory (bma AssignOutputMemoryWithReuse
    L2350-2375): no_block (GetNoNeedAssignMemoryFlag, IsNoNeedAssignMemory), set_input (the
    output is an input of a continuous-input node: IsOutNodeSetContinuousInput), separate
    (that node cleans its inputs itself), lives (life begin, end) of a block that holds a
    whole continuous input, or None; streams: readers' streams seen."""
    __slots__ = ("no_block", "set_input", "separate", "lives", "streams")

    def __init__(self):
        self.no_block = self.set_input = self.separate = False
        self.lives, self.streams = None, set()


_PLAIN = OutPlan()
_PLAIN.streams = frozenset()          # shared, read only


def has_continuous_inputs(graph):
    """Whether any node needs continuous inputs (padded or no-padding), by attribute."""
    return any(n.attrs.get("continuous_input") or n.attrs.get("_no_padding_continuous_input")
               for n in graph.nodes)


def plan_output(prep, node, i):
    """The OutPlan of output `i` of `node`. IsOutNodeSetContinuousInput (bma L778-854): a
    no-padding continuous input (or a separately cleaned padded one) reached at input 0 gets
    one block at this output, living as continuous_lives says; reached at another input,
    the whole answer is no (the life times found so far stay, as GE's members do). Then
    GetNoNeedAssignMemoryFlag (bma L124-175): an output reaching such a node only at inputs
    other than 0 gets no block; and the symbols of ref_no_assign get none."""
    if not prep.continuous_nodes:
        return _PLAIN                 # no continuous-input node: nothing to find
    plan = OutPlan()
    peers = prep.out_peers.get((node.name, i), ())
    for dst, idx in peers:
        hit, nopad = _peer_hit(prep, dst, idx)
        if hit is None:
            continue
        c = prep.by[hit[0]]
        sep = separate_clean(c, prep.n_in[c.name])
        if c.type in ZERO_MEMORY_TYPES or ((nopad or sep) and hit[1] != 0):
            plan.set_input = False
            break
        if nopad or sep:
            plan.lives = continuous_lives(prep, node, c, plan.streams)
            plan.set_input = plan.set_input or sep
            plan.separate = sep
            continue
        plan.set_input = True
    for dst, idx in peers:
        hit, nopad = _peer_hit(prep, dst, idx)
        if hit is None:
            continue
        if hit[1] == 0:
            plan.no_block = False
            break
        if not nopad and not separate_clean(prep.by[hit[0]], prep.n_in[hit[0]]):
            continue
        plan.no_block = True
    if prep.sym[("out", node.name, i)] in prep.no_assign:
        plan.no_block = True
    return plan


def separate_total(prep, node, i):
    """GetOutputTotalSizeAndOutCount (bma L1841-1866) for a separately cleaned continuous
    input: the largest, over the continuous-input nodes this output feeds, of the sum of
    their inputs' 512-aligned sizes (bytes)."""
    total = 0
    for dst, _ in prep.out_peers.get((node.name, i), ()):
        if not continuous_input(prep.by[dst], prep.n_in[dst]):
            continue
        size = 0
        for k in range(prep.n_in[dst]):
            src = prep.in_src.get((dst, k))
            if src is not None:
                size += -(-max(prep.by[src[0]].outputs[src[1]], 0) // 512) * 512
        total = max(total, size)
    return total


def exit_symbol_life(prep, node, i, life_time):
    """CalExitSymbolNodeLifeTime (bma L1872-1908), for an output joining an existing block:
    (symbol life end, tenant life begin). When the output is input 0 of a no-padding or
    separately cleaned continuous input node (and `node` is not one), the block lives to the
    last reader of that node's inputs and the tenant begins at their first producer
    (CalNodeAsContinuousInputMaxLife sets GE's life_begin_)."""
    begin = prep.id[node.name]
    own_in = prep.n_in[node.name]
    if node.attrs.get("_no_padding_continuous_input") or separate_clean(node, own_in):
        return life_time, begin
    best = life_time
    for dst, idx in prep.out_peers.get((node.name, i), ()):
        d = prep.by[dst]
        if not (d.attrs.get("_no_padding_continuous_input") or
                separate_clean(d, prep.n_in[dst])) or idx != 0:
            continue
        begin, end = continuous_lives(prep, node, d, set())
        best = max(best, end)
    return best, begin


def cascade_begins(prep):
    """GetContinuousNodeLifeTimeBegin / SetContinuousNodeLifeTimeBegin (bma L683-771): for
    each no-padding continuous-input node, the producer of its input 0 (followed through
    cascaded no-padding nodes) gets the earliest id of all the producers feeding it:
    {node name: life begin} (ApplyMemory L1385-1395 starts that producer's outputs there)."""
    out = {}

    def walk(org, nm, index, depth):
        depth += 1
        if depth > 100:                       # kMaxDepthNum
            return
        node = prep.by[nm]
        if node.attrs.get("_no_padding_continuous_input"):
            for k in range(prep.n_in[nm]):
                src = prep.in_src.get((nm, k))
                if src is not None:
                    walk(org, src[0], k, depth)
            if org == nm:
                spread(nm, nm, 0)
            return
        if depth < 2:
            return
        out[org] = min(out.get(org, prep.id[nm]), prep.id[nm])
        if index == 0:
            out[nm] = prep.id[nm]

    def spread(org, nm, depth):
        depth += 1
        if depth > 100:
            return
        if prep.by[nm].attrs.get("_no_padding_continuous_input"):
            for k in range(prep.n_in[nm]):
                src = prep.in_src.get((nm, k))
                if src is not None:
                    spread(org, src[0], depth)
        elif nm in out and org in out:
            out[nm] = out[org]

    for nm in prep.order:
        walk(nm, nm, 0, 0)
    return out


def ref_no_assign(prep):
    """GetRefContinuousInputNodeAndFixedAddrPriorFlag (bma L633-680): a symbol with at least
    two input anchors, as many inputs as outputs, whose last anchor is an input other than 0
    of a no-padding continuous-input node, gets no memory (the first input's block holds it):
    the set of such symbols."""
    out = set()
    for s, anchors in prep.anchors.items():
        ins = sum(1 for a in anchors if a[0] == "in")
        kind, nm, idx = anchors[-1]
        if ins >= 2 and ins == len(anchors) - ins and kind == "in" and idx != 0 and \
                prep.by[nm].attrs.get("_no_padding_continuous_input"):
            out.add(s)
    return out
