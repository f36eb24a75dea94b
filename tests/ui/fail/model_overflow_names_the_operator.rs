// A model whose tensors do not fit the region: the overflow names the tensors live at the
// peak and the operator that runs there (person detection's peak, 55,296 bytes, is at
// step 3, where operator 2, its first pointwise `CONV_2D`, runs).
memplan_runtime::memory_plan! {
    mod person {
        region act: 48 KiB;
        model in act from "../../../examples/data/tflite/person_detect.tflite";
    }
}

fn main() {}
