"""A captured graph (`memory_desc.Graph`: shapes and dtypes) as the GE graph the memory
assigner plans (`ge_graph.GeGraph`: bytes), no TensorFlow.

Rules (docs/memory.md "From a captured graph to GE's graph"):
- output bytes: `memory_desc.tensor_bytes` (elements x dtype size rounded up to 32, + 32);
  a dtype without device memory (string, resource, variant) is 0 bytes;
- graph inputs (and `Data`/`RefData` nodes) become `Data` nodes with their input index;
  constants `Const` and variables `Variable` (no feature-map memory: GE's
  CheckIsZeroMemNodeType); the graph's outputs feed one `NetOutput` node in output order;
- an alias output (`memory_desc.ALIAS_OPS` or `Node.alias`) is a reuse-input output
  (`ref_output_to_input`): it shares its input's block and extends its life;
- workspaces: `Assumptions.workspace_bytes` / `workspace_by_op` per node with outputs;
- float32 planned as float16 under `Assumptions.float32_as_fp16` (or force_fp16);
- options: the GE keys of `MemoryOptions.ge_options()`;
- control inputs (`Node.control`) become GE control edges (they order GE's sort);
- `fold_constants` first does what GE's folding passes do before memory assignment
  (`Shape`/`BroadcastGradientArgs`/... of static shapes become constants).
"""
import dataclasses

from npu_bridge.ge import memory_desc as md
from npu_bridge.ge.ge_graph import GeGraph, GeNode

NETOUTPUT_NAME = "NetOutput"

DIMENSION_TYPES = frozenset(("Shape", "ShapeN", "Rank", "Size", "GatherShapes"))
"""Ops GE's DimensionComputePass folds from their inputs' static shapes (host kernels with a
node-form Compute: compiler/host_kernels/array_ops/{shape,shape_n,rank,size,gathershapes}_
kernel.cc; pass: graph_manager.cc OptimizeStage1 L3395-3412)."""

FOLDING_TYPES = frozenset((
    "BroadcastArgs", "BroadcastGradientArgs", "Empty", "ExpandDims", "GatherShapes",
    "Identity", "PlaceholderWithDefault", "Rank", "Reshape", "Shape", "ShapeN", "Size",
    "Squeeze", "SqueezeV2", "SqueezeV3", "Unsqueeze", "UnsqueezeV2", "UnsqueezeV3", "ReFormat",
    "DynamicStitch", "Add", "Cast", "FloorDiv", "FloorMod", "Greater", "Maximum", "Mul",
    "Rsqrt", "Sub", "Fill", "ReduceProd", "GatherV2", "Range", "SliceD", "Slice",
    "StridedSlice", "ConcatOffset", "ConcatV2", "Pack", "Unpack", "FlattenV2", "Permute",
    "TransposeD", "TransData", "Transpose"))
"""Op types with a GE built-in folding kernel (REGISTER_COMPUTE_NODE_KERNEL in
compiler/host_kernels/, names from framework_types_internal.h): ConstantFoldingPass
(constant_folding_pass.cc L46-111) replaces such a node whose every data input is a constant
by a constant. It first tries the AI CPU library's host kernels, which may fold more types:
not modelled (such a node stays on the device: an upper bound)."""

KEEP_WHEN_UNUSED = frozenset(("Data", "RefData", "Enter", "RefEnter"))
"""Producers GE keeps when folding leaves them without consumers (folding_pass.cc L154-160)."""


def _type_of(node, is_input):
    if is_input or node.op in md.DATA_OPS:
        return "Data" if node.op != "RefData" else "RefData"
    if node.op in md.VARIABLE_OPS:
        return "Variable"
    if node.op in md.CONST_OPS:
        return "Const"
    return node.op


def fold_constants(graph):
    """`graph` (a memory_desc.Graph in topological order) after GE's folding passes of
    OptimizeStage1 (graph_manager.cc L3381-3416), as they change memory:
    - DimensionComputePass: a `DIMENSION_TYPES` node whose inputs all have static shapes;
    - ConstantFoldingPass: a `FOLDING_TYPES` node whose data inputs are all constants (also
      ones folded here: GE's pass driver revisits a folded node's consumers);
    each becomes a `Const` with no data inputs (its control inputs kept), and a producer left
    with no consumer is deleted unless it is a graph input or `Enter` (folding_pass.cc
    Folding L134-173). A node the user fetches folds too: it then is a constant output.
    Returns `graph` itself when nothing folds, else a new Graph."""
    by = {}
    const = set()
    folded = set()
    inputs = set(graph.inputs)
    for node in graph.nodes:
        by[node.name] = node
        if node.name in inputs:
            continue
        if node.op in md.CONST_OPS:
            const.add(node.name)
            continue
        if not node.inputs or len(node.outputs) == 0:
            continue
        fold = False
        if node.op in DIMENSION_TYPES:
            fold = all(src in by and o < len(by[src].outputs)
                       and _static(by[src].outputs[o][0]) for src, o in node.inputs)
        if not fold and node.op in FOLDING_TYPES:
            fold = all(src in const for src, _ in node.inputs)
        if fold:
            const.add(node.name)
            folded.add(node.name)
    if not folded:
        return graph
    used = set(src for n in graph.nodes if n.name not in folded for src, _ in n.inputs)
    used.update(src for src, _ in graph.outputs)
    dropped = set()
    for name in folded:
        for src, _ in by[name].inputs:
            node = by[src]
            if (src not in used and src not in inputs and src not in folded
                    and node.op not in KEEP_WHEN_UNUSED and node.op not in md.DATA_OPS):
                dropped.add(src)
    nodes = []
    for node in graph.nodes:
        if node.name in dropped:
            continue
        control = tuple(c for c in node.control if c not in dropped)
        if node.name in folded:
            node = md.Node(node.name, "Const", node.outputs, (), None, None, control)
        elif control != node.control:
            node = dataclasses.replace(node, control=control)
        nodes.append(node)
    return dataclasses.replace(graph, nodes=tuple(nodes))


