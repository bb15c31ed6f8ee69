"""The range ceilings of GE's range assigners (no TensorFlow): BinaryBlockMemAssigner's
GetMemoryRanges and PlanRanges (hicann/ge ffdcbc9,
compiler/graph/build/memory/binary_block_mem_assigner.cc L27-130). Sizes in bytes."""
import math

from npu_bridge.ge import mem_block as mb

LARGE_RANGE = 8 * 1024 * 1024     # binary_block_mem_assigner.cc kLargeBlockSize


def binary_ranges(sizes):
    """BinaryBlockMemAssigner::GetMemoryRanges + PlanRanges (binary_block_mem_assigner.cc
    L27-130): the range ceilings, ascending."""
    sizes = list(sizes)
    if not sizes:
        return []
    low = mb.MEM_ALIGN if sizes[-1] > mb.MEM_ALIGN else sizes[0]
    n = int(math.ceil(math.log(sizes[-1] / float(low)) / math.log(2)))
    n = n or 1
    ranges = [[] for _ in range(n)]
    limit = len(sizes) // n
    ceil_ = sizes[-1]
    pad = mb.MEM_ALIGN if ceil_ > mb.MEM_ALIGN else 0
    for i in range(n - 1, 0, -1):
        if ceil_ <= 0:
            break
        ceil_ //= 2
        while sizes and sizes[-1] > ceil_ + pad:
            ranges[i].append(sizes.pop())
    changed = True
    temp = []
    while changed:
        changed = False
        k = 0
        while k < len(ranges):
            if temp:
                ranges[k].extend(temp)
                temp = []
            r = ranges[k]
            if not r:
                del ranges[k]
                changed = True
            elif len(r) < limit and len(ranges) - k > 1 and not (
                    r[0] >= LARGE_RANGE and len(r) >= 2):
                temp.extend(r)
                del ranges[k]
                changed = True
            else:
                k += 1
    return sorted(max(r) for r in ranges if r)
