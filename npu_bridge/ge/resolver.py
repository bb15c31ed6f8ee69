"""The resolver: NPU configuration -> `GeOptions` (DESIGN.md "Resolution" and "Rules").

Everything option-specific comes from the catalog rows; the value rule kinds (one class each,
`rule_kinds.KINDS`) are `npu_bridge.ge.rule_kinds`, the cross-option rules `cross`, GE
options given directly (`resolve_ge`, `check_graph`) `direct`. Lookups are built
once at import, and the reader of parameter_map entries is generated from the catalog rows
(`_reader_source`, compiled in memory at import), so that resolving a parameter_map of
every key stays within 3.30 times the cost of only reading the map (bench/bench_resolve.py,
figure resolve_107).
"""
import difflib
import os
import re
from collections.abc import Mapping
from itertools import compress
from operator import is_not
from typing import NamedTuple

from npu_bridge.ge import catalog, config_schema, cross, legacy, products
from npu_bridge.ge.diagnostics import USER_SET_ONLY, as_argument, make
from npu_bridge.ge.direct import check_graph, resolve_ge  # noqa: F401  (importable here too)
from npu_bridge.ge.options import GeOptions
# the generic rule kinds (one value against its row): npu_bridge.ge.rule_kinds
from npu_bridge.ge.rule_kinds import (  # noqa: F401  (_plain_groups: tests/ge/test_fast_path)
    _check, _fast_ok, _fast_test, _formatter, _invalid, _plain_groups, _text)
from npu_bridge.ge.text import close_names

_LEVEL_INDEX = {"global": 0, "session": 1, "graph": 2, "adapter": 3}
_FIELD_NAMES = {"b": "b (bool)", "i": "i (int)", "s": "s (bytes/string)", "f": "f (float)",
                "list": "list", None: "no field"}
_PY_FIELD = ((bool, "b"), (int, "i"), (float, "f"), (str, "s"), (bytes, "s"))


# ---------------------------------------------------------------- precomputed tables
def _compile():
    specs = {}
    defaults = ({}, {}, {}, {})
    for row in catalog.OPTIONS:
        if not row.key:
            continue
        outs = []
        for route in row.routes:
            idx = _LEVEL_INDEX[route.level]
            outs.append((idx, route.key, _formatter(route, row.field), route.when))
            ad = row.adapter_default
            if ad is not None and (route.when == "always" or (route.when == "nonempty" and ad)):
                defaults[idx][route.key] = ad
        deprecation = None
        if row.deprecated:
            rep = (" (use %s instead)" % row.replacement) if row.replacement else ""
            deprecation = make("NPB105", row.key, None, replacement=rep,
                               where=row.doc or row.source)   # the value: each entry's
        ok = _fast_ok(row)
        specs[row.key] = (row, row.field, ok, tuple(outs), deprecation, "parameter_map:" + row.key)
    aliases = tuple((r.routes[0].key, r.ge_key) for r in catalog.OPTIONS
                    if r.key and r.ge_key and r.routes and r.routes[0].level != "adapter"
                    and r.ge_key not in {x.key for x in r.routes})
    return specs, defaults, aliases


_SPECS, _DEFAULTS, _ALIASES = _compile()


_DEFAULT_SOURCES = {k: "adapter default" for d in _DEFAULTS for k in d}   # adapter level too
_PRODUCT_KEYS = tuple(r.key for r in catalog.OPTIONS   # catalog order: a stable report
                      if r.key and (r.products or r.value_products))


# ---------------------------------------------------------------- per-entry effects
def legacy_key(key, field, value):
    """`NPB108` warning for a `parameter_map` key of an older release (`legacy`), or None for
    a key no release had. The message does not depend on `value` (lint resolves unknown
    values)."""
    r = legacy.PARAMETER_MAP_KEYS.get(key) if isinstance(key, str) else None
    if r is None:
        return None
    where = ("; today: %s" % r.moved_to) if r.moved_to else ""
    wrong = "" if field in (None, r.field) else (
        " (older releases read it from AttrValue field %s, it was set in %s)" % (r.field, field))
    return make("NPB108", key, value, spelling="parameter_map key %r" % key, what="a spelling",
                note=wrong, effect=legacy.now_text(r) + where, releases=r.releases)


