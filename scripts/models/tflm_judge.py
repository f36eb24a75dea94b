"""TFLite Micro judges a written .tflite against its original.

    python tflm_judge.py ORIGINAL.tflite WRITTEN.tflite [--arena-size BYTES]
    python tflm_judge.py --self-test MODEL.tflite [MODEL.tflite ...]

Both models run in TFLM's own Python runtime (`tflite_micro.runtime`, the C++ interpreter
with its RecordingMicroAllocator) on the same fixed inputs (model_inputs.py: four seeded
sets covering every input's dtype and shape, of the first family that changes the
original's outputs, plus TFLM's two test images for a model with person detection's
1x96x96x1 int8 input), in a row on one interpreter each. Every output must be identical
byte for byte.

For each model it prints TFLM's arena use as `print_allocations()` reports it: head (the
non-persistent section, where the planned tensors live), tail (persistent) and total, and
for a model with an OfflineMemoryAllocation the plan's extent (max offset + size, sizes
rounded to 16 as TFLM rounds them). TFLM plans every tensor that has an offline offset at
that offset, and no check of it (GreedyMemoryPlanner::CalculateOffsetsIfNeeded: "Offline
planned offset are to be considered constant"), so its head is then at least that extent,
and equal to it when nothing is planned online.

Exit status: 0 when every output is identical (and TFLM's head is at least the written
plan's extent); 1 on any difference or when TFLM refuses the written model but runs the
original; 3 when TFLM refuses the original too (the model is not judged: e.g. Vela's
ethos-u custom operator, which TFLM on a host has no kernel for); 5 when no input family
changes the original's outputs (not judged by outputs: model_inputs.py).

`--self-test` checks the judge itself on each MODEL: an exact copy must pass; a copy with
a valid offline plan of our own (every planned tensor its own bytes) must pass with TFLM's
head at least that plan's extent (TFLM took it: with no plan its greedy planner packs far
tighter; the kernels' scratch buffers, planned online, can add to it); and a copy whose
plan moves one tensor onto another tensor live at the same operator must fail.

The input sets (model_inputs.chosen_sets) are run in a row on one interpreter, so a
stateful model (LSTM or SVDF state in variable tensors) carries its state from one to the
next; a model whose outputs no input family changes is not judged by outputs (exit 5).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_inputs  # noqa: E402
import tflite_plan  # noqa: E402

from tflite_micro import runtime  # noqa: E402

DEFAULT_ARENA = 1 << 20
# kTensorArenaSize in TFLM's examples/person_detection/main_functions.cc (and
# tensor_arena_size in person_detection_test.cc, outside Xtensa Vision P6).
EXAMPLE_ARENA = 136 * 1024
_libc = ctypes.CDLL(None)


class Refused(Exception):
    pass


def captured(fn):
    """Runs fn with the process's stdout and stderr (file descriptors 1 and 2, where TFLM's
    C++ MicroPrintf writes) sent to a file; returns (fn's result, what was written)."""
    sys.stdout.flush()
    sys.stderr.flush()
    _libc.fflush(None)
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            result, error = fn(), None
        except Exception as e:  # re-raised once the descriptors are back
            result, error = None, e
        finally:
            _libc.fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        f.seek(0)
        text = f.read().decode(errors="replace")
    if error is not None:
        raise Refused(f"{type(error).__name__}: {error}; TFLM printed: {text.strip()!r}")
    return result, text


def io_counts(data: bytes) -> tuple[int, int]:
    model = tflite_plan.load(data)
    sg = model.subgraphs[0]
    return len(sg.inputs), len(sg.outputs)


def specs(data: bytes, arena_size: int):
    """The model's inputs as [(shape, dtype, zero point)]."""
    n_in, _ = io_counts(data)
    interp, _ = captured(lambda: runtime.Interpreter.from_bytes(data, arena_size=arena_size))
    details = [interp.get_input_details(i) for i in range(n_in)]
    zps = model_inputs.zero_points(data)
    return [(d["shape"], d["dtype"], z) for d, z in zip(details, zps)]


def run(data: bytes, arena_size: int, sets: dict):
    """Runs the model on the input sets `sets`, in order, on one interpreter (state carries
    over); returns (outputs by set name, allocations)."""
    n_in, n_out = io_counts(data)
    interp, _ = captured(lambda: runtime.Interpreter.from_bytes(data, arena_size=arena_size))
    outputs = {}
    for name, inputs in sets.items():
        for i, x in enumerate(inputs):
            interp.set_input(x, i)
        captured(interp.invoke)
        outputs[name] = [np.array(interp.get_output(j)) for j in range(n_out)]
    _, text = captured(interp.print_allocations)
    alloc = {
        k: int(v)
        for k, v in re.findall(r"Arena allocation (total|head|tail) (\d+) bytes", text)
    }
    return outputs, alloc


def first_difference(a: list, b: list) -> str:
    if len(a) != len(b):
        return f"{len(a)} outputs vs {len(b)}"
    for j, (x, y) in enumerate(zip(a, b)):
        if x.dtype != y.dtype or x.shape != y.shape:
            return f"output {j}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        bx, by = x.tobytes(), y.tobytes()
        if bx != by:
            diff = [i for i in range(len(bx)) if bx[i] != by[i]]
            return (
                f"output {j}: {len(diff)} of {len(bx)} bytes differ, first at byte {diff[0]}; "
                f"original {x.reshape(-1)[:8].tolist()}..., written {y.reshape(-1)[:8].tolist()}..."
            )
    return "identical"


def describe(label: str, path: str, data: bytes, alloc: dict, arena_size: int) -> str:
    extent = tflite_plan.plan_extent(data)
    plan = "none" if extent is None else f"{extent} bytes"
    return (
        f"  {label} {path}: TFLM head={alloc['head']} tail={alloc['tail']} "
        f"total={alloc['total']} bytes (arena given {arena_size}); offline plan extent: {plan}"
    )


def judge(orig_path: str, written_path: str, arena_size: int, quiet: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    orig = Path(orig_path).read_bytes()
    written = Path(written_path).read_bytes()
    say(f"tflm: {orig_path} vs {written_path}")
    try:
        allocs = []

        def original(sets):
            out, alloc = run(orig, arena_size, sets)
            allocs.append(alloc)
            return out

        width, sets, out_a = model_inputs.chosen_sets(specs(orig, arena_size), original)
        alloc_a = allocs[-1]
    except Refused as e:
        say(f"  NOT JUDGED: TFLM refuses the original: {e}")
        return 3
    if width is False:
        say(f"  NOT JUDGED BY OUTPUTS: the original's outputs are the same for every input set of every family ({len(sets)} sets each, in a row)")
        return model_inputs.INPUT_INDEPENDENT
    say(f"  inputs: {len(sets)} sets in a row on one interpreter, {model_inputs.family(width)} (the first family whose outputs differ between sets)")
    try:
        out_b, alloc_b = run(written, arena_size, sets)
    except Refused as e:
        say(f"  FAIL: TFLM runs the original but refuses the written model: {e}")
        return 1
    say(describe("original", orig_path, orig, alloc_a, arena_size))
    say(describe("written ", written_path, written, alloc_b, arena_size))
    ok = True
    for name in out_a:
        same = len(out_a[name]) == len(out_b[name]) and all(
            a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
            for a, b in zip(out_a[name], out_b[name])
        )
        nbytes = sum(a.nbytes for a in out_a[name])
        line = f"  input {name}: outputs {'identical' if same else 'DIFFER'} ({nbytes} bytes)"
        if name in model_inputs.TFLM_IMAGES:
            pa = out_a[name][0].reshape(-1)
            pb = out_b[name][0].reshape(-1)
            line += (
                f"; original person={pa[model_inputs.PERSON_INDEX]} "
                f"no_person={pa[model_inputs.NOT_A_PERSON_INDEX]}, written "
                f"person={pb[model_inputs.PERSON_INDEX]} no_person={pb[model_inputs.NOT_A_PERSON_INDEX]}"
            )
        if not same:
            line += "\n    " + first_difference(out_a[name], out_b[name])
        say(line)
        ok &= same
    extent = tflite_plan.plan_extent(written)
    if extent is not None:
        took = alloc_b["head"] >= extent
        say(
            f"  written plan: TFLM head {alloc_b['head']} vs plan extent {extent}: "
            + ("equal (TFLM took the offline plan)" if alloc_b["head"] == extent else
               "head larger (online buffers beside the offline plan)" if took else
               "HEAD SMALLER: TFLM did not take the offline plan")
        )
        ok &= took
    if "person" in out_a:
        for label, alloc in (("original", alloc_a), ("written", alloc_b)):
            say(
                f"  {label}: TFLM uses {alloc['total']} of the {EXAMPLE_ARENA} bytes the example "
                f"reserves (kTensorArenaSize = 136 * 1024): head {alloc['head']}, tail {alloc['tail']}"
            )
    say("  RESULT: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


def self_test(models: list[str], arena_size: int) -> int:
    failures = 0
    shown, harmless = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in models:
            data = Path(path).read_bytes()
            stem = Path(path).stem
            copy = Path(tmp, f"{stem}.copy.tflite")
            copy.write_bytes(data)
            print(f"self-test {path}: exact copy must pass")
            rc = judge(path, str(copy), arena_size)
            if rc == 3:
                print(f"self-test {path}: TFLM cannot run this model; nothing more to test")
                continue
            if rc == model_inputs.INPUT_INDEPENDENT:
                print(f"self-test {path}: its outputs do not depend on its inputs; nothing to test by outputs")
                continue
            failures += rc != 0

            offsets = tflite_plan.naive_offsets(data)
            naive = tflite_plan.with_offline_plan(data, offsets)
            naive_path = Path(tmp, f"{stem}.naive_plan.tflite")
            naive_path.write_bytes(naive)
            print(f"self-test {path}: our own valid offline plan must pass, TFLM's head = its extent")
            rc = judge(path, str(naive_path), arena_size)
            _, alloc = run(naive, arena_size, model_inputs.seeded_sets(specs(naive, arena_size), None))
            extent = tflite_plan.plan_extent(naive)
            # Equal but for the kernels' scratch buffers, which TFLM plans online, in the
            # gaps of the plan's tensors' lifetimes or above them.
            failures += rc != 0 or alloc["head"] < extent

            print(f"self-test {path}: a plan with two live tensors on the same bytes must fail")
            tried = 0
            for broken, desc in tflite_plan.overlap_candidates(data, offsets):
                tried += 1
                bad = Path(tmp, f"{stem}.overlap.tflite")
                bad.write_bytes(tflite_plan.with_offline_plan(data, broken))
                if judge(path, str(bad), arena_size, quiet=True) == 1:
                    print(f"  {desc}")
                    judge(path, str(bad), arena_size)
                    break
                print(f"  {desc}: outputs unchanged (harmless here), next")
            else:
                # Possible and true of some programs: a single elementwise operator computes
                # the same in place. Another program of the self-test must then show it.
                print(f"  note: none of the {tried} overlapping plans changes an output of this model")
                harmless.append(path)
            if not harmless or harmless[-1] != path:
                shown.append(path)
    if not shown:
        print("self-test FAILURE: no model showed an overlapping plan failing the check")
        failures += 1
    print(f"overlapping plans caught on {len(shown)} model(s); harmless on every try for {harmless}")
    print(f"self-test: {'ok' if failures == 0 else f'{failures} FAILURE(S)'}")
    return 0 if failures == 0 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+")
    p.add_argument("--arena-size", type=int, default=DEFAULT_ARENA)
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test(a.models, a.arena_size)
    if len(a.models) != 2:
        p.error("give ORIGINAL.tflite WRITTEN.tflite")
    return judge(a.models[0], a.models[1], a.arena_size)


if __name__ == "__main__":
    sys.exit(main())
