"""LiteRT judges a written .tflite against its original.

    python litert_judge.py ORIGINAL.tflite WRITTEN.tflite
    python litert_judge.py --self-test MODEL.tflite [MODEL.tflite ...]

Both models run in LiteRT (`ai_edge_litert.interpreter`), with its default op resolver
(optimized kernels, XNNPACK) and with its reference kernels (BUILTIN_REF), on the same fixed
inputs (model_inputs.py: four seeded sets covering every input's dtype and shape, of the
first family that changes the original's outputs, plus TFLM's two test images for person
detection's 1x96x96x1 int8 input), in a row on one interpreter. Every output must be
identical byte for byte.

LiteRT plans its own arena and ignores `OfflineMemoryAllocation` (it is TFLM's metadata):
this judge checks that writing the plan left the model itself intact (graph, weights,
quantization), not the plan. A wrong plan is caught by tflm_judge.py.

LiteRT 2.3.0 refuses `person_detect.tflite` as TFLM ships it: 14 of its 1-D depthwise bias
tensors carry `quantized_dimension` 3 ("quantized_dimension must be in range [0, 1). Was
3."), which TFLM does not check. Both models are therefore given to LiteRT with that one
field set to 0 on every tensor where it is past the tensor's rank, patched in place in a
copy of the bytes (the only valid value for a 1-D tensor; per-channel scales still follow
the only dimension); nothing else is touched, and the patch is reported.

Exit status: 0 when every output is identical; 1 on any difference, or when LiteRT refuses
the written model but runs the original; 3 when LiteRT refuses the original too (not judged:
e.g. Vela's ethos-u custom operator); 5 when no input family changes the original's outputs
(not judged by outputs).

`--self-test` checks the judge on each MODEL: an exact copy must pass; a copy with a
deliberately overlapping offline plan must also pass here (LiteRT ignores the plan, as said
above; the same file fails tflm_judge.py); a copy with the bytes of the first operator's
weights changed (a model without weights: its first output's zero point) must fail.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_inputs  # noqa: E402
import tflite_plan  # noqa: E402

from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema  # noqa: E402

RESOLVERS = (OpResolverType.AUTO, OpResolverType.BUILTIN_REF)


class Refused(Exception):
    pass


def patch_quantized_dimension(data: bytes) -> tuple[bytes, list[int]]:
    """A copy with quantized_dimension set to 0 where it is past the tensor's rank, each
    such int32 field overwritten in place; returns (bytes, patched tensor indices)."""
    out = bytearray(data)
    model = schema.Model.GetRootAsModel(data, 0)
    patched = []
    for s in range(model.SubgraphsLength()):
        sg = model.Subgraphs(s)
        for t in range(sg.TensorsLength()):
            tensor = sg.Tensors(t)
            q = tensor.Quantization()
            if q is None:
                continue
            rank = tensor.ShapeLength()
            o = q._tab.Offset(16)  # field 6 of QuantizationParameters: quantized_dimension
            if o != 0 and rank > 0 and q.QuantizedDimension() >= rank:
                struct.pack_into("<i", out, q._tab.Pos + o, 0)
                patched.append(t)
    return bytes(out), patched


@contextlib.contextmanager
def quiet_fd2():
    """LiteRT's C++ logs ("INFO: Created TensorFlow Lite XNNPACK delegate") go to fd 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def interpreter(data: bytes, resolver: OpResolverType, preserve_all: bool = False):
    try:
        with quiet_fd2():
            interp = Interpreter(
                model_content=data,
                experimental_op_resolver_type=resolver,
                experimental_preserve_all_tensors=preserve_all,
            )
            interp.allocate_tensors()
    except Exception as e:
        raise Refused(f"{type(e).__name__}: {e}") from e
    return interp


def specs(data: bytes, resolver: OpResolverType):
    """The model's inputs as [(shape, dtype, zero point)]."""
    ins = interpreter(data, resolver).get_input_details()
    return [(d["shape"], d["dtype"], z) for d, z in zip(ins, model_inputs.zero_points(data))]


def run(data: bytes, resolver: OpResolverType, sets: dict, preserve_all: bool = False):
    """Interpreter and outputs per input set of `sets`, run in order on one interpreter
    (raw bytes of each output, in order)."""
    interp = interpreter(data, resolver, preserve_all)
    ins = interp.get_input_details()
    outs = interp.get_output_details()
    results = {}
    for name, xs in sets.items():
        for d, x in zip(ins, xs):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        results[name] = [interp.get_tensor(d["index"]).copy() for d in outs]
    return interp, results


