"""The environment of a single-device Ascend job, for `npu-bridge run`.

Ascend job launchers always set the rank and device variables, and scripts read them without
a default (`int(os.getenv("RANK_SIZE"))`, the usage census counts about 330 such reads), so a
script run outside a launcher fails before its first TensorFlow line. `npu-bridge run` fills
in what a one-device job would have. No TensorFlow import.
"""
import os

# Variable -> value in a one-device job. DEVICE_ID and ASCEND_DEVICE_ID name the same device,
# DEVICE_INDEX the rank's device index: each takes the other's value when only one is given.
SINGLE_DEVICE_DEFAULTS = {
    "RANK_SIZE": "1",
    "RANK_ID": "0",
    "DEVICE_ID": "0",
    "ASCEND_DEVICE_ID": "0",
    "DEVICE_INDEX": "0",
}


def _unset(environ, key):
    # An empty value breaks int(os.getenv(KEY)) just like a missing one.
    return not str(environ.get(key, "")).strip()


def single_device_env(environ=None, pid=None):
    """The variables to add to `environ` (default `os.environ`) for a single-device job.

    Returns a new dict `{name: str value}` holding only variables that are unset or empty in
    `environ`: `RANK_SIZE=1`, `RANK_ID=0`, `DEVICE_ID`, `ASCEND_DEVICE_ID` (each the other's
    value when only one is set, else 0), `DEVICE_INDEX` (the device id, else 0) and
    `JOB_ID=npu-bridge-<pid>` (`pid` defaults to this process's id). Never modifies
    `environ` and raises nothing; values already set, even inconsistent ones, are kept."""
    environ = os.environ if environ is None else environ
    values = dict(SINGLE_DEVICE_DEFAULTS)
    for key, twin in (("DEVICE_ID", "ASCEND_DEVICE_ID"), ("ASCEND_DEVICE_ID", "DEVICE_ID")):
        if not _unset(environ, twin):
            values[key] = str(environ[twin]).strip()
    device = values["DEVICE_ID"] if _unset(environ, "DEVICE_ID") else environ["DEVICE_ID"]
    values["DEVICE_INDEX"] = str(device).strip()
    values["JOB_ID"] = "npu-bridge-%d" % (os.getpid() if pid is None else pid)
    return {key: value for key, value in values.items() if _unset(environ, key)}


def apply_single_device_env(environ=None, pid=None):
    """Set `single_device_env(environ, pid)` in `environ` (default `os.environ`); returns
    what was set, for the run report."""
    environ = os.environ if environ is None else environ
    added = single_device_env(environ, pid)
    environ.update(added)
    return added