def _entry_effect(key, attr):
    """What one parameter_map entry does: `(forward, value, writes, diagnostics)`.

    `forward`: None when the value is dropped; else the `{GE key: source}` updates of
    `sources` (possibly empty), and the value is kept for the cross-option rules;
    `writes`: `((level index, GE key, text), ...)`; `diagnostics`: a tuple of the entry's own
    diagnostics (unknown key, wrong field, invalid value, deprecation), in that order.
    The general path: `_entries` handles a known key holding a plainly valid value in its
    own field without it.
    """
    spec = _SPECS.get(key)
    if spec is None:
        field, value = _value_of(attr, None)
        if not isinstance(key, str):  # e.g. {5: AttrValue(i=2)}: no key of the adapter
            return (None, value, (), (make(
                "NPB100", repr(key), value, key="%r (%s)" % (key, type(key).__name__),
                what="is not a string", effect="only reads string keys"),))
        old = legacy_key(key, field, value)   # a key of an older release
        if old is not None:
            return (None, value, (), (old,))
        close = catalog.suggest(key)
        hint = ("; did you mean %s?" % " or ".join(repr(c) for c in close)) if close else ""
        return (None, value, (), (make("NPB100", key, value, key=repr(key), what="is unknown",
                                       effect="ignores it" + hint,
                                       suggestion=close[0] if close else None),))
    field, value = _value_of(attr, spec[1])
    return _effect(spec, key, field, value)


def _effect(spec, key, field, value):
    """The effect (see `_entry_effect`) of a known key set in `field` to `value`."""
    row, want, ok, outs, deprecation, src = spec
    diags = []
    if field != want:
        how = row.other_fields.get(field)
        if how != "accept":   # the adapter reads only its field (catalog `field_check`)
            diags.append(make("NPB102" if how == "older" else "NPB101", key, value,
                              want_name=_FIELD_NAMES[want], want=want,
                              field_name=_FIELD_NAMES.get(field, field),
                              converted=_text(value), **_wrong_field_effect(row)))
            return None, value, (), tuple(diags)
    if ok is not None and not ok(value):
        value, found = _check(row, key, value)
        if found:
            diags.extend(found)
            if any(d.severity == "error" for d in found):
                return None, value, (), tuple(diags)  # not forwarded; cross-option rules skip it
    writes = tuple((idx, gekey, fmt(value)) for idx, gekey, fmt, when in outs
                   if not (when == "nonempty" and not value))
    srcs = {gekey: src for idx, gekey, _ in writes}   # adapter_options (level 3) included
    if deprecation is not None:
        diags.append(deprecation._replace(value=value))
    return srcs, value, writes, tuple(diags)


def _wrong_field_effect(row):
    """What the real adapter does with a value of `row`'s key in another AttrValue field, as
    the fields `effect` (the message's words) and `outcome` (the short line's): it refuses
    it where it checks the field (`row.field_check`), else reads its own field's proto
    default (the value is lost)."""
    if row.field_check and row.field_check.startswith("refuse "):
        return {"effect": "refuses it: session creation fails (InvalidArgument; "
                          "hicann/tensorflow %s)" % row.field_check[len("refuse "):],
                "outcome": "the adapter refuses it"}
    return {"effect": "ignores the value", "outcome": "the value is lost"}


# ---------------------------------------------------------------- inputs
def _value_of(attr, want):
    """(field, python value) of an AttrValue (duck-typed) or a plain Python value."""
    which = getattr(attr, "WhichOneof", None)
    if which is not None:
        field = which("value")
        if field is None:  # an AttrValue nobody set: the adapter reads the proto default
            if want is None:
                return None, None
            field = want
        value = getattr(attr, field)
        if field == "s":
            value = value.decode("utf-8", "replace")
        return field, value
    for typ, field in _PY_FIELD:
        if isinstance(attr, typ):
            return field, attr.decode("utf-8", "replace") if typ is bytes else attr
    if isinstance(attr, (list, tuple)):
        return "list", attr
    return "a Python %s" % type(attr).__name__, attr  # not an AttrValue: no field reads it