def judge(orig_path: str, written_path: str, quiet: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    orig, pa = patch_quantized_dimension(Path(orig_path).read_bytes())
    written, pb = patch_quantized_dimension(Path(written_path).read_bytes())
    say(f"litert: {orig_path} vs {written_path}")
    if pa or pb:
        say(f"  quantized_dimension past the rank set to 0 (for LiteRT only) on tensors {pa} / {pb}")
    ok = True
    for resolver in RESOLVERS:
        try:
            width, sets, out_a = model_inputs.chosen_sets(
                specs(orig, resolver), lambda sets: run(orig, resolver, sets)[1]
            )
        except Refused as e:
            say(f"  NOT JUDGED: LiteRT ({resolver.name}) refuses the original: {e}")
            return 3
        if width is False:
            say(f"  NOT JUDGED BY OUTPUTS: LiteRT ({resolver.name}) gives the original the same outputs for every input set of every family")
            return model_inputs.INPUT_INDEPENDENT
        say(f"  {resolver.name:11} inputs: {len(sets)} sets in a row, {model_inputs.family(width)}")
        try:
            _, out_b = run(written, resolver, sets)
        except Refused as e:
            say(f"  FAIL: LiteRT ({resolver.name}) runs the original but refuses the written model: {e}")
            return 1
        for name in out_a:
            a, b = out_a[name], out_b[name]
            same = len(a) == len(b) and all(
                x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b)
            )
            line = f"  {resolver.name:11} input {name}: {sum(x.nbytes for x in a)} output bytes {'identical' if same else 'DIFFER'}"
            if name in model_inputs.TFLM_IMAGES:
                v = a[0].reshape(-1)
                line += f" (person={v[model_inputs.PERSON_INDEX]} no_person={v[model_inputs.NOT_A_PERSON_INDEX]})"
            say(line)
            ok &= same
    say("  RESULT: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


def damaged_weights(data: bytes) -> tuple[bytes, str]:
    """The model with every byte of the first operator's first constant input XOR 0x55 (or,
    in a model without constants, its first output's zero point moved)."""
    model = tflite_plan.load(data)
    sg = model.subgraphs[0]
    for op in sg.operators:
        for t in op.inputs:
            if t < 0:
                continue
            buf = model.buffers[sg.tensors[t].buffer]
            if buf.data is not None and len(buf.data) > 0:
                buf.data = [b ^ 0x55 for b in bytes(bytearray(buf.data))]
                return tflite_plan.pack(model), f"tensor {t} `{(sg.tensors[t].name or b'').decode()}`: {len(buf.data)} bytes XOR 0x55"
    # No constants (simple_add_model): the first operator's output zero point moved by 1.
    t = sg.operators[0].outputs[0]
    q = sg.tensors[t].quantization
    if q is not None and q.zeroPoint is not None and len(q.zeroPoint) > 0:
        q.zeroPoint = [int(z) + 1 for z in q.zeroPoint]
        return tflite_plan.pack(model), f"tensor {t} `{(sg.tensors[t].name or b'').decode()}`: zero point + 1 (no constants to damage)"
    raise ValueError("nothing to damage: no constant operator input, no quantized output")


def self_test(models: list[str]) -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in models:
            data = Path(path).read_bytes()
            stem = Path(path).stem
            print(f"self-test {path}: exact copy must pass")
            copy = Path(tmp, f"{stem}.copy.tflite")
            copy.write_bytes(data)
            rc = judge(path, str(copy))
            if rc == 3:
                print(f"self-test {path}: LiteRT cannot run this model; nothing more to test")
                continue
            if rc == model_inputs.INPUT_INDEPENDENT:
                print(f"self-test {path}: its outputs do not depend on its inputs; nothing to test by outputs")
                continue
            failures += rc != 0

            print(f"self-test {path}: an overlapping offline plan passes here (LiteRT ignores it)")
            offsets = tflite_plan.naive_offsets(data)
            broken, desc = next(iter(tflite_plan.overlap_candidates(data, offsets)))
            print(f"  {desc}")
            bad = Path(tmp, f"{stem}.overlap.tflite")
            bad.write_bytes(tflite_plan.with_offline_plan(data, broken))
            failures += judge(path, str(bad)) != 0

            print(f"self-test {path}: damaged weights must fail")
            damaged, desc = damaged_weights(data)
            print(f"  {desc}")
            bad = Path(tmp, f"{stem}.damaged.tflite")
            bad.write_bytes(damaged)
            failures += judge(path, str(bad)) != 1
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
