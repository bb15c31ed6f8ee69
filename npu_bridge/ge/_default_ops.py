"""Data: the default supported-op list, used when no CANN list is installed and no
`--supported-ops FILE` is given. Built from public sources only; each source (its origin,
date, licence and the product it describes) is one `SOURCES` row, and docs/partition.md
restates them. Op types not listed here are *unknown* to this list: never reported as
unsupported.
"""
from types import MappingProxyType

SOURCES = MappingProxyType({
    "adapter_ops": {
        "origin": "hicann/tensorflow (gitcode/github mirror) commit 82957b9: the ops the TF "
                  "adapter registers for the NPU (REGISTER_OP in tf_adapter/ops/aicore/"
                  "npu_aicore_ops.cc, npu_mixed_precesion_ops.cc, npu_unary_ops.cc, amct_ops.cc; "
                  "tf_adapter/ops/hccl/hccl_ops.cc; tf_adapter/ops/npu_ops.cc; "
                  "tf_adapter/ops/aicpu/npu_cpu_ops.cc): device ops that exist only for GE",
        "date": "2026-07-23 (commit date)",
        "licence": "CANN Open Software License Agreement Version 2.0 (the repository's LICENSE)",
        "product": "Ascend training and inference products the TF adapter 1.x targets "
                   "(Atlas training series, Atlas A2 training series)",
    },
    "mixed_computing_doc": {
        "origin": "hicann/tensorflow commit 82957b9 docs/en/tfadapter_1/migration/others/"
                  "mixed_computing.md: 'unsupported operators (such as py_func)' run on the "
                  "host in the frontend framework",
        "date": "2026-07-23 (commit date)",
        "licence": "CANN Open Software License Agreement Version 2.0 (the repository's LICENSE)",
        "product": "same as the adapter (mixed computing page, all products)",
    },
    "getnext_doc": {
        "origin": "hicann/tensorflow commit 82957b9 docs/en/tfadapter_1/apiref/session_config/"
                  "deprecated_options.md enable_data_pre_proc: the GetNext operator is offloaded "
                  "to the device only with it ('False (default): disabled'); the partition pass "
                  "compiles IteratorGetNext and its Iterator/IteratorV2 under enable_dp whatever "
                  "the list says (om_partition_subgraphs_pass.cc:641-663), else it goes by the "
                  "list: so the list does not hold them",
        "date": "2026-07-23 (commit date)",
        "licence": "CANN Open Software License Agreement Version 2.0 (the repository's LICENSE)",
        "product": "same as the adapter (all products)",
    },
})

# op type -> (supported?, source key)
OPS = MappingProxyType({
    **{op: (True, "adapter_ops") for op in (
        # tf_adapter/ops/aicore/npu_aicore_ops.cc
        "FastGelu", "FastGeluV2", "FastGeluGrad", "StatelessRandomChoiceWithMask",
        "DynamicGruV2", "StatelessDropout", "DynamicGruV2Grad", "DynamicAUGRU",
        "DynamicAUGRUGrad", "DynamicRnn", "DynamicRnnV2", "DynamicRnnGrad", "Centralization",
        "PRelu", "DropOutDoMaskV3", "PReluGrad", "NonZero", "NonZeroWithValue",
        "FusedLayerNorm", "FusedLayerNormGrad", "GetShape", "ProdEnvMatA", "ProdVirialSeA",
        "ProdForceSeA", "TabulateFusionSeA", "TabulateFusionSeAGrad", "TabulateFusion",
        "TabulateFusionGrad",
        # npu_mixed_precesion_ops.cc, npu_unary_ops.cc, amct_ops.cc
        "NpuAllocFloatStatus", "NpuGetFloatStatus", "NpuGetFloatStatusV2",
        "NpuClearFloatStatus", "NpuClearFloatStatusV2", "Gelu", "GeluGrad", "AscendQuant",
        "AscendWeightQuant", "AscendDequant", "AscendAntiQuant",
        # tf_adapter/ops/hccl/hccl_ops.cc
        "HcomAllReduce", "HcomAllGather", "HcomBroadcast", "HcomReduce", "HcomReduceScatter",
        "HcomSend", "HcomReceive", "HcomAllToAllV", "HcomAllToAllVC", "HcomGatherAllToAllV",
        # tf_adapter/ops/npu_ops.cc (compute ops only)
        "LARS", "LarsV2", "DropOutDoMask", "DropOutGenMask", "DropOutGenMaskV3",
        "DropOutGenMaskV4", "BasicLSTMCell", "BasicLSTMCellCStateGrad",
        "BasicLSTMCellWeightGrad", "BasicLSTMCellInputGrad", "AdamApplyOneAssign",
        "LambApplyOptimizerAssign", "LambApplyWeightAssign", "AdamApplyOneWithDecayAssign",
        "KMeansCentroids", "KMeansCentroidsV2",
        # tf_adapter/ops/aicpu/npu_cpu_ops.cc (AI CPU ops of the device)
        "DeformableOffsets", "DeformableOffsetsGrad", "RandomChoiceWithMask",
        "DenseImageWarp", "DenseImageWarpGrad", "ScatterElements", "ScatterElementsV2",
        "WarpAffineV2", "ResizeV2", "NonZeroWithValueShape", "NonZeroWithValueShapeV2")},
    **{op: (False, "mixed_computing_doc") for op in ("PyFunc", "PyFuncStateless", "EagerPyFunc")},
    **{op: (False, "getnext_doc") for op in ("IteratorGetNext", "Iterator", "IteratorV2")},
})
