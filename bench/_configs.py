"""Valid NPU configurations for the benchmarks, built from the catalog rows (no TensorFlow).

`valid_values()` gives one value per `parameter_map` key (all of the catalog's) that is valid on its own
and together with the others: a real, non-trivial value where the row has one (first allowed
enum value, the row's example for regex rows, a range's lower bound, a JSON object for JSON
rows...), and "unset" (the empty string / adapter default) only where the real adapter
rejects two keys together (`precision_mode` with `precision_mode_v2`,
`enable_compress_weight` with `compress_weight_conf`) or a value needs something else
(`enable_dump` needs an existing `dump_path`: given one).
"""
import sys
import tempfile

from npu_bridge.ge import catalog, resolve

_DUMP_DIR = tempfile.gettempdir()

# Keys whose value is chosen by hand (conflicts, dependencies, realistic sizes).
_OVERRIDES = {
    "precision_mode": "allow_mix_precision",
    "precision_mode_v2": "",                 # conflicts with precision_mode
    "enable_compress_weight": False,
    "compress_weight_conf": "",              # conflicts with enable_compress_weight
    "enable_dump": True,
    "dump_path": _DUMP_DIR,                  # enable_dump needs an existing directory
    "dump_step": "0|5|10",
    "graph_memory_max_size": str(26 * 1024 ** 3),
    "variable_memory_max_size": str(5 * 1024 ** 3),
    "iterations_per_loop": 1,
    "mix_compile_mode": False,
    "graph_max_parallel_model_num": 1,
    "static_memory_policy": 2,
    "input_fusion_size": 131072,
    "profiling_options": '{"output": "/tmp/profiling", "training_trace": "on"}',
    "soc_config": "",                        # no product: product rules skipped (one info)
    "local_rank_id": 0,
    "session_device_id": 0,
    "op_debug_level": 0,
}


def _value(row):
    if row.key in _OVERRIDES:
        return _OVERRIDES[row.key]
    field, kind = row.field, row.rule
    if kind == "enum":
        return row.allowed[0]
    if field == "b":
        return row.default if isinstance(row.default, bool) else False
    if kind in ("range", "clamp"):
        if isinstance(row.default, int) and not isinstance(row.default, bool):
            return row.default
        return row.min if row.min is not None else 0
    if kind == "int_string":
        return str(row.min or 0)
    if kind == "regex":
        return row.example or ""
    if kind == "path":
        return "/tmp/npu_bench/%s" % row.key
    if kind == "json":
        return "{}"
    if field == "i":
        if isinstance(row.default, int) and not isinstance(row.default, bool):
            return row.default
        ad = row.adapter_default
        return int(ad) if ad not in (None, "") and ad.lstrip("-").isdigit() else 0
    ad = row.adapter_default
    return ad if ad is not None else ""


def _unset(row):
    """The row's "unset" value in its own field (the adapter default, else empty/false/0)."""
    ad = row.adapter_default
    if row.field == "b":
        return ad in ("1", "true")
    if row.field == "i":
        return int(ad) if ad not in (None, "") and ad.lstrip("-").isdigit() else 0
    return ad if ad is not None else ""


def valid_values(keys=None):
    """{key: python value} for `keys` (default: every parameter_map key), valid together.

    The catalog's rules evolve; a key that a new cross-option rule rejects in this
    combination is set back to its unset value (reported on stderr), so the map stays valid.
    """
    from npu_bridge.ge import NpuConfigError
    rows = [catalog.BY_KEY[k] for k in (keys or catalog.PARAMETER_MAP_KEYS)]
    values = {row.key: _value(row) for row in rows}
    for _ in range(10):
        try:
            resolve(values, env={})
            return values
        except NpuConfigError as err:
            bad = {d.option for d in err.diagnostics if d.severity == "error"} & set(values)
            if not bad:
                raise
            for key in sorted(bad):
                unset = _unset(catalog.BY_KEY[key])
                if values[key] != unset:
                    sys.stderr.write("bench config: %s=%r rejected in this combination; using "
                                     "its unset value %r\n" % (key, values[key], unset))
                    values[key] = unset
                else:
                    sys.stderr.write("bench config: %s rejected in this combination even "
                                     "unset; left out\n" % key)
                    del values[key]
    resolve(values, env={})
    return values


def valid_n(n):
    """A valid {key: value} of exactly `n` keys (pick_keys, topped up if some are left out)."""
    chosen = pick_keys(n)
    values = valid_values(chosen)
    rest = [k for k in catalog.PARAMETER_MAP_KEYS if k not in chosen]
    while len(values) < n and rest:
        chosen = list(values) + rest[:n - len(values)]
        rest = rest[n - len(values):]
        values = valid_values(chosen)
    return values


def fill(parameter_map, values):
    """Write {key: python value} into a protobuf parameter_map (AttrValue by the row's field)."""
    for key, value in values.items():
        field = catalog.BY_KEY[key].field
        attr = parameter_map[key]
        if field == "s":
            attr.s = value.encode() if isinstance(value, str) else value
        elif field == "b":
            attr.b = bool(value)
        elif field == "i":
            attr.i = int(value)
        elif field == "f":
            attr.f = float(value)
        else:
            raise ValueError("no field for %s" % key)
    return parameter_map


def pick_keys(n):
    """`n` parameter_map keys with valid values, spread over the catalog (reference order)."""
    keys = catalog.PARAMETER_MAP_KEYS
    step = len(keys) / float(n)
    chosen = []
    for i in range(n):
        key = keys[int(i * step)]
        if key not in chosen:
            chosen.append(key)
    for key in keys:  # top up if rounding collided
        if len(chosen) >= n:
            break
        if key not in chosen:
            chosen.append(key)
    return chosen


def check(config):
    """Resolve `config` and fail loudly if it is not a valid configuration."""
    result = resolve(config)  # raises NpuConfigError on any error
    return result
