"""GE's padded continuous memory on one stream (no TensorFlow): which variants the block
assigner models and what they change. Source: hicann/ge ffdcbc9,
compiler/graph/build/memory/block_mem_assigner.cc ("bma") and memory_block.cc ("mb").

Modelled (separately cleaned inputs below too):
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
- inputs cleaned separately (need_gentask_atomic + atomic_input_index): see
  separate_clean_output.
Refused by name (exit 2): no-padding continuous memory, a continuous output feeding a continuous input (handled by
ContinuousMemMng, continuous_mem.cc), continuous outputs that are ref outputs (bma L1529-1545),
a continuous output of several outputs (not yet: their joint life end).
"""


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


def feeds_continuous_input(prep, node, i):
    """IsOutNodeSetContinuousInput (bma L778-854), padded, one stream: output `i` of `node`
    is an input of a node needing continuous inputs."""
    return any(continuous_input(prep.by[dst], prep.n_in[dst])
               for dst, _ in prep.out_peers.get((node.name, i), ()))


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


def separate_clean_output(prep, node, i):
    """How output `i` of `node` meets separately cleaned continuous inputs, one stream:
    None (plain), "none" (no block: it feeds such a node at an input other than 0, and no
    continuous input at 0; bma GetNoNeedAssignMemoryFlag L124-175), or (size, life_begin,
    life_end): it feeds input 0 of one, so it gets one block for all that node's inputs, the
    sum of their 512-aligned sizes (bma GetOutputTotalSizeAndOutCount L1841-1866), living from
    the earliest of their producers to the last reader of any of them (IsContinuousMemoryReuse
    L925-938, CalNodeAsContinuousInputMaxLife L856-920; one stream: GetDiffStreamMinLifeTime
    takes the producer's id, block_mem_stream.cc L40-48)."""
    peers = prep.out_peers.get((node.name, i), ())
    first = None
    for dst, idx in peers:       # IsOutNodeSetContinuousInput: the first continuous peer decides
        d = prep.by[dst]
        if not continuous_input(d, prep.n_in[dst]):
            continue
        if separate_clean(d, prep.n_in[dst]) and idx == 0:
            first = d
        break
    if first is None:
        if any(idx != 0 and separate_clean(prep.by[dst], prep.n_in[dst]) for dst, idx in peers) \
                and not any(idx == 0 and continuous_input(prep.by[dst], prep.n_in[dst])
                            for dst, idx in peers):
            return "none"
        return None
    total, begin, end = 0, prep.id[node.name], 0
    for dst, idx in peers:
        d = prep.by[dst]
        if not continuous_input(d, prep.n_in[dst]):
            continue
        size = 0
        for k in range(prep.n_in[dst]):
            src = prep.in_src.get((dst, k))
            if src is None:
                continue
            size += -(-max(prep.by[src[0]].outputs[src[1]], 0) // 512) * 512
        total = max(total, size)
    for k in range(prep.n_in[first.name]):
        src = prep.in_src.get((first.name, k))
        if src is None:
            continue
        begin = min(begin, prep.id[src[0]])
        readers = [prep.id[r] for r, _ in prep.out_peers.get(src, ())]
        end = max([end, prep.id[src[0]]] + readers)
    return total, begin, end
