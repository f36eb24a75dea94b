// A `.pte` program's constant whose data is shorter than its shape says (add.pte with its
// first input made a constant of 3 bytes: memplan-planner's tests/model_hostile.rs makes it)
// is refused, naming the value and the instruction that reads it.
memplan_runtime::memory_plan! {
    mod planned {
        region act: 64 KiB;
        buffers in act from "../add_short_constant.pte";
    }
}

fn main() {}
