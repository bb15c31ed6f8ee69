"""Rank tables and the multi-rank job environment: reading and checking ``RANK_TABLE_FILE``,
the table ``npu-bridge run --ranks N`` writes, each rank's server address (no TensorFlow, no
npu_bridge import). Notes: docs/design.md "Module notes"; docs/collectives.md.
"""
import errno
import json
import os
import socket
import tempfile
import zlib

WORLD_GROUP = "hccl_world_group"
ENV_ADDRESSES = "NPU_BRIDGE_RANK_ADDRESSES"
ENV_PORT_BASE = "NPU_BRIDGE_PORT_BASE"
ENV_JOB_DIR = "NPU_BRIDGE_JOB_DIR"
ENV_TIMEOUT = "NPU_BRIDGE_COLLECTIVE_TIMEOUT"
ENV_CHILD = "NPU_BRIDGE_RANK_CHILD"
DEFAULT_TIMEOUT = 120.0
VERSIONS = ("1.0", "1.2")
SOURCE = "rank table format: the vendor docs of RANK_TABLE_FILE (versions 1.0, 1.2); docs/collectives.md"


class RankTableError(ValueError):
    """A rank table or job environment that cannot start a job; ``problems`` lists every one."""

    def __init__(self, where, problems):
        self.where = where
        self.problems = list(problems)
        super().__init__("%s:\n  - %s\n(%s)" % (where, "\n  - ".join(self.problems), SOURCE))


class RankInfo:
    """One rank of a table: world ``rank``, ``server`` index, ``server_id``, ``host``,
    ``device_id``, ``local_rank`` (index among its server's devices) and ``local_size``."""
    __slots__ = ("rank", "server", "server_id", "host", "device_id", "local_rank", "local_size")

    def __init__(self, **kw):
        for key in self.__slots__:
            setattr(self, key, kw[key])

    def __repr__(self):
        return "RankInfo(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__)


def _int_str(value, what, problems):
    if not isinstance(value, str) or not value.strip().isdigit():
        problems.append("%s must be a string of digits, got %r" % (what, value))
        return None
    return int(value)


def parse_table(data, where="rank table", hosts=None):
    """The ranks of a rank table (a parsed JSON value), as a list of ``RankInfo`` ordered by
    rank id. ``hosts``: one address per server (``--hosts``), else ``host_ip`` (1.2), else
    127.0.0.1. Raises ``RankTableError`` listing every problem: not an object, a version other
    than 1.0 / 1.2, ``server_count`` not the number of servers, a device without a digit
    string ``device_id`` / ``rank_id``, a rank id repeated, rank ids not 0..N-1, a device id
    repeated on one server, ``hosts`` of the wrong length."""
    problems = []
    if not isinstance(data, dict):
        raise RankTableError(where, ["the table must be a JSON object, got %s" % type(data).__name__])
    version = data.get("version")
    if version not in VERSIONS:
        problems.append("version must be one of %s, got %r" % (", ".join(VERSIONS), version))
    if "status" in data and data["status"] != "completed":
        problems.append("status must be 'completed', got %r" % (data["status"],))
    servers = data.get("server_list")
    if not isinstance(servers, list) or not servers:
        problems.append("server_list must be a non-empty list, got %r" % (servers,))
        raise RankTableError(where, problems)
    count = data.get("server_count")
    if count is not None:
        n = _int_str(count, "server_count", problems)
        if n is not None and n != len(servers):
            problems.append("server_count is %d but server_list has %d server(s)" % (n, len(servers)))
    if hosts is not None and len(hosts) != len(servers):
        problems.append("--hosts gives %d address(es) for %d server(s)" % (len(hosts), len(servers)))
        hosts = None
    ranks = {}
    for s_index, server in enumerate(servers):
        what = "server_list[%d]" % s_index
        if not isinstance(server, dict):
            problems.append("%s must be an object" % what)
            continue
        devices = server.get("device")
        if not isinstance(devices, list) or not devices:
            problems.append("%s.device must be a non-empty list" % what)
            continue
        host = (hosts[s_index] if hosts else None) or server.get("host_ip") or "127.0.0.1"
        if not isinstance(host, str):
            problems.append("%s.host_ip must be a string, got %r" % (what, host))
            host = "127.0.0.1"
        seen_devices = set()
        for d_index, device in enumerate(devices):
            dwhat = "%s.device[%d]" % (what, d_index)
            if not isinstance(device, dict):
                problems.append("%s must be an object" % dwhat)
                continue
            device_id = _int_str(device.get("device_id"), dwhat + ".device_id", problems)
            rank = _int_str(device.get("rank_id"), dwhat + ".rank_id", problems)
            if device_id is not None:
                if device_id in seen_devices:
                    problems.append("%s.device_id %d appears twice on server %r"
                                    % (dwhat, device_id, server.get("server_id")))
                seen_devices.add(device_id)
            if rank is None:
                continue
            if rank in ranks:
                problems.append("rank_id %d appears twice (%s)" % (rank, dwhat))
                continue
            ranks[rank] = RankInfo(rank=rank, server=s_index, server_id=str(server.get("server_id", s_index)),
                                   host=host, device_id=device_id if device_id is not None else 0,
                                   local_rank=d_index, local_size=len(devices))
    if ranks and sorted(ranks) != list(range(len(ranks))):
        problems.append("rank ids must be 0..%d, got %s" % (len(ranks) - 1, sorted(ranks)))
    if problems:
        raise RankTableError(where, problems)
    return [ranks[r] for r in sorted(ranks)]


def load_table(path, hosts=None):
    """``parse_table`` of the JSON file at ``path`` (``RankTableError`` when it cannot be read
    or is not JSON, naming the file)."""
    where = "rank table %s" % path
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise RankTableError(where, ["cannot read it: %s" % err]) from None
    except ValueError as err:
        raise RankTableError(where, ["not valid JSON: %s" % err]) from None
    return parse_table(data, where, hosts)


