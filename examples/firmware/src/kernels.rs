//! Integer kernels of the int8 digits MLP (`model.rs`), in the style of TFLite Micro and
//! CMSIS-NN. Only `core`: no allocation, no `unsafe`, no floating point. Every buffer is a
//! slice the caller borrows (in the firmware, from planned buffers and the kernel-temporary
//! pool), so the kernels never decide where memory lives.
//!
//! # Quantization scheme
//!
//! A real value `r` is stored as an int8 `q` with a scale `s` and a zero point `z`:
//! `r = s * (q - z)`. Scales exist only in `model/train.py`; at run time everything is
//! integer, and `model/train.py` holds a numpy reference that is bit-exact with this file.
//!
//! - **Input.** A pixel `p` in `0..=16` becomes `x = PIXEL_STEP * p + PIXEL_ZERO_POINT`
//!   `= 8 * p - 128`, saturated to `[-128, 127]` (so `0..=16` maps to `-128..=0`, losslessly).
//!   Zero point `-128`, scale `1/128` per unit of `p / 16`, which is what the float model saw.
//! - **Weights** are int8, symmetric (zero point 0) with one scale per output channel:
//!   `s_w[j] = max_i |w[j][i]| / 127`, values in `-127..=127`, stored row-major `[out][in]`.
//! - **Biases** are int32 with scale `s_in * s_w[j]`.
//! - **Dense layer.** `acc[j] = bias[j] + sum_i (x[i] - z_in) * w[j][i]` in i32, a real value
//!   in units of `s_in * s_w[j]`. Then `out[j] = requantize(acc[j], M[j], S[j], z_out)`, where
//!   `M[j] * 2^-(31 + S[j]) = s_in * s_w[j] / s_out` with `M[j]` a Q31 multiplier in
//!   `[2^30, 2^31)`; see [`requantize`]: one 64-bit product, one rounding right shift by
//!   `31 + S[j]` with ties **away from zero**, plus `z_out`, saturated to `[-128, 127]`.
//!   The output scale and zero point of each layer are calibrated (in `train.py`) on the
//!   training set's float activations before ReLU, `[min(0, lo), max(0, hi)]`.
//! - **ReLU** is a separate elementwise op, run in place on a dense layer's output:
//!   `x = max(x, z)` with `z` that layer's output zero point (scale and zero point unchanged).
//! - **Logits** are the last dense layer's int8 outputs; the prediction is their argmax with
//!   ties going to the lowest index.
//!
//! No overflow by construction: `|x - z_in| <= 255` and `|w| <= 127`, and `train.py` asserts
//! that `|bias[j]| + 255 * sum_i |w[j][i]|` fits in i32 for every channel. The accumulation
//! nevertheless uses wrapping adds, so a model that broke that bound would behave the same in
//! debug and release builds instead of panicking in one. In [`requantize`], `|acc| <= 2^31`
//! and `|M| <= 2^31`, so the i64 product and its rounding term cannot overflow.
//!
//! # Buffers
//!
//! A dense layer `IN -> OUT` reads `IN` bytes of int8 input and writes `OUT` bytes of int8
//! output; it needs `OUT` i32 accumulators of scratch ([`dense_acc_bytes`]`(OUT)` bytes),
//! which are dead once it returns. Input and output must be distinct buffers (the borrow
//! checker enforces it); ReLU and argmax need nothing beyond their argument.
#![forbid(unsafe_code)]

/// Step between consecutive pixel levels in the quantized input: `x = 8 * p - 128`.
pub const PIXEL_STEP: i32 = 8;

/// Zero point of the quantized input: the value of pixel 0.
pub const PIXEL_ZERO_POINT: i8 = -128;

/// Requantization parameters of one dense layer (the integer side of its scales).
#[derive(Clone, Copy, Debug)]
pub struct Requant<'a> {
    /// Zero point of the layer's int8 input (the previous layer's output zero point, or
    /// [`PIXEL_ZERO_POINT`] for the first layer).
    pub input_zero_point: i8,
    /// Zero point of the layer's int8 output.
    pub output_zero_point: i8,
    /// Per output channel: Q31 multiplier `M[j]` in `[2^30, 2^31)`.
    pub multipliers: &'a [i32],
    /// Per output channel: right shift `S[j]`; the total shift is `31 + S[j]`, in `1..=62`.
    pub shifts: &'a [i32],
}

/// Bytes of i32 scratch (accumulators) that [`dense`] needs for `out_features` outputs.
pub const fn dense_acc_bytes(out_features: usize) -> usize {
    out_features * core::mem::size_of::<i32>()
}

/// Quantizes raw pixels to the int8 input of the first layer:
/// `out[i] = clamp(PIXEL_STEP * pixels[i] + PIXEL_ZERO_POINT, -128, 127)`, i.e. `8 * p - 128`.
///
/// Units: `pixels` are grey levels `0..=16` (larger values saturate to 127); `out` is int8
/// with zero point [`PIXEL_ZERO_POINT`] and scale `1/128` per unit of `pixel / 16`.
///
/// # Panics
///
/// If `pixels.len() != out.len()`.
pub fn quantize_input(pixels: &[u8], out: &mut [i8]) {
    assert_eq!(
        pixels.len(),
        out.len(),
        "quantize_input: pixels and out lengths differ"
    );
    for (o, &p) in out.iter_mut().zip(pixels) {
        let q = PIXEL_STEP * i32::from(p) + i32::from(PIXEL_ZERO_POINT);
        *o = q.clamp(-128, 127) as i8;
    }
}

