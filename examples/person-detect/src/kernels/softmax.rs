//! `SOFTMAX`, int8 in and out (output scale 1/256, zero point -128), over the last
//! dimension. Two arithmetics, chosen by [`Softmax`]:
//!
//! - [`Softmax::Tflite`]: TFLite's `reference_ops::Softmax` (TFLM's; LiteRT's with
//!   `BUILTIN_REF`): gemmlowp fixed point, integers only. The input differences from the
//!   row maximum are scaled into Q5.26, `exp` is evaluated in fixed point on them, summed in
//!   Q12.19, the sum inverted by Newton-Raphson, and each output is `exp * 1/sum` shifted
//!   into int8.
//! - [`Softmax::LiteRt`]: LiteRT's builtin optimized kernel on x86 (`optimized_ops::Softmax`
//!   with `PopulateSoftmaxLookupTable`), which LiteRT's default interpreter runs (XNNPack
//!   does not take a quantized softmax): a 256-entry f32 table of `exp`, an f32 sum, an f32
//!   reciprocal and products, each output rounded half away from zero. This one uses f32
//!   arithmetic per element (IEEE-754 binary32 add, multiply and divide, which Rust
//!   guarantees on every target and the Cortex-M4F's FPU does in hardware): matching
//!   LiteRT's bytes needs it. It is the only float arithmetic in a kernel's loop, and runs
//!   over the two scores of this model.
//!
//! Neither needs scratch: the reference recomputes each `exp` in its second pass, as
//! TFLite does, and the table variant looks it up again.

use super::quant::{
    SoftmaxFixed, multiply_by_quantized_multiplier, round_half_away_f32, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul as srdhm,
};

/// The parameters of a `SOFTMAX`.
#[derive(Clone, Copy, Debug)]
pub enum Softmax<'a> {
    /// TFLite's reference kernel: from the operator's beta and the input scale,
    /// [`SoftmaxFixed::new`]. The output is scale 1/256, zero point -128.
    Tflite(SoftmaxFixed),
    /// LiteRT's optimized kernel on x86.
    LiteRt {
        /// `exp` of `-input_scale * beta * v` at index `255 - v`
        /// ([`super::quant::softmax_exp_table`]).
        exp_table: &'a [f32; 256],
        /// Scale of the output (1/256 for int8).
        output_scale: f32,
        /// Zero point of the output (-128 for int8).
        output_zero_point: i32,
    },
}

/// Softmax of every row of `depth` values: `input` and `output` are rows of `depth` int8s
/// (any leading shape), in units of the input scale and of 1/256 (zero point -128).
///
/// # Panics
///
/// If `depth` is zero, the lengths differ, or they are not a multiple of `depth`.
pub fn softmax(params: &Softmax<'_>, depth: usize, input: &[i8], output: &mut [i8]) {
    assert!(depth > 0, "softmax: depth 0");
    assert_eq!(
        input.len(),
        output.len(),
        "softmax: input and output lengths differ"
    );
    assert_eq!(
        input.len() % depth,
        0,
        "softmax: length is not a multiple of depth"
    );
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let max = i32::from(row.iter().copied().max().unwrap_or(i8::MIN));
        match params {
            Softmax::Tflite(p) => softmax_row_fixed(p, max, row, out),
            Softmax::LiteRt {
                exp_table,
                output_scale,
                output_zero_point,
            } => softmax_row_table(exp_table, *output_scale, *output_zero_point, max, row, out),
        }
    }
}

fn softmax_row_table(
    table: &[f32; 256],
    output_scale: f32,
    zero_point: i32,
    max: i32,
    row: &[i8],
    out: &mut [i8],
) {
    // max - x is in 0..=255: the table index 255 - (max - x) is in 0..=255.
    let lookup = |x: i8| table[(255 - (max - i32::from(x))) as usize];
    let mut sum = 0.0f32;
    for &x in row {
        sum += lookup(x);
    }
    let inv = 1.0f32 / (sum * output_scale);
    for (o, &x) in out.iter_mut().zip(row) {
        let q = round_half_away_f32(lookup(x) * inv).saturating_add(zero_point);
        *o = q.clamp(-128, 127) as i8;
    }
}

/// Integer bits of the sum of exponentials (Q12.19).
const ACCUMULATION_INTEGER_BITS: i32 = 12;

