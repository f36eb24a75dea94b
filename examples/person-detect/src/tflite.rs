//! The crate's kernels behind the kernel traits `memory_plan!` generates from a `.tflite`
//! model: each function takes what the generated `run` passes an operator (its options
//! from [`memplan_runtime::ops`], its tensors as [`In`] and [`Out`] with their shapes and
//! quantization, and the kernel-temporary pool) and calls the kernel of [`crate::kernels`]
//! with TFLite's reference arithmetic (what TensorFlow Lite Micro runs, and LiteRT with
//! `OpResolverType.BUILTIN_REF`).
//!
//! Nothing is prepared ahead: the per-channel requantization (Q31 multiplier and shift per
//! output channel, TFLite's `QuantizeMultiplier`) is derived from the tensors' scales at
//! each call, into the temp pool, with the depthwise convolution's and the pool's
//! accumulators. The pool is reset at each call, so it needs room for one operator only:
//! [`temp_bytes`] of it.

use memplan_runtime::MemoryAllocator;
use memplan_runtime::ops::{self, In, Out};

use crate::kernels::conv::{ConvParams, conv2d};
use crate::kernels::depthwise::{DepthwiseParams, depthwise_conv2d, depthwise_scratch_len};
use crate::kernels::pool::{PoolParams, average_pool2d, pool_scratch_len};
use crate::kernels::quant::{Activation, SoftmaxFixed, activation_range, per_channel_multipliers};
use crate::kernels::softmax::{self as sm, Softmax};
use crate::kernels::{Nhwc, Padding, PaddingValues, Requantize, padded_output, reshape};

/// The temp pool bytes the busiest operator of a model with biases takes: a depthwise convolution's multipliers,
/// shifts and accumulators, three blocks of [`MAX_CHANNELS`] i32s (a convolution takes two,
/// a pool one; a missing bias one more).
pub const fn temp_bytes() -> usize {
    3 * MAX_CHANNELS * core::mem::size_of::<i32>()
}

/// A 4-D NHWC shape.
///
/// # Panics
///
/// If `shape` is not 4-D.
fn nhwc(shape: &[usize]) -> Nhwc {
    match *shape {
        [n, h, w, c] => Nhwc::new(n, h, w, c),
        _ => panic!("person-detect: an image tensor is not 4-D (NHWC)"),
    }
}

fn padding(p: ops::Padding) -> Padding {
    match p {
        ops::Padding::Same => Padding::Same,
        ops::Padding::Valid => Padding::Valid,
    }
}

/// # Panics
///
/// On `TANH` and `SIGN_BIT`, which no int8 kernel here fuses.
fn activation(a: ops::Activation) -> Activation {
    match a {
        ops::Activation::None => Activation::None,
        ops::Activation::Relu => Activation::Relu,
        ops::Activation::ReluN1To1 => Activation::ReluN1To1,
        ops::Activation::Relu6 => Activation::Relu6,
        ops::Activation::Tanh | ops::Activation::SignBit => {
            panic!("person-detect: a fused TANH or SIGN_BIT activation has no int8 kernel")
        }
    }
}

/// The scales and the first zero point of a quantized tensor.
///
/// # Panics
///
/// If the tensor carries no quantization (every int8 tensor of a quantized model does).
fn quant(q: Option<&'static ops::Quantization>) -> (&'static [f32], i32) {
    match q {
        Some(q) if !q.scale.is_empty() && !q.zero_point.is_empty() => {
            // int8 zero points are in -128..=127.
            (q.scale, q.zero_point[0] as i32)
        }
        _ => panic!("person-detect: an int8 tensor without quantization"),
    }
}

/// The most channels an operator may have here: the temp pool's blocks are this many i32s.
pub const MAX_CHANNELS: usize = 256;

/// `count` zeroed i32s from the temp pool (a block of [`MAX_CHANNELS`]).
///
/// # Panics
///
/// If `count` is over [`MAX_CHANNELS`], or the pool is too small: give it [`temp_bytes`].
#[allow(clippy::mut_from_ref)]
fn zeroed<'t>(temp: &'t MemoryAllocator<'static>, count: usize) -> &'t mut [i32] {
    assert!(
        count <= MAX_CHANNELS,
        "person-detect: an operator with more than MAX_CHANNELS channels"
    );
    match temp.allocate_value([0i32; MAX_CHANNELS]) {
        Ok(block) => &mut block[..count],
        Err(_) => panic!("person-detect: the temp pool is too small for an operator's i32s"),
    }
}

/// The reference per-channel requantization of a convolution, its activation range and
/// output zero point, with the multipliers and shifts from `temp`.
fn requantization<'t>(
    temp: &'t MemoryAllocator<'static>,
    input: &In<'_, i8>,
    filter: &In<'_, i8>,
    output: &Out<'_, i8>,
    fused: ops::Activation,
    channels: usize,
) -> (Requantize<'t>, crate::kernels::quant::ActivationRange, i32) {
    let (si, _) = quant(input.quantization);
    let (fs, _) = quant(filter.quantization);
    let (so, zo) = quant(output.quantization);
    assert_eq!(
        fs.len(),
        channels,
        "person-detect: one filter scale per output channel"
    );
    let multipliers = zeroed(temp, channels);
    let shifts = zeroed(temp, channels);
    per_channel_multipliers(si[0], fs, so[0], multipliers, shifts);
    let range = activation_range(activation(fused), so[0], zo);
    (
        Requantize::Tflite {
            multipliers,
            shifts,
        },
        range,
        zo,
    )
}

