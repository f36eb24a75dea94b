#!/usr/bin/env bash
# Runs the criterion benchmark RUNS times (default 5) and prints, per run, the median time of
# each case and the ratios memplan / bumpalo and typed / raw; then the median ratio and its
# spread (min..max) over the runs.
#
#   bash memplan-runtime/benches/compare.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${1:-5}"
DIR="${CARGO_TARGET_DIR:-$PWD/target}/criterion"
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median"]["point_estimate"])' "$DIR/$1/new/estimates.json"; }
: >/tmp/memplan-bench-ratios
for run in $(seq 1 "$RUNS"); do
  cargo bench -q -p memplan-runtime --no-default-features --bench alloc -- --noplot >/dev/null 2>&1
  m=$(median bump/memplan_allocate); b=$(median bump/bumpalo_alloc_layout)
  t=$(median lookup/typed_buffer); r=$(median lookup/raw_pointer_arithmetic)
  c=$(median lookup/get_offset_address)
  python3 - "$run" "$m" "$b" "$t" "$r" "$c" <<'PY' | tee -a /tmp/memplan-bench-ratios
import sys
run, m, b, t, r, c = sys.argv[1], *map(float, sys.argv[2:])
print(f"run {run}: allocate {m/4096:.3f} ns, bumpalo {b/4096:.3f} ns, ratio {m/b:.3f}; "
      f"typed {t/1024:.3f} ns, raw {r/1024:.3f} ns, ratio {t/r:.3f}; get_offset_address {c/1024:.3f} ns")
PY
done
python3 - <<'PY'
import re, statistics
a, t = [], []
for line in open("/tmp/memplan-bench-ratios"):
    x = re.findall(r"ratio ([0-9.]+)", line)
    a.append(float(x[0])); t.append(float(x[1]))
print(f"memplan/bumpalo: median {statistics.median(a):.3f}, spread {min(a):.3f}..{max(a):.3f} over {len(a)} runs")
print(f"typed/raw:       median {statistics.median(t):.3f}, spread {min(t):.3f}..{max(t):.3f} over {len(t)} runs")
PY
