"""`multi_gpu_model(model, gpus, cpu_merge=True, cpu_relocation=False)` of TF 1.15's Keras
(python/keras/utils/multi_gpu_utils.py; removed in TF 2.4). Scripts import it at the top and
call it only with several GPUs. On a machine without the GPUs asked for (a CPU, an Ascend
NPU host) TF 1.15 raised ValueError naming the devices expected and present; so does this.
Where the GPUs are there, it refuses, naming `tf.distribute.MirroredStrategy` (the model
replication itself is not provided)."""
import tensorflow as tf

from npu_bridge.hooks.tf1_contrib import MissingTF1APIError


def _device_names():
    return ["/%s:%s" % (d.device_type.lower(), d.name.rsplit(":", 1)[1])
            for d in tf.config.list_logical_devices()]


def multi_gpu_model(model, gpus, cpu_merge=True, cpu_relocation=False):
    """Raises ValueError (TF 1.15's checks, same order): `gpus` (an int, or a list of GPU ids)
    under 2; then any of /cpu:0 and /gpu:<id> missing from this machine's devices. Raises
    MissingTF1APIError when all of them are present."""
    many = isinstance(gpus, (list, tuple))
    if (len(gpus) if many else gpus) <= 1:
        raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with "
                         "`%s >= 2`. Received: `gpus=%s`" % ("len(gpus)" if many else "gpus", gpus))
    wanted = ["/cpu:0"] + ["/gpu:%d" % i for i in (gpus if many else range(gpus))]
    present = _device_names()
    if any(device not in present for device in wanted):
        raise ValueError("To call `multi_gpu_model` with `gpus=%s`, we expect the following "
                         "devices to be available: %s. However this machine only has: %s. "
                         "Try reducing `gpus`." % (gpus, wanted, present))
    raise MissingTF1APIError("tensorflow.python.keras.utils.multi_gpu_model",
                             "tf.distribute.MirroredStrategy (build and compile the model in "
                             "strategy.scope()); multi_gpu_model was removed in TensorFlow 2.4")
