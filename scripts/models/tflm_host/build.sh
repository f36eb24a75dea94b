#!/usr/bin/env bash
# Builds TensorFlow Lite Micro's MicroInterpreter for the host from TFLM's own sources, and
# links tflm_run.cc (this folder) against it: the runtime `tflm_host_judge.py` runs.
#
#   bash scripts/models/tflm_host/build.sh          # prints the path of tflm_run last
#
# No network: TFLM's Makefile downloads its third-party libraries (and pigweed and kissfft)
# when it is read, so this script compiles TFLM's sources itself:
# - with the flags of TFLM's Makefile for a host build (BUILD_TYPE=default: -std=c++17
#   -fno-rtti -fno-exceptions -fno-threadsafe-statics -DTF_LITE_STATIC_MEMORY
#   -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_USE_CTIME -DKERNELS_OPTIMIZED_FOR_SPEED, the core
#   at -Os, the kernels at -O2), and one define more, TFLM's own TF_LITE_SHOW_MEMORY_USE:
#   MicroAllocator::CommitStaticMemoryPlan then calls the planner's PrintMemoryPlan(), which
#   prints each planned buffer's size, offset and lifetime on stderr (the judge compares the
#   offsets with the model's offline plan); no other code reads that define;
# - from the source lists of TFLM's `tensorflow/lite/micro/tools/make/sources.inc`, read
#   from the tree: MICROLITE_CC_BASE_SRCS without MICROLITE_TEST_SRCS (nor any *_test.cc);
#   of MICROLITE_CC_KERNEL_SRCS, the kernels of the eleven operators tflm_run registers (the
#   operators of every committed model TFLM has host kernels for) and the helpers they call
#   (TFLM_KERNELS=models, the default) or every builtin kernel (TFLM_KERNELS=all); the
#   signal library's kernels are left out either way (they need kissfft, and no model here
#   uses them); and the person_detection example's model_settings.cc (the score indices
#   tflm_run prints).
# Nothing of TFLM is copied into this repository.
#
# The four source trees, each a directory (a work tree, not a git directory):
#   TFLM_DIR         tensorflow/tflite-micro
#   FLATBUFFERS_DIR  google/flatbuffers, the version TFLM's schema_generated.h requires
#   GEMMLOWP_DIR     google/gemmlowp
#   RUY_DIR          google/ruy
# A user clones each repository at its pinned version and names the clones (the commands
# are in scripts/models/README.md, "The sources"). Each one not set is extracted
# (`git archive`) from a bare git directory under MEMPLAN_MIRRORS, when that is set (no
# default): `tensorflow+tflite-micro/repo` at TFLM_COMMIT
# (default 90b983c2b3f1480642e040bbd2ddb37b998f3424, the commit examples/data/tflite was
# copied from), and `google+flatbuffers/repo`, `google+gemmlowp/repo`, `google+ruy/repo` at
# the versions TFLM's own build downloads, read from the TFLM tree: flatbuffers at the tag
# in `flatbuffers_download.sh` (`ZIP_PREFIX`, v25.9.23 at that commit), patched with TFLM's
# `flatbuffers.patch` as that script patches it; gemmlowp and ruy at the commits in the
# URLs of `third_party_downloads.inc`. A flatbuffers tree whose FLATBUFFERS_VERSION is not
# the one TFLM's schema_generated.h asserts is refused here, naming both versions.
#
# MEMPLAN_TFLM_HOST_DIR (default target/tflm-host) holds the extracted sources (src/), the
# objects (obj/, rebuilt when a source, the flags or a tree's commit change), the library,
# `tflm_run`, and PROVENANCE (each tree, its commit, and where it came from). JOBS (default
# 2) compile at once.
#
# Exit status: 0 built; 2 when a source tree is neither given nor extractable (the message
# starts with "tflm-host: sources not found"); 1 on any other failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${MEMPLAN_TFLM_HOST_DIR:-$repo/target/tflm-host}"
mirrors="${MEMPLAN_MIRRORS:-}"
tflm_commit="${TFLM_COMMIT:-90b983c2b3f1480642e040bbd2ddb37b998f3424}"
jobs="${JOBS:-2}"
die() { echo "tflm-host: $*" >&2; exit 1; }
missing() { echo "tflm-host: sources not found: $*" >&2; exit 2; }

