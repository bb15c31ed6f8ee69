"""Drop-in for the Ascend ``hccl`` Python package: ``hccl.manage.api`` and ``hccl.split.api``.

Answers come from the job environment (``RANK_SIZE``, ``RANK_ID``, ...); see the submodules.
Imports neither TensorFlow nor ``npu_bridge``.
"""
