// A constant whose data is shorter than its shape says (hello_world with its first int32
// bias one byte short: memplan-planner's tests/model_hostile.rs makes it) would be read past
// by a kernel that trusts the shape: the model is refused, naming the tensor and the
// operator that reads it, through a `model` statement and through `buffers from` alike.
memplan_runtime::memory_plan! {
    mod scheduled {
        region act: 64 KiB;
        model in act from "../hello_ragged_bias.tflite";
    }
}

memplan_runtime::memory_plan! {
    mod planned {
        region act: 64 KiB;
        buffers in act from "../hello_ragged_bias.tflite";
    }
}

fn main() {}
