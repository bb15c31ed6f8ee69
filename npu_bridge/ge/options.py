"""`GeOptions`: the result of resolving an NPU configuration (DESIGN.md "Resolution")."""
import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from npu_bridge.ge.diagnostics import Diagnostic, NpuConfigError

_DICTS = ("global_options", "session_options", "graph_options", "adapter_options", "effective",
          "sources")


@dataclass
class GeOptions:
    """What the real adapter would send to GE, and what GE would apply.

    global_options / session_options / graph_options: GE key -> string value, as handed to
      GEInitialize / ge::Session / AddGraph (adapter defaults for absent keys included,
      duplicate plain-name keys included where the adapter sends both).
    adapter_options: parameter_map keys the adapter keeps for itself (not sent to GE).
    effective: GE key -> value GE applies after its own normalisation (legacy policy 1 -> 2,
      GE_USE_STATIC_MEMORY merged, out-of-range input_fusion_size clamped, the external
      weight directory chosen).
    diagnostics: every `Diagnostic`; product: target product id or None;
    sources: GE key -> where the value came from ("parameter_map:<key>", "adapter default",
      "env:<VAR>", "<level>_options", "ir_option:<NAME>").
    """
    global_options: Dict[str, str] = field(default_factory=dict)
    session_options: Dict[str, str] = field(default_factory=dict)
    graph_options: Dict[str, str] = field(default_factory=dict)
    adapter_options: Dict[str, str] = field(default_factory=dict)
    effective: Dict[str, str] = field(default_factory=dict)
    diagnostics: List[Diagnostic] = field(default_factory=list)
    product: Optional[str] = None
    sources: Dict[str, str] = field(default_factory=dict)

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self):
        return [d for d in self.diagnostics if d.severity == "warning"]

    def raise_for_errors(self):
        """Raise `NpuConfigError` carrying every diagnostic if there is any error."""
        if any(d.severity == "error" for d in self.diagnostics):
            raise NpuConfigError(self.diagnostics, self)
        return self

    def to_dict(self):
        """Plain dict with a stable key order (fields in declaration order, keys sorted)."""
        out = {"product": self.product}
        for name in _DICTS:
            out[name] = dict(sorted(getattr(self, name).items()))
        out["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return out

    def to_json(self, indent=None):
        """JSON text; `from_json(to_json())` gives an equal object."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data):
        kwargs = {name: dict(data.get(name) or {}) for name in _DICTS}
        kwargs["diagnostics"] = [Diagnostic(**d) for d in data.get("diagnostics") or ()]
        kwargs["product"] = data.get("product")
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))