def generate_table(n, servers=1):
    """A version 1.0 rank table of ``n`` ranks over ``servers`` servers (ranks split evenly,
    device ids 0.. per server), as a dict."""
    if servers < 1 or n % servers:
        raise ValueError("--ranks %d cannot be split evenly over %d server(s)" % (n, servers))
    per = n // servers
    server_list = []
    for s in range(servers):
        server_list.append({"server_id": "node_%d" % s, "device": [
            {"device_id": str(d), "device_ip": "192.168.%d.%d" % (s, d + 1), "rank_id": str(s * per + d)}
            for d in range(per)]})
    return {"status": "completed", "version": "1.0", "server_count": str(servers),
            "server_list": server_list}


def free_port(host):
    """A port free on ``host`` now (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def is_local_address(host):
    """Whether ``host`` is an address of this machine (of its network namespace): a socket can
    be bound to it. EADDRNOTAVAIL or a name that does not resolve: not this machine's."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, 0))
        except socket.gaierror:
            return False
        except OSError as err:
            if err.errno == errno.EADDRNOTAVAIL:
                return False
            raise
    return True


def port_problem(host, port):
    """Why ``host:port`` cannot be listened on, or None. SO_REUSEADDR as servers bind (a
    connection of an earlier job in TIME_WAIT does not count; a listening socket does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as err:
            return "%s:%d cannot be used: %s" % (host, port, err.strerror or err)
    return None


def default_port_base(table_path, job_id):
    key = "%s|%s" % (os.path.realpath(table_path) if table_path else "", job_id or "")
    return 20000 + zlib.crc32(key.encode()) % 20000


def default_job_dir(addresses, job_id):
    """The ranks' notes folder of a job none was given to: in the temporary folder, named from
    the addresses and ``JOB_ID`` (every process of the job on one machine derives the same)."""
    return os.path.join(tempfile.gettempdir(), "npu_bridge_job_%08x" % zlib.crc32(
        ("%s|%s" % (",".join(addresses), job_id or "")).encode()))


def env_int(environ, name, problems):
    raw = str(environ.get(name, "")).strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        problems.append("%s=%r is not an integer" % (name, raw))
        return None


class Job:
    """This process's view of a multi-rank job, from its environment (``from_env``)."""

    def __init__(self, ranks, rank, addresses, job_dir, timeout, table_path):
        self.ranks = ranks              # list of RankInfo, by rank id
        self.rank = rank                # this process's world rank
        self.size = len(ranks)
        self.addresses = addresses      # "host:port" per rank
        self.job_dir = job_dir          # status files shared by the ranks (diagnostics only)
        self.timeout = timeout          # seconds a collective may wait for its peers
        self.table_path = table_path

    @property
    def me(self):
        return self.ranks[self.rank]


def from_env(environ=None):
    """The ``Job`` the environment describes, or None for a one-rank process (``RANK_SIZE``
    unset or 1). Raises ``RankTableError`` when ``RANK_SIZE`` > 1 but the table is missing,
    malformed or disagrees with ``RANK_SIZE`` / ``RANK_ID``, or the addresses are unusable."""
    environ = os.environ if environ is None else environ
    problems = []
    size = env_int(environ, "RANK_SIZE", problems)
    if problems:
        raise RankTableError("job environment", problems)
    if size is None or size <= 1:
        return None
    rank = env_int(environ, "RANK_ID", problems)
    path = str(environ.get("RANK_TABLE_FILE", "")).strip()
    if rank is None and not problems:
        problems.append("RANK_SIZE=%d but RANK_ID is not set" % size)
    if not path:
        problems.append("RANK_SIZE=%d needs RANK_TABLE_FILE (the rank table saying which rank "
                        "runs where); `npu-bridge run --ranks N` writes one" % size)
    if problems:
        raise RankTableError("job environment", problems)
    ranks = load_table(path)
    if len(ranks) != size:
        problems.append("RANK_SIZE=%d but the rank table %s has %d rank(s)" % (size, path, len(ranks)))
    if rank is not None and not 0 <= rank < len(ranks):
        problems.append("RANK_ID=%d is not a rank of the table %s (rank ids 0..%d)"
                        % (rank, path, len(ranks) - 1))
    timeout = DEFAULT_TIMEOUT
    raw = str(environ.get(ENV_TIMEOUT, "")).strip()
    if raw:
        try:
            timeout = float(raw)
            if timeout <= 0:
                raise ValueError
        except ValueError:
            problems.append("%s=%r must be a positive number of seconds" % (ENV_TIMEOUT, raw))
    addresses = None
    listed = str(environ.get(ENV_ADDRESSES, "")).strip()
    if listed:
        addresses = [a.strip() for a in listed.split(",")]
        if len(addresses) != len(ranks):
            problems.append("%s lists %d address(es) for %d rank(s)" % (ENV_ADDRESSES, len(addresses), len(ranks)))
    else:
        base = env_int(environ, ENV_PORT_BASE, problems)
        if base is None:
            base = default_port_base(path, environ.get("JOB_ID"))
        if base + len(ranks) > 65535:
            problems.append("%s=%d leaves no room for %d ports" % (ENV_PORT_BASE, base, len(ranks)))
        addresses = ["%s:%d" % (info.host, base + info.rank) for info in ranks]
    if problems:
        raise RankTableError("job environment", problems)
    job_dir = str(environ.get(ENV_JOB_DIR, "")).strip() or default_job_dir(
        addresses, environ.get("JOB_ID", ""))
    return Job(ranks, rank, addresses, job_dir, timeout, path)
