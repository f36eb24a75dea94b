#!/usr/bin/env python3
"""One MiniMalloc instance given to OR-Tools' CP-SAT solver, to learn whether a layout
below memplan's best exists (this is not a planner of memplan's, and nothing runs it in CI).

    python3 -m venv /tmp/cpsat && /tmp/cpsat/bin/pip install ortools==9.12.4544
    cargo run --release --bin memplan-bench -- ../shared/bench/minimalloc/challenging/J.1048576.csv \
        --strategies optimal --nodes 1000000 --write-plans /tmp/plans
    /tmp/cpsat/bin/python memplan-bench/peers/cpsat_minimalloc.py \
        ../shared/bench/minimalloc/challenging/J.1048576.csv --capacity 1048576 \
        --seconds 1500 --workers 8 --hint /tmp/plans/J.1048576.optimal.csv

The model: each row (`id,lower,upper,size`, live on [lower, upper)) is a rectangle, fixed
in time and free in offset, in units of the greatest common divisor of the sizes (1,024
bytes on MiniMalloc's instances, whose capacity is a multiple of it); no two rectangles
overlap (`AddNoOverlap2D`), every one ends at most at a variable peak, and the peak is
minimised (or, with `--decide`, only required to be at most the capacity). `--hint` takes a
plan that memplan-bench wrote (`name,offset,...`) as the solver's starting layout.

Prints the solver's status, the best peak found and its proven lower bound, in bytes; the
layout found, if any, is checked here (no two rows alive at the same step share a byte).
"""

import argparse
import csv
import math

from ortools.sat.python import cp_model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--capacity", type=int, required=True, help="bytes")
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--hint", help="a plan CSV of memplan-bench's --write-plans")
    ap.add_argument("--decide", action="store_true", help="any layout within the capacity")
    args = ap.parse_args()

    rows = list(csv.DictReader(open(args.file)))
    unit = 0
    for r in rows:
        unit = math.gcd(unit, int(r["size"]))
    if args.capacity % unit:
        raise SystemExit(f"the capacity is not a multiple of {unit} bytes")
    cap = args.capacity // unit
    hint = {}
    if args.hint:
        hint = {r["name"]: int(r["offset"]) for r in csv.DictReader(open(args.hint))}

    m = cp_model.CpModel()
    peak = m.NewIntVar(0, cap, "peak")
    xs, ys, ts = [], [], []
    for r in rows:
        s = int(r["size"]) // unit
        lo, hi = int(r["lower"]), int(r["upper"])
        x = m.NewIntVar(0, max(cap - s, 0), "x" + r["id"])
        m.Add(x + s <= peak)
        ys.append(m.NewFixedSizeIntervalVar(x, s, "y" + r["id"]))
        ts.append(m.NewFixedSizeIntervalVar(lo, hi - lo, "t" + r["id"]))
        xs.append(x)
        if r["id"] in hint:
            if hint[r["id"]] % unit:
                raise SystemExit(f"the hint's offset of {r['id']} is not a multiple of {unit}")
            m.AddHint(x, hint[r["id"]] // unit)
    m.AddNoOverlap2D(ts, ys)
    if not args.decide:
        m.Minimize(peak)

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = args.seconds
    solver.parameters.num_workers = args.workers
    status = solver.Solve(m)
    name = solver.StatusName(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        print(f"{name}: no layout within {args.capacity} bytes found in {args.seconds:.0f} s")
        return
    off = [solver.Value(x) * unit for x in xs]
    live = [(int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]
    for i in range(len(rows)):
        for j in range(i):
            (a0, a1, sa), (b0, b1, sb) = live[i], live[j]
            if a0 < b1 and b0 < a1 and off[i] < off[j] + sb and off[j] < off[i] + sa:
                raise SystemExit(f"rows {rows[i]['id']} and {rows[j]['id']} overlap")
    best = max(o + s for o, (_, _, s) in zip(off, live))
    bound = int(solver.BestObjectiveBound()) * unit if not args.decide else 0
    print(f"{name}: peak {best} bytes, lower bound {bound} bytes")


if __name__ == "__main__":
    main()
