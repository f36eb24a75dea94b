// Every faulty tensor and operator of a model is an error of its own, in one build, through
// a `model` statement and through `buffers from` alike. `../hello_faults.tflite` is
// hello_world with five faults (memplan-planner's tests/model_hostile.rs makes it).
memplan_runtime::memory_plan! {
    mod scheduled {
        region act: 64 KiB;
        model in act from "../hello_faults.tflite";
    }
}

memplan_runtime::memory_plan! {
    mod planned {
        region act: 64 KiB;
        buffers in act from "../hello_faults.tflite";
    }
}

fn main() {}
