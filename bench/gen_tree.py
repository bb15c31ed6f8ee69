"""Generate a tree of realistic Ascend TF1 training scripts for the lint benchmark.

Each file looks like a model-zoo script: the usual imports (`from npu_bridge.npu_init import *`,
`import tensorflow as tf`, absl/argparse flags), model and input functions of varied length,
and one or more NPU configuration blocks: a session `parameter_map`, an `NPURunConfig` with
nested `MemoryConfig`/`DumpConfig`/`ProfilingConfig`, or the migration-tool wrappers. About
one file in twelve carries one of the mistakes of the usage census; one in two hundred does
not parse (Python 2 `print`). Deterministic for a given seed.

Usage: python bench/gen_tree.py [--files N] [--seed S] OUTDIR   (prints the number written)
"""
import argparse
import os
import random

HEADERS = [
    "from npu_bridge.npu_init import *\n",
    "import tensorflow as tf\nfrom npu_bridge.npu_init import *\n",
    "import tensorflow as tf\nfrom npu_bridge.estimator.npu.npu_config import NPURunConfig, "
    "DumpConfig, ProfilingConfig\nfrom npu_bridge.estimator.npu.npu_estimator import NPUEstimator\n",
    "import tensorflow as tf\nfrom npu_bridge.estimator import npu_ops\n"
    "from npu_bridge.estimator.npu.npu_config import *\n",
]

SESSION_KEYS = [
    ('["use_off_line"].b', ["True"]),
    ('["precision_mode"].s', ['tf.compat.as_bytes("allow_mix_precision")',
                              'tf.compat.as_bytes("allow_fp32_to_fp16")', 'b"force_fp32"',
                              '"must_keep_origin_dtype".encode()', "tf.compat.as_bytes(FLAGS.precision_mode)"]),
    ('["mix_compile_mode"].b', ["False"]),
    ('["iterations_per_loop"].i', ["1", "10", "100", "FLAGS.iterations_per_loop"]),
    ('["graph_run_mode"].i', ["0", "1"]),
    ('["enable_data_pre_proc"].b', ["True"]),
    ('["dynamic_input"].b', ["True"]),
    ('["dynamic_graph_execute_mode"].s', ['tf.compat.as_bytes("lazy_recompile")']),
    ('["hcom_parallel"].b', ["True", "False"]),
    ('["op_debug_level"].i', ["0"]),
    ('["graph_memory_max_size"].s', ["tf.compat.as_bytes(str(26 * 1024 ** 3))"]),
    ('["variable_memory_max_size"].s', ["tf.compat.as_bytes(str(5 * 1024 ** 3))"]),
    ('["static_memory_policy"].i', ["0", "2"]),
    ('["atomic_clean_policy"].i', ["0", "1"]),
    ('["input_fusion_size"].i', ["25600", "131072"]),
    ('["dump_path"].s', ['tf.compat.as_bytes(FLAGS.dump_path)']),
    ('["profiling_mode"].b', ["False"]),
    ('["jit_compile"].s', ['tf.compat.as_bytes("auto")']),
]

MISTAKES = [
    'custom_op.parameter_map["precision_mode"].b = True',
    'custom_op.parameter_map["sump_mode"].s = tf.compat.as_bytes("all")',
    'custom_op.parameter_map["sfusion_switch_file"].s = tf.compat.as_bytes("fusion_switch.cfg")',
    'custom_op.parameter_map["op_debug_level"].s = tf.compat.as_bytes("0")',
    'custom_op.parameter_map["jit_compile"].b = True',
    'custom_op.parameter_map["static_memory_policy"].i = 7',
]

RUN_CONFIGS = [
    "    run_config = NPURunConfig(\n        model_dir=FLAGS.model_dir,\n"
    "        save_checkpoints_steps=1000,\n        iterations_per_loop={ipl},\n"
    "        session_config=session_config,\n        precision_mode=\"allow_mix_precision\",\n"
    "        hcom_parallel=True)\n",
    "    run_config = NPURunConfig(\n        model_dir=model_dir,\n"
    "        memory_config=MemoryConfig(static_memory_policy={smp}, atomic_clean_policy=1),\n"
    "        iterations_per_loop={ipl},\n        log_step_count_steps=100)\n",
    "    dump_config = DumpConfig(enable_dump=True, dump_path=\"/tmp/dump\", dump_step=\"0|5\",\n"
    "                             dump_mode=\"all\")\n"
    "    run_config = NPURunConfig(dump_config=dump_config, model_dir=FLAGS.model_dir,\n"
    "                              iterations_per_loop={ipl})\n",
    "    profiling = ProfilingConfig(enable_profiling=False, profiling_options='{{\"output\": \"/tmp\"}}')\n"
    "    run_config = NPURunConfig(profiling_config=profiling, model_dir=FLAGS.model_dir,\n"
    "                              graph_memory_max_size=26 * 1024 ** 3,\n"
    "                              variable_memory_max_size=5 * 1024 ** 3)\n",
    "    run_config = npu_run_config_init(run_config=tf.estimator.RunConfig(model_dir=model_dir))\n",
]

