"""Diagnostics: the `Diagnostic` record, `NpuConfigError`, and `make`, which builds every
diagnostic from its code's row (`CODES`: the table in npu_bridge/ge/codes.py, listed in
`docs/diagnostics.md` by `tools/gen_catalog_doc.py`) and the call's fields.
"""
import functools
import re
import string
from types import MappingProxyType
from typing import Any, NamedTuple

from npu_bridge.ge import codes as _codes, config_schema
from npu_bridge.ge.text import size_text

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
        """The diagnostic as JSON-ready fields; a `Message`'s parts (`short`, `fix`,
        `provenance`) included, so `from_dict` gives them back (JSON, reports, processes)."""
        out = {"code": self.code, "severity": self.severity, "option": self.option,
               "value": self.value, "message": str(self.message)}
        if isinstance(self.message, Message):
            out.update(short=self.message.short, fix=self.message.fix,
                       provenance=self.message.provenance, more=self.message.more)
        return out

    @classmethod
    def from_dict(cls, data):
        """The inverse of `to_dict` (also of a report's diagnostic, whose `fix`,
        `provenance` and `more` may be null): the message a `Message` again when `data` has its
        parts (`message_of`)."""
        return cls(data["code"], data["severity"], data["option"], data.get("value"),
                   message_of(data))

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


# Where the rules come from, named as a user finds them: a vendor page by its title and its
# path in the vendor's documentation repository, an adapter or GE source file (and line), never
# the file names of the project's own reference copies (which a user's clone does not have).
_TF_DOCS = "hicann/tensorflow "
_GE_DOCS = "hicann/ge "
SEED_PAGES = MappingProxyType({
    "ge_memory_options_zh.txt": ("内存管理 (GE options: memory management)", _GE_DOCS
                                 + "docs/zh/api/graph_engine_api/cpp/ge/options_params/"
                                 "memory_management.md"),
    "ir_memory_options_en.txt": ("Memory Management (ir_option)", _GE_DOCS
                                 + "docs/zh/api/graph_engine_api/cpp/ge/"
                                 "aclgrphBuildModel_config_params/memory_management.md"),
    "memoryconfig_constructor_zh.txt": ("MemoryConfig构造函数 (MemoryConfig constructor)",
                                        _TF_DOCS + "docs/zh/tfadapter_1/apiref/npu_config/"
                                        "memoryconfig_constructor.md"),
})
"""Seed file -> (the vendor page's title, its path in the vendor's repository)."""

# The adapter's pages the catalog and the code table cite (titles as the pages have them).
DOC_TITLES = MappingProxyType({
    "session_config/basic_options.md": "Basic Options",
    "session_config/memory_management.md": "Memory Management",
    "session_config/dynamic_shape.md": "Dynamic Shape",
    "session_config/mixed_computing.md": "Mixed Computing",
    "session_config/debugging.md": "Debugging",
    "session_config/accuracy_tuning.md": "Accuracy Tuning",
    "session_config/accuracy_comparison.md": "Accuracy Comparison",
    "session_config/performance_tuning.md": "Performance Tuning",
    "session_config/operator_and_graph_build.md": "Operator and Graph Build",
    "session_config/data_augmentation.md": "Data Augmentation",
    "session_config/exception_remedy.md": "Exception Remedy",
    "session_config/Profiling.md": "Profiling",
    "session_config/AOE.md": "AOE",
    "session_config/experiment_options.md": "Experiment Options",
    "session_config/deprecated_options.md": "Parameters That Will Be Deprecated in Later Versions",
})
_NPU_ATTRS = "hicann/tensorflow tf_adapter/util/npu_attrs.cc"
# NpuAttrs::SetNpuOptimizerAttr (line 1917) reads and checks each parameter_map key here.
_ADAPTER_CHECK_LINES = MappingProxyType({
    "enable_dump": 2049, "enable_dump_debug": 2052, "dump_path": 2069, "dump_step": 2084,
    "aoe_mode": 2154, "work_path": 2169, "precision_mode": 2188, "precision_mode_v2": 2478,
    "optypelist_for_implmode": 2308, "input_shape": 2326, "compile_hybrid_mode": 2345,
    "enable_compress_weight": 2393, "modify_mixlist": 2424, "input_fusion_size": 2055,
})
_SEED_RE = re.compile(r"(?<![\w/])seed[: ](%s)" % "|".join(re.escape(n) for n in SEED_PAGES))
_DOC_RE = re.compile(r"(?<![\w/(])(?<!tensorflow )(?:hicann/tensorflow )?(?:vendor docs )?"
                     r"(docs/(?:en|zh)/tfadapter_1/apiref/(%s))" % "|".join(
                         re.escape(p) for p in DOC_TITLES))
