"""``model_to_npu_estimator``: a Keras model as an ``NPUEstimator`` (real ``keras_to_npu``).

Builds the stock estimator with ``tf.keras.estimator.model_to_estimator`` and wraps its
``model_fn`` in an ``NPUEstimator`` with the given NPU ``config``, as the real function does.
"""
import tensorflow as tf


def model_to_npu_estimator(keras_model=None, keras_model_path=None, custom_objects=None, model_dir=None,
                           checkpoint_format="saver", config=None, job_start_file=""):
    """Return an ``NPUEstimator`` running ``keras_model`` (or the model saved at ``keras_model_path``).

    ``config`` is the ``NPURunConfig``; the intermediate Keras estimator gets a plain
    ``RunConfig(model_dir=model_dir)``. Raises whatever ``model_to_estimator`` raises for a bad
    model (ValueError).
    """
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator

    keras_estimator = tf.compat.v1.keras.estimator.model_to_estimator(
        keras_model=keras_model, keras_model_path=keras_model_path, custom_objects=custom_objects,
        model_dir=model_dir, config=tf.estimator.RunConfig(model_dir=model_dir),
        checkpoint_format=checkpoint_format)
    return NPUEstimator(model_fn=keras_estimator._model_fn, model_dir=model_dir, config=config,
                        job_start_file=job_start_file, warm_start_from=keras_estimator._warm_start_settings)
