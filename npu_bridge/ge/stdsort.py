"""`std::sort` as libstdc++ runs it (introsort, median-of-three, final insertion sort), so
that blocks GE compares as equal end up in the order GE's own build leaves them.

GE sorts its memory blocks with std::sort (block_mem_assigner.cc ReuseBlocksByLifeTime
L2784, L2818), which is not stable for more than 16 elements; Python's sort is. The steps
follow libstdc++'s bits/stl_algo.h and bits/stl_heap.h (GCC's documented algorithm).
"""
THRESHOLD = 16   # _S_threshold


def std_sort(items, key, lo=0, hi=None):
    """Sort `items[lo:hi]` in place by `key` (strict weak order of key tuples) exactly as
    libstdc++'s std::sort orders it."""
    hi = len(items) if hi is None else hi
    if hi - lo < 2:
        return
    keys = {id(x): key(x) for x in items[lo:hi]}

    def less(a, b):
        return keys[id(a)] < keys[id(b)]

    _introsort_loop(items, lo, hi, 2 * ((hi - lo).bit_length() - 1), less)
    _final_insertion_sort(items, lo, hi, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    lo, hi = first + 1, last
    pivot = a[first]
    while True:
        while less(a[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _median_to_first(a, result, i, j, k, less):
    if less(a[i], a[j]):
        if less(a[j], a[k]):
            pick = j
        elif less(a[i], a[k]):
            pick = k
        else:
            pick = i
    elif less(a[i], a[k]):
        pick = i
    elif less(a[j], a[k]):
        pick = k
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _linear_insert(a, last, less):
    val = a[last]
    nxt = last - 1
    while less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, first, last, less):
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i, less)


def _final_insertion_sort(a, first, last, less):
    if last - first > THRESHOLD:
        _insertion_sort(a, first, first + THRESHOLD, less)
        for i in range(first + THRESHOLD, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if less(a[first + second], a[first + second - 1]):
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_sort(a, first, last, less):
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(a, first, parent, length, a[first + parent], less)
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, less)
