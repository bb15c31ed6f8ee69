"""Drop-in for the Ascend ``hccl.split.api``: the gradient split (allreduce fusion) strategy,
checked as the real module documents and recorded (``get_split_strategy``).
Imports neither TensorFlow nor ``npu_bridge``; notes: docs/design.md "Module notes".
"""
import threading

from hccl.manage import api as _manage

MAX_VALUE_UINT32 = 4294967295
MAX_SEGMENTS = 8

_lock = threading.Lock()
_strategies = {}  # group -> {"idx": [...], "size": [...]}


def _check_group(group):
    _manage.check_group(group)
    _manage.group_ranks(group)  # ValueError for an unknown group


def set_split_strategy_by_idx(idxList, group="hccl_world_group"):  # noqa: N803 (real name)
    """Record the gradient split by gradient index: segment ends ``idxList`` (inclusive).

    Example: 160 gradients cut as [0,20], [21,100], [101,159] is ``[20, 100, 159]``.
    Raises ValueError per the module rules.
    """
    _check_group(group)
    if not isinstance(idxList, list):
        raise ValueError("idxList must be a python list, got %s" % type(idxList).__name__)
    if not idxList:
        raise ValueError("idxList length is 0")
    for idx in idxList:
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise ValueError("idx val[%r] in idxList is not python int type." % (idx,))
        if idx < 0 or idx > MAX_VALUE_UINT32:
            raise ValueError("idx val[%d] in idxList is out of range [0, %d]" % (idx, MAX_VALUE_UINT32))
    for left, right in zip(idxList, idxList[1:]):
        if not left < right:
            raise ValueError("idx in idxList is not ascending: %d is followed by %d" % (left, right))
    if len(idxList) > MAX_SEGMENTS:
        raise ValueError("idxList has %d segments; gradient split supports at most %d"
                         % (len(idxList), MAX_SEGMENTS))
    with _lock:
        _strategies.setdefault(group, {})["idx"] = list(idxList)


def set_split_strategy_by_size(dataSizeList, group="hccl_world_group"):  # noqa: N803 (real name)
    """Record the gradient split by data-size percentages ``dataSizeList`` (sum 100).

    Example: 150 MB cut as 90, 30, 30 MB is ``[60, 20, 20]``. Raises ValueError per the module
    rules.
    """
    _check_group(group)
    if not isinstance(dataSizeList, list):
        raise ValueError("dataSizeList must be a python list, got %s" % type(dataSizeList).__name__)
    if not dataSizeList:
        raise ValueError("dataSizeList length is 0")
    for size in dataSizeList:
        if not isinstance(size, (int, float)) or isinstance(size, bool):
            raise ValueError("dataSize val[%r] in dataSizeList is not python int or float type." % (size,))
        if size < 0:
            raise ValueError("dataSize val[%r] in dataSizeList cannot be a negative number." % (size,))
    if sum(dataSizeList) != 100:
        raise ValueError("size percentage list %r sums to %r, not 100" % (dataSizeList, sum(dataSizeList)))
    if len(dataSizeList) > MAX_SEGMENTS:
        raise ValueError("dataSizeList has %d segments; gradient split supports at most %d"
                         % (len(dataSizeList), MAX_SEGMENTS))
    with _lock:
        _strategies.setdefault(group, {})["size"] = list(dataSizeList)


def get_split_strategy(group="hccl_world_group"):
    """The recorded strategy of ``group``: ``("size", list)``, ``("idx", list)`` or ``None``.

    Not in the real API (which keeps it inside HCCL); the size strategy wins, as documented.
    """
    with _lock:
        entry = _strategies.get(group, {})
        if "size" in entry:
            return ("size", list(entry["size"]))
        if "idx" in entry:
            return ("idx", list(entry["idx"]))
    return None


def _reset_for_tests():
    with _lock:
        _strategies.clear()
