"""AI-CPU ops of the Ascend adapter (``npu_bridge.npu_cpu.npu_cpu_ops``).

``embeddingrankid`` and ``embedding_local_index`` compute, for each embedding row index, the
rank (or local row) that holds it in a sharded remote-memory embedding table described by
``addr_tensor`` (rows of device addresses). Their output is defined by that table's device
memory layout, which the vendor does not document beyond "mod" / "order" placement, and a CPU
run has no such table, so they raise ``NotImplementedError`` rather than guess.
"""


def _unsupported(name):
    raise NotImplementedError(
        "npu_cpu_ops.%s maps embedding rows to ranks of an RDMA-backed embedding table on Ascend "
        "devices; its result depends on that table's undocumented device layout, so npu_bridge has "
        "no CPU equivalent" % name)


def embeddingrankid(addr_tensor, index, row_memory=320, mode="mod"):
    """Real signature; raises ValueError for a bad ``mode``, else NotImplementedError."""
    if mode not in ("mod", "order"):
        raise ValueError("mode must be 'mod' or 'order', got %r" % (mode,))
    _unsupported("embeddingrankid")


def embedding_local_index(addr_tensor, index, row_memory=320, mode="mod"):
    """Real signature; raises ValueError for a bad ``mode``, else NotImplementedError."""
    if mode not in ("mod", "order"):
        raise ValueError("mode must be 'mod' or 'order', got %r" % (mode,))
    _unsupported("embedding_local_index")
