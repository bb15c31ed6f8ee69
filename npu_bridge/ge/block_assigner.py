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
from npu_bridge.ge import mem_steps as steps
from npu_bridge.ge import mem_stream as ms
from npu_bridge.ge.ge_graph import DATA_TYPES, NETOUTPUT, PASS_THROUGH_TYPES, \
    REF_OUTPUT0_TYPES, ZERO_MEMORY_TYPES
from npu_bridge.ge.mem_ranges import binary_ranges
from npu_bridge.ge.stdsort import std_sort

HBM, SESSION_SCOPE = steps.HBM, steps.SESSION_SCOPE
NO_PRE_REUSE = frozenset(("Data", "AippData", "AnnData", "QueueData", "Proposal", "Const",
                          "ConstantOp", "GetNext", "DropOutGenMask", "RefData", "AdpGetNext",
                          "DynamicGetNext"))
NO_POST_REUSE = frozenset(("Data", "AippData", "QueueData", "Enter", "RefEnter", "NextIteration",
                           "RefNextIteration", "RefData", "GetNext", "AdpGetNext", "DynamicGetNext",
                           "DropOutGenMask"))


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
        self.steps = steps.node_steps(self)   # each node's level-1 work, for every strategy

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
        self.sizes = {}            # request -> GetBlockSize, as block_size found it

    # ------------------------------------------------------------ sizes
    def block_size(self, size):
        """GetBlockSize (bma L589-606); remembered per size (`self.sizes`)."""
        out = size
        if not self.s.use_range:
            out = mb.align(size)
        else:
            for ceil_ in self.ranges:
                if size <= ceil_:
                    out = ceil_
                    break
        self.sizes[size] = out
        return out

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
        k = mb.pick(items, block_size, life_begin, attrs, self.s.first_release)
        return items.pop(k)[1] if k >= 0 else None

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

    def _apply(self, a, block_size):
        """ApplyMemory (bma L1369-1460) of `a` (mem_steps.Apply): a freed block of the
        node's stream of `block_size` bytes, else a new one."""
        stream = a.stream
        tenant = mb.Tenant(a.node, a.node_id, a.kind, a.index, False, a.life_begin, a.attrs,
                           stream=stream)
        block = None
        if a.try_pick:
            block = self._pick(stream, block_size, a.life_begin, a.attrs)
        if block is None:
            block = mb.Block(block_size, a.is_reuse, a.memory_type, stream)
            self.blocks.append(block)
        pre = a.pre
        if a.kind == "out":
            block.symbols.append(a.sym)
            block.post_reuse_flag = block.post_reuse_flag and a.post
            block.diff_stream_prior = a.prior
        block.add_tenant(tenant, a.real, a.real)
        if a.same_out:
            block.same_stream = False
        if a.continuous:
            block.continuous = True
        block.reuse_mem = block.reuse_mem and (block.post_reuse_flag or pre)
        life_end = a.life_end
        if life_end != 0:
            block.set_life_end(mb.DEFAULT_LIFE if life_end == mb.MAX_LIFE else life_end, stream)
            block.set_symbol_life_end(life_end)
        if (not block.reuse_mem) or pre:      # AddMemoryStat (bma L1353-1367)
            st = self.stats.get(a.memory_type)
            if st is None:
                st = self.stats[a.memory_type] = [0, 0, 0, 0]
            real = a.real
            size = -(-real // mb.MEM_ALIGN) * mb.MEM_ALIGN if real > 0 else real
            st[3] += size
            if block.reuse_mem:
                st[0] += size
            else:
                st[2] += size
            if st[0] > st[1]:
                st[1] = st[0]
        return block

    def _apply_out(self, o):
        """ApplyOutMemory (bma L1912-2034) of `o` (mem_steps.Out): the symbol's block when
        an earlier output made one (a ref or pass-through output joins it), else a new one."""
        block = self.symbol_blocks.get(o.sym)
        if block is not None:
            size = o.size
            old = block.size
            block.set_size(self.sizes.get(size) or self.block_size(size))
            if block.size != old:
                self._resized(block, old)
            # CalExitSymbolNodeLifeTime (bma L1872-1908)
            life, begin = o.joined(self.p)
            block.set_symbol_life_end(life)
            block.set_life_end(self.life_time)
            block.add_tenant(mb.Tenant(o.name, o.node_id, "out", o.index, True, begin, o.attrs,
                                       block.symbol_life_end(), o.stream), size, size)
            block.reuse_mem = block.reuse_mem and o.join_reuse
            if o.out_count == 0:
                block.ref_count += 1
            return block
        if o.is_ref:
            return None       # the ref input has no feature-map block (const/variable/none)
        a = o.apply
        if o.separate is not None:
            self.sym_size[o.sym] = o.separate
        block = self._apply(a, self.sizes.get(a.real) or self.block_size(a.real))
        block.is_zero_copy = block.is_zero_copy or o.zero_copy
        block.ref_count += o.refs
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
        # SetOutStreamLifeTime (mb L732-755): per reading stream, the latest release time
        # and life end (at least the symbol's end; kMaxLifeTime if it ends before it is out)
        end = back.symbol_end
        if end == mb.DEFAULT_LIFE or max_life >= end:
            end = max_life
        if end < by_symbol:
            end = mb.MAX_LIFE
        outs = back.out_stream
        if outs is None:
            outs = back.out_stream = {}
        cur = outs.get(stream)
        if cur is None:
            outs[stream] = [by_symbol, end]
            if len(outs) > back.out_count:
                back.out_count = len(outs)
        else:
            if by_symbol > cur[0]:
                cur[0] = by_symbol
            if end > cur[1]:
                cur[1] = end
        block.ref_count -= 1
        if block.ref_count > 0:
            return
        if block.reuse_mem:
            if sym in self.sym_size:
                size = self.sym_size[sym]
            else:
                size = self.p.sym_size.get(sym, back.real_size) if sym else back.real_size
            size = -(-size // mb.MEM_ALIGN) * mb.MEM_ALIGN if size > 0 else size
            st = self.stats.get(block.memory_type)
            if st is None:
                st = self.stats[block.memory_type] = [0, 0, 0, 0]
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
        # into the released blocks of its stream (reusable_blocks_[type][stream])
        key = (block.stream, block.size)
        items = self.buckets.get(key)
        if items is None:
            items = self.buckets[key] = []
        items.append((self.released, block))
        self.released += 1
        back.out_stream = None
        block.used_by_diff_streams = False

    def _release_pending(self):
        """ReleaseMemorys (bma L2211-2226): per memory type, per stream in id order."""
        pending = self.pending
        if not pending:
            return
        for key in (sorted(pending) if len(pending) > 1 else pending):
            for block in pending[key]:
                t = block.tenants[-1]
                sym = block.symbols[-1] if t.kind == "out" and block.symbols else ""
                self._release(block, sym)
        self.pending = {}

    def _node(self, nm):
        """AssignMemoryWithReuse for one node (bma L2595-2662), from its mem_steps.Step:
        release what the previous node left suspended, apply outputs then workspaces,
        release the inputs whose last reader this is."""
        p = self.p
        st = p.steps[nm]
        if p.reuse and self.pending:
            self._release_pending()
        self.life_time = st.id
        symbol_blocks = self.symbol_blocks
        pending = self.pending
        for o in st.outs:
            block = self._apply_out(o)
            if block is None:
                continue
            n = len(o.plan.streams)
            if n:
                t = block.tenants[-1]
                t.out_count = max(t.out_count, n)
            symbol_blocks[o.sym] = block
            if block.ref_count == 0:      # CheckAndReleaseSuspendedBlock
                block.ref_count = 1
                pending.setdefault((block.memory_type, block.stream), []).append(block)
        for w in st.ws:
            size = w.size
            block = self._apply(w.apply, self.sizes.get(size) or self.block_size(size))
            block.ref_count += 1
            if not w.no_reuse:
                pending.setdefault((block.memory_type, block.stream), []).append(block)
        stream = st.stream
        for sym in st.releases:
            block = symbol_blocks.get(sym)
            if block is not None:
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
            lo = i      # pend follows blocks' order: the next child is after the last split one
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
                    j = blocks.index(child, lo)
                    lo = j + 1
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
