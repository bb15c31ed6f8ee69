"""`npu-bridge run --ranks N`: one worker process per rank on this machine (no TensorFlow).
Notes: docs/design.md "Module notes"; docs/collectives.md.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from hccl.manage import ranktable as _ranks

GRACE = 15.0          # seconds after the collective timeout before the launcher stops a rank
STOP_WAIT = 5.0       # SIGTERM -> SIGKILL


class LaunchError(ValueError):
    """The job cannot start (bad rank table, a port in use, bad --ranks / --hosts)."""


def plan(ranks, table_path=None, hosts=None):
    """``(RankInfo list, table path or None, table dict or None)``: from the given table (its
    size must equal ``ranks`` when both are given), else a generated version 1.0 table of
    ``ranks`` ranks over ``len(hosts)`` servers (default one). Raises ``LaunchError``."""
    if table_path:
        try:
            infos = _ranks.load_table(table_path, hosts)
        except _ranks.RankTableError as err:
            raise LaunchError(str(err)) from None
        if ranks is not None and ranks != len(infos):
            raise LaunchError("--ranks %d but the rank table %s has %d rank(s)" % (ranks, table_path, len(infos)))
        return infos, os.path.abspath(table_path), None
    if ranks is None or ranks < 1:
        raise LaunchError("--ranks must be a positive number of ranks, got %r" % (ranks,))
    try:
        table = _ranks.generate_table(ranks, len(hosts) if hosts else 1)
        infos = _ranks.parse_table(table, "generated rank table", hosts)
    except (ValueError, _ranks.RankTableError) as err:
        raise LaunchError(str(err)) from None
    return infos, None, table


def choose_addresses(infos):
    """A free port per rank on its server's address (``LaunchError`` naming one that is not
    usable, e.g. a non-local address)."""
    out, problems = [], []
    for info in infos:
        try:
            out.append("%s:%d" % (info.host, _ranks.free_port(info.host)))
        except OSError as err:
            problems.append("rank %d: cannot listen on %s (server %r): %s"
                            % (info.rank, info.host, info.server_id, err.strerror or err))
    if problems:
        raise LaunchError("the ranks' TensorFlow servers cannot start:\n  - " + "\n  - ".join(problems))
    return out


def local_ranks(infos):
    """The ranks whose server address is one of this machine's (``is_local_address``); all of
    them on one machine (loopback addresses). ``LaunchError`` when none is."""
    local = [info for info in infos if _ranks.is_local_address(info.host)]
    if not local:
        raise LaunchError("no server of the rank table has an address of this machine (%s): "
                          "start `npu-bridge run` on each server's host, or give --hosts"
                          % ", ".join(sorted({"%s %s" % (i.server_id, i.host) for i in infos})))
    return local


def host_addresses(infos, local, table_path):
    """``(JOB_ID, addresses)`` when this host runs only some ranks (one launcher per host): every
    host must derive the same ports, ``NPU_BRIDGE_PORT_BASE`` + rank, the base defaulting to the
    one of the table path and ``JOB_ID`` (as ranks started without the launcher do), so ``JOB_ID``
    (or the base) must be set alike on every host. ``LaunchError`` when neither is set or a
    local port is not usable."""
    job_id = os.environ.get("JOB_ID", "").strip()
    base_text = os.environ.get(_ranks.ENV_PORT_BASE, "").strip()
    if not job_id and not base_text:
        raise LaunchError("the rank table's servers are on several hosts (this one runs rank(s) "
                          "%s): set JOB_ID (or %s) alike for `npu-bridge run` on every host, so "
                          "they agree on the ports" % ([i.rank for i in local], _ranks.ENV_PORT_BASE))
    problems = []
    base = _ranks.env_int(os.environ, _ranks.ENV_PORT_BASE, problems)
    if base is None and not problems:
        base = _ranks.default_port_base(table_path, job_id)
    if problems or base + len(infos) > 65535:
        raise LaunchError("%s=%r leaves no room for %d ports" % (_ranks.ENV_PORT_BASE, base_text,
                                                                 len(infos)))
    addresses = ["%s:%d" % (info.host, base + info.rank) for info in infos]
    for info in local:
        problem = _ranks.port_problem(info.host, base + info.rank)
        if problem:
            problems.append("rank %d: %s (choose others with %s)" % (info.rank, problem,
                                                                     _ranks.ENV_PORT_BASE))
    if problems:
        raise LaunchError("the ranks' TensorFlow servers cannot start:\n  - " + "\n  - ".join(problems))
    return job_id or "npu-bridge-%d" % os.getpid(), addresses


def _rank_env(info, size, table_path, addresses, job_dir, timeout, job_id):
    env = dict(os.environ)
    for key in ("LOCAL_RANK_SIZE", "LOCAL_RANK_ID", "CM_WORKER_SIZE", _ranks.ENV_PORT_BASE):
        env.pop(key, None)
    env.update({
        "RANK_SIZE": str(size), "RANK_ID": str(info.rank), "DEVICE_ID": str(info.device_id),
        "ASCEND_DEVICE_ID": str(info.device_id), "DEVICE_INDEX": str(info.device_id),
        "RANK_TABLE_FILE": table_path, "JOB_ID": job_id,
        _ranks.ENV_ADDRESSES: ",".join(addresses), _ranks.ENV_JOB_DIR: job_dir,
        _ranks.ENV_TIMEOUT: repr(float(timeout)), _ranks.ENV_CHILD: "1",
        "PYTHONUNBUFFERED": "1",
    })
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


TAIL = 20   # output lines of each rank kept for the report


def _pump(stream, prefix, out, lock, tail):
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace")
        tail.append(line.rstrip("\n"))
        if len(tail) > TAIL:
            del tail[0]
        with lock:
            try:
                out.write(prefix + line if line.endswith("\n") else prefix + line + "\n")
                out.flush()
            except (OSError, ValueError):
                pass
    stream.close()


def _describe(code):
    if code is None:
        return "still running"
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit code %d" % code


def exit_status(code):
    """A rank's return code as a shell exit status (a signal N: 128 + N)."""
    return 128 - code if code < 0 else code


