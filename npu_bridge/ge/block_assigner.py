"""GE's block memory assigner (no TensorFlow): symbols, level-1 reuse while walking the
nodes (freed blocks kept per stream; mem_stream.py has the streams and their edges), the
level-2 pass, the final block sizes and the memory statistic.

A paraphrase of compiler/graph/build/memory/block_mem_assigner.cc (hicann/ge ffdcbc9; "bma"
below), binary_block_mem_assigner.cc and max_block_mem_assigner.cc:
- symbols (graph_utils.cc GetRefMapping L3048-3160, IsRefFromInput L3452-3510): an input
  joins its producer's symbol; an output that is its input's memory (ref / reuse-input /
  pass-through types) joins that input's symbol; a symbol's size is its largest output
  (bma GetOutAndWorkSpaceMem L512-582);
- pre/post reuse flags (bma InitReuseFlag L989-1073) with the I/O reuse indexes;
- per node (bma AssignMemoryWithReuse L2595-2662): release the previous node's workspaces and
  suspended outputs, assign outputs (ApplyOutMemory L1912-2034, ApplyMemory L1369-1460), then
  workspaces (L2414-2508), then release inputs whose last consumer this is (L2228-2271);
- level 2 (ReuseBlocksByLifeTime L2779-2823) for binary-block and the range assigners;
- sizes and offsets (ResizeMemoryBlocks L2832-2851); zero-copy blocks are left out of the
  reusable region (laid out by `mem_assign`).
Times are op ids (positions in GE's topological order); sizes bytes.
"""
import bisect

from npu_bridge.ge import continuous_mem as cm
from npu_bridge.ge import mem_block as mb
from npu_bridge.ge import mem_chain as mc
from npu_bridge.ge import mem_stream as ms
from npu_bridge.ge.ge_graph import DATA_TYPES, NETOUTPUT, PASS_THROUGH_TYPES, \
    REF_OUTPUT0_TYPES, ZERO_MEMORY_TYPES
from npu_bridge.ge.mem_ranges import binary_ranges
from npu_bridge.ge.stdsort import std_sort

HBM = 0
SESSION_SCOPE = (1 << 32) | HBM   # kSessionScopeMemory | RT_MEMORY_HBM (GetWorkSpaceMemoryType)
NO_PRE_REUSE = frozenset(("Data", "AippData", "AnnData", "QueueData", "Proposal", "Const",
                          "ConstantOp", "GetNext", "DropOutGenMask", "RefData", "AdpGetNext",
                          "DynamicGetNext"))
NO_POST_REUSE = frozenset(("Data", "AippData", "QueueData", "Enter", "RefEnter", "NextIteration",
                           "RefNextIteration", "RefData", "GetNext", "AdpGetNext", "DynamicGetNext",
                           "DropOutGenMask"))
NO_RELEASE_PRODUCERS = frozenset(("Const", "Constant", "ConstantOp", "FastrcnnPredictions"))


def _not_listed(types, t):
    """NotMatchNoReuseType (bma L71-80): BaseTypeV1..V4 match BaseType."""
    if len(t) > 2 and t[-2] == "V" and "1" <= t[-1] <= "4":
        return t[:-2] not in types
    return t not in types


def _indexes(text):
    out = []
    for bit in (text or "").split(","):
        bit = bit.strip()
        if bit.lstrip("-").isdigit():
            out.append(int(bit))
    return out


