"""What GE's level-1 walk does at each node that no strategy changes, found once (no
TensorFlow; not GE's structure: a speed-up, the same decisions).

HybridMemAssigner runs the binary-block and max-block assigners (and four range
assigners under MemoryPriority) over the same nodes in the same order (hybrid_mem_assigner.cc
L80-118); only the block sizes (GetBlockSize) and the blocks found free differ. Per node
(block_mem_assigner.cc, hicann/ge ffdcbc9, "bma"), `node_steps` keeps:
- the outputs that get memory, in order (AssignMemoryWithReuse L2595-2662 with
  IsNoNeedAssignMemory, IsAtomicOutputMemory, the continuous-output rule L1573-1576, and
  the op reuse lost at an atomic continuous input, L2382-2384), each with what
  ApplyOutMemory (L1912-2034) and ApplyMemory (L1369-1460) read: its symbol, sizes (bytes),
  life begin and end (op ids), the reuse flags, the tenant's block-type attributes;
- the workspaces (L2414-2508: reuse flags, session scope, atomic workspaces left out);
- the symbols whose readers this node is (ReleaseInputNodeOutMemory L2228-2271), in
  GE's order (by producer id under MemoryPriority).
"""
from npu_bridge.ge import continuous_mem as cm
from npu_bridge.ge import mem_block as mb
from npu_bridge.ge.ge_graph import DATA_TYPES, ZERO_MEMORY_TYPES

HBM = 0
SESSION_SCOPE = (1 << 32) | HBM   # kSessionScopeMemory | RT_MEMORY_HBM (GetWorkSpaceMemoryType)
NO_RELEASE_PRODUCERS = frozenset(("Const", "Constant", "ConstantOp", "FastrcnnPredictions"))
_NONE, _DATA, _ATOMIC = frozenset(), frozenset(("data",)), frozenset(("concentrate_atomic",))


class Apply:
    """ApplyMemory's fixed inputs for one output or workspace: node, node_id (op id), kind
    ('out'/'ws'), index, sym, real (bytes), stream, pre/post reuse flags, prior
    (diff-stream prior), life_begin/life_end (op ids; 0: no end yet), is_reuse (the new
    block's reuse flag), try_pick (a freed block may be taken), same_out, continuous,
    memory_type, attrs (the tenant's block-type attributes)."""
    __slots__ = ("node", "node_id", "kind", "index", "sym", "real", "stream", "pre", "post",
                 "prior", "life_begin", "life_end", "is_reuse", "try_pick", "same_out",
                 "continuous", "memory_type", "attrs")

    def __init__(self, p, node, kind, index, real, op_reuse, zero_copy, attrs, sym=None,
                 ws_no_reuse=False, memory_type=HBM, continuous=False, lives=None):
        name = node.name
        node_id = p.id[name]
        self.node, self.node_id, self.kind, self.index = name, node_id, kind, index
        self.sym, self.real, self.memory_type, self.continuous = sym, real, memory_type, \
            continuous
        self.stream = p.streams.stream[name]
        out = kind == "out"
        pre = p.pre.get(sym, False) if out else True
        no_reuse = bool(node.attrs.get("no_reuse_mem_flag")) or (not out and ws_no_reuse)
        life_begin, life_end = lives or (node_id, 0)
        if no_reuse or not pre:
            life_begin = mb.MIN_LIFE
        elif out and p.cascade and p.cascade.get(name, life_begin) < life_begin:
            life_begin = p.cascade[name]      # GetContinuousNodeLifeTimeBegin
        post = p.post.get(sym, True) if out else True
        if out and not post:
            life_end = mb.MAX_LIFE
        self.pre, self.post, self.life_begin, self.life_end = pre, post, life_begin, life_end
        self.prior = p.prior.get(sym, False) if out else False
        self.same_out = out and (name, index) in p.same_out
        self.is_reuse = p.reuse and not no_reuse and op_reuse
        self.try_pick = (self.is_reuse and pre and not zero_copy and not continuous
                         and not self.same_out)
        self.attrs = attrs


