#!/usr/bin/env python3
"""Train, quantize and export the digits MLP that the firmware example runs.

    pip install scikit-learn==1.9.1 numpy==2.4.6
    python3 train.py

Steps (all deterministic: fixed split, fixed seeds, single-threaded BLAS):

1. Load scikit-learn's bundled 8x8 handwritten digits (1797 images, pixels 0..16;
   no download) and split it 75/25, stratified, random_state=0.
2. Train a float MLPClassifier 64 -> 32 -> 16 -> 10 (ReLU, Adam, random_state=0) on
   pixel/16 and print its test accuracy.
3. Quantize it to int8 in the TFLite Micro / CMSIS-NN style (see README.md and the doc
   comment of ../src/kernels.rs for the exact scheme), calibrating the activation
   ranges on the training set.
4. Run the integer reference: numpy int64 arithmetic that is exactly the firmware's
   (i32 accumulators, i64 requantization products, round half away from zero,
   saturation to int8), with the absence of i32/i64 overflow asserted by worst-case
   bounds. Print its test accuracy and how many test images it and the float model
   classify differently.
5. Write ../src/model.rs: layer sizes, int8 weights, int32 biases, requantization
   multipliers and shifts, zero points, the test images (raw pixels), their labels and
   the reference model's predictions.
"""

import math
import os
import platform
import sys
import warnings

import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from threadpoolctl import threadpool_limits

HIDDEN = (32, 16)
SPLIT_SEED = 0
MODEL_SEED = 0
TEST_SIZE = 0.25

# Input quantization, fixed: x_q = PIXEL_STEP * pixel + INPUT_ZERO_POINT, saturated to int8.
# The float model sees pixel / 16, so the input scale is 1 / (16 * PIXEL_STEP) = 1/128.
PIXEL_STEP = 8
INPUT_ZERO_POINT = -128
INPUT_SCALE = 1.0 / (16 * PIXEL_STEP)

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MAX = 2**63 - 1

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.normpath(os.path.join(HERE, "..", "src", "model.rs"))


# ---------------------------------------------------------------------------------------
# Quantization parameters
# ---------------------------------------------------------------------------------------


def quantize_multiplier(real):
    """real > 0 -> (multiplier, shift) with real ~= multiplier * 2**-(31 + shift),
    multiplier a Q31 value in [2**30, 2**31)."""
    assert real > 0.0
    mantissa, exponent = math.frexp(real)  # real = mantissa * 2**exponent, 0.5 <= m < 1
    multiplier = int(round(mantissa * 2**31))
    if multiplier == 2**31:
        multiplier //= 2
        exponent += 1
    shift = -exponent
    assert 2**30 <= multiplier <= I32_MAX
    assert 1 <= 31 + shift <= 62, f"shift {shift} out of range"
    return multiplier, shift


