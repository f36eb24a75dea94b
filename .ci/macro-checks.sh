#!/usr/bin/env bash
# memory_plan! checks that need a target of their own: a plan over the target's address space
# fails to build for a 32-bit target, with memplan's message (the same plan is valid for a
# 64-bit target, but checking that would make rustc const-evaluate a 5 GiB static, so it is
# not run here); a large capacity with a small plan builds for it. And the macro's dependency
# tree (its own, a no_std library's that uses it, and the firmware's with memplan-build) has
# no serde crate.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add thumbv7em-none-eabihf >/dev/null
crate=tests/target-address-space
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

echo "-- 8 GiB capacity, 16-byte plan, thumbv7em (32-bit): must build"
cargo check --manifest-path "$crate/Cargo.toml" --target thumbv7em-none-eabihf -q
echo "ok: an 8 GiB capacity with a small plan builds for a 32-bit target"

echo "-- 5 GiB plan, thumbv7em (32-bit): must fail with memplan's message"
if out=$(cargo check --manifest-path "$crate/Cargo.toml" --target thumbv7em-none-eabihf --features big-plan -q 2>&1); then
  echo "FAIL: a 5 GiB plan built for a 32-bit target"; exit 1
fi
if ! grep -q "memplan: the plan needs more bytes than the target's address space" <<<"$out"; then
  echo "FAIL: the 32-bit build failed without memplan's message:"; echo "$out"; exit 1
fi
echo "ok: the 32-bit build fails with: memplan: the plan needs more bytes than the target's address space"

echo "-- the macro builds without serde: CSV plan files are read with csv-core, JSON ones are"
echo "   memplan-planner's optional feature"
# The firmware's tree with its build-dependencies: memplan-build shares memplan-planner with
# the macro, so its `json` feature (off by default) would bring serde back.
for tree in "cargo tree -p memplan-macros -e normal" \
    "cargo tree --manifest-path tests/cross-lib/Cargo.toml -e normal" \
    "cargo tree --manifest-path examples/firmware/Cargo.toml -e normal,build --target thumbv7em-none-eabihf"; do
  out=$($tree) || { echo "FAIL: \`$tree\` failed"; exit 1; }
  if grep -E " (serde|serde_core|serde_derive|serde_json) v" <<<"$out"; then
    echo "FAIL: \`$tree\` has serde (above): memory_plan! must build without it"; exit 1
  fi
done
echo "ok: no serde, serde_core, serde_derive or serde_json under memory_plan!"
