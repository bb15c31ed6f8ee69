"""`tensorflow.contrib.*` protobuf modules the zoo imports (issue 25 item 2): XLNet's
`tensorflow.contrib.tpu.proto` (TF 2.15: `tensorflow.core.protobuf.tpu`, the same .proto files)
and Lip2Wav's `tf.contrib.tensorboard.plugins.projector` (TensorBoard's projector plugin).
A fresh interpreter per scenario (the TF 1.x mode is process-wide)."""
from _contrib_helper import run_scenario

PROTOS = r'''
import json, os
import npu_bridge.npu_init
import tensorflow as tf
from tensorflow.contrib.tpu.proto import compilation_result_pb2 as tpu_compilation_result
import tensorflow.core.protobuf.tpu as core_tpu
import importlib
r = {"same": {}}
for name in ("compilation_result_pb2", "dynamic_padding_pb2", "optimization_parameters_pb2",
             "topology_pb2", "tpu_embedding_configuration_pb2"):
    old = importlib.import_module("tensorflow.contrib.tpu.proto." + name)
    r["same"][name] = old is importlib.import_module("tensorflow.core.protobuf.tpu." + name)
# XLNet (tpu_estimator.py): parse a CompilationResultProto from bytes
msg = tpu_compilation_result.CompilationResultProto()
msg.status_error_message = "boom"
back = tpu_compilation_result.CompilationResultProto.FromString(msg.SerializeToString())
r["round_trip"] = back.status_error_message
r["attr"] = tf.contrib.tpu.proto.topology_pb2.TopologyProto is core_tpu.topology_pb2.TopologyProto
# XLNet's next line: TF 1.15's resource_variable_ops._to_proto_fn / _from_proto_fn (moved)
from tensorflow.python.ops import resource_variable_ops, ref_variable
r["proto_fns"] = [resource_variable_ops._to_proto_fn is ref_variable._to_proto_fn,
                  resource_variable_ops._from_proto_fn is ref_variable._from_proto_fn]
err("missing", lambda: importlib.import_module("tensorflow.contrib.tpu.proto.no_such_pb2"))
# Lip2Wav (synthesizer/train.py)
logdir = os.path.abspath("logs")
writer = tf.summary.FileWriter(logdir)
config = tf.contrib.tensorboard.plugins.projector.ProjectorConfig()
emb = config.embeddings.add()
emb.tensor_name = "emb"
emb.metadata_path = "meta.tsv"
tf.contrib.tensorboard.plugins.projector.visualize_embeddings(writer, config)
writer.close()
with open(os.path.join(logdir, "projector_config.pbtxt")) as f:
    r["pbtxt"] = f.read()
from tensorflow.contrib.tensorboard.plugins import projector
r["projector_same"] = projector.ProjectorConfig is config.__class__
r["errors"] = errors
print("RESULT " + json.dumps(r))
'''


def test_contrib_proto_modules_are_tensorflows_own_protos(tmp_path):
    r = run_scenario(tmp_path, PROTOS)
    assert r["same"] == {name: True for name in (
        "compilation_result_pb2", "dynamic_padding_pb2", "optimization_parameters_pb2",
        "topology_pb2", "tpu_embedding_configuration_pb2")}
    assert r["round_trip"] == "boom" and r["attr"] is True and r["proto_fns"] == [True, True]
    kind, message = r["errors"]["missing"]
    assert kind == "MissingTF1ModuleError"
    assert "tf.contrib.tpu.proto.no_such_pb2" in message
    assert "tensorflow.core.protobuf.tpu" in message
    assert r["pbtxt"].split() == ['embeddings', '{', 'tensor_name:', '"emb"', 'metadata_path:',
                                  '"meta.tsv"', '}']
    assert r["projector_same"] is True