mkdir -p "$out/src" || die "cannot create $out"
out=$(cd "$out" && pwd)
provenance=()

# extract NAME MIRROR_REPO REV: the tree at REV of bare git directory MIRROR_REPO into
# $out/src/NAME (again only when REV changed); prints the directory.
extract() {
  local name=$1 git_dir="$mirrors/$2/repo" rev=$3 dest="$out/src/$1" commit
  [ -n "$mirrors" ] || missing "$name: no ${name^^}_DIR given (a clone at $rev: scripts/models/README.md, \"The sources\") and no MEMPLAN_MIRRORS"
  [ -d "$git_dir" ] || missing "$name: no ${name^^}_DIR given and no $git_dir"
  commit=$(git --git-dir="$git_dir" rev-parse --verify -q "$rev^{commit}") ||
    missing "$name: $git_dir has no commit $rev"
  if [ "$(cat "$dest.commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$dest" "$dest.commit"
    mkdir -p "$dest"
    git --git-dir="$git_dir" archive "$commit" | tar -x -C "$dest" || die "git archive $name failed"
    echo "$commit" >"$dest.commit.new"
  fi
  echo "$dest"
}
# finish NAME: marks an extraction complete (after any patch), so a failed one is redone.
finish() { [ ! -f "$out/src/$1.commit.new" ] || mv "$out/src/$1.commit.new" "$out/src/$1.commit"; }

# tree VAR NAME LABEL MIRROR_REPO REV: VAR as given, or else set to the unpatched tree at
# REV of MIRROR_REPO (extracted), with the tree's provenance recorded either way.
tree() {
  local var=$1 name=$2 label=$3 mirror=$4 rev=$5 dir
  if [ -n "${!var:-}" ]; then
    provenance+=("$label ${!var} (given)")
    return
  fi
  dir=$(extract "$name" "$mirror" "$rev") || exit $?
  finish "$name"
  printf -v "$var" '%s' "$dir"
  provenance+=("$label $(cat "$out/src/$name.commit") from $mirrors/$mirror/repo")
}

tree TFLM_DIR tflm tflite-micro tensorflow+tflite-micro "$tflm_commit"
[ -f "$TFLM_DIR/tensorflow/lite/micro/micro_interpreter.cc" ] || die "$TFLM_DIR is not a tflite-micro tree"
make_dir="$TFLM_DIR/tensorflow/lite/micro/tools/make"

# The versions TFLM's own build downloads.
fb_tag=$(sed -n 's/^ *ZIP_PREFIX="\(v[0-9.]*\)".*/\1/p' "$make_dir/flatbuffers_download.sh" | head -n 1)
gemmlowp_rev=$(sed -n 's|^GEMMLOWP_URL *:= *"https://github.com/google/gemmlowp/archive/\([0-9a-f]*\)\.zip"|\1|p' "$make_dir/third_party_downloads.inc")
ruy_rev=$(sed -n 's|^RUY_URL *= *"https://github.com/google/ruy/archive/\([0-9a-f]*\)\.zip"|\1|p' "$make_dir/third_party_downloads.inc")
[ -n "$fb_tag" ] && [ -n "$gemmlowp_rev" ] && [ -n "$ruy_rev" ] ||
  die "cannot read the pinned flatbuffers/gemmlowp/ruy versions from $make_dir"

if [ -n "${FLATBUFFERS_DIR:-}" ]; then
  provenance+=("flatbuffers $FLATBUFFERS_DIR (given)")
else
  FLATBUFFERS_DIR=$(extract flatbuffers google+flatbuffers "$fb_tag") || exit $?
  if [ -f "$out/src/flatbuffers.commit.new" ]; then
    (cd "$FLATBUFFERS_DIR" && patch -s -p1 <"$make_dir/flatbuffers.patch") ||
      die "TFLM's flatbuffers.patch does not apply to flatbuffers $fb_tag"
  fi
  finish flatbuffers
  provenance+=("flatbuffers $fb_tag = $(cat "$out/src/flatbuffers.commit") from $mirrors/google+flatbuffers/repo, with TFLM's flatbuffers.patch")
fi
tree GEMMLOWP_DIR gemmlowp gemmlowp google+gemmlowp "$gemmlowp_rev"
tree RUY_DIR ruy ruy google+ruy "$ruy_rev"

# The flatbuffers version TFLM's generated schema asserts, against the tree's.
schema="$TFLM_DIR/tensorflow/lite/schema/schema_generated.h"
want=$(grep -A2 'static_assert(FLATBUFFERS_VERSION_MAJOR' "$schema" | grep -o '== *[0-9]*' | grep -o '[0-9]*' | paste -sd.)
base="$FLATBUFFERS_DIR/include/flatbuffers/base.h"
have=$(for p in MAJOR MINOR REVISION; do sed -n "s/^#define FLATBUFFERS_VERSION_$p \([0-9]*\).*/\1/p" "$base"; done | paste -sd.)
[ -n "$want" ] || die "no FLATBUFFERS_VERSION static_assert in $schema"
[ "$want" = "$have" ] || die "flatbuffers at $FLATBUFFERS_DIR is $have; TFLM's schema_generated.h requires $want" \
  "(static_assert on FLATBUFFERS_VERSION): give the version TFLM's flatbuffers_download.sh pins ($fb_tag)"
provenance+=("flatbuffers version $have (schema_generated.h requires $want)")

# The source lists of TFLM's sources.inc (read, not copied).
list_block() { # list_block VAR: the files of `VAR := \` up to its first blank line
  sed -n "/^$1 := \\\\\$/,/^\$/p" "$make_dir/sources.inc" | sed -n 's|^\$(TENSORFLOW_ROOT)\([^ \\]*\.cc\).*|\1|p'
}
cd "$TFLM_DIR" || die "cannot enter $TFLM_DIR"
tests=$(list_block MICROLITE_TEST_SRCS)
[ -n "$tests" ] || die "no MICROLITE_TEST_SRCS in sources.inc"
core=$(
  {
    ls tensorflow/lite/micro/*.cc tensorflow/lite/micro/arena_allocator/*.cc \
      tensorflow/lite/micro/memory_planner/*.cc tensorflow/lite/micro/tflite_bridge/*.cc
    find tensorflow -type d \( -path tensorflow/lite/experimental -o -path tensorflow/lite/micro \) -prune \
      -false -o -name '*.cc' -o -name '*.c'
  } | grep -v '_test\.cc$' | grep -vx 'tensorflow/lite/array.cc' | grep -vxF "$tests" | sort
)
kernels=$(list_block MICROLITE_CC_KERNEL_SRCS | sort)
[ "$(wc -l <<<"$kernels")" -gt 50 ] || die "too few kernels read from MICROLITE_CC_KERNEL_SRCS"
case "${TFLM_KERNELS:-models}" in
  all) ;;
  models)
    # The kernel sources of the eleven operators tflm_run registers (person_detection_test.cc's
    # AVERAGE_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D, RESHAPE, SOFTMAX; FULLY_CONNECTED of
    # hello_world_int8 and micro_speech_quantized; ADD of simple_add_model;
    # UNIDIRECTIONAL_SEQUENCE_LSTM and LOGISTIC of dtln_noise_suppression and
    # micro_speech_lstm; SVDF and QUANTIZE of keyword_scrambled) and the kernel helpers they
    # call, each required to be in MICROLITE_CC_KERNEL_SRCS.
    pick=""
    for k in add add_common conv conv_common depthwise_conv depthwise_conv_common \
      fully_connected fully_connected_common pooling pooling_common reshape reshape_common \
      softmax softmax_common kernel_util micro_tensor_utils \
      unidirectional_sequence_lstm lstm_eval lstm_eval_common logistic logistic_common \
      svdf svdf_common quantize quantize_common; do
      f=$(grep -x "tensorflow/lite/micro/kernels/$k.cc" <<<"$kernels") ||
        die "MICROLITE_CC_KERNEL_SRCS has no tensorflow/lite/micro/kernels/$k.cc"
      pick+="$f"$'\n'
    done
    kernels=$(sort <<<"$pick" | sed '/^$/d')
    ;;
  *) die "TFLM_KERNELS is models or all, not ${TFLM_KERNELS}" ;;
esac
example=tensorflow/lite/micro/examples/person_detection/model_settings.cc

common=(-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -Wnon-virtual-dtor
  -fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
  -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_USE_CTIME
  -DKERNELS_OPTIMIZED_FOR_SPEED -DTF_LITE_SHOW_MEMORY_USE -Wall -Wextra -Wno-unused-parameter
  -I"$TFLM_DIR" -I"$FLATBUFFERS_DIR/include" -I"$GEMMLOWP_DIR" -I"$RUY_DIR")
cxx=${CXX:-g++}
command -v "$cxx" >/dev/null || {
  apt-get update -q && apt-get install -y -q g++
} || die "no C++ compiler ($cxx) and g++ does not install"

# A makefile of our own over TFLM's files: one object per source, built in parallel,
# rebuilt when its source, the flags or a tree's commit change (the flags file is rewritten
# only then; headers are not tracked).
obj="$out/obj"
mkdir -p "$obj"
mk="$out/objects.mk"
flags="$out/flags"
# The trees' commits are part of it: git archive gives files their commit's date, so a tree
# extracted at another commit can be older than the objects built from the last one.
{ echo "$cxx"; printf '%q\n' "${common[@]}"; printf '%s\n' "${provenance[@]}"; } >"$flags.new"
cmp -s "$flags.new" "$flags" && rm "$flags.new" || mv "$flags.new" "$flags"
{
  echo "CXX := $cxx"
  printf 'CORE_FLAGS := -Os'; printf ' %q' "${common[@]}"; echo
  printf 'KERNEL_FLAGS := -O2'; printf ' %q' "${common[@]}"; echo
  objs=()
  for f in $core $example; do
    o="$obj/${f%.*}.o"; objs+=("$o")
    printf '%s: %s %s\n\t@mkdir -p $(@D)\n\t$(CXX) $(CORE_FLAGS) -c $< -o $@\n' "$o" "$TFLM_DIR/$f" "$flags"
  done
  for f in $kernels; do
    o="$obj/${f%.*}.o"; objs+=("$o")
    printf '%s: %s %s\n\t@mkdir -p $(@D)\n\t$(CXX) $(KERNEL_FLAGS) -c $< -o $@\n' "$o" "$TFLM_DIR/$f" "$flags"
  done
  echo "OBJS := ${objs[*]}"
  echo "$out/libtflm-host.a: \$(OBJS) $mk"
  printf '\trm -f $@ && ar rcs $@ $(OBJS)\n'
  echo "$out/tflm_run: $here/tflm_run.cc $out/libtflm-host.a"
  printf '\t$(CXX) $(KERNEL_FLAGS) %s -o $@ -Wl,--gc-sections %s -lm\n' "$here/tflm_run.cc" "$out/libtflm-host.a"
} >"$mk.new"
cmp -s "$mk.new" "$mk" && rm "$mk.new" || mv "$mk.new" "$mk"

n=$(($(wc -w <<<"$core $example") + $(wc -w <<<"$kernels")))
echo "tflm-host: $n TFLM sources ($(wc -w <<<"$kernels") kernels), $jobs jobs, into $out" >&2
start=$(date +%s)
make -s -f "$mk" -j "$jobs" "$out/tflm_run" >"$out/build.log" 2>&1 || {
  grep -m 20 -B2 -A8 'error' "$out/build.log" >&2
  die "the build failed (full log: $out/build.log)"
}
printf '%s\n' "${provenance[@]}" >"$out/PROVENANCE"
echo "tflm-host: built in $(($(date +%s) - start)) s; sources: $(paste -sd';' "$out/PROVENANCE")" >&2
echo "$out/tflm_run"
