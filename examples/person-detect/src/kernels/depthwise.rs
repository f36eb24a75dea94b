//! `DEPTHWISE_CONV_2D`, int8 with per-channel weights: TFLite's
//! `reference_integer_ops::DepthwiseConvPerChannel`.

use super::quant::ActivationRange;
use super::{Nhwc, PaddingValues, Requantize, tap_range, with_requantize};

/// What a `DEPTHWISE_CONV_2D` needs from the model.
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseParams<'a> {
    /// Input shape (NHWC).
    pub input: Nhwc,
    /// Output shape (NHWC): depth `input.depth * depth_multiplier`.
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
    /// Output channels per input channel: output channel `c * depth_multiplier + m` reads
    /// input channel `c`.
    pub depth_multiplier: usize,
    /// Zero point of the input; padded positions contribute nothing.
    pub input_zero_point: i32,
    /// Zero point of the output.
    pub output_zero_point: i32,
    /// The fused activation, as a clamping range ([`super::quant::activation_range`]).
    pub activation: ActivationRange,
    /// Per output channel requantization.
    pub requantize: Requantize<'a>,
}

/// i32s of scratch [`depthwise_conv2d`] needs: one accumulator per output channel.
pub const fn depthwise_scratch_len(params: &DepthwiseParams<'_>) -> usize {
    params.output.depth
}

