#!/usr/bin/env bash
# The person detection kernels (examples/person-detect, its own crate): format, lints, unit
# tests, the library built for the firmware's target, and the layer-by-layer check against
# LiteRT 2.3.0: a fixture dumped by tools/dump_fixture.py (pinned Python environment in
# target/person-detect-venv), then every operator and the whole network compared byte for
# byte, for both test images and both LiteRT configurations.
#
# Run from anywhere: `bash .ci/person-detect-checks.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TERM_COLOR=never
PD=examples/person-detect
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/person-detect"
FIXTURE="$ROOT/target/person-detect-fixture"
venv="$ROOT/target/person-detect-venv"

echo "== person-detect: format, lints, docs, unit tests"
(cd "$PD" && cargo fmt -- --check)
(cd "$PD" && cargo clippy --all-targets -- -D warnings)
(cd "$PD" && RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -q)
(cd "$PD" && cargo test --release)

echo "== person-detect: the kernels build for thumbv7em-none-eabihf"
rustup target add thumbv7em-none-eabihf >/dev/null
(cd "$PD" && cargo build --release --lib --target thumbv7em-none-eabihf)

echo "== person-detect: the LiteRT fixture"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
  apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$venv"
}
"$venv/bin/pip" install -q -r "$PD/tools/requirements.txt"
"$venv/bin/python" "$PD/tools/dump_fixture.py" --out "$FIXTURE"

echo "== person-detect: every operator and the whole network against LiteRT, byte for byte"
out=$(cd "$PD" && PERSON_DETECT_FIXTURE="$FIXTURE" cargo test --release --test layer_by_layer -- --ignored --nocapture 2>&1) \
  || { echo "$out"; exit 1; }
echo "$out"
[ "$(grep -c 'operators equal to LiteRT: 31/31' <<<"$out")" = 4 ]
[ "$(grep -c 'chained: 31/31 operators equal' <<<"$out")" = 4 ]
(cd "$PD" && PERSON_DETECT_FIXTURE="$FIXTURE" cargo run --release -q --example scores)
