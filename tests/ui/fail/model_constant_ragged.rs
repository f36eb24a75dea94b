// A constant whose data is not a whole number of its elements (hello_world with its first
// int32 bias one byte short: memplan-planner's tests/model_hostile.rs makes it) cannot be
// handed to a kernel as a slice of them.
memplan_runtime::memory_plan! {
    mod scheduled {
        region act: 64 KiB;
        model in act from "../hello_ragged_bias.tflite";
    }
}

fn main() {}
