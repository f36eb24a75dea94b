//! Quantization helpers: the integer side of a model's float scales, derived exactly as
//! TFLite and XNNPack derive them, and the per-element requantizations both apply.
//!
//! Everything here is integer arithmetic except the preparation functions that turn a
//! model's float scales into integers ([`quantize_multiplier`], [`xnnpack_scale`],
//! [`activation_range`], [`xnnpack_activation_range`], [`SoftmaxFixed::new`],
//! [`softmax_exp_table`]): those run once per
//! model, at preparation time (or on the host, at build time), never per element.

/// A fused activation function of a TFLite operator (`ActivationFunctionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// No clamping beyond the int8 range.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `clamp(x, -1, 1)`.
    ReluN1To1,
    /// `clamp(x, 0, 6)`.
    Relu6,
}

/// The clamping range of an int8 output: a fused activation in quantized units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActivationRange {
    /// Smallest output value, in `-128..=127`.
    pub min: i32,
    /// Largest output value, in `min..=127`.
    pub max: i32,
}

impl ActivationRange {
    /// The whole int8 range: no activation.
    pub const INT8: ActivationRange = ActivationRange {
        min: -128,
        max: 127,
    };

    /// Clamps `v` to the range and narrows it to int8.
    #[inline(always)]
    pub fn clamp(self, v: i32) -> i8 {
        v.clamp(self.min, self.max) as i8
    }
}

/// TFLite's `CalculateActivationRangeQuantized` for an int8 output of scale `scale` and
/// zero point `zero_point`: the activation's real bounds quantized with
/// `zero_point + round(f / scale)` (f32 division, rounding half away from zero, as
/// `TfLiteRound`), intersected with `-128..=127`.
///
/// # Panics
///
/// If `scale` is not positive and finite.
pub fn activation_range(activation: Activation, scale: f32, zero_point: i32) -> ActivationRange {
    assert!(
        scale > 0.0 && scale.is_finite(),
        "activation_range: bad scale {scale}"
    );
    let quantize = |f: f32| zero_point.saturating_add(round_half_away_f32(f / scale));
    let (lo, hi) = match activation {
        Activation::None => (i32::MIN, i32::MAX),
        Activation::Relu => (quantize(0.0), i32::MAX),
        Activation::ReluN1To1 => (quantize(-1.0), quantize(1.0)),
        Activation::Relu6 => (quantize(0.0), quantize(6.0)),
    };
    ActivationRange {
        min: lo.max(-128),
        max: hi.min(127),
    }
}

/// XNNPack's clamping range for the same activation (its delegate passes the activation's
/// real bounds, `xnn_qs8_quantize` turns each into `lrintf(clamp(bound / scale +
/// zero_point, -128, 127))`: an f32 sum, rounding ties to even). It differs from
/// [`activation_range`] only when `bound / scale` lands on or next to a half; on this
/// model both give the whole int8 range.
///
/// # Panics
///
/// If `scale` is not positive and finite.
pub fn xnnpack_activation_range(
    activation: Activation,
    scale: f32,
    zero_point: i32,
) -> ActivationRange {
    assert!(
        scale > 0.0 && scale.is_finite(),
        "xnnpack_activation_range: bad scale {scale}"
    );
    let quantize = |f: f32| {
        let v = (f / scale + zero_point as f32).clamp(-128.0, 127.0);
        // Ties to even by the f32 addition itself: exact for |v| < 2^22.
        const MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23
        ((v + MAGIC) - MAGIC) as i32
    };
    let (lo, hi) = match activation {
        Activation::None => (-128, 127),
        Activation::Relu => (quantize(0.0), 127),
        Activation::ReluN1To1 => (quantize(-1.0), quantize(1.0)),
        Activation::Relu6 => (quantize(0.0), quantize(6.0)),
    };
    ActivationRange { min: lo, max: hi }
}