def _unpack(config):
    """(parameter_map mapping, used_classes frozenset, extra, arguments).

    `extra`: None in the common case (one NpuOptimizer, nothing to note), else
    `(note, maps, near)`: `note` True when there is no NpuOptimizer (NPB116), else None; `maps` every
    NpuOptimizer's parameter_map in the order the adapter reads them (None when there is at
    most one); `near` the names of custom optimizers named close to NpuOptimizer (or None).
    `arguments`: the config class's own arguments for the "run_config" rules (the third item
    of `_npu_resolve_input()`), else None.
    """
    hook = getattr(config, "_npu_resolve_input", None)
    if hook is not None:
        got = hook()
        pmap, used, arguments = got[0], got[1], got[2] if len(got) > 2 else None
        if type(pmap) is tuple:   # several parameter_maps, in the order the adapter reads them
            if len(pmap) > 1:
                return pmap[0], frozenset(used or ()), (None, pmap, None), arguments
            pmap = pmap[0] if pmap else {}
        return pmap, frozenset(used or ()), None, arguments
    graph_options = getattr(config, "graph_options", None)
    if graph_options is not None:
        # The real adapter reads every custom optimizer named exactly NpuOptimizer, in order,
        # and ignores any other name (npu_attrs.cc, module docstring of _merge).
        first = maps = near = None
        for opt in graph_options.rewrite_options.custom_optimizers:
            name = opt.name
            if name == _NPU_OPTIMIZER:
                if first is None:
                    first = opt.parameter_map
                elif maps is None:
                    maps = [first, opt.parameter_map]
                else:
                    maps.append(opt.parameter_map)
            elif _near_miss(name):
                near = (near or []) + [name]
        if first is None:
            return {}, frozenset(), (True, None, near), None   # NPB116
        if maps is None and near is None:
            return first, frozenset(), None, None
        return first, frozenset(), (None, maps, near), None
    pmap = getattr(config, "parameter_map", None)
    if pmap is not None:
        return pmap, frozenset(), None, None
    if config is None:
        return {}, frozenset(), None, None
    if hasattr(config, "items"):
        return config, frozenset(), None, None
    raise TypeError("resolve() takes a ConfigProto, an NpuOptimizer custom optimizer, a "
                    "parameter_map, or an object with _npu_resolve_input(); got %r"
                    % type(config).__name__)


class UserSet(NamedTuple):
    """What the user set of a parameter_map a config class or function wrote: `owner` (the
    writer of the other keys, named in their sources: "NPURunConfig") and `keys` (the
    parameter_map keys the user set; every other key is a default the owner wrote)."""
    owner: str
    keys: frozenset


def _user_set(config, user_set):
    """The `UserSet` of a resolution: `user_set` as given, else the input's own
    (`_npu_user_keys()`, owner `_npu_owner` or its class name: an `NPURunConfig`), else None
    (a hand-written map: every key is the user's)."""
    if user_set is not None:
        return UserSet(user_set[0], frozenset(user_set[1]))
    hook = getattr(config, "_npu_user_keys", None)
    if hook is None:
        return None
    return UserSet(getattr(config, "_npu_owner", type(config).__name__), frozenset(hook()))


def _name_config_sources(sources, user_keys, owner):
    """Rewrite ``parameter_map:KEY`` sources of a config class's map (in place): a key the
    user set through an argument becomes ``argument:ARG`` (the row's ``runconfig_arg``), a
    key the class wrote itself ``OWNER default:KEY``; keys of the user's own NpuOptimizer
    (the ones before the class's own, last map, and keys without an argument) stay
    ``parameter_map:KEY``. Any suffix (``(NpuOptimizer #i of n)``) is
    kept. So a summary tells the user's argument, the class's and the adapter's defaults
    apart (issue 17)."""
    for gekey, src in sources.items():
        if not src.startswith("parameter_map:"):
            continue
        key, sep, rest = src[14:].partition(" ")
        mine = re.search(r"#(\d+) of (\d+)\)$", rest)
        if mine and int(mine.group(1)) < int(mine.group(2)) - 1:   # (numbered from 0)
            continue   # from the user's session_config NpuOptimizer (the class's map is last)
        row = catalog.BY_KEY.get(key)
        if key not in user_keys:
            label = "%s default:%s" % (owner, key)
        elif row is not None and row.runconfig_arg:
            label = "argument:" + row.runconfig_arg
        else:
            continue
        sources[gekey] = label + sep + rest


def _set_by_argument(mine, maps):
    """The keys the user set through a config-class argument (`mine`: the `UserSet` of a
    config class's map, the last of `maps` when there are several; a key only in the
    user's own NpuOptimizer maps before it was written as a parameter_map entry)."""
    if mine is None or mine.owner not in config_schema.BY_NAME:
        return frozenset()
    own = set().union(*maps[:-1]) - set(maps[-1]) if maps else set()
    return frozenset(k for k in mine.keys if k not in own and k in catalog.BY_KEY
                     and catalog.BY_KEY[k].runconfig_arg)


