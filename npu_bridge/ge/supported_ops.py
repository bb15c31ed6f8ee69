"""Which op types the NPU compiles: the CANN install's `npu_supported_ops.json` (read where
the TF adapter reads it), a file the user names, or the default list of public sources
(`npu_bridge.ge._default_ops`). No TensorFlow. Rules: docs/partition.md "Supported-op list".
"""
import json
import os
from typing import Mapping, Optional

from npu_bridge.ge import _default_ops

# where the adapter reads the lists (hicann/tensorflow tf_adapter/util/npu_ops_identifier.cc:26-29)
OLD_BUILTIN = "framework/built-in/tensorflow/npu_supported_ops.json"
NEW_BUILTIN = "built-in/framework/tensorflow/npu_supported_ops.json"
OLD_CUSTOM = "framework/custom/tensorflow/npu_supported_ops.json"
CUSTOM = "framework/tensorflow/npu_supported_ops.json"
DEFAULT_OPP = "/usr/local/Ascend/opp"   # npu_ops_identifier.cc:139-146


class SupportedOps:
    """A supported-op list. `table`: op type -> {"isGray": bool, ...} (a CANN list) or
    (supported, source) (the default list); `complete`: an op missing from the table is
    unsupported (a CANN list, as the adapter reads it: npu_ops_identifier.cc:200-209) or
    unknown (the default list); `name`: which list, for the output."""

    def __init__(self, table: Mapping, name: str, complete: bool, files=()):
        self.table, self.name, self.complete, self.files = table, name, complete, tuple(files)

    def status(self, op, mix):
        """"supported", "gray" (isGray true, under mix_compile_mode: npu_ops_identifier.cc:
        210-212), "unsupported" or "unknown"."""
        entry = self.table.get(op)
        if entry is None:
            return "unsupported" if self.complete else "unknown"
        if isinstance(entry, tuple):
            return "supported" if entry[0] else "unsupported"
        if not isinstance(entry, dict):
            return "unsupported"     # the adapter declares an op only for a JSON object
        if mix and entry.get("isGray") is True:
            return "gray"
        return "supported"

    def __str__(self):
        return self.name


def read_json(path):
    """One npu_supported_ops.json: op type -> its entry. Raises ValueError naming the file
    when it is not a JSON object (the adapter then parses 0 ops from it)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as err:
        raise ValueError("supported-op list %s: cannot read it as JSON (%s)" % (path, err)) from err
    if not isinstance(data, dict):
        raise ValueError("supported-op list %s: a JSON object of op type -> "
                         "{\"isGray\": ..., \"isHeavy\": ...} expected, got %s"
                         % (path, type(data).__name__))
    return data


def vendors(config_path):
    """The vendor names of `<opp>/vendors/config.ini` ('load_priority=a,b,c'), or None when
    the file is missing or malformed (npu_ops_identifier.cc:46-78)."""
    try:
        with open(config_path, encoding="utf-8") as f:
            line = f.readline().strip("\n")
    except OSError:
        return None
    parts = line.split("=")
    if not line or len(parts) != 2:
        return None
    names = [v.strip() for v in parts[1].split(",")]
    return names or None


def cann_files(opp_path, environ=os.environ):
    """The JSON files the adapter reads for `opp_path`, in order (later ones override
    earlier entries): the built-in list, then the custom lists. Old layout (no
    `<opp>/built-in` folder): `framework/built-in/...` and `framework/custom/...`. New layout:
    `built-in/framework/...`, then each folder of ASCEND_CUSTOM_OPP_PATH (':'-separated)
    `/framework/tensorflow/...`, then each vendor of `vendors/config.ini`, else
    `framework/custom/...` (npu_ops_identifier.cc:80-134)."""
    if not os.path.isdir(os.path.join(opp_path, "built-in")):
        return [os.path.join(opp_path, OLD_BUILTIN), os.path.join(opp_path, OLD_CUSTOM)]
    files = [os.path.join(opp_path, NEW_BUILTIN)]
    for custom in (environ.get("ASCEND_CUSTOM_OPP_PATH") or "").split(":"):
        if custom and os.path.isdir(custom):
            files.append(os.path.join(custom, CUSTOM))
    names = vendors(os.path.join(opp_path, "vendors", "config.ini"))
    if names is None:
        files.append(os.path.join(opp_path, OLD_CUSTOM))
    else:
        files += [os.path.join(opp_path, "vendors", v, CUSTOM) for v in names]
    return files


def from_cann(environ=os.environ) -> Optional[SupportedOps]:
    """The installed CANN list ($ASCEND_OPP_PATH, else /usr/local/Ascend/opp), merged as the
    adapter merges it; None when its built-in file is not there."""
    opp = environ.get("ASCEND_OPP_PATH") or DEFAULT_OPP
    files = cann_files(opp, environ)
    if not os.path.isfile(files[0]):
        return None
    table = dict(read_json(files[0]))
    used = [files[0]]
    for f in files[1:]:
        if os.path.isfile(f):
            table.update(read_json(f))
            used.append(f)
    return SupportedOps(table, "CANN list " + ", ".join(used), True, used)


def from_file(path) -> SupportedOps:
    """A list the user names (`--supported-ops FILE`): an npu_supported_ops.json."""
    return SupportedOps(read_json(path), "file " + path, True, [path])


def default() -> SupportedOps:
    """The default list of public sources: op types it does not list are unknown."""
    return SupportedOps(_default_ops.OPS, "default list (public sources: docs/partition.md; "
                        "%d op types, others unknown)" % len(_default_ops.OPS), False)


def choose(path=None, environ=os.environ) -> SupportedOps:
    """The list to use: `path` if given, else the installed CANN list, else the default."""
    if path:
        return from_file(path)
    return from_cann(environ) or default()