/// `std::round` for f32 (half away from zero), without libm, saturated to i32.
pub fn round_half_away_f32(x: f32) -> i32 {
    // Below 2^23 in magnitude `x - trunc(x)` is exact; above it x is already an integer.
    let t = x as i32; // truncation, saturating
    let frac = x - t as f32;
    if frac >= 0.5 {
        t.saturating_add(1)
    } else if frac <= -0.5 {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// The parts of a finite non-zero f64: `|d| = m * 2^(e - 53)` with `m` in `[2^52, 2^53)`,
/// i.e. `frexp(|d|) = (m / 2^53, e)`.
fn frexp_parts(d: f64) -> (bool, u64, i32) {
    let bits = d.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        // Subnormal: normalise the fraction.
        let shift = fraction.leading_zeros() as i32 - 11;
        (negative, fraction << shift, -1021 - shift)
    } else {
        (negative, fraction | (1u64 << 52), biased - 1022)
    }
}

/// TFLite's `QuantizeMultiplier`: a real multiplier as a Q31 `multiplier` and a `shift`
/// (positive is left), `real ~= multiplier * 2^(shift - 31)`.
///
/// `frexp(real) = (q, shift)` with `q` in `[0.5, 1)`, `multiplier = round(q * 2^31)` with
/// ties away from zero (`TfLiteRound`); a `q` that rounds up to `2^31` becomes `2^30` with
/// `shift + 1`, and a shift below -31 flushes the multiplier to `(0, 0)`. Done on the bits
/// of the f64 (`q * 2^31` is the 53-bit significand over `2^22`), so the result is the
/// same on every target. `0.0` gives `(0, 0)`. TFLite's prepare passes the per-channel
/// `input_scale * filter_scale[c] / output_scale`, computed in f64: see
/// [`per_channel_multipliers`].
///
/// # Panics
///
/// If `real` is not finite.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    assert!(
        real.is_finite(),
        "quantize_multiplier: {real} is not finite"
    );
    if real == 0.0 {
        return (0, 0);
    }
    let (negative, m, mut shift) = frexp_parts(real);
    let mut q = (m + (1 << 21)) >> 22; // round(m / 2^22), ties away from zero
    if q == 1 << 31 {
        q /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    let q = q as i32; // < 2^31
    (if negative { -q } else { q }, shift)
}

/// The per-channel multipliers and shifts of a CONV_2D or DEPTHWISE_CONV_2D, as TFLite's
/// `PopulateConvolutionQuantizationParams`: `quantize_multiplier(input_scale *
/// filter_scales[c] / output_scale)`, the product and quotient in f64.
///
/// # Panics
///
/// If `filter_scales`, `multipliers` and `shifts` are not all of one length.
pub fn per_channel_multipliers(
    input_scale: f32,
    filter_scales: &[f32],
    output_scale: f32,
    multipliers: &mut [i32],
    shifts: &mut [i32],
) {
    assert!(
        filter_scales.len() == multipliers.len() && filter_scales.len() == shifts.len(),
        "per_channel_multipliers: lengths differ"
    );
    for ((&f, m), s) in filter_scales.iter().zip(multipliers).zip(shifts) {
        let real = f64::from(input_scale) * f64::from(f) / f64::from(output_scale);
        (*m, *s) = quantize_multiplier(real);
    }
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul`: `a * b / 2^31` rounded to nearest with
/// ties toward +infinity (`floor(a b / 2^31 + 1/2)`: its nudge of `2^30` or `1 - 2^30` and
/// C's truncating division), saturating the one overflowing case (`a == b == i32::MIN`).
#[inline(always)]
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    let nudge = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    // Division truncating toward zero, as C's.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from
/// zero, for `exponent` in `0..=31`.
#[inline(always)]
pub fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    debug_assert!(exponent <= 31);
    let mask = ((1u32 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// TFLite's `MultiplyByQuantizedMultiplier(int32, int32, int)` as built by default (without
/// `TFLITE_SINGLE_ROUNDING`, which is how LiteRT's reference kernels and TFLM build it):
/// **double rounding**, `RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x *
/// 2^max(shift, 0), multiplier), max(-shift, 0))`. The left shift wraps where C would
/// overflow (never, for accumulators that fit the model).
#[inline(always)]
pub fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = shift.max(0) as u32;
    let right = (-shift).max(0) as u32;
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x.wrapping_shl(left), multiplier),
        right,
    )
}

