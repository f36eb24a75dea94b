#!/usr/bin/env bash
# The firmware on an emulated Cortex-M4 (QEMU's mps2-an386): built, linked with memplan's
# generated linker fragment, run, its predictions checked against the reference; the ELF
# checked (every arena NOBITS, the loadable image the size of the flash contents); the plan
# read back with memplan inspect (the same report as memplan check on the source) and the
# fragment printed by memplan linker (the same as the build script's); the
# section sizes checked against examples/firmware/sizes.txt; the library part built for
# thumbv6m-none-eabi with the critical-section backend; the firmware and the main job
# (`executorch-models`) run with memplan-runtime/debug-canary, which must pass, and the
# firmware's planted overrun (feature `planted-overrun`), which the canary must catch,
# naming the buffer and the step; and four builds that must fail
# with memplan's message: a region that overflows its capacity, a region larger than its
# memory bank in memory.x (at compile time), an arena that does not fit the bank it shares
# with .data, .bss and the stack (at link time), and a firmware linked without the
# fragment.
#
# Installs what it needs (qemu-system-arm with apt-get, targets and llvm-tools with rustup).
# Run from anywhere: `bash .ci/firmware-checks.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/sizes.sh
ROOT=$PWD
export CARGO_TERM_COLOR=never
FW=examples/firmware
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/firmware"
ELF="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/memplan-firmware"
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "install: qemu-system-arm, thumbv7em and thumbv6m targets, llvm-tools"
if ! command -v qemu-system-arm >/dev/null; then
  apt-get update -qq >/dev/null && apt-get install -y -qq qemu-system-arm >/dev/null
