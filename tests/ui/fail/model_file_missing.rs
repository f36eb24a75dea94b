// A missing model is a "model file" in the message (not a plan file), and an absolute path
// is not said to be looked for "next to the source file".
memplan_runtime::memory_plan! {
    mod person {
        region act: 64 KiB;
        model in act from "/nonexistent/memplan/person_detect.tflite";
    }
}

memplan_runtime::memory_plan! {
    mod relative {
        region act: 64 KiB;
        buffers in act from "no_such_model.tflite";
    }
}

fn main() {}
