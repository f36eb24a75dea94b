//! The firmware's side of the model: the plan, the kernels behind its generated traits, and
//! one inference. This file is all a user writes to run the model; it names no operator
//! index, step, tensor or shape.
//!
//! The `model` statement reads `person_detect.tflite` at compile time: its 32 planned
//! tensors become buffers of region `act` (placed in SRAM3 by memplan's linker fragment,
//! `build.rs`), its 31 operators the steps of the generated `person::run`, its weights and
//! biases `static` data in flash (copied from the file: the constants the operators read,
//! none of the file's names, shapes or tables), and each operator kind a trait of `person`
//! (`Conv2d`, `DepthwiseConv2d`, `AveragePool2d`, `Reshape`, `Softmax`) that [`Kernels`]
//! implements with the crate's kernels.

use memplan_runtime::ops::{self, In, Out};
use memplan_runtime::{MemoryAllocator, MemoryManager, memory_plan};

use crate::tflite;

memory_plan! {
    /// The working memory of one inference of TFLM's person detection model.
    pub mod person {
        // The activations: 54 KiB is 55,296 bytes, the lower bound (the most bytes live at
        // one step), so the build fails if the plan needs one byte more.
        region act: 54 KiB, memory SRAM3;
        // The kernels' i32s (requantization, accumulators), one operator at a time.
        temp: 3 KiB, memory SRAM3;
        model in act from "../../data/tflite/person_detect.tflite";
    }
}

/// The planned manager's type.
pub type Manager = MemoryManager<'static, person::Plan>;

/// The crate's int8 kernels, one per operator kind the model runs.
pub struct Kernels;

impl person::Conv2d for Kernels {
    fn conv_2d(
        &mut self,
        op: &ops::Conv2d,
        input: In<'_, i8>,
        filter: In<'_, i8>,
        bias: Option<In<'_, i32>>,
        output: Out<'_, i8>,
        temp: &mut MemoryAllocator<'static>,
    ) {
        tflite::conv_2d(op, input, filter, bias, output, temp);
    }
}

impl person::DepthwiseConv2d for Kernels {
    fn depthwise_conv_2d(
        &mut self,
        op: &ops::DepthwiseConv2d,
        input: In<'_, i8>,
        filter: In<'_, i8>,
        bias: Option<In<'_, i32>>,
        output: Out<'_, i8>,
        temp: &mut MemoryAllocator<'static>,
    ) {
        tflite::depthwise_conv_2d(op, input, filter, bias, output, temp);
    }
}

impl person::AveragePool2d for Kernels {
    fn average_pool_2d(
        &mut self,
        op: &ops::Pool2d,
        input: In<'_, i8>,
        output: Out<'_, i8>,
        temp: &mut MemoryAllocator<'static>,
    ) {
        tflite::average_pool_2d(op, input, output, temp);
    }
}

impl person::Reshape for Kernels {
    fn reshape(
        &mut self,
        _: &ops::Reshape,
        input: In<'_, i8>,
        output: Out<'_, i8>,
        _: &mut MemoryAllocator<'static>,
    ) {
        tflite::reshape(input, output);
    }
}

impl person::Softmax for Kernels {
    fn softmax(
        &mut self,
        op: &ops::Softmax,
        input: In<'_, i8>,
        output: Out<'_, i8>,
        _: &mut MemoryAllocator<'static>,
    ) {
        tflite::softmax(op, input, output);
    }
}

/// One inference: `image` (the model's int8 input, as TFLM's test feeds it: the BMP's
/// pixels, each byte reinterpreted as int8) in, the model's output into `scores`
/// (`[no person, person]`, int8, scale 1/256, zero point -128).
///
/// # Panics
///
/// If `image` or `scores` is not the size of the model's input or output.
pub fn infer(manager: &mut Manager, image: &[u8], scores: &mut [i8]) {
    person::run(
        manager,
        &mut Kernels,
        |input| {
            assert_eq!(image.len(), input.len(), "person-detect: the image's size");
            for (x, &b) in input.iter_mut().zip(image) {
                *x = b as i8;
            }
        },
        |output| scores.copy_from_slice(output),
    );
}