_CHECKED_RE = re.compile(r"reference option_values\.json checked_by_adapter(?: \(([^)]*)\))?")
_REFERENCES = (   # the project's reference files -> the real sources their facts come from
    (re.compile(r"reference npu_options\.json"),
     _NPU_ATTRS + ":1917 NpuAttrs::SetNpuOptimizerAttr (the keys read, the AttrValue field of each)"),
    (re.compile(r"reference ge_option_scopes\.json"),
     "hicann/ge base/common/option_supportion_checker/option_supportion_checker.cc:235 "
     "(the levels GE accepts each key at)"),
    (re.compile(r"reference ge_memory\.md 'Device memory per product'"),
     "the public device figures (docs/reference.md 'Products')"),
    (re.compile(r"reference README \(GE merge rule\)"),
     "hicann/ge base/graph/manager/graph_var_manager.h:351 VarManager::IsGeUseExtendSizeMemory "
     "(GE merges ge.exec.staticMemoryPolicy and GE_USE_STATIC_MEMORY)"),
    (re.compile(r"reference README"), "older vendor docs"),
    (re.compile(r"reference option_values\.json(?: notes)?"),
     "the adapter's option pages (" + _TF_DOCS + "docs/en/tfadapter_1/apiref/session_config/)"),
    (re.compile(r"reference usage_census\.md(?: mistakes table)?"),
     "the mistakes found in public Ascend model-zoo scripts"),
)


def _checked(match):
    keys = [k.strip() for k in re.split(r"[,:]", match.group(1) or "") if k.strip()]
    lines = [":%d" % _ADAPTER_CHECK_LINES[k] for k in keys if k in _ADAPTER_CHECK_LINES]
    return "%s%s NpuAttrs::SetNpuOptimizerAttr%s" % (
        _NPU_ATTRS, lines[0] if lines else ":1917",
        " (%s)" % match.group(1) if match.group(1) else "")


@functools.lru_cache(maxsize=4096)
def cite(text):
    """Name each source in `text` as a user finds it: a seed (`seed:x.txt`, `seed x.txt`)
    as `vendor page 'TITLE' (REPO PATH)`, and the project's reference files as the adapter
    or GE source they were taken from (`reference npu_options.json` ->
    `tf_adapter/util/npu_attrs.cc:1917 ...`). Adapter page paths stay paths (the docs'
    tables); `name_pages` adds their titles."""
    if "seed" in text:
        text = _SEED_RE.sub(lambda m: "vendor page '%s' (%s)" % SEED_PAGES[m.group(1)], text)
    if "reference " in text:
        text = _CHECKED_RE.sub(_checked, text)
        for rx, real in _REFERENCES:
            text = rx.sub(real, text)
    return text


@functools.lru_cache(maxsize=4096)
def name_pages(text):
    """`cite`, and each adapter page path (`docs/en/tfadapter_1/apiref/...md`) named by its
    title and repository: what a diagnostic's message and provenance say."""
    text = cite(text)
    if "docs/" in text:
        text = _DOC_RE.sub(lambda m: "vendor page '%s' (%s%s)" % (
            DOC_TITLES[m.group(2)], _TF_DOCS, m.group(1)), text)
    return text


