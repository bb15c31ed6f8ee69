"""tf_slim's nets through `tf.contrib.slim.nets`, built under `slim.arg_scope` as real scripts
do, each train one step on one random image (the smallest input each net takes)."""
import pytest

from _contrib_helper import run_scenario

NETS = r'''
import json
import numpy as np
from npu_bridge.npu_init import *
import tensorflow as tf
slim = tf.contrib.slim
nets = tf.contrib.slim.nets
r = {}
def one_step(build, size, scope_fn):
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        images = tf.constant(np.random.RandomState(0).rand(1, size, size, 3), tf.float32)
        labels = tf.constant([3], tf.int64)
        with slim.arg_scope(scope_fn()):
            logits, end_points = build(images)
        logits = tf.reshape(logits, [1, -1])
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits) + tf.losses.get_regularization_loss()
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train = tf.train.GradientDescentOptimizer(1e-3).minimize(loss, global_step=tf.train.get_or_create_global_step())
        with tf.Session(config=npu_config_proto()) as sess:
            sess.run(tf.global_variables_initializer())
            l0, _ = sess.run([loss, train])
            step = sess.run(tf.train.get_global_step())
        return {"logits": logits.shape.as_list(), "step": int(step), "finite": bool(np.isfinite(l0)),
                "update_ops": len(update_ops), "reg": len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)),
                "restore": len(slim.get_variables_to_restore())}
r["resnet_v1_50"] = one_step(lambda x: nets.resnet_v1.resnet_v1_50(x, num_classes=10, is_training=True),
                             32, lambda: nets.resnet_v1.resnet_arg_scope(weight_decay=1e-4))
r["inception_v3"] = one_step(lambda x: nets.inception.inception_v3(x, num_classes=10, is_training=True, create_aux_logits=False),
                             75, lambda: nets.inception.inception_v3_arg_scope())
r["vgg_16"] = one_step(lambda x: nets.vgg.vgg_16(x, num_classes=10, is_training=True),
                       224, lambda: nets.vgg.vgg_arg_scope(weight_decay=5e-4))
print("RESULT " + json.dumps(r))
'''


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("nets"), NETS)


@pytest.mark.parametrize("name,update_ops", [("resnet_v1_50", 106), ("inception_v3", 188),
                                             ("vgg_16", 0)])
def test_net_trains_one_step(nets, name, update_ops):
    r = nets[name]
    assert r["logits"] == [1, 10] and r["finite"] and r["step"] == 1
    assert r["update_ops"] == update_ops        # batch_norm updates under the nets' arg_scopes
    assert r["reg"] > 0 and r["restore"] > r["reg"]
