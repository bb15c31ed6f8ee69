"""A graph as GE's memory assigner sees it: nodes with output and workspace sizes in bytes,
data edges between output and input anchors, control edges, node attributes under GE's
names, and the GE options that steer the plan (no TensorFlow import).

The JSON case format (docs/memory.md "A graph given as data") is the one of
`reference/ge_memtests.json`: `GeGraph.from_case(obj)` reads one case object,
`GeGraph.to_case()` writes one. Features the planner does not model raise `NotModelled`
naming them (never a made-up figure); malformed input raises `GraphError` listing every
problem at once.
"""
import difflib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from npu_bridge.ge import continuous_mem
# GE's op-type tables (re-exported: block_assigner and the tests read them from here)
from npu_bridge.ge.ge_op_types import (  # noqa: F401
    DATA_TYPES, NETOUTPUT, PASS_THROUGH_TYPES, REF_OUTPUT0_TYPES, ZERO_MEMORY_TYPES)

NODE_KEYS = frozenset(("name", "type", "inputs", "outputs", "workspace", "stream", "attrs",
                       "input_sizes", "engine"))
"""The keys a node of the case format may have (`input_sizes`, GE's test input sizes, is
accepted and not read: the planner takes sizes from the producers' outputs; `engine` is the
op's kernel library name, read for the GE-local engine `DNN_VM_GE_LOCAL_OP_STORE`, whose
nodes give no stream dependency edges: block_mem_assigner.cc L372)."""

# attributes the planner reads (GE attribute names; `ref_output_to_input` stands for
# TensorUtils::SetReuseInput + SetReuseInputIndex on the output desc)
MODELLED_ATTRS = {
    "_no_padding_continuous_input": "bool: the node reads its inputs as one buffer without "
                                    "padding (ATTR_NAME_NOPADDING_CONTINUOUS_INPUT; "
                                    "continuous_mem.py)",
    "_output_reuse_input": "bool (ATTR_NAME_OUTPUT_REUSE_INPUT): read by GE for no-padding "
                           "continuous outputs only (not modelled); no effect on a plan here",
    "_reuse_input_on_dim_index": "int (ATTR_NAME_REUSE_INPUT_ON_DIM_INDEX): input offsets "
                                 "inside a no-padding block (graph_mem_assigner.cc L794-836); "
                                 "no effect on the sizes",
    "need_gentask_atomic": "bool: with atomic_input_index on a continuous-input node, it "
                           "cleans its own inputs (continuous_mem.py)",
    "atomic_input_index": "list: inputs cleaned (ATOMIC_ATTR_INPUT_INDEX); only modelled with "
                          "need_gentask_atomic on a continuous-input node",
    "continuous_input": "bool: the node needs its inputs side by side, padded "
                        "(ATTR_NAME_CONTINUOUS_INPUT; continuous_mem.py)",
    "continuous_output": "bool: the node's outputs side by side, padded "
                         "(ATTR_NAME_CONTINUOUS_OUTPUT; continuous_mem.py)",
    "ref_output_to_input": "dict output index -> input index: the output is the input's memory "
                           "(TensorUtils::SetReuseInput/ReuseInputIndex)",
    "atomic_output_index": "list of output indexes cleaned by a memset node "
                           "(ATOMIC_ATTR_OUTPUT_INDEX)",
    "atomic_workspace_info": "{node name: {workspace index: bytes}} "
                             "(EXT_ATTR_ATOMIC_WORKSPACE_INFO)",
    "atomic_is_fusion_node": "bool or text (ATOMIC_ATTR_IS_FUSION_NODE; no effect on sizes)",
    "workspace_no_reuse_scope": "list per workspace, 1 = session scope, never reused "
                                "(ATTR_NAME_WORKSPACE_MEMORY_NO_REUSE_SCOPE)",
    "workspace_reuse_flag": "list of bool per workspace (workspace_reuse_flag)",
    "no_reuse_mem_flag": "bool: the node's outputs and workspaces are not reused",
    "index": "int: a Data node's graph input index (ATTR_NAME_INDEX)",
    "assign_var_name": "{output index: variable name}: the output is that variable's memory "
                       "(ASSIGN_VAR_NAME), no feature-map block",
}