# ---------------------------------------------------------------- several NpuOptimizers
_NPU_OPTIMIZER = "NpuOptimizer"
_NEAR_MISS = {}   # custom optimizer name -> close to "NpuOptimizer" (memo)
# (key, merge_reset) of the catalog rows a later NpuOptimizer resets when it lacks the key
_RESETS = tuple((r.key, r.merge_reset) for r in catalog.OPTIONS if r.key and r.merge_reset)


def _near_miss(name):
    """True when `name` is close to but not "NpuOptimizer" (difflib, case-insensitive)."""
    hit = _NEAR_MISS.get(name)
    if hit is None:
        hit = bool(difflib.get_close_matches(name.casefold(), ("npuoptimizer",), n=1, cutoff=0.88))
        if len(_NEAR_MISS) < 4096:
            _NEAR_MISS[name] = hit
    return hit


def _on(attr):
    return attr is not None and _value_of(attr, None)[1] not in (None, "", 0, False, "0")


def _is_default(key, attr):
    """True when the entry forwards exactly the adapter defaults (a reset changes nothing)."""
    forward, _, writes, _ = _entry_effect(key, attr)
    return forward is not None and all(_DEFAULTS[idx].get(gekey) == text
                                       for idx, gekey, text in writes)


def _merge(maps):
    """Merge the parameter_maps of several NpuOptimizers as the real adapter reads them.

    In order, a later map's keys override the earlier values; a later map that lacks a key
    whose catalog row has `merge_reset` resets it to the adapter default ("always", or while
    one of the listed keys is on after reading that map). Returns `(merged dict, origin,
    changes, replaced)`: origin key -> index of the map its value comes from (or of the map
    that reset it); changes key -> [(index, attr or None for a reset), ...], only where a
    value actually changed; replaced: the (key, attr) entries no longer in effect (still
    checked: the adapter validates each map as it reads it).
    """
    merged, origin, changes, replaced, resets = {}, {}, {}, [], {}
    for index, pmap in enumerate(maps):
        for key in list(pmap):
            attr = pmap[key]
            old = merged.get(key)
            if old is not None:
                replaced.append((key, old))
                if _value_of(old, None) != _value_of(attr, None):
                    changes.setdefault(key, [(origin[key], old)]).append((index, attr))
            elif key in resets and not _is_default(key, attr):   # set again after a reset
                changes.setdefault(key, [(resets[key], None)]).append((index, attr))
            merged[key] = attr
            origin[key] = index
            resets.pop(key, None)
        if index:
            for key, when in _RESETS:
                old = merged.get(key)
                if old is None or key in pmap:
                    continue
                if when == "always" or any(_on(merged.get(k)) for k in when):
                    replaced.append((key, old))
                    del merged[key]
                    if not _is_default(key, old):
                        changes.setdefault(key, [(origin[key], old)]).append((index, None))
                    resets[key] = index
                    origin[key] = index
    for key in resets:
        origin.pop(key, None)
    return merged, origin, changes, replaced, resets


def _shown(key, attr):
    if attr is None:
        row = catalog.BY_KEY.get(key)
        default = row.adapter_default if row is not None else None
        return "reset to the adapter default%s" % ("" if default is None else " %r" % default)
    value = _value_of(attr, None)[1]
    return repr(value) if isinstance(value, str) else _text(value)


def _standing(key, attr):
    """How an NPB106 step stands: " does not set it" (a reset), ", not in effect: see its
    CODE" when the entry's value is dropped (its own error), else ""."""
    if attr is None:
        return " does not set it"
    forward, _, _, found = _entry_effect(key, attr)
    if forward is None:
        codes = [d.code for d in found if d.severity == "error"]
        return ", not in effect: see its %s" % (codes[0] if codes else "error")
    return ""