def _stop(procs, sig):
    for proc in procs:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


class Job:
    """The processes of one launch (``start`` then ``wait``)."""

    def __init__(self, ranks, script, script_args, table_path=None, hosts=None, timeout=None,
                 child_args=(), report_dir=None):
        self.infos, given, table = plan(ranks, table_path, hosts)
        self.size = len(self.infos)
        self.timeout = float(timeout or _ranks.DEFAULT_TIMEOUT)
        self.job_dir = tempfile.mkdtemp(prefix="npu_bridge_job_")
        self.notes_dir = self.job_dir   # the ranks' NPU_BRIDGE_JOB_DIR
        if given is None:
            given = os.path.join(self.job_dir, "rank_table.json")
            with open(given, "w", encoding="utf-8") as fh:
                json.dump(table, fh, indent=2)
        self.table_path = given
        try:
            self.local = local_ranks(self.infos)
            if len(self.local) == self.size:
                self.job_id = "npu-bridge-%d" % os.getpid()
                self.addresses = choose_addresses(self.infos)
            else:   # one launcher per host: the ports every host derives alike
                self.job_id, self.addresses = host_addresses(self.infos, self.local,
                                                             self.table_path)
                # the ranks' notes (start and exit barriers): a folder the hosts may share
                self.notes_dir = os.environ.get(_ranks.ENV_JOB_DIR, "").strip() or \
                    _ranks.default_job_dir(self.addresses, self.job_id)
        except LaunchError:
            shutil.rmtree(self.job_dir, ignore_errors=True)
            raise
        self.script, self.script_args = script, list(script_args)
        self.child_args = list(child_args)
        self.report_dir = report_dir or self.job_dir
        self.procs, self.threads, self.codes, self.ended_at = [], [], {}, {}
        self.tails = {info.rank: [] for info in self.local}
        self.lock = threading.Lock()
        self.messages = []
        # set by the signal handlers of `run`: wait() stops the job at its next turn. A
        # KeyboardInterrupt raised by the handler itself could land inside Popen.poll() between
        # acquiring and releasing its _waitpid_lock, and the later Popen.wait() would hang.
        self.interrupt = threading.Event()
        self.signal = None   # the first signal that interrupted the job

    def report_path(self, rank):
        return os.path.join(self.report_dir, "rank%d.report.json" % rank)

    def start(self):
        for info in self.local:
            env = _rank_env(info, self.size, self.table_path, self.addresses, self.notes_dir,
                            self.timeout, self.job_id)
            cmd = ([sys.executable, "-m", "npu_bridge", "run", "--report", self.report_path(info.rank)]
                   + self.child_args + [self.script] + self.script_args)
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
            self.procs.append(proc)
            for stream, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
                t = threading.Thread(target=_pump, args=(stream, "[rank %d] " % info.rank, out, self.lock,
                                                         self.tails[info.rank]), daemon=True)
                t.start()
                self.threads.append(t)

    def _note_exit(self, rank, code):
        self.codes[rank] = code
        self.ended_at[rank] = time.time()
        try:
            with open(os.path.join(self.notes_dir, "rank%d.exit" % rank), "a", encoding="utf-8") as fh:
                fh.write(_describe(code) + "\n")
        except OSError:
            pass

    def _say(self, text):
        self.messages.append(text)
        with self.lock:
            print("npu-bridge run: " + text, file=sys.stderr, flush=True)

    def wait(self):
        """Wait for every rank (stopping the others after a failure, as documented); returns
        {rank: return code}."""
        deadline, failed = None, None
        try:
            while len(self.codes) < len(self.local):
                if self.interrupt.is_set():
                    raise KeyboardInterrupt
                for info, proc in zip(self.local, self.procs):
                    if info.rank in self.codes:
                        continue
                    code = proc.poll()
                    if code is None:
                        continue
                    self._note_exit(info.rank, code)
                    if code != 0 and failed is None:
                        failed = info.rank
                        deadline = time.time() + self.timeout + GRACE
                        if len(self.codes) < len(self.local):
                            self._say("rank %d ended (%s); the other ranks stop within %g s"
                                      % (info.rank, _describe(code), self.timeout + GRACE))
                if deadline is not None and time.time() > deadline and \
                        len(self.codes) < len(self.local):
                    left = [i.rank for i in self.local if i.rank not in self.codes]
                    self._say("stopping rank(s) %s: rank %d ended (%s) and they did not finish within "
                              "--collective-timeout %g s + %g s" % (left, failed, _describe(self.codes[failed]),
                                                                    self.timeout, GRACE))
                    self.stop()
                time.sleep(0.05)
        except KeyboardInterrupt:
            got = self.signal or signal.SIGINT
            self._say("interrupted: stopping every rank" if got == signal.SIGINT else
                      "stopped by %s: stopping every rank" % signal.Signals(got).name)
            self.stop(signal.SIGINT)
            raise
        finally:
            self.stop()
            for t in self.threads:
                t.join(timeout=5)
        return dict(self.codes)

    def stop(self, first=signal.SIGTERM):
        """Signal every running rank's process group, then SIGKILL what is left; reap all."""
        _stop(self.procs, first)
        end = time.time() + STOP_WAIT
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.0, end - time.time()))
            except subprocess.TimeoutExpired:
                pass
        _stop(self.procs, signal.SIGKILL)
        for info, proc in zip(self.local, self.procs):
            proc.wait()
            if info.rank not in self.codes:
                self._note_exit(info.rank, proc.returncode)
        # a rank's own children (same process group) too
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def rank_reports(self):
        out = {}
        for info in self.local:
            try:
                with open(self.report_path(info.rank), encoding="utf-8") as fh:
                    out[info.rank] = json.load(fh)
            except (OSError, ValueError):
                out[info.rank] = None
        return out

    def built_count(self, rank):
        """How many collectives the rank built (its note in the job folder)."""
        try:
            with open(os.path.join(self.notes_dir, "rank%d.built" % rank), encoding="utf-8") as fh:
                return sum(1 for line in fh if line.strip())
        except OSError:
            return 0

    def failed_at(self, rank):
        """When the rank's script failed: the time in its `crashed` note (written by its exit
        barrier, `npu_bridge.hooks.cluster`, as soon as the script ended with an exception),
        else when its process ended."""
        try:
            with open(os.path.join(self.job_dir, "rank%d.crashed" % rank), encoding="utf-8") as fh:
                return float(fh.readline().split(" ", 1)[0])
        except (OSError, ValueError):
            return self.ended_at.get(rank, float("inf"))

    def cleanup(self):
        shutil.rmtree(self.job_dir, ignore_errors=True)
        if self.notes_dir != self.job_dir:   # a folder other hosts' ranks may still use
            for info in self.local:
                for name in ("ready", "built", "done", "crashed", "failed", "exit"):
                    try:
                        os.remove(os.path.join(self.notes_dir, "rank%d.%s" % (info.rank, name)))
                    except OSError:
                        pass
            try:
                os.rmdir(self.notes_dir)   # the last host's launcher removes it
            except OSError:
                pass