/// `CONV_2D`, int8 per channel: [`conv2d`]. A missing bias is zeros.
pub fn conv_2d(
    op: &ops::Conv2d,
    input: In<'_, i8>,
    filter: In<'_, i8>,
    bias: Option<In<'_, i32>>,
    output: Out<'_, i8>,
    temp: &mut MemoryAllocator<'static>,
) {
    temp.scoped(|temp| {
        let (i, o) = (nhwc(input.shape), nhwc(output.shape));
        let (fh, fw) = (filter.shape[1], filter.shape[2]);
        let (sh, sw) = (op.stride_h as usize, op.stride_w as usize);
        let (dh, dw) = (op.dilation_h as usize, op.dilation_w as usize);
        let (_, ph) = padded_output(padding(op.padding), i.height, fh, sh, dh);
        let (_, pw) = padded_output(padding(op.padding), i.width, fw, sw, dw);
        let (requantize, range, zo) =
            requantization(temp, &input, &filter, &output, op.activation, o.depth);
        let zeros;
        let bias = match &bias {
            Some(b) => b.data,
            None => {
                zeros = zeroed(temp, o.depth);
                &*zeros
            }
        };
        let params = ConvParams {
            input: i,
            output: o,
            filter_height: fh,
            filter_width: fw,
            stride_height: sh,
            stride_width: sw,
            dilation_height: dh,
            dilation_width: dw,
            padding: PaddingValues {
                height: ph,
                width: pw,
            },
            input_zero_point: quant(input.quantization).1,
            output_zero_point: zo,
            activation: range,
            requantize,
        };
        conv2d(&params, input.data, filter.data, bias, output.data);
    });
}

/// `DEPTHWISE_CONV_2D`, int8 per channel: [`depthwise_conv2d`], its accumulators (one
/// output pixel's) from the temp pool. A missing bias is zeros.
pub fn depthwise_conv_2d(
    op: &ops::DepthwiseConv2d,
    input: In<'_, i8>,
    filter: In<'_, i8>,
    bias: Option<In<'_, i32>>,
    output: Out<'_, i8>,
    temp: &mut MemoryAllocator<'static>,
) {
    temp.scoped(|temp| {
        let (i, o) = (nhwc(input.shape), nhwc(output.shape));
        let (fh, fw) = (filter.shape[1], filter.shape[2]);
        let (sh, sw) = (op.stride_h as usize, op.stride_w as usize);
        let (dh, dw) = (op.dilation_h as usize, op.dilation_w as usize);
        let (_, ph) = padded_output(padding(op.padding), i.height, fh, sh, dh);
        let (_, pw) = padded_output(padding(op.padding), i.width, fw, sw, dw);
        let (requantize, range, zo) =
            requantization(temp, &input, &filter, &output, op.activation, o.depth);
        let zeros;
        let bias = match &bias {
            Some(b) => b.data,
            None => {
                zeros = zeroed(temp, o.depth);
                &*zeros
            }
        };
        let params = DepthwiseParams {
            input: i,
            output: o,
            filter_height: fh,
            filter_width: fw,
            stride_height: sh,
            stride_width: sw,
            dilation_height: dh,
            dilation_width: dw,
            padding: PaddingValues {
                height: ph,
                width: pw,
            },
            depth_multiplier: op.depth_multiplier as usize,
            input_zero_point: quant(input.quantization).1,
            output_zero_point: zo,
            activation: range,
            requantize,
        };
        let scratch = zeroed(temp, depthwise_scratch_len(&params));
        depthwise_conv2d(&params, input.data, filter.data, bias, scratch, output.data);
    });
}

/// `AVERAGE_POOL_2D`, int8: [`average_pool2d`], one pixel's channel sums from the temp pool.
///
/// # Panics
///
/// If the input and output quantization differ (TFLite requires them equal).
pub fn average_pool_2d(
    op: &ops::Pool2d,
    input: In<'_, i8>,
    output: Out<'_, i8>,
    temp: &mut MemoryAllocator<'static>,
) {
    temp.scoped(|temp| {
        let (i, o) = (nhwc(input.shape), nhwc(output.shape));
        let (fh, fw) = (op.filter_h as usize, op.filter_w as usize);
        let (sh, sw) = (op.stride_h as usize, op.stride_w as usize);
        let (_, ph) = padded_output(padding(op.padding), i.height, fh, sh, 1);
        let (_, pw) = padded_output(padding(op.padding), i.width, fw, sw, 1);
        let (si, zi) = quant(input.quantization);
        let (so, zo) = quant(output.quantization);
        assert!(
            si[0] == so[0] && zi == zo,
            "person-detect: an average pool whose input and output quantization differ"
        );
        let params = PoolParams {
            input: i,
            output: o,
            filter_height: fh,
            filter_width: fw,
            stride_height: sh,
            stride_width: sw,
            padding: PaddingValues {
                height: ph,
                width: pw,
            },
            activation: activation_range(activation(op.activation), so[0], zo),
        };
        let scratch = zeroed(temp, pool_scratch_len(&params));
        average_pool2d(&params, input.data, scratch, output.data);
    });
}

/// `RESHAPE`: a copy of the elements.
pub fn reshape(input: In<'_, i8>, output: Out<'_, i8>) {
    reshape::reshape(input.data, output.data);
}

/// `SOFTMAX`, int8 (output scale 1/256, zero point -128) over the last dimension: TFLite's
/// reference fixed-point softmax.
pub fn softmax(op: &ops::Softmax, input: In<'_, i8>, output: Out<'_, i8>) {
    let (si, _) = quant(input.quantization);
    let depth = input.shape.last().copied().unwrap_or(1);
    let params = Softmax::Tflite(SoftmaxFixed::new(f64::from(op.beta), si[0]));
    sm::softmax(&params, depth, input.data, output.data);
}