def _report_several(several, merged, sources, diags):
    """NPB107 for near-miss names; with several NpuOptimizers: NPB106 for changed values,
    the diagnostics of the replaced entries, and `sources` naming the optimizer; the NPB116
    info of `note` last (see `_unpack`)."""
    note, maps, near = several
    for name in near or ():
        diags.append(make("NPB107", "NpuOptimizer", name))
    if merged is None:
        if note:
            diags.append(make("NPB116", "NpuOptimizer", None))
        return
    _, origin, changes, replaced, resets = merged
    count = len(maps)
    seen = {(d.code, d.option, repr(d.value), d.message) for d in diags}
    for key, attr in replaced:   # each map is validated as the adapter reads it
        for diag in _entry_effect(key, attr)[3]:
            ident = (diag.code, diag.option, repr(diag.value), diag.message)
            if ident not in seen:
                seen.add(ident)
                diags.append(diag)
    if changes:
        parts = []
        changed = sorted(changes, key=lambda k: _CATALOG_ORDER.get(k, len(_CATALOG_ORDER)))
        for key in changed:
            steps = changes[key]
            text = " -> ".join("%s (NpuOptimizer #%d%s)" % (_shown(key, attr), index,
                                                             _standing(key, attr))
                               for index, attr in steps)
            parts.append("%s %s" % (key, text))
        diags.append(make("NPB106", "NpuOptimizer", ", ".join(changed), count=count,
                          changes="; ".join(parts)))
    for gekey, src in sources.items():
        if src.startswith("parameter_map:"):
            index = origin.get(src[14:])
            if index is not None:
                sources[gekey] = "%s (NpuOptimizer #%d of %d)" % (src, index, count)
    for key, index in resets.items():
        for route in catalog.BY_KEY[key].routes:
            if route.key in sources:
                sources[route.key] = ("adapter default (reset by NpuOptimizer #%d of %d, which "
                                      "does not set %s)" % (index, count, key))


# ---------------------------------------------------------------- the readers (fast path)
class _Unread:
    """The AttrValue type of a map holding no AttrValue (see `_entries`): never an instance."""


_NOT = object()   # a value the generated reader could not take as plainly valid
_PY_TYPES = {"b": ("bool",), "i": ("int",), "s": ("str", "bytes")}
_READER_FILE = "<npu_bridge.ge.resolver: _read, generated from the catalog>"
# (route format, field) -> the text `_formatter` gives, inline for a value of the field's type
_INLINE_FORMAT = {("auto", "b"): "('1' if v else '0')", ("auto", "i"): "str(v)",
                  ("auto", "s"): "v", ("truefalse", "b"): "('true' if v else 'false')"}


def _reader_source():
    """The Python source of `_read`, generated from the catalog rows (as `dataclasses`
    generates `__init__`), and its constants.

    `_read(pm, keys, AV, values, L0, L1, L2, L3, src, diags, slow)` reads each catalog key
    that `keys` (the keys of `pm`: a set, a dict's keys view or the mapping itself) holds and
    returns how many it found; for a value plainly
    valid in the field its row reads (an `AV` AttrValue set in that field, or a plain Python
    value of that field's type), writes its GE options straight-line: `values[key]`, the
    level dicts `L0`..`L3` (global, session, graph, adapter), `src` and the NPB105
    deprecation info (built here once per value where a row has finitely many). Any other
    entry goes to `slow(key, value)` (the general path, which yields the same writes plus
    the diagnostics).
    """
    consts = {"_NOT": _NOT}
    lines = ["def _read(pm, keys, AV, values, L0, L1, L2, L3, src, diags, slow):",
             "    n = 0"]
    for number, row in enumerate(r for r in catalog.OPTIONS if r.key):
        field, key = row.field, row.key
        test = _fast_test(row)
        lines += ["    if %r in keys:" % key,
                  "        n += 1",
                  "        a = pm[%r]" % key,
                  "        if type(a) is AV:"]
        if field == "s":
            lines += ["            v = a.s.decode('utf-8', 'replace')"]
        else:
            lines += ["            v = a.%s" % field]
        # a oneof: a non-default value in this field means the field is set
        lines += ["            if not v and a.WhichOneof('value') != %r:" % field,
                  "                v = _NOT"]
        plain = _PY_TYPES[field]
        lines += ["        elif type(a) is %s:" % plain[0], "            v = a"]
        if len(plain) > 1:
            lines += ["        elif type(a) is bytes:",
                      "            v = a.decode('utf-8', 'replace')"]
        lines += ["        else:", "            v = _NOT"]
        condition = "v is not _NOT"
        if test is not None:
            expression, names = test
            for name, constant in names.items():
                consts["%s%d" % (name, number)] = constant
            if names:   # the row's own constants: A -> A12
                expression = re.sub(r"\b(%s)\b" % "|".join(names), r"\g<1>%d" % number,
                                    expression)
            condition += " and (%s)" % expression
        lines += ["        if %s:" % condition, "            values[%r] = v" % key]
        source = "parameter_map:" + key
        for index, route in enumerate(row.routes):
            text = _INLINE_FORMAT.get((route.fmt, field))
            if text is None:
                consts["fmt%d_%d" % (number, index)] = _formatter(route, field)
                text = "fmt%d_%d(v)" % (number, index)
            pad = "            "
            if route.when == "nonempty":
                lines += [pad + "if v:"]
                pad += "    "
            lines += [pad + "L%d[%r] = %s" % (_LEVEL_INDEX[route.level], route.key, text),
                      pad + "src[%r] = %r" % (route.key, source)]
        deprecation = _SPECS[key][4]
        if deprecation is not None:
            finite = (True, False) if field == "b" else row.kind.finite(row)
            pytype = {"b": bool, "i": int, "s": str}[field]
            built = {value: deprecation._replace(value=value)
                     for value in finite if type(value) is pytype}
            # the Diagnostic with this value, built as `_replace(value=v)` builds it
            consts["DIAG"] = type(deprecation)
            for name, part in zip(("C", "S", "O", "M"), deprecation[:3] + deprecation[4:]):
                consts["D%s%d" % (name, number)] = part
            if built:
                consts["DEP%d" % number] = built
            lines += ["            diags.append(%sDIAG(DC%d, DS%d, DO%d, v, DM%d))"
                      % ((("DEP%d.get(v) or " % number) if built else ""),
                         number, number, number, number)]
        lines += ["        else:", "            slow(%r, a)" % key]
    lines += ["    return n", ""]
    return "\n".join(lines), consts