class Prepared:
    """What every strategy shares: the order, the symbols and their reuse flags
    (HybridMemAssigner computes them once, hybrid_mem_assigner.cc L69-79)."""

    def __init__(self, graph, order, env=None):
        self.graph = graph
        self.order = order
        self.id = {nm: i for i, nm in enumerate(order)}
        self.by = {n.name: n for n in graph.nodes}
        self.in_src = {}                      # (dst, in) -> (src, out)
        self.out_peers = {}                   # (src, out) -> [(dst, in)] in edge order
        for src, o, dst, i in graph.edges:
            self.in_src[(dst, i)] = (src, o)
            self.out_peers.setdefault((src, o), []).append((dst, i))
        top = {}
        for _, _, dst, i in graph.edges:
            top[dst] = max(top.get(dst, 0), i + 1)
        self.n_in = {n.name: max(n.inputs, top.get(n.name, 0)) for n in graph.nodes}
        opts = graph.options
        self.reuse = opts.get("ge.exec.disableReuseMemory", "0") != "1"
        self.memory_priority = opts.get("ge.exec.memoryOptimizationPolicy") == "MemoryPriority"
        self.clean_separately = opts.get("ge.exec.atomicCleanPolicy", "0") == "1"
        env = env or {}
        raw = env.get("OP_NO_REUSE_MEM", "")
        items = [x for x in raw.split(",") if x]
        # bma CheckAndGetOpReuseEnv: at most 2000 characters and 10 entries, else ignored
        self.no_reuse_ops = frozenset(items) if len(raw) <= 2000 and len(items) <= 10 \
            else frozenset()
        self._symbols()
        self.streams = ms.Streams(self)      # PreparationForAssign, stream edges
        self.same_out = self.streams.same_out()
        self._io_flags()
        self._reuse_flags()
        self.continuous_nodes = cm.has_continuous_inputs(graph)
        self.cascade = cm.cascade_begins(self) if self.continuous_nodes else {}
        self.no_assign = cm.ref_no_assign(self) if self.continuous_nodes else frozenset()

    # ------------------------------------------------------------ attributes
    def ref_input_of(self, node, i):
        """Input index whose memory output `i` is (IsRefFromInput), or None."""
        if node.type in PASS_THROUGH_TYPES:
            return i if i < self.n_in[node.name] else None
        if node.type in REF_OUTPUT0_TYPES and i == 0:
            return 0
        ref = node.attrs.get("ref_output_to_input") or {}
        for k, v in ref.items():
            if int(k) == i:
                return int(v)
        return None

    def is_output_ref(self, node, i):
        """IsOutputIndexRef (block_mem_zero_copy.cc L127-148): a reuse-input output."""
        ref = node.attrs.get("ref_output_to_input") or {}
        return any(int(k) == i for k in ref)

    def atomic_node(self, node):
        """The node's outputs/workspaces are laid out by the atomic assigner: it has atomic
        attributes and ge.exec.atomicCleanPolicy is 0 (atomic_addr_clean_pass.cc
        IsNeedCleanNode L459-500: policy 1 sets need_gentask_atomic instead, so the memory
        stays in the reusable region)."""
        if self.clean_separately:
            return False
        return bool(node.attrs.get("atomic_output_index") or node.attrs.get(
            "atomic_workspace_info"))

    def atomic_workspace_indexes(self, node):
        info = node.attrs.get("atomic_workspace_info") or {}
        return {int(k) for sub in info.values() for k in (sub or {})}

    def tenant_attrs(self, node, kind, i):
        attrs = []
        if node.type in DATA_TYPES:
            attrs.append("data")
        if kind == "out" and self.atomic_node(node) and i in (
                node.attrs.get("atomic_output_index") or []):
            attrs.append("concentrate_atomic")
        return attrs

    # ------------------------------------------------------------ symbols
    def _symbols(self):
        self.sym = {}                         # ('in'|'out', node, idx) -> symbol
        self.anchors = {}                     # symbol -> [anchor ...]
        for nm in self.order:
            node = self.by[nm]
            for i in range(self.n_in[nm]):
                src = self.in_src.get((nm, i))
                s = self.sym[("out",) + src] if src else "%s_in_%d" % (nm, i)
                self.sym[("in", nm, i)] = s
                self.anchors.setdefault(s, []).append(("in", nm, i))
            for i in range(len(node.outputs)):
                r = self.ref_input_of(node, i)
                if r is not None and r < self.n_in[nm]:
                    s = self.sym[("in", nm, r)]
                else:
                    s = "%s_out_%d" % (nm, i)
                self.sym[("out", nm, i)] = s
                self.anchors.setdefault(s, []).append(("out", nm, i))
        # per symbol, what ApplyOutMemory asks for each output (GetAllRefCount and the
        # NetOutput consumers of IsZeroCopyBlock), counted once here
        self.sym_refs, self.sym_netout = {}, {}
        for s, anchors in self.anchors.items():
            refs = netout = 0
            for kind, nm, i in anchors:
                if kind == "in":
                    if (nm, i) in self.in_src:
                        refs += 1
                    if self.by[nm].type == NETOUTPUT:
                        netout += 1
            self.sym_refs[s], self.sym_netout[s] = refs, netout
        self.sym_size = {}
        for nm in self.order:
            node = self.by[nm]
            if node.type in ZERO_MEMORY_TYPES:
                continue
            for i, size in enumerate(node.outputs):
                s = self.sym[("out", nm, i)]
                self.sym_size[s] = max(self.sym_size.get(s, 0), size)

    def _io_flags(self):
        opts = self.graph.options
        data = [n for n in self.graph.nodes if n.type in DATA_TYPES]
        self.data_index = {}
        for k, n in enumerate(data):
            self.data_index[n.name] = int(n.attrs.get("index", k))
        self.input_reuse = None
        if "ge.exec.inputReuseMemIndexes" in opts:
            self.input_reuse = [False] * len(data)
            for k in _indexes(opts["ge.exec.inputReuseMemIndexes"]):
                if 0 <= k < len(data):
                    self.input_reuse[k] = True
        nets = [n for n in self.graph.nodes if n.type == NETOUTPUT]
        self.output_reuse = None
        if "ge.exec.outputReuseMemIndexes" in opts and nets:
            count = self.n_in[nets[0].name]
            self.output_reuse = [False] * count
            for k in _indexes(opts["ge.exec.outputReuseMemIndexes"]):
                if 0 <= k < count:
                    self.output_reuse[k] = True

    def _reuse_flags(self):
        """InitReuseFlag (bma L989-1073)."""
        self.pre, self.post, self.prior = {}, {}, {}
        self.theory_precharge = 0
        for s, anchors in self.anchors.items():
            pre = post = True
            prior = False
            for kind, nm, i in anchors:
                node = self.by[nm]
                in_flag = node.type in DATA_TYPES
                in_reuse = False
                if in_flag and self.input_reuse:
                    k = self.data_index[nm]
                    in_reuse = 0 <= k < len(self.input_reuse) and self.input_reuse[k]
                if kind == "in":
                    continue
                prior = (not self.streams.single) and self.streams.diff_stream_prior(nm)
                out_flg, out_reuse = False, False
                for dst, di in self.out_peers.get((nm, i), ()):
                    if self.by[dst].type == NETOUTPUT:
                        out_flg = True
                        out_reuse = bool(self.output_reuse) and 0 <= di < len(
                            self.output_reuse) and self.output_reuse[di]
                        break
                t = node.type
                if in_reuse or out_reuse:
                    pre = pre and not in_flag and (out_flg or _not_listed(NO_PRE_REUSE, t))
                    post = post and not out_flg and (in_flag or _not_listed(NO_POST_REUSE, t))
                else:
                    pre = pre and not in_flag and not out_flg and _not_listed(NO_PRE_REUSE, t)
                    post = post and not in_flag and not out_flg and _not_listed(NO_POST_REUSE, t)
                if not pre and not post:
                    break
            self.pre[s], self.post[s] = pre, post
            if prior:
                self.prior[s] = True
            if not pre and post:
                self.theory_precharge += mb.align(self.sym_size.get(s, 0))

    def ref_count(self, s):
        """GetAllRefCount (bma L1776-1803): connected input anchors of the symbol."""
        return self.sym_refs.get(s, 0)

    def netoutput_inputs(self, s):
        return self.sym_netout.get(s, 0)

    def is_zero_copy(self, node, i):
        """IsZeroCopyBlock (bma L1287-1351) for a static root graph whose nodes all support
        address refresh: graph inputs, and outputs flowing to exactly one NetOutput input."""
        if node.type == NETOUTPUT or node.type in DATA_TYPES:
            return True
        return self.netoutput_inputs(self.sym[("out", node.name, i)]) == 1

    def all_sizes(self):
        """GetOutAndWorkSpaceMem: every output and workspace size of non-zero-memory nodes,
        sorted, zeros removed (dynamic_batch_mem_assigner.cc GetMaxBatchAllMemorySize)."""
        out = []
        for nm in self.order:
            node = self.by[nm]
            if node.type in ZERO_MEMORY_TYPES:
                continue
            out.extend(node.outputs)
            out.extend(max(w, 0) for w in node.workspace)
        return sorted(s for s in out if s > 0)


