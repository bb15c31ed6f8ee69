"""Several ranks on TensorFlow's own collectives: the server, sessions, keys and timeouts.
Notes: docs/design.md "Module notes"; docs/collectives.md.
"""
import atexit
import hashlib
import json
import os
import re
import socket
import sys
import time
import zlib

from hccl.manage import ranktable as _ranks
from npu_bridge.hooks import patching as _patching, state as _session_state
from npu_bridge.hooks.lazy import LazyModule

# TensorFlow, loaded on first use (npu_bridge.hooks.lazy): the Session patch imports this module
tf = LazyModule("tensorflow")
config_pb2 = LazyModule("tensorflow.core.protobuf.config_pb2")
collective_ops = LazyModule("tensorflow.python.ops.collective_ops")

WORLD_KEY = 1
RUN_KEY_WORLD = 0x5eed
RUN_KEY_CHECK = 2 ** 31   # + the group key: a group check's run (run_key's keys stay below 2**31)
COLLECTIVE_TYPES = frozenset((
    "CollectiveReduce", "CollectiveReduceV2", "CollectiveReduceV3", "CollectiveGather",
    "CollectiveGatherV2", "CollectiveBcastSend", "CollectiveBcastRecv", "CollectiveBcastSendV2",
    "CollectiveBcastRecvV2", "CollectiveAllToAllV2", "CollectiveAllToAllV3",
    "CollectiveReduceScatterV2"))
_ATTR_GROUP = "_npu_bridge_group_key"

_CLUSTER = _session_state.CLUSTER   # the job's state (npu_bridge.hooks.state.Cluster)
_RUN_KEYS_LIMIT = 4096


def wrap_run(original):
    """``BaseSession.run`` that gives collective runs their key in a multi-rank process and
    turns a collective timeout into an error naming the collective and the missing ranks."""
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if not _session_state.is_cluster(self):
            return original(self, fetches, feed_dict, options, run_metadata)
        key, groups = _run_info(self, fetches)
        if not key:
            return original(self, fetches, feed_dict, options, run_metadata)
        start_barrier()
        try:
            check_groups(groups)
            return original(self, fetches, feed_dict, _with_key(options, key), run_metadata)
        except (tf.errors.DeadlineExceededError, tf.errors.UnavailableError,
                tf.errors.AbortedError, tf.errors.CancelledError, tf.errors.InternalError) as err:
            raise (_refused_later(err, groups) or _peer_refused(groups)
                   or explain(err, self.graph, fetches)) from err

    return run


class CollectiveError(RuntimeError):
    """A collective cannot be built or run as asked (not a member, no static shape...)."""


_ENV_KEYS = ("RANK_SIZE", "RANK_ID", "RANK_TABLE_FILE", "JOB_ID", "NPU_BRIDGE_RANK_ADDRESSES",
             "NPU_BRIDGE_PORT_BASE", "NPU_BRIDGE_JOB_DIR", "NPU_BRIDGE_COLLECTIVE_TIMEOUT")


_rank_size = _session_state.environ(("RANK_SIZE",))   # every session creation asks `active()`


def active():
    """True in a process of a job with several ranks (``RANK_SIZE`` > 1)."""
    raw = _rank_size()[0]
    if not raw:   # unset or empty: one rank (no exception raised and caught on this path)
        return False
    try:
        return int(raw.strip()) > 1
    except ValueError:
        return False


def job():
    """The ``_ranks.Job`` of this process, None with one rank (parsed again when the job's
    environment variables change; ``RankTableError`` when broken). Once this rank's server
    runs, its job is fixed: the server cannot move."""
    key = tuple(os.environ.get(k) for k in _ENV_KEYS)
    with _CLUSTER.lock:
        if _CLUSTER.server is not None:
            return _CLUSTER.job
        if _CLUSTER.checked != key:
            _CLUSTER.job = None
            _CLUSTER.checked = None
            _CLUSTER.job = _ranks.from_env()
            _CLUSTER.checked = key
        return _CLUSTER.job


