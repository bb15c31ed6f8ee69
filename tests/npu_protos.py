"""ConfigProto builders shared by the tests (on the path through pytest.ini `pythonpath`)."""
from tensorflow.core.protobuf import config_pb2


def set_values(op, values):
    """Write `values` into `op.parameter_map`: bool -> .b, int -> .i, str/bytes -> .s."""
    for key, value in values.items():
        if isinstance(value, bool):
            op.parameter_map[key].b = value
        elif isinstance(value, int):
            op.parameter_map[key].i = value
        else:
            op.parameter_map[key].s = value if isinstance(value, bytes) else value.encode()


def proto(**values):
    """A ConfigProto with one NpuOptimizer whose parameter_map holds `values`."""
    config = config_pb2.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    set_values(op, values)
    return config
