"""A captured graph (`memory_plan.Graph`: shapes and dtypes) as the GE graph the memory
assigner plans (`ge_graph.GeGraph`: bytes), no TensorFlow.

Rules (docs/memory.md "From a captured graph to GE's graph"):
- output bytes: `memory_plan.tensor_bytes` (elements x dtype size rounded up to 32, + 32);
  a dtype without device memory (string, resource, variant) is 0 bytes;
- graph inputs (and `Data`/`RefData` nodes) become `Data` nodes with their input index;
  constants `Const` and variables `Variable` (no feature-map memory: GE's
  CheckIsZeroMemNodeType); the graph's outputs feed one `NetOutput` node in output order;
- an alias output (`memory_plan.ALIAS_OPS` or `Node.alias`) is a reuse-input output
  (`ref_output_to_input`): it shares its input's block and extends its life;
- workspaces: `Assumptions.workspace_bytes` / `workspace_by_op` per node with outputs;
- float32 planned as float16 under `Assumptions.float32_as_fp16` (or force_fp16);
- options: the GE keys of `MemoryOptions.ge_options()`.
"""
from npu_bridge.ge.ge_graph import GeGraph, GeNode

NETOUTPUT_NAME = "NetOutput"


def _type_of(node, is_input, mp):
    if is_input or node.op in mp.DATA_OPS:
        return "Data" if node.op != "RefData" else "RefData"
    if node.op in mp.VARIABLE_OPS:
        return "Variable"
    if node.op in mp.CONST_OPS:
        return "Const"
    return node.op


def to_ge_graph(graph, options, assumptions):
    """The GeGraph of `graph` (a memory_plan.Graph in topological order) under `options`
    (MemoryOptions) and `assumptions` (Assumptions). Raises ValueError naming the node when
    an input names no earlier node's output."""
    from npu_bridge.ge import memory_plan as mp
    inputs = {name: k for k, name in enumerate(graph.inputs)}
    ws_by_op = dict(assumptions.workspace_by_op)
    seen = {}
    nodes = []
    edges = []
    for node in graph.nodes:
        for k, (src, o) in enumerate(node.inputs):
            if src not in seen or o >= seen[src]:
                raise ValueError("memory plan of graph %r: node %r (%s) reads %s:%d, which is "
                                 "not an earlier node's output (nodes must be in topological "
                                 "order)" % (graph.name, node.name, node.op, src, o))
            edges.append((src, o, node.name, k))
        seen[node.name] = len(node.outputs)
        ge_type = _type_of(node, node.name in inputs, mp)
        sizes = []
        for shape, dtype in node.outputs:
            if dtype not in mp.DTYPE_BYTES:
                sizes.append(0)
                continue
            size = mp.tensor_bytes(shape, mp._dtype_of(dtype, assumptions,
                                                        options.precision_mode))
            sizes.append(size or 0)
        attrs = {}
        alias = node.alias
        if alias is None and node.op in mp.ALIAS_OPS and node.inputs:
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
    return GeGraph(graph.name, nodes, edges, [], options.ge_options())