# The table (npu_bridge/ge/codes.py), its sources named as `name_pages` names them.
CODES = MappingProxyType({code: row._replace(source=name_pages(row.source),
                                       template=name_pages(row.template))
                          for code, row in _codes.CODES.items()})

# Codes about a choice, reported only for an option the user set: never for a default a
# config class (NPURunConfig) or npu_resource_init writes itself (issue 17). The resolver
# drops them for the keys its input says the user did not set (`resolve(user_set=...)`),
# for `npu-bridge run` and `npu-bridge lint` alike.
USER_SET_ONLY = frozenset(("NPB105", "NPB122"))

SHORT_LIMIT = 120   # characters of a short message or a fix line, once filled


class Message(str):
    """A diagnostic's message: the full text (a `str`: what the JSON, SARIF and GitHub
    outputs carry, provenance included), with the parts the `text` outputs print as
    attributes: `short` (one line of at most `SHORT_LIMIT` characters, sizes in KiB/MiB/GiB),
    `fix` (what to write instead, or ""; never a pointer), `provenance` (where the rule comes
    from, as `cite` names it), `more` (a short line that lost something and has no fix: where
    the rest is, `see npu-bridge explain X; the full message: --format json`, or "");
    `arg_fix`: the fix as a config-class argument, for an option the user set through one
    (`as_argument`), or "". A message rebuilt from text (read back from JSON) is a plain
    `str`: use `short_of`, `fix_of`, `provenance_of`, `more_of`."""

    def __new__(cls, text, short, fix="", provenance="", arg_fix="", more=""):
        self = super().__new__(cls, text)
        self.short, self.fix, self.provenance, self.arg_fix = short, fix, provenance, arg_fix
        self.more = more
        return self

    def __reduce__(self):   # pickled across lint's process pool with its parts
        return (Message, (str(self), self.short, self.fix, self.provenance, self.arg_fix,
                          self.more))


MESSAGE_PARTS = ("short", "fix", "provenance", "more")


def message_of(data):
    """The message of a diagnostic's dict (`Diagnostic.to_dict`, a report's or lint's JSON
    finding): a `Message` with its parts when the dict has `short`, else the text as is."""
    text = data["message"]
    if isinstance(text, Message) or data.get("short") is None:
        return text
    return Message(str(text), data["short"], data.get("fix") or "",
                   data.get("provenance") or "", more=data.get("more") or "")


def short_of(message):
    """The short line of a message (the full text when it carries none)."""
    return getattr(message, "short", None) or str(message)


def fix_of(message):
    """The fix line of a message, "" when it has none."""
    return getattr(message, "fix", "") or ""


def below(message):
    """The lines the `text` outputs print under a message's short line, as `(label, text)`:
    `("fix", ...)` where it has a fix, else `("more", ...)` where its line was shortened
    (the explain pointer), else none."""
    fix, more = fix_of(message), more_of(message)
    return [("fix", fix)] if fix else [("more", more)] if more else []


def more_of(message):
    """Where the rest of a shortened message is (the explain pointer), "" when nowhere."""
    return getattr(message, "more", "") or ""


def provenance_of(message):
    """Where a message's rule comes from, "" when it does not say."""
    return getattr(message, "provenance", "") or ""


def _spec_field(value, spec, fields):
    """One field of a short or fix template, by its format spec: `size` (bytes as
    B/KiB/MiB/GiB with one decimal), `sizes` (a list of those, joined by " + "), `field` (a
    parameter_map key's AttrValue field, from the catalog), `lit` (the value spelled for
    the AttrValue field it goes to: `_target_field`), `bare` (a clause without its leading
    "; "); any other spec as `format` takes it (`cut` is handled by `fill`)."""
    if spec == "size":
        return _size(value)
    if spec == "sizes":
        return " + ".join(_size(v) for v in value)
    if spec == "field":
        return _field_of(value)
    if spec in ("owner", "arg"):   # a key's config-class argument: its class, its name
        cls, arg = _argument_of(value)
        return cls if spec == "owner" else arg
    if spec == "lit":
        return _literal(value, _target_field(fields))
    if spec == "bare":   # a clause written to follow a message ("; write it as ...")
        return str(value).lstrip("; ")
    return format(value, spec or "")


