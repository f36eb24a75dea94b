"""Checks that a written .tflite is its original with an offline plan, and nothing else changed.

    python tflite_same_model.py ORIGINAL.tflite WRITTEN.tflite
    python tflite_same_model.py --self-test MODEL.tflite [MODEL.tflite ...]

No runtime is involved: both flatbuffers are read with TFLM's generated object API and
compared field by field (version, description, operator codes, every subgraph's tensors,
operators, inputs and outputs, every buffer's bytes, signature defs, other metadata),
leaving out only the `OfflineMemoryAllocation` metadata entry and its buffer, which may be
replaced in place or appended as the last buffer. The written model must carry an offline
plan that TFLM accepts: version 0 or 1, the model's subgraph count, one offset per tensor
(TFLM refuses the model otherwise), each -1 or a non-negative offset. It prints the plan's
extent (what TFLM's head then holds).

This is the check that still judges a model no runtime here can run (Vela's
person_detect_vela.tflite, whose ethos-u operator has no host kernel in LiteRT or TFLM).

Exit status: 0 when the models match apart from the plan, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tflite_plan  # noqa: E402


def normal(obj):
    """A plain, comparable form of an object-API value (numpy arrays as lists)."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (list, tuple)):
        return [normal(x) for x in obj]
    if isinstance(obj, (bytes, str, int, float, bool)) or obj is None:
        return obj
    return {k: normal(v) for k, v in sorted(vars(obj).items())}


def without_plan(data: bytes):
    """The model as a plain structure, without the offline plan, and the plan."""
    model = tflite_plan.load(data)
    plan = tflite_plan.read_offline_plan(data)
    if plan is not None:
        model.metadata = [m for i, m in enumerate(model.metadata) if i != plan.metadata_index]
        if plan.buffer_index == len(model.buffers) - 1:
            model.buffers = model.buffers[:-1]
        else:
            model.buffers[plan.buffer_index].data = None
    if model.metadata == []:
        model.metadata = None
    return normal(model), plan


def differences(a, b, path="model", out=None, limit=10):
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            differences(a.get(k), b.get(k), f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{path}[{i}]", out, limit)
    elif a != b:
        show = lambda v: (repr(v)[:80] + "...") if len(repr(v)) > 80 else repr(v)  # noqa: E731
        out.append(f"{path}: {show(a)} vs {show(b)}")
    return out


def judge(orig_path: str, written_path: str, quiet: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    orig = Path(orig_path).read_bytes()
    written = Path(written_path).read_bytes()
    say(f"same model: {orig_path} vs {written_path}")
    a, _ = without_plan(orig)
    b, plan = without_plan(written)
    ok = True
    diffs = differences(a, b)
    for d in diffs:
        say(f"  DIFFERS {d}")
    ok &= not diffs
    if plan is None:
        say("  FAIL: the written model has no OfflineMemoryAllocation")
        ok = False
    else:
        tensors = sum(len(sg["tensors"]) for sg in b["subgraphs"])
        problems = []
        if plan.version not in (0, 1):
            problems.append(f"version {plan.version}")
        if plan.subgraphs != len(b["subgraphs"]):
            problems.append(f"{plan.subgraphs} subgraphs for {len(b['subgraphs'])}")
        if len(plan.offsets) != tensors:
            problems.append(f"{len(plan.offsets)} offsets for {tensors} tensors")
        bad = [o for o in plan.offsets if o < -1]
        if bad:
            problems.append(f"offsets below -1: {bad[:5]}")
        for p in problems:
            say(f"  FAIL offline plan: {p}")
        ok &= not problems
        if not problems:
            placed = sum(1 for o in plan.offsets if o != tflite_plan.ONLINE)
            say(
                f"  offline plan: version {plan.version}, {len(plan.offsets)} offsets ({placed} placed), "
                f"extent {tflite_plan.plan_extent(written)} bytes"
            )
    say("  RESULT: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


def self_test(models: list[str]) -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in models:
            data = Path(path).read_bytes()
            stem = Path(path).stem
            offsets = tflite_plan.naive_offsets(data)
            good = Path(tmp, f"{stem}.plan.tflite")
            good.write_bytes(tflite_plan.with_offline_plan(data, offsets))
            print(f"self-test {path}: the model with an offline plan of our own must pass")
            failures += judge(path, str(good)) != 0
            print(f"self-test {path}: the exact copy must fail when it has no plan")
            copy = Path(tmp, f"{stem}.copy.tflite")
            copy.write_bytes(data)
            expect = 0 if tflite_plan.read_offline_plan(data) is not None else 1
            failures += judge(path, str(copy)) != expect
            print(f"self-test {path}: one buffer byte changed must fail")
            model = tflite_plan.load(data)
            for buf in model.buffers:
                if buf.data is not None and len(buf.data) > 0:
                    raw = bytearray(bytes(bytearray(buf.data)))
                    raw[len(raw) // 2] ^= 1
                    buf.data = list(raw)
                    break
            damaged = tflite_plan.with_offline_plan(tflite_plan.pack(model), offsets)
            bad = Path(tmp, f"{stem}.damaged.tflite")
            bad.write_bytes(damaged)
            failures += judge(path, str(bad)) != 1
            print(f"self-test {path}: a plan with one offset short must fail")
            short = Path(tmp, f"{stem}.short.tflite")
            short.write_bytes(tflite_plan.with_offline_plan(data, offsets[:-1]))
            failures += judge(path, str(short)) != 1
    print(f"self-test: {'ok' if failures == 0 else f'{failures} FAILURE(S)'}")
    return 0 if failures == 0 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test(a.models)
    if len(a.models) != 2:
        p.error("give ORIGINAL.tflite WRITTEN.tflite")
    return judge(a.models[0], a.models[1])


if __name__ == "__main__":
    sys.exit(main())
