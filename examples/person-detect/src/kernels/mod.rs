//! Int8 kernels of the person detection model's five operators, in the style of
//! `examples/firmware`'s kernels: only `core`, no allocation, no `unsafe`; every buffer is a
//! slice the caller borrows (in the firmware, planned buffers and the kernel-temporary
//! pool), so the kernels never decide where memory lives.
//!
//! | operator | kernel | follows | scratch (i32s) |
//! |---|---|---|---|
//! | `CONV_2D` | [`conv::conv2d`] | `reference_integer_ops::ConvPerChannel` | none |
//! | `DEPTHWISE_CONV_2D` | [`depthwise::depthwise_conv2d`] | `reference_integer_ops::DepthwiseConvPerChannel` | output depth |
//! | `AVERAGE_POOL_2D` | [`pool::average_pool2d`] | `reference_integer_ops::AveragePool` | depth |
//! | `RESHAPE` | [`reshape::reshape`] | a byte copy (or nothing, in place) | none |
//! | `SOFTMAX` | [`softmax::softmax`] | `reference_ops::Softmax` or `optimized_ops::Softmax` | none |
//!
//! # Two arithmetics: LiteRT's and TFLite's reference
//!
//! LiteRT 2.3.0 on x86 (its default interpreter) hands CONV_2D, DEPTHWISE_CONV_2D and
//! RESHAPE to its XNNPack delegate, which requantizes an accumulator with an f32 scale
//! ([`Requantize::Xnnpack`]); AVERAGE_POOL_2D and SOFTMAX run LiteRT's builtin optimized
//! kernels, whose int8 softmax on x86 uses a float exp table ([`softmax::Softmax::LiteRt`]).
//! TFLite's reference kernels, which TFLM runs (and LiteRT with `BUILTIN_REF`), use a Q31
//! multiplier and shift with double rounding ([`Requantize::Tflite`]) and a gemmlowp
//! fixed-point softmax ([`softmax::Softmax::Tflite`]). The two differ on some elements of
//! every convolution's output and so in the final scores of `no_person.bmp` (60/-60 against
//! 57/-57); the kernels do both, chosen by their parameters, and the layer-by-layer test
//! checks each against its LiteRT configuration. Accumulators are the same integers in both.
//!
//! # Conventions
//!
//! Tensors are NHWC, row-major, int8. Convolution filters are `[out, h, w, in]` (OHWI),
//! depthwise filters `[1, h, w, out]`, biases int32 per output channel. A value `q` of scale
//! `s` and zero point `z` is the real `s * (q - z)`. Weights are symmetric (zero point 0).
//! Kernels panic (with a message naming the mismatch) when a slice's length disagrees with
//! its shape; they never read or write out of bounds.

pub mod conv;
pub mod depthwise;
pub mod pool;
pub mod quant;
pub mod reshape;
pub mod softmax;

use quant::{ActivationRange, Fp32Scale, multiply_by_quantized_multiplier};

/// The shape of an NHWC tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nhwc {
    /// Batches (N).
    pub batch: usize,
    /// Rows (H).
    pub height: usize,
    /// Columns (W).
    pub width: usize,
    /// Channels (C).
    pub depth: usize,
}

impl Nhwc {
    /// The shape `[batch, height, width, depth]`.
    pub const fn new(batch: usize, height: usize, width: usize, depth: usize) -> Nhwc {
        Nhwc {
            batch,
            height,
            width,
            depth,
        }
    }

    /// Elements of a tensor of this shape.
    pub const fn len(&self) -> usize {
        self.batch * self.height * self.width * self.depth
    }

    /// Whether a tensor of this shape has no element.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// TFLite's padding schemes (`Padding` in the schema).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Output size `ceil(in / stride)`, padded with zero-point values, the padding split
    /// with the smaller half before.
    Same,
    /// No padding: output size `(in - effective_filter + stride) / stride`.
    Valid,
}

/// One spatial dimension of a windowed operator: its output size and the padding before
/// the first input (top or left), as TFLite's `ComputeOutSize` and
/// `ComputePaddingWithOffset`: `effective_filter = (filter - 1) * dilation + 1`, `total =
/// max((out - 1) * stride + effective_filter - in, 0)`, padding before = `total / 2`.
///
/// # Panics
///
/// If `filter`, `stride` or `dilation` is zero.
pub fn padded_output(
    padding: Padding,
    input: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
) -> (usize, usize) {
    assert!(
        filter > 0 && stride > 0 && dilation > 0,
        "padded_output: zero filter, stride or dilation"
    );
    let effective = (filter - 1) * dilation + 1;
    let out = match padding {
        Padding::Same => input.div_ceil(stride),
        Padding::Valid => (input + stride).saturating_sub(effective) / stride,
    };
    let total = (out.saturating_sub(1) * stride + effective).saturating_sub(input);
    (out, total / 2)
}

/// Padding before the first row and column, in input elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaddingValues {
    /// Rows of padding above the input.
    pub height: usize,
    /// Columns of padding left of the input.
    pub width: usize,
}