def _cluster_config(cfg=None):
    out = config_pb2.ConfigProto()
    if cfg is not None:
        out.CopyFrom(cfg)
    j = job()
    out.experimental.collective_group_leader = "/job:worker/replica:0/task:0"
    del out.device_filters[:]
    out.device_filters.append("/job:worker/task:%d" % j.rank)
    out.isolate_session_state = True
    return out


def _note(name, payload):
    j = job()
    try:
        os.makedirs(j.job_dir, exist_ok=True)
        with open(os.path.join(j.job_dir, "rank%d.%s" % (j.rank, name)), "a", encoding="utf-8") as fh:
            fh.write(payload + "\n")
    except OSError:
        pass   # diagnostics only


def _clear_own_notes(j):
    for name in ("ready", "built", "done", "crashed", "failed", "exit", "collision"):
        try:
            os.remove(os.path.join(j.job_dir, "rank%d.%s" % (j.rank, name)))
        except OSError:
            pass


def _read_notes(rank, name):
    path = os.path.join(job().job_dir, "rank%d.%s" % (rank, name))
    try:
        with open(path, encoding="utf-8") as fh:
            return [line.rstrip("\n") for line in fh if line.strip()]
    except OSError:
        return None


def server():
    """This rank's ``tf.distribute.Server`` (started on first use). Raises ``RankTableError``
    when its address cannot be listened on (a port in use)."""
    with _CLUSTER.lock:
        if _CLUSTER.server is not None:
            return _CLUSTER.server
        j = job()
        address = j.addresses[j.rank]
        host, _, port = address.rpartition(":")
        if os.environ.get(_ranks.ENV_CHILD) != "1":   # the launcher checked its own ports
            problem = _ranks.port_problem(host, int(port))
            if problem:
                raise _ranks.RankTableError("rank %d's TensorFlow server" % j.rank, [
                    problem + " (choose other ports with %s or %s)" % (_ranks.ENV_PORT_BASE, _ranks.ENV_ADDRESSES)])
        spec = tf.train.ClusterSpec({"worker": list(j.addresses)})
        srv = tf.distribute.Server(spec, job_name="worker", task_index=j.rank,
                                   config=_cluster_config(), start=True)
        _CLUSTER.server = srv
        _clear_own_notes(j)   # an earlier job on the same addresses (no launcher) left them
        _note("ready", "%f %d" % (time.time(), os.getpid()))
        from hccl.manage import api
        api.mark_initialized()  # pylint: disable=protected-access
        atexit.register(_exit_barrier)
        return srv


def session_args(target, config):
    """``(target, config)`` for a Session of this rank: the server's target when ``target``
    is empty, and a copy of ``config`` with the cluster settings."""
    srv = server()
    if not target:
        target = srv.target
    return target, _cluster_config(config)


# --- groups and keys ---------------------------------------------------------------------

def group_key(group):
    """TensorFlow's group key of the HCCL group named ``group``: every rank derives it from the
    name alone. Keys are int32 and each instance key embeds its group's (below 2**13, 2**18
    instances per group), so a name is hashed into 8190 keys: two names of this process on one
    key raise ``CollectiveError`` naming both (TensorFlow would pair the collectives of the two
    groups, or hang). Two such names in different processes are found by ``check_groups``
    before the first run of the group's collectives."""
    if group == _ranks.WORLD_GROUP:
        return WORLD_KEY
    key = 2 + zlib.crc32(group.encode("utf-8")) % (2 ** 13 - 2)
    with _CLUSTER.lock:
        other = _CLUSTER.group_names.setdefault(key, group)
    if other != group:
        raise CollectiveError(
            "HCCL groups %r and %r have the same TensorFlow group key %d (a hash of the name "
            "into 8190 keys: int32 keys, 2**18 instances per group); their collectives would "
            "be paired with each other's: rename one of the groups (hccl.manage.api.create_group)"
            % (other, group, key))
    return key


