"""How the catalog writes a value and matches a name: `value_text` (a value as the adapter
sends it to GE) and `close_names` (the "did you mean" of the resolver, `explain` and lint);
and `size_text`, bytes as people read them (the memory plan, the short diagnostic lines).
Below the catalog, its rule kinds and the diagnostics, which use them."""
import difflib


def size_text(nbytes):
    """Bytes as text: B, KiB, MiB or GiB with 1 decimal ('-' for None)."""
    if nbytes is None:
        return "-"
    if nbytes >= 2 ** 63:   # beyond int64: no device size; a float or "%d" of it may not exist
        return "over 2^63 B"
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 1024)):
        if nbytes >= scale:
            return "%.1f %s" % (nbytes / scale, unit)
    return "%d B" % nbytes


def value_text(v):
    """A value as the adapter writes it to GE: booleans as "true"/"false", else `str`."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def close_names(name, candidates, n=3, cutoff=0.6):
    """The names among `candidates` close to `name`, ignoring case (`STATIC_MEMORY_POLICY`
    finds `static_memory_policy`, `ge.exec.staticmemorypolicy` `ge.exec.staticMemoryPolicy`),
    best first, each in its own spelling (difflib on case-folded names): the "did you mean" of
    the resolver, `explain` and lint."""
    by_fold = {}
    for candidate in candidates:
        by_fold.setdefault(candidate.casefold(), []).append(candidate)
    found = []
    for folded in difflib.get_close_matches(name.casefold(), list(by_fold), n=n, cutoff=cutoff):
        found.extend(c for c in by_fold[folded] if c not in found)
    return found[:n]