fi
rustup target add thumbv7em-none-eabihf thumbv6m-none-eabi >/dev/null
rustup component add llvm-tools >/dev/null
SYSROOT=$(rustc --print sysroot)
LLVM_BIN=$(ls -d "$SYSROOT"/lib/rustlib/*/bin | head -n1)
OBJCOPY="$LLVM_BIN/llvm-objcopy"
SIZE="$LLVM_BIN/llvm-size"
READELF() { "$LLVM_BIN/llvm-readobj" --elf-output-style=GNU "$@"; }
[ -x "$OBJCOPY" ] && [ -x "$SIZE" ] || fail "llvm-objcopy / llvm-size not found in $LLVM_BIN"

step "run: the firmware under QEMU (cargo run --release in $FW)"
out=$(cd "$FW" && timeout 300 cargo run -q --release 2>&1) || { echo "$out"; fail "the firmware failed"; }
echo "$out"
grep -q "matches reference: yes" <<<"$out" || fail "the firmware's predictions do not match the reference"

step "check: every arena section is NOBITS, the plan's description is not allocated, and the loadable image is the flash contents"
sections=$(READELF -S --wide "$ELF")
arenas=$(grep -E '\.memplan\.[^ ]*\.(region|pool)\.' <<<"$sections" || true)
[ -n "$arenas" ] || fail "no memplan arena section in the ELF"
if grep -v NOBITS <<<"$arenas"; then fail "an arena section is loadable (PROGBITS)"; fi
echo "$arenas"
info=$(grep -E ' \.memplan\.info ' <<<"$sections" || true)
[ -n "$info" ] || fail "no .memplan.info section (the plan's description) in the ELF"
echo "$info"
# Its flags (the column before the link fields) must not hold A: never loaded.
flags=$(awk '{ for (i = 1; i <= NF; i++) if ($i == ".memplan.info") { print $(i + 6); exit } }' <<<"$info")
[[ "$flags" != *A* ]] || fail ".memplan.info is allocated (flags $flags)"
"$OBJCOPY" -O binary "$ELF" "$CARGO_TARGET_DIR/memplan-firmware.bin"
image=$(stat -c %s "$CARGO_TARGET_DIR/memplan-firmware.bin")
# The flash contents: the end of the last loadable byte (a LOAD segment's physical, that is
# load, address plus its file size), from address 0 (FLASH's origin in memory.x).
flash=0
while read -r _ _ _ phys filesz _; do
  end=$((phys + filesz))
  if (( filesz > 0 && end > flash )); then flash=$end; fi
done < <(READELF -l --wide "$ELF" | awk '$1 == "LOAD"')
echo "loadable image: $image bytes; flash contents end at byte $flash"
[ "$image" = "$flash" ] || fail "the image ($image bytes) is not the flash contents ($flash bytes)"
[ "$image" -lt 1048576 ] || fail "the image is over 1 MiB"

step "check: memplan inspect reads the plan back from the ELF as memplan check plans it from the source"
WORKSPACE_TARGET="${CARGO_TARGET_DIR%/firmware}"
CARGO_TARGET_DIR="$WORKSPACE_TARGET" cargo build -q -p memplan-cli
MEMPLAN="$WORKSPACE_TARGET/debug/memplan"
inspected=$("$MEMPLAN" inspect --report "$ELF")
echo "$inspected"
checked=$(cd "$FW" && "$MEMPLAN" check src/lib.rs)
[ "$inspected" = "$checked" ] || { echo "$checked"; fail "memplan inspect and memplan check disagree"; }
"$MEMPLAN" inspect "$ELF" --svg "$CARGO_TARGET_DIR/digits.svg" >/dev/null
rects=$(grep -o '<rect id="buf-' "$CARGO_TARGET_DIR/digits.svg" | wc -l)
[ "$rects" = 7 ] || fail "the map drawn from the ELF has $rects buffer rectangles, not the plan's 7"

step "check: $FW/memplan.lock is fresh (memplan lock --check)"
# The firmware commits its lock: every invocation has an entry whose fingerprint matches and
# whose offsets pass the validator, and no entry is left without an invocation.
(cd "$FW" && "$MEMPLAN" lock --check src) || fail "$FW/memplan.lock is stale: run \`memplan lock\` in $FW and commit it"

step "check: memplan linker prints the fragment the build script wrote"
# The out dir of the build script behind the ELF run above, as cargo reports it: a target
# kept from an earlier run also holds the out dirs of other feature sets (debug-canary).
out_dir=$(cd "$FW" && cargo build -q --release --message-format=json | python3 -c '
import json, re, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "build-script-executed" and re.search(r"(/memplan-firmware#|#memplan-firmware@)", m["package_id"]):
        print(m["out_dir"])')
[ -n "$out_dir" ] || fail "cargo reported no build script run for memplan-firmware"
fragment="$out_dir/memplan.x"
(cd "$FW" && "$MEMPLAN" linker src/lib.rs) | diff - "$fragment" || fail "memplan linker differs from $fragment"

step "check: section sizes against $FW/sizes.txt"
current=$("$SIZE" -A "$ELF" | awk '$1 ~ /^\.(text|rodata|data|bss)$/ || ($1 ~ /^\.memplan\./ && $1 != ".memplan.info") { print $1, $2 }')
echo "$current"
check_sizes "$FW/sizes.txt" "$current" || fail "RAM or flash grew past $FW/sizes.txt"

step "build: the firmware's library for thumbv6m-none-eabi, critical-section backend"
(cd "$FW" && cargo build -q --release --lib --target thumbv6m-none-eabi --features critical-section)

step "run: the firmware with memplan-runtime/debug-canary (poison and canaries at every step)"
out=$(cd "$FW" && timeout 300 cargo run -q --release --features memplan-runtime/debug-canary 2>&1) ||
  { echo "$out"; fail "the firmware failed with debug-canary on"; }
echo "$out" | tail -n 1
grep -q "matches reference: yes" <<<"$out" || fail "with debug-canary, the predictions do not match the reference"

step "fails: a planted overrun (one byte past \`pixels\` at step 0), caught by the canary"
if out=$(cd "$FW" && timeout 300 cargo run -q --release --features planted-overrun 2>&1); then
  echo "$out"; fail "planted-overrun: the firmware exited 0, but the canary must stop it"
fi
want='memplan: buffer `pixels` (live 0..=0) wrote past its end: its canary changed by step 1'
grep -qF -- "$want" <<<"$out" || { echo "$out" >&2; fail "planted-overrun: no \"$want\""; }
grep -F -- "$want" <<<"$out"

step "run: the main job (every ExecuTorch model walked) with memplan-runtime/debug-canary"
# Its own target folder: the host build of the workspace, not the firmware's.
out=$(CARGO_TARGET_DIR="$WORKSPACE_TARGET" timeout 1800 cargo run -q --release --bin executorch-models \
  --features memplan-runtime/debug-canary 2>&1) || { echo "$out"; fail "the main job failed with debug-canary on"; }
echo "$out" | tail -n 3

# ---- Builds that must fail, each in a copy of the firmware with one change ----------------
variant() {
  local name=$1 dir="$CARGO_TARGET_DIR/variants/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  cp -r "$FW"/. "$dir"/
  rm -rf "$dir/target"
  sed -i "s|path = \"../../|path = \"$ROOT/|" "$dir/Cargo.toml"
  echo "$dir"
}
# Each variant builds in a target folder of its own (they share the package's name).
build_variant() { (cd "$1" && CARGO_TARGET_DIR="$1/target" cargo build -q --release 2>&1); }
expect_failure() {
  local dir=$1 want=$2 out
  if out=$(build_variant "$dir"); then fail "$(basename "$dir"): built, but must fail"; fi
  grep -q -- "$want" <<<"$out" || { echo "$out" >&2; fail "$(basename "$dir"): no \"$want\" in the errors"; }
  echo "$out" | grep -m1 -E "^(error|rust-lld: error)" || true
}

step "fails: a region that overflows its capacity, with the spanned message"
d=$(variant region-overflow)
sed -i 's/region act: 256 bytes, memory SRAM3;/region act: 64 bytes, memory SRAM3;/' "$d/src/lib.rs"
expect_failure "$d" 'error: region `act` overflows: needed 96 bytes, available 64 (over by 32)'

step "fails: a region larger than its memory bank in memory.x, at compile time"
d=$(variant bank-too-small)
sed -i 's/SRAM3 : ORIGIN = 0x20200000, LENGTH = 2M/SRAM3 : ORIGIN = 0x20200000, LENGTH = 64/' "$d/memory.x"
expect_failure "$d" 'error: region `act` has a capacity of 256 bytes, more than memory `SRAM3` has: 64 bytes'

step "fails: a bank the arena shares with .data, .bss and the stack, with memplan's link error first"
d=$(variant bank-shared)
# 96 bytes (the plan's need) fit 160 at compile time; with .data (72) before them, not.
sed -i 's/region act: 256 bytes, memory SRAM3;/region act: 96 bytes, memory RAM;/' "$d/src/lib.rs"
sed -i 's/RAM   : ORIGIN = 0x20000000, LENGTH = 2M/RAM   : ORIGIN = 0x20000000, LENGTH = 160/' "$d/memory.x"
out=$(build_variant "$d") && fail "bank-shared: linked, but must fail"
first=$(grep -m1 -oE "rust-lld: error: [^ ].*" <<<"$out" || true)
echo "$first"
grep -q 'memplan: region `act` of plan `digits` needs 96 bytes of memory RAM' <<<"$first" ||
  { echo "$out" >&2; fail "bank-shared: the first link error is not memplan's"; }

step "fails: an arena placed in a memory, linked without memplan's fragment"
d=$(variant no-fragment)
sed -i 's/memplan_build::linker_fragment(\["src\/lib.rs"\]).expect("memplan.s linker fragment");/let _ = "no fragment";/' "$d/build.rs"
grep -q 'no fragment' "$d/build.rs" || fail "no-fragment: build.rs was not changed"
expect_failure "$d" 'undefined symbol: __memplan_plan_digits_region_act_in_memplan_firmware_is_not_placed__add_memplan_build_linker_fragment_to_build_rs'

step "check: memplan inspect's addresses are the arena statics' addresses (llvm-nm)"
NM="$LLVM_BIN/llvm-nm"
shown=$("$MEMPLAN" inspect "$ELF")
echo "$shown"
symbols=$("$NM" "$ELF")
for arena in "region io __MEMPLAN_ARENA_0" "region act __MEMPLAN_ARENA_1" "pool temp __MEMPLAN_TEMP"; do
  read -r kind name item <<<"$arena"
  want=$(awk -v s="6digits${#item}${item}17h" 'index($3, s) { print "0x" $1 }' <<<"$symbols")
  got=$(awk -v k="$kind" -v n="$name" '$1 == k && $2 == n { print $3 }' <<<"$shown")
  [ -n "$want" ] && [ "$got" = "$want" ] || fail "inspect puts $kind $name at ${got:-nothing}; llvm-nm has $item at ${want:-nothing}"
done

step "firmware checks passed"