def _fingerprint(group, members):
    """A positive int64 of the group's name and world ranks (what every member must agree on)."""
    text = "%s|%s" % (group, ",".join(str(r) for r in members))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def _collision(group, members, gkey, what):
    _note("collision", "%d" % gkey)   # the group's other ranks may be waiting on this one
    return CollectiveError(
        "HCCL group %r (ranks %s) has TensorFlow group key %d, and %s: another group is on the "
        "same key (a hash of the name into 8190 keys, or the same name created with other "
        "ranks), and the two groups' collectives would be paired with each other's; rename one "
        "of the groups (hccl.manage.api.create_group)" % (group, list(members), gkey, what))


def check_groups(groups):
    """Before the first run of the collectives of ``groups`` (group keys, ``collective_groups``)
    in this process: for each group every member gathers
    ``(fingerprint of name and ranks, rank)`` over the group's key, in a graph and session of
    its own (the stock Session, not the patch's). TensorFlow's group leader (rank 0's server)
    resolves a key to the first ``group_size`` ranks that ask for it, so two groups of other
    processes on one key (``group_key``) would share a group silently; here a rank of another
    group in the gather, or the leader refusing this rank (its group on that key is full or of
    another size), is a ``CollectiveError`` naming the group, its ranks and the key. A member
    that never runs the group's collectives makes this wait as a collective would (the run's
    deadline, explained by ``wrap_run``). Checked once per key and process."""
    if not _CLUSTER.group_names:
        return
    with _CLUSTER.lock:
        pending = [(k, group) for k, group in _named_groups(groups)
                   if k not in _CLUSTER.checked_keys]
    for gkey, group in pending:
        _check_group(gkey, group, group_members(group))


def _named_groups(groups):
    """``(group key, HCCL group name)`` of each key of ``groups`` an HCCL group of this process
    has (``create_group`` or the world group), in key order: what the checks below walk."""
    names = _CLUSTER.group_names
    return [(k, names[k]) for k in sorted(groups) if k in names]


def _check_group(gkey, group, members):
    mine = _fingerprint(group, members)
    session_cls = tf.compat.v1.Session
    graph = tf.Graph()
    with graph.as_default():
        value = tf.constant([[mine, job().rank]], tf.int64)
        # instance 0 of the group: _instance counts the group's collectives from 1
        out = collective_ops.all_gather(value, len(members), gkey, gkey * (2 ** 18))
    sess = session_cls.__new__(session_cls)
    _patching.original(session_cls.__dict__["__init__"])(
        sess, server().target, graph=graph, config=_cluster_config())
    try:
        got = _patching.original(tf.compat.v1.Session.run)(
            sess, out, None, _with_key(None, RUN_KEY_CHECK + gkey), None)
    except tf.errors.InternalError as err:
        said = _refusal(err, gkey)
        if not said:
            raise
        raise _collision(group, members, gkey, "TensorFlow's group leader (rank 0) refused "
                         "this rank on that key (%s)" % said) from err
    finally:
        _patching.original(session_cls.close)(sess)
    others = sorted(int(rank) for fp, rank in got.tolist() if fp != mine)
    if others:
        raise _collision(group, members, gkey, "TensorFlow paired it with rank(s) %s, which "
                         "named another group" % others)
    with _CLUSTER.lock:
        _CLUSTER.checked_keys.add(gkey)


def _refusal(err, gkey):
    """The line of ``err`` where TensorFlow's group leader refuses a device on group key
    ``gkey``, or None. TensorFlow 2.15: "... is joining a group that is already full
    (group_key=K)"; older wording: "... and group_key K but that group has size ..."."""
    said = [ln.strip() for ln in err.message.splitlines()
            if re.search(r"group_key[ =]%d\b" % gkey, ln)]
    return said[0] if said else None


def _refused_later(err, groups):
    """A ``CollectiveError`` when ``err`` (a run of the collectives of ``groups``, after their
    check passed) is TensorFlow's leader refusing a device of another group on one of their
    keys: the leader then fails every collective on that key ("Collective ops is aborted by"),
    so this group's run failed because the other group's rank came later. None otherwise."""
    for gkey, group in _named_groups(groups):
        said = _refusal(err, gkey)
        if said:
            return _collision(group, group_members(group), gkey, "a rank of another group asked "
                              "TensorFlow's group leader (rank 0) for that key after this group "
                              "had formed, which ended the collectives on it (%s)" % said)
    return None


