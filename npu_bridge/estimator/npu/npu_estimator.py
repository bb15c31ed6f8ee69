"""NPUEstimator and NPUEstimatorSpec on stock ``tf.estimator``: the real signatures; the
configuration resolved and recorded at construction, iteration loops and host calls in TRAIN
mode. Notes: docs/design.md "Module notes".
"""
import copy
import os
import random
import string

import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow.python.util import tf_inspect
from tensorflow_estimator.python.estimator import estimator as _estimator_lib

from npu_bridge.ge import records as _records
from npu_bridge.estimator.npu import util
from npu_bridge.estimator.npu.npu_config import NPURunConfig
from npu_bridge.estimator.npu.npu_config import render_session_config
from npu_bridge.estimator.npu.npu_config import remember_user_set, rendered_user_set
from npu_bridge.estimator.npu.npu_hook import NPUBroadcastGlobalVariablesHook
from npu_bridge.estimator.npu.npu_hook import NPUCheckpointSaverHook
from npu_bridge.estimator.npu.npu_hook import NPUInfeedOutfeedSessionHook
from npu_bridge.estimator.npu.npu_hook import SetIterationsVarHook
from npu_bridge.estimator.npu.npu_hook import _LoopStopAtStepHook

_logging = tf.compat.v1.logging
_ModeKeys = tf.estimator.ModeKeys


def _validate_host_call(host_call, name="host_call"):
    """The real estimator's checks of `host_call`: (fn, tensors) with a callable fn and
    tensors a list/tuple (as many as fn's arguments, unless fn takes *args) or a dict.

    Raises:
      ValueError: not a 2-element tuple/list, or tensors of another type.
      TypeError: fn not callable.
      RuntimeError: list/tuple length differs from fn's argument count.
    """
    if not isinstance(host_call, (tuple, list)):
        raise ValueError("NPUEstimatorSpec.%s should be a tuple or list (fn, tensors), got %s"
                         % (name, type(host_call).__name__))
    if len(host_call) != 2:
        raise ValueError("NPUEstimatorSpec.%s should have two elements (fn, tensors), got %d"
                         % (name, len(host_call)))
    host_fn, tensors = host_call
    if not callable(host_fn):
        raise TypeError("NPUEstimatorSpec.%s[0] should be callable, got %s"
                        % (name, type(host_fn).__name__))
    if not isinstance(tensors, (tuple, list, dict)):
        raise ValueError("NPUEstimatorSpec.%s[1] should be a tuple, list or dict, got %s"
                         % (name, type(tensors).__name__))
    if isinstance(tensors, (tuple, list)):
        spec = tf_inspect.getfullargspec(host_fn)
        fn_args = function_utils.fn_args(host_fn)
        if spec.varargs is None and len(tensors) != len(fn_args):
            raise RuntimeError("In NPUEstimatorSpec.%s, length of tensors %d does not match "
                               "method args of the function, which takes %d."
                               % (name, len(tensors), len(fn_args)))


class NPUEstimatorSpec(tf.estimator.EstimatorSpec):
    """An `EstimatorSpec` with the NPU `host_call`.

    Same arguments as `tf.estimator.EstimatorSpec`, plus:
      host_call: None, or `(fn, tensors)` with `tensors` a list/tuple (passed positionally) or
        a dict (passed as keyword arguments); `fn` runs with every training (or evaluation)
        step. Only used in TRAIN and EVAL mode.
    Raises:
      ValueError / TypeError / RuntimeError: a malformed host_call (see the messages), and
        whatever `EstimatorSpec` raises.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None, host_call=None):
        if host_call is not None:
            _validate_host_call(host_call)
        spec = super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
            training_chief_hooks=training_chief_hooks, training_hooks=training_hooks,
            scaffold=scaffold, evaluation_hooks=evaluation_hooks,
            prediction_hooks=prediction_hooks)
        spec._host_call = host_call
        return spec


def _host_call_of(spec):
    # namedtuple._replace bypasses __new__, so a replaced spec has no _host_call attribute.
    return getattr(spec, "_host_call", None) if isinstance(spec, NPUEstimatorSpec) else None


def _build_host_call(host_call, after):
    """Build host_fn's ops in the graph, run after `after`; returns the list of ops."""
    host_fn, tensors = host_call
    with tf.control_dependencies([after]):
        outputs = host_fn(**tensors) if isinstance(tensors, dict) else host_fn(*tensors)
    built = []
    for item in tf.nest.flatten(outputs):
        if isinstance(item, tf.Operation):
            built.append(item)
        elif isinstance(item, tf.Tensor):
            built.append(item.op)
    return built