/// Depthwise 2-D convolution: for every output pixel and output channel `o = c *
/// depth_multiplier + m`, `acc = bias[o] + sum over the taps inside the input of (x[c] -
/// input_zero_point) * w[o]` (i32, wrapping), requantized per channel, plus the output
/// zero point, clamped to the activation.
///
/// `input` is `params.input` (NHWC), `filter` is `[1, filter_height, filter_width, out]`,
/// `bias` one i32 per output channel, `output` is `params.output`. `scratch` holds the
/// output pixel's accumulators while its taps are summed: exactly
/// [`depthwise_scratch_len`] i32s (contents on entry ignored, on return unspecified).
/// Tap by tap, the loop over channels reads the input pixel, the filter tap and the
/// accumulators contiguously.
///
/// # Panics
///
/// If a slice's length disagrees with its shape, `scratch` is not the output depth, the
/// output depth is not `input depth * depth_multiplier`, the batch sizes differ, or the
/// requantization does not have one entry per output channel.
pub fn depthwise_conv2d(
    params: &DepthwiseParams<'_>,
    input: &[i8],
    filter: &[i8],
    bias: &[i32],
    scratch: &mut [i32],
    output: &mut [i8],
) {
    let p = params;
    let (ic, oc, mult) = (p.input.depth, p.output.depth, p.depth_multiplier);
    assert!(mult > 0, "depthwise_conv2d: depth multiplier 0");
    assert_eq!(
        oc,
        ic * mult,
        "depthwise_conv2d: output depth is not input depth * multiplier"
    );
    assert_eq!(
        input.len(),
        p.input.len(),
        "depthwise_conv2d: input length is not its shape's"
    );
    assert_eq!(
        output.len(),
        p.output.len(),
        "depthwise_conv2d: output length is not its shape's"
    );
    assert_eq!(
        filter.len(),
        p.filter_height * p.filter_width * oc,
        "depthwise_conv2d: filter length is not h * w * out"
    );
    assert_eq!(
        bias.len(),
        oc,
        "depthwise_conv2d: bias length is not the output depth"
    );
    assert_eq!(
        scratch.len(),
        oc,
        "depthwise_conv2d: scratch length is not the output depth"
    );
    assert_eq!(
        p.requantize.channels(),
        oc,
        "depthwise_conv2d: requantization is not per output channel"
    );
    assert_eq!(
        p.input.batch, p.output.batch,
        "depthwise_conv2d: batch sizes differ"
    );
    if p.output.is_empty() {
        return;
    }
    let in_off = -p.input_zero_point;
    let (iw, fw) = (p.input.width, p.filter_width);
    with_requantize!(p.requantize, p.output_zero_point, p.activation, |out| {
        for (image, out_image) in input
            .chunks_exact(p.input.height * iw * ic)
            .zip(output.chunks_exact_mut(p.output.height * p.output.width * oc))
        {
            for (oy, out_row) in out_image.chunks_exact_mut(p.output.width * oc).enumerate() {
                let y0 = (oy * p.stride_height) as isize - p.padding.height as isize;
                let (fy_lo, fy_hi) =
                    tap_range(y0, p.filter_height, p.dilation_height, p.input.height);
                for (ox, out_px) in out_row.chunks_exact_mut(oc).enumerate() {
                    let x0 = (ox * p.stride_width) as isize - p.padding.width as isize;
                    let (fx_lo, fx_hi) = tap_range(x0, fw, p.dilation_width, iw);
                    scratch.copy_from_slice(bias);
                    for fy in fy_lo..fy_hi {
                        let iy = (y0 + (fy * p.dilation_height) as isize) as usize;
                        let in_row = &image[iy * iw * ic..][..iw * ic];
                        let f_row = &filter[fy * fw * oc..][..fw * oc];
                        for fx in fx_lo..fx_hi {
                            let ix = (x0 + (fx * p.dilation_width) as isize) as usize;
                            let xs = &in_row[ix * ic..][..ic];
                            let ws = &f_row[fx * oc..][..oc];
                            if mult == 1 {
                                for ((a, &x), &w) in scratch.iter_mut().zip(xs).zip(ws) {
                                    *a = a.wrapping_add((i32::from(x) + in_off) * i32::from(w));
                                }
                            } else {
                                for ((acc, &x), w) in scratch
                                    .chunks_exact_mut(mult)
                                    .zip(xs)
                                    .zip(ws.chunks_exact(mult))
                                {
                                    let x = i32::from(x) + in_off;
                                    for (a, &w) in acc.iter_mut().zip(w) {
                                        *a = a.wrapping_add(x * i32::from(w));
                                    }
                                }
                            }
                        }
                    }
                    for (c, (o, &a)) in out_px.iter_mut().zip(scratch.iter()).enumerate() {
                        *o = out(c, a);
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::quant::per_channel_multipliers;
    use crate::kernels::{Padding, padded_output};
    use std::vec::Vec;

    #[test]
    fn matches_the_reference_loop_nest() {
        let mut seed = 99u32;
        let mut rnd = move || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 24) as u8 as i8
        };
        for &(h, w, ic, mult, k, s, d, pad) in &[
            (
                7usize,
                6usize,
                3usize,
                2usize,
                3usize,
                2usize,
                1usize,
                Padding::Same,
            ),
            (8, 8, 1, 8, 3, 2, 1, Padding::Same),
            (6, 7, 4, 1, 3, 1, 2, Padding::Same),
            (5, 9, 2, 3, 2, 2, 1, Padding::Valid),
        ] {
            let oc = ic * mult;
            let (oh, ph) = padded_output(pad, h, k, s, d);
            let (ow, pw) = padded_output(pad, w, k, s, d);
            let input: Vec<i8> = (0..h * w * ic).map(|_| rnd()).collect();
            let filter: Vec<i8> = (0..k * k * oc).map(|_| rnd()).collect();
            let bias: Vec<i32> = (0..oc).map(|i| 50 - i as i32 * 31).collect();
            let mut mult_q = std::vec![0; oc];
            let mut shift = std::vec![0; oc];
            per_channel_multipliers(
                1.0,
                &std::vec![1.0 / 128.0; oc],
                1.0,
                &mut mult_q,
                &mut shift,
            );
            let params = DepthwiseParams {
                input: Nhwc::new(1, h, w, ic),
                output: Nhwc::new(1, oh, ow, oc),
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
                depth_multiplier: mult,
                input_zero_point: 5,
                output_zero_point: -7,
                activation: ActivationRange { min: -100, max: 90 },
                requantize: Requantize::Tflite {
                    multipliers: &mult_q,
                    shifts: &shift,
                },
            };
            let mut scratch = std::vec![0; depthwise_scratch_len(&params)];
            let mut out = std::vec![0i8; params.output.len()];
            depthwise_conv2d(&params, &input, &filter, &bias, &mut scratch, &mut out);
            let mut want = Vec::new();
            for oy in 0..oh {
                for ox in 0..ow {
                    for c in 0..ic {
                        for m in 0..mult {
                            let o = c * mult + m;
                            let mut acc = bias[o];
                            for fy in 0..k {
                                for fx in 0..k {
                                    let iy = (oy * s + fy * d) as isize - ph as isize;
                                    let ix = (ox * s + fx * d) as isize - pw as isize;
                                    if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                        continue;
                                    }
                                    let x = input[(iy as usize * w + ix as usize) * ic + c];
                                    acc += (i32::from(x) - 5)
                                        * i32::from(filter[(fy * k + fx) * oc + o]);
                                }
                            }
                            want.push(crate::kernels::requantize_tflite(
                                acc,
                                mult_q[o],
                                shift[o],
                                -7,
                                params.activation,
                            ));
                        }
                    }
                }
            }
            assert_eq!(out, want, "{h}x{w}x{ic} mult {mult} k {k} s {s} d {d}");
        }
    }
}