def _peer_refused(groups):
    """A ``CollectiveError`` when a rank of one of ``groups`` (group keys of a failed run)
    found another group on its key (its ``_collision``, noted): this rank's collective then
    waits for a rank that will not come (rank 0 in a ring with rank 1, whose run TensorFlow's
    leader aborted when a third rank's group asked for the key). None otherwise."""
    j = job()
    for gkey, group in _named_groups(groups):
        members = group_members(group)
        peers = [r for r in members if r != j.rank and "%d" % gkey in (_read_notes(r, "collision") or ())]
        if peers:
            return _collision(group, members, gkey, "rank(s) %s of this group found another group on "
                              "that key, so this rank's collective could not complete" % peers)
    return None


def group_members(group):
    from hccl.manage import api
    return api.group_ranks(group)


def _instance(gkey, kind, name, group, members):
    with _CLUSTER.lock:
        count = _CLUSTER.instances.get(gkey, 0) + 1
        if count >= 2 ** 18:
            raise CollectiveError("more than %d collectives built on group %r" % (2 ** 18 - 1, group))
        _CLUSTER.instances[gkey] = count
        ikey = gkey * (2 ** 18) + count
        _CLUSTER.built[(gkey, ikey)] = "hccl_ops.%s %s (group %s, ranks %s)" % (kind, name, group, list(members))
    _note("built", json.dumps([gkey, ikey, kind, name]))
    return ikey


def _members_checked(group, kind):
    members = group_members(group)
    me = job().rank
    if me not in members:
        raise CollectiveError("hccl_ops.%s on group %r: this rank (%d) is not a member %s; HCCL "
                              "requires the caller to be in the group" % (kind, group, me, list(members)))
    return members


def _mark(tensor_or_op, gkey):
    op = tensor_or_op if isinstance(tensor_or_op, tf.Operation) else tensor_or_op.op
    op._set_attr(_ATTR_GROUP, tf.compat.v1.AttrValue(i=gkey))  # pylint: disable=protected-access


_SCOPES = {"allreduce": "HcomAllReduce", "allreduce (gradient)": "HcomAllReduceGrad",
           "reduce": "HcomReduce", "reduce_scatter": "HcomReduceScatter", "broadcast": "HcomBroadcast",
           "send": "HcomSend"}
_MERGE = {"sum": "Add", "prod": "Mul", "max": "Max", "min": "Min"}
# CollectiveReduce's CPU kernels: float types, int32, int64; smaller ints go through int32.
_WIDEN = {"int8": "int32", "int16": "int32", "uint8": "int32", "uint16": "int32"}


def _widen(dtype):
    """The dtype a collective of `dtype` runs in, or None (its own)."""
    wide = _WIDEN.get(dtype.name)
    return tf.as_dtype(wide) if wide else None


def all_reduce(tensor, reduction, group, kind="allreduce"):
    """``tensor`` reduced over ``group`` with ``reduction`` (sum/prod/max/min)."""
    members = _members_checked(group, kind)
    gkey = group_key(group)
    tensor = tf.convert_to_tensor(tensor)
    wide = _widen(tensor.dtype)
    value = tf.cast(tensor, wide) if wide else tensor
    with tf.name_scope(_SCOPES.get(kind, "HcomAllReduce")) as scope:
        ikey = _instance(gkey, kind, "%s of %s" % (scope.rstrip("/"), tensor.op.name), group, members)
        out = collective_ops.all_reduce(value, len(members), gkey, ikey, _MERGE[reduction], "Id")
    _mark(out, gkey)
    out = tf.cast(out, tensor.dtype) if wide else out
    out.set_shape(tensor.shape)
    return out


