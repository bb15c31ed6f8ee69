"""keras_applications' `imagenet_utils` (Keras-Applications 1.0.8, which TF 1.15's pip package
installed with it) on Keras 2.15's `keras.src.applications.imagenet_utils`: the same functions,
also taking the `backend=`, `layers=`, `models=`, `utils=` arguments keras_applications took
(Keras 2.15's own modules are used; any other keyword is its TypeError)."""
from keras.src.applications import imagenet_utils as _keras

_SUBMODULES = ("backend", "layers", "models", "utils")


def _check(kwargs):
    for key in kwargs:
        if key not in _SUBMODULES:
            raise TypeError("Invalid keyword argument: %s" % key)


def _obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                        weights=None):
    """The model's input shape (Keras 2.15's `obtain_input_shape`)."""
    return _keras.obtain_input_shape(input_shape, default_size, min_size, data_format,
                                     require_flatten, weights=weights)


def preprocess_input(x, data_format=None, mode="caffe", **kwargs):
    """A batch of images preprocessed for `mode` ("caffe", "tf", "torch")."""
    _check(kwargs)
    return _keras.preprocess_input(x, data_format=data_format, mode=mode)


def decode_predictions(preds, top=5, **kwargs):
    """The `top` ImageNet classes of each prediction (downloads the class index once)."""
    _check(kwargs)
    return _keras.decode_predictions(preds, top=top)
