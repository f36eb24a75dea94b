// A model with an operator memplan generates no schedule for (Vela's `ethos-u` NPU
// operator): one error on the path, naming the operator and saying what to do instead.
memplan_runtime::memory_plan! {
    mod npu {
        region act: 128 KiB;
        model in act from "../../../examples/data/tflite/person_detect_vela.tflite";
    }
}

fn main() {}
