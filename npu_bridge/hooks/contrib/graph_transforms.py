"""TF 1.15's `tensorflow.tools.graph_transforms` (tools/graph_transforms/__init__.py), which
TF 2.15's pip package does not ship although its C++ transforms are compiled in
(`tensorflow.python.util._pywrap_transform_graph`): the same wrapper on them."""
from tensorflow.core.framework import graph_pb2
from tensorflow.python.util import compat
from tensorflow.python.util._pywrap_transform_graph import TransformGraphWithStringInputs


def TransformGraph(input_graph_def, inputs, outputs, transforms):
    """A GraphDef: `input_graph_def` with `transforms` (names, each optionally with its
    `(arg=value)`) applied, `inputs`/`outputs` the node names; an unknown transform is a
    ValueError (TF's text)."""
    output = TransformGraphWithStringInputs(
        input_graph_def.SerializeToString(), compat.as_bytes(",".join(inputs)),
        compat.as_bytes(",".join(outputs)), compat.as_bytes(" ".join(transforms)))
    output_graph_def = graph_pb2.GraphDef()
    output_graph_def.ParseFromString(output)
    return output_graph_def
