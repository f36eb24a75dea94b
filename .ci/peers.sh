#!/usr/bin/env bash
# The omnimalloc comparison script still runs: a short smoke run (one run, 2 s limit) on
# two small files. The tables in memplan-bench/README.md come from full runs.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/peers-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
  apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$venv"
}
"$venv/bin/pip" install -q -r memplan-bench/peers/requirements.txt
cargo build --release -q -p memplan-bench
out=$("$venv/bin/python" memplan-bench/peers/omnimalloc_vs_memplan.py --runs 1 --timeout 2 \
  ../shared/plans/executorch/kws_dscnn_greedy.csv ../shared/bench/minimalloc/examples/input.12.csv)
echo "$out"
# Both files in each of the three tables, and both tools at the lower bound on the exact search.
[ "$(grep -c '^| kws_dscnn_greedy.csv | 49 | 64,000 |' <<<"$out")" = 3 ]
[ "$(grep -c '^| input.12.csv | 5 | 12 |' <<<"$out")" = 3 ]
grep -q '^| kws_dscnn_greedy.csv | 49 | 64,000 | 64,000 (proven) | 64,000 (proven) | 1.000 |' <<<"$out"
# The per-order script that memplan-bench/tests/peers.rs's figures come from still runs and
# still gives them (kws_dscnn: greedy_by_size and greedy_by_all 64,000 bytes).
orders=$("$venv/bin/python" memplan-bench/peers/omnimalloc_orders.py \
  ../shared/plans/executorch/kws_dscnn_greedy.csv)
echo "$orders"
grep -q '^kws_dscnn_greedy.csv,65968,64000,96000,96000,96000,64000,65968,64000$' <<<"$orders"