def activation_qparams(lo, hi):
    """Asymmetric int8 (scale, zero_point) covering [min(lo, 0), max(hi, 0)]."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / 255.0
    zero_point = int(round(-128 - lo / scale))
    zero_point = max(-128, min(127, zero_point))
    return scale, zero_point


def quantize_layer(w_float, b_float, input_scale, output_scale):
    """Per-output-channel symmetric int8 weights, int32 bias, requantization params.

    w_float is [out][in]. Returns (w_q [out][in] int8, b_q [out] int32,
    multipliers [out], shifts [out], weight_scales [out])."""
    absmax = np.max(np.abs(w_float), axis=1)
    w_scale = np.where(absmax > 0, absmax / 127.0, 1.0)
    w_q = np.clip(np.rint(w_float / w_scale[:, None]), -127, 127).astype(np.int64)
    b_q = np.rint(b_float / (input_scale * w_scale)).astype(np.int64)
    assert np.all((b_q >= I32_MIN) & (b_q <= I32_MAX))
    mults, shifts = zip(*(quantize_multiplier(input_scale * s / output_scale) for s in w_scale))
    return w_q, b_q, np.array(mults, np.int64), np.array(shifts, np.int64), w_scale


# ---------------------------------------------------------------------------------------
# Integer reference: exactly the arithmetic of ../src/kernels.rs
# ---------------------------------------------------------------------------------------


def quantize_input(pixels):
    """kernels::quantize_input: x_q = sat_i8(PIXEL_STEP * pixel + INPUT_ZERO_POINT)."""
    p = np.asarray(pixels, np.int64)
    return np.clip(PIXEL_STEP * p + INPUT_ZERO_POINT, -128, 127)


def requantize(acc, multiplier, shift, zero_point):
    """kernels::requantize, elementwise over int64 arrays.

    prod = acc * multiplier (exact in i64), rounded right shift by 31 + shift with ties
    away from zero, plus zero_point, saturated to [-128, 127]."""
    acc = np.asarray(acc, np.int64)
    total = 31 + np.asarray(shift, np.int64)
    assert np.all((total >= 1) & (total <= 62))
    assert np.all((acc >= I32_MIN) & (acc <= I32_MAX))
    # |acc| <= 2**31 and |multiplier| <= 2**31, so |prod| <= 2**62 and |prod| + 2**61 < 2**63.
    prod = acc * np.asarray(multiplier, np.int64)
    half = np.left_shift(np.int64(1), total - 1)
    mag = (np.abs(prod) + half) >> total
    rounded = np.where(prod >= 0, mag, -mag)
    return np.clip(rounded + zero_point, -128, 127)


def dense(x_q, w_q, b_q, mults, shifts, in_zp, out_zp):
    """kernels::dense on a batch: x_q [n][in] int8 values, w_q [out][in]."""
    x = np.asarray(x_q, np.int64) - in_zp
    assert np.all(np.abs(x) <= 255)
    # Worst case of the i32 accumulator per output channel: |bias| + 255 * sum |w|.
    bound = np.abs(b_q) + 255 * np.sum(np.abs(w_q), axis=1)
    assert np.all(bound <= I32_MAX), "an i32 accumulator could overflow"
    acc = b_q[None, :] + x @ w_q.T  # exact: int64 matmul, |acc| <= bound < 2**31
    return requantize(acc, mults[None, :], shifts[None, :], out_zp)


def relu(x_q, zero_point):
    """kernels::relu_in_place: max(x, zero_point)."""
    return np.maximum(x_q, zero_point)


def argmax_lowest(logits):
    """kernels::argmax: index of the largest value, ties to the lowest index."""
    return np.argmax(logits, axis=1)  # numpy returns the first maximum


def int_forward(pixels, layers):
    x = quantize_input(pixels)
    in_zp = INPUT_ZERO_POINT
    for i, layer in enumerate(layers):
        x = dense(x, layer["w"], layer["b"], layer["mult"], layer["shift"], in_zp, layer["zp"])
        if i + 1 < len(layers):
            x = relu(x, layer["zp"])
        in_zp = layer["zp"]
    assert np.all((x >= -128) & (x <= 127))
    return x


# ---------------------------------------------------------------------------------------
# Rust output
# ---------------------------------------------------------------------------------------


def rust_row(values):
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def rust_flat(name, ty, length_expr, rows, doc):
    """A flattened array written one row per line (rustfmt::skip keeps it that way)."""
    lines = [f"/// {d}" for d in doc]
    lines.append("#[rustfmt::skip]")
    lines.append(f"pub const {name}: [{ty}; {length_expr}] = [")
    for row in rows:
        lines.append("    " + ", ".join(str(int(v)) for v in row) + ",")
    lines.append("];")
    return "\n".join(lines)


def rust_nested(name, ty, inner, outer, rows, doc):
    """A `static` (not `const`: clippy's large_const_arrays, and no copy on the stack)."""
    lines = [f"/// {d}" for d in doc]
    lines.append("#[rustfmt::skip]")
    lines.append(f"pub static {name}: [[{ty}; {inner}]; {outer}] = [")
    for row in rows:
        lines.append("    " + rust_row(row) + ",")
    lines.append("];")
    return "\n".join(lines)


def chunks(values, n):
    values = list(values)
    return [values[i : i + n] for i in range(0, len(values), n)]


def write_model_rs(sizes, layers, scales, x_test_pixels, y_test, reference, float_acc, int_acc, disagree):
    names = ["IN", "H1", "H2", "OUT"]
    n = len(y_test)
    out = []
    out.append(
        "//! The digits MLP, quantized to int8, and its held-out test set.\n"
        "//!\n"
        "//! GENERATED by `examples/firmware/model/train.py`; do not edit. Regenerate with:\n"
        "//!\n"
        "//! ```text\n"
        "//! pip install scikit-learn==1.9.1 numpy==2.4.6\n"
        "//! cd examples/firmware/model && python3 train.py\n"
        "//! ```\n"
        "//!\n"
        f"//! Generated with Python {platform.python_version()}, numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}.\n"
        "//!\n"
        f"//! Network: {' -> '.join(str(s) for s in sizes)} (dense, ReLU, dense, ReLU, dense), "
        "trained on\n"
        f"//! `load_digits` with a stratified 75/25 split (random_state={SPLIT_SEED}); "
        f"test accuracy float\n"
        f"//! {float_acc:.4f}, int8 {int_acc:.4f} ({disagree} of {n} test images "
        "classified differently).\n"
        "//!\n"
        "//! The quantization scheme is documented in `kernels.rs`. Weights are row-major\n"
        "//! `[out][in]`, flattened. Scales appear only in comments: the firmware uses integers.\n"
        "//!\n"
        f"//! Everything is a `const` except `TEST_IMAGES` ({n * sizes[0]} bytes), a `static` so that it\n"
        "//! exists"
        " once in flash and indexing it never copies the whole array onto the stack. Pass the\n"
        "//! constants by reference (`&model::L1_WEIGHTS`, promoted to a static)."
    )
    out.append("")
    docs = [
        "Input features: the 8x8 image's pixels, row by row.",
        "Neurons of the first hidden layer.",
        "Neurons of the second hidden layer.",
        "Classes (digits 0..=9): the logits.",
    ]
    for name, size, doc in zip(names, sizes, docs):
        out.append(f"/// {doc}")
        out.append(f"pub const {name}: usize = {size};")
    out.append("/// Images in the held-out test set.")
    out.append(f"pub const N_TEST: usize = {n};")
    out.append("")
    out.append(
        f"/// Input quantization: `x_q = {PIXEL_STEP} * pixel + ({INPUT_ZERO_POINT})`; "
        f"scale {INPUT_SCALE} per unit of `pixel / 16`."
    )
    out.append(f"pub const INPUT_PIXEL_STEP: i32 = {PIXEL_STEP};")
    out.append("/// Zero point of the quantized input (the input of layer 1).")
    out.append(f"pub const INPUT_ZERO_POINT: i8 = {INPUT_ZERO_POINT};")
    for k, layer in enumerate(layers, start=1):
        n_in, n_out = names[k - 1], names[k]
        relu_note = "followed by ReLU (`max(x, zero point)`)" if k < len(layers) else "the logits"
        out.append("")
        out.append(f"// ---- Layer {k}: dense {n_in} -> {n_out}, {relu_note} ----")
        out.append("")
        w_scales = [", ".join(f"{s:.6g}" for s in c) for c in chunks(layer["w_scale"], 8)]
        out.append(
            rust_flat(
                f"L{k}_WEIGHTS",
                "i8",
                f"{n_out} * {n_in}",
                layer["w"],
                [
                    f"Layer {k} weights, int8 symmetric per output channel, `[{n_out}][{n_in}]` row-major",
                    "(one output channel per line). Weight scales per channel:",
                    *(f"{c}," for c in w_scales),
                ],
            )
        )
        out.append(
            rust_flat(
                f"L{k}_BIAS",
                "i32",
                n_out,
                chunks(layer["b"], 8),
                [f"Layer {k} biases, int32, scale = input scale * weight scale of the channel."],
            )
        )
        out.append(
            rust_flat(
                f"L{k}_MULTIPLIERS",
                "i32",
                n_out,
                chunks(layer["mult"], 8),
                [
                    f"Layer {k} requantization multipliers (Q31, in [2^30, 2^31)): per channel,",
                    "input scale * weight scale / output scale = multiplier * 2^-(31 + shift).",
                ],
            )
        )
        out.append(
            rust_flat(
                f"L{k}_SHIFTS",
                "i32",
                n_out,
                chunks(layer["shift"], 16),
                [f"Layer {k} requantization right shifts (added to 31), per channel."],
            )
        )
        out.append(
            f"/// Layer {k} output zero point; the output scale is {scales[k]:.6g}."
        )
        out.append(f"pub const L{k}_OUTPUT_ZERO_POINT: i8 = {layer['zp']};")
    out.append("")
    out.append("// ---- The held-out test set ----")
    out.append("")
    out.append(
        rust_nested(
            "TEST_IMAGES",
            "u8",
            "IN",
            "N_TEST",
            x_test_pixels,
            ["Test images, raw pixels 0..=16, row by row (one image per line)."],
        )
    )
    out.append(
        rust_flat(
            "TEST_LABELS",
            "u8",
            "N_TEST",
            chunks(y_test, 30),
            ["True digit of each test image."],
        )
    )
    out.append(
        rust_flat(
            "REFERENCE",
            "u8",
            "N_TEST",
            chunks(reference, 30),
            [
                "Prediction of the integer reference (train.py, bit-exact with kernels.rs) for",
                "each test image: the firmware must reproduce every one.",
            ],
        )
    )
    text = "\n".join(out) + "\n"
    with open(OUT_PATH, "w", newline="\n") as f:
        f.write(text)
    return len(text)


# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------


def main():
    digits = load_digits()
    pixels = digits.data.astype(np.int64)  # 0..16
    labels = digits.target.astype(np.int64)
    assert pixels.min() >= 0 and pixels.max() <= 16
    x_train, x_test, y_train, y_test = train_test_split(
        pixels, labels, test_size=TEST_SIZE, stratify=labels, random_state=SPLIT_SEED
    )

    with threadpool_limits(limits=1):
        clf = MLPClassifier(
            hidden_layer_sizes=HIDDEN,
            activation="relu",
            solver="adam",
            alpha=1e-4,
            max_iter=2000,
            tol=1e-6,
            n_iter_no_change=50,
            random_state=MODEL_SEED,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            clf.fit(x_train / 16.0, y_train)

    float_pred = clf.predict(x_test / 16.0)
    float_acc = float(np.mean(float_pred == y_test))
    sizes = [pixels.shape[1], *HIDDEN, len(clf.classes_)]
    assert list(clf.classes_) == list(range(10))
    print(f"data: {len(pixels)} images, train {len(y_train)}, test {len(y_test)}")
    print(f"network: {' -> '.join(map(str, sizes))} ({clf.n_iter_} epochs)")
    print(f"float test accuracy: {float_acc:.4f} ({int(np.sum(float_pred == y_test))}/{len(y_test)})")

    # Float forward pass on the training set, for calibration of the activation ranges
    # (each dense layer's output, before ReLU).
    weights = [w.T.astype(np.float64) for w in clf.coefs_]  # [out][in]
    biases = [b.astype(np.float64) for b in clf.intercepts_]
    a = x_train / 16.0
    scales = [INPUT_SCALE]
    zps = [INPUT_ZERO_POINT]
    for k, (w, b) in enumerate(zip(weights, biases)):
        z = a @ w.T + b
        s, zp = activation_qparams(z.min(), z.max())
        scales.append(s)
        zps.append(zp)
        a = np.maximum(z, 0.0) if k + 1 < len(weights) else z

    layers = []
    for k, (w, b) in enumerate(zip(weights, biases)):
        w_q, b_q, mult, shift, w_scale = quantize_layer(w, b, scales[k], scales[k + 1])
        layers.append(dict(w=w_q, b=b_q, mult=mult, shift=shift, zp=zps[k + 1], w_scale=w_scale))
    for k, layer in enumerate(layers, start=1):
        print(
            f"layer {k}: output scale {scales[k]:.6g} zero point {layer['zp']}, "
            f"shifts {layer['shift'].min()}..{layer['shift'].max()}"
        )

    logits = int_forward(x_test, layers)
    reference = argmax_lowest(logits)
    int_acc = float(np.mean(reference == y_test))
    top = np.sort(logits, axis=1)
    ties = int(np.sum(top[:, -1] == top[:, -2]))
    disagree = int(np.sum(reference != float_pred))
    print(f"int8 test accuracy: {int_acc:.4f} ({int(np.sum(reference == y_test))}/{len(y_test)})")
    print(f"int8 and float predictions differ on {disagree} of {len(y_test)} test images")
    print(f"test images whose two largest int8 logits tie: {ties}")
    train_int_acc = float(np.mean(argmax_lowest(int_forward(x_train, layers)) == y_train))
    print(f"(training accuracy: float {clf.score(x_train / 16.0, y_train):.4f}, int8 {train_int_acc:.4f})")

    n_bytes = write_model_rs(
        sizes, layers, scales, x_test, y_test, reference, float_acc, int_acc, disagree
    )
    print(f"wrote {OUT_PATH} ({n_bytes} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