fn softmax_row_fixed(p: &SoftmaxFixed, max: i32, row: &[i8], out: &mut [i8]) {
    let scaled = |x: i8| -> Option<i32> {
        let diff = i32::from(x) - max;
        // MultiplyByQuantizedMultiplierGreaterThanOne: the shift is a left shift.
        (diff >= p.diff_min)
            .then(|| multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift))
    };
    let mut sum = 0i32;
    for &x in row {
        if let Some(d) = scaled(x) {
            // Q0.31 -> Q12.19.
            sum = sum.wrapping_add(rounding_divide_by_pot(
                exp_on_negative_values(d),
                ACCUMULATION_INTEGER_BITS as u32,
            ));
        }
    }
    let (reciprocal, bits_over_unit) = reciprocal(sum, ACCUMULATION_INTEGER_BITS);
    let exponent = bits_over_unit + 31 - 8;
    assert!(
        (0..=31).contains(&exponent),
        "softmax: reciprocal exponent {exponent} outside 0..=31"
    );
    for (o, &x) in out.iter_mut().zip(row) {
        *o = match scaled(x) {
            Some(d) => {
                let unsat = rounding_divide_by_pot(
                    srdhm(reciprocal, exp_on_negative_values(d)),
                    exponent as u32,
                );
                (unsat - 128).clamp(-128, 127) as i8
            }
            None => -128,
        };
    }
}

/// Q0.31 one (the largest raw value: 1 itself is not representable).
const Q0_ONE: i32 = i32::MAX;

/// `round(2^31 * exp(-2^k))` for k = -2..=4, the factors of the barrel shifter, each with
/// the bit of the Q5.26 input that selects it.
const EXP_BARREL: [(u32, i32); 7] = [
    (24, 1_672_461_947), // exp(-1/4)
    (25, 1_302_514_674), // exp(-1/2)
    (26, 790_015_084),   // exp(-1)
    (27, 290_630_308),   // exp(-2)
    (28, 39_332_535),    // exp(-4)
    (29, 720_401),       // exp(-8)
    (30, 242),           // exp(-16)
];
/// `round(2^31 * exp(-1/8))`.
const EXP_MINUS_ONE_EIGHTH: i32 = 1_895_147_668;
/// `round(2^31 / 3)`.
const ONE_THIRD: i32 = 715_827_883;
/// `round(2^29 * 48/17)` and `round(2^29 * -32/17)`, Q2.29.
const FORTY_EIGHT_SEVENTEENTHS: i32 = 1_515_870_810;
const MINUS_THIRTY_TWO_SEVENTEENTHS: i32 = -1_010_580_540;

/// Saturating `x * 2^exponent` (gemmlowp's `SaturatingRoundingMultiplyByPOT` for a
/// positive exponent).
fn saturating_shl(x: i32, exponent: u32) -> i32 {
    let threshold = (1i32 << (31 - exponent)) - 1;
    if x > threshold {
        i32::MAX
    } else if x < -threshold {
        i32::MIN
    } else {
        x << exponent
    }
}

/// `exp(a)` for `a` in `[-1/4, 0)`, Q0.31 in and out: the Taylor expansion around -1/8 to
/// the fourth order, in fixed point.
fn exp_on_quarter_interval(a: i32) -> i32 {
    let x = a.wrapping_add(1 << 28); // a + 1/8
    let x2 = srdhm(x, x);
    let x3 = srdhm(x2, x);
    let x4 = srdhm(x2, x2);
    let x4_over_4 = rounding_divide_by_pot(x4, 2);
    // (x^4/4 + x^3) / 3 + x^2, halved: x^4/24 + x^3/6 + x^2/2.
    let poly = rounding_divide_by_pot(
        srdhm(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2),
        1,
    );
    EXP_MINUS_ONE_EIGHTH.wrapping_add(srdhm(EXP_MINUS_ONE_EIGHTH, x.wrapping_add(poly)))
}

/// `exp(a)` for `a <= 0` in Q5.26, the result in Q0.31: `a` is split into a multiple of
/// 1/4 and a remainder in `[-1/4, 0)`; the remainder's exp is [`exp_on_quarter_interval`]
/// and each set bit of the multiple multiplies in `exp(-2^k)`.
fn exp_on_negative_values(a: i32) -> i32 {
    const QUARTER: i32 = 1 << 24;
    let a_mod_quarter_minus_quarter = (a & (QUARTER - 1)) - QUARTER;
    // Q5.26 -> Q0.31.
    let mut result = exp_on_quarter_interval(saturating_shl(a_mod_quarter_minus_quarter, 5));
    let remainder = a_mod_quarter_minus_quarter.wrapping_sub(a);
    for &(bit, factor) in EXP_BARREL.iter() {
        if remainder & (1 << bit) != 0 {
            result = srdhm(result, factor);
        }
    }
    if a == 0 { Q0_ONE } else { result }
}

/// gemmlowp's `RoundingHalfSum`: `(a + b) / 2` rounded half away from zero.
fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// `1 / (1 + a)` for `a` in `[0, 1)`, Q0.31 in and out: three Newton-Raphson steps from
/// the linear estimate `48/17 - 32/17 * d` on `d = (1 + a) / 2`.
fn one_over_one_plus_x_in_0_1(a: i32) -> i32 {
    let half_denominator = rounding_half_sum(a, Q0_ONE);
    let mut x = FORTY_EIGHT_SEVENTEENTHS
        .wrapping_add(srdhm(half_denominator, MINUS_THIRTY_TWO_SEVENTEENTHS));
    for _ in 0..3 {
        let half_denominator_times_x = srdhm(half_denominator, x); // Q2.29
        let one_minus = (1i32 << 29).wrapping_sub(half_denominator_times_x);
        // Q2.29 * Q2.29 = Q4.27, back to Q2.29.
        x = x.wrapping_add(saturating_shl(srdhm(x, one_minus), 2));
    }
    // x / 2 in Q1.30 is the same raw value; back to Q0.31.
    saturating_shl(x, 1)
}

