#!/usr/bin/env bash
# The real runtimes judge memplan's write-back: for each committed model file
# (examples/data/tflite/*.tflite, examples/data/pte/*.pte), `memplan plan MODEL --write OUT`
# writes the model with memplan's memory plan, and the runtimes must compute exactly what
# they compute on the original (scripts/models/README.md says what each judge checks):
#   .tflite: tflite_same_model.py (nothing but the plan changed), tflm_judge.py (TFLite
#            Micro runs it on the plan, outputs identical, arena use), litert_judge.py;
#   .pte:    executorch_judge.py (ExecuTorch's runtime, outputs identical, arena sizes).
# Then each judge's self-test (an exact copy passes, a broken plan fails).
#
# MEMPLAN_MODELS_SELFTEST=1 judges stand-ins instead of the CLI's files (a .tflite with an
# offline plan made by scripts/models/tflite_plan.py, an exact copy of each .pte): the way
# to run this stage before the CLI has `--write`. Without it, a CLI without `--write` fails
# the stage and says so.
#
# Installs what it needs into target/ (two venvs, pinned requirements); exits non-zero on
# any mismatch. Run from anywhere: `bash .ci/models.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

start=$(date +%s)
step_start=$start
step() {
  echo "== [$(($(date +%s) - start)) s] $*"
  step_start=$(date +%s)
}
step_done() { echo "   ($* took $(($(date +%s) - step_start)) s)"; }
die() { echo "models: $*" >&2; exit 1; }

TFLITE_VENV=target/models-venv-tflite
ET_VENV=target/models-venv-executorch
OUT=target/models-written
REQ=scripts/models
# Models a runtime here has no kernel for (its judge's exit 3): Vela's ethos-u operator
# (both), TFLM's signal library's custom operators (LiteRT). Judged by the others.
NOT_RUNNABLE_TFLM=(person_detect_vela.tflite)
NOT_RUNNABLE_LITERT=(person_detect_vela.tflite audio_preprocessor_int8.tflite)
# Models whose outputs no input family changes (the judges' exit 5, model_inputs.py): TFLM's
# keyword benchmark model has scrambled weights and gives one output for every input. Its
# written plan is judged by TFLM built from its sources (.ci/tflm-host.sh: every buffer
# TFLM plans at a place no other buffer live with it takes) and as a file.
INPUT_INDEPENDENT=(keyword_scrambled.tflite)

make_venv() {
  [ -x "$1/bin/python" ] || python3 -m venv "$1" || {
    apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$1"
  } || die "cannot create a venv at $1"
}

step "install: $TFLITE_VENV (requirements-tflite.txt)"
make_venv "$TFLITE_VENV"
"$TFLITE_VENV/bin/pip" install -q -r "$REQ/requirements-tflite.txt" || die "pip install (tflite) failed"
step_done "the LiteRT/TFLM install"

step "install: $ET_VENV (requirements-executorch.txt, --no-deps)"
make_venv "$ET_VENV"
"$ET_VENV/bin/pip" install -q --no-deps -r "$REQ/requirements-executorch.txt" || die "pip install (executorch) failed"
step_done "the ExecuTorch install"