NOT_MODELLED_ATTRS = {
    "_no_padding_continuous_output": "no-padding continuous outputs "
                                     "(ATTR_NAME_NOPADDING_CONTINUOUS_OUTPUT)",
    "_batch_label": "batch labels (multi-batch graphs)",
    "batch_label": "batch labels (multi-batch graphs)",
    "_output_memory_type": "memory types (ATTR_NAME_OUTPUT_MEM_TYPE_LIST)",
    "output_mem_type_list": "memory types (ATTR_NAME_OUTPUT_MEM_TYPE_LIST)",
    "workspace_type_list": "memory types (ATTR_NAME_WORKSPACE_TYPE_LIST)",
    "tvm_workspace_type": "memory types (TVM_ATTR_NAME_WORKSPACE_TYPE)",
    "buffer_pool_id": "buffer pools (ATTR_NAME_BUFFER_POOL_ID)",
    "buffer_pool_size": "buffer pools (ATTR_NAME_BUFFER_POOL_SIZE)",
    "_output_inplace_ability": "in-place symbol merging (ProcessInplace, "
                               "ATTR_NAME_OUTPUT_INPLACE_ABILITY)",
    "_mem_release_first_reuse_first": "first-release-first-reuse graph attribute",
    "_sub_stream_id": "sub-stream ids given in the graph (ATTR_NAME_SUB_STREAM_ID; the planner "
                      "derives them as GE's preparation does)",
    "_thread_scope_id": "thread scopes (ATTR_NAME_THREAD_SCOPE_ID)",
    "_output_offset_for_buffer_fusion": "lx-fusion buffer offsets "
                                        "(ATTR_NAME_OUTPUT_OFFSET_FOR_BUFFER_FUSION)",
    "subgraphs": "subgraphs (PartitionedCall, While bodies)",
}
"""Attributes of GE features the planner does not model: a case using one is refused."""

NOT_MODELLED_TYPES = {
    "Send": "multi-stream (Send/Recv events)", "Recv": "multi-stream (Send/Recv events)",
    "StreamSwitch": "multi-stream (StreamSwitch)", "StreamMerge": "multi-stream (StreamMerge)",
    "StreamActive": "multi-stream (StreamActive)", "LabelSwitchByIndex": "label switches",
    "PartitionedCall": "subgraphs (PartitionedCall)", "HcomAllReduce": "HCCL nodes",
    "HcomAllGather": "HCCL nodes", "HcomBroadcast": "HCCL nodes",
    "PhonySplit": "no-padding continuous outputs (PhonySplit)",
}

OPTION_KEYS = {
    "ge.exec.disableReuseMemory": ("0", "1"),
    "ge.topoSortingMode": ("", "0", "1", "2", "3"),
    "ge.exec.memoryOptimizationPolicy": ("", "MemoryPriority"),
    "ge.exec.atomicCleanPolicy": ("0", "1"),
    "ge.exec.inputReuseMemIndexes": None,
    "ge.exec.outputReuseMemIndexes": None,
    "ge.graphRunMode": ("0", "1"),
}
"""GE option keys a case may set, with the values GE accepts (None: a comma list of
indexes). Other keys are refused by name."""


