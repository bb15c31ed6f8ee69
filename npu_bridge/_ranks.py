"""Rank tables and the multi-rank job environment: ``hccl.manage._ranktable`` (which
``hccl.manage.api`` reads without importing ``npu_bridge``), under its ``npu_bridge`` name."""
from hccl.manage._ranktable import (  # noqa: F401 (the names the package uses)
    DEFAULT_TIMEOUT, ENV_ADDRESSES, ENV_CHILD, ENV_JOB_DIR, ENV_PORT_BASE, ENV_TIMEOUT, Job,
    RankInfo, RankTableError, WORLD_GROUP, default_port_base, free_port, from_env,
    generate_table, load_table, parse_table, port_problem)
