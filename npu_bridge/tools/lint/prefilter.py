"""The text pre-scan: the lines of a file that can hold what lint looks for (config class
names, `parameter_map`, custom optimizers, and the names those lines bind), so the visitor
skips every statement spanning none of them."""
import re

from npu_bridge.ge.config_schema import BY_NAME as _CLASSES
from npu_bridge.tools.lint.schema import (PLUGIN_FUNCTION, _CUSTOM_GRAPH_OPTIMIZER,
                                    _CUSTOM_OPTIMIZERS)

# Lines that can hold what lint looks for; statements spanning none are skipped unvisited.
_CANDIDATE = re.compile(r"parameter_map|%s|%s|" % (_CUSTOM_OPTIMIZERS, _CUSTOM_GRAPH_OPTIMIZER)
                        + "|".join(list(_CLASSES) + [PLUGIN_FUNCTION]))
_CANDIDATE_B = re.compile(_CANDIDATE.pattern.encode())



# Names whose lines matter too: the owners of a parameter_map (`custom_op` of
# `custom_op.parameter_map`: a line re-binding it starts a new configuration), names bound to
# a parameter_map (`pm = op.parameter_map`), config classes imported under another name.
_OWNER = r"([A-Za-z_]\w*)\s*\.\s*parameter_map\b"
_PM_ALIAS = r"\b([A-Za-z_]\w*)\s*(?::[^=\n]*)?=[^=\n]*\bparameter_map\s*(?:#[^\n]*)?$"
_CLASS_ALIAS = r"\b(?:%s)\s+as\s+([A-Za-z_]\w*)" % "|".join(
    list(_CLASSES) + [PLUGIN_FUNCTION])
_OPT_BOUND = r"\b([A-Za-z_]\w*)\s*=[^=\n]*\b%s\s*\.\s*add\s*\(" % _CUSTOM_OPTIMIZERS
_NAMES = re.compile("|".join((_OWNER, _PM_ALIAS, _CLASS_ALIAS, _OPT_BOUND)))
_NAMES_B = re.compile(_NAMES.pattern.encode())


def _scan(pattern, text, newline, found, names=None, class_lines=None):
    """Add to `found` the numbers of the lines where `pattern` matches; with `names`, also
    collect the `_NAMES` those lines hold (each line scanned once); with `class_lines`, add
    there the lines where the match is not `parameter_map` (a config class name)."""
    line, pos, last = 1, 0, None
    names_re = _NAMES_B if newline == b"\n" else _NAMES
    pm = b"parameter_map" if newline == b"\n" else "parameter_map"
    co = _CUSTOM_OPTIMIZERS.encode() if newline == b"\n" else _CUSTOM_OPTIMIZERS
    for m in pattern.finditer(text):
        line += text.count(newline, pos, m.start())
        pos = m.start()
        if class_lines is not None and m.group() != pm and m.group() != co:
            class_lines.add(line)
        if line != last:
            last = line
            found.add(line)
            if names is not None:
                start = text.rfind(newline, 0, pos) + 1
                end = text.find(newline, pos)
                for nm in names_re.finditer(text, start, len(text) if end < 0 else end):
                    names.update(g for g in nm.groups() if g)


def _word_lines(text, word):
    """The numbers of the lines where identifier `word` occurs as a whole word."""
    found = set()
    is_bytes = isinstance(text, bytes)
    newline = b"\n" if is_bytes else "\n"
    size, end = len(word), len(text)
    line, counted, pos = 1, 0, text.find(word)
    while pos >= 0:
        after = pos + size
        if (pos == 0 or not _word_char(text[pos - 1:pos], is_bytes)) and (
                after == end or not _word_char(text[after:after + 1], is_bytes)):
            line += text.count(newline, counted, pos)
            counted = pos
            found.add(line)
        pos = text.find(word, after)
    return found


def _text_lines(text, needle):
    """The sorted numbers of the lines where `needle` (str) occurs in `text` (str or bytes)."""
    if isinstance(text, bytes):
        needle, newline = needle.encode(), b"\n"
    else:
        newline = "\n"
    found, line, counted, pos = [], 1, 0, text.find(needle)
    while pos >= 0:
        line += text.count(newline, counted, pos)
        counted = pos
        if not found or found[-1] != line:
            found.append(line)
        pos = text.find(needle, pos + len(needle))
    return found


def _word_char(char, is_bytes):
    return (char.isalnum() or char == (b"_" if is_bytes else "_")) if char.isascii() \
        else True   # a non-ASCII byte or character may continue an identifier


def _candidate_lines(text, class_lines=None, names=None):
    """Sorted numbers of the lines where `_CANDIDATE` matches, and of the lines that use a
    name those lines bind or own (`_NAMES`): two passes, the second only when needed. With
    `class_lines` (a set), also fills it with the lines naming a config class; with `names`
    (a set), with those names (str)."""
    found = set()
    names = set() if names is None else names
    is_bytes = isinstance(text, bytes)
    newline = b"\n" if is_bytes else "\n"
    _scan(_CANDIDATE_B if is_bytes else _CANDIDATE, text, newline, found, names, class_lines)
    names.discard(b"parameter_map" if is_bytes else "parameter_map")
    if names:
        alternatives = b"|".join(sorted(map(re.escape, names))) if is_bytes else \
            "|".join(sorted(map(re.escape, names)))
        pattern = (rb"\b(?:%s)\b" % alternatives) if is_bytes else (r"\b(?:%s)\b" % alternatives)
        _scan(re.compile(pattern), text, newline, found)
        if is_bytes:
            decoded = {n.decode("utf-8", "replace") for n in names}
            names.clear()
            names.update(decoded)
    return sorted(found)

