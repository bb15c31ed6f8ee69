"""Diagnostics: the `Diagnostic` record, `NpuConfigError`, and `make`, which builds every
diagnostic from its code's row (`CODES`: the table in npu_bridge/ge/codes.py, listed in
`docs/diagnostics.md` by `tools/gen_catalog_doc.py`) and the call's fields.
"""
import re
from types import MappingProxyType
from typing import Any, NamedTuple

from npu_bridge.ge import codes as _codes

SEVERITIES = ("error", "warning", "info")
SHOWN_PER_CODE = 5   # repeated diagnostics of one code shown in a message (all are kept)


class Diagnostic(NamedTuple):
    """One finding (an immutable record; a named tuple, as it is built for every deprecated or
    invalid entry of every resolution, and a tuple is built in under half a frozen
    dataclass's time). Being a tuple, it unpacks, compares equal to a plain tuple of the same
    fields and `json.dumps` writes it as a list: use `to_dict()` for JSON.

    code: `E10001` or `NPBxxx` (see `CODES`); severity: "error" | "warning" | "info";
    option: the name the user wrote (parameter_map key, GE key, ir_option name, config class
    or environment variable); value: the offending value (None when not about one value);
    message: one self-contained sentence or two, naming the option, the value, what is
    allowed and where the rule comes from.
    """
    code: str
    severity: str
    option: str
    value: Any
    message: str

    def to_dict(self):
        return {"code": self.code, "severity": self.severity, "option": self.option,
                "value": self.value, "message": self.message}

    def __str__(self):
        return "%s %s [%s]: %s" % (self.severity, self.code, self.option, self.message)


class NpuConfigError(ValueError):
    """The configuration has errors. `.diagnostics` holds every diagnostic of the failed
    resolution (errors, warnings and infos), not only the first error; `.ge_options` the
    partial `GeOptions` (may be None)."""

    def __init__(self, diagnostics, ge_options=None):
        self.diagnostics = list(diagnostics)
        self.ge_options = ge_options
        errors = [d for d in self.diagnostics if d.severity == "error"]
        lines = ["%d NPU configuration error(s):" % len(errors)]
        shown, more = {}, {}
        for d in errors:   # at most SHOWN_PER_CODE of one code; `.diagnostics` keeps all
            if shown.get(d.code, 0) >= SHOWN_PER_CODE:
                more[d.code] = more.get(d.code, 0) + 1
            else:
                shown[d.code] = shown.get(d.code, 0) + 1
                lines.append("  " + str(d))
        lines += ["  ... and %d more of %s (all in .diagnostics)" % (n, code)
                  for code, n in more.items()]
        super().__init__("\n".join(lines))


# The seeds are copies of vendor documentation pages; a source names the page and keeps the
# seed file name in parentheses (a user's clone has the vendor docs, not the seed files).
SEED_PAGES = MappingProxyType({
    "ge_memory_options_zh.txt": "GE options: memory management (zh)",
    "ir_memory_options_en.txt": "ir_option: memory management",
    "memoryconfig_constructor_zh.txt": "MemoryConfig constructor (zh)",
})
_SEED_RE = re.compile(r"(?<![(\w])seed[: ](%s)" % "|".join(re.escape(n) for n in SEED_PAGES))


def cite(text):
    """Name the vendor page of each seed cited in `text`: `seed:x.txt` or `seed x.txt` becomes
    `vendor page '<title>' (seed:x.txt)` (already wrapped citations are left alone)."""
    if "seed" not in text:
        return text
    return _SEED_RE.sub(lambda m: "vendor page '%s' (seed:%s)" % (SEED_PAGES[m.group(1)],
                                                                   m.group(1)), text)


# The table (npu_bridge/ge/codes.py), seed pages cited in its sources.
CODES = MappingProxyType({code: row._replace(source=cite(row.source))
                          for code, row in _codes.CODES.items()})

# Codes about a choice, reported only for an option the user set: never for a default a
# config class (NPURunConfig) or npu_resource_init writes itself (issue 17). The resolver
# drops them for the keys its input says the user did not set (`resolve(user_set=...)`),
# for `npu-bridge run` and `npu-bridge lint` alike.
USER_SET_ONLY = frozenset(("NPB105", "NPB122"))


def make(code, option, value, severity=None, **fields):
    """The Diagnostic of `code` about `option` (the name the user wrote) and `value`: its
    message is the code's template (`CODES[code].template`) filled with `fields`, `option`,
    `value` and `source` (the row's); severity the code's default unless one is given (a
    rule whose row says otherwise). Seed citations name their vendor page (`cite`).

    Raises:
      KeyError: an unknown code, or a field the template names and the call lacks.
      ValueError: `severity` not one of `SEVERITIES`.
    """
    row = CODES[code]
    if severity is not None and severity not in SEVERITIES:
        raise ValueError("severity %r of %s: allowed: %s" % (severity, code, ", ".join(SEVERITIES)))
    message = row.template.format(option=option, value=value, source=row.source, **fields)
    if "seed" in message:
        message = cite(message)
    return Diagnostic(code, severity or row.severity, option, value, message)
