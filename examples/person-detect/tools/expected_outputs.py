#!/usr/bin/env python3
"""Writes the firmware's test data: for TFLM's two person detection test images, the int8
input tensor and LiteRT 2.3.0's output tensor, into examples/person-detect/data/.

  {image}.input.bin     the 9,216-byte input (1x96x96x1 int8), as TFLM's
                        person_detection_test feeds it: the BMP's pixels as Pillow's
                        `Image.tobytes()` gives them (generate_cc_arrays.py), each uint8
                        reinterpreted as int8 (its memcpy), as dump_fixture.py does.
  {image}.expected.bin  the 2-byte output (1x2 int8, [no person, person]) of LiteRT with
                        `OpResolverType.BUILTIN_REF`: TFLite's reference kernels, the
                        arithmetic TensorFlow Lite Micro runs and the firmware's kernels
                        implement.

The model is examples/data/tflite/person_detect.tflite with its 14 out-of-range
`quantized_dimension` fields set to 0 (LiteRT refuses them; no kernel reads them), exactly
as dump_fixture.py runs it. Pinned environment: tools/requirements.txt.

With --check, the files are not written: the script fails unless the committed ones are
what LiteRT gives now.

Usage (from the repository root):
  target/person-detect-venv/bin/python examples/person-detect/tools/expected_outputs.py [--check]
"""

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dump_fixture as fx  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "data"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = p.parse_args()
    import ai_edge_litert
    import numpy as np
    from ai_edge_litert import interpreter as litert

    raw = (fx.DATA / "person_detect.tflite").read_bytes()
    patched, _ = fx.patched_model(raw)
    files = {}
    with tempfile.TemporaryDirectory() as d:
        model = Path(d) / "person_detect_patched.tflite"
        model.write_bytes(patched)
        for name in fx.IMAGES:
            image = fx.image_input(name)
            it = litert.Interpreter(model_path=str(model),
                                    experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
            it.allocate_tensors()
            it.set_tensor(it.get_input_details()[0]["index"], image)
            it.invoke()
            out = it.get_tensor(it.get_output_details()[0]["index"])
            assert out.shape == (1, 2) and out.dtype == np.int8, (out.shape, out.dtype)
            files[f"{name}.input.bin"] = image.tobytes()
            files[f"{name}.expected.bin"] = out.tobytes()
            print(f"{name:10} LiteRT {ai_edge_litert.__version__} BUILTIN_REF: "
                  f"no person {int(out[0, 0]):4}  person {int(out[0, 1]):4}  "
                  f"(input sha256 {hashlib.sha256(image.tobytes()).hexdigest()[:16]}...)")
    bad = 0
    for f, data in files.items():
        if args.check:
            have = (OUT / f).read_bytes() if (OUT / f).exists() else None
            if have != data:
                print(f"{OUT / f}: differs from LiteRT's bytes", file=sys.stderr)
                bad = 1
        else:
            OUT.mkdir(exist_ok=True)
            (OUT / f).write_bytes(data)
    if args.check:
        print("committed test data: " + ("DIFFERS" if bad else "identical to LiteRT's"))
    else:
        print(f"wrote {len(files)} files to {OUT}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
