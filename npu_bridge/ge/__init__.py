"""Layer 1: the GE option model (no TensorFlow import, ever).

Exports `resolve`, `resolve_ge`, `check_graph`, `GeOptions`, `Diagnostic`, `NpuConfigError`,
`forced_product` (the process-wide `--product` override);
the catalog is `npu_bridge.ge.catalog`, the product table `npu_bridge.ge.products`.
"""
from npu_bridge.ge.diagnostics import CODES, Diagnostic, NpuConfigError
from npu_bridge.ge.options import GeOptions
from npu_bridge.ge.products import forced_product
from npu_bridge.ge.resolver import check_graph, resolve, resolve_ge

__all__ = ["resolve", "resolve_ge", "check_graph", "GeOptions", "Diagnostic", "NpuConfigError",
           "CODES", "forced_product"]