/// Requantizes one i32 accumulator to int8:
/// `clamp(round(acc * multiplier / 2^(31 + shift)) + zero_point, -128, 127)`, where the
/// rounding is to nearest with ties away from zero, computed exactly in i64.
///
/// Units: `acc` is in units of `s_in * s_w`; `multiplier` is Q31 (normally in
/// `[2^30, 2^31)`); `shift` is a right shift in bits added to 31 (negative shifts left);
/// `zero_point` is the output zero point. The result is in units of the output scale.
///
/// # Panics
///
/// If `31 + shift` is outside `1..=62`, i.e. `shift` is outside `-30..=31`.
pub fn requantize(acc: i32, multiplier: i32, shift: i32, zero_point: i32) -> i8 {
    let total = 31 + shift;
    assert!(
        (1..=62).contains(&total),
        "requantize: shift {shift} outside -30..=31"
    );
    // |acc| <= 2^31 and |multiplier| <= 2^31: |prod| <= 2^62, |prod| + 2^61 < 2^63.
    let prod = i64::from(acc) * i64::from(multiplier);
    let half = 1i64 << (total - 1);
    let magnitude = (prod.abs() + half) >> total;
    let rounded = if prod >= 0 { magnitude } else { -magnitude };
    (rounded + i64::from(zero_point)).clamp(-128, 127) as i8
}

/// Fully connected layer: `out = requantize(bias + W (input - input_zero_point))`.
///
/// First every accumulator `acc[j] = bias[j] + sum_i (input[i] - z_in) * weights[j * IN + i]`
/// (i32, wrapping adds; see the module docs for why it cannot overflow with this model), then
/// `out[j] = requantize(acc[j], multipliers[j], shifts[j], z_out)`.
///
/// Units: `input` int8 (zero point `params.input_zero_point`); `weights` int8 symmetric,
/// row-major `[OUT][IN]`; `bias` i32 in units of `s_in * s_w[j]`; `acc` is caller-provided
/// scratch of `OUT` i32 (its contents on entry are ignored, on return they hold the
/// accumulators); `out` int8 (zero point `params.output_zero_point`). `IN` is
/// `input.len()` and `OUT` is `out.len()`.
///
/// # Panics
///
/// If `input` is empty, or if any length disagrees: `weights.len() != OUT * IN`, or
/// `bias`, `acc`, `params.multipliers` or `params.shifts` not of length `OUT`; or if a shift
/// is outside `-30..=31` (see [`requantize`]).
pub fn dense(
    input: &[i8],
    weights: &[i8],
    bias: &[i32],
    params: &Requant<'_>,
    acc: &mut [i32],
    out: &mut [i8],
) {
    let n_in = input.len();
    let n_out = out.len();
    assert!(n_in > 0, "dense: empty input");
    assert_eq!(
        weights.len(),
        n_out * n_in,
        "dense: weights length is not OUT * IN"
    );
    assert_eq!(bias.len(), n_out, "dense: bias length is not OUT");
    assert_eq!(acc.len(), n_out, "dense: acc (scratch) length is not OUT");
    assert_eq!(
        params.multipliers.len(),
        n_out,
        "dense: multipliers length is not OUT"
    );
    assert_eq!(
        params.shifts.len(),
        n_out,
        "dense: shifts length is not OUT"
    );

    let z_in = i32::from(params.input_zero_point);
    for ((a, &b), row) in acc.iter_mut().zip(bias).zip(weights.chunks_exact(n_in)) {
        let mut sum = b;
        for (&x, &w) in input.iter().zip(row) {
            // |x - z_in| <= 255, |w| <= 128: the product fits in i32.
            sum = sum.wrapping_add((i32::from(x) - z_in) * i32::from(w));
        }
        *a = sum;
    }

    let z_out = i32::from(params.output_zero_point);
    for (((o, &a), &m), &s) in out
        .iter_mut()
        .zip(acc.iter())
        .zip(params.multipliers)
        .zip(params.shifts)
    {
        *o = requantize(a, m, s, z_out);
    }
}

/// ReLU in place on int8 values: `x[i] = max(x[i], zero_point)`.
///
/// Units: `x` is int8 with zero point `zero_point` (the producing layer's output zero
/// point); scale and zero point are unchanged. Never panics.
pub fn relu_in_place(x: &mut [i8], zero_point: i8) {
    for v in x.iter_mut() {
        *v = (*v).max(zero_point);
    }
}

/// Index of the largest logit, ties going to the lowest index: the predicted class.
///
/// Units: `logits` are int8 with a common scale and zero point (neither matters here).
///
/// # Panics
///
/// If `logits` is empty or longer than 256 (the index must fit in `u8`).
pub fn argmax(logits: &[i8]) -> u8 {
    assert!(
        !logits.is_empty() && logits.len() <= 256,
        "argmax: logits length {} not in 1..=256",
        logits.len()
    );
    let mut best = 0usize;
    let mut best_value = logits[0];
    for (i, &v) in logits.iter().enumerate().skip(1) {
        if v > best_value {
            best = i;
            best_value = v;
        }
    }
    best as u8
}
