"""Session-run hooks of the Ascend estimator on stock TensorFlow (the real class names and
signatures). Notes: docs/design.md "Module notes".
"""
import os

import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2

from npu_bridge.estimator.npu import util

_NPU_RUNCONFIG = util._NPU_RUNCONFIG  # pylint: disable=protected-access
_ITERATIONS_PER_LOOP_VAR = util._ITERATIONS_PER_LOOP_VAR  # pylint: disable=protected-access
_LOOP_COND_VAR = util._LOOP_COND_VAR  # pylint: disable=protected-access
_CONST_ZERO = util._CONST_ZERO  # pylint: disable=protected-access
_CONST_ONE = util._CONST_ONE  # pylint: disable=protected-access

_logging = tf.compat.v1.logging
_INFO = 20  # logging.INFO

for _name in (_ITERATIONS_PER_LOOP_VAR, _LOOP_COND_VAR, _CONST_ZERO, _CONST_ONE):
    util.register_func(_name)


def _rank_size():
    size = util.get_ranksize()
    return int(size) if size.isdigit() else 1


class NPUShutDownHook(tf.compat.v1.train.SessionRunHook):
    """Runs the NPU shutdown op when the session ends."""

    def __init__(self, scaffold=None):
        super().__init__()
        self._scaffold = scaffold
        self._shutdown_npu_op = None

    def begin(self):
        from npu_bridge.estimator import npu_ops  # the ops layer; late to keep imports one-way
        if self._shutdown_npu_op is None or \
                self._shutdown_npu_op.graph is not tf.compat.v1.get_default_graph():
            make = getattr(npu_ops, "NPUShutdown", None) or npu_ops.shutdown_system
            self._shutdown_npu_op = make()

    def end(self, session):
        _logging.info("NPUShutDownHook run...")
        session.run(self._shutdown_npu_op)


def broadcast_global_variables(root_rank):
    """An op that sets every trainable variable to its value on rank `root_rank` (hccl
    broadcast, then assign)."""
    from npu_bridge.hccl import hccl_ops
    op_list = []
    for var in tf.compat.v1.trainable_variables():
        outputs = hccl_ops.broadcast(tensor=[var], root_rank=root_rank)
        if outputs is not None:
            op_list.append(outputs[0].op)
            op_list.append(tf.compat.v1.assign(var, outputs[0]))
    return tf.group(op_list)


class NPUBroadcastGlobalVariablesHook(tf.compat.v1.train.SessionRunHook):
    """Broadcasts the trainable variables from `root_rank` once the session exists, so every
    rank starts from the same weights. With one rank ($RANK_SIZE unset or 1) it does nothing.

    Args:
      root_rank: rank (int) whose values are sent.
      index: this process's rank id (int), kept for compatibility.
    Raises:
      ValueError: both RANK_SIZE and CM_WORKER_SIZE are set.
    """

    def __init__(self, root_rank=None, index=None):
        self._root_rank = root_rank
        self._index = index
        self._bcast_op = None
        self._rank_size = _rank_size()

    def begin(self):
        if self._rank_size > 1 and (self._bcast_op is None or
                                    self._bcast_op.graph is not tf.compat.v1.get_default_graph()):
            self._bcast_op = broadcast_global_variables(self._root_rank)

    def after_create_session(self, session, coord):
        if self._rank_size > 1:
            _logging.info("NPUBroadcastGlobalVariablesHook run...")
            session.run(self._bcast_op)