class GraphError(ValueError):
    """Malformed graph description; `.problems` lists every problem found."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("bad graph description: " + "; ".join(self.problems))


class NotModelled(ValueError):
    """The graph uses GE features the planner does not model; `.features` names them."""

    def __init__(self, features):
        self.features = sorted(set(features))
        super().__init__("not modelled: " + "; ".join(self.features) +
                         " (docs/memory.md lists what the planner models); no figure given")


@dataclass
class GeNode:
    """One GE node. outputs / workspace: bytes per output / workspace (GE's
    `TensorUtils::GetSize` and `GetWorkspaceBytes`; -1 workspace counts as 0); inputs: number
    of input anchors (default: as many as its data edges need); stream: stream id; attrs: GE
    attributes (`MODELLED_ATTRS`)."""
    name: str
    type: str
    outputs: List[int] = field(default_factory=list)
    workspace: List[int] = field(default_factory=list)
    inputs: int = 0
    stream: int = 0
    attrs: Dict[str, object] = field(default_factory=dict)
    shapes: Optional[List[object]] = None   # per output (shape, dtype) for reports, optional
    engine: str = ""                        # op kernel library name (OpDesc::GetOpKernelLibName)


@dataclass
class GeGraph:
    """A root GE graph: `nodes` in insertion order (the order GE's sort starts from),
    `edges` data edges (src, out index, dst, in index) in insertion order, `control` control
    edges (src, dst), `options` GE option keys -> text values (`OPTION_KEYS`)."""
    name: str
    nodes: List[GeNode]
    edges: List[Tuple[str, int, str, int]] = field(default_factory=list)
    control: List[Tuple[str, str]] = field(default_factory=list)
    options: Dict[str, str] = field(default_factory=dict)

    # ---------------------------------------------------------------- reading / writing
    @classmethod
    def from_case(cls, obj, name=None):
        """Read one case object of the ge_memtests.json format. Raises GraphError (every
        problem at once) or NotModelled (every unmodelled feature at once)."""
        problems = []
        if not isinstance(obj, dict):
            raise GraphError(["the case must be a JSON object, got %s" % type(obj).__name__])
        known = {"test", "nodes", "edges", "control_edges", "options", "expected", "features",
                 "notes", "model_checkable", "model_compare", "name", "source"}
        for key in obj:
            if key not in known:
                problems.append("unknown key %r (allowed: %s)" % (key, ", ".join(sorted(known))))
        nodes = []
        seen = set()
        for i, raw in enumerate(obj.get("nodes") or []):
            where = "nodes[%d]" % i
            if not isinstance(raw, dict):
                problems.append("%s: must be an object" % where)
                continue
            nm = raw.get("name")
            if not isinstance(nm, str) or not nm:
                problems.append("%s: 'name' must be a non-empty string" % where)
                continue
            where = "node %r" % nm
            seen.add(nm)
            for key in raw:
                if key not in NODE_KEYS:
                    near = difflib.get_close_matches(key, NODE_KEYS, n=1)
                    problems.append("%s: unknown key %r%s (a node has: %s)" % (
                        where, key, "; did you mean %r?" % near[0] if near else "",
                        ", ".join(sorted(NODE_KEYS))))
            outs = raw.get("outputs", [])
            ws = raw.get("workspace", [])
            for label, vals, low in (("outputs", outs, 0), ("workspace", ws, -1)):
                if not isinstance(vals, list) or not all(
                        isinstance(v, int) and not isinstance(v, bool) and v >= low for v in vals):
                    problems.append("%s: %r must be a list of integers >= %d (bytes)" % (
                        where, label, low))
            stream = raw.get("stream", 0)
            if not isinstance(stream, int) or isinstance(stream, bool) or stream < -1:
                problems.append("%s: 'stream' must be an integer >= -1 (-1: no stream)" % where)
            engine = raw.get("engine", "")
            if not isinstance(engine, str):
                problems.append("%s: 'engine' must be a string (a kernel library name)" % where)
            attrs = raw.get("attrs", {}) or {}
            if not isinstance(attrs, dict):
                problems.append("%s: 'attrs' must be an object" % where)
                attrs = {}
            for key in attrs:
                if key not in MODELLED_ATTRS and key not in NOT_MODELLED_ATTRS:
                    problems.append("%s: unknown attribute %r (modelled: %s; refused as not "
                                    "modelled: %s)" % (where, key, ", ".join(sorted(
                                        MODELLED_ATTRS)), ", ".join(sorted(NOT_MODELLED_ATTRS))))
            nodes.append(GeNode(nm, str(raw.get("type", "")), list(outs) if isinstance(
                outs, list) else [], list(ws) if isinstance(ws, list) else [],
                int(raw.get("inputs", 0) or 0), stream if isinstance(stream, int) else 0,
                dict(attrs), engine=engine if isinstance(engine, str) else ""))
        if not nodes:
            problems.append("'nodes' must list at least one node")
        edges = []
        for i, e in enumerate(obj.get("edges") or []):
            if not (isinstance(e, list) and len(e) == 4 and isinstance(e[0], str)
                    and isinstance(e[2], str) and isinstance(e[1], int) and isinstance(e[3], int)):
                problems.append("edges[%d]: must be [src, out index, dst, in index], got %r" % (
                    i, e))
                continue
            edges.append((e[0], e[1], e[2], e[3]))
        control = []
        for i, e in enumerate(obj.get("control_edges") or []):
            if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
                problems.append("control_edges[%d]: must be [src, dst], got %r" % (i, e))
                continue
            control.append((e[0], e[1]))
        options = {}
        for key, value in (obj.get("options") or {}).items():
            text = str(value) if not isinstance(value, bool) else ("1" if value else "0")
            options[key] = text
        graph = cls(name or obj.get("name") or obj.get("test") or "graph", nodes, edges,
                    control, options)
        problems.extend(graph.problems())
        if problems:
            raise GraphError(problems)
        unmodelled = graph.unmodelled()
        if unmodelled:
            raise NotModelled(unmodelled)
        return graph

    def to_case(self):
        """The case object of this graph (ge_memtests.json format)."""
        out = {"nodes": [], "edges": [list(e) for e in self.edges],
               "options": dict(self.options)}
        if self.control:
            out["control_edges"] = [list(e) for e in self.control]
        for n in self.nodes:
            out["nodes"].append({"name": n.name, "type": n.type, "inputs": n.inputs,
                                 "outputs": list(n.outputs), "workspace": list(n.workspace),
                                 "stream": n.stream, "attrs": dict(n.attrs)})
            if n.engine:
                out["nodes"][-1]["engine"] = n.engine
        return out

    # ---------------------------------------------------------------- checks
    def problems(self):
        """Structural problems (unknown nodes, anchors out of range, an input fed twice,
        option keys and values), as texts; empty when the graph is sound."""
        out = []
        by = {n.name: n for n in self.nodes}
        names = [n.name for n in self.nodes]
        for nm in sorted({nm for nm in names if names.count(nm) > 1}):
            out.append("node %r: name used twice" % nm)
        fed = {}
        for src, o, dst, i in self.edges:
            if src not in by:
                out.append("edge %s:%d -> %s:%d: no node %r" % (src, o, dst, i, src))
                continue
            if dst not in by:
                out.append("edge %s:%d -> %s:%d: no node %r" % (src, o, dst, i, dst))
                continue
            if not 0 <= o < len(by[src].outputs):
                out.append("edge %s:%d -> %s:%d: %r has %d outputs" % (
                    src, o, dst, i, src, len(by[src].outputs)))
            if i < 0:
                out.append("edge %s:%d -> %s:%d: negative input index" % (src, o, dst, i))
            if (dst, i) in fed:
                out.append("input %s:%d fed twice (%s and %s:%d)" % (dst, i, fed[(dst, i)], src, o))
            fed[(dst, i)] = "%s:%d" % (src, o)
        for src, dst in self.control:
            for nm in (src, dst):
                if nm not in by:
                    out.append("control edge %s -> %s: no node %r" % (src, dst, nm))
        for key, value in self.options.items():
            if key not in OPTION_KEYS:
                out.append("option %r is not one the planner reads (known: %s)" % (
                    key, ", ".join(sorted(OPTION_KEYS))))
                continue
            allowed = OPTION_KEYS[key]
            if allowed is None:
                bits = [b.strip() for b in value.split(",") if b.strip()]
                if not all(b.lstrip("-").isdigit() for b in bits):
                    out.append("option %s=%r: give a comma list of indexes" % (key, value))
            elif value not in allowed:
                out.append("option %s=%r: allowed %s (GE source: %s)" % (
                    key, value, ", ".join(repr(a) for a in allowed), "ge_common_api_types.h"))
        for n in self.nodes:
            ref = n.attrs.get("ref_output_to_input") or {}
            for k, v in dict(ref).items():
                if not (str(k).isdigit() and int(k) < len(n.outputs) and isinstance(v, int)):
                    out.append("node %r: ref_output_to_input %r: output index must name one of "
                               "its %d outputs, input index an integer" % (n.name, ref,
                                                                           len(n.outputs)))
            for k in n.attrs.get("atomic_output_index") or []:
                if not (isinstance(k, int) and 0 <= k < len(n.outputs)):
                    out.append("node %r: atomic_output_index %r out of its %d outputs" % (
                        n.name, k, len(n.outputs)))
        if not out:
            try:
                self.check_acyclic()
            except GraphError as exc:
                out.extend(exc.problems)
        return out

    def check_acyclic(self):
        """Raise GraphError naming the nodes on a cycle (GE's sort fails the same way)."""
        indeg = {n.name: 0 for n in self.nodes}
        succ = {n.name: [] for n in self.nodes}
        for src, _, dst, _ in self.edges:
            succ[src].append(dst)
            indeg[dst] += 1
        for src, dst in self.control:
            succ[src].append(dst)
            indeg[dst] += 1
        ready = [k for k, v in indeg.items() if v == 0]
        done = 0
        while ready:
            k = ready.pop()
            done += 1
            for d in succ[k]:
                indeg[d] -= 1
                if indeg[d] == 0:
                    ready.append(d)
        if done != len(self.nodes):
            # Kahn's leftovers include nodes only fed by a cycle; peel those off backwards
            left = {k for k, v in indeg.items() if v > 0}
            peeled = True
            while peeled:
                peeled = False
                for k in sorted(left):
                    if not any(d in left for d in succ[k]):
                        left.discard(k)
                        peeled = True
            left = sorted(left)
            raise GraphError(["the graph has a cycle through %s" % ", ".join(left[:10])])

    def unmodelled(self):
        """Names of the GE features this graph uses that the planner does not model."""
        out = []
        out.extend(continuous_mem.unmodelled(self))
        for n in self.nodes:
            for key in n.attrs:
                if key in NOT_MODELLED_ATTRS:
                    out.append("%s (node %s attribute %s)" % (NOT_MODELLED_ATTRS[key], n.name, key))
            if n.type in NOT_MODELLED_TYPES:
                out.append("%s (node %s)" % (NOT_MODELLED_TYPES[n.type], n.name))
            scope = n.attrs.get("workspace_no_reuse_scope")
            if scope is not None and not isinstance(scope, list):
                out.append("workspace_no_reuse_scope of node %s is not a list" % n.name)
        return out

    # ---------------------------------------------------------------- helpers
    def node_inputs(self, node):
        """Number of input anchors of `node`: its `inputs` or as many as its edges need."""
        top = max([i + 1 for _, _, d, i in self.edges if d == node.name] or [0])
        return max(node.inputs, top)

    @property
    def train(self):
        """GE's train flag: ge.graphRunMode >= 1 (ge_context.cc GetTrainGraphFlag)."""
        mode = self.options.get("ge.graphRunMode", "")
        return mode.isdigit() and int(mode) >= 1
