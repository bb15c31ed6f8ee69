"""A rank table of two servers (2 ranks each) across two hosts: two network namespaces this test
makes (a veth pair between them, private addresses of its own; nothing outside them touched)
and removes, `npu-bridge run --rank-table` started once in each, as a user's launcher starts it
once per server. The job trains; a rank killed on one host stops the other host's ranks within
the collective timeout; no process or namespace is left. Skipped, saying why, where namespaces
cannot be made (no root, no `ip`). docs/collectives.md "Several hosts"."""
import json
import os
import random
import shutil
import subprocess
import sys
import time

import pytest

import _pool

from test_ranks import HERE, REPO, _children_of, _full_batch


@pytest.fixture(autouse=True, scope="module")
def _no_background_runs():
    """These tests bound elapsed time: no background run of tests/_pool.py beside them."""
    _pool.wait_early()


TIMEOUT = 20      # --collective-timeout of the fault run (s)


def _ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), capture_output=True, text=True, timeout=30,
                          check=check)


@pytest.fixture
def two_hosts():
    """`(namespace, address)` of two hosts joined by a veth pair; removed afterwards."""
    if shutil.which("ip") is None:
        pytest.skip("two hosts need network namespaces: the `ip` command (iproute2) is missing")
    if os.geteuid() != 0:
        pytest.skip("two hosts need network namespaces, which only root can make here "
                    "(run as root, as CI does)")
    tag = "%d%03d" % (os.getpid() % 100000, random.randrange(1000))
    names = ["npb%sa" % tag, "npb%sb" % tag]
    subnet = "10.%d.%d" % (random.randrange(200, 250), random.randrange(1, 250))
    made = []
    try:
        for ns in names:
            made_ns = _ip("netns", "add", ns, check=False)
            if made_ns.returncode != 0:
                pytest.skip("network namespaces cannot be made here: %s" % made_ns.stderr.strip())
            made.append(ns)
        # the veth pair is created inside the namespaces: the host's own links are never touched
        _ip("link", "add", "v%sa" % tag, "netns", names[0], "type", "veth", "peer", "name",
            "v%sb" % tag, "netns", names[1])
        hosts = []
        for i, ns in enumerate(names):
            address = "%s.%d" % (subnet, i + 1)
            _ip("-n", ns, "addr", "add", address + "/24", "dev", "v%s%s" % (tag, "ab"[i]))
            _ip("-n", ns, "link", "set", "v%s%s" % (tag, "ab"[i]), "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            hosts.append((ns, address))
        yield hosts
    finally:
        for ns in made:
            left = _ip("netns", "pids", ns, check=False).stdout.split()
            for pid in left:   # only if a failed assertion left a rank: the test fails anyway
                subprocess.run(["kill", "-9", pid], check=False)
            _ip("netns", "del", ns, check=False)
        listed = _ip("netns", "list", check=False).stdout
        assert not any(ns in listed for ns in made), listed


def _table(path, hosts):
    servers = []
    for s, (_, address) in enumerate(hosts):
        servers.append({"server_id": "node_%d" % s, "host_ip": address, "device": [
            {"device_id": str(d), "device_ip": "192.168.%d.%d" % (s, d + 1),
             "rank_id": str(2 * s + d)} for d in range(2)]})
    path.write_text(json.dumps({"status": "completed", "version": "1.2",
                                "server_count": "2", "server_list": servers}))
    return str(path)


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    for var in ("RANK_SIZE", "RANK_ID", "DEVICE_ID", "RANK_TABLE_FILE", "CM_WORKER_SIZE",
                "NPU_BRIDGE_PRODUCT", "NPU_BRIDGE_PORT_BASE", "NPU_BRIDGE_RANK_ADDRESSES"):
        env.pop(var, None)
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env.update(extra)
    return env


def _run_on_both(hosts, tmp_path, job, argv, timeout, **env):
    """`npu-bridge run ARGV` once in each namespace at the same time (one JOB_ID, as a
    launcher gives every host); returns [(exit code, output, seconds)] per host."""
    env = _env(JOB_ID="two-hosts-%d-%s" % (os.getpid(), job), **env)
    procs, start = [], time.time()
    for i, (ns, _) in enumerate(hosts):
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "npu_bridge", "run",
               "--report", str(tmp_path / ("host%d.json" % i))] + argv
        procs.append(subprocess.Popen(cmd, cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    out = []
    try:
        for proc in procs:
            text, _ = proc.communicate(timeout=max(1.0, timeout - (time.time() - start)))
            out.append((proc.returncode, text, time.time() - start))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for proc in procs:
        assert not _children_of(proc.pid)
    for ns, _ in hosts:
        assert _ip("netns", "pids", ns).stdout.split() == [], ns   # no process left in it
    return out


def test_two_hosts_train_and_a_killed_rank_stops_the_other_host(two_hosts, tmp_path):
    import numpy as np
    table = _table(tmp_path / "two_servers.json", two_hosts)
    results = _run_on_both(two_hosts, tmp_path, "train", ["--rank-table", table,
                                                          "--collective-timeout", "60", os.path.join(HERE, "train_check.py")],
                           600, RANKS_OUT=str(tmp_path), RANKS_PARTS="session")
    for code, text, _ in results:
        assert code == 0, text
        assert "npu-bridge run --ranks 4 (this host: 2)" in text, text
    reports = [json.load(open(tmp_path / ("host%d.json" % i))) for i in range(2)]
    assert [[r["rank"] for r in rep["ranks"]] for rep in reports] == [[0, 1], [2, 3]]
    assert [r["address"].rsplit(":", 1)[0] for rep in reports for r in rep["ranks"]] == \
        [two_hosts[0][1]] * 2 + [two_hosts[1][1]] * 2
    w_ref, b_ref = _full_batch()
    trained = [json.load(open(tmp_path / ("rank%d.json" % r))) for r in range(4)]
    for r in range(4):   # gradients averaged across the hosts: one process' full batch
        np.testing.assert_allclose(trained[r]["session"]["w"], w_ref, atol=1e-6, rtol=0)
        np.testing.assert_allclose(trained[r]["session"]["b"], b_ref, atol=1e-6, rtol=0)
        assert trained[r]["allreduce_mean"] == [1.5]

    # rank 3 (second host) is killed after the first allreduce
    results = _run_on_both(two_hosts, tmp_path, "kill", ["--rank-table", table,
                                                         "--collective-timeout", str(TIMEOUT), os.path.join(HERE, "host_kill_check.py")],
                           600, RANKS_OUT=str(tmp_path))
    (code_a, text_a, _), (code_b, text_b, _) = results
    assert code_a == 1, text_a                   # host A's ranks: their collective failed
    assert code_b == 128 + 9, text_b             # host B: its worst rank, killed by SIGKILL
    for rank in (0, 1, 2):                       # every surviving rank, both hosts, in time
        took, message = (tmp_path / ("error%d.txt" % rank)).read_text().split("\n", 1)
        assert float(took) < TIMEOUT + 2, (rank, took, message)
    ended = {r["rank"]: r["ended"] for i in range(2)
             for r in json.load(open(tmp_path / ("host%d.json" % i)))["ranks"]}
    assert ended == {0: "exit code 1", 1: "exit code 1", 2: "exit code 1",
                     3: "killed by SIGKILL"}, ended
    assert "rank 3 ended (killed by SIGKILL)" in text_b, text_b
