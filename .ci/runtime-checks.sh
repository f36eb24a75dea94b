#!/usr/bin/env bash
# memplan-runtime checks that need more than `cargo test`: Miri (host and a 32-bit target,
# strict provenance) over the runtime's tests, every take-once backend, the cross builds for
# three bare-metal targets, and a small library crate that invokes `memory_plan!` built for
# those targets (a library build, no linking).
#
# Installs what it needs with rustup. Run from anywhere: `bash .ci/runtime-checks.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

TARGETS=(thumbv6m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf)
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
CROSS_LIB=tests/cross-lib/Cargo.toml
CROSS_DIR="$TARGET_DIR/cross-lib"
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start))s] $*"; }

step "install: targets ${TARGETS[*]}, nightly with miri and rust-src"
rustup target add "${TARGETS[@]}" >/dev/null
# An installed nightly is kept as it is (no update); a machine without one gets the latest.
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null
fi
rustup +nightly component add miri rust-src >/dev/null
cargo +nightly miri setup >/dev/null
cargo +nightly miri setup --target i686-unknown-linux-gnu >/dev/null

# ---- Miri ---------------------------------------------------------------------------------
# The runtime alone (no proc-macro needed), with the allocator-api2 collections; each
# take-once backend once on the host; the 32-bit target with the default backend.
export MIRIFLAGS="-Zmiri-strict-provenance"
miri() { cargo +nightly miri test -q -p memplan-runtime --no-default-features "$@"; }

step "miri: host (x86_64), atomics backend, allocator-api2"
miri --features allocator-api2
step "miri: host, critical-section backend (lib tests)"
miri --features critical-section --lib
step "miri: host, portable-atomic backend (lib tests)"
miri --features portable-atomic --lib
step "miri: take() raced from several threads, 8 schedules (seeds) per take-once backend"
for backend in "" critical-section portable-atomic; do
  MIRIFLAGS="$MIRIFLAGS -Zmiri-many-seeds=0..8" \
    miri ${backend:+--features "$backend"} --lib racing_threads_take_once
done
step "miri: i686-unknown-linux-gnu (32-bit usize), allocator-api2"
miri --target i686-unknown-linux-gnu --features allocator-api2

step "miri: the generated manager and the step views of tests/cross-lib (host; and debug-canary)"
cargo +nightly miri test -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR"
cargo +nightly miri test -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR" --features debug-canary
step "test: tests/cross-lib with debug-canary (poisoning, canaries, the step-checked accessor)"
cargo test -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR" --features debug-canary

# ---- Cross builds -------------------------------------------------------------------------
for t in thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
  step "build: memplan-runtime for $t (default features; and allocator-api2 + portable-atomic)"
  cargo build -q -p memplan-runtime --target "$t"
  cargo build -q -p memplan-runtime --target "$t" --no-default-features \
    --features allocator-api2,portable-atomic
done

t=thumbv6m-none-eabi
step "build: memplan-runtime for $t (no compare-and-swap)"
# Without a take-once backend the build must fail, saying which feature to enable.
if out=$(cargo build -q -p memplan-runtime --target "$t" --no-default-features 2>&1); then
  echo "expected the $t build without a take-once backend to fail" >&2
  exit 1
fi
grep -q "enable the feature \`critical-section\`" <<<"$out" || {
  echo "unexpected error for $t without a take-once backend:" >&2
  echo "$out" >&2
  exit 1
}
cargo build -q -p memplan-runtime --target "$t" --features critical-section
cargo build -q -p memplan-runtime --target "$t" --no-default-features \
  --features portable-atomic,portable-atomic/critical-section,allocator-api2

step "build: tests/cross-lib (memory_plan!) for ${TARGETS[*]}"
cargo build -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR" \
  --target thumbv6m-none-eabi --features critical-section
for t in thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
  cargo build -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR" --target "$t"
done

# ---- Arenas in .bss -------------------------------------------------------------------------
step "check: arenas without a link section are in .bss (host test binary of tests/cross-lib)"
bin=$(cargo test -q --manifest-path "$CROSS_LIB" --target-dir "$CROSS_DIR" --no-run \
  --message-format=json | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | head -n1)
syms=$(nm -C "$bin" | grep "kws::__MEMPLAN_")
for s in ARENA_1 ARENA_2 RUNTIME TEMP; do
  grep -Eq "^[0-9a-f]+ [bB] .*__MEMPLAN_${s}\$" <<<"$syms" || {
    echo "__MEMPLAN_${s} is not in .bss:" >&2
    echo "$syms" >&2
    exit 1
  }
done

# ---- Typed access = raw pointer arithmetic ---------------------------------------------------
step "check: typed buffer access compiles to the same instructions as raw pointer arithmetic"
cargo build -q --release -p memplan-runtime --example typed_access_asm
exe="$TARGET_DIR/release/examples/typed_access_asm"
# The instructions of function $1, without addresses or padding.
instructions() {
  local addr size
  read -r addr size < <(nm -S "$exe" | awk -v s="$1" '$4 == s { print $1, $2 }')
  objdump -d --no-show-raw-insn --start-address="0x$addr" \
    --stop-address="$(printf '0x%x' $((0x$addr + 0x$size)))" "$exe" |
    sed -n 's/^ *[0-9a-f]*:[[:space:]]*//p' | grep -v '^int3' || true
}
for pair in typed_conv2:raw_conv2 typed_logits:raw_logits view_step2:raw_step2; do
  a=${pair%%:*} b=${pair##*:}
  typed=$(instructions "probe_$a")
  raw=$(instructions "probe_$b")
  if [ -z "$typed" ] || [ "$typed" != "$raw" ]; then
    echo "probe_$a differs from probe_$b:" >&2
    diff <(echo "$typed") <(echo "$raw") >&2 || true
    exit 1
  fi
  echo "probe_$a = probe_$b, $(wc -l <<<"$typed") instructions: $(tr '\n' ';' <<<"$typed")"
done

step "runtime checks passed"