class NPUEstimator(tf.estimator.Estimator):
    """`tf.estimator.Estimator` configured by an `NPURunConfig`.

    Args:
      model_fn: the model function (features, labels, mode, params, config), as for Estimator.
      model_dir: checkpoint directory; must equal `config.model_dir` when both are given;
        when neither is, a new `model_dir_<10 random chars>` under the current directory (as the
        real estimator).
      config: an `NPURunConfig` (required).
      params: dict of hyper parameters for `model_fn` (None becomes {}).
      job_start_file: the Ascend job start file (accepted; there is no job service on the CPU).
      warm_start_from: checkpoint/SavedModel path or `WarmStartSettings`; when empty,
        $RESTORE_FROM is used if set (as the real estimator).
    Raises:
      ValueError: `config` is not an NPURunConfig; model_dir differs from config.model_dir;
        a model_fn signature Estimator refuses.
      npu_bridge.ge.NpuConfigError: the NPU configuration has errors (all of them listed).
    """

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None,
                 job_start_file="", warm_start_from=None):
        _logging.info("NPUEstimator init...")
        if config is None or not isinstance(config, NPURunConfig):
            raise ValueError("NPUEstimator: `config` must be an NPURunConfig, got %s"
                             % (type(config).__name__,))
        _estimator_lib._verify_model_fn_args(model_fn, params)  # pylint: disable=protected-access

        from npu_bridge.ge import NpuConfigError, resolve
        try:
            ge_options = resolve(config)
            ge_options.raise_for_errors()
            # argument values the estimator writes differently than given (NPB162): known
            # from the config's arguments, not from the parameter_map the resolver reads
            ge_options.diagnostics.extend(config._npu_arg_warnings())
        except NpuConfigError as err:
            # Recorded as refused: `npu-bridge run` counts it even if the script catches it.
            _records.record_refused("estimator", "NPUEstimator(model_dir=%s)"
                                    % (model_dir or config.model_dir), err)
            raise
        config = self._npu_with_session_config(config)

        model_dir = self._npu_check_model_dir(model_dir, config)
        self._npu_job_start_file = job_start_file
        self._npu_ge_options = ge_options
        self._npu_record = _records.record("estimator", "NPUEstimator(model_dir=%s)" % model_dir,
                                           ge_options)

        if not warm_start_from:
            warm_start_from = os.getenv("RESTORE_FROM") or None
        super().__init__(model_fn=self._npu_augment_model_fn(model_fn, model_dir, config),
                         model_dir=model_dir, config=config, params=params or {},
                         warm_start_from=warm_start_from)
        # TF's Estimator keeps a deep copy of the session config and hands that object to
        # its sessions: it is known by identity too (configs rendering the same map differ)
        user_set = rendered_user_set(config.session_config)
        if user_set is not None and self._session_config is not None:
            remember_user_set(self._session_config, user_set)
        # Estimator refuses subclasses that override its members (TPUEstimator, which replaces
        # this one for its loops, is exempted by name): the step hooks of `train`, and the
        # user's StopAtStepHooks they follow, are chosen on the instance, after that check.
        self._convert_train_steps_to_hooks = self._npu_train_steps_to_hooks
        self._train_with_estimator_spec = self._npu_train_with_estimator_spec

    def _npu_train_steps_to_hooks(self, steps, max_steps):
        # With iterations_per_loop N > 1, one run of the train op does N steps: a stock
        # StopAtStepHook would stop only after the loop that crosses the last step (max_steps=37
        # with N=5 ending at 40). The loop-aware hook shortens the last loop instead.
        iterations_per_loop = getattr(self.config, "iterations_per_loop", 1) or 1
        if iterations_per_loop > 1 and (steps is not None or max_steps is not None) \
                and not self._train_distribution:
            return [_LoopStopAtStepHook(steps, max_steps, getattr(self, "_npu_record", None))]
        return _estimator_lib.Estimator._convert_train_steps_to_hooks(self, steps, max_steps)

    def _npu_train_with_estimator_spec(self, estimator_spec, worker_hooks, hooks,
                                       global_step_tensor, saving_listeners):
        # Every hook of the training session is known here: the input hooks (worker_hooks),
        # train(hooks=...) / TrainSpec hooks with the step hooks of train() (hooks), and the
        # model_fn's training (and, on the chief, chief-only) hooks.
        hooks = self._npu_with_loop_stop_hook(estimator_spec, worker_hooks, hooks)
        stock = _estimator_lib.Estimator
        return stock._train_with_estimator_spec(  # pylint: disable=protected-access
            self, estimator_spec, worker_hooks, hooks, global_step_tensor, saving_listeners)

    def _npu_with_loop_stop_hook(self, estimator_spec, worker_hooks, hooks):
        # A user StopAtStepHook checks its step only between runs, so with N > 1 training would
        # end at the end of the loop that crosses its step (last_step=25 with N=10 ending at
        # 30). The loop-aware hook of train() (or a new one) also follows it and shortens the
        # loop that reaches it; the smallest bound wins. The user's hooks stay in the session
        # unchanged. N == 1 is left to the stock hooks.
        iterations_per_loop = getattr(self.config, "iterations_per_loop", 1) or 1
        if iterations_per_loop <= 1 or self._train_distribution:
            return hooks
        candidates = list(worker_hooks) + list(hooks) + list(estimator_spec.training_hooks or ())
        if self.config.is_chief:
            candidates += list(estimator_spec.training_chief_hooks or ())
        stop_hooks = []
        for hook in candidates:
            if isinstance(hook, tf.compat.v1.train.StopAtStepHook) and \
                    not isinstance(hook, _LoopStopAtStepHook) and \
                    not any(hook is seen for seen in stop_hooks):
                stop_hooks.append(hook)
        if not stop_hooks:
            return hooks
        loop_hooks = [hook for hook in hooks if isinstance(hook, _LoopStopAtStepHook)]
        if loop_hooks:
            return [hook.following(stop_hooks) if hook is loop_hooks[0] else hook
                    for hook in hooks]
        return list(hooks) + [_LoopStopAtStepHook(record=getattr(self, "_npu_record", None),
                                                  stop_hooks=stop_hooks)]

    @property
    def npu_ge_options(self):
        """The `npu_bridge.ge.GeOptions` the configuration resolved to at construction."""
        return self._npu_ge_options

    @staticmethod
    def _npu_with_session_config(config):
        # A shallow copy: the caller's NPURunConfig and its session_config stay as they were
        # (the real estimator edits the caller's proto; reusing a config there adds a second
        # NpuOptimizer, which is not worth reproducing).
        config = copy.copy(config)
        config.__dict__["_session_config"] = render_session_config(config)
        return config

    @staticmethod
    def _npu_check_model_dir(model_dir, config):
        if model_dir is not None and config.model_dir is not None and model_dir != config.model_dir:
            raise ValueError("model_dir are set both in NPUEstimator and NPURunConfig, but with "
                             "different values. In constructor: '%s', in NPURunConfig: '%s'"
                             % (model_dir, config.model_dir))
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            while True:
                name = "model_dir_" + "".join(random.sample(string.ascii_letters + string.digits, 10))
                model_dir = os.path.join(os.getcwd(), name)
                if not tf.io.gfile.exists(model_dir):
                    break
            _logging.warning("Using temporary folder as model directory: %s", model_dir)
        return model_dir

    @staticmethod
    def _npu_augment_model_fn(model_fn, model_dir, config):
        model_fn_args = function_utils.fn_args(model_fn)
        iterations_per_loop = getattr(config, "iterations_per_loop", 1) or 1

        def _model_fn(features, labels, mode, params):
            kwargs = {}
            for name, value in (("labels", labels), ("mode", mode), ("params", params),
                                ("config", config)):
                if name in model_fn_args:
                    kwargs[name] = value
            spec = model_fn(features=features, **kwargs)
            if mode in (_ModeKeys.TRAIN, _ModeKeys.EVAL) and \
                    not isinstance(spec, tf.estimator.EstimatorSpec):
                raise RuntimeError("estimator_spec used by NPU %s must have type "
                                   "`NPUEstimatorSpec` or `EstimatorSpec`. Got %s"
                                   % ("train" if mode == _ModeKeys.TRAIN else "evaluate",
                                      type(spec)))
            if mode == _ModeKeys.TRAIN:
                return _augment_train_spec(spec, model_dir, config, iterations_per_loop)
            if mode == _ModeKeys.EVAL:
                return _augment_eval_spec(spec)
            return spec

        return _model_fn


