// Kernels that lack an operator kind the model runs: one error naming the operator, the
// model and where it runs (here `AVERAGE_POOL_2D`, operator 27 of person detection).
use memplan_runtime::MemoryAllocator;
use memplan_runtime::ops::{self, In, Out};

memplan_runtime::memory_plan! {
    mod person {
        region act: 64 KiB;
        model in act from "../../../examples/data/tflite/person_detect.tflite";
    }
}

struct Kernels;

impl person::Conv2d for Kernels {
    fn conv_2d(&mut self, _: &ops::Conv2d, _: In<'_, i8>, _: In<'_, i8>, _: Option<In<'_, i32>>, _: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {}
}
impl person::DepthwiseConv2d for Kernels {
    fn depthwise_conv_2d(&mut self, _: &ops::DepthwiseConv2d, _: In<'_, i8>, _: In<'_, i8>, _: Option<In<'_, i32>>, _: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {}
}
impl person::Reshape for Kernels {
    fn reshape(&mut self, _: &ops::Reshape, _: In<'_, i8>, _: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {}
}
impl person::Softmax for Kernels {
    fn softmax(&mut self, _: &ops::Softmax, _: In<'_, i8>, _: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {}
}

fn main() {
    let m = person::take().unwrap();
    person::run(m, &mut Kernels, |_| {}, |_| {});
}
