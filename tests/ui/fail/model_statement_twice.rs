// A second `model` statement is one error: its tensors are not declared too (the same
// file read twice would name every tensor again).
memplan_runtime::memory_plan! {
    mod m {
        region act: 64 KiB;
        model in act from "../../../examples/data/tflite/hello_world_int8.tflite";
        model in act from "../../../examples/data/tflite/hello_world_int8.tflite";
    }
}

fn main() {}
