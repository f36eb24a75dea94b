//! `CONV_2D`, int8 with per-channel weights: TFLite's
//! `reference_integer_ops::ConvPerChannel` (groups of 1).

use super::quant::ActivationRange;
use super::{Nhwc, PaddingValues, Requantize, tap_range, with_requantize};

/// What a `CONV_2D` needs from the model.
#[derive(Clone, Copy, Debug)]
pub struct ConvParams<'a> {
    /// Input shape (NHWC).
    pub input: Nhwc,
    /// Output shape (NHWC); its depth is the number of filters.
    pub output: Nhwc,
    /// Filter rows.
    pub filter_height: usize,
    /// Filter columns.
    pub filter_width: usize,
    /// Vertical stride.
    pub stride_height: usize,
    /// Horizontal stride.
    pub stride_width: usize,
    /// Vertical dilation factor.
    pub dilation_height: usize,
    /// Horizontal dilation factor.
    pub dilation_width: usize,
    /// Padding before the first row and column ([`super::padded_output`]).
    pub padding: PaddingValues,
    /// Zero point of the input; padded positions contribute nothing.
    pub input_zero_point: i32,
    /// Zero point of the output.
    pub output_zero_point: i32,
    /// The fused activation, as a clamping range ([`super::quant::activation_range`]).
    pub activation: ActivationRange,
    /// Per output channel requantization.
    pub requantize: Requantize<'a>,
}

/// 2-D convolution: for every output pixel and filter `c`, `acc = bias[c] + sum over the
/// taps inside the input and every input channel of (x - input_zero_point) * w` (i32,
/// wrapping adds: TFLite's own bound is that a filter has at most 2^16 taps), then
/// requantized per channel, plus the output zero point, clamped to the activation.
///
/// `input` is `params.input` (NHWC), `filter` is `[out, filter_height, filter_width,
/// in]`, `bias` is one i32 per output channel, `output` is `params.output` (NHWC). No
/// scratch: each output is one accumulator in a register.
///
/// # Panics
///
/// If a slice's length disagrees with its shape, the batch sizes differ, or the
/// requantization does not have one entry per output channel.
pub fn conv2d(
    params: &ConvParams<'_>,
    input: &[i8],
    filter: &[i8],
    bias: &[i32],
    output: &mut [i8],
) {
    let p = params;
    let (ic, oc) = (p.input.depth, p.output.depth);
    let taps = p.filter_height * p.filter_width;
    assert_eq!(
        input.len(),
        p.input.len(),
        "conv2d: input length is not its shape's"
    );
    assert_eq!(
        output.len(),
        p.output.len(),
        "conv2d: output length is not its shape's"
    );
    assert_eq!(
        filter.len(),
        oc * taps * ic,
        "conv2d: filter length is not out * h * w * in"
    );
    assert_eq!(
        bias.len(),
        oc,
        "conv2d: bias length is not the output depth"
    );
    assert_eq!(
        p.requantize.channels(),
        oc,
        "conv2d: requantization is not per output channel"
    );
    assert_eq!(p.input.batch, p.output.batch, "conv2d: batch sizes differ");
    if p.output.is_empty() || ic == 0 {
        return;
    }
    let filter_size = taps * ic;
    let in_off = -p.input_zero_point;
    with_requantize!(p.requantize, p.output_zero_point, p.activation, |out| {
        for (image, out_image) in input
            .chunks_exact(p.input.height * p.input.width * ic)
            .zip(output.chunks_exact_mut(p.output.height * p.output.width * oc))
        {
            for (oy, out_row) in out_image.chunks_exact_mut(p.output.width * oc).enumerate() {
                let y0 = (oy * p.stride_height) as isize - p.padding.height as isize;
                let (fy_lo, fy_hi) =
                    tap_range(y0, p.filter_height, p.dilation_height, p.input.height);
                for (ox, out_px) in out_row.chunks_exact_mut(oc).enumerate() {
                    let x0 = (ox * p.stride_width) as isize - p.padding.width as isize;
                    let (fx_lo, fx_hi) =
                        tap_range(x0, p.filter_width, p.dilation_width, p.input.width);
                    for (c, ((o, f), &b)) in out_px
                        .iter_mut()
                        .zip(filter.chunks_exact(filter_size))
                        .zip(bias)
                        .enumerate()
                    {
                        let mut acc = b;
                        for fy in fy_lo..fy_hi {
                            let iy = (y0 + (fy * p.dilation_height) as isize) as usize;
                            let in_row = &image[iy * p.input.width * ic..][..p.input.width * ic];
                            let f_row = &f[fy * p.filter_width * ic..][..p.filter_width * ic];
                            for fx in fx_lo..fx_hi {
                                let ix = (x0 + (fx * p.dilation_width) as isize) as usize;
                                let xs = &in_row[ix * ic..][..ic];
                                let ws = &f_row[fx * ic..][..ic];
                                acc = acc.wrapping_add(dot(xs, ws, in_off));
                            }
                        }
                        *o = out(c, acc);
                    }
                }
            }
        }
    })
}