/// `MultiplyByQuantizedMultiplier` with `TFLITE_SINGLE_ROUNDING=1` (some TFLM ports, e.g.
/// CMSIS-NN's): one rounding, `(x * multiplier + 2^(30 - shift)) >> (31 - shift)`, i.e.
/// ties toward +infinity. Not what LiteRT 2.3.0 runs; here to compare the two.
///
/// # Panics
///
/// If `shift` is outside `-31..=30`.
pub fn multiply_by_quantized_multiplier_single_rounding(
    x: i32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    assert!(
        (-31..=30).contains(&shift),
        "single rounding: shift {shift} outside -31..=30"
    );
    let total = (31 - shift) as u32;
    ((i64::from(x) * i64::from(multiplier) + (1i64 << (total - 1))) >> total) as i32
}

/// XNNPack's per-channel requantization scale for a CONV_2D or DEPTHWISE_CONV_2D:
/// `input_scale * filter_scale / output_scale` in **f32** (XNNPack's
/// `init_requantization_scale_qx8_qc8w`: product rounded to f32, then the quotient).
pub fn xnnpack_scale(input_scale: f32, filter_scale: f32, output_scale: f32) -> f32 {
    input_scale * filter_scale / output_scale
}

/// A positive normal f32 requantization scale, split as `mantissa * 2^exponent` with the
/// 24-bit `mantissa` in `[2^23, 2^24)`, for [`Fp32Scale::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fp32Scale {
    mantissa: u32,
    exponent: i32,
}

/// Rounds `v` to 24 significant bits, ties to even: `v ~= m * 2^e` (m may reach 2^24).
#[inline(always)]
fn round_to_f32_significand(v: u64) -> (u64, i32) {
    let len = 64 - v.leading_zeros();
    if len <= 24 {
        return (v, 0);
    }
    let drop = len - 24;
    (round_shift_ties_even(v, drop), drop as i32)
}