def all_gather(tensor, group, kind="allgather"):
    """The ``tensor`` of every member of ``group`` concatenated along axis 0, in group order."""
    members = _members_checked(group, kind)
    gkey = group_key(group)
    tensor = tf.convert_to_tensor(tensor)
    wide = _widen(tensor.dtype)
    value = tf.cast(tensor, wide) if wide else tensor
    with tf.name_scope("HcomAllGather") as scope:
        ikey = _instance(gkey, kind, "%s of %s" % (scope.rstrip("/"), tensor.op.name), group, members)
        out = collective_ops.all_gather(value, len(members), gkey, ikey)
    _mark(out, gkey)
    return tf.cast(out, tensor.dtype) if wide else out


def broadcast(tensor, root, group, kind="broadcast"):
    """The value of ``tensor`` on the group rank ``root``, on every member of ``group``."""
    members = _members_checked(group, kind)
    gkey = group_key(group)
    tensor = tf.convert_to_tensor(tensor)
    if not tensor.shape.is_fully_defined():
        raise CollectiveError("hccl_ops.%s of %r: its shape %s is not fully known; the receiving "
                              "ranks need the static shape" % (kind, tensor.op.name, tensor.shape))
    wide = _widen(tensor.dtype)
    dtype = wide or tensor.dtype
    with tf.name_scope(_SCOPES.get(kind, "HcomBroadcast")) as scope:
        ikey = _instance(gkey, kind, "%s of %s" % (scope.rstrip("/"), tensor.op.name), group, members)
        if members.index(job().rank) == root:
            value = tf.cast(tensor, wide) if wide else tensor
            out = collective_ops.broadcast_send(value, tensor.shape, dtype, len(members), gkey, ikey)
        else:
            with tf.control_dependencies([tensor]):   # the input is still an input, as on the NPU
                out = collective_ops.broadcast_recv(tensor.shape, dtype, len(members), gkey, ikey)
    _mark(out, gkey)
    out = tf.cast(out, tensor.dtype) if wide else out
    out.set_shape(tensor.shape)
    return out


def pair_group(group, a, b, sr_tag):
    """A two-rank group for send/receive between the group ranks ``a`` and ``b`` with tag
    ``sr_tag``: ``(name, world ranks)``; both ranks name it the same."""
    from hccl.manage import api
    members = api.group_ranks(group)
    pair = sorted((members[a], members[b]))
    name = "__npu_bridge_p2p_%s_%d_%d_tag%d" % (group, pair[0], pair[1], sr_tag)
    api.register_internal_group(name, pair)  # pylint: disable=protected-access
    return name, pair


def receive(shape, dtype, root, group):
    """What the group rank ``root`` sends in ``group`` (a two-rank pair), of ``shape``."""
    members = _members_checked(group, "receive")
    if not shape.is_fully_defined():
        raise CollectiveError("hccl_ops.receive: shape %s is not fully known" % shape)
    gkey = group_key(group)
    wide = _widen(dtype)
    with tf.name_scope("HcomReceive") as scope:
        ikey = _instance(gkey, "receive", scope.rstrip("/"), group, members)
        out = collective_ops.broadcast_recv(shape, wide or dtype, len(members), gkey, ikey)
    _mark(out, gkey)
    return tf.cast(out, dtype) if wide else out


# --- Session.run: the run's collective_graph_key -----------------------------------------

def _flatten(fetches, out, depth=0):
    """The leaves of a fetch structure (lists, tuples, dicts by value: keys may be any
    object, as MonitoredSession's hooks are)."""
    if isinstance(fetches, dict):
        for value in fetches.values():
            _flatten(value, out, depth + 1)
    elif isinstance(fetches, (list, tuple)) and depth < 16:
        for value in fetches:
            _flatten(value, out, depth + 1)
    else:
        out.append(fetches)
    return out


def _flat_ops(graph, fetches):
    out = []
    for item in _flatten(fetches, []):
        if isinstance(item, str):
            try:
                item = graph.as_graph_element(item)
            except (KeyError, ValueError, TypeError):
                continue
        if isinstance(item, tf.Operation):
            out.append(item)
        elif hasattr(item, "op") and isinstance(getattr(item, "op"), tf.Operation):
            out.append(item.op)
        elif isinstance(item, (tf.IndexedSlices, tf.SparseTensor)):
            out.extend(t.op for t in (getattr(item, "values", None), getattr(item, "indices", None))
                       if t is not None)
    return out