def _option_differences(reports):
    """GE options whose values differ across ranks: [{configuration, level, option, values}],
    configurations matched by their position in each rank's report."""
    out = []
    longest = max((len(r["configurations"]) for r in reports.values() if r), default=0)
    for index in range(longest):
        per_rank = {rank: r["configurations"][index] for rank, r in reports.items()
                    if r and index < len(r["configurations"])}
        levels = sorted({lv for conf in per_rank.values() for lv in conf.get("options", {})})
        for level in levels:
            keys = sorted({k for conf in per_rank.values() for k in conf["options"].get(level, {})})
            for key in keys:
                values = {rank: conf["options"].get(level, {}).get(key) for rank, conf in per_rank.items()}
                if len({json.dumps(v, sort_keys=True) for v in values.values()}) > 1:
                    out.append({"configuration": index + 1, "level": level, "option": key,
                                "values": {str(r): v for r, v in sorted(values.items())}})
    return out


RANK_LISTS = ("not_planned", "not_partitioned", "not_captured", "notes")   # strings per rank


def merged_report(job, codes, exit_code, base):
    """The job's report: ``base`` (a one-process report skeleton from ``report.build_run_report``)
    with every rank's configurations (named ``rank N: ...``), summed counts, and ``ranks``:
    per rank its exit code, how it ended, the collectives it built, its last output lines and
    its own report (None when it was killed before writing one); ``rank_differences``: the GE
    options the ranks resolved differently. Every rank's ``unattached`` (each with its
    ``rank``) and ``RANK_LISTS`` (each item ``rank N: ...``, as its configurations are named),
    then the launcher's own notes."""
    reports = job.rank_reports()
    configurations, totals = [], {"configurations": 0, "refused": 0, "errors": 0, "warnings": 0, "infos": 0}
    uncaught = []   # (when the rank ended, rank, its uncaught exception with merged indexes)
    unattached = []   # each rank's findings no configuration came for, with its rank
    # each rank's graphs not planned or partitioned, runs not captured, notes: `rank N: ...`
    listed = {key: [] for key in RANK_LISTS}
    for rank in sorted(reports):
        rep = reports[rank]
        if not rep:
            continue
        unc = (rep.get("outcome") or {}).get("uncaught")
        if unc:
            unc = dict(unc, rank=rank)
            if unc.get("configuration"):
                unc["configuration"] += len(configurations)
            uncaught.append((job.failed_at(rank), rank, unc))
        unattached.extend(dict(d, rank=rank) for d in rep.get("unattached", ()))
        for key, items in listed.items():
            items.extend("rank %d: %s" % (rank, item) for item in rep.get(key, ()))
        for conf in rep["configurations"]:
            conf = dict(conf)
            conf["rank"] = rank
            conf["index"] = len(configurations) + 1
            conf["name"] = "rank %d: %s" % (rank, conf.get("name"))
            configurations.append(conf)
        for key in totals:
            totals[key] += rep["summary"].get(key, 0)
    base["summary"] = totals
    base["configurations"] = configurations
    base["unattached"] = unattached
    base.update((key, items + list(base.get(key, ()))) for key, items in listed.items())
    base["outcome"]["exit_code"] = exit_code
    base["outcome"]["script_exit_code"] = max((exit_status(c) for c in codes.values()), default=0)
    # the exception of the rank that failed first (`failed_at`: the others' often follow from
    # it, a collective timing out without it); every rank's is in its own report (`ranks`)
    base["outcome"]["uncaught"] = min(uncaught, key=lambda u: u[:2])[2] if uncaught else None
    base["ranks"] = [{"rank": info.rank, "server": info.server_id, "device_id": info.device_id,
                      "address": job.addresses[info.rank], "exit_code": exit_status(codes.get(info.rank, 0)),
                      "ended": _describe(codes.get(info.rank)),
                      "collectives_built": job.built_count(info.rank),
                      "output_tail": list(job.tails.get(info.rank, ())),
                      "report": reports.get(info.rank)} for info in job.local]
    base["rank_differences"] = _option_differences(reports)
    base["notes"] = base["notes"] + job.messages
    return base


