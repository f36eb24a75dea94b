#!/usr/bin/env bash
# Fuzzing (cargo-fuzz, nightly): each target for a bounded time, failing on any crash, with
# the executions it ran. `FUZZ_SECONDS` (default 60) per target. Installs cargo-fuzz when
# missing. Run from anywhere: `bash .ci/fuzz.sh`.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal >/dev/null
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked -q
for target in front_end plan_files allocators tflite_reader pte_reader plan_info memory_x; do
  echo "== fuzz: $target for ${SECONDS_PER_TARGET}s"
  mkdir -p "corpus/$target" "seeds/$target"
  log=$(mktemp)
  # The allocators are unsafe code: under AddressSanitizer; the rest is safe Rust.
  sanitizer=none
  [ "$target" = allocators ] && sanitizer=address
  if ! cargo +nightly fuzz run -s "$sanitizer" "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 > "$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "FAIL: fuzz target $target crashed (the input is in fuzz/artifacts/$target)" >&2
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed "s/^/$target: /"
  rm -f "$log"
done
echo "fuzzing passed"
