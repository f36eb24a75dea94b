//! What a model's operators give their kernels, when `memory_plan!` runs a model's schedule
//! (`model from "FILE.tflite";`): each operator's options, as TensorFlow Lite's schema
//! (`tensorflow/compiler/mlir/lite/schema/schema.fbs`) names them, and its tensors, as
//! slices of the step's planned buffers or of the model's constant data, with their shapes
//! and quantization parameters.
//!
//! The generated `run` calls, for each operator in order, the kernel trait of its kind (one
//! trait per kind the model uses, generated in the plan's module); a firmware implements
//! those traits. Nothing here computes: these are the facts a kernel needs.

/// Padding of a convolution or pool (TFLite's `Padding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// `SAME`: the output has `ceil(input / stride)` elements along each axis.
    Same,
    /// `VALID`: no padding.
    Valid,
}

/// A fused activation (TFLite's `ActivationFunctionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `NONE`.
    None,
    /// `RELU`.
    Relu,
    /// `RELU_N1_TO_1`.
    ReluN1To1,
    /// `RELU6`.
    Relu6,
    /// `TANH`.
    Tanh,
    /// `SIGN_BIT`.
    SignBit,
}

/// A tensor's quantization (TFLite's `QuantizationParameters`): `real = scale * (q -
/// zero_point)`, per tensor (one scale) or per channel along `dimension`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantization {
    /// The scales, one per channel along `dimension` (or one for the tensor).
    pub scale: &'static [f32],
    /// The zero points, as many as the scales.
    pub zero_point: &'static [i64],
    /// The channel dimension of per-channel quantization (TFLite's `quantized_dimension`).
    pub dimension: i32,
}

/// A tensor an operator reads: its elements, dims (outermost first) and quantization.
#[derive(Clone, Copy, Debug)]
pub struct In<'a, T> {
    /// The elements, in row-major order.
    pub data: &'a [T],
    /// The dims, outermost first (NHWC for TFLite's images).
    pub shape: &'static [usize],
    /// Its quantization, if the model gives one.
    pub quantization: Option<&'static Quantization>,
}

/// A tensor an operator writes: its elements, dims and quantization.
#[derive(Debug)]
pub struct Out<'a, T> {
    /// The elements, in row-major order.
    pub data: &'a mut [T],
    /// The dims, outermost first.
    pub shape: &'static [usize],
    /// Its quantization, if the model gives one.
    pub quantization: Option<&'static Quantization>,
}

/// Which operator of the model: its index in execution order and its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct At {
    /// Its index among the model's operators, from 0.
    pub index: usize,
    /// The step it runs at (the steps of the planned tensors' lifetimes).
    pub step: u32,
}

/// `CONV_2D`'s options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conv2d {
    /// Which operator.
    pub at: At,
    /// Padding.
    pub padding: Padding,
    /// Stride along the width.
    pub stride_w: u32,
    /// Stride along the height.
    pub stride_h: u32,
    /// Dilation along the width.
    pub dilation_w: u32,
    /// Dilation along the height.
    pub dilation_h: u32,
    /// The fused activation.
    pub activation: Activation,
}

/// `DEPTHWISE_CONV_2D`'s options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthwiseConv2d {
    /// Which operator.
    pub at: At,
    /// Padding.
    pub padding: Padding,
    /// Stride along the width.
    pub stride_w: u32,
    /// Stride along the height.
    pub stride_h: u32,
    /// Output channels per input channel.
    pub depth_multiplier: u32,
    /// Dilation along the width.
    pub dilation_w: u32,
    /// Dilation along the height.
    pub dilation_h: u32,
    /// The fused activation.
    pub activation: Activation,
}

/// A pool's options (`AVERAGE_POOL_2D`, `MAX_POOL_2D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pool2d {
    /// Which operator.
    pub at: At,
    /// Padding.
    pub padding: Padding,
    /// Stride along the width.
    pub stride_w: u32,
    /// Stride along the height.
    pub stride_h: u32,
    /// The filter's width.
    pub filter_w: u32,
    /// The filter's height.
    pub filter_h: u32,
    /// The fused activation.
    pub activation: Activation,
}

/// `RESHAPE`'s options: none beyond its tensors (the output's shape is the new one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reshape {
    /// Which operator.
    pub at: At,
}

/// `SOFTMAX`'s options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Softmax {
    /// Which operator.
    pub at: At,
    /// The inverse temperature.
    pub beta: f32,
}

/// `FULLY_CONNECTED`'s options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FullyConnected {
    /// Which operator.
    pub at: At,
    /// The fused activation.
    pub activation: Activation,
    /// Whether the output keeps the input's dims.
    pub keep_num_dims: bool,
}

/// `ADD`'s options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Add {
    /// Which operator.
    pub at: At,
    /// The fused activation.
    pub activation: Activation,
}
