#!/usr/bin/env bash
# TensorFlow Lite Micro built for the host from its own sources judges memplan's
# written-back models (scripts/models/README.md, "TFLM built from its sources"):
# scripts/models/tflm_host/build.sh compiles TFLM's MicroInterpreter, the kernels of the
# committed models' operators and the driver tflm_run; for every committed
# examples/data/tflite/*.tflite model TFLM has the operators of, `memplan plan MODEL --write
# OUT` writes the model with memplan's offline plan (and once more with --align 64);
# scripts/models/tflm_host_judge.py requires identical outputs on the model's fixed inputs
# (seeded sets that change the outputs, in a row on one interpreter, and TFLM's two test
# images for person_detect), every planned tensor at its offline offset, no two buffers TFLM
# planned sharing a byte while live, and for memplan's default plan TFLM's head no larger
# than with its own plan and every variable tensor left to TFLM's persistent section; then
# it runs its self-test on every such model. person_detect_vela.tflite (Vela's ethos-u
# custom operator) and audio_preprocessor_int8.tflite (TFLM's signal library, not built
# here) are not judged; this stage requires tflm_run to refuse them (the judge's exit 3).
#
# The sources are not in the repository and CI has no network: when build.sh finds no
# source trees (TFLM_DIR, FLATBUFFERS_DIR, GEMMLOWP_DIR, RUY_DIR, or bare git directories
# under MEMPLAN_MIRRORS) this stage prints one line saying it skipped and why, and exits 0.
# Any other failure fails it. build.sh has no default for MEMPLAN_MIRRORS; this CI stage
# looks in /work/.mirror, where this project's CI machines keep bare copies, when none of
# those is set.
#
# Installs what it needs (a C++ compiler if missing, the tflite venv of .ci/models.sh for
# the judge's Python side). Run from anywhere: `bash .ci/tflm-host.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

start=$(date +%s)
die() { echo "tflm-host: FAILED: $*" >&2; exit 1; }
took() { echo "   ($1: $(($(date +%s) - $2)) s)"; }

if [ -z "${TFLM_DIR:-}${MEMPLAN_MIRRORS:-}" ] && [ -d /work/.mirror ]; then
  export MEMPLAN_MIRRORS=/work/.mirror
fi
out=${MEMPLAN_TFLM_HOST_DIR:-target/tflm-host}
export MEMPLAN_TFLM_HOST_DIR=$out
t=$(date +%s)
echo "== build TFLM for the host (scripts/models/tflm_host/build.sh)"
build_err=$(mktemp)
tflm_run=$(bash scripts/models/tflm_host/build.sh 2>"$build_err")
rc=$?
[ $rc = 2 ] || cat "$build_err" >&2
if [ $rc = 2 ]; then
  echo "tflm-host: SKIPPED: no TFLM sources here ($(grep -m1 'sources not found' "$build_err" | sed 's/^tflm-host: sources not found: //')); CI has no network to fetch them"
  rm -f "$build_err"
  exit 0
fi
rm -f "$build_err"
[ $rc = 0 ] && [ -x "$tflm_run" ] || die "build.sh exit $rc"
took "the build" "$t"

venv=target/models-venv-tflite
t=$(date +%s)
echo "== install: $venv (scripts/models/requirements-tflite.txt)"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
  apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$venv"
} || die "cannot create a venv at $venv"
"$venv/bin/pip" install -q -r scripts/models/requirements-tflite.txt || die "pip install failed"
took "the install" "$t"

# Every committed .tflite model but those whose operators tflm_run has no kernel for:
# Vela's ethos-u custom operator (no host kernel), and TFLM's signal library's operators of
# audio_preprocessor_int8 (not built: they need kissfft, which TFLM's build downloads).
NOT_RUNNABLE=(person_detect_vela.tflite audio_preprocessor_int8.tflite)
models=()
for m in examples/data/tflite/*.tflite; do
  [[ " ${NOT_RUNNABLE[*]} " == *" $(basename "$m") "* ]] || models+=("$m")
done
[ ${#models[@]} -gt 0 ] || die "no .tflite models in examples/data/tflite"

# memplan's default plan of person_detect, hello_world_int8 and micro_speech_quantized is
# TFLM's own plan offset for offset; with 64-byte alignment tensors move (1, 2 and 5 of
# them), so TFLM following those files shows it takes memplan's offsets.
t=$(date +%s)
for model in "${models[@]}"; do
  name=$(basename "$model" .tflite)
  echo "== memplan plan $model --write $out/$name.written.tflite (and --align 64)"
  cargo run -q --release -p memplan-cli -- plan "$model" --write "$out/$name.written.tflite" >/dev/null ||
    die "memplan plan $model --write failed"
  cargo run -q --release -p memplan-cli -- plan "$model" --align 64 --write "$out/$name.align64.written.tflite" >/dev/null ||
    die "memplan plan $model --align 64 --write failed"
done
took "writing" "$t"

t=$(date +%s)
echo "== the judge: each original against its written files, then its self-test"
for model in "${models[@]}"; do
  name=$(basename "$model" .tflite)
  # memplan's default plan must not cost TFLM more than its own (--memplan); the 64-byte
  # aligned one may, by its padding.
  "$venv/bin/python" scripts/models/tflm_host_judge.py --memplan --tflm-run "$tflm_run" "$model" "$out/$name.written.tflite" ||
    die "$out/$name.written.tflite does not pass"
  "$venv/bin/python" scripts/models/tflm_host_judge.py --tflm-run "$tflm_run" "$model" "$out/$name.align64.written.tflite" ||
    die "$out/$name.align64.written.tflite does not pass"
done
for m in "${NOT_RUNNABLE[@]}"; do
  "$venv/bin/python" scripts/models/tflm_host_judge.py --tflm-run "$tflm_run" \
    "examples/data/tflite/$m" "examples/data/tflite/$m"
  rc=$?
  [ $rc = 3 ] || die "$m: the judge gives exit $rc, not 3 (TFLM refuses the original)"
  echo "   $m: not judged (tflm_run has no kernel for its operators)"
done
"$venv/bin/python" scripts/models/tflm_host_judge.py --tflm-run "$tflm_run" --self-test "${models[@]}" ||
  die "the judge's self-test"
took "the judge" "$t"
echo "tflm-host: the written ${models[*]##*/} judged by TFLM built from its sources ($(($(date +%s) - start)) s in all)"
