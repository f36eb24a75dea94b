#!/usr/bin/env python3
"""omnimalloc's seven greedy orders, one by one, and greedy_by_all, on plan files.

    /tmp/omni/bin/python memplan-bench/peers/omnimalloc_orders.py \
        examples/data/executorch ../shared/plans/executorch ../shared/bench/minimalloc/challenging

Prints CSV: the file, then the peak in bytes of each order (declared, size, duration, area,
conflict, conflict_size, start) and of greedy_by_all, each plan checked. Files are read and
handed to omnimalloc as in omnimalloc_vs_memplan.py (ExecuTorch plans in 16-byte units).
memplan-bench/tests/peers.rs records its `size` and `ALL` columns.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import omnimalloc as om  # noqa: E402
from omnimalloc.allocators.greedy import (  # noqa: E402
    GreedyAllocator,
    GreedyByAllAllocator,
    GreedyByAreaAllocator,
    GreedyByConflictAllocator,
    GreedyByConflictSizeAllocator,
    GreedyByDurationAllocator,
    GreedyBySizeAllocator,
    GreedyByStartAllocator,
)
from omnimalloc_vs_memplan import check, read_buffers  # noqa: E402

VARIANTS = [
    ("declared", GreedyAllocator()),
    ("size", GreedyBySizeAllocator()),
    ("duration", GreedyByDurationAllocator()),
    ("area", GreedyByAreaAllocator()),
    ("conflict", GreedyByConflictAllocator()),
    ("conflict_size", GreedyByConflictSizeAllocator()),
    ("start", GreedyByStartAllocator()),
    ("ALL", GreedyByAllAllocator(num_threads=1)),
]


def main():
    print("file," + ",".join(name for name, _ in VARIANTS))
    for given in sys.argv[1:]:
        p = Path(given)
        for c in sorted(p.rglob("*.csv")) if p.is_dir() else [p]:
            buffers, unit = read_buffers(c)
            if not buffers:
                continue
            buffers = [b for b in buffers if b[0] > 0]
            allocations = tuple(
                om.Allocation(id=i, size=-(-size // unit), start=start, end=end)
                for i, (size, start, end) in enumerate(buffers)
            )
            row = []
            for _, variant in VARIANTS:
                by_id = {a.id: a for a in om.allocate(allocations, allocator=variant)}
                row.append(check(buffers, unit, [by_id[i] for i in range(len(buffers))]))
            print(c.name + "," + ",".join(map(str, row)), flush=True)


if __name__ == "__main__":
    main()
