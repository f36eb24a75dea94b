#!/usr/bin/env python3
"""memplan against idealloc on idealloc's own benchmark suites, in the same run.

    # idealloc (github.com/cappadokes/idealloc), built outside the repository:
    #   cargo build --release -p coreba   (in its checkout; binary target/release/idealloc)
    cargo build --release -p memplan-bench
    python3 memplan-bench/peers/idealloc_vs_memplan.py --idealloc IDEALLOC/target/release/idealloc \
        --runs 3 IDEALLOC/benchmarks

For every file (`*.csv` in MiniMalloc's format, which idealloc reads as `ex-csv`, or
idealloc's binary `*.plc`) and every run, in this order: memplan-bench plans it with
`greedy`, `best_of` and the default `optimal` (one process; its own in-process times),
then idealloc plans it once per `--lives` value (comma separated) (its `--max-lives`: how many boxing
attempts it makes to beat its bootstrap heuristic; 1 is its default). Times are medians
over the runs: memplan's from before `plan`, idealloc's its own "Total allocation time".
Bytes are each tool's peak (idealloc's "Makespan"); idealloc's later attempts are
randomised, so its bytes are the best over the runs (and the worst is shown when they
differ). memplan's plans are checked by memplan-bench's validator; idealloc prints no
offsets, so its plans are not checked here.

Prints one Markdown table; ratios are memplan's default / idealloc's best (below 1:
memplan smaller or faster).
"""

import argparse
import csv
import io
import re
import statistics
import subprocess
from pathlib import Path


def files(paths):
    out = []
    for given in paths:
        p = Path(given)
        found = sorted(list(p.rglob("*.csv")) + list(p.rglob("*.plc"))) if p.is_dir() else [p]
        for f in found:
            if f.suffix == ".plc":
                out.append(f)
                continue
            with open(f) as fh:
                header = fh.readline()
            if {"id", "lower", "upper", "size"} <= {c.strip() for c in header.split(",")}:
                out.append(f)
    return out


def run_memplan(binary, path):
    out = subprocess.run(
        [binary, str(path), "--strategies", "greedy,best_of,optimal"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = {}
    for r in csv.DictReader(io.StringIO(out)):
        rows[r["strategy"]] = (int(r["bytes"]), r["proven_optimal"] == "true", float(r["ms"]))
        rows["lower_bound"] = int(r["lower_bound"])
        rows["buffers"] = int(r["buffers"])
    return rows


def run_idealloc(binary, path, lives):
    fmt = "plc" if path.suffix == ".plc" else "ex-csv"
    out = subprocess.run(
        [binary, "-i", str(path), fmt, "-l", str(lives)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    makespan = int(re.search(r"Makespan:\s*(\d+) bytes", out).group(1))
    micros = int(re.search(r"Total allocation time: (\d+)", out).group(1))
    return makespan, micros / 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="benchmark files or folders of them")
    ap.add_argument("--idealloc", required=True, help="idealloc's binary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--lives",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[1, 100],
        help="idealloc's --max-lives values, comma separated (default 1,100)",
    )
    ap.add_argument(
        "--memplan-bench",
        default=str(Path(__file__).resolve().parents[2] / "target/release/memplan-bench"),
    )
    args = ap.parse_args()
    print(
        "| file | buffers | lower bound | memplan greedy | memplan best_of | memplan default "
        "| memplan ms | "
        + " | ".join(f"idealloc -l {lv} | ms" for lv in args.lives)
        + " | bytes ratio | time ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(args.lives) + "---:|---:|")
    for f in files(args.paths):
        mem, ide = [], {lv: [] for lv in args.lives}
        for _ in range(args.runs):
            mem.append(run_memplan(args.memplan_bench, f))
            for lv in args.lives:
                ide[lv].append(run_idealloc(args.idealloc, f, lv))
        m = mem[0]
        ms = statistics.median(r["optimal"][2] for r in mem)
        cells = [
            f.name,
            f"{m['buffers']:,}",
            f"{m['lower_bound']:,}",
            f"{m['greedy'][0]:,}",
            f"{m['best_of'][0]:,}",
            f"{m['optimal'][0]:,}" + (" (proven)" if m["optimal"][1] else ""),
            f"{ms:.1f}",
        ]
        best_bytes, best_ms = None, None
        for lv in args.lives:
            got = sorted(b for b, _ in ide[lv])
            t = statistics.median(t for _, t in ide[lv])
            cells.append(f"{got[0]:,}" + (f" (to {got[-1]:,})" if got[-1] != got[0] else ""))
            cells.append(f"{t:.1f}")
            if best_bytes is None or got[0] < best_bytes:
                best_bytes, best_ms = got[0], t
        cells.append(f"{m['optimal'][0] / best_bytes:.3f}")
        cells.append(f"{ms / best_ms:.3f}" if best_ms else "-")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