tflite_models=(examples/data/tflite/*.tflite)
pte_models=(examples/data/pte/*.pte)
rm -rf "$OUT"
mkdir -p "$OUT"

if [ "${MEMPLAN_MODELS_SELFTEST:-0}" = 1 ]; then
  step "self-test mode: stand-ins for memplan's write-back (no CLI involved)"
  for m in "${tflite_models[@]}"; do
    "$TFLITE_VENV/bin/python" "$REQ/tflite_plan.py" naive "$m" "$OUT/$(basename "$m")" || die "stand-in for $m"
  done
  for m in "${pte_models[@]}"; do cp "$m" "$OUT/"; done
else
  step "memplan plan MODEL --write OUT (the CLI's write-back)"
  cargo build -q --release -p memplan-cli || die "cargo build -p memplan-cli failed"
  plan_help=$(cargo run -q --release -p memplan-cli -- plan --help 2>&1)
  if ! grep -q -- '--write' <<<"$plan_help"; then
    die "FAIL: \`memplan plan\` does not accept --write yet: this stage needs the CLI's write-back" \
      "(memplan plan MODEL --write OUT for .tflite and .pte). Run MEMPLAN_MODELS_SELFTEST=1 bash .ci/models.sh" \
      "to judge stand-ins instead."
  fi
  for m in "${tflite_models[@]}" "${pte_models[@]}"; do
    cargo run -q --release -p memplan-cli -- plan "$m" --write "$OUT/$(basename "$m")" >/dev/null ||
      die "memplan plan $m --write failed"
  done
fi
step_done "writing"

failures=()
not_run=()
not_by_outputs=()
listed() { # listed NAME LIST...: whether NAME is one of LIST
  local n=$1
  shift
  for x in "$@"; do [ "$x" = "$n" ] && return 0; done
  return 1
}
judge() { # judge LABEL UNRUNNABLE INPUT_INDEPENDENT PYTHON SCRIPT ORIGINAL WRITTEN
  local label=$1 unrunnable=$2 independent=$3 rc log="$OUT/${1// /-}.log"
  shift 3
  "$@" >"$log" 2>&1
  rc=$?
  # ExecuTorch's CPU probe and torch's pytree notice are noise here.
  grep -v -e 'cpuinfo_utils.cpp' -e 'register_constant()' -e '^W[0-9]* ' "$log"
  if [ $rc = 3 ] && [ "$unrunnable" = 1 ]; then
    not_run+=("$label")
  elif [ $rc = 5 ] && [ "$independent" = 1 ]; then
    not_by_outputs+=("$label")
  elif [ $rc != 0 ]; then
    failures+=("$label (exit $rc)")
  fi
}

step "judges: .tflite models (same model, TFLite Micro, LiteRT)"
for m in "${tflite_models[@]}"; do
  name=$(basename "$m")
  tflm=0 litert=0 independent=0
  listed "$name" "${NOT_RUNNABLE_TFLM[@]}" && tflm=1
  listed "$name" "${NOT_RUNNABLE_LITERT[@]}" && litert=1
  listed "$name" "${INPUT_INDEPENDENT[@]}" && independent=1
  w="$OUT/$name"
  judge "same model $name" 0 0 "$TFLITE_VENV/bin/python" "$REQ/tflite_same_model.py" "$m" "$w"
  judge "tflm $name" $tflm $independent "$TFLITE_VENV/bin/python" "$REQ/tflm_judge.py" "$m" "$w"
  judge "litert $name" $litert $independent "$TFLITE_VENV/bin/python" "$REQ/litert_judge.py" "$m" "$w"
done
step_done "the .tflite judges"

step "judges: .pte programs (ExecuTorch)"
pairs=()
for m in "${pte_models[@]}"; do pairs+=("$m" "$OUT/$(basename "$m")"); done
judge "executorch" 0 0 "$ET_VENV/bin/python" "$REQ/executorch_judge.py" "${pairs[@]}"
step_done "the .pte judges"

step "self-tests: each judge on an exact copy (must pass) and on broken files (must fail)"
sel() { # sel LABEL COMMAND...
  local label=$1 log
  shift
  log="$OUT/selftest-$label.log"
  if "$@" >"$log" 2>&1; then
    echo "   $label: $(tail -n 1 "$log")"
  else
    echo "   $label: FAILED, log:"
    cat "$log"
    failures+=("self-test $label")
  fi
}
sel tflm "$TFLITE_VENV/bin/python" "$REQ/tflm_judge.py" --self-test "${tflite_models[@]}"
sel litert "$TFLITE_VENV/bin/python" "$REQ/litert_judge.py" --self-test "${tflite_models[@]}"
sel same-model "$TFLITE_VENV/bin/python" "$REQ/tflite_same_model.py" --self-test "${tflite_models[@]}"
sel executorch "$ET_VENV/bin/python" "$REQ/executorch_judge.py" --self-test "${pte_models[@]}"
sel person-detect-reference "$TFLITE_VENV/bin/python" "$REQ/person_detect_reference.py" --check --no-tensors
step_done "the self-tests"

echo
[ ${#not_run[@]} = 0 ] || echo "models: not run (no kernel for them in that runtime; judged by the others): ${not_run[*]}"
[ ${#not_by_outputs[@]} = 0 ] || echo "models: not judged by outputs (no input changes them): ${not_by_outputs[*]}"
if [ ${#failures[@]} != 0 ]; then
  echo "models: FAILED after $(($(date +%s) - start)) s:"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "models: every written model judged identical ($(($(date +%s) - start)) s in all)"