def worst(codes):
    """The job's exit code: the worst rank's (the highest shell status)."""
    return max((exit_status(c) for c in codes.values()), default=0)


REPLACED_ENV = ("RANK_TABLE_FILE", "RANK_SIZE", "RANK_ID")


def replaced_environment(environ, table_path, size):
    """One line naming the variables of `environ` the launcher sets for each rank anyway
    (`REPLACED_ENV`, `_rank_env`), and, when it generates the table (`table_path` None), how
    to use the user's own (`--rank-table FILE`); "" when none is set."""
    set_ = [(k, environ[k]) for k in REPLACED_ENV if environ.get(k, "").strip()]
    if not set_:
        return ""
    text = "%s of the environment %s replaced" % (
        ", ".join("%s=%s" % kv for kv in set_), "is" if len(set_) == 1 else "are")
    if table_path:
        return text + " (the rank table %s)" % table_path
    text += " (a generated table of %d rank%s)" % (size, "" if size == 1 else "s")
    user_table = environ.get("RANK_TABLE_FILE", "").strip()
    if user_table:
        text += "; to use your table: npu-bridge run --rank-table %s" % user_table
    return text


def run_job(args, report_path):
    """`npu-bridge run --ranks N ...` (``args`` from the command line; ``report_path`` checked
    by the caller, or None). Prints the merged summary; returns the exit code."""
    from npu_bridge.tools import report
    child_args = (["--product", args.product] if args.product else []) + (["--strict"] if args.strict else [])
    hosts = [h.strip() for h in args.hosts.split(",")] if args.hosts else None
    job = Job(args.ranks, args.script, args.args, table_path=args.rank_table, hosts=hosts,
              timeout=args.collective_timeout, child_args=child_args)
    note = replaced_environment(os.environ, args.rank_table, job.size)
    if note:
        job._say(note)   # pylint: disable=protected-access
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}

    def on_signal(signum, frame):
        if job.signal is None:
            job.signal = signum
        job.interrupt.set()   # acted on by job.wait() (see Job.interrupt)

    interrupted = False
    try:
        for sig in old:
            signal.signal(sig, on_signal)
        job.start()
        codes = job.wait()
    except KeyboardInterrupt:
        interrupted = True
        codes = dict(job.codes)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    stopped = (job.signal or signal.SIGINT) if interrupted else None
    code = 128 + stopped if interrupted else worst(codes)
    base = report.build_run_report(
        script=os.path.abspath(args.script), argv=[args.script] + list(args.args), cwd=os.getcwd(),
        product=args.product, strict=args.strict,
        environment_set={"RANK_SIZE": str(job.size), "RANK_TABLE_FILE": job.table_path},
        records=[], script_exit_code=code, exit_code=code,
        signal=signal.Signals(stopped).name if stopped else None)
    data = merged_report(job, codes, code, base)
    if not code and (data["summary"]["errors"] or (args.strict and data["summary"]["warnings"])):
        code = 1
        data["outcome"]["exit_code"] = code
    lines = ["npu-bridge run --ranks %d%s: %s" % (job.size, "" if len(job.local) == job.size
                                                   else " (this host: %d)" % len(job.local), ", ".join(
        "rank %d %s" % (r["rank"], r["ended"]) for r in data["ranks"]))]
    summary = report.summary_lines(data)
    lines.extend(line for line in summary if not line.startswith("exit code"))
    for diff in data["rank_differences"]:
        lines.append("ranks resolved %s option %s of configuration %d differently: %s" % (
            diff["level"], diff["option"], diff["configuration"],
            ", ".join("rank %s=%r" % kv for kv in diff["values"].items())))
    if report_path is not None:
        try:
            report.write_report(report_path, data)
            lines.append("report: %s" % report_path)
        except OSError as err:
            lines.append("report NOT written: %s" % err)
            code = code or 1
    lines.append("exit code: %d" % code)
    print("\n".join(lines), file=sys.stderr, flush=True)
    job.cleanup()
    return code
