"""The fixed inputs every judge feeds: seeded random tensors and TFLM's two test images.

Seeded inputs: for input set k (k = 0, 1, ...) and input i of the model, numpy's
`default_rng([k, i])` draws every element uniformly over the whole range of an integer
dtype (bool: 0 or 1), or from a standard normal for a float dtype. The same (k, i) gives
the same bytes on every machine and numpy release that keeps `default_rng`'s PCG64 stream.

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


def seeded(shape, dtype, set_index: int, input_index: int) -> np.ndarray:
    rng = np.random.default_rng([set_index, input_index])
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    if dtype.kind == "f":
        return rng.standard_normal(size=shape).astype(dtype)
    raise ValueError(f"no seeded input for dtype {dtype}")


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