def _compile_reader():
    """`(_read, its source)`: `_reader_source()` compiled in memory, once, at import."""
    text, constants = _reader_source()
    namespace = dict(constants)
    exec(compile(text, _READER_FILE, "exec"), namespace)  # pylint: disable=exec-used
    return namespace["_read"], text


_read, _READER_SOURCE = _compile_reader()
_READ_KEYS = frozenset(_SPECS)
_CATALOG_ORDER = {key: index for index, key in enumerate(_SPECS)}   # the order of _read


def _entries(pmap):
    """`(values, diagnostics, level dicts, sources)` of the entries of `pmap` (before the
    cross-entry rules), all new objects.

    Two paths, the same outcome (tests/ge/test_fast_path.py): the generated `_read` handles
    every catalog key holding a plainly valid value in the field its row reads (deprecated
    ones too); anything else (a value needing a diagnostic, an AttrValue set in another field
    or in none, an unknown key) takes the general `_entry_effect`. Entries are taken in
    catalog order, then the keys the catalog lacks in map order, so the diagnostics come in
    that order too.
    """
    diags = []
    level_dicts = (dict(_DEFAULTS[0]), dict(_DEFAULTS[1]), dict(_DEFAULTS[2]),
                   dict(_DEFAULTS[3]))
    sources = dict(_DEFAULT_SOURCES)
    values = {}

    def slow(key, attr):
        forward, value, writes, own = _entry_effect(key, attr)
        if own:
            diags.extend(own)
        if forward is not None:
            values[key] = value
            for level, gekey, text in writes:
                level_dicts[level][gekey] = text
            sources.update(forward)

    if not pmap:
        return values, (), level_dicts, sources
    if type(pmap) is dict:
        keys = pmap.keys()
    elif isinstance(pmap, Mapping):   # a protobuf map: its own `in`, no set of its keys built
        keys = pmap
    else:
        keys = set(pmap)
    first = pmap[next(iter(keys))]
    av = type(first) if hasattr(first, "WhichOneof") else _Unread
    if _read(pmap, keys, av, values, *level_dicts, sources, diags, slow) != len(keys):
        # keys the catalog lacks
        for key in list(pmap):
            if key not in _READ_KEYS:
                slow(key, pmap[key])
    return values, tuple(diags), level_dicts, sources


