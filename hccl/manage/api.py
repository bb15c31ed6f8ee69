"""Drop-in for the Ascend ``hccl.manage.api``: rank and group queries of HCCL, answered
from the job environment (``RANK_SIZE``, ``RANK_ID``, ``RANK_TABLE_FILE``, ...).
Imports neither TensorFlow nor ``npu_bridge``; notes: docs/design.md "Module notes".
"""
import os
import sys
import threading
import warnings

from hccl.manage import ranktable as _ranktable

WORLD_GROUP = "hccl_world_group"
# Real limit: 128 bytes including the terminating NUL.
MAX_GROUP_NAME_LEN = 127

_lock = threading.Lock()
_initialized = [False]
_warned = set()


def mark_initialized():
    """Called by npu_bridge once this rank's collective system is up (its server started)."""
    _initialized[0] = True


def _check_initialized(name):
    """The real getters fail with "get rank id error" before the collective system is
    initialized (vendor FAQ get_rank_id_error_distributed_training.md: run initialize_system
    in a session first). Here the value is known from the rank table, so the call answers and
    warns once per getter, in a multi-rank job only."""
    if _initialized[0] or name in _warned or world_rank_size() <= 1:
        return
    caller = sys._getframe(2).f_globals.get("__name__", "")  # pylint: disable=protected-access
    if caller.startswith(("npu_bridge.", "hccl.")):
        return   # npu_bridge's own use (building a collective), not the script's call
    _warned.add(name)
    warnings.warn(
        "hccl.manage.api.%s() was called before the collective system was initialized; on the "
        "NPU this fails ('get rank id error'): initialize it first (a session running "
        "npu_ops.initialize_system(), as in the vendor FAQ get_rank_id_error_distributed_training.md)"
        % name, RuntimeWarning, stacklevel=3)
_groups = {}  # group name -> tuple of world rank ids, in group-rank order


def _env_int(name, default, minimum):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError("environment variable %s=%r is not an integer" % (name, raw)) from None
    if value < minimum:
        raise ValueError("environment variable %s=%d must be at least %d" % (name, value, minimum))
    return value


def check_group(group):
    """Raise ``ValueError`` unless ``group`` is a valid group name (real rule: str, 1..127 chars)."""
    if not isinstance(group, str):
        raise ValueError("group must be a python str, got %s" % type(group).__name__)
    if not group:
        raise ValueError("group name is empty.")
    if len(group) > MAX_GROUP_NAME_LEN:
        raise ValueError("group name %r is %d characters long; the maximum is %d"
                         % (group[:MAX_GROUP_NAME_LEN], len(group), MAX_GROUP_NAME_LEN))


def _check_int(value, what, minimum):
    # bool is an int subclass; the C API would take True as 1, which is never meant.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("%s must be a python int, got %r" % (what, value))
    if value < minimum:
        raise ValueError("%s[%d] must be at least %d" % (what, value, minimum))


def world_rank_size():
    """``RANK_SIZE`` (default 1)."""
    return _env_int("RANK_SIZE", 1, 1)


def world_rank_id():
    """``RANK_ID`` (default 0); ``ValueError`` when it is not below ``RANK_SIZE``."""
    size = world_rank_size()
    rank = _env_int("RANK_ID", 0, 0)
    if rank >= size:
        raise ValueError("RANK_ID=%d is not below RANK_SIZE=%d" % (rank, size))
    return rank


def _members(group):
    check_group(group)
    if group == WORLD_GROUP:
        return tuple(range(world_rank_size()))
    with _lock:
        members = _groups.get(group)
    if members is None:
        raise ValueError("group %r does not exist: create it with create_group() first" % group)
    return members


def group_ranks(group=WORLD_GROUP):
    """World rank ids of ``group``'s members, in group-rank order (``ValueError`` if unknown)."""
    return _members(group)