class NPUCheckpointSaverHook(tf.compat.v1.train.CheckpointSaverHook):
    """`tf.compat.v1.train.CheckpointSaverHook` that also logs the global step after each run
    (the real hook's behaviour); same arguments. Steps are global steps, so with
    iterations_per_loop N it sees the step advance by N per run."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        super().__init__(checkpoint_dir=checkpoint_dir, save_secs=save_secs,
                         save_steps=save_steps, saver=saver,
                         checkpoint_basename=checkpoint_basename, scaffold=scaffold,
                         listeners=listeners)

    def after_run(self, run_context, run_values):
        # The real hook reads the global step with an extra Session.run after every step only
        # to log it; that run costs as much as a small model's step on the CPU, so it is done
        # only when the INFO line would actually be emitted (bench/RESULTS.md).
        if tf.get_logger().isEnabledFor(_INFO):
            global_step = run_context.session.run(self._global_step_tensor)
            _logging.info("global_step...%s", global_step)
        super().after_run(run_context, run_values)

    def end(self, session):
        _logging.info("NPUCheckpointSaverHook end...")
        super().end(session)


class SetIterationsVarHook(tf.compat.v1.train.SessionRunHook):
    """Creates the loop variables and loads `iterations_per_loop` - 1 into them when the
    session is created (the device reads them). The CPU loop itself is driven by the loop-op
    registry of `util`, filled by `NPUEstimator`."""

    def __init__(self, iterations_per_loop=None):
        self._iterations_per_loop = iterations_per_loop
        self._iterations_per_loop_var = None
        self._const_one = None
        self._const_zero = None
        self._loop_cond_var = None

    def begin(self):
        self._iterations_per_loop_var = util.create_or_get_var(_ITERATIONS_PER_LOOP_VAR)
        self._loop_cond_var = util.create_or_get_var(_LOOP_COND_VAR)
        self._const_zero = util.create_or_get_var(_CONST_ZERO)
        self._const_one = util.create_or_get_var(_CONST_ONE)

    def after_create_session(self, session, coord):
        self._iterations_per_loop_var.load(self._iterations_per_loop - 1, session=session)
        self._loop_cond_var.load(0, session=session)
        self._const_zero.load(0, session=session)
        self._const_one.load(1, session=session)
        _logging.info("load iterations_per_loop value: %d", self._iterations_per_loop)


class _LoopStopAtStepHook(tf.compat.v1.train.StopAtStepHook):
    """`StopAtStepHook` for a train op run in loops (`NPUEstimator` with iterations_per_loop
    N > 1 uses it for `train(steps=..., max_steps=...)`, as TPUEstimator does for its loops,
    and for the user's own `StopAtStepHook`s): when the steps to run are not a multiple of N
    (NPB124), before each run every loop op registered in the graph
    (`util.register_loop_op`) is set to min(N, steps left), so the last loop runs only the
    steps left and training ends exactly at the last step. A multiple of N keeps full loops of
    N, as the NPU's device loop: steps that leave the global step unchanged (an update a
    loss-scale overflow skipped) are followed by more full loops, not by a shortened one.
    The registered counts are restored at the end.

    The last step is the smallest of its own bound (`num_steps`/`last_step`, which may both be
    None when it only follows other hooks) and those of the `StopAtStepHook`s it follows
    (`stop_hooks`, see `following`). Those keep running their own code (they request the stop
    at their step, which the shortened loop ends on); this hook only reads their bound. Its
    own configuration is not changed by a session, so it can be reused.

    The step before a run is known without an extra Session.run while a full loop surely fits:
    the global step read in the previous run (in its last iteration, before or after that
    iteration's increment) plus one bounds it from above. Near the last step it is read
    exactly, as `StopAtStepHook` does.
    """

    def __init__(self, num_steps=None, last_step=None, record=None, stop_hooks=()):
        self._stop_hooks = tuple(stop_hooks)
        if num_steps is None and last_step is None and self._stop_hooks:
            # No bound of its own (StopAtStepHook's constructor refuses that): the followed
            # hooks give it.
            tf.compat.v1.train.SessionRunHook.__init__(self)
            self._num_steps = self._last_step = None
        else:
            super().__init__(num_steps=num_steps, last_step=last_step)
        self._record = record  # the estimator's configuration record (npu_bridge.ge.records)
        self._loops = {}       # loop op -> its registered N
        self._counts = {}      # loop op -> the count set for the next run
        self._max_loop = 1
        self._start = None     # the global step when the session was created
        self._step = None      # the global step before the next run (an upper bound)
        self._end = None       # the last step of this session (None: not resolved yet)
        self._end_by = None    # what set it (for NPB124)
        self._shorten = False  # the last loop runs only the steps left (not a multiple of N)

    def following(self, stop_hooks):
        """A new hook with this one's bound that also stops at the steps of `stop_hooks`
        (StopAtStepHook instances)."""
        return _LoopStopAtStepHook(self._num_steps, self._last_step, self._record,
                                   self._stop_hooks + tuple(stop_hooks))

    def begin(self):
        super().begin()
        self._loops = dict(util.loop_ops_of(tf.compat.v1.get_default_graph()) or {})
        self._counts = dict(self._loops)
        self._max_loop = max(self._loops.values(), default=1)

    def after_create_session(self, session, coord):
        # Unlike StopAtStepHook, `_last_step` is left as configured: the session's last step
        # is `_end`, resolved at the first run (once every hook's after_create_session ran).
        self._start = self._step = int(session.run(self._global_step_tensor))
        self._end = None

    def _resolve_end(self):
        bounds = []
        if self._last_step is not None:
            bounds.append((self._last_step, "max_steps"))
        elif self._num_steps is not None:
            bounds.append((self._start + self._num_steps, "steps"))
        for hook in self._stop_hooks:
            # Reads the private fields of the user's StopAtStepHook, never writes them: its
            # own after_create_session (already run, before this first run) sets _last_step
            # from _num_steps as stock does, so a reused hook behaves as it does with N == 1;
            # the fallback covers a subclass that does not.
            last = getattr(hook, "_last_step", None)
            if last is None and getattr(hook, "_num_steps", None) is not None:
                last = self._start + hook._num_steps   # pylint: disable=protected-access
            if last is not None:
                bounds.append((int(last), "a StopAtStepHook"))
        self._end, self._end_by = min(bounds, key=lambda b: b[0])
        # Only a count that is not a multiple of N is ended exactly (and warned, NPB124). A
        # multiple keeps full loops, as on the NPU, whose device loop always runs N steps:
        # also when some steps do not move the global step (a loss-scale overflow skips the
        # update, global_step included), so training then runs past the planned loops.
        # (No step left at all still runs one, as stock StopAtStepHook: a single step.)
        n, steps = self._max_loop, self._end - self._start
        self._shorten = n > 1 and (steps <= 0 or steps % n != 0)
        self._check_multiple()

    def _check_multiple(self):
        """NPB124 when the steps to run are not a multiple of N: the vendor docs require one,
        because on the NPU every loop runs N steps (training would end past the last step)."""
        n, start, last = self._max_loop, self._start, self._end   # N: the registered loop
        if n <= 1 or last <= start or (last - start) % n == 0:
            return
        npu_end = start + -(-(last - start) // n) * n
        from npu_bridge.ge import records as _records
        from npu_bridge.ge.diagnostics import make
        from npu_bridge.ge.cross import multiple_fix
        arg = str(self._end_by).split("=", 1)[0]
        fix = (multiple_fix("steps", last - start, n) if arg == "steps" else
               multiple_fix("max_steps", last - start, n, start) if arg == "max_steps" else
               "train steps a multiple of iterations_per_loop=%d (steps= or max_steps=)" % n)
        diag = make("NPB124", "iterations_per_loop", n, steps=last - start, start=start,
                    last=last, end_by=self._end_by, npu_end=npu_end, last_loop=(last - start) % n,
                    fix=fix)
        added = _records.add_runtime_diagnostic(self._record, ("NPB124", start, last), diag)
        if added or self._record is None:
            tf.compat.v1.logging.warning("%s %s", diag.code, diag.message)

    def before_run(self, run_context):
        if self._end is None:
            self._resolve_end()
        left = max(1, self._end - self._step) if self._shorten else self._max_loop
        for op, n in self._loops.items():
            count = min(n, left)
            if self._counts[op] != count:
                util.register_loop_op(op, count)
                self._counts[op] = count
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1
        if step + self._max_loop <= self._end:
            self._step = step          # a full loop fits whatever the exact step is
            return
        self._step = int(run_context.session.run(self._global_step_tensor))
        if self._step >= self._end:
            run_context.request_stop()

    def end(self, session):
        for op, n in self._loops.items():
            if self._counts[op] != n:
                util.register_loop_op(op, n)
                self._counts[op] = n


class NPULogOutfeedSessionHook(tf.compat.v1.train.SessionRunHook):
    """Prints the device log channel on the NPU. On the CPU there is no device log: it keeps
    the `output_stream` and does nothing."""

    def __init__(self, output_stream):
        self._output_stream = output_stream
        self._stopped = False

    def end(self, session):
        self._stopped = True


class NPUInfeedOutfeedSessionHook(tf.compat.v1.train.SessionRunHook):
    """Around the host-call ops: initialises the summary writers when the session is created
    and flushes them when it ends (on the NPU it also drains the outfeed channel; here the
    host-call ops run in the graph, see NPUEstimator).

    Args:
      dequeue_ops: the host-call outputs (kept for compatibility).
      channel_name: the outfeed channel name (a mode key on the real estimator).
    """

    def __init__(self, dequeue_ops, channel_name):
        self._dequeue_ops = dequeue_ops
        self._channel_name = channel_name
        self._init_ops = None
        self._finalize_ops = None
        self._stopped = False

    def begin(self):
        self._init_ops = list(summary_ops_v2.summary_writer_initializer_op())
        self._finalize_ops = [summary_ops_v2.flush(writer=op.inputs[0]) for op in self._init_ops]

    def after_create_session(self, session, coord):
        if self._init_ops:
            session.run(self._init_ops)

    def end(self, session):
        if not self._stopped:
            self._stopped = True
            if self._finalize_ops:
                session.run(self._finalize_ops)


class NPUOutputTensorHook(tf.compat.v1.train.LoggingTensorHook):
    """Collects the values of `tensors` every run and hands the collected list to `output_fn`
    every `output_every_n_steps` runs and at the end.

    Args:
      tensors: dict tag -> tensor (or tensor name).
      dependencies: ops the tensors are read after (control dependencies), or None.
      output_fn: callable taking a list of {tag: value} dicts.
      output_every_n_steps: runs between calls (int); 0 means only at the end (the real hook
        divides by it and fails on 0).
    """

    def __init__(self, tensors, dependencies=None, output_fn=None, output_every_n_steps=0):
        self._tensors = None
        self._output_fn = output_fn
        self._output_every_n_steps = output_every_n_steps
        self._output_list = []
        self._iter_count = 0
        if tensors is not None:
            if dependencies is not None:
                if not isinstance(dependencies, (tuple, list)):
                    dependencies = [dependencies]
                with tf.control_dependencies(dependencies):
                    self._tensors = {k: tf.identity(v) for k, v in tensors.items()}
            else:
                self._tensors = tensors
            super().__init__(self._tensors, every_n_iter=1 << 31)

    def begin(self):
        _logging.info("NPUOutputTensorHook begin...")
        if self._tensors is not None:
            super().begin()

    def before_run(self, run_context):
        if self._tensors is not None:
            return tf.compat.v1.train.SessionRunArgs(self._current_tensors)
        return None

    def after_run(self, run_context, run_values):
        if self._tensors is not None:
            self._output_list.append({tag: run_values.results[tag] for tag in self._tag_order})
        self._iter_count += 1
        if self._output_every_n_steps and self._iter_count % self._output_every_n_steps == 0:
            self._call_output_fn()

    def end(self, session):
        _logging.info("NPUOutputTensorHook end...")
        if self._output_list:
            self._call_output_fn()

    def _call_output_fn(self):
        if self._output_fn is not None:
            self._output_fn(list(self._output_list))
        del self._output_list[:]


class TellMeStepOrLossHook(tf.compat.v1.train.SessionRunHook):
    """Publishes the current step and/or loss after each run in the environment variables
    STEP_NOW / LOSS_NOW (and the targets in TOTAL_STEP / TARGET_LOSS), where the Ascend job
    tooling reads them.

    Raises:
      ValueError: neither `step` nor `loss` given; or, after a run, neither could be fetched.
    """

    def __init__(self, step=None, total_step=None, loss=None, final_loss=None):
        if step is None and loss is None:
            raise ValueError("One of step or loss must be specified")
        self._step = step
        self._total_step = total_step
        self._loss = loss
        self._final_loss = final_loss
        if step is not None:
            os.environ["STEP_NOW"] = "0"
        if total_step is not None:
            os.environ["TOTAL_STEP"] = str(total_step)
        if loss is not None:
            os.environ["LOSS_NOW"] = "0.0"
        if final_loss is not None:
            os.environ["TARGET_LOSS"] = str(final_loss)

    def before_run(self, run_context):
        fetches = {}
        if self._step is not None:
            fetches["step_now"] = self._step
        if self._loss is not None:
            fetches["loss_now"] = self._loss
        return tf.compat.v1.train.SessionRunArgs(fetches=fetches)

    def after_run(self, run_context, run_values):
        results = run_values.results
        step, loss = results.get("step_now"), results.get("loss_now")
        if step is None and loss is None:
            raise ValueError("step tensor:%s or loss tensor:%s is not a valid tensor"
                             % (self._step, self._loss))
        if step is not None:
            os.environ["STEP_NOW"] = str(step)
        if loss is not None:
            os.environ["LOSS_NOW"] = str(loss)
