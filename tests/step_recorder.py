"""A session hook the estimator tests share (on the path through pytest.ini `pythonpath`)."""
import tensorflow as tf


class StepRecorder(tf.compat.v1.train.SessionRunHook):
    """Records the global step after every run."""

    def __init__(self):
        self.steps = []

    def begin(self):
        self._step = tf.compat.v1.train.get_global_step()

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_context.session.run(self._step)))