/// How a convolution turns its int32 accumulators (bias included) into int8 outputs, per
/// output channel, before the output zero point and the activation's clamp.
#[derive(Clone, Copy, Debug)]
pub enum Requantize<'a> {
    /// TFLite's reference kernels (TFLM; LiteRT with `BUILTIN_REF`, and LiteRT's builtin
    /// optimized kernels, which give the same bytes here):
    /// [`multiply_by_quantized_multiplier`]`(acc, multipliers[c], shifts[c])`, double
    /// rounding. Derive them with [`quant::per_channel_multipliers`].
    Tflite {
        /// Per output channel: Q31 multiplier.
        multipliers: &'a [i32],
        /// Per output channel: shift, positive to the left.
        shifts: &'a [i32],
    },
    /// XNNPack (LiteRT's default CPU delegate): `round_ties_even(f32(acc) * scales[c])`,
    /// emulated exactly in integers by [`Fp32Scale::apply`]. Derive the scales with
    /// [`quant::xnnpack_scale`].
    Xnnpack {
        /// Per output channel: the f32 requantization scale.
        scales: &'a [Fp32Scale],
    },
}

impl Requantize<'_> {
    /// Output channels this requantization covers.
    pub fn channels(&self) -> usize {
        match self {
            Requantize::Tflite {
                multipliers,
                shifts,
            } => {
                assert_eq!(
                    multipliers.len(),
                    shifts.len(),
                    "multipliers and shifts lengths differ"
                );
                multipliers.len()
            }
            Requantize::Xnnpack { scales } => scales.len(),
        }
    }
}

/// Calls `f` with the per-channel requantization of `requantize` as a closure
/// `(channel, acc) -> i8` that also adds `zero_point` and clamps to `range`; each variant
/// gets its own monomorphised copy of `f`'s body (no dispatch per element).
macro_rules! with_requantize {
    ($requantize:expr, $zero_point:expr, $range:expr, |$out:ident| $body:expr) => {{
        let zero_point: i32 = $zero_point;
        let range: $crate::kernels::quant::ActivationRange = $range;
        match $requantize {
            $crate::kernels::Requantize::Tflite {
                multipliers,
                shifts,
            } => {
                let $out = |c: usize, acc: i32| -> i8 {
                    $crate::kernels::requantize_tflite(
                        acc,
                        multipliers[c],
                        shifts[c],
                        zero_point,
                        range,
                    )
                };
                $body
            }
            $crate::kernels::Requantize::Xnnpack { scales } => {
                let $out = |c: usize, acc: i32| -> i8 {
                    $crate::kernels::requantize_xnnpack(acc, scales[c], zero_point, range)
                };
                $body
            }
        }
    }};
}
pub(crate) use with_requantize;

/// TFLite's output stage: `clamp(MultiplyByQuantizedMultiplier(acc, m, s) + zp)`.
#[inline(always)]
pub fn requantize_tflite(
    acc: i32,
    multiplier: i32,
    shift: i32,
    zero_point: i32,
    range: ActivationRange,
) -> i8 {
    range.clamp(multiply_by_quantized_multiplier(acc, multiplier, shift).saturating_add(zero_point))
}

/// XNNPack's output stage: `clamp(lrintf(f32(acc) * scale) + zp)`.
#[inline(always)]
pub fn requantize_xnnpack(
    acc: i32,
    scale: Fp32Scale,
    zero_point: i32,
    range: ActivationRange,
) -> i8 {
    range.clamp(scale.apply(acc).saturating_add(zero_point))
}

/// The taps `k` in `0..taps` of a window starting at input coordinate `origin` (may be
/// negative: padding) with `dilation` that land inside `0..size`: a contiguous range.
#[inline(always)]
pub(crate) fn tap_range(
    origin: isize,
    taps: usize,
    dilation: usize,
    size: usize,
) -> (usize, usize) {
    let d = dilation as isize;
    // First k with origin + k * d >= 0.
    let lo = if origin >= 0 {
        0
    } else {
        ((-origin) + d - 1) / d
    };
    // Last k with origin + k * d <= size - 1, plus one.
    let last = size as isize - 1 - origin;
    let hi = if last < 0 { 0 } else { last / d + 1 };
    let lo = (lo as usize).min(taps);
    (lo, (hi as usize).min(taps).max(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_as_tflite() {
        // The model's layers: 96 -> 48 (3x3, stride 2, SAME), 48 -> 48 (stride 1).
        assert_eq!(padded_output(Padding::Same, 96, 3, 2, 1), (48, 0));
        assert_eq!(padded_output(Padding::Same, 48, 3, 1, 1), (48, 1));
        assert_eq!(padded_output(Padding::Same, 6, 3, 2, 1), (3, 0));
        assert_eq!(padded_output(Padding::Valid, 3, 3, 2, 1), (1, 0));
        assert_eq!(padded_output(Padding::Valid, 10, 3, 1, 2), (6, 0));
        assert_eq!(padded_output(Padding::Same, 10, 3, 1, 2), (10, 2));
        assert_eq!(padded_output(Padding::Valid, 2, 3, 1, 1), (0, 0));
    }

    #[test]
    fn tap_ranges() {
        assert_eq!(tap_range(-1, 3, 1, 5), (1, 3));
        assert_eq!(tap_range(3, 3, 1, 5), (0, 2));
        assert_eq!(tap_range(-3, 3, 2, 5), (2, 3));
        assert_eq!(tap_range(-10, 3, 1, 5), (3, 3));
        assert_eq!(tap_range(7, 3, 1, 5), (0, 0));
        assert_eq!(tap_range(0, 3, 2, 5), (0, 3));
        assert_eq!(tap_range(1, 3, 2, 5), (0, 2));
    }
}
