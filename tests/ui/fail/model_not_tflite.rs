// A `model` statement given something other than a .tflite model says what the file is.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1 MiB;
        model in act from "../plans_small.csv";
        model in act from "../../../examples/data/pte/transformer_encoder.pte";
    }
}

fn main() {}