/// `sum (x + offset) * w` over two equally long slices, i32, wrapping.
#[inline(always)]
pub(crate) fn dot(xs: &[i8], ws: &[i8], offset: i32) -> i32 {
    xs.iter().zip(ws).fold(0i32, |acc, (&x, &w)| {
        acc.wrapping_add((i32::from(x) + offset) * i32::from(w))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::quant::{Fp32Scale, per_channel_multipliers};
    use crate::kernels::{Padding, padded_output};

    /// A direct transcription of the reference loop nest (every tap tested for being
    /// inside the input), to check the range arithmetic of [`conv2d`] on odd shapes.
    fn naive(p: &ConvParams<'_>, input: &[i8], filter: &[i8], bias: &[i32]) -> std::vec::Vec<i32> {
        let mut accs = std::vec::Vec::new();
        let (ih, iw, ic, oc) = (
            p.input.height as isize,
            p.input.width as isize,
            p.input.depth,
            p.output.depth,
        );
        for b in 0..p.output.batch {
            for oy in 0..p.output.height {
                for ox in 0..p.output.width {
                    for c in 0..oc {
                        let mut acc = bias[c];
                        for fy in 0..p.filter_height {
                            for fx in 0..p.filter_width {
                                let iy = (oy * p.stride_height + fy * p.dilation_height) as isize
                                    - p.padding.height as isize;
                                let ix = (ox * p.stride_width + fx * p.dilation_width) as isize
                                    - p.padding.width as isize;
                                if iy < 0 || ix < 0 || iy >= ih || ix >= iw {
                                    continue;
                                }
                                for i in 0..ic {
                                    let x = input[((b * ih as usize + iy as usize) * iw as usize
                                        + ix as usize)
                                        * ic
                                        + i];
                                    let w = filter[((c * p.filter_height + fy) * p.filter_width
                                        + fx)
                                        * ic
                                        + i];
                                    acc += (i32::from(x) - p.input_zero_point) * i32::from(w);
                                }
                            }
                        }
                        accs.push(acc);
                    }
                }
            }
        }
        accs
    }

    #[test]
    fn matches_the_reference_loop_nest_on_odd_shapes() {
        let mut seed = 12345u32;
        let mut rnd = move || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 24) as u8 as i8
        };
        for &(h, w, ic, oc, k, s, d, pad) in &[
            (
                7usize,
                5usize,
                3usize,
                4usize,
                3usize,
                2usize,
                1usize,
                Padding::Same,
            ),
            (6, 6, 2, 3, 3, 1, 2, Padding::Same),
            (9, 4, 1, 2, 2, 3, 1, Padding::Valid),
            (5, 5, 4, 2, 1, 1, 1, Padding::Valid),
        ] {
            let (oh, ph) = padded_output(pad, h, k, s, d);
            let (ow, pw) = padded_output(pad, w, k, s, d);
            let input: std::vec::Vec<i8> = (0..2 * h * w * ic).map(|_| rnd()).collect();
            let filter: std::vec::Vec<i8> = (0..oc * k * k * ic).map(|_| rnd()).collect();
            let bias: std::vec::Vec<i32> = (0..oc).map(|i| i as i32 * 77 - 100).collect();
            let mut mult = std::vec![0; oc];
            let mut shift = std::vec![0; oc];
            // Multiplier 1/2^8 on every channel: outputs are accumulators / 256.
            per_channel_multipliers(1.0, &std::vec![1.0 / 256.0; oc], 1.0, &mut mult, &mut shift);
            let params = ConvParams {
                input: Nhwc::new(2, h, w, ic),
                output: Nhwc::new(2, oh, ow, oc),
                filter_height: k,
                filter_width: k,
                stride_height: s,
                stride_width: s,
                dilation_height: d,
                dilation_width: d,
                padding: PaddingValues {
                    height: ph,
                    width: pw,
                },
                input_zero_point: -3,
                output_zero_point: 0,
                activation: ActivationRange::INT8,
                requantize: Requantize::Tflite {
                    multipliers: &mult,
                    shifts: &shift,
                },
            };
            let mut out = std::vec![0i8; params.output.len()];
            conv2d(&params, &input, &filter, &bias, &mut out);
            let want: std::vec::Vec<i8> = naive(&params, &input, &filter, &bias)
                .into_iter()
                .map(|a| {
                    crate::kernels::requantize_tflite(
                        a,
                        mult[0],
                        shift[0],
                        0,
                        ActivationRange::INT8,
                    )
                })
                .collect();
            assert_eq!(out, want, "shape {h}x{w}x{ic} -> {oc}, k {k} s {s} d {d}");
            // The XNNPack stage with scale 1/256 rounds ties to even instead.
            let scales = std::vec![Fp32Scale::new(1.0 / 256.0); oc];
            let params = ConvParams {
                requantize: Requantize::Xnnpack { scales: &scales },
                ..params
            };
            conv2d(&params, &input, &filter, &bias, &mut out);
            let want: std::vec::Vec<i8> = naive(&params, &input, &filter, &bias)
                .into_iter()
                .map(|a| ((a as f32 / 256.0).round_ties_even() as i32).clamp(-128, 127) as i8)
                .collect();
            assert_eq!(out, want);
        }
    }
}