class Out:
    """One output that gets memory: index, sym, size (bytes asked when joining the symbol's
    block), op_reuse, plan (continuous_mem.OutPlan), is_ref (a reuse-input output: no block
    of its own), apply (Apply of a new block, None for is_ref), zero_copy, refs (readers
    counted on a new block), out_count (readers of this output), separate (the symbol size
    this run records), join ((symbol life end, tenant begin) when joining, found once),
    join_reuse (the joined block stays reusable), name, node_id, stream, attrs (the
    tenant's)."""
    __slots__ = ("index", "sym", "size", "op_reuse", "plan", "is_ref", "apply", "zero_copy",
                 "refs", "out_count", "separate", "join", "join_reuse", "node", "name",
                 "node_id", "stream", "attrs")

    def __init__(self, p, node, i, op_reuse, plan, attrs):
        self.node, self.index, self.op_reuse, self.plan = node, i, op_reuse, plan
        self.name, self.node_id = node.name, p.id[node.name]
        self.stream = p.streams.stream[node.name]
        self.attrs = attrs
        size = cm.separate_total(p, node, i) if plan.separate else node.outputs[i]
        self.size = size
        self.out_count = len(p.out_peers.get((node.name, i), ()))
        sym = self.sym = p.sym[("out", node.name, i)]
        self.join = None
        self.join_reuse = (not node.attrs.get("no_reuse_mem_flag")) and op_reuse
        self.is_ref = p.is_output_ref(node, i)
        self.apply = None
        self.separate = None
        self.zero_copy = False
        self.refs = 0
        if self.is_ref:
            return
        max_size = p.sym_size.get(sym, size)
        if cm.continuous_output(node):     # ApplyContinuousMemory: one block at output 0
            max_size = cm.output_total(node)
        lives = plan.lives if op_reuse else None
        if plan.separate:                  # bma L1985-2016: one block for all inputs
            max_size = size
            self.separate = max_size
        continuous = plan.set_input and not plan.separate
        self.zero_copy = p.is_zero_copy(node, i) and not plan.set_input
        self.apply = Apply(p, node, "out", i, max_size, op_reuse, self.zero_copy, attrs, sym,
                           continuous=continuous, lives=lives)
        self.refs = max(self.out_count, p.ref_count(sym))

    def joined(self, p):
        """(symbol life end, tenant life begin) of this output joining its symbol's block
        (CalExitSymbolNodeLifeTime), found on first use."""
        if self.join is None:
            self.join = cm.exit_symbol_life(p, self.node, self.index, p.id[self.node.name])
        return self.join


class Ws:
    """One workspace that gets memory: size (bytes), no_reuse, apply (Apply)."""
    __slots__ = ("size", "no_reuse", "apply")

    def __init__(self, size, no_reuse, apply):
        self.size, self.no_reuse, self.apply = size, no_reuse, apply


class Step:
    """A node's level-1 work: id (op id), stream, outs [Out], ws [Ws], releases [symbol]."""
    __slots__ = ("id", "stream", "outs", "ws", "releases")


def node_step(p, nm, inputs):
    """The Step of node `nm` under Prepared `p`; inputs: its [(input index, (src, out))]
    in index order."""
    node = p.by[nm]
    st = Step()
    st.id = p.id[nm]
    st.stream = p.streams.stream[nm]
    op_reuse = not (nm in p.no_reuse_ops or node.type in p.no_reuse_ops)
    atomic = p.atomic_node(node)
    zero_mem = node.type in ZERO_MEMORY_TYPES
    atomic_outs = set(node.attrs.get("atomic_output_index") or [])
    var_outs = {int(k) for k in (node.attrs.get("assign_var_name") or {})}
    continuous_out = cm.continuous_output(node)
    # the tenants' block-type attributes: 'data' for a graph input's, 'concentrate_atomic'
    # for an atomic output laid out here (the two block_type_list.cc tells apart)
    base = _DATA if node.type in DATA_TYPES else _NONE
    concentrate = base | _ATOMIC
    outs = []
    for i, size in enumerate(node.outputs):
        if i > 0 and continuous_out:
            continue      # bma L1573-1576: only output 0 of a continuous output gets a block
        if zero_mem or size == 0:
            continue
        plan = cm.plan_output(p, node, i)
        if plan.no_block or i in var_outs:     # IsNoNeedAssignMemory: a variable's
            continue
        if atomic and i in atomic_outs and not plan.set_input and \
                not continuous_out and not p.is_zero_copy(node, i):
            continue      # IsAtomicOutputMemory: laid out by the atomic assigner
        if op_reuse and atomic and plan.set_input:
            op_reuse = False       # bma L2382-2384: atomic can't be reused
        outs.append(Out(p, node, i, op_reuse, plan,
                        concentrate if atomic and i in atomic_outs else base))
    st.outs = outs
    atomic_ws = p.atomic_workspace_indexes(node) if atomic else set()
    flags = list(node.attrs.get("workspace_reuse_flag") or [])
    scope = node.attrs.get("workspace_no_reuse_scope") or []
    ws = []
    for i, size in enumerate(node.workspace):
        size = max(size, 0)
        if size == 0 or i in atomic_ws:
            continue
        memory_type = HBM
        if i < len(scope) and scope[i] == 1:     # kSessionNoReuse (bma L177-192)
            if not flags:
                flags = [True] * len(scope)
            flags[i] = False
            memory_type = SESSION_SCOPE
        no_reuse = i < len(flags) and not flags[i]
        ws.append(Ws(size, no_reuse, Apply(p, node, "ws", i, size, op_reuse, False, base,
                                           ws_no_reuse=no_reuse, memory_type=memory_type)))
    st.ws = ws
    anchors = inputs
    if p.memory_priority:
        anchors = list(anchors)
        anchors.sort(key=lambda a: p.id[a[1][0]])
    st.releases = [p.sym[("out", src, o)] for _, (src, o) in anchors
                   if p.by[src].type not in NO_RELEASE_PRODUCERS]
    return st


def node_steps(p):
    """{node name: Step} for every node of `p.order`."""
    inputs = {}
    for (dst, i), src in p.in_src.items():
        inputs.setdefault(dst, []).append((i, src))
    for v in inputs.values():
        v.sort()
    return {nm: node_step(p, nm, inputs.get(nm, ())) for nm in p.order}
