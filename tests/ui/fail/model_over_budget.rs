// A model of 3,820 bytes whose control flow makes TensorFlow Lite Micro's walk visit 12.6
// million operators (a `CALL_ONCE` in each of 20 subgraphs runs the next twice:
// memplan-planner's tests/model_budget.rs makes it) is refused within its budget, naming the
// operator, instead of taking gigabytes inside the compiler.
memplan_runtime::memory_plan! {
    mod scheduled {
        region act: 64 KiB;
        model in act from "../nested_calls.tflite";
    }
}

memplan_runtime::memory_plan! {
    mod planned {
        region act: 64 KiB;
        buffers in act from "../nested_calls.tflite";
    }
}

fn main() {}
