"""GE's memory blocks and the second reuse pass (no TensorFlow).

A paraphrase of compiler/graph/build/memory/memory_block.{h,cc} (hicann/ge ffdcbc9):
`Tenant` is GE's NodeTypeIndex (one output or workspace living in a block), `Block`
its MemoryBlock. Level-1 matching (`pick`, mb L71-105), lifetime crossing
(`cross_life_time`, mb L107-127), the nesting of a block inside another's idle ranges
(`add_life_reuse_block`, mb L486-572, with the split of crossing tenants into a clone,
`_can_interval_life_reuse` mb L211-272), zero-copy nesting (mb L429-484), the level-2 order
(`sort_key`, CompareLifeInterval mb L883-915), the final size (`resize`, mb L311-330), and
across streams the life ends per stream (`life_end`, `set_life_end`) and the level-2 test
`can_block_life_reuse` (mb L152-203).
Sizes in bytes, times are op ids in GE's topological order.
"""
import bisect

from npu_bridge.ge import mem_chain

MEM_ALIGN = 512                   # MEM_ALIGN_SIZE
MAX_LIFE = 0xffffffff             # kMaxLifeTime (memory_block.h L44)
MIN_LIFE = 1                      # kMinLifeTime
DEFAULT_LIFE = 0xffffffff - 1     # kDefaultLifeTime
MAX_DEPTH = 100                   # kMaxDepthNum


