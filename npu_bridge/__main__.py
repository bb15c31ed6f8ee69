"""`python -m npu_bridge`: the `npu-bridge` command."""
import sys

from npu_bridge.tools.cli import main

sys.exit(main())
