"""Layer 1: the GE option model (no TensorFlow import, ever).

Exports `resolve`, `resolve_ge`, `check_graph`, `GeOptions`, `Diagnostic`, `NpuConfigError`;
the catalog is `npu_bridge.ge.catalog`, the product table `npu_bridge.ge.products`.
"""
