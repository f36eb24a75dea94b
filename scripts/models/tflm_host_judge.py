"""TFLM built for the host from its own sources judges a written .tflite model.

    python tflm_host_judge.py ORIGINAL.tflite WRITTEN.tflite [--tflm-run PATH] [--arena-size BYTES]
    python tflm_host_judge.py --self-test MODEL.tflite [MODEL.tflite ...] [--tflm-run PATH]

The runtime is `tflm_run` (tflm_host/tflm_run.cc linked against TFLM's MicroInterpreter,
compiled by tflm_host/build.sh from the tflite-micro sources; default
target/tflm-host/tflm_run), not the `tflite-micro` wheel that tflm_judge.py runs. It runs
each model on one interpreter, on fixed inputs: a model whose only input is person
detection's 1x96x96x1 int8 gets TFLM's two person-detection test images
(model_inputs.tflm_image: the int8 bytes person_detection_test.cc copies into the input), in
the order the test runs them (person, then no_person), after four seeded sets; every model
gets the four seeded input sets of the first family that changes the original's outputs
(model_inputs.chosen_sets, each input's shape, type and zero point read from the model), as
tflm_judge.py feeds them, all in a row on one interpreter (a stateful model carries its
state from set to set). tflm_run registers the operators of every committed model TFLM
has host kernels for (person_detection_test.cc's five, FULLY_CONNECTED, ADD,
UNIDIRECTIONAL_SEQUENCE_LSTM, LOGISTIC, SVDF, QUANTIZE).

It requires:
- every output byte identical, on every input set, between the original and the written
  model (a model whose outputs no input family changes, TFLM's keyword_scrambled, is said
  to be one, and the plan checks below decide);
- TFLM's head (RecordingMicroAllocator's non-persistent bytes, where the planned tensors
  live) at least the written offline plan's extent (max offset + size, sizes rounded to 16
  as TFLM rounds them): TFLM puts every tensor that has an offline offset at that offset
  (GreedyMemoryPlanner: "Offline planned offset are to be considered constant") and sizes
  the head to the largest offset + size; with every planned tensor offline and no kernel
  scratch buffer, the head is exactly the plan's extent (scratch buffers, planned online,
  can end above it);
- no two buffers of TFLM's printed plan (tensors and scratch buffers: size, offset, first
  and last scope) share a byte while live at a common scope;
- with `--memplan` (WRITTEN is memplan's): TFLM's head no larger than with the original's
  plan (its own planner's, for a model without one), and every variable tensor's offline
  entry -1 (TFLM keeps them in its persistent section; given an offset, a variable tensor
  is planned over its operators' scopes only and scratch buffers land on its state);
- for the committed person_detect.tflite (same bytes), the original's outputs equal the
  reference in examples/data/tflite/person_detect_expected.txt (LiteRT's reference kernels,
  and the tflite-micro wheel).

It prints, per model: the scores (person detection), the output bytes, arena_used_bytes(),
head, tail, total.
The TFLM helpers this script uses to read and write a model's offline plan
(tflite_plan.py) read flatbuffers with the wheel's generated schema module; nothing of the
wheel runs a model here.

Exit status: 0 when the written model passes; 1 on any difference, or when tflm_run
refuses the written model but runs the original; 3 when it refuses the original too.

`--self-test MODEL...` checks the judge itself on each MODEL (one tflm_run cannot run, for
want of its operators, is skipped and says so): an exact copy must pass (no offline plan: the
head is TFLM's own greedy plan); a copy with an offline plan of our own that gives every
planned tensor its own bytes, end to end, must pass, with TFLM's head equal to that extent
and every planned tensor at that plan's offset, and that plan must differ from TFLM's own
(so the offset comparison fails on TFLM's own offsets): in tensor order, or, where TFLM's
own plan is that one, in reverse tensor order; its extent must be above TFLM's own head
unless TFLM's own plan already gives every planned tensor its own bytes (then no plan
without gaps is larger, and the test says so); a copy whose plan moves one tensor onto
another live at the same operator must fail (by TFLM's printed plan, and by its outputs where
some such plan changes them, or the model refused).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_inputs  # noqa: E402
import tflite_plan  # noqa: E402

REPO = model_inputs.REPO
DEFAULT_RUN = REPO / "target/tflm-host/tflm_run"
DEFAULT_ARENA = 1 << 20
PERSON_DETECT = REPO / "examples/data/tflite/person_detect.tflite"
EXPECTED = REPO / "examples/data/tflite/person_detect_expected.txt"
IMAGES = ("person", "no_person")  # the order person_detection_test.cc runs them
# numpy dtypes of the schema's TensorType names, for the seeded inputs.
DTYPES = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "INT32": np.int32,
          "INT64": np.int64, "FLOAT32": np.float32, "BOOL": np.bool_}


class Refused(Exception):
    pass


def input_specs(data: bytes) -> list:
    """The inputs of subgraph 0 of the model `data`: [(shape, numpy dtype, zero point)]."""
    sg = tflite_plan.load(data).subgraphs[0]
    names = {v: k for k, v in vars(tflite_plan.schema.TensorType).items() if not k.startswith("_")}
    return [
        (tuple(int(d) for d in sg.tensors[i].shape), DTYPES[names[sg.tensors[i].type]], z)
        for i, z in zip(sg.inputs, model_inputs.zero_points(data))
    ]


def write_sets(arrays: dict, tmp: str) -> dict[str, list[Path]]:
    """The input sets `arrays` ({set: [array per input]}) as files in `tmp`: {set name: [a
    file of input i's bytes, in input order]}."""
    sets = {}
    for name, xs in arrays.items():
        sets[name] = []
        for i, x in enumerate(xs):
            f = Path(tmp, f"{name}.{i}.bin")
            f.write_bytes(x.tobytes())
            sets[name].append(f)
    return sets


def chosen_inputs(tflm_run: Path, model: Path, arena_size: int, tmp: str):
    """The input sets the original `model` is judged on (model_inputs.chosen_sets: the first
    family whose sets, in a row, change its outputs; TFLM's two test images too for person
    detection's input), as files: (family width or False, {set: [files]}, the original's run)."""
    runs = []

    def original(arrays):
        runs.append(run(tflm_run, model, arena_size, write_sets(arrays, tmp)))
        return runs[-1]["outputs"]

    width, arrays, _ = model_inputs.chosen_sets(input_specs(model.read_bytes()), original)
    return width, write_sets(arrays, tmp), runs[-1]


def overlaps(tflm_plan: list) -> list[str]:
    """Pairs of buffers TFLM's planner placed (its printed plan: size, offset, first, last)
    that share a byte while live at a common allocation scope, as
    GreedyMemoryPlanner::DoesEntryOverlapInTime counts scopes. Sorted by offset, each
    buffer is compared with those after it that start below its end: no quadratic scan
    over disjoint buffers."""
    order = sorted(range(len(tflm_plan)), key=lambda i: tflm_plan[i][1])
    found = []
    for n, i in enumerate(order):
        size, off, first, last = tflm_plan[i]
        if size == 0:
            continue
        for j in order[n + 1:]:
            s2, o2, f2, l2 = tflm_plan[j]
            if o2 >= off + size:
                break
            if s2 and not (f2 > last or first > l2):
                found.append(f"buffers {i} and {j} (bytes {max(off, o2)}..{min(off + size, o2 + s2)}, "
                             f"scopes {max(first, f2)}..{min(last, l2)})")
    return found


def run(tflm_run: Path, model: Path, arena_size: int, inputs: dict[str, list[Path]]) -> dict:
    """tflm_run on `model`: {'outputs': {set: [hex per output]}, 'scores': {set: (p, n)},
    'arena_used_bytes', 'head', 'tail', 'total', 'plan': [(size, offset, first, last) per
    buffer TFLM's planner placed, in its order]}."""
    args = [str(tflm_run), str(model), str(arena_size)] + [
        f"{k}={','.join(str(f) for f in v)}" for k, v in inputs.items()
    ]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise Refused(f"tflm_run exit {p.returncode}: {(p.stderr or p.stdout).strip()[-600:]!r}")
    r = {"outputs": {k: [] for k in inputs}, "scores": {}, "plan": []}
    # GreedyMemoryPlanner::PrintMemoryPlan (TF_LITE_SHOW_MEMORY_USE), buffer by buffer.
    for m in re.finditer(
        r"^. \(id=(\d+)\): size=(\d+), offset=(\d+), first_used=(-?\d+) last_used=(-?\d+)$",
        p.stderr,
        re.M,
    ):
        if int(m[1]) != len(r["plan"]):
            raise Refused(f"TFLM's plan dump is out of order at buffer {m[1]}")
        r["plan"].append(tuple(int(x) for x in m.groups()[1:]))
    for line in p.stdout.splitlines():
        if m := re.fullmatch(r"input (\S+) output (\d+) (\S+) \[([\d,]*)\] hex ([0-9a-f]*)", line):
            r["outputs"][m[1]].append(f"{m[3]}[{m[4]}] {m[5]}")
        elif m := re.fullmatch(r"input (\S+) scores person (-?\d+) no_person (-?\d+)", line):
            r["scores"][m[1]] = (int(m[2]), int(m[3]))
        elif m := re.fullmatch(r"arena_used_bytes (\d+)", line):
            r["arena_used_bytes"] = int(m[1])
        elif m := re.fullmatch(r"head (\d+) tail (\d+) total (\d+)", line):
            r["head"], r["tail"], r["total"] = int(m[1]), int(m[2]), int(m[3])
    for k in ("arena_used_bytes", "head"):
        if k not in r:
            raise Refused(f"tflm_run printed no {k}: {p.stdout[-400:]!r}")
    return r


def expected_bytes() -> dict[str, dict[str, str]]:
    """person_detect_expected.txt: {image: {runtime: output hex}}."""
    out: dict[str, dict[str, str]] = {}
    image = None
    for line in EXPECTED.read_text().splitlines():
        if m := re.match(r"image (\S+):", line):
            image = m[1]
            out[image] = {}
        elif image and (m := re.match(r"  (.+): output bytes ([0-9a-f]+) ", line)):
            out[image][m[1]] = m[2]
    return out


def placed_as_planned(data: bytes, tflm_plan: list) -> tuple[bool, str]:
    """Whether TFLM's planner put every tensor it plans at the offset the model's offline
    plan gives it, with the size TFLM plans (bytes rounded up to 16). TFLM adds the buffers
    in allocation-info order: the tensors it plans, subgraph by subgraph in tensor order
    (CreatePlan, micro_allocator.cc), then kernel scratch buffers (planned online)."""
    plan = tflite_plan.read_offline_plan(data)
    model = tflite_plan.load(data)
    planned = tflite_plan.planned_tensors(model)
    if len(tflm_plan) < len(planned):
        return False, f"TFLM planned {len(tflm_plan)} buffers, the model has {len(planned)} tensors to plan"
    wrong = []
    for i, (g, si, ti) in enumerate(planned):
        size = tflite_plan.align_up(tflite_plan.tensor_bytes(model.subgraphs[si].tensors[ti]))
        if tflm_plan[i][:2] != (size, plan.offsets[g]):
            wrong.append(f"tensor {g}: TFLM size {tflm_plan[i][0]} offset {tflm_plan[i][1]}, "
                         f"the plan's {size} at {plan.offsets[g]}")
    scratch = len(tflm_plan) - len(planned)
    if wrong:
        return False, f"{len(wrong)} tensors NOT where the offline plan puts them: " + "; ".join(wrong[:4])
    return True, (f"TFLM's planner put all {len(planned)} planned tensors at the plan's offsets, "
                  f"with the plan's sizes; {scratch} scratch buffers")


def shown(outputs: list[str]) -> list[str]:
    """Outputs as printed: each in full up to 32 bytes, else its first 16 bytes and its
    length (the comparison is always of every byte)."""
    out = []
    for o in outputs:
        head, _, hexes = o.rpartition(" ")
        out.append(o if len(hexes) <= 64 else f"{head} {hexes[:32]}... ({len(hexes) // 2} bytes)")
    return out


def describe(label: str, path: str, data: bytes, r: dict) -> str:
    extent = tflite_plan.plan_extent(data)
    scores = ", ".join(f"{k}: person {p} no_person {n}" for k, (p, n) in r["scores"].items())
    return (
        f"  {label} {path}: head={r['head']} tail={r['tail']} total={r['total']} "
        f"arena_used_bytes={r['arena_used_bytes']}; offline plan extent: "
        f"{'none' if extent is None else extent}" + (f"; {scores}" if scores else "")
    )


def judge(tflm_run: Path, orig_path: str, written_path: str, arena_size: int, quiet=False,
          memplan: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    orig, written = Path(orig_path).read_bytes(), Path(written_path).read_bytes()
    say(f"tflm-host: {orig_path} vs {written_path}")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            width, inputs, a = chosen_inputs(tflm_run, Path(orig_path), arena_size, tmp)
        except Refused as e:
            say(f"  NOT JUDGED: TFLM refuses the original: {e}")
            return 3
        if width is False:
            say(f"  inputs: the original's outputs are the same for all {len(inputs)} sets of every "
                "family: the outputs prove nothing here; the plan checks below decide")
        else:
            say(f"  inputs: {len(inputs)} sets in a row on one interpreter, {model_inputs.family(width)}")
        try:
            b = run(tflm_run, Path(written_path), arena_size, inputs)
        except Refused as e:
            say(f"  FAIL: TFLM runs the original but refuses the written model: {e}")
            return 1
    say(describe("original", orig_path, orig, a))
    say(describe("written ", written_path, written, b))
    ok = True
    for name in inputs:
        # An input set that printed no output is no agreement.
        same = bool(a["outputs"][name]) and a["outputs"][name] == b["outputs"][name]
        say(
            f"  {'image' if name in IMAGES else 'input'} {name}: outputs {'identical' if same else 'DIFFER'}: original "
            f"{shown(a['outputs'][name])}, written {shown(b['outputs'][name])}"
        )
        ok &= same
    if orig == PERSON_DETECT.read_bytes():
        ref = expected_bytes()
        for name in IMAGES:
            got = a["outputs"][name][0].split()[-1]
            want = {k: v for k, v in ref[name].items() if k in ("litert BUILTIN_REF", "tflm")}
            agree = all(v == got for v in want.values()) and len(want) == 2
            say(
                f"  image {name}: original {got} vs {EXPECTED.name} "
                + ", ".join(f"{k} {v}" for k, v in want.items())
                + (": identical" if agree else ": DIFFER")
            )
            ok &= agree
    extent = tflite_plan.plan_extent(written)
    if extent is None:
        say("  written model has no offline plan: TFLM planned it itself")
    else:
        took = b["head"] >= extent
        say(
            f"  written plan: TFLM head {b['head']} vs plan extent {extent}: "
            + ("equal" if b["head"] == extent else
               "head larger (the kernels' scratch buffers, planned online, above the plan)" if took else
               "HEAD SMALLER: TFLM did not take the plan")
        )
        ok &= took
        placed = placed_as_planned(written, b["plan"])
        say(f"  written plan: {placed[1]}")
        ok &= placed[0]
        if placed[0] and tflite_plan.read_offline_plan(orig) is None:
            # Where the written plan and TFLM's own plan of the original disagree, TFLM
            # followed the written one; where they agree, this run alone cannot tell.
            planned = tflite_plan.planned_tensors(tflite_plan.load(written))
            n = len(planned)
            moved = [
                f"tensor {g}: {b['plan'][i][1]}, TFLM's own {a['plan'][i][1]}"
                for i, (g, _, _) in enumerate(planned)
                if b["plan"][i][1] != a["plan"][i][1]
            ]
            say(
                f"  written plan against TFLM's own plan of the original: {len(moved)} of {n} "
                "planned tensors at other offsets"
                + (f" ({'; '.join(moved[:8])}): there TFLM followed the written plan" if moved else
                   ": the same plan, offset for offset; that TFLM takes an offline plan is "
                   "shown by --self-test")
            )
    clash = overlaps(b["plan"])
    say(f"  written plan: of the {len(b['plan'])} buffers TFLM planned, "
        + (f"{len(clash)} pairs SHARE BYTES while live: {'; '.join(clash[:4])}" if clash else
           "no two live at a common scope share a byte"))
    ok &= not clash
    if memplan:
        no_larger = b["head"] <= a["head"]
        say(f"  memplan's plan: TFLM head {b['head']}, with the original's plan {a['head']}: "
            + ("no larger" if no_larger else "LARGER"))
        ok &= no_larger
        plan = tflite_plan.read_offline_plan(written)
        model = tflite_plan.load(written)
        g, offline_vars = 0, []
        for sg in model.subgraphs:
            for t in sg.tensors:
                if t.isVariable and plan is not None and plan.offsets[g] != tflite_plan.ONLINE:
                    offline_vars.append(g)
                g += 1
        if offline_vars:
            say(f"  memplan's plan: variable tensors {offline_vars} OFFLINE (TFLM would plan scratch onto their state)")
        ok &= not offline_vars
    say("  RESULT: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


def self_test(tflm_run: Path, path: str, arena_size: int) -> int:
    failures = 0
    data = Path(path).read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp, "copy.tflite")
        copy.write_bytes(data)
        print(f"self-test {path}: exact copy must pass")
        rc = judge(tflm_run, path, str(copy), arena_size)
        if rc == 3:
            print(f"self-test {path}: tflm_run cannot run this model; nothing more to test")
            return 0
        if rc != 0:
            print(f"self-test FAILURE: the exact copy gives {rc}")
            return 1

        _, inputs, own = chosen_inputs(tflm_run, Path(path), arena_size, tmp)

        offsets = tflite_plan.naive_offsets(data)
        naive = Path(tmp, "naive_plan.tflite")
        naive.write_bytes(tflite_plan.with_offline_plan(data, offsets))
        # The offset comparison must be able to fail: TFLM's own greedy offsets (the model
        # without a plan) must not be the spread plan's. Where they are (every planned
        # tensor already its own bytes, in tensor order), the spread runs the other way.
        held, why = placed_as_planned(naive.read_bytes(), own["plan"])
        if held:
            print(f"self-test {path}: TFLM's own plan is the spread plan in tensor order "
                  f"({why}); the spread plan is laid out in reverse tensor order instead")
            offsets = tflite_plan.naive_offsets(data, reverse=True)
            naive.write_bytes(tflite_plan.with_offline_plan(data, offsets))
            held, why = placed_as_planned(naive.read_bytes(), own["plan"])
        extent = tflite_plan.plan_extent(naive.read_bytes())
        print(f"self-test {path}: our own offline plan (every tensor its own bytes, extent "
              f"{extent}) must pass with TFLM's head at least {extent} (its own: {own['head']})")
        failures += judge(tflm_run, path, str(naive), arena_size) != 0
        print(f"  TFLM's own offsets against the spread plan: {why}")
        if held:
            print("self-test FAILURE: the offset comparison accepts offsets TFLM chose itself")
            failures += 1
        model = tflite_plan.load(data)
        spread = sum(tflite_plan.align_up(tflite_plan.tensor_bytes(model.subgraphs[si].tensors[ti]))
                     for _, si, ti in tflite_plan.planned_tensors(model))
        scratch = len(own["plan"]) - len(tflite_plan.planned_tensors(model))
        if own["head"] == spread == extent:
            print(f"  TFLM's own head {own['head']} already gives every planned tensor its own "
                  "bytes: no plan without gaps is larger; the offsets above show TFLM took this one")
        elif extent <= own["head"] and scratch > 0:
            print(f"  the spread plan's extent {extent} is not above TFLM's own head {own['head']}, "
                  f"which its {scratch} kernel scratch buffers raise: the offsets above show TFLM took it")
        elif extent <= own["head"]:
            print(f"self-test FAILURE: the spread plan's extent {extent} is not above TFLM's "
                  f"own head {own['head']}: it shows nothing")
            failures += 1

        print(f"self-test {path}: a plan with two tensors live at one operator on the same "
              "bytes must fail: by TFLM's printed plan, and by the outputs where they change")
        first = True
        for broken, desc in tflite_plan.overlap_candidates(data, offsets):
            bad = Path(tmp, "overlap.tflite")
            bad.write_bytes(tflite_plan.with_offline_plan(data, broken))
            try:
                r = run(tflm_run, bad, arena_size, inputs)
            except Refused as e:
                print(f"  {desc}: refused ({e})")
                break
            if first:
                print(f"  {desc}: the judge must fail it")
                failures += judge(tflm_run, path, str(bad), arena_size) != 1
                first = False
            if r["outputs"] != own["outputs"]:
                print(f"  {desc}: outputs change: "
                      f"{ {k: shown(v) for k, v in own['outputs'].items()} } -> "
                      f"{ {k: shown(v) for k, v in r['outputs'].items()} }")
                failures += judge(tflm_run, path, str(bad), arena_size) != 1
                break
            print(f"  {desc}: outputs unchanged (harmless to them here), next")
        else:
            if first:
                print("self-test FAILURE: no overlapping plan to try")
                failures += 1
            else:
                print("  no overlapping plan changes an output of this model: its plans are "
                      "judged by TFLM's printed plan")
    print(f"self-test: {'ok' if failures == 0 else f'{failures} FAILURE(S)'}")
    return 0 if failures == 0 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+")
    p.add_argument("--tflm-run", type=Path, default=DEFAULT_RUN)
    p.add_argument("--arena-size", type=int, default=DEFAULT_ARENA)
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--memplan", action="store_true",
                   help="WRITTEN is memplan's: also require TFLM's head no larger than with the "
                        "original's plan, and every variable tensor's offline entry -1")
    a = p.parse_args()
    if not a.tflm_run.is_file():
        p.error(f"no {a.tflm_run}: build it with scripts/models/tflm_host/build.sh")
    if a.self_test:
        failures = sum(self_test(a.tflm_run, m, a.arena_size) for m in a.models)
        print(f"self-test of every model: {'ok' if failures == 0 else f'{failures} FAILED'}")
        return 0 if failures == 0 else 1
    if len(a.models) != 2:
        p.error("give ORIGINAL.tflite WRITTEN.tflite")
    return judge(a.tflm_run, a.models[0], a.models[1], a.arena_size, memplan=a.memplan)


if __name__ == "__main__":
    sys.exit(main())
