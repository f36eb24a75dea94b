#!/usr/bin/env bash
# The published crates as crates.io would get them, before any of them is published:
#
# - metadata: every published crate has a description, license, repository, documentation,
#   readme, keywords, categories and rust-version; every other package says
#   `publish = false`; each published crate's LICENSE-MIT and LICENSE-APACHE are copies of
#   the root's (memplan-flatbuffers, the code generated from TensorFlow Lite's and
#   ExecuTorch's schemas, is under theirs: Apache-2.0 AND BSD-3-Clause, with
#   LICENSE-APACHE and ExecuTorch's LICENSE as LICENSE-BSD-3-Clause);
# - `cargo package` of the seven crates in one call: Cargo packages them in dependency order
#   and verifies each against the `.crate` files of the others (a local registry overlay
#   under target/package-verify/package), so their `=0.1.0` dependencies on each other resolve although
#   none is on crates.io (packaging one of them alone fails: "no matching package named
#   `memplan-planner` found");
# - each `.crate`: its README and both license files, no file over 1 MiB (but flatc's output), no model or data
#   file (examples/ holds models of several MiB: no package may carry them), under 2 MiB in
#   all;
# - the declared MSRV: the published crates built, every feature on, with the
#   `rust-version` the workspace declares (installed with rustup, minimal profile).
#
# Run from anywhere: `bash .ci/package.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
ROOT=$PWD
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# The packages are verified in a target folder of their own, emptied first: cargo takes a
# registry crate's build for fresh whatever its sources, so a rerun after a change to a crate
# of the same version would build the others against the stale one. For the same reason the
# sources cargo unpacked from its local registry of the packages (under
# CARGO_HOME/registry/src/<that registry's hash>/) go too.
VERIFY_DIR="$TARGET_DIR/package-verify"
PACKAGES="$VERIFY_DIR/package"
rm -rf "$VERIFY_DIR"
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  case "$(basename "$d")" in index.crates.io-*) continue ;; esac
  rm -rf "$d"memplan-*
done
# Dependency order (cargo orders them itself; this order is also the one to publish in).
CRATES=(memplan-flatbuffers memplan-planner memplan-lang memplan-macros memplan-runtime memplan-build memplan-cli)
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "metadata of the published crates; publish = false on the others"
python3 - "${CRATES[@]}" <<'PY'
import json, subprocess, sys
published = sys.argv[1:]
LICENSES = {"memplan-flatbuffers": "Apache-2.0 AND BSD-3-Clause"}
meta = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                                 check=True, capture_output=True, text=True).stdout)
faults, placeholder = [], []
for p in meta["packages"]:
    name = p["name"]
    if name in published:
        for field in ["description", "license", "repository", "documentation", "readme",
                      "rust_version", "keywords", "categories"]:
            if not p.get(field):
                key = field.replace("_", "-")
                faults.append(f"{name}: no `{key}`")
        want = LICENSES.get(name, "MIT OR Apache-2.0")
        if p.get("license") != want:
            faults.append(f"{name}: the license is {p.get('license')!r}, not {want}")
        if p.get("publish") == []:
            faults.append(f"{name}: publish = false, but it is a published crate")
        repository = p.get("repository") or ""
        if "example.invalid" in repository:
            placeholder.append(name)
    elif p.get("publish") != []:
        faults.append(f"{name}: not a published crate, but without publish = false")
missing = set(published) - {p["name"] for p in meta["packages"]}
faults += [f"{name}: not a workspace member" for name in sorted(missing)]
if placeholder:
    print("note: the repository URL is still a placeholder (example.invalid):", ", ".join(placeholder))
for f in faults:
    print("FAIL:", f)
sys.exit(1 if faults else 0)
PY
# The license files each crate must carry.
license_files() {
  if [ "$1" = memplan-flatbuffers ]; then echo LICENSE-APACHE LICENSE-BSD-3-Clause; else echo LICENSE-MIT LICENSE-APACHE; fi
}
for c in "${CRATES[@]}"; do
  for f in $(license_files "$c"); do
    case $f in
      LICENSE-BSD-3-Clause) src=memplan-flatbuffers/schema/executorch/LICENSE ;;
      *) src=$f ;;
    esac
    cmp -s "$src" "$c/$f" || fail "$c/$f is not a copy of $src (cp $src $c/$f)"
  done
done
echo "ok: metadata and license files"

step "cargo package, the seven crates together (dependency order, verified)"
package_args=()
for c in "${CRATES[@]}"; do package_args+=(-p "$c"); done
# --allow-dirty: the script also runs in a working copy with changes; what is packed is
# checked below, file by file.
rc=0
out=$(CARGO_TARGET_DIR="$VERIFY_DIR" cargo package --locked --allow-dirty "${package_args[@]}" 2>&1) || rc=$?
grep -v -E '^ +(Compiling|Checking|Downloaded|Downloading|Archiving|Locking|Adding|Updating)' <<<"$out" || true
[ "$rc" = 0 ] || fail "cargo package failed (exit code $rc)"

step "the contents of each .crate"
for c in "${CRATES[@]}"; do
  crate="$PACKAGES/$c-0.1.0.crate"
  [ -f "$crate" ] || fail "no $crate"
  listing=$(tar -tvzf "$crate")
  files=$(tar -tzf "$crate" | sed "s|^$c-0.1.0/||")
  for want in Cargo.toml README.md $(license_files "$c"); do
    grep -qx "$want" <<<"$files" || fail "$c: the package has no $want"
  done
  grep -qE '^src/(lib|main)\.rs$' <<<"$files" || fail "$c: the package has no src/lib.rs or src/main.rs"
  if grep -E '\.(tflite|pte|onnx|npy|npz|bin|elf|pb|safetensors)$|^target/|^examples/data/|(^|/)\.' <<<"$files" |
      grep -vxE '\.cargo_vcs_info\.json'; then
    fail "$c: the package carries the files above (models, data, build output or hidden files)"
  fi
  # flatc's generated code (memplan-flatbuffers/src/generated) is the one exception: TFLite's
  # schema gives a 1.3 MB file with the object API.
  big=$(awk '$3 > 1048576 && $6 !~ /^memplan-flatbuffers-[^/]*\/src\/generated\// { print $6, $3 }' <<<"$listing")
  [ -z "$big" ] || fail "$c: files over 1 MiB: $big"
  bytes=$(stat -c %s "$crate")
  [ "$bytes" -lt 2097152 ] || fail "$c: the .crate is $bytes bytes, over 2 MiB"
  total=$(awk '{ s += $3 } END { print s }' <<<"$listing")
  echo "$c: $(wc -l <<<"$files") files, $total bytes unpacked, $bytes bytes packed"
done

MSRV=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print({p["rust_version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "memplan-runtime"}.pop())')
step "the declared MSRV, Rust $MSRV: the published crates build with it, every feature on"
if ! rustup toolchain list | grep -q "^$MSRV"; then
  rustup toolchain install "$MSRV" --profile minimal >/dev/null
fi
# A target folder of its own: another compiler's artifacts would be rebuilt in the main one.
CARGO_TARGET_DIR="$TARGET_DIR/msrv" timeout 900 cargo "+$MSRV" build -q --locked --all-features "${package_args[@]}" ||
  fail "the published crates do not build with Rust $MSRV, the rust-version they declare"
echo "ok: the published crates build with Rust $MSRV"

step "package checks passed"