/// `v / 2^k` rounded to nearest, ties to even, for `k` in `1..=63`.
#[inline(always)]
fn round_shift_ties_even(v: u64, k: u32) -> u64 {
    let q = v >> k;
    let rem = v & ((1u64 << k) - 1);
    let half = 1u64 << (k - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

impl Fp32Scale {
    /// The scale whose f32 value is `scale`.
    ///
    /// # Panics
    ///
    /// If `scale` is not a positive normal f32 below 256 (XNNPack refuses those too).
    pub fn new(scale: f32) -> Fp32Scale {
        assert!(
            scale.is_normal() && scale > 0.0 && scale < 256.0,
            "Fp32Scale: {scale} is not a positive normal scale below 256"
        );
        let bits = scale.to_bits();
        Fp32Scale {
            mantissa: (bits & 0x7f_ffff) | 0x80_0000,
            exponent: ((bits >> 23) & 0xff) as i32 - 150,
        }
    }

    /// The f32 this scale holds.
    pub fn to_f32(self) -> f32 {
        f32::from_bits((((self.exponent + 150) as u32) << 23) | (self.mantissa & 0x7f_ffff))
    }

    /// XNNPack's fp32 requantization of one accumulator, before the output zero point:
    /// `lrintf((float)acc * scale)`, i.e. the accumulator rounded to f32, the product
    /// rounded to f32, that rounded to an integer, every rounding to nearest with ties to
    /// even, exactly as IEEE-754 binary32 does them, but in integer arithmetic (no FPU);
    /// saturated to i32.
    #[inline(always)]
    pub fn apply(self, acc: i32) -> i32 {
        if acc == 0 {
            return 0;
        }
        // (float)acc: at most 2^31, rounded to 24 significant bits.
        let (a, a_exp) = round_to_f32_significand(u64::from(acc.unsigned_abs()));
        // The exact product, below 2^49, rounded to 24 significant bits: the f32 product.
        let (p, p_exp) = round_to_f32_significand(a * u64::from(self.mantissa));
        let exp = a_exp + p_exp + self.exponent;
        // That value, p * 2^exp, rounded to an integer.
        let magnitude = if exp >= 0 {
            // p < 2^25 and the value is below 2^39: no overflow.
            p << exp
        } else if exp >= -63 {
            round_shift_ties_even(p, (-exp) as u32)
        } else {
            0
        };
        let magnitude = magnitude.min(1 << 31) as i64;
        let v = if acc < 0 { -magnitude } else { magnitude };
        v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }
}

/// The parameters of TFLite's reference int8 softmax (gemmlowp fixed point), as TFLite's
/// and TFLM's prepare compute them (`PreprocessSoftmaxScaling` with 5 integer bits for the
/// scaled differences, `CalculateInputRadius`), double-rounding build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoftmaxFixed {
    /// Q31 multiplier of `input_diff * beta * input_scale` into Q5.26.
    pub input_multiplier: i32,
    /// Its left shift (non-negative).
    pub input_left_shift: i32,
    /// Differences from the row maximum below this give an output of -128.
    pub diff_min: i32,
}

/// Integer bits of the scaled input differences of the reference softmax (Q5.26).
pub const SOFTMAX_DIFF_INTEGER_BITS: i32 = 5;

impl SoftmaxFixed {
    /// From the operator's `beta` and its input's scale: `input_multiplier`/`shift` quantize
    /// `min(beta * input_scale * 2^26, 2^31 - 1)` (f64), and `diff_min =
    /// -floor((2^5 - 1) * 2^26 / 2^input_left_shift)`.
    ///
    /// # Panics
    ///
    /// If the real multiplier is not above 1 (TFLite checks the same).
    pub fn new(beta: f64, input_scale: f32) -> SoftmaxFixed {
        let bits = SOFTMAX_DIFF_INTEGER_BITS;
        let max_real = ((1i64 << 31) - 1) as f64;
        let real = (beta * f64::from(input_scale) * (1i64 << (31 - bits)) as f64).min(max_real);
        assert!(real > 1.0, "softmax: beta * input_scale too small");
        let (input_multiplier, input_left_shift) = quantize_multiplier(real);
        // (2^5 - 1) * 2^26 / 2^shift, floored: exact in integers (shift is non-negative).
        let radius = (((1i64 << bits) - 1) << (31 - bits)) >> input_left_shift;
        SoftmaxFixed {
            input_multiplier,
            input_left_shift,
            diff_min: -(radius as i32),
        }
    }
}

/// `exp(x)` for f32, computed in f64 and rounded once to f32: correctly rounded except
/// when the true value lies within about 2^-50 (relative) of a midpoint between two f32s.
/// No libm: range reduction by `ln 2` and a degree-13 Taylor polynomial.
pub fn expf(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 88.8 {
        return f32::INFINITY;
    }
    if x < -104.0 {
        return 0.0;
    }
    // ln 2 split so that n * LN2_HI is exact for |n| < 2^11 (its low 21 bits are zero):
    // 0.693147180369123816490 and 1.90821492927058770002e-10.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const INV_LN2: f64 = core::f64::consts::LOG2_E;
    let x = f64::from(x);
    let t = x * INV_LN2;
    let n = if t >= 0.0 {
        (t + 0.5) as i32
    } else {
        (t - 0.5) as i32
    };
    let r = (x - f64::from(n) * LN2_HI) - f64::from(n) * LN2_LO; // |r| <= 0.35
    // exp(r) = sum r^k / k!, k <= 13: truncation error below 2^-60 relative.
    let mut p = 1.0f64;
    let mut k = 13;
    while k > 0 {
        p = 1.0 + p * r / f64::from(k);
        k -= 1;
    }
    // p * 2^n, n in -151..=129: two steps keep each power of two a normal f64.
    let half = n / 2;
    let pow = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    (p * pow(half) * pow(n - half)) as f32
}

/// LiteRT's optimized int8 softmax table (`PopulateSoftmaxLookupTable`): `table[255 - v]
/// = exp((-input_scale * beta) * v)` for `v` in `0..=255`, the scale and the product in
/// f32, `exp` by [`expf`] (LiteRT calls libm's `expf`; the layer-by-layer test checks that
/// the two tables agree for this model).
pub fn softmax_exp_table(input_scale: f32, beta: f32, table: &mut [f32; 256]) {
    let scale = -input_scale * beta;
    for (v, e) in table.iter_mut().rev().enumerate() {
        *e = expf(scale * v as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expected values below were printed by
    // `examples/person-detect/tools/dump_fixture.py --rust-vectors`, which computes them
    // in Python independently of this file: QuantizeMultiplier from math.frexp and exact
    // fractions.Fraction rounding, both MultiplyByQuantizedMultiplier variants in exact
    // fractions, XNNPack's scales and fp32 requantization with numpy float32 and np.rint.
    include!("quant_vectors.rs");

    #[test]
    fn quantize_multiplier_matches_python_on_the_model_scales() {
        for &(si, sf, so, m, s, _) in MODEL_SCALES.iter() {
            let (si, sf, so) = (f32::from_bits(si), f32::from_bits(sf), f32::from_bits(so));
            let mut mm = [0];
            let mut ss = [0];
            per_channel_multipliers(si, &[sf], so, &mut mm, &mut ss);
            assert_eq!((mm[0], ss[0]), (m, s), "scales {si} {sf} {so}");
        }
    }

    #[test]
    fn quantize_multiplier_edge_cases() {
        for &(d, m, s) in EDGE_MULTIPLIERS.iter() {
            assert_eq!(
                quantize_multiplier(f64::from_bits(d)),
                (m, s),
                "{}",
                f64::from_bits(d)
            );
        }
        // Negative multipliers are symmetric; subnormals flush to zero.
        assert_eq!(quantize_multiplier(-0.75), (-1610612736, 0));
        assert_eq!(quantize_multiplier(f64::from_bits(1)), (0, 0));
    }

    #[test]
    fn xnnpack_scales_match_numpy_float32() {
        for &(si, sf, so, _, _, x) in MODEL_SCALES.iter() {
            let got = xnnpack_scale(f32::from_bits(si), f32::from_bits(sf), f32::from_bits(so));
            assert_eq!(got.to_bits(), x);
            assert_eq!(Fp32Scale::new(got).to_f32().to_bits(), x);
        }
    }

    #[test]
    fn multiply_by_quantized_multiplier_both_roundings() {
        for &(x, m, s, double, single) in MULTIPLY_CASES.iter() {
            assert_eq!(
                multiply_by_quantized_multiplier(x, m, s),
                double,
                "double {x} {m} {s}"
            );
            assert_eq!(
                multiply_by_quantized_multiplier_single_rounding(x, m, s),
                single,
                "single {x} {m} {s}"
            );
        }
    }

    #[test]
    fn softmax_parameters_match_python() {
        for &(beta, scale, m, s, diff_min) in SOFTMAX_CASES.iter() {
            let p = SoftmaxFixed::new(f64::from_bits(beta), f32::from_bits(scale));
            assert_eq!(
                (p.input_multiplier, p.input_left_shift, p.diff_min),
                (m, s, diff_min)
            );
        }
    }

    #[test]
    fn fp32_requantization_matches_numpy() {
        for &(acc, scale, want) in FP32_CASES.iter() {
            let got = Fp32Scale::new(f32::from_bits(scale)).apply(acc);
            let want = want.clamp(i64::from(i32::MIN), i64::from(i32::MAX)); // apply saturates
            assert_eq!(
                i64::from(got),
                want,
                "acc {acc} scale {}",
                f32::from_bits(scale)
            );
        }
    }

    /// The host's f32 arithmetic (IEEE-754 binary32, ties to even) as the oracle.
    fn fp32_oracle(acc: i32, scale: f32) -> i64 {
        let v = acc as f32 * scale;
        // Ties-to-even rounding of v to an integer, exact for |v| < 2^62.
        let t = v as i64;
        let frac = f64::from(v) - t as f64;
        let up = frac > 0.5 || (frac == 0.5 && t & 1 == 1);
        let down = frac < -0.5 || (frac == -0.5 && t & 1 == 1);
        t + i64::from(up) - i64::from(down)
    }

    #[test]
    fn fp32_requantization_matches_host_f32_on_many_values() {
        // A xorshift generator: accumulators of every magnitude, scales of every exponent
        // XNNPack accepts, and ties (scale 0.5 and 0.25 on odd accumulators).
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for i in 0..400_000u32 {
            let r = next();
            let acc = (r as i32) >> ((r >> 32) % 31);
            let scale = match i % 8 {
                0 => 0.5,
                1 => 0.25,
                _ => f32::from_bits(0x2f80_0000 + ((r >> 40) as u32 % (0x4380_0000 - 0x2f80_0000))),
            };
            if scale >= 256.0 {
                continue;
            }
            let want = fp32_oracle(acc, scale).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
            assert_eq!(
                i64::from(Fp32Scale::new(scale).apply(acc)),
                want,
                "acc {acc} scale {scale:e}"
            );
        }
    }

    #[test]
    fn srdhm_and_rounding_divide_edges() {
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
            1 << 29
        );
        // Ties go up, toward +infinity: floor(x + 1/2) (the nudge and C's truncation).
        assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0); // -0.5
        assert_eq!(saturating_rounding_doubling_high_mul(1, 1 << 30), 1); // 0.5
        assert_eq!(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1); // -1.5
        assert_eq!(saturating_rounding_doubling_high_mul(-3, (1 << 30) + 1), -2); // -1.5000000005
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(-4, 1), -2);
        assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
    }

    #[test]
    fn activation_ranges_of_the_model() {
        // Relu6 on the model's activations: scale 6/255 (f32 0x3cc0c0c1), zero point -128.
        let r = activation_range(Activation::Relu6, f32::from_bits(0x3cc0c0c1), -128);
        assert_eq!(
            r,
            ActivationRange {
                min: -128,
                max: 127
            }
        );
        let r = activation_range(Activation::Relu6, 0.05, -10);
        assert_eq!(r, ActivationRange { min: -10, max: 110 });
        let r = activation_range(Activation::ReluN1To1, 0.01, 3);
        assert_eq!(r, ActivationRange { min: -97, max: 103 });
        assert_eq!(
            activation_range(Activation::None, 0.3, 5),
            ActivationRange::INT8
        );
        // The two roundings of a bound on a tie: 2.5 / 1 + 0 is 3 for TFLite, 2 for XNNPack.
        let tflite = activation_range(Activation::ReluN1To1, 0.4, 0);
        let xnnpack = xnnpack_activation_range(Activation::ReluN1To1, 0.4, 0);
        assert_eq!((tflite.min, tflite.max), (-3, 3));
        assert_eq!((xnnpack.min, xnnpack.max), (-2, 2));
        let r = xnnpack_activation_range(Activation::Relu6, f32::from_bits(0x3cc0c0c1), -128);
        assert_eq!(r, ActivationRange::INT8);
        assert_eq!(round_half_away_f32(2.5), 3);
        assert_eq!(round_half_away_f32(-2.5), -3);
        assert_eq!(round_half_away_f32(-2.4999998), -2);
    }

    #[test]
    fn expf_is_close_to_correctly_rounded() {
        // Correctly rounded f32s, from Python's decimal module (see quant_vectors.rs).
        assert_eq!(expf(0.0), 1.0);
        assert_eq!(expf(-1.0).to_bits(), 0x3ebc5ab2);
        assert_eq!(expf(1.0).to_bits(), 0x402df854);
        assert_eq!(expf(-110.0), 0.0);
        for &(x, want) in EXPF_CASES.iter() {
            assert_eq!(
                expf(f32::from_bits(x)).to_bits(),
                want,
                "expf({})",
                f32::from_bits(x)
            );
        }
    }
}