def create_group(group, rank_num, rank_ids):
    """Create the group ``group`` of ``rank_num`` ranks with the world rank ids ``rank_ids``.

    Raises ValueError: bad name or types, ``rank_num != len(rank_ids)``, a rank id repeated or
    not below ``RANK_SIZE``, the group already exists or is ``hccl_world_group``, or this
    process's rank is not a member (the real library requires the caller to be in the group).
    """
    check_group(group)
    _check_int(rank_num, "rank_num", 1)
    if not isinstance(rank_ids, list):
        raise ValueError("rank_ids must be a python list")
    if rank_num != len(rank_ids):
        raise ValueError("rank_num[%d] not equal to rank_ids len[%d]." % (rank_num, len(rank_ids)))
    size = world_rank_size()
    for rank in rank_ids:
        _check_int(rank, "rank_id", 0)
        if rank >= size:
            raise ValueError("rank_id[%d] is not below RANK_SIZE=%d" % (rank, size))
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError("rank_ids %r contains a rank twice" % (rank_ids,))
    if world_rank_id() not in rank_ids:
        raise ValueError("this process (RANK_ID=%d) is not in rank_ids %r of group %r"
                         % (world_rank_id(), rank_ids, group))
    with _lock:
        if group == WORLD_GROUP or group in _groups:
            raise ValueError("create group error: group %r already exists" % group)
        _groups[group] = tuple(rank_ids)


def destroy_group(group):
    """Destroy a group made by ``create_group`` (``ValueError`` if unknown or the world group)."""
    check_group(group)
    with _lock:
        if group not in _groups:
            raise ValueError("destroy group error: group %r does not exist" % group)
        del _groups[group]


def get_rank_size(group=WORLD_GROUP):
    """Number of ranks in ``group`` (``RANK_SIZE`` for ``hccl_world_group``)."""
    _check_initialized('get_rank_size')
    return len(_members(group))


def get_rank_id(group=WORLD_GROUP):
    """This process's rank id inside ``group``."""
    _check_initialized('get_rank_id')
    return get_group_rank_from_world_rank(world_rank_id(), group)


_table_cache = {}


def _table_servers():
    """{world rank: server index} from the rank table of a multi-rank job, else None."""
    key = (os.environ.get("RANK_SIZE"), os.environ.get("RANK_ID"), os.environ.get("RANK_TABLE_FILE"))
    if key not in _table_cache:
        if world_rank_size() <= 1 or not (key[2] or "").strip():
            found = None
        else:
            job = _ranktable.from_env()   # RankTableError (a ValueError) when broken
            found = {info.rank: info.server for info in job.ranks}
        _table_cache.clear()
        _table_cache[key] = found
    return _table_cache[key]


def get_local_rank_size(group=WORLD_GROUP):
    """Ranks of ``group`` on this server: from the rank table when the job has one, else
    ``LOCAL_RANK_SIZE`` (default ``RANK_SIZE``)."""
    _check_initialized('get_local_rank_size')
    members = _members(group)
    servers = _table_servers()
    if servers is not None:
        mine = servers[world_rank_id()]
        return sum(1 for rank in members if servers[rank] == mine)
    local = _env_int("LOCAL_RANK_SIZE", world_rank_size(), 1)
    server = world_rank_id() // local
    return sum(1 for rank in members if rank // local == server)


def get_local_rank_id(group=WORLD_GROUP):
    """This process's rank among ``group``'s ranks on this server (rank table order when the
    job has one)."""
    _check_initialized('get_local_rank_id')
    members = _members(group)
    servers = _table_servers()
    if servers is not None:
        mine = servers[world_rank_id()]
        return [rank for rank in members if servers[rank] == mine].index(world_rank_id())
    local_size = _env_int("LOCAL_RANK_SIZE", world_rank_size(), 1)
    me = world_rank_id()
    if group == WORLD_GROUP and os.environ.get("LOCAL_RANK_ID", "").strip():
        return _env_int("LOCAL_RANK_ID", 0, 0)
    server = me // local_size
    on_server = [rank for rank in members if rank // local_size == server]
    return on_server.index(me)


def get_world_rank_from_group_rank(group, group_rank_id):
    """World rank id of the rank ``group_rank_id`` of ``group`` (``ValueError`` if out of range)."""
    members = _members(group)
    _check_int(group_rank_id, "group_rank_id", 0)
    if group_rank_id >= len(members):
        raise ValueError("group_rank_id[%d] is not below the size %d of group %r"
                         % (group_rank_id, len(members), group))
    return members[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):  # real argument names
    """Rank id inside ``group`` of the world rank ``world_rank_id`` (``ValueError`` if absent)."""
    members = _members(group)
    _check_int(world_rank_id, "world_rank_id", 0)
    if world_rank_id not in members:
        raise ValueError("world rank %d is not a member of group %r" % (world_rank_id, group))
    return members.index(world_rank_id)


def register_internal_group(group, rank_ids):
    """A group npu_bridge makes for itself (send/receive pairs); kept if it exists."""
    with _lock:
        _groups.setdefault(group, tuple(rank_ids))


def _reset_groups_for_tests():
    with _lock:
        _groups.clear()