# ---------------------------------------------------------------- resolve()
def resolve(config, product=None, env=None, user_set=None):
    """Resolve an NPU configuration into the GE options the real adapter would send.

    Args:
      config: a `ConfigProto` (every custom optimizer named exactly `NpuOptimizer` is read
        in order and merged as the real adapter does, a later one overriding the keys it
        sets: warning NPB106 when a value changes, `sources` naming `NpuOptimizer #i of n`;
        a name close to it is ignored with warning NPB107), that custom optimizer, its
        `parameter_map` (key -> `AttrValue`, or key -> plain Python value: bool -> .b, int ->
        .i, float -> .f, str/bytes -> .s), or an object with `_npu_resolve_input()` returning
        `(parameter_map, used_classes[, arguments])` (parameter_map may be a tuple of
        parameter_maps in the order the adapter reads them: merged the same way; arguments:
        the config class's `tf.estimator.RunConfig` arguments as it keeps them,
        `config_schema.run_config_arguments`, read by the "run_config" rules); such an
        object may also have `_npu_user_keys()` (the keys the user set; see `user_set`).
      user_set: `(owner, keys)` (a `UserSet`) when a config class or function wrote the
        parameter_map: `keys` the ones the user set, the others are the `owner`'s defaults.
        The codes of `diagnostics.USER_SET_ONLY` (NPB105 deprecated, NPB122 ...) are
        reported only for user keys, and sources tell `argument:ARG` from `OWNER
        default:KEY`. None: the input's `_npu_user_keys()`, else every key is the user's.
      product: product id (`atlas-a2-training`) or SoC name (`Ascend910B1`); overrides the
        `soc_config` option and `$NPU_BRIDGE_PRODUCT`.
      env: environment mapping (default `os.environ`); reads `GE_USE_STATIC_MEMORY`,
        `ASCEND_WORK_PATH`, `NPU_BRIDGE_PRODUCT`.

    Returns: `GeOptions` (level dicts of strings, `effective`, diagnostics: each entry's own
      in catalog order, then unknown keys' in map order, then the rules across options).
    Raises: `NpuConfigError` (a ValueError) carrying every diagnostic when any is an error;
      TypeError for a config of an unsupported type.
    Rules: DESIGN.md "Rules the resolver enforces"; values per catalog row.
    """
    env = os.environ if env is None else env
    pmap, used_classes, extra, arguments = _unpack(config)
    if extra is not None and extra[1] is not None:   # several NpuOptimizers: merged in order
        merged = _merge(extra[1])
        pmap = merged[0]
    values, found, levels, sources = _entries(pmap)
    mine = _user_set(config, user_set)
    diags = list(found)
    if extra is not None:
        _report_several(extra, merged if extra[1] is not None else None, sources, diags)
    if mine is not None:
        _name_config_sources(sources, mine.keys, mine.owner)
    by_argument = _set_by_argument(mine, extra[1] if extra is not None else None)
    soc = values.get("soc_config")
    pid = products.target(product, soc, env, diags)
    if diags and pid is not None:   # (the error path only: nothing to do for a clean map)
        _suggest_for_product(diags, pid)
    # SoC names that can make the memory figure exact, in target precedence order
    socs = (products.current_forced_product() if product is None else product, soc, env.get(products.PRODUCT_ENV))
    _pm_rules(values, used_classes, pid, diags, pmap, socs)
    if arguments is not None:   # a config class's own arguments (NPB172)
        cross.check_run_config(values, arguments, diags)
    effective = dict(levels[0])
    effective.update(levels[1])
    effective.update(levels[2])
    sent = effective.copy()   # the three levels merged, before GE's own normalisation
    for plain, gekey in _ALIASES:
        if plain in effective:
            effective.setdefault(gekey, effective[plain])
    result = GeOptions(levels[0], levels[1], levels[2], levels[3], effective, diags, pid, sources)
    # the rule table's GE-level rows: GE's own normalisation and the seeds' memory rules
    cross.check_ge(result, env, values.get("graph_max_parallel_model_num"),
                   "static_memory_policy" if "static_memory_policy" in values else None)
    _mirror_normalised(result, sent)
    if mine is not None:   # about the user's choice, not a default the owner writes
        result.diagnostics[:] = [d for d in result.diagnostics if d.code not in USER_SET_ONLY
                                 or d.option in mine.keys]
    if by_argument:   # a fix in the spelling the user wrote: the config-class argument
        result.diagnostics[:] = [as_argument(d) if d.option in by_argument else d
                                 for d in result.diagnostics]
    return result.raise_for_errors()