def align(size):
    """`size` rounded up to 512 bytes (MemReuseUtils::AlignMemOffset; 0 stays 0)."""
    return -(-size // MEM_ALIGN) * MEM_ALIGN if size > 0 else size


class Tenant:
    """One output ('out') or workspace ('ws') of node `node` (op id `node_id`) in a block.
    begin: GE's life_time_begin_ (the op id, or 1 for a non-pre-reusable symbol);
    end: life_time_end_ (DEFAULT_LIFE until released); ref_input: joined an existing
    block as an alias; attrs: block-type attributes ('data', 'concentrate_atomic')."""
    __slots__ = ("node", "node_id", "kind", "index", "ref_input", "begin", "end", "symbol_end",
                 "next_is_ref_input", "real_size", "no_align_size", "attrs", "out_stream", "lb",
                 "stream", "diff_life", "out_count")

    def __init__(self, node, node_id, kind, index, ref_input=False, begin=0, attrs=(),
                 symbol_end=DEFAULT_LIFE, stream=0):
        self.node, self.node_id, self.kind, self.index = node, node_id, kind, index
        self.ref_input = ref_input
        self.begin = begin
        self.end = DEFAULT_LIFE
        self.symbol_end = symbol_end
        self.next_is_ref_input = False
        self.real_size = 0
        self.no_align_size = 0
        self.attrs = frozenset(attrs)
        self.out_stream = None     # {stream: [out_time, end_time]} of the releases so far
        self.stream = stream       # stream_id_
        self.diff_life = None      # diff_stream_life_time_: {other stream: life end there}
        self.out_count = 1         # out_stream_count_
        # GetLifeBegin: the given begin when it is an earlier time than the op id
        self.lb = begin if 0 < begin < node_id else node_id

    def life_begin(self):
        return self.lb

    def label(self):
        return "%s:%s%d" % (self.node, "" if self.kind == "out" else "ws", self.index)


def _conflict(attrs_a, attrs_b):
    # block_type_list.cc: only data <-> concentrate_atomic conflict (L62-64)
    return (("data" in attrs_a and "concentrate_atomic" in attrs_b)
            or ("concentrate_atomic" in attrs_a and "data" in attrs_b))


class Block:
    """GE's MemoryBlock. size: nominal size (the request; only grows, SetSize); tenants in
    arrival order; children: blocks nested at level 2 (side by side from offset 0)."""
    # slots: the level-2 walk reads these fields ~10 M times on a 10,000-node graph
    __slots__ = ("size", "tenants", "reuse_mem", "memory_type", "stream", "ref_count",
                 "same_stream", "is_zero_copy", "is_reuse_zero_copy", "continuous",
                 "child_block", "children", "child_offset", "post_reuse_flag",
                 "diff_stream_prior", "used_by_diff_streams", "symbols", "up", "depth", "room",
                 "_max_real", "_attrs", "_idx", "offset", "chain", "ci", "_solo")

    def __init__(self, size, reuse_mem=True, memory_type=0, stream=0):
        self.size = size
        self.tenants = []
        self.reuse_mem = reuse_mem
        self.memory_type = memory_type
        self.stream = stream
        self.ref_count = 0
        self.same_stream = True
        self.is_zero_copy = False
        self.is_reuse_zero_copy = True
        self.continuous = False    # continuous_block_: an input of a continuous-input node
        self.child_block = False
        self.children = []
        self.child_offset = 0
        self.post_reuse_flag = True
        self.diff_stream_prior = False
        self.used_by_diff_streams = False
        self.symbols = []
        # level-2 bookkeeping of the nesting walk (not GE's): the block nested into, the
        # depth in its tree (a top-level block is 1) and, once it has children, the largest
        # room of its reachable subtree (`subtree_room`)
        self.up = None
        self.depth = 1
        self.room = None
        self.chain = None          # the mem_chain.Chain it is a member of, its index there
        self.ci = 0
        self._max_real = 0
        self._attrs = frozenset()
        self._idx = None
        self._solo = None          # mem_chain.solo_life's cache
        self.offset = None

    # ------------------------------------------------------------ tenants
    def add_tenant(self, tenant, real_size, no_align_size):
        """AddNodeTypeIndex (memory_block.h)."""
        if tenant.ref_input and self.tenants:
            self.tenants[-1].next_is_ref_input = True
        tenant.real_size = real_size
        tenant.no_align_size = no_align_size
        self.tenants.append(tenant)
        self._max_real = 0
        self._idx = self._solo = None
        if tenant.attrs:
            self._attrs = self._attrs | tenant.attrs

    def keep_tenants(self, kept):
        """DelNode of every other tenant: block-type attributes recomputed, the AlignSize
        cache kept (GE's DelNode leaves max_real_size_)."""
        self.tenants = kept
        self._idx = self._solo = None
        out = frozenset()
        for t in kept:
            out |= t.attrs
        self._attrs = out

    def attrs(self):
        return self._attrs

    def conflicts_with(self, other):
        if not self._attrs or not other._attrs:
            return False
        return _conflict(self._attrs, other._attrs)

    def set_size(self, size):
        if size > self.size:
            self.size = size

    def align_size(self):
        """AlignSize: the largest tenant, 512-aligned; cached until a tenant is added (a
        tenant moved out by the level-2 split leaves the cached figure, as in GE)."""
        if self._max_real == 0 and self.tenants:
            self._max_real = align(max(t.real_size for t in self.tenants))
        return self._max_real

    def life_begin(self):
        return self.tenants[0].life_begin() if self.tenants else 0

    def life_end(self, stream=None):
        """GetLifeEnd(stream) (mb L634-661): the last tenant's end, or its end on `stream`
        when it was read on that one other stream only."""
        if not self.tenants:
            return MAX_LIFE
        t = self.tenants[-1]
        if stream is not None and t.diff_life and t.out_count == 1 and len(t.diff_life) == 1 \
                and stream in t.diff_life:
            return t.diff_life[stream]
        return t.end

    def life_end_and_stream(self, stream):
        """GetLifeEnd(stream, end_stream) (mb L663-691): (life end, the stream it is on)."""
        if self.tenants:
            t = self.tenants[-1]
            if not (t.out_count == 1 and t.diff_life and len(t.diff_life) == 1):
                return t.end, self.stream
            if stream in t.diff_life:
                return t.diff_life[stream], stream
            if stream != self.stream:
                first = sorted(t.diff_life)[0]
                return t.diff_life[first], first
        return MAX_LIFE, self.stream

    def set_life_end(self, time, stream=None):
        """SetLifeTimeEnd (mb L709-730): on the block's stream keeps the larger end; on
        another stream records the end there (and the own end becomes kMaxLifeTime)."""
        self._solo = None
        if self.tenants:
            t = self.tenants[-1]
            if stream is not None and stream != self.stream:
                if t.diff_life is None:
                    t.diff_life = {}
                if stream not in t.diff_life or time > t.diff_life[stream]:
                    t.diff_life[stream] = time
                if t.end == DEFAULT_LIFE:
                    t.end = MAX_LIFE
                    self._idx = None
            elif t.end == DEFAULT_LIFE or time > t.end:
                t.end = time
                self._idx = None

    def symbol_life_end(self):
        return self.tenants[-1].symbol_end if self.tenants else DEFAULT_LIFE

    def set_symbol_life_end(self, time):
        if self.tenants:
            t = self.tenants[-1]
            if t.symbol_end == DEFAULT_LIFE or time > t.symbol_end:
                t.symbol_end = time

    def clone(self):
        """Clone (mb): the fields reuse decisions read, no tenants."""
        b = Block(self.size, self.reuse_mem, self.memory_type, self.stream)
        b.same_stream = self.same_stream
        b.is_zero_copy = self.is_zero_copy
        b.is_reuse_zero_copy = self.is_reuse_zero_copy
        b.ref_count = self.ref_count
        b.post_reuse_flag = self.post_reuse_flag
        return b

    def resize(self):
        """Resize (mb L311-330): max(largest tenant, children side by side), 512-aligned."""
        child_sum = 0
        for c in self.children:
            c.resize()
            child_sum += c.size
        if not self.tenants:
            return
        size = max(child_sum, max(t.real_size for t in self.tenants))
        if size > 0 and size % MEM_ALIGN:
            size = align(size)
        self.size = size

    def place(self, offset):
        """Set this block's offset and its children's (SetHeadOffset)."""
        self.offset = offset
        at = offset
        for c in self.children:
            c.place(at)
            at += c.size

    def __repr__(self):
        return "Block(%d, [%s]%s)" % (self.size, ", ".join(
            "%s@%d-%s" % (t.label(), t.life_begin(), t.end) for t in self.tenants),
            " children=%d" % len(self.children) if self.children else "")


# ---------------------------------------------------------------- level 1
def pick(items, block_size, life_begin, tenant_attrs, first_release):
    """ReuseBlock + CanReuseBlock (mb L71-105) over the released blocks `items` ([(release
    seq, block)] of one stream and nominal size, oldest first): the index of the block GE
    takes (the newest that fits, or the oldest under first-release-first-reuse), or -1.
    A block fits: exact nominal size, its life over (life_begin later than its last
    tenant's end), never a continuous or zero-copy block (L86-88), no conflicting block
    type, reusable and not nested."""
    seq = range(len(items)) if first_release else range(len(items) - 1, -1, -1)
    for k in seq:
        block = items[k][1]
        if block.is_zero_copy or block.continuous or block.diff_stream_prior:
            continue
        if block._attrs and tenant_attrs and _conflict(block._attrs, tenant_attrs):
            continue
        if block.size != block_size:
            continue
        if life_begin > 0:
            tt = block.tenants
            if not life_begin > (tt[-1].end if tt else MAX_LIFE):     # GetLifeEnd
                continue
        if not block.reuse_mem or block.child_block:           # CanNotLifeReuse
            continue
        return k
    return -1


# ---------------------------------------------------------------- level 2
def cross_life_time(left, right):
    """CrossLifeTime (mb L107-127): inclusive intervals overlap."""
    lb, rb = left.lb, right.lb
    if lb < rb:
        return left.end >= rb
    if lb == rb:
        return True
    return right.end >= lb


def _span_index(block):
    """(lbs, ends) of the block's tenants when their begins and ends never decrease and
    each begin <= its end (what level 1 builds: a tenant starts after the previous one ends,
    an alias where the previous one ends), else False. Cached until the tenants change."""
    if block._idx is None:
        lbs = [t.lb for t in block.tenants]
        ends = [t.end for t in block.tenants]
        ok = all(lb <= e for lb, e in zip(lbs, ends)) and all(
            lbs[k] <= lbs[k + 1] and ends[k] <= ends[k + 1] for k in range(len(lbs) - 1))
        block._idx = (lbs, ends) if ok else False
    return block._idx


def _crosses(parent, t):
    """Whether tenant `t` crosses any tenant of `parent` (CrossLifeTime, inclusive)."""
    idx = _span_index(parent)
    if idx and t.lb <= t.end:
        lbs, ends = idx
        k = bisect.bisect_left(ends, t.lb)       # the first tenant ending at or after t begins
        return k < len(ends) and lbs[k] <= t.end
    for p in parent.tenants:
        if cross_life_time(p, t):
            return True
    return False


def _cross_life_time_node(parent, tenants, pos):
    """CrossLifeTimeNode (mb L757-791): tenant `pos` of `tenants` (a child's, and the ref
    tenants after it) against every tenant of `parent`."""
    if not parent.tenants:
        return False
    t = tenants[pos]
    if not (t.end < parent.tenants[0].lb or t.lb > parent.tenants[-1].end):
        if _crosses(parent, t):
            return True
    if t.next_is_ref_input:
        for r in tenants[pos + 1:]:
            if not r.ref_input:
                break
            if _crosses(parent, r):
                return True
    return False


class StreamContext:
    """What level 2 reads about streams: `streams` (mem_stream.Streams), `same_out`
    ((node, output) pairs sharing memory with outputs of other streams, bma
    InitDiffStreamSameOutTable L1079-1109) and the MemoryPriority flag."""
    __slots__ = ("streams", "same_out", "memory_priority")

    def __init__(self, streams, same_out, memory_priority):
        self.streams, self.same_out, self.memory_priority = streams, same_out, memory_priority

    @property
    def simple(self):
        """One stream and no shared outputs: the same-stream rules are all there is."""
        return self.streams.single and not self.same_out


def can_block_life_reuse(in_block, out_block, ctx):
    """CanBlockLifeReuse (mb L152-203): out_block may follow in_block in one range. Same
    stream: out_block starts after in_block ends; other streams: the id out_block's first
    tenant depends on in in_block's stream (GetDependLifeBegin) is at or after in_block's
    last tenant and after its end there."""
    first = out_block.tenants[0]
    if ctx is not None and first.kind == "out" and (first.node, first.index) in ctx.same_out:
        return False
    if in_block._attrs and out_block._attrs and in_block.conflicts_with(out_block):
        return False
    if in_block.stream == out_block.stream:
        return first.lb > in_block.life_end(out_block.stream)
    depend = ctx.streams.depend_life_begin(out_block, in_block.stream)
    tail = in_block.tenants[-1].node_id
    if tail != 0 and depend >= tail:
        if not ctx.memory_priority:
            return depend > in_block.life_end(out_block.stream)
        end, end_stream = in_block.life_end_and_stream(out_block.stream)
        if end_stream == out_block.stream:
            return first.lb > end
        if end_stream != in_block.stream and end_stream != -1:
            return ctx.streams.depend_life_begin(out_block, end_stream) >= end
        return depend > end
    return False


def _can_block(a, b, conflict, ctx):
    """CanBlockLifeReuse(a, b) or CanBlockLifeReuse(b, a); on one stream inline."""
    if ctx is None or ctx.simple:
        return not conflict and (b.tenants[0].lb > a.tenants[-1].end
                                 or a.tenants[0].lb > b.tenants[-1].end)
    return can_block_life_reuse(a, b, ctx) or can_block_life_reuse(b, a, ctx)


def _can_interval_life_reuse(parent, child, clones):
    """CanIntervalLifeReuse (mb L211-272): tenants of `child` that cross `parent`'s are moved
    to a clone block (appended to `clones`); True when some tenant does not cross."""
    if (parent.stream != child.stream or not parent.same_stream or not child.same_stream
            or not parent.tenants or not child.tenants or parent.tenants[-1].diff_life
            or child.tenants[-1].diff_life):
        return False
    if parent.conflicts_with(child):
        return False
    # GE moves each crossing tenant to a clone as it walks (a tenant's verdict reads only it
    # and the tenants after it, so deciding first on the unchanged list is the same walk)
    tenants = child.tenants
    crossing = []
    pre_cross = False
    p_begin, p_end = parent.tenants[0].lb, parent.tenants[-1].end
    idx = _span_index(parent)
    if len(tenants) == 1:
        # one tenant: it crosses (all crossed: refused) or not (nothing moves); a lone ref
        # tenant never crosses (it follows a crossing tenant before it, and there is none)
        t = tenants[0]
        if t.ref_input:
            return True
        if idx and t.lb <= t.end:
            if t.end < p_begin or t.lb > p_end:
                return True
            lbs, ends = idx
            q = bisect.bisect_left(ends, t.lb)
            return not (q < len(ends) and lbs[q] <= t.end)
    if idx:
        # _cross_life_time_node inline: with the parent's tenants in order, a tenant
        # crosses one of them when the first ending at or after its begin starts by its end
        lbs, ends = idx
        last = len(ends)
        left = bisect.bisect_left
        for pos, t in enumerate(tenants):
            if t.ref_input:
                cross = pre_cross
            else:
                cross = False
                if not (t.end < p_begin or t.lb > p_end):
                    if t.lb <= t.end:
                        q = left(ends, t.lb)
                        cross = q < last and lbs[q] <= t.end
                    else:
                        cross = _crosses(parent, t)
                if not cross and t.next_is_ref_input:
                    for r in tenants[pos + 1:]:
                        if not r.ref_input:
                            break
                        if _crosses(parent, r):
                            cross = True
                            break
            crossing.append(cross)
            pre_cross = cross
    else:
        for pos, t in enumerate(tenants):
            cross = (t.ref_input and pre_cross) or (not t.ref_input and
                                                   _cross_life_time_node(parent, tenants, pos))
            crossing.append(cross)
            pre_cross = cross
    if not any(crossing):
        return True
    if all(crossing):
        return False          # every tenant crossed: the block keeps them all (Swap)
    clone = child.clone()
    kept = []
    for t, cross in zip(tenants, crossing):
        if cross:
            clone.add_tenant(t, t.real_size, t.no_align_size)
        else:
            kept.append(t)
    child.keep_tenants(kept)
    clones.append(clone)
    return True


def _max_real(block):
    return max(t.real_size for t in block.tenants) if block.tenants else None


def _add_zero_copy_life_reuse_block(this, block):
    """AddZeroCopyLifeReuseBlock (mb L429-484)."""
    it_block, it_this = _max_real(block), _max_real(this)
    if it_block is None or it_this is None:
        return
    if ((this.is_zero_copy and block.is_zero_copy) or (this.is_zero_copy and it_this < it_block)
            or (block.is_zero_copy and it_this > it_block)):
        return
    if this.conflicts_with(block):
        return
    both_empty_equal = this.child_offset == 0 and block.child_offset == 0 and it_block == it_this
    if ((this.child_offset + block.align_size() <= it_this) or both_empty_equal) \
            and this.is_zero_copy:
        parent, child = this, block
    elif (((block.child_offset + this.align_size() <= it_block) or both_empty_equal)
          and block.is_zero_copy and this.align_size() == block.align_size()
          and not this.children):
        parent, child = block, this
    else:
        return
    if parent.is_zero_copy and not child.is_reuse_zero_copy:
        return
    parent.children.append(child)
    parent.child_offset += child.align_size()
    child.child_block = True
    parent.is_reuse_zero_copy = child.is_reuse_zero_copy and parent.is_reuse_zero_copy
    _nested(parent, child)


def _add_continuous_life_reuse_block(this, block):
    """AddContinuousLifeReuseBlock (mb L382-416): whole-block nesting only, the continuous
    block's largest real size must not be exceeded and two continuous blocks never meet."""
    it_block, it_this = _max_real(block), _max_real(this)
    if it_block is None or it_this is None:
        return
    if ((this.continuous and block.continuous) or (this.continuous and it_this < it_block)
            or (block.continuous and it_this > it_block)):
        return
    if this.conflicts_with(block):
        return
    if this.child_offset + block.align_size() <= it_this and this.continuous:
        parent, child = this, block
    elif (block.child_offset + this.align_size() <= it_block and block.continuous
          and this.align_size() == block.align_size() and not this.children):
        parent, child = block, this
    else:
        return
    parent.children.append(child)
    parent.child_offset += child.align_size()
    child.child_block = True
    _nested(parent, child)


def add_life_reuse_block(this, block, clones, depth=0, child_reuse=False, ctx=None):
    """AddLifeReuseBlock (mb L486-572): nest `block` inside `this` (or one of its children)
    where their lives allow and it fits within `this`'s size + 512. Returns True when handled."""
    depth += 1
    tt, bt = this.tenants, block.tenants
    if (not this.reuse_mem or (not child_reuse and this.child_block) or not block.reuse_mem
            or block.child_block or this.memory_type != block.memory_type or depth > MAX_DEPTH
            or block.children or not tt or not bt):
        return False
    # CanBlockLifeReuse both ways
    conflict = this._attrs and block._attrs and _conflict(this._attrs, block._attrs)
    if ctx is None:
        can_block = not conflict and (bt[0].lb > tt[-1].end or tt[0].lb > bt[-1].end)
    else:
        can_block = _can_block(this, block, conflict, ctx)
    if (this.is_zero_copy and block.continuous) or (block.is_zero_copy and this.continuous):
        return False
    if this.continuous or block.continuous:
        if can_block:
            _add_continuous_life_reuse_block(this, block)
        return True
    if this.is_zero_copy or block.is_zero_copy:
        if can_block:
            _add_zero_copy_life_reuse_block(this, block)
        return True
    if not can_block:
        if conflict or not _can_interval_life_reuse(this, block, clones):
            return False      # CanIntervalLifeReuse refuses conflicting types first thing
    elif not this.children:
        size = block.align_size()      # nest_life_reuse_block's size check, without the call
        if this.child_offset + size > this.align_size() + (MEM_ALIGN if size != MEM_ALIGN
                                                            else 0):
            return False
    return nest_life_reuse_block(this, block, clones, depth, ctx)


INF_ROOM = 1 << 62


def own_room(block):
    """Bytes a block nested here may need beyond 512 padding (GE's fit test, below, is
    `child_offset + size <= AlignSize + 512`, or + 0 for a 512-byte block): AlignSize -
    child_offset; -1 beyond GE's depth limit (never visited); INF_ROOM for a continuous or
    zero-copy block, whose walk may end without a fit (AddContinuous/ZeroCopyLifeReuseBlock)."""
    if block.continuous or block.is_zero_copy:
        return INF_ROOM
    if block.depth > MAX_DEPTH:
        return -1
    return block.align_size() - block.child_offset


def subtree_room(block):
    """The largest `own_room` in `block`'s subtree (block included)."""
    return block.room if block.children else own_room(block)


def walk_need(block):
    """The room a nesting walk for `block` needs somewhere below to change anything: its
    size less the padding the fit test allows; 0 (walk everything) when the walk may change
    `block` without nesting it (CanIntervalLifeReuse splits a block of several tenants) or
    end on a special rule (a continuous or zero-copy block)."""
    if len(block.tenants) != 1 or block.continuous or block.is_zero_copy:
        return 0
    size = block.align_size()
    return size - MEM_ALIGN if size != MEM_ALIGN else size


def _nested(parent, child):
    """After `child` is nested into `parent`: its place in the tree, and the subtree rooms
    of `parent` and up (the walk's pruning: a subtree without room for a one-tenant block
    returns False and changes nothing, so it need not be walked)."""
    if child.up is None:
        child.up = parent
        child.depth = parent.depth + 1
    node = parent
    while node is not None:
        r = own_room(node)
        for c in node.children:
            cr = c.room if c.children else own_room(c)
            if cr > r:
                r = cr
        if r == node.room:
            break
        node.room = r
        node = node.up
    mem_chain.nested(parent, child)


def nest_life_reuse_block(this, block, clones, depth=1, ctx=None, need=None):
    """The tail of AddLifeReuseBlock, once `block`'s life allows it inside `this`: into one
    of `this`'s children first (AddLifeReuseBlock on each, its checks inline), else beside
    them when it fits (size + 512). `need` (`walk_need`) skips children whose walk can
    change nothing.

    GE recurses (mb L486-572); the chains of nested blocks go up to kMaxDepthNum deep, so
    the walk here is a loop over an explicit stack of the parents whose children are still
    being tried, in the same order. What a frame of GE's recursion holds is kept per level:
    the node, its next child, the depth, `need` and `block`'s attributes as read on entry.
    A run of single-child blocks that `block` crosses none of is passed at once
    (`mem_chain.jump`: the same frames, the same result, for one stream only)."""
    simple = ctx is None
    mtype = block.memory_type
    b_zero, b_cont = block.is_zero_copy, block.continuous
    b_special = b_zero or b_cont
    # AlignSize is cached on the block and a split (keep_tenants) keeps the cache: one size
    # for the whole walk; the fit test is child_offset + size <= AlignSize + 512 (+ 0 for a
    # 512-byte block)
    size = block.align_size()
    extra = MEM_ALIGN if size != MEM_ALIGN else 0
    bt = block.tenants
    b_lb, b_end = bt[0].lb, bt[-1].end
    left = bisect.bisect_left
    stack = []
    node, kids, i, d = this, this.children, 0, depth
    b_attrs = block._attrs
    if kids and d < MAX_DEPTH and need is None:
        need = walk_need(block)
    go_down = bool(kids) and d < MAX_DEPTH
    # passing a chain of nested blocks at once (mem_chain.jump): one stream, plain blocks
    fit_need = size - extra
    jumps = simple and not b_special and block.same_stream and not bt[-1].diff_life
    b_spans = None
    while True:
        if go_down and not i and jumps and len(kids) == 1:
            # node heads (or continues) a chain: go on from its last member that `block`
            # passes unchanged (mem_chain.jump), as the visits one by one would
            if b_spans is None:
                b_spans = mem_chain.spans(block)
            to = mem_chain.jump(node, d, b_spans, fit_need, need, block.stream, mtype)
            if to is not None:
                stack.append((node, kids, 1, d, need, b_attrs))
                node, d = to
                kids = node.children
        while go_down and i < len(kids):
            c = kids[i]
            i += 1
            if need:
                if c.children:
                    if c.room is not None and c.room < need:
                        continue    # nothing below c can take it, the walk there changes nothing
                elif not c.continuous and not c.is_zero_copy and (
                        c.depth > MAX_DEPTH or (c._max_real or c.align_size()) - c.child_offset
                        < need):
                    continue        # own_room(c) < need, inline
            # add_life_reuse_block(c, block, clones, depth, True); the checks of `block`
            # alone passed on the way here and hold until it is nested
            tt = c.tenants
            if not c.reuse_mem or c.memory_type != mtype or not tt:
                continue
            conflict = b_attrs and c._attrs and _conflict(c._attrs, b_attrs)
            if simple:
                can_block = not conflict and (b_lb > tt[-1].end or tt[0].lb > b_end)
            else:
                can_block = _can_block(c, block, conflict, ctx)
            if b_special or c.continuous or c.is_zero_copy:
                if (c.is_zero_copy and b_cont) or (b_zero and c.continuous):
                    continue
                if c.continuous or b_cont:
                    if can_block:
                        _add_continuous_life_reuse_block(c, block)
                    return True
                if can_block:
                    _add_zero_copy_life_reuse_block(c, block)
                return True
            if not can_block:
                if conflict:
                    continue
                bt = block.tenants
                t = bt[0]
                if (len(bt) == 1 and c.stream == block.stream and c.same_stream
                        and block.same_stream and not tt[-1].diff_life and not t.diff_life):
                    # _can_interval_life_reuse of one tenant, inline: a ref tenant passes,
                    # else it passes when it crosses no tenant of c (nothing moves)
                    idx = c._idx
                    if idx is None:
                        idx = _span_index(c)
                    if t.ref_input:
                        pass
                    elif idx and t.lb <= t.end:
                        if not (t.end < tt[0].lb or t.lb > tt[-1].end):
                            lbs, ends = idx
                            q = left(ends, t.lb)
                            if q < len(ends) and lbs[q] <= t.end:
                                continue
                    elif not _can_interval_life_reuse(c, block, clones):
                        continue
                else:
                    n_clones = len(clones)
                    if not _can_interval_life_reuse(c, block, clones):
                        continue
                    if len(clones) != n_clones:
                        # split: what is left of `block` may be one tenant, whose walk
                        # below can change nothing unless it nests (the room pruning)
                        need = walk_need(block)
                        bt = block.tenants
                        b_lb, b_end = bt[0].lb, bt[-1].end
                        jumps = (simple and not b_special and block.same_stream
                                 and not bt[-1].diff_life)
                        b_spans = None
            elif not c.children:
                if c.child_offset + size > (c._max_real or c.align_size()) + extra:
                    continue
            # into c: this level waits on the stack (GE's recursive call)
            stack.append((node, kids, i, d, need, b_attrs))
            node, kids, i, d = c, c.children, 0, d + 1
            b_attrs = block._attrs
            go_down = bool(kids) and d < MAX_DEPTH
            if go_down and jumps and len(kids) == 1:
                break           # to the chain check above, then on with c's children
        else:
            # node's children all tried: beside them when it fits
            if node.child_offset + size <= (node._max_real or node.align_size()) + extra:
                node.children.append(block)
                node.is_reuse_zero_copy = block.is_reuse_zero_copy and node.is_reuse_zero_copy
                node.child_offset += size
                block.child_block = True
                _nested(node, block)
                return True
            if not stack:
                return False
            node, kids, i, d, need, b_attrs = stack.pop()
            go_down = True


def sort_key(ascending):
    """CompareLifeInterval (mb L883-915) as a sort key: larger AlignSize first; equal sizes:
    ascending strategies fewer tenants first then earlier start, descending later start."""
    if ascending:
        return lambda b: (-b.align_size(), len(b.tenants), b.life_begin())
    return lambda b: (-b.align_size(), -b.life_begin())
