// A model is a plan's input as a plan file is: `buffers from` a `.tflite` model plans the
// tensors TensorFlow Lite Micro plans, and a `.pte` program the tensors ExecuTorch plans,
// each typed by its element type (int8 tensors are `[i8; N]`, float32 ones `[f32; N]`), with
// the lifetimes the runtime gives them. Told apart by content, not by the extension.
use memplan_runtime::{MemoryId, memory_plan};

memory_plan! {
    mod person {
        region act: 64 KiB;
        buffers in act from "../../../examples/data/tflite/person_detect.tflite";
    }
}

memory_plan! {
    mod kws {
        region act: 64000 bytes;
        buffers in act from "../../../examples/data/pte/kws_dscnn.pte";
    }
}

fn main() {
    // 32 planned tensors, at most 55,296 bytes live at once (TensorFlow Lite Micro's arena
    // head for this model is the same), and the default strategy reaches it.
    assert_eq!(person::BUFFERS.len(), 32);
    assert_eq!(<person::Act as MemoryId>::SIZE, 55_296);
    let m = person::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    let image: &mut [i8; 96 * 96] = s.input;
    image[0] = -128;
    // kws_dscnn's input, value 65: float32 [1, 1, 49, 10] (1,960 bytes), live at step 0.
    let m = kws::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    let mfcc: &mut [f32; 490] = s.value_65;
    mfcc[0] = 0.5;
    assert_eq!(<kws::Act as MemoryId>::SIZE, 64_000);
}