def _collectives(graph, fetches):
    """The collective ops a run of ``fetches`` executes (inputs and control inputs walked)."""
    stack, seen, found = _flat_ops(graph, fetches), set(), []
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type in COLLECTIVE_TYPES:
            found.append(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return found


def collective_groups(graph, fetches):
    """The group keys of the collectives a run of ``fetches`` executes (a frozenset)."""
    groups = set()
    for op in _collectives(graph, fetches):
        try:
            groups.add(op.get_attr(_ATTR_GROUP))
        except ValueError:   # written with collective_ops directly
            try:
                size = op.get_attr("group_size")
                groups.add(WORLD_KEY if size == job().size else op.get_attr("group_key"))
            except ValueError:
                groups.add(-1)
    return frozenset(groups)


def run_key(session, fetches):
    """The ``collective_graph_key`` for a run of ``fetches``: 0 (none) when it executes no
    collective; the world key when one is over the world group; else one from its groups."""
    return _run_info(session, fetches)[0]


def _run_info(session, fetches):
    """``(run_key, group keys)`` of a run of ``fetches`` (cached per graph version and fetches)."""
    graph = session.graph
    try:
        key = (id(graph), graph.version, tuple(id(x) for x in _flatten(fetches, [])))
    except TypeError:
        key = None
    found = _CLUSTER.run_keys.get(key) if key is not None else None
    if found is None:
        groups = collective_groups(graph, fetches)
        if not groups:
            run = 0
        elif WORLD_KEY in groups:
            run = RUN_KEY_WORLD
        else:
            run = 0x100000 + zlib.crc32(repr(sorted(groups)).encode()) % (2 ** 30)   # int64 field
        if key is not None:
            if len(_CLUSTER.run_keys) > _RUN_KEYS_LIMIT:
                _CLUSTER.run_keys.clear()
            _CLUSTER.run_keys[key] = (run, groups, fetches)   # fetches kept: their ids stay theirs
        return run, groups
    return found[0], found[1]


def wrap_make_callable_from_options(original):
    """``BaseSession._make_callable_from_options`` (what Keras' graph-mode functions run) in a
    multi-rank process: a callable that executes collectives runs through ``Session.run``
    (so it gets the run's collective key, the collective timeout and the explained error);
    a C callable's own ``run_options`` deadline did not bound it (docs/collectives.md)."""
    def make(self, callable_options):
        if not _session_state.is_cluster(self) or callable_options.tensor_connection:
            return original(self, callable_options)
        graph = self.graph
        fetches = [graph.as_graph_element(name) for name in callable_options.fetch]
        targets = [graph.as_graph_element(name) for name in callable_options.target]
        if not run_key(self, fetches + targets):
            return original(self, callable_options)
        return callable_through_run(self, callable_options)

    return make


def callable_through_run(session, callable_options):
    """What `_make_callable_from_options(callable_options)` returns, as calls of
    `session.run` (fetches, targets and feeds named by the options; the list of fetched
    values, as TensorFlow's callable gives it). Raises what `Graph.as_graph_element` raises
    for a name not in the graph."""
    graph = session.graph
    fetches = [graph.as_graph_element(name) for name in callable_options.fetch]
    targets = [graph.as_graph_element(name) for name in callable_options.target]
    feeds = [graph.as_graph_element(name) for name in callable_options.feed]
    options = callable_options.run_options if callable_options.HasField("run_options") \
        else None
    both = [fetches, targets]   # one list for every call: its id keys the run's graph

    def call(*args, run_metadata=None):
        return session.run(both, dict(zip(feeds, args)), options=options,
                           run_metadata=run_metadata)[0]
    return call


def _with_key(options, key):
    """``options`` (copied) with the run's collective key and, unless the caller set one, the
    collective timeout as the run's ``timeout_in_ms``: one deadline per run, where an op-level
    collective timeout would start one sleeping thread per collective execution in
    TensorFlow's runtime (bench/bench_ranks.py: +30% per step of a small MLP)."""
    out = config_pb2.RunOptions()
    if options is not None:
        out.CopyFrom(options)
    if not out.experimental.collective_graph_key:
        out.experimental.collective_graph_key = key
    if not out.timeout_in_ms:
        out.timeout_in_ms = int(job().timeout * 1000)
    return out


# --- the job folder: start barrier, timeouts, exit barrier ---------------------------------

def _exits():
    j = job()
    out = {}
    for r in range(j.size):
        notes = _read_notes(r, "exit")
        if notes:
            out[r] = notes[-1]
    return out


def _listens(address):
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=0.3).close()
        return True
    except (OSError, ValueError):
        return False


