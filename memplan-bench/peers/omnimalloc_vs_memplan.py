#!/usr/bin/env python3
"""memplan against omnimalloc on the same plan files, in the same run, interleaved.

    python3 -m venv /tmp/omni && /tmp/omni/bin/pip install -r memplan-bench/peers/requirements.txt
    cargo build --release -p memplan-bench
    /tmp/omni/bin/python memplan-bench/peers/omnimalloc_vs_memplan.py \
        ../shared/plans/executorch ../shared/bench/minimalloc/challenging

For every file and every run, in this order: memplan-bench plans the file with `greedy`,
`best_of` and the default `optimal` (one process per file and run; its own in-process
times), then omnimalloc plans the same buffers with SuperMalloc (2 threads, 60 s limit by
default), with `greedy_by_size` (first fit by size, largest first) and with `greedy_by_all`
(the best of its seven greedy orders). Times are the medians over the runs, each the wall
time of the planning call alone (omnimalloc's timed from before it builds its partition,
memplan's from before `plan`); bytes are the peak of the plan, the same in every run.
Every omnimalloc plan is checked here: no two buffers alive at the same step share a byte.

The two tools model the files alike: a MiniMalloc row is live on [lower, upper) in both; an
ExecuTorch row on [first, last + 1) for omnimalloc and [first, last] for memplan, which is
the same set of steps. ExecuTorch plans are aligned to 16 bytes in memplan-bench, and
omnimalloc has no alignment, so they are handed to it in 16-byte units (sizes rounded up,
offsets multiplied back); its peak is then max(offset + size) in bytes, as memplan's. This
is exact for a plan, but omnimalloc's search minimises the peak in whole units, so on such
a file its optimum can be up to 15 bytes above the byte optimum.

Prints a Markdown table per comparison on stdout; ratios are memplan / omnimalloc (below 1:
memplan smaller or faster).
"""

import argparse
import csv
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path

import omnimalloc as om
from omnimalloc.allocators import (
    GreedyByAllAllocator,
    GreedyBySizeAllocator,
    SupermallocAllocator,
)

EXECUTORCH_ALIGN = 16


def read_buffers(path):
    """The buffers of a plan file as (size, start, end) with end exclusive, and the unit."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return [], 1
    if "lower" in rows[0]:
        return [(int(r["size"]), int(r["lower"]), int(r["upper"])) for r in rows], 1
    if "mem_id" in rows[0]:
        return [
            (int(r["size"]), int(r["first"]), int(r["last"]) + 1) for r in rows
        ], EXECUTORCH_ALIGN
    return None, None


def plan_files(args):
    files = []
    for given in args.paths:
        p = Path(given)
        candidates = sorted(p.rglob("*.csv")) if p.is_dir() else [p]
        for c in candidates:
            buffers, unit = read_buffers(c)
            if buffers:
                files.append((c, buffers, unit))
    return files


def run_memplan(binary, path):
    """memplan-bench's rows for one file: strategy -> (bytes, proven, ms)."""
    out = subprocess.run(
        [binary, str(path), "--strategies", "greedy,best_of,optimal"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["ms"]:
            rows[r["strategy"]] = (
                int(r["bytes"]),
                r["proven_optimal"] == "true",
                float(r["ms"]),
                int(r["lower_bound"]),
            )
    return rows


def check(buffers, unit, placed):
    """The plan's peak in bytes; exits if two buffers alive together share a byte."""
    spans = []
    for (size, start, end), a in zip(buffers, placed, strict=True):
        offset = a.offset * unit
        spans.append((offset, offset + size, start, end))
    events = sorted(spans, key=lambda s: s[2])
    live = []
    for s in events:
        live = [o for o in live if o[3] > s[2]]
        for o in live:
            if s[0] < o[1] and o[0] < s[1] and s[0] != s[1] and o[0] != o[1]:
                sys.exit(f"omnimalloc plan overlaps: {s} and {o}")
        live.append(s)
    return max((s[1] for s in spans), default=0)


def run_omnimalloc(allocator, buffers, unit):
    """The peak, proof and ms of one omnimalloc plan; zero-byte buffers (which take no
    bytes, and which omnimalloc refuses) are left out."""
    buffers = [b for b in buffers if b[0] > 0]
    allocations = tuple(
        om.Allocation(id=i, size=-(-size // unit), start=start, end=end)
        for i, (size, start, end) in enumerate(buffers)
    )
    began = time.perf_counter()
    if isinstance(allocator, SupermallocAllocator):
        result = allocator.solve(allocations)
        placed, proven = result.allocations, result.proved_optimal
    else:
        placed, proven = om.allocate(allocations, allocator=allocator), False
    ms = (time.perf_counter() - began) * 1000.0
    by_id = {a.id: a for a in placed}
    return check(buffers, unit, [by_id[i] for i in range(len(buffers))]), proven, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="plan files or folders of them")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0, help="SuperMalloc's limit, s")
    ap.add_argument("--threads", type=int, default=2, help="SuperMalloc's threads")
    ap.add_argument(
        "--memplan-bench",
        default=str(Path(__file__).resolve().parents[2] / "target/release/memplan-bench"),
        help="the memplan-bench binary (cargo build --release -p memplan-bench)",
    )
    args = ap.parse_args()
    files = plan_files(args)
    peers = {
        "supermalloc": SupermallocAllocator(timeout=args.timeout, num_threads=args.threads),
        "greedy_by_size": GreedyBySizeAllocator(),
        "greedy_by_all": GreedyByAllAllocator(num_threads=args.threads),
    }
    results = {}
    for run in range(args.runs):
        for path, buffers, unit in files:
            print(f"run {run + 1}/{args.runs}: {path.name}", file=sys.stderr)
            entry = results.setdefault(path.name, {"n": len(buffers), "ms": {}, "bytes": {}})
            for strategy, (b, proven, ms, lb) in run_memplan(args.memplan_bench, path).items():
                entry["lb"] = lb
                entry["bytes"][("memplan", strategy)] = (b, proven)
                entry["ms"].setdefault(("memplan", strategy), []).append(ms)
            for name, allocator in peers.items():
                b, proven, ms = run_omnimalloc(allocator, buffers, unit)
                entry["bytes"][("omnimalloc", name)] = (b, proven)
                entry["ms"].setdefault(("omnimalloc", name), []).append(ms)

    def table(title, mine, theirs):
        print(f"\n### {title}: memplan `{mine}` against omnimalloc `{theirs}`\n")
        print(
            "| file | buffers | lower bound | memplan bytes | omnimalloc bytes "
            "| bytes ratio | memplan ms | omnimalloc ms | time ratio |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, e in results.items():
            (mb, mp), (ob, op) = e["bytes"][("memplan", mine)], e["bytes"][("omnimalloc", theirs)]
            mt = statistics.median(e["ms"][("memplan", mine)])
            ot = statistics.median(e["ms"][("omnimalloc", theirs)])
            star = lambda b, p: f"{b:,}{' (proven)' if p else ''}"
            print(
                f"| {name} | {e['n']} | {e['lb']:,} | {star(mb, mp)} | {star(ob, op)} "
                f"| {mb / ob:.3f} | {mt:.2f} | {ot:.2f} | {mt / ot:.3f} |"
            )

    print(f"medians of {args.runs} interleaved runs; SuperMalloc: {args.threads} threads, "
          f"{args.timeout:g} s limit")
    table("Exact search", "optimal", "supermalloc")
    table("One greedy order", "greedy", "greedy_by_size")
    table("Best of several orders", "best_of", "greedy_by_all")


if __name__ == "__main__":
    main()
