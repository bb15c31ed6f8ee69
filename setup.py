"""npu_bridge: a pure-Python drop-in for Huawei's Ascend TensorFlow adapter.

Target: Python 3.11 with tensorflow-cpu==2.15.1 (the last release that ships tf.estimator).
"""
from setuptools import find_packages, setup

setup(
    name="npu_bridge",
    version="0.1.0",
    description="Run Ascend (npu_bridge) TF1 scripts on stock TensorFlow and check their GE options",
    python_requires=">=3.11,<3.12",
    packages=find_packages(include=["npu_bridge", "npu_bridge.*", "hccl", "hccl.*", "moxing", "moxing.*"]),
    include_package_data=True,
    install_requires=[
        "tensorflow-cpu==2.15.1",
        "tensorflow-estimator==2.15.0",
        "absl-py==2.5.1",
        "numpy==1.26.4",
        "protobuf==4.25.9",
        "tensorboard==2.15.2",   # tf.contrib.tensorboard.plugins.projector (TF's own dependency)
        # tf.contrib in the TF 1.x mode (npu_bridge/hooks/tf1_moved.py, docs/contrib.md): the
        # releases made for TF 2.15, and what pip resolved for them
        "tf-slim==1.1.0",
        "tensorflow-probability==0.23.0",
        "tensorflow-addons==0.23.0",
        "dm-tree==0.1.10",
        "cloudpickle==3.1.3",
        "decorator==5.3.1",
        "typeguard==2.13.3",
    ],
    extras_require={
        "test": ["pytest==9.2.0", "hypothesis==6.170.17", "scikit-learn==1.9.1",
                 "matplotlib==3.9.4", "jsonschema==4.26.0"],
        "plot": ["matplotlib==3.9.4"],   # npu-bridge memory --plot
    },
    entry_points={"console_scripts": ["npu-bridge=npu_bridge.tools.cli:main"]},
)
