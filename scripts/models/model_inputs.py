"""The fixed inputs every judge feeds: seeded random tensors and TFLM's two test images.

Seeded inputs: for input set k (k = 0, 1, ..., SEEDED_SETS - 1) and input i of the model,
numpy's `default_rng([k, i])` draws every element of a family (WIDTHS): width None,
uniformly over the whole range of an integer dtype (bool: 0 or 1), or from a standard
normal for a float dtype; width w, uniformly within w of the input's zero point (clipped to
the dtype), or from a normal of standard deviation w / 16 for a float dtype. The same
(k, i, w) gives the same bytes on every machine and numpy release that keeps
`default_rng`'s PCG64 stream.

Which family a judge feeds (`chosen_sets`): the first, in WIDTHS' order, whose sets, run
one after the other on one interpreter of the original model, give outputs that are not
all the same. A model whose outputs do not depend on the input proves nothing by them:
whole-range inputs saturate some models (micro_speech_lstm gives 2 distinct outputs of 4
on them, 4 of 4 within 16 of its zero point), and TFLM's keyword_scrambled models give one
output for every input tried; a judge says so (exit 5) rather than pass them.

TFLM's test images: `person.bmp` and `no_person.bmp` (96x96, 8-bit grayscale) are turned
into the bytes TFLM's person_detection test copies into the int8 input, exactly as TFLM's
build does it: `generate_cc_arrays.py` (tensorflow/lite/micro/tools) makes
`g_person_image_data` from `PIL.Image.open(path).tobytes()` (the pixels top row first, one
uint8 each), and `person_detection_test.cc` does
`memcpy(input->data.int8, g_person_image_data, input->bytes)`: the uint8 pixel bytes are
reinterpreted as int8 as they are (200 becomes -56); nothing subtracts 128, whatever the
comment in `main_functions.cc` says of camera input.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
TFLM_IMAGES = {
    "person": REPO / "examples/data/tflite/person.bmp",
    "no_person": REPO / "examples/data/tflite/no_person.bmp",
}
# model_settings.h of TFLM's person_detection example.
PERSON_INDEX = 1
NOT_A_PERSON_INDEX = 0
PERSON_INPUT = ((1, 96, 96, 1), np.int8)


# Input sets run in a row on one interpreter (state carries over from one to the next).
SEEDED_SETS = 4
# The input families, in the order they are tried (see the module's doc).
WIDTHS = (None, 64, 16, 4)
# Exit status of a judge when no family changes the original's outputs.
INPUT_INDEPENDENT = 5


def seeded(shape, dtype, set_index: int, input_index: int, width=None, zero_point: int = 0) -> np.ndarray:
    rng = np.random.default_rng([set_index, input_index])
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if width is None:
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        x = rng.integers(zero_point - width, zero_point + width, size=shape, endpoint=True)
        return np.clip(x, info.min, info.max).astype(dtype)
    if dtype.kind == "f":
        scale = 1.0 if width is None else width / 16
        return (rng.standard_normal(size=shape) * scale).astype(dtype)
    raise ValueError(f"no seeded input for dtype {dtype}")


def family(width) -> str:
    return "whole range" if width is None else f"within {width} of the zero point"


def seeded_sets(specs, width) -> dict:
    """{set name: [one array per input]}: the seeded sets of family `width` for inputs
    `specs` ([(shape, dtype) or (shape, dtype, zero_point)]), and TFLM's two test images
    for person detection's input."""
    specs = [tuple(s) + (0,) * (3 - len(s)) for s in specs]
    sets = {
        f"seed{k}": [seeded(s, t, k, i, width, int(z)) for i, (s, t, z) in enumerate(specs)]
        for k in range(SEEDED_SETS)
    }
    if is_person_input([(s, t) for s, t, _ in specs]):
        for name in TFLM_IMAGES:
            sets[name] = [tflm_image(name)]
    return sets


def _key(outputs) -> bytes:
    parts = []
    for o in outputs:
        if isinstance(o, str):
            parts.append(o.encode())
        elif isinstance(o, bytes):
            parts.append(o)
        else:
            parts.append(np.asarray(o).tobytes())
    return b"|".join(parts)


def outputs_vary(results: dict) -> bool:
    """Whether the outputs of the input sets ({set: [output, ...]}) are not all the same."""
    return len({_key(v) for v in results.values()}) > 1


def chosen_sets(specs, run):
    """The first family whose sets change the original's outputs: (width, sets, run(sets)),
    `run` running the original on {set: [arrays]} in a row and returning {set: [outputs]};
    width False (and the last family's sets and results) when no family does."""
    for width in WIDTHS:
        sets = seeded_sets(specs, width)
        results = run(sets)
        if outputs_vary(results):
            return width, sets, results
    return False, sets, results


def _bmp_pixels_top_down(raw: bytes) -> bytes:
    """An 8-bit BMP's pixel indices, top row first, decoded by hand (a cross-check of
    Pillow's decoding: the rows are stored bottom-up when the height is positive)."""
    assert raw[:2] == b"BM"
    data_offset = struct.unpack_from("<I", raw, 10)[0]
    width, height = struct.unpack_from("<ii", raw, 18)
    bpp = struct.unpack_from("<H", raw, 28)[0]
    assert bpp == 8, bpp
    stride = (width + 3) // 4 * 4
    rows = [raw[data_offset + r * stride : data_offset + r * stride + width] for r in range(abs(height))]
    return b"".join(reversed(rows) if height > 0 else rows)


def zero_points(data: bytes) -> list[int]:
    """The zero point of each input of subgraph 0 of the .tflite model `data` (0 when it has
    none)."""
    import tflite_plan

    sg = tflite_plan.load(data).subgraphs[0]
    out = []
    for i in sg.inputs:
        q = sg.tensors[i].quantization
        zp = getattr(q, "zeroPoint", None) if q is not None else None
        out.append(int(zp[0]) if zp is not None and len(zp) > 0 else 0)
    return out


def tflm_image(name: str) -> np.ndarray:
    """The int8 input TFLM's person_detection test feeds for `person` or `no_person`."""
    from PIL import Image

    path = TFLM_IMAGES[name]
    pixels = Image.open(path, mode="r").tobytes()
    raw = path.read_bytes()
    if pixels != _bmp_pixels_top_down(raw):
        raise AssertionError(f"{path}: Pillow's decoding differs from the BMP's own rows")
    shape, dtype = PERSON_INPUT
    return np.frombuffer(pixels, dtype=np.uint8).view(np.int8).reshape(shape).copy()


def is_person_input(shapes_dtypes) -> bool:
    """True for a model with the single 1x96x96x1 int8 input of person detection."""
    return len(shapes_dtypes) == 1 and (
        tuple(int(d) for d in shapes_dtypes[0][0]) == PERSON_INPUT[0]
        and np.dtype(shapes_dtypes[0][1]) == np.dtype(PERSON_INPUT[1])
    )
