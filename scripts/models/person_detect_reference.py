"""The LiteRT reference for person detection, for a firmware that must match it byte for byte.

    python person_detect_reference.py [--expected FILE] [--tensors-dir DIR] [--check]

Runs examples/data/tflite/person_detect.tflite on TFLM's two test images, fed as the exact
int8 input TFLM's person_detection test feeds (model_inputs.tflm_image: the BMP's uint8
pixels, top row first, reinterpreted as int8 by memcpy), in:
- LiteRT with its reference kernels (OpResolverType.BUILTIN_REF), the expected output;
- LiteRT with its default optimized kernels (XNNPACK), for comparison;
- TFLM's own Python runtime (reference kernels), for comparison.

Writes FILE (default examples/data/tflite/person_detect_expected.txt, committed): how it was
made, the input bytes' SHA-256 per image, and each runtime's output tensor bytes and scores.
With --check it compares instead of writing and exits 1 on any difference.

With --tensors-dir DIR (default: target/person_detect_tensors at the repository root; not
committed) it also writes every tensor of the BUILTIN_REF run with
experimental_preserve_all_tensors=True (no arena reuse, so each intermediate keeps its
value), per image: `DIR/<image>/<index>.bin` (raw bytes) and `DIR/<image>/index.json`
(per tensor: index, name, dtype, shape, quantization, kind, file, bytes, sha256).

LiteRT refuses the model as TFLM ships it (quantized_dimension 3 on 1-D bias tensors);
litert_judge.patch_quantized_dimension sets that field to 0 on those 14 tensors in a copy
of the bytes, nothing else (see litert_judge.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import litert_judge  # noqa: E402
import model_inputs  # noqa: E402
import tflm_judge  # noqa: E402

from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402
from tflite_micro import runtime as tflm_runtime  # noqa: E402

REPO = model_inputs.REPO
MODEL = REPO / "examples/data/tflite/person_detect.tflite"
EXPECTED = REPO / "examples/data/tflite/person_detect_expected.txt"
TENSORS = REPO / "target/person_detect_tensors"
IMAGES = list(model_inputs.TFLM_IMAGES)


def litert_outputs(data: bytes, resolver) -> dict[str, np.ndarray]:
    with litert_judge.quiet_fd2():
        interp = Interpreter(model_content=data, experimental_op_resolver_type=resolver)
        interp.allocate_tensors()
    i = interp.get_input_details()[0]["index"]
    o = interp.get_output_details()[0]["index"]
    out = {}
    for name in IMAGES:
        interp.set_tensor(i, model_inputs.tflm_image(name))
        interp.invoke()
        out[name] = interp.get_tensor(o).copy()
    return out


def tflm_outputs(data: bytes) -> dict[str, np.ndarray]:
    interp, _ = tflm_judge.captured(
        lambda: tflm_runtime.Interpreter.from_bytes(data, arena_size=tflm_judge.EXAMPLE_ARENA)
    )
    out = {}
    for name in IMAGES:
        interp.set_input(model_inputs.tflm_image(name), 0)
        tflm_judge.captured(interp.invoke)
        out[name] = np.array(interp.get_output(0))
    return out


def expected_text(model_bytes: bytes) -> tuple[str, dict]:
    patched, tensors = litert_judge.patch_quantized_dimension(model_bytes)
    runs = {
        "litert BUILTIN_REF": litert_outputs(patched, OpResolverType.BUILTIN_REF),
        "litert default (XNNPACK)": litert_outputs(patched, OpResolverType.AUTO),
        "tflm": tflm_outputs(model_bytes),
    }
    lines = [
        "# Expected output of examples/data/tflite/person_detect.tflite on TFLM's test images.",
        "# Made by scripts/models/person_detect_reference.py (see scripts/models/README.md) with",
        f"# ai-edge-litert=={version('ai-edge-litert')}, tflite-micro=={version('tflite-micro')}, "
        f"numpy=={version('numpy')}, pillow=={version('pillow')}.",
        "# Input: the BMP's 9216 uint8 pixels (Pillow's tobytes(), top row first, as TFLM's",
        "# generate_cc_arrays.py makes g_<image>_image_data) copied into the 1x96x96x1 int8",
        "# input unchanged, as person_detection_test.cc's memcpy does (no -128 shift).",
        "# LiteRT runs the model with quantized_dimension 0 on the 1-D bias tensors",
        f"# {tensors}",
        "# (LiteRT refuses the 3 they carry; TFLM ignores it); TFLM runs it as committed.",
        "# Output: 1x2 int8, index 0 = no person, index 1 = person (model_settings.h).",
        "# The reference is `litert BUILTIN_REF` (reference kernels, as TFLM's); the other",
        "# runs are for comparison.",
        "",
    ]
    for name in IMAGES:
        x = model_inputs.tflm_image(name)
        lines.append(f"image {name}: input int8 sha256 {hashlib.sha256(x.tobytes()).hexdigest()}")
        for label, out in runs.items():
            y = out[name].reshape(-1)
            lines.append(
                f"  {label}: output bytes {y.tobytes().hex()} "
                f"person={int(y[model_inputs.PERSON_INDEX])} no_person={int(y[model_inputs.NOT_A_PERSON_INDEX])}"
            )
    ref = runs["litert BUILTIN_REF"]
    for label, out in list(runs.items())[1:]:
        same = all(out[n].tobytes() == ref[n].tobytes() for n in IMAGES)
        lines.append(f"{label} vs litert BUILTIN_REF: {'identical' if same else 'differs'}")
    return "\n".join(lines) + "\n", ref


def dump_tensors(model_bytes: bytes, out_dir: Path, ref=None) -> None:
    patched, _ = litert_judge.patch_quantized_dimension(model_bytes)
    for name in IMAGES:
        with litert_judge.quiet_fd2():
            interp = Interpreter(
                model_content=patched,
                experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                experimental_preserve_all_tensors=True,
            )
            interp.allocate_tensors()
        inputs = {d["index"] for d in interp.get_input_details()}
        outputs = {d["index"] for d in interp.get_output_details()}
        interp.set_tensor(interp.get_input_details()[0]["index"], model_inputs.tflm_image(name))
        interp.invoke()
        d = out_dir / name
        d.mkdir(parents=True, exist_ok=True)
        index = []
        for t in sorted(interp.get_tensor_details(), key=lambda t: t["index"]):
            entry = {
                "index": int(t["index"]),
                "name": t["name"],
                "dtype": np.dtype(t["dtype"]).name,
                "shape": [int(s) for s in t["shape"]],
                "quantization": {
                    "scales": [float(s) for s in t["quantization_parameters"]["scales"]],
                    "zero_points": [int(z) for z in t["quantization_parameters"]["zero_points"]],
                    "quantized_dimension": int(t["quantization_parameters"]["quantized_dimension"]),
                },
                "kind": "input" if t["index"] in inputs else "output" if t["index"] in outputs else None,
            }
            try:
                value = interp.get_tensor(t["index"])
            except ValueError as e:  # a tensor without data (none in this model)
                entry["kind"] = entry["kind"] or "no data"
                entry["error"] = str(e)
                index.append(entry)
                continue
            raw = np.ascontiguousarray(value).tobytes()
            if entry["kind"] is None:
                entry["kind"] = "intermediate" if not is_constant(model_bytes, t["index"]) else "constant"
            entry["file"] = f"{t['index']}.bin"
            entry["bytes"] = len(raw)
            entry["sha256"] = hashlib.sha256(raw).hexdigest()
            (d / entry["file"]).write_bytes(raw)
            index.append(entry)
        if ref is not None:
            out_entry = next(e for e in index if e["kind"] == "output")
            y = (d / out_entry["file"]).read_bytes()
            if y != ref[name].tobytes():
                raise AssertionError(f"{name}: the preserve-all run's output differs from the reference")
        (d / "index.json").write_text(json.dumps({"model": str(MODEL.relative_to(REPO)), "image": name, "tensors": index}, indent=1) + "\n")
        kinds = {}
        for e in index:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
        print(f"{d}: {len(index)} tensors {kinds}")


_constants: dict[int, bool] | None = None


def is_constant(model_bytes: bytes, index: int) -> bool:
    global _constants
    if _constants is None:
        import tflite_plan

        model = tflite_plan.load(model_bytes)
        sg = model.subgraphs[0]
        _constants = {
            i: model.buffers[t.buffer].data is not None and len(model.buffers[t.buffer].data) > 0
            for i, t in enumerate(sg.tensors)
        }
    return _constants[index]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--expected", type=Path, default=EXPECTED)
    p.add_argument("--tensors-dir", type=Path, default=TENSORS)
    p.add_argument("--no-tensors", action="store_true", help="do not write the tensors")
    p.add_argument("--check", action="store_true", help="compare with FILE instead of writing it")
    a = p.parse_args()
    model_bytes = MODEL.read_bytes()
    text, ref = expected_text(model_bytes)
    print(text, end="")
    rc = 0
    if a.check:
        if a.expected.read_text() == text:
            print(f"{a.expected}: reproduced exactly")
        else:
            print(f"{a.expected}: DIFFERS from this run")
            rc = 1
    else:
        a.expected.write_text(text)
        print(f"wrote {a.expected}")
    if not a.no_tensors:
        dump_tensors(model_bytes, a.tensors_dir, ref)
    return rc


if __name__ == "__main__":
    sys.exit(main())
