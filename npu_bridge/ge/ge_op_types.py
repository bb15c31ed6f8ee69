"""GE's op types that decide memory sharing, as its block assigner reads them (hicann/ge
block_mem_assigner.cc, graph_utils.cc; no TensorFlow import). Read by `ge_graph` (which
re-exports them), `continuous_mem` and `block_assigner`."""

DATA_TYPES = frozenset(("Data", "RefData", "AippData", "AnnData", "QueueData"))
"""`OpTypeUtils::IsDataNode` types: a root-graph node of these types is a graph input."""

NETOUTPUT = "NetOutput"

ZERO_MEMORY_TYPES = frozenset(("Variable", "Const", "MultiShape", "Constant", "HvdWait",
                               "FileConstant", "ConstPlaceHolder"))
"""block_mem_assigner.cc CheckIsZeroMemNodeType (L110-113): outputs get no feature-map block."""

PASS_THROUGH_TYPES = frozenset(("NetOutput", "While", "_While", "StatelessWhile"))
"""graph_utils.cc IsRefFromInput: output i is input i."""

REF_OUTPUT0_TYPES = frozenset(("Merge", "Reshape"))
"""graph_utils.cc IsRefFromInput: output 0 is input 0."""
