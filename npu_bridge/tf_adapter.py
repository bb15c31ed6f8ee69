"""`from npu_bridge import tf_adapter`: the real adapter's compiled GE plugin module.

Scripts use its `ge::DataType` constants (`tf_adapter.DT_FLOAT` for
`npu_plugin.malloc_shared_memory`); their values are those of the real module's interface
(hicann/tensorflow tf_adapter/swig/ge_plugin.i, enum ge::DataType). Its functions
(PluginInit, MallocSharedMem, RDMA registration, ...) drive the NPU runtime and have no CPU
meaning: any other name raises an AttributeError that says so.
"""

DT_FLOAT = 0
DT_FLOAT16 = 1
DT_INT8 = 2
DT_INT32 = 3
DT_UINT8 = 4
DT_INT16 = 6
DT_UINT16 = 7
DT_UINT32 = 8
DT_INT64 = 9
DT_UINT64 = 10
DT_DOUBLE = 11
DT_BOOL = 12
DT_STRING = 13
DT_DUAL_SUB_INT8 = 14
DT_DUAL_SUB_UINT8 = 15
DT_COMPLEX64 = 16
DT_COMPLEX128 = 17
DT_QINT8 = 18
DT_QINT16 = 19
DT_QINT32 = 20
DT_QUINT8 = 21
DT_QUINT16 = 22
DT_RESOURCE = 23
DT_STRING_REF = 24
DT_DUAL = 25
DT_UNDEFINED = 26


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        "npu_bridge.tf_adapter.%s: the real tf_adapter is the compiled GE plugin (SWIG) of the "
        "NPU runtime; npu_bridge provides only its DataType constants (DT_FLOAT, ...), its "
        "functions have no CPU meaning" % name)