LAYER_FNS = [
    "def conv_block_{n}(x, filters, training):\n"
    "    x = tf.layers.conv2d(x, filters, 3, padding=\"same\", use_bias=False)\n"
    "    x = tf.layers.batch_normalization(x, training=training)\n"
    "    x = tf.nn.relu(x)\n"
    "    return tf.layers.max_pooling2d(x, 2, 2)\n",
    "def dense_block_{n}(x, units, keep_prob):\n"
    "    \"\"\"A dense layer with NPU dropout (keep probability).\"\"\"\n"
    "    x = tf.layers.dense(x, units, activation=tf.nn.relu)\n"
    "    x = npu_ops.dropout(x, keep_prob)\n"
    "    return x\n",
    "def learning_rate_{n}(global_step, base_lr=0.1, warmup=500):\n"
    "    warm = tf.cast(global_step, tf.float32) / warmup * base_lr\n"
    "    decayed = tf.train.exponential_decay(base_lr, global_step, 10000, 0.96)\n"
    "    return tf.where(global_step < warmup, warm, decayed)\n",
    "def parse_record_{n}(serialized):\n"
    "    features = tf.parse_single_example(serialized, {{\n"
    "        \"image\": tf.FixedLenFeature([], tf.string),\n"
    "        \"label\": tf.FixedLenFeature([], tf.int64),\n"
    "    }})\n"
    "    image = tf.image.decode_jpeg(features[\"image\"], channels=3)\n"
    "    image = tf.image.resize_images(image, [224, 224]) / 255.0\n"
    "    return image, tf.cast(features[\"label\"], tf.int32)\n",
    "class Model{n}(object):\n"
    "    def __init__(self, num_classes=1000, weight_decay=1e-4):\n"
    "        self.num_classes = num_classes\n"
    "        self.weight_decay = weight_decay\n\n"
    "    def __call__(self, inputs, training):\n"
    "        x = inputs\n"
    "        for i, width in enumerate([64, 128, 256, 512]):\n"
    "            with tf.variable_scope(\"stage%d\" % i):\n"
    "                x = tf.layers.conv2d(x, width, 3, padding=\"same\")\n"
    "                x = tf.nn.relu(x)\n"
    "        x = tf.reduce_mean(x, axis=[1, 2])\n"
    "        return tf.layers.dense(x, self.num_classes)\n",
]

FLAGS_BLOCK = (
    "flags = tf.app.flags\n"
    "flags.DEFINE_string(\"model_dir\", \"./model\", \"checkpoint dir\")\n"
    "flags.DEFINE_string(\"dump_path\", \"/tmp/dump\", \"dump dir\")\n"
    "flags.DEFINE_string(\"precision_mode\", \"allow_mix_precision\", \"precision\")\n"
    "flags.DEFINE_integer(\"iterations_per_loop\", 10, \"loop\")\n"
    "flags.DEFINE_integer(\"batch_size\", 32, \"batch\")\n"
    "FLAGS = flags.FLAGS\n"
)


def _session_block(rng, mistake):
    lines = ["def make_session_config():",
             "    config = tf.ConfigProto(allow_soft_placement=True)",
             "    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()",
             "    custom_op.name = \"NpuOptimizer\""]
    for suffix, values in rng.sample(SESSION_KEYS, rng.randint(2, 9)):
        lines.append("    custom_op.parameter_map%s = %s" % (suffix, rng.choice(values)))
    if mistake:
        lines.append("    " + mistake)
    lines += ["    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF",
              "    return config", ""]
    return "\n".join(lines) + "\n"


def make_script(rng, index):
    """One script's text."""
    parts = ['"""Training script %d (generated for the lint benchmark)."""\n' % index,
             "import os\nimport sys\nimport time\n\nimport numpy as np\n", rng.choice(HEADERS), "\n",
             FLAGS_BLOCK, "\n"]
    for n in range(rng.randint(1, 14)):
        parts.append(rng.choice(LAYER_FNS).format(n=n) + "\n\n")
    mistake = rng.choice(MISTAKES) if rng.random() < 1 / 12 else None
    if rng.random() < 0.7:
        parts.append(_session_block(rng, mistake))
        parts.append("\n")
    elif mistake:
        parts.append(_session_block(rng, mistake) + "\n")
    parts.append("def main(_):\n    session_config = npu_config_proto(config_proto=tf.ConfigProto())\n"
                 "    model_dir = FLAGS.model_dir\n")
    parts.append(rng.choice(RUN_CONFIGS).format(ipl=rng.choice([1, 10, 100]), smp=rng.choice([0, 2])))
    parts.append("    estimator = NPUEstimator(model_fn=model_fn, config=run_config,\n"
                 "                             params={\"batch_size\": FLAGS.batch_size})\n"
                 "    estimator.train(input_fn=lambda: input_fn(FLAGS.batch_size), max_steps=1000)\n\n\n"
                 "if __name__ == \"__main__\":\n    tf.app.run()\n")
    if rng.random() < 1 / 200:
        parts.append("\nprint \"done\"\n")  # a Python 2 leftover: does not parse
    return "".join(parts)


def generate(outdir, files=2000, seed=0):
    """Write `files` scripts under `outdir` (in sub-folders of 50); returns their count."""
    rng = random.Random(seed)
    for i in range(files):
        folder = os.path.join(outdir, "model_%03d" % (i // 50))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "train_%04d.py" % i), "w") as fh:
            fh.write(make_script(rng, i))
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("outdir")
    args = parser.parse_args(argv)
    print(generate(args.outdir, args.files, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
