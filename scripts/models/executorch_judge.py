"""The ExecuTorch runtime judges a written .pte against its original.

    python executorch_judge.py ORIGINAL.pte WRITTEN.pte [ORIGINAL.pte WRITTEN.pte ...]
    python executorch_judge.py --self-test PROGRAM.pte [PROGRAM.pte ...]

Both programs are loaded with ExecuTorch's Python runtime (`executorch.runtime`, the
portable C++ runtime behind pybindings) and every method of the original runs on the same
fixed inputs (model_inputs.py: three seeded sets, each input's dtype and shape read from the
method's metadata), invocation after invocation of one loaded method: seed 0, 1, 2, then
seed 0 again, so that a plan that leaves one invocation's bytes where the next one reads
them (values with initial state, loaded once) shows. Every output must be identical byte
for byte (the raw bytes of each output tensor are compared, not values), and the
original's outputs must differ between the seeded sets (a method that takes inputs and
computes the same whatever they are does not test a plan: the judge fails it). For each
program it prints the planned-arena bytes: `non_const_buffer_sizes` of each method (index 0
is reserved and always 0).

Exit status: 0 when every output is identical; 1 on any difference, when the runtime
loads the original but refuses the written program (e.g. an offset past a buffer's end), or
when the original's outputs do not depend on its inputs;
3 when the runtime refuses the original too (not judged). Several pairs are judged in one
process (torch and the runtime load once, about 10 s); the status is then the worst.

`--self-test` checks the judge itself on each PROGRAM: an exact copy must pass; the same
program with every offset shifted by 4096 bytes (a different valid plan, written by
ExecuTorch's own serializer) must pass; a plan that puts one tensor on the bytes of another
tensor used by the same instruction must fail (outputs differ); and an offset past the
buffer's end must be refused.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_inputs  # noqa: E402
import pte_plan  # noqa: E402

from executorch.runtime import Runtime, Verification  # noqa: E402

SEEDED_SETS = 3
# ExecuTorch ScalarType (runtime/core/portable_type/scalar_type.h) -> torch dtype.
SCALAR_TYPES = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
    5: torch.float16, 6: torch.float32, 7: torch.float64, 11: torch.bool, 15: torch.bfloat16,
}


class Refused(Exception):
    pass


def seeded_tensor(sizes, scalar_type: int, k: int, i: int) -> torch.Tensor:
    dtype = SCALAR_TYPES[scalar_type]
    if dtype in (torch.float16, torch.bfloat16):
        return torch.from_numpy(model_inputs.seeded(sizes, np.float32, k, i)).to(dtype)
    np_dtype = torch.empty((), dtype=dtype).numpy().dtype
    return torch.from_numpy(model_inputs.seeded(sizes, np_dtype, k, i))


def raw(value) -> bytes:
    if isinstance(value, torch.Tensor):
        return value.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    return repr(value).encode()


def run(data: bytes, runtime: Runtime) -> dict[str, list[list[bytes]]]:
    """Outputs (raw bytes) of every method on every fixed input set."""
    try:
        program = runtime.load_program(data, verification=Verification.InternalConsistency)
    except Exception as e:
        raise Refused(f"load_program: {type(e).__name__}: {e}") from e
    results = {}
    for name in sorted(program.method_names):
        try:
            method = program.load_method(name)
        except Exception as e:
            raise Refused(f"load_method({name!r}): {type(e).__name__}: {e}") from e
        if method is None:
            raise Refused(f"load_method({name!r}) gave nothing")
        meta = method.metadata
        # One loaded method, invocation after invocation; the last repeats the first set.
        for run_index, k in enumerate([*range(SEEDED_SETS), 0]):
            inputs = []
            for i in range(meta.num_inputs()):
                info = meta.input_tensor_meta(i)
                inputs.append(seeded_tensor(info.sizes(), int(info.dtype()), k, i))
            try:
                outputs = method.execute(inputs)
            except Exception as e:
                raise Refused(f"{name} execute: {type(e).__name__}: {e}") from e
            again = " again" if run_index >= SEEDED_SETS else ""
            results[f"{name} seed{k}{again}"] = [raw(o) for o in outputs]
        if meta.num_inputs() > 0:
            results[f"{name} inputs"] = meta.num_inputs()
    return results


def independent_of_inputs(results) -> list[str]:
    """The methods that take inputs whose outputs are the same for every seeded set."""
    methods = [key[: -len(" inputs")] for key in results if key.endswith(" inputs")]
    return [
        m for m in methods
        if len({tuple(results[f"{m} seed{k}"]) for k in range(SEEDED_SETS)}) == 1
    ]


def judge(orig_path: str, written_path: str, quiet: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    runtime = Runtime.get()
    orig = Path(orig_path).read_bytes()
    written = Path(written_path).read_bytes()
    say(f"executorch: {orig_path} vs {written_path}")
    try:
        out_a = run(orig, runtime)
    except Refused as e:
        say(f"  NOT JUDGED: the runtime refuses the original: {e}")
        return 3
    say(f"  original {orig_path}: planned-arena bytes (non_const_buffer_sizes) {pte_plan.buffer_sizes(orig)}")
    constant = independent_of_inputs(out_a)
    for m in constant:
        say(f"  FAIL: {m}: the original computes the same outputs for every seeded input set: they do not test the plan")
    try:
        sizes_b = pte_plan.buffer_sizes(written)
    except Exception as e:
        sizes_b = f"unreadable ({type(e).__name__}: {e})"
    say(f"  written  {written_path}: planned-arena bytes (non_const_buffer_sizes) {sizes_b}")
    try:
        out_b = run(written, runtime)
    except Refused as e:
        say(f"  FAIL: the runtime runs the original but refuses the written program: {e}")
        return 1
    ok = set(out_a) == set(out_b) and not constant
    if set(out_a) != set(out_b):
        say(f"  methods differ: {sorted(out_a)} vs {sorted(out_b)}")
    for key in sorted(k for k in out_a if not k.endswith(" inputs")):
        a, b = out_a[key], out_b.get(key, [])
        same = a == b
        nbytes = sum(len(x) for x in a)
        line = f"  {key}: {len(a)} output(s), {nbytes} bytes, {'identical' if same else 'DIFFER'}"
        if not same and len(a) == len(b):
            for j, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    diff = sum(1 for p, q in zip(x, y) if p != q) + abs(len(x) - len(y))
                    line += f"; output {j}: {diff} of {len(x)} bytes differ"
                    break
        say(line)
        ok &= same
    say("  RESULT: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


def self_test(programs: list[str]) -> int:
    failures = 0
    shown, harmless = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in programs:
            data = Path(path).read_bytes()
            stem = Path(path).stem
            print(f"self-test {path}: exact copy must pass")
            copy = Path(tmp, f"{stem}.copy.pte")
            copy.write_bytes(data)
            rc = judge(path, str(copy))
            if rc == 3:
                print(f"self-test {path}: the runtime cannot run this program; nothing more to test")
                continue
            failures += rc != 0

            print(f"self-test {path}: every offset shifted by 4096 (valid) must pass")
            shifted = Path(tmp, f"{stem}.shifted.pte")
            shifted.write_bytes(pte_plan.shifted(data))
            failures += judge(path, str(shifted)) != 0

            print(f"self-test {path}: two tensors live at one instruction on the same bytes must fail")
            tried = 0
            for broken, desc in pte_plan.overlap_candidates(data):
                tried += 1
                bad = Path(tmp, f"{stem}.overlap.pte")
                bad.write_bytes(broken)
                if judge(path, str(bad), quiet=True) == 1:
                    print(f"  {desc}")
                    judge(path, str(bad))
                    break
                print(f"  {desc}: outputs unchanged (harmless here), next")
            else:
                # Possible and true of some programs: a single elementwise operator computes
                # the same in place. Another program of the self-test must then show it.
                print(f"  note: none of the {tried} overlapping plans changes an output of this model")
                harmless.append(path)
            if not harmless or harmless[-1] != path:
                shown.append(path)

            print(f"self-test {path}: an offset past the buffer's end must be refused")
            broken, desc = pte_plan.past_the_end(data)
            print(f"  {desc}")
            bad = Path(tmp, f"{stem}.past_end.pte")
            bad.write_bytes(broken)
            failures += judge(path, str(bad)) != 1
    if not shown:
        print("self-test FAILURE: no model showed an overlapping plan failing the check")
        failures += 1
    print(f"overlapping plans caught on {len(shown)} model(s); harmless on every try for {harmless}")
    print(f"self-test: {'ok' if failures == 0 else f'{failures} FAILURE(S)'}")
    return 0 if failures == 0 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("programs", nargs="+")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test(a.programs)
    if len(a.programs) % 2:
        p.error("give ORIGINAL.pte WRITTEN.pte (or several such pairs)")
    codes = [judge(o, w) for o, w in zip(a.programs[::2], a.programs[1::2])]
    return 1 if 1 in codes else 3 if 3 in codes else 0


if __name__ == "__main__":
    sys.exit(main())
