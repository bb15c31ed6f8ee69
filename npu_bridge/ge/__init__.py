"""Layer 1: the GE option model (no TensorFlow import, ever).

Exports `resolve`, `resolve_ge`, `check_graph`, `UserSet`, `GeOptions`, `Diagnostic`,
`NpuConfigError`,
`forced_product` (the process-wide `--product` override);
the catalog is `npu_bridge.ge.catalog`, the product table `npu_bridge.ge.products`.

The exports are loaded on first use (PEP 562), so importing only `npu_bridge.ge.catalog` or
`npu_bridge.ge.diagnostics` (as `npu_config` does at import) does not load the resolver.
"""
import importlib as _importlib

_EXPORTS = {
    "resolve": "npu_bridge.ge.resolver",
    "resolve_ge": "npu_bridge.ge.direct",
    "check_graph": "npu_bridge.ge.direct",
    "UserSet": "npu_bridge.ge.resolver",
    "GeOptions": "npu_bridge.ge.options",
    "Diagnostic": "npu_bridge.ge.diagnostics",
    "NpuConfigError": "npu_bridge.ge.diagnostics",
    "CODES": "npu_bridge.ge.diagnostics",
    "forced_product": "npu_bridge.ge.products",
}

_SUBMODULES = frozenset(("catalog", "cross", "diagnostics", "direct", "initialization", "options",
                         "paths", "products", "resolver", "rule_kinds"))

__all__ = ["resolve", "resolve_ge", "check_graph", "UserSet", "GeOptions", "Diagnostic",
           "NpuConfigError", "CODES", "forced_product"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        if name in _SUBMODULES:   # `npu_bridge.ge.resolver` without importing it first
            return _importlib.import_module("npu_bridge.ge." + name)
        raise AttributeError("module 'npu_bridge.ge' has no attribute %r" % name)
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)
