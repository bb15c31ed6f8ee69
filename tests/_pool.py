"""Subprocess runs started together, two at a time (the machine has 2 cores; each run is a
TensorFlow start-up of 5-15 s, mostly one core's work), instead of one after another.

`together(*calls)`: independent runs one test makes, at once; their results in order.
`prestart(request, tmp_path_factory, jobs, needs)`: for a module fixture: the runs the
*selected* tests of the module need, started the first time a test asks for one; each test then
reads its own results (a run several tests read is started once). Every run bounds its own time
(its `timeout=`); the pool is shut down only when every run has ended, so nothing is left behind.
"""
import concurrent.futures

WORKERS = 2


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


def prestart(request, tmp_path_factory, jobs, needs):
    """Generator for a module-scoped fixture. `jobs`: name -> fn(tmp_dir) (a pathlib.Path of its
    own); `needs(item)`: the job names the test item reads. Yields a `Started`."""
    wanted = []
    for item in request.session.items:
        if item.module is request.module:
            wanted += [name for name in needs(item) if name not in wanted]
    unknown = [name for name in wanted if name not in jobs]
    assert not unknown, unknown
    pool = concurrent.futures.ThreadPoolExecutor(WORKERS)
    futures = {}
    try:
        for name in wanted:
            tmp = tmp_path_factory.mktemp(name.replace("/", "_").replace(" ", "_")[:40])
            futures[name] = pool.submit(jobs[name], tmp)
        yield Started(futures)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
