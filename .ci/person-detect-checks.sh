#!/usr/bin/env bash
# Person detection (examples/person-detect, its own crate): format, lints, unit tests and
# the planned model on the host; the layer-by-layer check of the kernels against LiteRT
# 2.3.0 (a fixture dumped by tools/dump_fixture.py in a pinned Python environment,
# target/person-detect-venv, then every operator and the whole network compared byte for
# byte, for both test images and both LiteRT configurations); the committed test data
# re-made by tools/expected_outputs.py and compared; and the firmware, the model planned
# by memory_plan!, run on QEMU's mps2-an386 (it must print LiteRT's bytes for both
# images and exit 0), its section sizes checked against examples/person-detect/sizes.txt;
# and three copies of the crate that must not compile, with memplan's message: a region
# too small for the model's tensors, kernels without one of its operators, a missing model.
#
# Installs what it needs (python3-venv and qemu-system-arm with apt-get, the target and
# llvm-tools with rustup). Run from anywhere: `bash .ci/person-detect-checks.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/sizes.sh
ROOT=$PWD
export CARGO_TERM_COLOR=never
PD=examples/person-detect
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/person-detect"
FIXTURE="$ROOT/target/person-detect-fixture"
venv="$ROOT/target/person-detect-venv"
ELF="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/memplan-person-detect"
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# The crate's .cargo/config.toml builds for the firmware's target by default; the host's
# builds and tests say --target host-tuple.
HOST=(--target host-tuple)

step "person-detect: install: the thumbv7em target, llvm-tools, qemu-system-arm"
rustup target add thumbv7em-none-eabihf >/dev/null
rustup component add llvm-tools >/dev/null
if ! command -v qemu-system-arm >/dev/null; then
  apt-get update -qq >/dev/null && apt-get install -y -qq qemu-system-arm >/dev/null
fi
SYSROOT=$(rustc --print sysroot)
SIZE="$(ls -d "$SYSROOT"/lib/rustlib/*/bin | head -n1)/llvm-size"
[ -x "$SIZE" ] || fail "llvm-size not found"

step "person-detect: format, lints (host and firmware), docs, unit tests and the planned model on the host"
(cd "$PD" && cargo fmt -- --check)
(cd "$PD" && cargo clippy "${HOST[@]}" --all-targets -- -D warnings)
(cd "$PD" && cargo clippy --release -- -D warnings)
(cd "$PD" && RUSTDOCFLAGS="-D warnings" cargo doc "${HOST[@]}" --no-deps -q)
(cd "$PD" && cargo test "${HOST[@]}" --release)

step "person-detect: the LiteRT fixture"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
  apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$venv"
}
"$venv/bin/pip" install -q -r "$PD/tools/requirements.txt"
"$venv/bin/python" "$PD/tools/dump_fixture.py" --out "$FIXTURE"

step "person-detect: every operator and the whole network against LiteRT, byte for byte"
out=$(cd "$PD" && PERSON_DETECT_FIXTURE="$FIXTURE" cargo test "${HOST[@]}" --release --test layer_by_layer -- --ignored --nocapture 2>&1) \
  || { echo "$out"; exit 1; }
echo "$out"
[ "$(grep -c 'operators equal to LiteRT: 31/31' <<<"$out")" = 4 ]
[ "$(grep -c 'chained: 31/31 operators equal' <<<"$out")" = 4 ]
(cd "$PD" && PERSON_DETECT_FIXTURE="$FIXTURE" cargo run "${HOST[@]}" --release -q --example scores)

step "person-detect: the committed inputs and expected outputs are LiteRT's now"
"$venv/bin/python" "$PD/tools/expected_outputs.py" --check

step "person-detect: the firmware on QEMU (cargo run --release in $PD)"
out=$(cd "$PD" && timeout 600 cargo run -q --release 2>&1) || { echo "$out"; fail "the firmware failed (exit code non-zero)"; }
echo "$out"
grep -q "^person: no person -113 person 113, LiteRT's bytes: yes;" <<<"$out" || fail "person: not LiteRT's bytes"
grep -q "^no_person: no person 57 person -57, LiteRT's bytes: yes;" <<<"$out" || fail "no_person: not LiteRT's bytes"
grep -q "^matches LiteRT: yes" <<<"$out" || fail "the firmware's outputs do not match LiteRT's"

