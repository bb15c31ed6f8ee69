"""`tensorflow.python.data.experimental.ops.threadpool` of TF 1.15, on TF 2.15's dataset options.

TF 1.15 scripts (official ResNet) write `threadpool.override_threadpool(dataset,
threadpool.PrivateThreadPool(n, display_name=...))`; TF 2.15 has the same effect as
`tf.data.Options().threading.private_threadpool_size = n` (the TF 1.15 file's own deprecation
note). `max_intra_op_parallelism` goes to `threading.max_intra_op_parallelism`.
"""


class PrivateThreadPool:
    """A private thread pool size for a dataset (num_threads >= 1)."""

    def __init__(self, num_threads, display_name=None, max_intra_op_parallelism=1):
        if int(num_threads) < 1:
            raise ValueError("PrivateThreadPool: num_threads must be >= 1, got %r" % (num_threads,))
        self.num_threads = int(num_threads)
        self.display_name = display_name or "private_thread_pool"
        self.max_intra_op_parallelism = max_intra_op_parallelism


def override_threadpool(dataset, thread_pool):
    """`dataset` running its ops on `thread_pool`'s number of threads."""
    import tensorflow as tf
    options = tf.data.Options()
    options.threading.private_threadpool_size = thread_pool.num_threads
    if thread_pool.max_intra_op_parallelism is not None:
        options.threading.max_intra_op_parallelism = thread_pool.max_intra_op_parallelism
    return dataset.with_options(options)