# Options the adapter sends under both names, the parameter_map key and the GE key
# (`static_memory_policy` and `ge.exec.staticMemoryPolicy`).
_BOTH_NAMES = tuple((r.key, r.ge_key) for r in catalog.OPTIONS
                    if r.key and r.ge_key and r.key != r.ge_key)
_BOTH_GE = tuple(gekey for _, gekey in _BOTH_NAMES)
# no plain name is another pair's GE key: writing one cannot change a later pair's test, so
# the pairs to test can be picked before the loop
_BOTH_DISJOINT = not {plain for plain, _ in _BOTH_NAMES} & set(_BOTH_GE)


def _mirror_normalised(result, sent):
    """What GE applies to a GE key (policy 1 runs as 2, an environment variable merged) holds
    for the same value sent under its parameter_map name too: the effective value of both.
    `sent`: the three levels merged (global, session, graph), as sent."""
    eff = result.effective
    pairs = _BOTH_NAMES
    if _BOTH_DISJOINT:   # only a GE key whose effective value is not the very object sent
        # can differ from it: found at C level, the rest tested as before
        pairs = compress(pairs, map(is_not, map(eff.get, _BOTH_GE), map(sent.get, _BOTH_GE)))
    for plain, gekey in pairs:
        if plain in sent and gekey in sent and sent[plain] == sent[gekey] \
                and gekey in eff and eff[gekey] != sent[gekey]:
            eff[plain] = eff[gekey]


def _truthy(value, row):
    """Is the option actually switched on (not absent/zero/default)?"""
    if value in (None, "", 0, False, "0"):
        return False
    return value != row.default


def _suggest_for_product(diags, pid):
    """An E10001 of an option some of whose values the target product refuses as an error
    (NPB113 there: the bfloat16 modes on a SoC without bfloat16) lists as allowed the values
    the product takes, then names the refused ones; a "did you mean" that would be refused
    says so, and its fix writes the closest value the product takes (one error is never fixed
    into another). `diags` is changed in place."""
    for i, d in enumerate(diags):
        row = catalog.BY_KEY.get(d.option) if d.code == "E10001" else None
        if row is None or not row.value_products or not isinstance(d.value, str):
            continue
        refused = [v for v in row.allowed if row.value_products.get(v)
                   and pid not in row.value_products[v]
                   and row.value_product_severity.get(v) == "error"]
        if not refused:
            continue
        words = [v for v in row.allowed if isinstance(v, str)]
        close = close_names(d.value, words, n=1)
        there = close_names(d.value, [v for v in words if v not in refused], n=1)
        suggestion = close[0] if close else None
        reason = "did you mean %r?" % suggestion if close else "not one of the allowed values"
        if close and close[0] in refused:
            suggestion = there[0] if there else None
            reason = "did you mean %r? refused on %s (NPB113)%s" % (
                close[0], pid, ": try %r" % suggestion if suggestion else "")
        allowed = "%s; refused on %s (NPB113): %s" % (
            ", ".join([_text(v) for v in row.allowed if v not in refused]
                      + ["%s (legacy)" % _text(v) for v in row.legacy_values]),
            pid, ", ".join(_text(v) for v in refused))
        diags[i] = _invalid(row, d.option, d.value, reason, suggestion, allowed)


def _pm_rules(values, used_classes, pid, diags, given=(), socs=()):
    """Product support (the rows' product columns) and the rule table's parameter_map rows."""
    if pid is not None:
        for key in _PRODUCT_KEYS:
            if key not in values:
                continue
            value = values[key]
            row = catalog.BY_KEY[key]
            if row.products and pid not in row.products and _truthy(value, row):
                diags.append(make("NPB112", key, value, severity=row.product_severity,
                                  shown=_text(value), product=pid,
                                  products=", ".join(row.products), where=row.source))
            vp = row.value_products.get(value) if row.value_products else None
            if vp and pid not in vp:
                diags.append(make("NPB113", key, value, shown=_text(value), product=pid,
                                  products=", ".join(vp), where=row.source,
                                  severity=row.value_product_severity.get(value, "warning")))
        for cls in sorted(used_classes):
            rule = catalog.CLASS_PRODUCTS.get(cls)
            if rule and pid not in rule[0]:
                diags.append(make("NPB114", cls, None, product=pid,
                                  products=", ".join(rule[0]), where=rule[1]))
    # the rule table (cross.CROSS_RULES), its parameter_map rows
    cross.check_all(values, diags, given, (pid, socs))
