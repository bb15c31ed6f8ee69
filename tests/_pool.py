"""Subprocess runs started together, two at a time (the machine has 2 cores; each run is a
TensorFlow start-up of 5-15 s, mostly one core's work), instead of one after another.

`together(*calls)`: independent runs one test makes, at once; their results in order.
`prestart(request, tmp_path_factory, jobs, needs)`: for a module fixture: the runs the
*selected* tests of the module need, started the first time a test asks for one; each test then
reads its own results (a run several tests read is started once). Every run bounds its own time
(its `timeout=`); the pool is shut down only when every run has ended, so nothing is left behind.

Early start: a module that sets `EARLY_RUNS = (jobs, needs)` has its runs started by
tests/conftest.py when collection ends, one at a time in the background, so that they use the
core the in-process tests (one core) leave idle; when the module's fixture calls `prestart`, the
runs not begun yet move to its own two-at-a-time pool. Modules whose tests bound elapsed time
call `wait_early()` first (an autouse fixture), so no background run competes with them.
A background run must not read os.environ when it runs (a test may have monkeypatched it):
its module takes the environment once, at import.
"""
import concurrent.futures

WORKERS = 2
_EARLY = {}   # (module name, job name) -> future, of the background pool
_EARLY_POOL = []


def together(*calls):
    """The results of the argument-less `calls`, run at most WORKERS at a time, in order; the
    first exception of a call is raised (after every call has ended)."""
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(call) for call in calls]
    return [f.result() for f in futures]


class Started:
    """name -> the result of the run `name` (waits for it; raises what the run raised)."""

    def __init__(self, futures):
        self._futures = futures

    def __getitem__(self, name):
        if name not in self._futures:
            raise KeyError("run %r was not started: add it to the test's needs" % name)
        return self._futures[name].result()


def _wanted(items, module, needs, jobs):
    wanted = []
    for item in items:
        if getattr(item, "module", None) is module:
            wanted += [name for name in needs(item) if name not in wanted]
    unknown = [name for name in wanted if name not in jobs]
    assert not unknown, unknown
    return wanted


def _tmp(tmp_path_factory, name):
    return tmp_path_factory.mktemp(name.replace("/", "_").replace(" ", "_")[:40])


def prestart(request, tmp_path_factory, jobs, needs):
    """Generator for a module-scoped fixture. `jobs`: name -> fn(tmp_dir) (a pathlib.Path of its
    own); `needs(item)`: the job names the test item reads. Yields a `Started`."""
    wanted = _wanted(request.session.items, request.module, needs, jobs)
    pool = concurrent.futures.ThreadPoolExecutor(WORKERS)
    futures = {}
    try:
        for name in wanted:
            early = _EARLY.get((request.module.__name__, name))
            if early is not None and (early.running() or early.done() or not early.cancel()):
                futures[name] = early   # begun (or ended) in the background
            else:
                futures[name] = pool.submit(jobs[name], _tmp(tmp_path_factory, name))
        yield Started(futures)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def start_early(session):
    """Start in the background (one at a time) the runs of every module with EARLY_RUNS that
    the session's selected tests need; only when other tests run beside them."""
    if session.config.option.collectonly:
        return
    modules = []
    for item in session.items:
        module = getattr(item, "module", None)
        if getattr(module, "EARLY_RUNS", None) and module not in modules:
            modules.append(module)
    if not modules or all(getattr(item, "module", None) in modules for item in session.items):
        return
    factory = session.config._tmp_path_factory   # pylint: disable=protected-access  (tmp_path_factory's own)
    pool = concurrent.futures.ThreadPoolExecutor(1)
    _EARLY_POOL.append(pool)
    for module in modules:
        jobs, needs = module.EARLY_RUNS
        for name in _wanted(session.items, module, needs, jobs):
            _EARLY[(module.__name__, name)] = pool.submit(jobs[name], _tmp(factory, name))


def wait_early():
    """Block until every background run has ended (or was cancelled)."""
    concurrent.futures.wait(list(_EARLY.values()))


def stop_early():
    """Cancel the background runs not begun; wait for the one running (its timeout bounds it)."""
    for pool in _EARLY_POOL:
        pool.shutdown(wait=True, cancel_futures=True)