step "person-detect: section sizes against $PD/sizes.txt"
current=$("$SIZE" -A "$ELF" | awk '$1 ~ /^\.(vector_table|text|rodata|data|bss)$/ || ($1 ~ /^\.memplan\./ && $1 != ".memplan.info") { print $1, $2 }')
echo "$current"
check_sizes "$PD/sizes.txt" "$current" || fail "RAM or flash grew past $PD/sizes.txt"

# ---- Mistakes a user makes, each in a copy of the crate with one change: memplan's words ----
variant() {
  local dir="$CARGO_TARGET_DIR/variants/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  cp -r "$PD"/Cargo.toml "$PD"/Cargo.lock "$PD"/build.rs "$PD"/memory.x "$PD"/src "$PD"/data "$PD"/.cargo "$dir"/
  sed -i "s|path = \"../../|path = \"$ROOT/|" "$dir/Cargo.toml"
  sed -i "s|\"../../data/tflite/person_detect.tflite\"|\"$ROOT/examples/data/tflite/person_detect.tflite\"|" "$dir/src/model.rs"
  echo "$dir"
}
# expect_failure DIR WANT...: the library does not compile, and its errors hold each WANT.
expect_failure() {
  local dir=$1 out want
  shift
  if out=$(cd "$dir" && cargo check -q "${HOST[@]}" --lib 2>&1); then fail "$(basename "$dir"): compiled, but must fail"; fi
  for want in "$@"; do
    grep -qF -- "$want" <<<"$out" || { echo "$out" >&2; fail "$(basename "$dir"): no \"$want\" in the errors"; }
  done
  grep -m1 "^error" <<<"$out"
}

step "person-detect: the firmware on QEMU with debug-canary: every canary intact, LiteRT's bytes"
# The guards (16 bytes after every planned buffer) do not fit the 54 KiB region, which is
# exactly the lower bound: the copy's region takes the bank's rest instead.
d=$(variant canary)
sed -i 's/region act: 54 KiB, memory SRAM3;/region act: memory SRAM3;/' "$d/src/model.rs"
grep -q '^ *region act: memory SRAM3;' "$d/src/model.rs" || fail "canary: the region statement was not found"
out=$(cd "$d" && timeout 900 cargo run -q --release --features memplan-runtime/debug-canary 2>&1) \
  || { echo "$out"; fail "the firmware failed with debug-canary"; }
grep -q "^matches LiteRT: yes" <<<"$out" || { echo "$out"; fail "with debug-canary the outputs are not LiteRT's"; }
grep "^matches LiteRT" <<<"$out"

step "fails: the model's tensors do not fit the region, naming the tensors live at the peak"
d=$(variant overflow)
sed -i 's/region act: 54 KiB, memory SRAM3;/region act: 53 KiB, memory SRAM3;/' "$d/src/model.rs"
expect_failure "$d" 'error: region `act` overflows: needed 55296 bytes, available 54272 (over by 1024)' \
  'peak: 55296 bytes live at step 3' '`MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6`' '`MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6`' \
  'step 3: operator 2 (`CONV_2D`)'

step "fails: kernels without an operator the model runs, naming the operator"
d=$(variant no-pool-kernel)
python3 - "$d/src/model.rs" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s2 = re.sub(r"impl person::AveragePool2d for Kernels \{.*?\n\}\n", "", s, flags=re.S)
assert s2 != s, "no AveragePool2d impl to remove"
open(p, "w").write(s2)
PY
expect_failure "$d" 'has no kernel for `AVERAGE_POOL_2D`, which model'

step "fails: a missing model file"
d=$(variant no-model)
sed -i "s|person_detect.tflite\";|person_detect_missing.tflite\";|" "$d/src/model.rs"
expect_failure "$d" 'person_detect_missing.tflite` not found'

step "person-detect checks passed"
