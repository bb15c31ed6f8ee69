"""A captured graph as GE's memory planner reads it (no TensorFlow import): nodes with
their outputs' static shapes and dtypes, the op kinds the plan treats apart, GE's tensor
size, and the assumptions the CPU cannot know. `memory_graph` turns it into GE's graph,
`memory_plan` plans it (both import this module; `memory_plan` re-exports its names).
"""
from dataclasses import dataclass
from typing import Optional, Tuple

TENSOR_ALIGN = 32     # tensor_utils.cc GetTensorMemorySizeInBytes: round up to 32, then + 32
TENSOR_PAD = 32

DTYPE_BYTES = {
    "bool": 1, "int8": 1, "uint8": 1, "qint8": 1, "quint8": 1,
    "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "qint16": 2, "quint16": 2,
    "int32": 4, "uint32": 4, "float32": 4, "qint32": 4,
    "int64": 8, "uint64": 8, "float64": 8, "complex64": 8, "complex128": 16,
}
"""Bytes per element of the device dtypes. Other dtypes (string, resource, variant) have no
device feature-map memory here: strings stay on the host, a resource is a handle."""

NEVER_REUSED = frozenset(("Data", "Const", "GetNext", "DropOutGenMask", "RefData", "Enter",
                          "NextIteration"))
"""Op types whose outputs GE never reuses (block_mem_assigner.cc InitReuseFlag)."""

VARIABLE_OPS = frozenset(("Variable", "VariableV2", "VarHandleOp", "RefData"))
"""Outputs held in the session's variable memory (VarManager), not the feature map."""

CONST_OPS = frozenset(("Const", "Constant", "FileConstant"))
"""Outputs held in the model's weight memory (off the device with ge.externalWeight 1/2)."""

ALIAS_OPS = frozenset(("Identity", "ReadVariableOp", "Reshape", "Squeeze", "ExpandDims",
                       "StopGradient", "PreventGradient", "Snapshot", "IdentityN",
                       "RefIdentity", "NoOp"))
"""Ops GE removes or runs in place (IdentityRemovePass, ReshapeRemovePass...): output i shares
the memory of input i (input 0 for a single input), extending its lifetime."""

DATA_OPS = frozenset(("Data", "RefData"))


def tensor_bytes(shape, dtype):
    """GE's memory size of one tensor in bytes: elements x dtype size rounded up to 32, plus
    32 (GE tensor_utils.cc GetTensorMemorySizeInBytes). A scalar (shape ()) has 1 element.

    Returns None when the shape is unknown (None or a dimension None/negative: no static
    size), 0 for a dtype with no device memory (see `DTYPE_BYTES`)."""
    if shape is None:
        return None
    elements = 1
    for dim in shape:
        if dim is None or dim < 0:
            return None
        elements *= dim
    size = DTYPE_BYTES.get(dtype)
    if size is None:
        return 0
    raw = elements * size
    return -(-raw // TENSOR_ALIGN) * TENSOR_ALIGN + TENSOR_PAD



@dataclass(frozen=True)
class Node:
    """One GE node. op: its type (GE names: Data, Const, GetNext, Enter, NextIteration,
    Variable... or the TensorFlow op type); outputs: ((shape or None, dtype name), ...), a
    shape a tuple of ints with None for an unknown dimension; inputs: ((producer name,
    output index), ...) data inputs only; alias: per output, the index of the input whose
    memory it is (None: its own memory), default from `ALIAS_OPS`; var_name: for a variable,
    its name in the session (shared across graphs; default the node's name); control: names
    of earlier nodes this one waits for (control edges: they order GE's sort)."""
    name: str
    op: str
    outputs: Tuple[Tuple[Optional[tuple], str], ...] = ()
    inputs: Tuple[Tuple[str, int], ...] = ()
    alias: Optional[Tuple[Optional[int], ...]] = None
    var_name: Optional[str] = None
    control: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Graph:
    """One GE graph: nodes in topological order; inputs: the graph's input (Data) node names
    in input-index order; outputs: (node, output index) in output-index order (NetOutput)."""
    name: str
    nodes: Tuple[Node, ...]
    inputs: Tuple[str, ...] = ()
    outputs: Tuple[Tuple[str, int], ...] = ()

    def unknown_inputs(self):
        """Names of the input nodes whose shape has an unknown dimension."""
        by = {n.name: n for n in self.nodes}
        return [i for i in self.inputs if i in by and any(
            tensor_bytes(s, "int8") is None for s, _ in by[i].outputs)]

    def dynamic_nodes(self):
        """Names of the nodes with a device output of unknown shape (a dynamic graph)."""
        return [n.name for n in self.nodes for s, d in n.outputs
                if d in DTYPE_BYTES and tensor_bytes(s, d) is None]


@dataclass(frozen=True)
class Assumptions:
    """What the CPU cannot know, stated (docs/memory.md "Assumptions").

    workspace_bytes: operator workspace per node with outputs, in bytes (default 0: the real
      figure comes from each operator's compiled kernel, `OpDesc::GetWorkspaceBytes`);
      `workspace_by_op` maps an op type to its own figure.
    float32_as_fp16: plan float32 feature-map tensors as float16 (2 bytes). None: only under
      precision_mode force_fp16; allow_mix_precision and allow_fp32_to_fp16 cast per operator,
      which the CPU cannot know, so float32 is kept (an upper bound).
    """
    workspace_bytes: int = 0
    workspace_by_op: Tuple[Tuple[str, int], ...] = ()
    float32_as_fp16: Optional[bool] = None

    def to_dict(self):
        return {"workspace_bytes": self.workspace_bytes,
                "workspace_by_op": dict(self.workspace_by_op),
                "float32_as_fp16": self.float32_as_fp16}


def dtype_of(dtype, assumptions, precision_mode):
    """The dtype a float32 tensor is planned as: float16 under `Assumptions.float32_as_fp16`
    (None: only under precision_mode force_fp16), else `dtype`."""
    fp16 = assumptions.float32_as_fp16
    if fp16 is None:
        fp16 = precision_mode == "force_fp16"
    return "float16" if fp16 and dtype == "float32" else dtype