def _static(shape):
    return shape is not None and all(d is not None and d >= 0 for d in shape)


def output_bytes(shape, dtype, ge_type):
    """Bytes GE's engines set on one output (`TensorUtils::GetSize`), or None for an unknown
    shape: elements x dtype size rounded up to 32, plus 32 (AI Core ops: op_tensor_utils.cc
    CalibrateTensorSize L62-74, padding 32 on the default NPU architectures:
    platform_utils.cc L524-547; Data: tensor_size_utils.cc
    GetTensorMemorySizeInBytesWithAutoPadding L131-150). An empty tensor (a dimension 0)
    counts as 1 element on an AI Core op (op_tensor_utils.cc ArrayMultiplyInt64WithVerify
    L46-58) and as 32 bytes on a Data node. AI CPU ops set the exact bytes without the 32-byte
    rule (cpu_engine util.cc SetOutPutsSize): not told apart here (at most 64 bytes more per
    tensor)."""
    if shape is not None and ge_type not in md.DATA_OPS and 0 in shape and _static(shape):
        shape = ()
    return md.tensor_bytes(shape, dtype)


def to_ge_graph(graph, options, assumptions):
    """The GeGraph of `graph` (a memory_desc.Graph in topological order) under `options`
    (MemoryOptions) and `assumptions` (Assumptions). Raises ValueError naming the node when
    an input names no earlier node's output."""
    inputs = {name: k for k, name in enumerate(graph.inputs)}
    ws_by_op = dict(assumptions.workspace_by_op)
    seen = {}
    nodes = []
    edges = []
    control = []
    for node in graph.nodes:
        for k, (src, o) in enumerate(node.inputs):
            if src not in seen or o >= seen[src]:
                raise ValueError("memory plan of graph %r: node %r (%s) reads %s:%d, which is "
                                 "not an earlier node's output (nodes must be in topological "
                                 "order)" % (graph.name, node.name, node.op, src, o))
            edges.append((src, o, node.name, k))
        for c in node.control:
            if c in seen:
                control.append((c, node.name))
        seen[node.name] = len(node.outputs)
        ge_type = _type_of(node, node.name in inputs)
        sizes = []
        for shape, dtype in node.outputs:
            if dtype not in md.DTYPE_BYTES:
                sizes.append(0)
                continue
            size = output_bytes(shape, md.dtype_of(dtype, assumptions,
                                                     options.precision_mode), ge_type)
            sizes.append(size or 0)
        attrs = {}
        alias = node.alias
        if alias is None and node.op in md.ALIAS_OPS and node.inputs:
            alias = tuple(k if len(node.inputs) > 1 else 0 for k in range(len(node.outputs)))
        if alias:
            ref = {str(k): a for k, a in enumerate(alias)
                   if a is not None and a < len(node.inputs) and k < len(node.outputs)}
            if ref:
                attrs["ref_output_to_input"] = ref
        if ge_type == "Data":
            attrs["index"] = inputs.get(node.name, 0)
        ws = []
        if node.outputs and ge_type not in ("Data", "RefData", "Variable", "Const"):
            w = ws_by_op.get(node.op, assumptions.workspace_bytes)
            if w:
                ws = [w]
        nodes.append(GeNode(node.name, ge_type, sizes, ws, len(node.inputs), 0, attrs,
                            shapes=list(node.outputs)))
    if graph.outputs:
        name = NETOUTPUT_NAME
        while name in seen:
            name += "_"
        for k, (src, o) in enumerate(graph.outputs):
            if src not in seen or o >= seen[src]:
                raise ValueError("memory plan of graph %r: output %d names %s:%d, which is no "
                                 "node's output" % (graph.name, k, src, o))
            edges.append((src, o, name, k))
        nodes.append(GeNode(name, "NetOutput", [], [], len(graph.outputs), 0, {}))
    return GeGraph(graph.name, nodes, edges, control, options.ge_options())