def start_barrier():
    """Wait until every rank's server is up (once), at most the collective timeout plus the
    start-up allowance; raises ``CollectiveError`` naming the ranks that never came up or
    that ended."""
    if _CLUSTER.ready:
        return
    j = job()
    deadline = time.time() + max(j.timeout, 60.0) + 120.0
    listening, probed = set(), 0.0
    while True:
        missing = [r for r in range(j.size) if r not in listening
                   and _read_notes(r, "ready") is None]
        if missing and time.time() - probed > 0.5:
            # a rank on another host writes its note in a folder this one may not see: its
            # server accepting connections is the same fact
            probed = time.time()
            listening.update(r for r in missing if _listens(j.addresses[r]))
            missing = [r for r in missing if r not in listening]
        exits = _exits()
        ended = {r: why for r, why in exits.items() if r in missing}
        if not missing:
            _CLUSTER.ready = True
            return
        if ended or time.time() > deadline:
            raise CollectiveError(
                "rank %d: the job's collectives cannot start: %s" % (j.rank, "; ".join(
                    ["rank %d ended (%s) before its TensorFlow server started" % (r, why) for r, why in sorted(ended.items())]
                    + (["rank(s) %s never started a TensorFlow server" % [r for r in missing if r not in ended]]
                       if [r for r in missing if r not in ended] else []))))
        time.sleep(0.05)


def _timed_out_collectives(graph, fetches, err):
    op = getattr(err, "op", None)
    if op is not None and op.type in COLLECTIVE_TYPES:
        return [op]
    return _collectives(graph, fetches)