def _nestable(block):
    """Whether `block` may still be nested at level 2 (AddLifeReuseBlock refuses a block
    already nested or with children, for good, and one that is not reusable or empty)."""
    return not block.child_block and not block.children and block.reuse_mem and \
        bool(block.tenants)


class Strategy:
    """ReuseStrategy (memory_block.h L72-83) plus the assigner class."""

    def __init__(self, name, kind, use_range=False, ascending=True, first_release=False):
        self.name, self.kind = name, kind          # kind: 'binary' or 'max'
        self.use_range, self.ascending, self.first_release = use_range, ascending, first_release

    @property
    def level2(self):
        return self.kind == "binary"               # MaxBlockMemAssigner::NeedLevel2Reuse false


class BlockAssigner:
    """One run of GE's block assigner under `strategy` over `prep` (a Prepared).
    After `assign()`: blocks (all, sorted as GE leaves them), mem_offset (bytes of the
    reusable region), theory_min / total_size / no_reuse (MemoryStat, bytes)."""

    def __init__(self, prep, strategy):
        self.p = prep
        self.s = strategy
        self.blocks = []
        self.symbol_blocks = {}
        # the released blocks (GE's reusable_blocks_ list), bucketed by nominal size: level 1
        # takes only a block of exactly the requested size, so the scan of one bucket, in
        # release order, finds the block the scan of the whole list finds
        self.buckets = {}          # size -> [(release seq, block)] in release order
        self.released = 0
        self.pending = {}          # (memory type, stream) -> workspaces and suspended outputs
        self.life_time = 0
        self.stats = {HBM: [prep.theory_precharge, 0, 0, 0]}   # theory, min, no_reuse, total
        self.mem_offsets = {}
        self.sym_size = {}         # symbol sizes this run changed (separate-clean inputs)
        self.zero_copy_blocks = []
        self.ranges = []

    # ------------------------------------------------------------ sizes
    def block_size(self, size):
        """GetBlockSize (bma L589-606)."""
        if not self.s.use_range:
            return mb.align(size)
        for ceil_ in self.ranges:
            if size <= ceil_:
                return ceil_
        return size

    def _stat(self, real, reuse, memory_type=HBM):
        """AddMemoryStat (bma L1353-1367), per memory type."""
        st = self.stats.setdefault(memory_type, [0, 0, 0, 0])
        a = mb.align(real)
        st[3] += a
        if reuse:
            st[0] += a
        else:
            st[2] += a
        st[1] = max(st[1], st[0])

    @property
    def mem_offset(self):
        """The HBM reusable region (bytes)."""
        return self.mem_offsets.get(HBM, 0)

    @property
    def size_compared(self):
        """What HybridMemAssigner compares: the sum over memory types (L34-51)."""
        return sum(self.mem_offsets.values())

    @property
    def theory_min(self):
        return self.stats[HBM][1]

    @property
    def no_reuse_stat(self):
        return self.stats[HBM][2]

    @property
    def total_size(self):
        return self.stats[HBM][3]

    # ------------------------------------------------------------ level 1
    def _pick(self, stream, block_size, life_begin, attrs):
        items = self.buckets.get((stream, block_size))
        if not items:
            return None
        seq = range(len(items)) if self.s.first_release else range(len(items) - 1, -1, -1)
        for k in seq:
            if mb.can_reuse(items[k][1], block_size, life_begin, attrs):
                return items.pop(k)[1]
        return None

    def _add_reusable(self, block):
        """Into the released blocks of the block's stream (reusable_blocks_[type][stream])."""
        self.buckets.setdefault((block.stream, block.size), []).append((self.released, block))
        self.released += 1

    def _resized(self, block, old):
        """A block's nominal size grew while it may sit among the released ones: move its
        entries to the bucket of the new size, keeping release order."""
        items = self.buckets.get((block.stream, old))
        if not items or block.size == old:
            return
        moved = [e for e in items if e[1] is block]
        if not moved:
            return
        items[:] = [e for e in items if e[1] is not block]
        new = self.buckets.setdefault((block.stream, block.size), [])
        for e in moved:
            bisect.insort(new, e, key=lambda x: x[0])

    def _apply(self, node, kind, index, block_size, real, op_reuse, zero_copy, sym=None,
               ws_no_reuse=False, memory_type=HBM, continuous=False, lives=None):
        """ApplyMemory (bma L1369-1460): a freed block of the node's stream, else a new one."""
        p = self.p
        stream = p.streams.stream[node.name]
        pre = p.pre.get(sym, False) if kind == "out" else True
        no_reuse = bool(node.attrs.get("no_reuse_mem_flag")) or (kind == "ws" and ws_no_reuse)
        life_begin, life_end = lives or (p.id[node.name], 0)
        if no_reuse or not pre:
            life_begin = mb.MIN_LIFE
        elif kind == "out" and p.cascade.get(node.name, life_begin) < life_begin:
            life_begin = p.cascade[node.name]      # GetContinuousNodeLifeTimeBegin
        post = p.post.get(sym, True) if kind == "out" else True
        if kind == "out" and not post:
            life_end = mb.MAX_LIFE
        same_out = kind == "out" and (node.name, index) in p.same_out
        is_reuse_memory = p.reuse and not no_reuse and op_reuse
        tenant = mb.Tenant(node.name, p.id[node.name], kind, index, False, life_begin,
                           p.tenant_attrs(node, kind, index), stream=stream)
        block = None
        if is_reuse_memory and pre and not zero_copy and not continuous and not same_out:
            block = self._pick(stream, block_size, life_begin, tenant.attrs)
        if block is None:
            block = mb.Block(block_size, is_reuse_memory, memory_type, stream)
            self.blocks.append(block)
        if kind == "out":
            block.symbols.append(sym)
            block.post_reuse_flag = block.post_reuse_flag and post
            block.diff_stream_prior = p.prior.get(sym, False)
        block.add_tenant(tenant, real, real)
        if same_out:
            block.same_stream = False
        if continuous:
            block.continuous = True
        block.reuse_mem = block.reuse_mem and (block.post_reuse_flag or pre)
        if life_end != 0:
            block.set_life_end(mb.DEFAULT_LIFE if life_end == mb.MAX_LIFE else life_end, stream)
            block.set_symbol_life_end(life_end)
        if (not block.reuse_mem) or pre:
            self._stat(real, block.reuse_mem, memory_type)
        return block

    def _apply_out(self, node, i, op_reuse, plan):
        """ApplyOutMemory (bma L1912-2034); `plan`: continuous_mem.plan_output's verdict."""
        p = self.p
        # GetOutputTotalSizeAndOutCount (bma L1805-1870): an input of a separately cleaned
        # continuous input node asks for all that node's inputs, a ref output too
        size = cm.separate_total(p, node, i) if plan.separate else node.outputs[i]
        out_count = len(p.out_peers.get((node.name, i), ()))
        sym = p.sym[("out", node.name, i)]
        block = self.symbol_blocks.get(sym)
        if block is not None:
            old = block.size
            block.set_size(self.block_size(size))
            if block.size != old:
                self._resized(block, old)
            # CalExitSymbolNodeLifeTime (bma L1872-1908)
            life, begin = cm.exit_symbol_life(p, node, i, self.life_time)
            block.set_symbol_life_end(life)
            block.set_life_end(self.life_time)
            block.add_tenant(mb.Tenant(node.name, p.id[node.name], "out", i, True, begin,
                                       p.tenant_attrs(node, "out", i), block.symbol_life_end(),
                                       p.streams.stream[node.name]), size, size)
            block.reuse_mem = block.reuse_mem and not node.attrs.get("no_reuse_mem_flag") \
                and op_reuse
            if out_count == 0:
                block.ref_count += 1
            return block
        if p.is_output_ref(node, i):
            return None       # the ref input has no feature-map block (const/variable/none)
        max_size = p.sym_size.get(sym, size)
        if cm.continuous_output(node):     # ApplyContinuousMemory: one block at output 0
            max_size = cm.output_total(node)
        lives = plan.lives if op_reuse else None
        if plan.separate:                  # bma L1985-2016: one block for all inputs
            max_size = size
            self.sym_size[sym] = max_size
        continuous = plan.set_input and not plan.separate
        zero_copy = p.is_zero_copy(node, i) and not plan.set_input
        block = self._apply(node, "out", i, self.block_size(max_size), max_size, op_reuse,
                            zero_copy, sym, continuous=continuous, lives=lives)
        block.is_zero_copy = block.is_zero_copy or zero_copy
        block.ref_count += max(out_count, p.ref_count(sym))
        return block

    def _release(self, block, sym, stream=None, no_release=False):
        """ReleaseMemory (bma L2131-2209): one reader (of `stream`) is done with the block;
        at the last the block joins its stream's released blocks with its life end
        (SetReleaseBlockLifeEnd, block_mem_zero_copy.cc L183-215)."""
        if block.ref_count <= 0 or not block.reuse_mem:
            return
        stream = block.stream if stream is None else stream
        back = block.tenants[-1]
        max_life = by_symbol = self.life_time
        if not block.used_by_diff_streams:
            block.used_by_diff_streams = block.stream != stream and back.kind != "ws"
        if block.used_by_diff_streams:
            t = next(x for x in reversed(block.tenants) if not x.ref_input)
            streams = set()
            max_life, by_symbol = self.p.streams.max_life(t.node, t.index, by_symbol, streams)
            if back.ref_input:
                back.out_count = max(back.out_count, len(streams))
        block.set_out_stream_life_time(by_symbol, max_life, stream)
        block.ref_count -= 1
        if block.ref_count > 0:
            return
        if block.reuse_mem and block.tenants:
            if sym in self.sym_size:
                size = self.sym_size[sym]
            else:
                size = self.p.sym_size.get(sym, back.real_size) if sym else back.real_size
            size = mb.align(size)
            st = self.stats.setdefault(block.memory_type, [0, 0, 0, 0])
            if st[0] >= size:
                st[0] -= size
        outs = back.out_stream or {}
        if len(outs) == 1:
            (out_stream, (out_time, end)), = outs.items()
            at = block.stream
            if block.stream != out_stream and end == mb.MAX_LIFE:
                at, end = stream, out_time     # cannot come back: the end on the reader's stream
            block.set_life_end(end, at)
            if block.diff_stream_prior and block.stream != stream:
                block.set_life_end(out_time, stream)
        else:
            end = max([e for _, e in outs.values()] or [0])
            if end == mb.MAX_LIFE:
                block.same_stream = False
            block.set_life_end(end, block.stream)
        if not block.post_reuse_flag or no_release:
            back.diff_life = None
            block.set_life_end(mb.MAX_LIFE, block.stream)
        self._add_reusable(block)
        back.out_stream = None
        block.used_by_diff_streams = False

    def _release_pending(self):
        """ReleaseMemorys (bma L2211-2226): per memory type, per stream in id order."""
        for key in sorted(self.pending):
            for block in self.pending[key]:
                t = block.tenants[-1]
                sym = block.symbols[-1] if t.kind == "out" and block.symbols else ""
                self._release(block, sym)
        self.pending = {}

    def _suspend(self, block):
        self.pending.setdefault((block.memory_type, block.stream), []).append(block)

    def _node(self, nm):
        p = self.p
        node = p.by[nm]
        op_reuse = not (nm in p.no_reuse_ops or node.type in p.no_reuse_ops)
        atomic = p.atomic_node(node)
        if p.reuse:
            self._release_pending()
        self.life_time = p.id[nm]
        zero_mem = node.type in ZERO_MEMORY_TYPES
        atomic_outs = set(node.attrs.get("atomic_output_index") or [])
        var_outs = {int(k) for k in (node.attrs.get("assign_var_name") or {})}
        for i, size in enumerate(node.outputs):
            if i > 0 and cm.continuous_output(node):
                continue      # bma L1573-1576: only output 0 of a continuous output gets a block
            if zero_mem or size == 0:
                continue
            plan = cm.plan_output(p, node, i)
            if plan.no_block or i in var_outs:     # IsNoNeedAssignMemory: a variable's
                continue
            if atomic and i in atomic_outs and not plan.set_input and \
                    not cm.continuous_output(node) and not p.is_zero_copy(node, i):
                continue      # IsAtomicOutputMemory: laid out by the atomic assigner
            if op_reuse and atomic and plan.set_input:
                op_reuse = False       # bma L2382-2384: atomic can't be reused
            block = self._apply_out(node, i, op_reuse, plan)
            if block is None:
                continue
            if plan.streams:
                block.tenants[-1].out_count = max(block.tenants[-1].out_count,
                                                  len(plan.streams))
            self.symbol_blocks[p.sym[("out", nm, i)]] = block
            if block.ref_count == 0:      # CheckAndReleaseSuspendedBlock
                block.ref_count = 1
                self._suspend(block)
        atomic_ws = p.atomic_workspace_indexes(node) if atomic else set()
        flags = list(node.attrs.get("workspace_reuse_flag") or [])
        scope = node.attrs.get("workspace_no_reuse_scope") or []
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
            block = self._apply(node, "ws", i, self.block_size(size), size, op_reuse, False,
                                ws_no_reuse=no_reuse, memory_type=memory_type)
            block.ref_count += 1
            if not no_reuse:
                self._suspend(block)
        anchors = [(i, p.in_src[(nm, i)]) for i in range(p.n_in[nm]) if (nm, i) in p.in_src]
        if p.memory_priority:
            anchors.sort(key=lambda a: p.id[a[1][0]])
        stream = p.streams.stream[nm]
        for _, (src, o) in anchors:
            if p.by[src].type in NO_RELEASE_PRODUCERS:
                continue
            sym = p.sym[("out", src, o)]
            block = self.symbol_blocks.get(sym)
            if block is None:
                continue
            self._release(block, sym, stream)

    # ------------------------------------------------------------ level 2
    def _level2(self):
        """ReuseBlocksByLifeTime (bma L2779-2823): each block in GE's order as the parent of
        every later block, as GE compares them. Work is saved where no result can change:
        the later blocks GE's AddLifeReuseBlock refuses at once (already nested, or with
        children: for good) are kept out of `pend`, the list of blocks still able to be
        nested, in GE's order; the checks that decide a pair without changing any block
        (CanBlockLifeReuse, a parent without children that the child cannot fit, a
        one-tenant child crossing the parent, no room in the parent's whole tree:
        `mem_block.walk_need`) are made inline; the rest goes through mem_block."""
        key = mb.sort_key(self.s.ascending)
        blocks = self.blocks
        std_sort(blocks, key)
        memory_priority = self.p.memory_priority
        ctx = mb.StreamContext(self.p.streams, self.p.same_out, memory_priority)
        simple = ctx.simple
        if simple:
            ctx = None          # one stream: mem_block's inline same-stream rules
        pad = mb.MEM_ALIGN
        pend = [b for b in blocks if _nestable(b)]
        i = 0
        while i < len(blocks):
            parent = blocks[i]
            i += 1
            # AddLifeReuseBlock returns false at once for every child of such a parent
            if parent.child_block or not parent.reuse_mem or not parent.tenants:
                continue
            ptype = parent.memory_type
            p_zero = parent.is_zero_copy
            p_attrs = parent._attrs
            p_begin = parent.tenants[0].lb
            p_end = parent.tenants[-1].end
            p_align = parent.align_size()
            p_index = mb._span_index(parent)
            p_lbs, p_ends = p_index or ((), ())
            n_ends = len(p_ends)
            p_stream = parent.stream
            # a plain one-tenant child crossing this parent's tenants changes nothing
            # (mem_chain.solo_life): decided before the other checks
            fast = simple and p_index and not p_zero and not parent.continuous and \
                parent.same_stream and not parent.tenants[-1].diff_life
            # pend[r:] is still to be compared with this parent; pend[:w] is kept for the
            # next parents (the parent itself and blocks nested meanwhile are dropped)
            r = w = 0
            done = False
            while r < len(pend):
                child = pend[r]
                r += 1
                if child is parent or child.child_block or child.children:
                    continue
                if fast:
                    solo = child._solo
                    if solo is None:
                        solo = mc.solo_life(child)
                    if solo and solo[2] == p_stream and solo[3] == ptype:
                        q = bisect.bisect_left(p_ends, solo[0])
                        if q < n_ends and p_lbs[q] <= solo[1]:
                            pend[w] = child
                            w += 1
                            continue
                if child.memory_type != ptype:
                    pend[w] = child
                    w += 1
                    continue
                need = mb.walk_need(child)
                if need and (parent.room if parent.children else mb.own_room(parent)) < need:
                    pend[w] = child     # no room anywhere in parent's tree: nothing changes
                    w += 1
                    continue
                conflict = p_attrs and child._attrs and parent.conflicts_with(child)
                if simple:
                    can_block = not conflict and (child.tenants[0].lb > p_end
                                                  or p_begin > child.tenants[-1].end)
                else:
                    can_block = mb._can_block(parent, child, conflict, ctx)
                if (p_zero and child.continuous) or (child.is_zero_copy and parent.continuous):
                    pend[w] = child
                    w += 1
                    continue
                if parent.continuous or child.continuous or p_zero or child.is_zero_copy:
                    if can_block:
                        if parent.continuous or child.continuous:
                            mb._add_continuous_life_reuse_block(parent, child)
                        else:
                            mb._add_zero_copy_life_reuse_block(parent, child)
                        if parent.child_block:
                            # nested into the child: done as a parent
                            pend[w:] = pend[r:]
                            done = True
                            break
                    if _nestable(child):
                        pend[w] = child
                        w += 1
                    continue
                if can_block and not parent.children:
                    size = child.align_size()
                    if parent.child_offset + size > p_align + (pad if size != pad else 0):
                        pend[w] = child     # it does not fit: nothing changes
                        w += 1
                        continue
                if not can_block:
                    if conflict:
                        pend[w] = child     # CanIntervalLifeReuse refuses conflicting types
                        w += 1
                        continue
                    t = child.tenants[0]
                    if (len(child.tenants) == 1 and not t.ref_input and p_index
                            and t.lb <= t.end and parent.stream == child.stream
                            and parent.same_stream and child.same_stream
                            and not parent.tenants[-1].diff_life and not t.diff_life):
                        # one tenant whose life overlaps the parent's span: it crosses a
                        # parent tenant (CanIntervalLifeReuse refuses) or none (nothing
                        # moves; go on as AddLifeReuseBlock does)
                        q = bisect.bisect_left(p_ends, t.lb)
                        if q < len(p_ends) and p_lbs[q] <= t.end:
                            pend[w] = child
                            w += 1
                            continue
                        can_block = True
                clones = []
                if can_block or mb._can_interval_life_reuse(parent, child, clones):
                    if clones:
                        need = mb.walk_need(child)  # split: fewer tenants, maybe one
                    mb.nest_life_reuse_block(parent, child, clones, 1, ctx, need)
                if _nestable(child):
                    pend[w] = child
                    w += 1
                if clones:
                    # GE inserts the clones right after the child and compares them next
                    j = blocks.index(child, i)
                    blocks[j + 1:j + 1] = clones
                    low = min([p_align] + [c.align_size() for c in clones])
                    nxt = j + 1 + len(clones)
                    if (nxt < len(blocks) and low < blocks[nxt].align_size()) or \
                            memory_priority:
                        std_sort(blocks, key, j + 1)
                        pend[r:] = [b for b in blocks[j + 1:] if _nestable(b)]
                    else:
                        pend[r:r] = clones
            if not done:
                del pend[w:]

    # ------------------------------------------------------------ run
    def assign(self):
        """Run the strategy; returns self."""
        p = self.p
        if self.s.kind == "max":
            sizes = p.all_sizes()
            self.ranges = [sizes[-1]] if sizes else []
        elif self.s.use_range:
            self.ranges = binary_ranges(p.all_sizes())
        for nm in p.order:
            self._node(nm)
        if p.reuse and self.s.level2:
            self._level2()
        self.blocks = cm.order_input_blocks(p, self.blocks, self.symbol_blocks)
        for b in self.blocks:
            if b.child_block or b.is_zero_copy:
                continue
            b.resize()
            offset = self.mem_offsets.get(b.memory_type, 0)
            b.place(offset)
            self.mem_offsets[b.memory_type] = offset + b.size
        for st in self.stats.values():
            st[1] += st[2]
        self.zero_copy_blocks = [b for b in self.blocks if b.is_zero_copy and not b.child_block]
        return self


def strategies(memory_priority):
    """The assigners HybridMemAssigner runs (hybrid_mem_assigner.cc L80-118), in its order."""
    out = [Strategy("binary-block", "binary"),
           Strategy("max-block", "max", use_range=True)]
    if memory_priority:
        out += [Strategy("range-binary-block-descending-frfr", "binary", True, False, True),
                Strategy("range-binary-block-ascending-frfr", "binary", True, True, True),
                Strategy("range-binary-block-descending-frlr", "binary", True, False, False),
                Strategy("range-binary-block-ascending-frlr", "binary", True, True, False)]
    return out