def _target_field(fields):
    """The AttrValue field a `lit` value is written to: the call's `want`, else the
    catalog's field of the suggested key, else of the option."""
    if fields.get("want"):
        return fields["want"]
    for key in (fields.get("suggestion"), fields.get("option")):
        try:
            return _field_of(key)
        except _NoFix:
            continue
    return None


def _literal(value, field):
    """`value` spelled as Python writes it into AttrValue field `field` (`b"all"`, `0`,
    `True`), or `...` where it does not convert (the user's value does not fit the field)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if field == "s" and isinstance(value, str):
        return 'b"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    if field == "i" and not isinstance(value, bool):
        if isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
            try:
                return str(int(value))
            except ValueError:   # beyond Python's int-to-str digit limit: no literal to give
                return "..."
    if field == "b":
        if isinstance(value, bool) or value in (0, 1):
            return str(bool(value))
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return str(value.lower() in ("true", "1"))
    if field == "f" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    return "..."


def _size(value):
    return size_text(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


@functools.lru_cache(maxsize=1)
def _key_rows():
    """parameter_map key -> its catalog row's data (`_rows`: plain data, below the catalog and
    its rule kinds, which build diagnostics with this module); loaded on first use, as `import
    npu_bridge.npu_init` loads this module but no row."""
    from npu_bridge.ge import _rows
    return MappingProxyType({spec["key"]: spec for spec in _rows.ROWS if spec.get("key")})


def _field_of(key):
    field = _key_rows().get(key, {}).get("field")
    if field not in ("s", "i", "b", "f"):
        raise _NoFix(key)
    return field


def _argument_of(key):
    """`(class name, argument)` that sets parameter_map key `key` (its row's
    `runconfig_arg`: `("MemoryConfig", "static_memory_policy")`); _NoFix when none does."""
    path = _key_rows().get(key, {}).get("runconfig_arg")
    if not path:
        raise _NoFix(key)
    cls, arg = config_schema.owner(path)
    return cls.name, arg


def as_argument(diag):
    """`diag` with its fix spelled as the config-class argument the user set the option
    through (its message's `arg_fix`), or `diag` itself when it has no such spelling."""
    message = diag.message
    alt = getattr(message, "arg_fix", "")
    if not alt or alt == message.fix:
        return diag
    return diag._replace(message=Message(str(message), message.short, alt,
                                         message.provenance, alt, message.more))


class _NoFix(LookupError):
    """A fix template names a field the call did not give (or a key without a field)."""


@functools.lru_cache(maxsize=None)
def _parsed(template):
    """A template as `(literal, field name, spec, conversion)` parts (parsed once)."""
    return tuple(string.Formatter().parse(template))


_CONVERT = {"r": repr, "s": str, "a": ascii}


def fill(template, fields, limit=SHORT_LIMIT):
    """`template` filled with `fields` (format specs: `_spec_field`), at most `limit`
    characters where the marked fields allow: fields marked `trim` (the least important: a
    list of allowed values or products) give up room first; only then are the fields marked
    `cut` (the value, a subject) shortened. Fields of one mark share their room evenly. A
    field is never cut inside a word or a quoted name (`_cut`): a list keeps whole items and
    says how many it leaves out; free text first drops its unquoted asides, then ends "...".
    (`make` gives a line that lost something and has no fix a pointer to `npu-bridge
    explain`, its message's `more`.)

    Raises:
      KeyError: a field the template names is not in `fields`.
    """
    return _fill(template, fields, limit)[0]


def _fill(template, fields, limit=SHORT_LIMIT):
    """`fill`'s line and whether it lost something (a word, a clause, list items)."""
    parts, cuts, trims = [], [], []
    for literal, name, spec, conversion in _parsed(template):
        if literal:
            parts.append(literal)
        if name is None:
            continue
        value = fields[name]
        if conversion:
            value = _CONVERT[conversion](value)
        if spec == "cut" or spec == "trim":
            text = str(value)
            (cuts if spec == "cut" else trims).append((len(parts), text))
            parts.append(text)
        else:
            parts.append(_spec_field(value, spec, fields) if spec else format(value, ""))
    line = "".join(parts)
    if len(line) <= limit:   # everything fits in full: nothing is cut (_cap gives None)
        return line, False
    room = limit - len(line) + sum(len(t) for _, t in cuts + trims)   # left for marked fields
    # trimmed fields keep what the cut fields, in full, leave (at least "...")
    trim_cap = _cap([len(t) for _, t in trims], room - sum(len(t) for _, t in cuts), 3)
    for at, text in trims:
        parts[at] = _cut(text, trim_cap)
    cap = _cap([len(t) for _, t in cuts], room - sum(len(parts[at]) for at, _ in trims))
    for at, text in cuts:
        parts[at] = _cut(text, cap)
    shortened = any(parts[at] != _ASIDE.sub("", text) for at, text in cuts + trims
                    if parts[at] != text)
    return "".join(parts), shortened


@functools.lru_cache(maxsize=1)
def _explain_names():
    from npu_bridge.ge import _rows
    names = set()
    for spec in _rows.ROWS:
        for name in (spec.get("key"), spec.get("name"), spec.get("runconfig_arg")):
            if name:
                names.add(name)
                names.add(name.rpartition(".")[2])
    return frozenset(names)


def _cap(lengths, room, least=12):
    """The largest length all fields of `lengths` can keep in `room` characters
    (water-filling; at least `least`), or None when all fit."""
    lengths = sorted(lengths)
    for i, length in enumerate(lengths):
        left = len(lengths) - i
        if length * left > room:
            return max(room // left, least)
        room -= length
    return None


def _clauses(text):
    """`text` split at its "; " outside parentheses."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith("; ", i):
            out.append(text[start:i])
            start = i + 2
    return out + [text[start:]]


def short_line(text, limit=SHORT_LIMIT):
    """`text` as one line of at most `limit` characters, shortened as a finding's short line
    is (`_cut`: never inside a word or a quoted name, no bracket left open)."""
    return _cut(" ".join(str(text).split()), limit)


# an aside in parentheses that names nothing (no quoted name): "(TypeError at run time)"
_ASIDE = re.compile(r" \([^()']*\)")


def _cut(text, cap):
    """`text` in at most `cap` characters (None: no limit), never cut inside a word or a
    quoted name, and never leaving a bracket open (`_closed`). A list ("a, b, c" of names)
    keeps its first whole items, then "+N more"; other text drops its unquoted asides, then
    its unquoted "; " clauses from the end, then ends "..." at a word boundary, with the
    brackets it cut into closed after it (`an int (or a...)`)."""
    if cap is None or len(text) <= cap:
        return text
    items = text.split(", ")
    if len(items) > 2 and "; " not in text and all(i.count(" ") < 2 for i in items):
        for keep in range(len(items) - 1, -1, -1):
            shown = _closed(", ".join(items[:keep] + ["+%d more" % (len(items) - keep)]))
            if len(shown) <= cap or keep == 0:
                return shown if keep else "%d values" % len(items) if cap >= 9 else "..."
    before = text
    text = _ASIDE.sub("", text)
    clauses = _clauses(text)
    while len(text) > cap and len(clauses) > 1:
        plain = [i for i, c in enumerate(clauses) if "'" not in c and i]
        if not plain:
            break
        del clauses[plain[-1]]
        text = "; ".join(clauses)
    if len(text) <= cap:
        return text
    if text != before:   # what is left may be a list ("a, b; refused: c"): cut as one
        return _cut(text, cap)
    head = text[:cap - 2]
    while head:
        head = head[:head.rfind(" ")] if " " in head else ""   # a whole word
        head = head.rstrip(" ,;:([{=")
        quote = next((at for at, ch in _unclosed(head) if ch in _QUOTES), None)
        if quote is not None:   # never half a quoted name
            head = head[:quote].rstrip(" ,;:([{=")
        shown = _closed(head + "...") if head else ""
        if shown and len(shown) <= cap:
            return shown
    return "..."


_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_QUOTES = "'\""


def _is_quote(text, at):
    """Whether the quote character at `at` is a quote, not an apostrophe (`adapter's`: a
    letter on both sides; `b'x'`, a bytes literal's prefix, is a quote)."""
    before, after = text[at - 1:at], text[at + 1:at + 2]
    if not (before.isalpha() and after.isalnum()) or text[at] != "'":
        return True
    return before in "bBrRuU" and not text[at - 2:at - 1].isalnum()


def _unclosed(text):
    """The brackets and quotes `text` leaves open, outermost first: `[(position, char)]`
    (inside quotes nothing else counts; a closer without its opener is ignored)."""
    stack = []
    for at, ch in enumerate(text):
        if stack and stack[-1][1] in _QUOTES:
            if ch == stack[-1][1] and _is_quote(text, at):
                stack.pop()
        elif ch in _QUOTES and _is_quote(text, at):
            stack.append((at, ch))
        elif ch in _CLOSERS:
            stack.append((at, ch))
        elif stack and ch == _CLOSERS.get(stack[-1][1]):
            stack.pop()
    return stack


def _closed(text):
    """`text` with the brackets it leaves open closed at its end, innermost first."""
    return text + "".join(_CLOSERS.get(ch, ch) for _, ch in reversed(_unclosed(text)))


def _filled(template, given):
    """A fix template filled, "" when a field it names is not given (or has no spelling)."""
    if not template:
        return ""
    try:
        return fill(template, given)
    except (KeyError, _NoFix):
        return ""


def make(code, option, value, severity=None, **fields):
    """The Diagnostic of `code` about `option` (the name the user wrote) and `value`: its
    message is the code's template (`CODES[code].template`) filled with `fields`, `option`,
    `value` and `source` (the row's), a `Message` whose short line is the row's `short`
    template, its fix the row's `fix` template (none when a field it names is not given or
    is None or empty) and its provenance the row's `cite` template (default: the call's
    `where` or `source` field, else the row's source); severity the code's default unless one
    is given (a rule whose row says otherwise). Sources are named as `name_pages` names them.

    Raises:
      KeyError: an unknown code, or a field the template or short template names and the
        call lacks.
      ValueError: `severity` not one of `SEVERITIES`.
    """
    row = CODES[code]
    if severity is not None and severity not in SEVERITIES:
        raise ValueError("severity %r of %s: allowed: %s" % (severity, code, ", ".join(SEVERITIES)))
    # sources are named in the fields (cached: they repeat) and in the table's templates
    every = fields   # the call's own keyword dict
    for k, v in every.items():
        # a text that may name a source `name_pages` rewrites (the test inline: every call)
        if isinstance(v, str) and ("seed" in v or "docs/" in v or "reference " in v):
            every[k] = name_pages(v)
    given_source = every.get("source")
    every["option"], every["value"], every["source"] = option, value, row.source
    message = row.template.format_map(every)
    short, shortened = _fill(row.short, every) if row.short else (message, False)
    fix = arg_fix = ""
    if row.fix or row.arg_fix:
        given = {k: v for k, v in every.items() if v is not None and v != ""}
        fix, arg_fix = _filled(row.fix, given), _filled(row.arg_fix, given)
    more = ""
    if shortened and not fix:
        # a line that lost something, with no fix below it, points to the rest: the
        # option's values, products and rule (else the code's), and the full text
        more = "see npu-bridge explain %s; the full message: --format json" % (
            option if isinstance(option, str) and option in _explain_names() else code)
    if row.cite:
        provenance = row.cite.format_map(every)
    else:
        provenance = every.get("where") or given_source or row.source
    message = Message(message, short, fix, str(provenance), arg_fix, more)
    return Diagnostic(code, severity or row.severity, option, value, message)