def explain(err, graph, fetches):
    """``err`` (a collective's failure) with what went wrong across the ranks, same type."""
    j = job()
    _note("failed", "%f" % time.time())   # ends the other ranks' exit barrier
    # ranks whose script finished (in their exit barrier): wait briefly for how they ended
    # (their TensorFlow server may hold their exit until this rank's collective is gone)
    deadline = time.time() + 0.5
    while time.time() < deadline:
        exits = _exits()
        if not [r for r in range(j.size) if r != j.rank and r not in exits and _read_notes(r, "done")]:
            break
        time.sleep(0.1)
    exits = _exits()
    # without a launcher nobody notes how a killed rank ended: its server gone says it
    for r in range(j.size):
        if r != j.rank and r not in exits and not _read_notes(r, "done") \
                and not _listens(j.addresses[r]):
            exits[r] = ("gone: its TensorFlow server at %s no longer accepts connections, "
                        "killed or crashed" % j.addresses[r])
    # ranks whose script ended with an exception (their exit barrier noted it): failed, not
    # finished, whether or not their process has ended yet
    crashed = {r: _read_notes(r, "crashed")[-1].partition(" ")[2] for r in range(j.size)
               if r != j.rank and _read_notes(r, "crashed")}   # "TIME TYPE: message"
    lines = []
    for r, why in sorted(exits.items()):
        if r != j.rank:
            lines.append("rank %d %s(%s) while rank %d waited in a collective" % (
                r, "failed in its script (%s) and ended " % crashed[r] if r in crashed else "ended ",
                why, j.rank))
    for r in range(j.size):
        if r != j.rank and r not in exits and r in crashed:
            lines.append("rank %d failed in its script (%s) while rank %d waited in a collective"
                         % (r, crashed[r], j.rank))
        elif r != j.rank and r not in exits and _read_notes(r, "done"):
            lines.append("rank %d finished its script (it is exiting) while rank %d waited in a collective"
                         % (r, j.rank))
    built = {}
    for r in range(j.size):
        notes = _read_notes(r, "built") or []
        built[r] = {tuple(json.loads(n)[:2]) for n in notes}
    for op in _timed_out_collectives(graph, fetches, err):
        try:
            gkey, ikey = op.get_attr("group_key"), op.get_attr("instance_key")
        except ValueError:
            continue
        what = _CLUSTER.built.get((gkey, ikey), "collective %r (group key %d, instance %d)" % (op.name, gkey, ikey))
        members = [r for r in range(j.size) if r == j.rank or any(k[0] == gkey for k in built[r])]
        if gkey == WORLD_KEY:
            members = list(range(j.size))
        # a rank that ended mid-script is news of its own; one that finished its script
        # (a "done" note) without building this collective is missing it, exited or not
        # (this rank runs it, so it is built here; a rank that failed is news of its own)
        missing = [r for r in members if r != j.rank and (gkey, ikey) not in built[r]
                   and r not in crashed and (r not in exits or _read_notes(r, "done"))]
        if missing:
            lines.append("%s was built on rank(s) %s but not on rank(s) %s: a collective built on "
                         "some ranks only hangs the job on the NPU too (build the same graph on "
                         "every rank; vendor FAQ multi-device_model_error.md)"
                         % (what, [r for r in members if r not in missing], missing))
        else:
            lines.append("%s did not complete" % what)
    text = "rank %d: collective failed after at most %g s (--collective-timeout): %s\n  - %s" % (
        j.rank, j.timeout, type(err).__name__, "\n  - ".join(lines or ["no other rank reported a problem"]))
    return type(err)(getattr(err, "node_def", None), getattr(err, "op", None),
                     text + "\nTensorFlow said: " + _first_line(err.message))


# lines of a TensorFlow error that locate it rather than say what failed
_WHERE = re.compile(r"Graph execution error:$|Detected at node |Original stack trace |File \"|"
                    r"Node: |From /job:|.*\(most recent call last\):$")


def _first_line(message):
    """The first line of a TensorFlow error ``message`` that says what failed (not where)."""
    lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
    useful = [ln for ln in lines if not _WHERE.match(ln)]
    return (useful or lines or [""])[0]


def _exit_barrier():
    """At exit, wait (bounded) until every rank is done or ended, so that the group leader's
    server outlives the others' last collective."""
    j = _CLUSTER.job
    if j is None:
        return
    # an exception that ended the script: python (and `npu-bridge run`) set sys.last_value
    # before the atexit handlers run; the other ranks then say this rank failed, not finished
    failed = getattr(sys, "last_value", None)
    if failed is not None and not isinstance(failed, SystemExit):
        _note("crashed", "%f %s: %s" % (time.time(), type(failed).__name__, _first_line(failed)))
    _note("done", "%f" % time.time())
    deadline = time.time() + min(j.timeout, 60.0)
    while time.time() < deadline:
        exits = _exits()
        if all(r == j.rank or r in exits or _read_notes(r, "done") or _read_notes(r, "failed")
               for r in range(j.size)):
            return
        time.sleep(0.05)


def session_kwargs(self, args, kwargs):
    """``Session.__init__``'s arguments for this rank (``self`` is marked as a cluster
    session): all by name, the target and config as ``session_args`` makes them."""
    kw = dict(zip(("target", "graph", "config"), args))
    kw.update(kwargs)
    if not hasattr(self, "_session"):
        self._session = None   # BaseSession.__del__ reads it if the job cannot start (below)
    kw["target"], kw["config"] = session_args(kw.get("target") or "", kw.get("config"))
    _session_state.mark_cluster(self)
    return kw
