#!/usr/bin/env bash
# Generates two crates for the expansion benchmark of `memory_plan!` (issue: keep the
# expansion small): DIR/plan1000, whose lib.rs holds one `memory_plan!` of 1,000 buffers,
# and DIR/empty, an empty library. Both depend on this checkout's memplan-runtime and
# share one target directory, so timing `touch src/lib.rs && cargo build` in each
# measures the crate alone.
#
# Usage: scripts/gen-bench-crates.sh DIR [STRATEGY]   (STRATEGY default: the macro's default)
set -euo pipefail
dir=${1:?usage: gen-bench-crates.sh DIR [STRATEGY]}
strategy=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
for name in plan1000 empty; do
  mkdir -p "$dir/$name/src"
  cat > "$dir/$name/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
memplan-runtime = { path = "$root/memplan-runtime" }

[workspace]
TOML
done
echo 'pub fn nothing() {}' > "$dir/empty/src/lib.rs"
{
  echo 'memplan_runtime::memory_plan! {'
  echo '    pub mod plan {'
  echo '        region sram: 1 MiB;'
  echo '        region dtcm: 64 KiB;'
  [ -n "$strategy" ] && echo "        strategy = $strategy;"
  # A network-like schedule: a chain of buffers each live 2-3 steps, with a skip
  # connection every 8 buffers that stays live 8 steps.
  for i in $(seq 0 999); do
    size=$(( (i * 37 % 61 + 4) * 64 ))
    if [ $((i % 8)) -eq 0 ]; then last=$((i + 8)); else last=$((i + 1 + i % 2)); fi
    echo "        buffer b$i: $size bytes in sram, live $i..=$last;"
  done
  echo '    }'
  echo '}'
} > "$dir/plan1000/src/lib.rs"
echo "generated $dir/plan1000 and $dir/empty"