/// TFLite's `GetReciprocal`: for `x` in Q`integer_digits`, a Q0.31 scale and the number
/// of bits of `x` above 1, so that `1/x = scale * 2^-bits_over_unit`.
fn reciprocal(x: i32, integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let bits_over_unit = integer_digits - headroom_plus_one as i32;
    let shifted_minus_one =
        ((x as u32).checked_shl(headroom_plus_one).unwrap_or(0)).wrapping_sub(1 << 31) as i32;
    (
        one_over_one_plus_x_in_0_1(shifted_minus_one),
        bits_over_unit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::quant::{expf, softmax_exp_table};

    /// exp(x) for small |x|: the Taylor series, accurate to f64 for |x| <= 1/4.
    fn exp_small(x: f64) -> f64 {
        assert!(x.abs() <= 0.25);
        let mut p = 1.0f64;
        for k in (1..=30).rev() {
            p = 1.0 + p * x / f64::from(k);
        }
        p
    }

    fn q31(v: f64) -> i32 {
        (v * 2f64.powi(31) + 0.5) as i32
    }

    #[test]
    fn constants_are_what_they_say() {
        let quarter = exp_small(-0.25);
        for (i, &(bit, factor)) in EXP_BARREL.iter().enumerate() {
            assert_eq!(bit, 24 + i as u32);
            // exp(-2^(i - 2)) = exp(-1/4)^(2^i).
            assert_eq!(
                factor,
                q31(quarter.powi(1 << i)),
                "exp(-2^{})",
                i as i32 - 2
            );
        }
        assert_eq!(EXP_MINUS_ONE_EIGHTH, q31(exp_small(-0.125)));
        assert_eq!(ONE_THIRD, q31(1.0 / 3.0));
        assert_eq!(
            FORTY_EIGHT_SEVENTEENTHS,
            (48.0 / 17.0 * 2f64.powi(29) + 0.5) as i32
        );
        assert_eq!(
            MINUS_THIRTY_TWO_SEVENTEENTHS,
            -((32.0 / 17.0 * 2f64.powi(29) + 0.5) as i32)
        );
    }

    #[test]
    fn fixed_point_exp_and_reciprocal_are_accurate() {
        let sixteenth = exp_small(-1.0 / 16.0);
        for i in 0..=400 {
            let a = -(i as f64) / 16.0; // 0 down to -25
            let raw = (a * 2f64.powi(26)) as i32;
            let got = f64::from(exp_on_negative_values(raw)) / 2f64.powi(31);
            let want = sixteenth.powi(i);
            // gemmlowp's fourth-order Taylor polynomial around -1/8, on [-1/4, 0): its error
            // term (1/8)^5 / 5! is 2.5e-7 at the ends.
            assert!((got - want).abs() < 3e-7, "exp({a}) = {got}, not {want}");
        }
        for i in 0..100 {
            let a = i as f64 / 100.0;
            let got =
                f64::from(one_over_one_plus_x_in_0_1((a * 2f64.powi(31)) as i32)) / 2f64.powi(31);
            assert!((got - 1.0 / (1.0 + a)).abs() < 1e-8, "1/(1+{a}) = {got}");
        }
    }

    #[test]
    fn both_variants_give_probabilities() {
        let fixed = Softmax::Tflite(SoftmaxFixed::new(1.0, 0.1));
        let mut table = [0.0; 256];
        softmax_exp_table(0.1, 1.0, &mut table);
        let lut = Softmax::LiteRt {
            exp_table: &table,
            output_scale: 1.0 / 256.0,
            output_zero_point: -128,
        };
        let input = [10i8, 0, -20, 10, 127, -128];
        for p in [fixed, lut] {
            let mut out = [0i8; 6];
            softmax(&p, 3, &input, &mut out);
            // Row 1: exp(1), exp(0), exp(-2) over their sum: 0.7054, 0.2595, 0.0351.
            let want = [0.7054f64, 0.2595, 0.0351];
            for (o, w) in out[..3].iter().zip(want) {
                assert!(
                    (f64::from(i32::from(*o) + 128) / 256.0 - w).abs() < 2.0 / 256.0,
                    "{out:?}"
                );
            }
            // Row 2: the maximum takes everything.
            assert_eq!(&out[3..], &[-128, 127, -128]);
        }
        assert_eq!(expf(0.0), 1.0);
    }
}
