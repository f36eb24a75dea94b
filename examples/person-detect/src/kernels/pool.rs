//! `AVERAGE_POOL_2D`, int8: TFLite's `reference_integer_ops::AveragePool` (LiteRT's
//! builtin optimized `AveragePool` rounds the same way and gives the same bytes).

use super::quant::ActivationRange;
use super::{Nhwc, PaddingValues, tap_range};

/// What an `AVERAGE_POOL_2D` needs from the model.
#[derive(Clone, Copy, Debug)]
pub struct PoolParams {
    /// Input shape (NHWC).
    pub input: Nhwc,
    /// Output shape (NHWC), same batch and depth as the input.
    pub output: Nhwc,
    /// Window rows.
    pub filter_height: usize,
    /// Window columns.
    pub filter_width: usize,
    /// Vertical stride.
    pub stride_height: usize,
    /// Horizontal stride.
    pub stride_width: usize,
    /// Padding before the first row and column ([`super::padded_output`]).
    pub padding: PaddingValues,
    /// The fused activation, as a clamping range. Input and output share scale and zero
    /// point, so no requantization.
    pub activation: ActivationRange,
}

/// i32s of scratch [`average_pool2d`] needs: one sum per channel.
pub const fn pool_scratch_len(params: &PoolParams) -> usize {
    params.input.depth
}

/// Average pooling: each output is the sum of the window's values inside the input (padding
/// is not counted), divided by their count `n` rounding half away from zero, as
/// `(sum + n/2) / n` for positive sums and `(sum - n/2) / n` otherwise (C division),
/// clamped to the activation.
///
/// `input` and `output` are NHWC; `scratch` holds the channel sums of one output pixel:
/// exactly [`pool_scratch_len`] i32s (contents on entry ignored).
///
/// # Panics
///
/// If a length disagrees with its shape, the batch or depth differ, or a window holds no
/// input element (TFLite's kernel fails there too; SAME and VALID padding never do it).
pub fn average_pool2d(params: &PoolParams, input: &[i8], scratch: &mut [i32], output: &mut [i8]) {
    let p = params;
    let depth = p.input.depth;
    assert_eq!(
        input.len(),
        p.input.len(),
        "average_pool2d: input length is not its shape's"
    );
    assert_eq!(
        output.len(),
        p.output.len(),
        "average_pool2d: output length is not its shape's"
    );
    assert_eq!(p.output.depth, depth, "average_pool2d: depths differ");
    assert_eq!(
        p.input.batch, p.output.batch,
        "average_pool2d: batch sizes differ"
    );
    assert_eq!(
        scratch.len(),
        depth,
        "average_pool2d: scratch length is not the depth"
    );
    if p.output.is_empty() {
        return;
    }
    let iw = p.input.width;
    for (image, out_image) in input
        .chunks_exact(p.input.height * iw * depth)
        .zip(output.chunks_exact_mut(p.output.height * p.output.width * depth))
    {
        for (oy, out_row) in out_image
            .chunks_exact_mut(p.output.width * depth)
            .enumerate()
        {
            let y0 = (oy * p.stride_height) as isize - p.padding.height as isize;
            let (fy_lo, fy_hi) = tap_range(y0, p.filter_height, 1, p.input.height);
            for (ox, out_px) in out_row.chunks_exact_mut(depth).enumerate() {
                let x0 = (ox * p.stride_width) as isize - p.padding.width as isize;
                let (fx_lo, fx_hi) = tap_range(x0, p.filter_width, 1, iw);
                let count = ((fy_hi - fy_lo) * (fx_hi - fx_lo)) as i32;
                assert!(count > 0, "average_pool2d: a window holds no input element");
                scratch.fill(0);
                for fy in fy_lo..fy_hi {
                    let iy = (y0 + fy as isize) as usize;
                    let in_row = &image[iy * iw * depth..][..iw * depth];
                    let x_first = (x0 + fx_lo as isize) as usize;
                    for px in
                        in_row[x_first * depth..][..(fx_hi - fx_lo) * depth].chunks_exact(depth)
                    {
                        for (a, &x) in scratch.iter_mut().zip(px) {
                            *a += i32::from(x);
                        }
                    }
                }
                for (o, &sum) in out_px.iter_mut().zip(scratch.iter()) {
                    let avg = if sum > 0 {
                        (sum + count / 2) / count
                    } else {
                        (sum - count / 2) / count
                    };
                    *o = p.activation.clamp(avg);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_away_from_zero_and_skips_padding() {
        // 2x2 input, one channel, 2x2 window, stride 1, SAME: the last row and column's
        // windows hold fewer elements.
        let params = PoolParams {
            input: Nhwc::new(1, 2, 2, 1),
            output: Nhwc::new(1, 2, 2, 1),
            filter_height: 2,
            filter_width: 2,
            stride_height: 1,
            stride_width: 1,
            padding: PaddingValues {
                height: 0,
                width: 0,
            },
            activation: ActivationRange::INT8,
        };
        let mut scratch = [0; 1];
        let mut out = [0i8; 4];
        average_pool2d(&params, &[1, 2, 3, -7], &mut scratch, &mut out);
        // (1+2+3-7)/4 = -0.25 -> 0; (2-7)/2 = -2.5 -> -3; (3-7)/2 = -2 ; -7.
        assert_eq!(out, [0, -3, -2, -7]);
        average_pool2d(&params, &[1, 2, 2, 1], &mut scratch, &mut out);
        // 6/4 = 1.5 -> 2; 3/2 = 1.5 -> 2; 3/2 -> 2; 1.
        assert_eq!(out, [2, 2, 2, 1]);
    }
}