def _augment_train_spec(spec, model_dir, config, iterations_per_loop):
    npu_hooks = []
    rank_size = util.get_ranksize()
    if rank_size.isdigit() and int(rank_size) > 1 and not getattr(config, "horovod_mode", False):
        npu_hooks.append(NPUBroadcastGlobalVariablesHook(0, int(os.getenv("RANK_ID", "0"))))
    if config.save_checkpoints_steps or config.save_checkpoints_secs:
        npu_hooks.append(NPUCheckpointSaverHook(
            checkpoint_dir=model_dir, save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps, scaffold=spec.scaffold))

    train_op = spec.train_op
    host_call = _host_call_of(spec)
    if host_call is not None:
        host_ops = _build_host_call(host_call, train_op)
        train_op = tf.group(train_op, *host_ops)
        npu_hooks.append(NPUInfeedOutfeedSessionHook(host_ops, _ModeKeys.TRAIN))

    if iterations_per_loop > 1:
        npu_hooks.append(SetIterationsVarHook(iterations_per_loop))
        train_op = tf.group(train_op, name="IterationOp")
        util.register_loop_op(train_op, iterations_per_loop)

    return spec._replace(train_op=train_op,
                         training_hooks=tuple(npu_hooks + list(spec.training_hooks or ())))


def _augment_eval_spec(spec):
    host_call = _host_call_of(spec)
    if host_call is None:
        return spec
    host_ops = _build_host_call(host_call, spec.loss)
    with tf.control_dependencies(host_ops):
        loss = tf.identity(spec.loss)
    hooks = [NPUInfeedOutfeedSessionHook(host_ops, _ModeKeys.EVAL)]
    return spec._replace(loss=loss, evaluation_hooks=tuple(hooks + list(spec.evaluation_hooks or ())))
