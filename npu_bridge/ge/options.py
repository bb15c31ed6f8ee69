"""`GeOptions`: the result of resolving an NPU configuration (DESIGN.md "Resolution")."""
import json
import operator
import types
from dataclasses import dataclass, field, fields
from typing import Dict, List, Optional

from npu_bridge.ge.diagnostics import MESSAGE_PARTS, SEVERITIES, Diagnostic, NpuConfigError

_DICTS = ("global_options", "session_options", "graph_options", "adapter_options", "effective",
          "sources")
_REQUIRED = ("product", "global_options", "session_options", "graph_options", "effective",
             "diagnostics")  # adapter_options and sources: {} when absent (older reports)
_DIAG_FIELDS = ("code", "severity", "option", "value", "message")
_SEVERITY = operator.attrgetter("severity")


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
    sources: GE key -> where the value came from ("parameter_map:<key>", "argument:<arg>" and
      "NPURunConfig default:<key>" for an NPURunConfig, "adapter default",
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

    def __eq__(self, other):
        # A FrozenGeOptions equals the GeOptions it was made from (the class test of the
        # generated __eq__ would say no; its tuple of diagnostics is not a list).
        if not isinstance(other, GeOptions):
            return NotImplemented
        return all(_plain(getattr(self, f.name)) == _plain(getattr(other, f.name))
                   for f in fields(GeOptions))

    __hash__ = None

    def frozen(self):
        """A read-only copy (`FrozenGeOptions`), for a result shared by several callers; the
        object itself when it is one already."""
        return self if isinstance(self, FrozenGeOptions) else FrozenGeOptions(
            **{f.name: getattr(self, f.name) for f in fields(GeOptions)})

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self):
        return [d for d in self.diagnostics if d.severity == "warning"]

    def raise_for_errors(self):
        """Raise `NpuConfigError` carrying every diagnostic if there is any error."""
        if "error" in map(_SEVERITY, self.diagnostics):
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
        """The inverse of `to_dict`. Raises TypeError naming what is wrong when `data` is not
        what `to_dict` writes (a required key missing, a value of the wrong type)."""
        def bad(what):
            raise TypeError("GeOptions.from_dict: %s; expected what GeOptions.to_dict()/to_json() "
                            "writes: an object with product (str or null), %s (objects of "
                            "string -> string) and diagnostics (a list of objects with %s)"
                            % (what, ", ".join(_DICTS), ", ".join(_DIAG_FIELDS)))
        if not isinstance(data, dict):
            bad("data=%r (%s) is not an object" % (data, type(data).__name__))
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            bad("missing key(s) %s" % ", ".join(missing))
        kwargs = {}
        for name in _DICTS:
            value = data.get(name, {})
            if not isinstance(value, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                bad("%s=%r is not an object of string -> string" % (name, value))
            kwargs[name] = dict(value)
        diags = data["diagnostics"]
        if not isinstance(diags, list):
            bad("diagnostics=%r is not a list" % (diags,))
        kwargs["diagnostics"] = []
        for d in diags:
            if not isinstance(d, dict) or not set(_DIAG_FIELDS) <= set(d) \
                    or not set(d) <= set(_DIAG_FIELDS + MESSAGE_PARTS) \
                    or d["severity"] not in SEVERITIES or not isinstance(d["code"], str) \
                    or not isinstance(d["option"], str) or not isinstance(d["message"], str) \
                    or not all(isinstance(d.get(k, ""), str) for k in MESSAGE_PARTS):
                bad("diagnostics item %r is not a diagnostic" % (d,))
            kwargs["diagnostics"].append(Diagnostic.from_dict(d))   # its parts kept
        product = data["product"]
        if product is not None and not isinstance(product, str):
            bad("product=%r is not a string or null" % (product,))
        kwargs["product"] = product
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text):
        """The inverse of `to_json`. Raises ValueError for text that is not JSON, TypeError
        (naming what is wrong) for JSON that is not a GeOptions (see `from_dict`)."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError("GeOptions.from_json: text=%r (%s) is not allowed; give the JSON "
                            "text GeOptions.to_json() writes" % (text, type(text).__name__))
        return cls.from_dict(json.loads(text))


def _plain(value):
    if isinstance(value, (dict, types.MappingProxyType)):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


class FrozenGeOptions(GeOptions):
    """A `GeOptions` that cannot be changed: its dicts are read-only mappings, `diagnostics`
    a tuple, and its attributes cannot be set (AttributeError). The Session patch hands these
    out, since one resolution is shared by every session opened from the same configuration;
    `dataclasses.replace` makes a changed (frozen) copy, `GeOptions.from_dict(x.to_dict())`
    a mutable one."""

    def __init__(self, **values):
        for f in fields(GeOptions):
            value = values.pop(f.name, None)
            if value is None:
                value = None if f.name == "product" else f.default_factory()
            if isinstance(value, (dict, types.MappingProxyType)):
                value = types.MappingProxyType(dict(value))
            elif f.name == "diagnostics":
                value = tuple(value)
            object.__setattr__(self, f.name, value)
        if values:
            raise TypeError("FrozenGeOptions: unknown field(s) %s" % ", ".join(sorted(values)))

    def __setattr__(self, name, value):
        raise AttributeError("this GeOptions is read-only (shared by the sessions of one "
                             "configuration): cannot set %r; make a copy with "
                             "dataclasses.replace() or GeOptions.from_dict(x.to_dict())" % name)

    def __delattr__(self, name):
        self.__setattr__(name, None)
