// A `model` statement runs the model's schedule: the generated `run` calls, operator by
// operator in order, the kernel of each operator's kind (a trait per kind the model runs,
// declared in the plan's module) with the operator's options, its tensors (planned buffers
// from the step's view, weights and biases from the model's constants) and the temp pool. The
// user writes no step, tensor name or shape. Here the kernels only record what they get.
use memplan_runtime::MemoryAllocator;
use memplan_runtime::ops::{self, In, Out};

memplan_runtime::memory_plan! {
    mod person {
        region act: 64 KiB;
        temp: 1 KiB;
        model in act from "../../../examples/data/tflite/person_detect.tflite";
    }
}

#[derive(Default)]
struct Recorder {
    calls: Vec<(usize, &'static str, Vec<usize>)>,
}

impl Recorder {
    fn record(&mut self, at: ops::At, kind: &'static str, output_shape: &[usize]) {
        self.calls.push((at.index, kind, output_shape.to_vec()));
    }
}

impl person::Conv2d for Recorder {
    fn conv_2d(&mut self, op: &ops::Conv2d, input: In<'_, i8>, filter: In<'_, i8>, bias: Option<In<'_, i32>>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        // A 1x1 pointwise convolution: the filter is [out, 1, 1, in], one bias per output.
        assert_eq!(filter.shape[3], *input.shape.last().unwrap());
        assert_eq!(bias.unwrap().data.len(), filter.shape[0]);
        assert_eq!(filter.quantization.unwrap().scale.len(), filter.shape[0]);
        assert_eq!(output.data.len(), output.shape.iter().product::<usize>());
        if op.at.index == 28 {
            output.data.copy_from_slice(&[7, 9]);
        }
        self.record(op.at, "conv", output.shape);
    }
}

impl person::DepthwiseConv2d for Recorder {
    fn depthwise_conv_2d(&mut self, op: &ops::DepthwiseConv2d, input: In<'_, i8>, filter: In<'_, i8>, bias: Option<In<'_, i32>>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        assert_eq!(input.data.len(), input.shape.iter().product::<usize>());
        assert_eq!(filter.shape[1..3], [3, 3]);
        assert!(bias.is_some());
        assert!(op.stride_w == 1 || op.stride_w == 2);
        self.record(op.at, "depthwise", output.shape);
    }
}

impl person::AveragePool2d for Recorder {
    fn average_pool_2d(&mut self, op: &ops::Pool2d, _: In<'_, i8>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        self.record(op.at, "pool", output.shape);
    }
}

impl person::Reshape for Recorder {
    fn reshape(&mut self, op: &ops::Reshape, input: In<'_, i8>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        output.data.copy_from_slice(input.data);
        self.record(op.at, "reshape", output.shape);
    }
}

impl person::Softmax for Recorder {
    fn softmax(&mut self, op: &ops::Softmax, input: In<'_, i8>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        assert_eq!(op.beta, 1.0);
        assert_eq!(input.data, [7, 9]); // what the reshape copied from the last convolution
        output.data.copy_from_slice(&[1, 2]);
        self.record(op.at, "softmax", output.shape);
    }
}

fn main() {
    let manager = person::take().expect("taken once");
    let mut k = Recorder::default();
    let mut scores = [0i8; 2];
    person::run(manager, &mut k, |image| image.fill(3), |out| scores = *out);
    // TFLite Micro's person detection model: 31 operators, MobileNet v1 0.25 on 96x96x1:
    // a depthwise 3x3 first layer (stride 2: 48x48x8), 13 depthwise-separable blocks, an
    // average pool to 1x1x256, a 1x1 convolution to 2 classes, a reshape and a softmax.
    assert_eq!(k.calls.len(), 31);
    assert!(k.calls.iter().enumerate().all(|(i, c)| c.0 == i));
    assert_eq!(k.calls[0], (0, "depthwise", vec![1, 48, 48, 8]));
    assert_eq!(k.calls[2], (2, "conv", vec![1, 48, 48, 16]));
    assert_eq!(k.calls[27], (27, "pool", vec![1, 1, 1, 256]));
    assert_eq!(k.calls[28], (28, "conv", vec![1, 1, 1, 2]));
    assert_eq!(k.calls[29].1, "reshape");
    assert_eq!(k.calls[30], (30, "softmax", vec![1, 2]));
    assert_eq!(scores, [1, 2]);
}
