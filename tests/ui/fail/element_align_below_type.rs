// An explicit alignment below the element type's would make typed access fail inside the
// runtime (`[u64; 2]` at an odd offset): it is an error at the clause.
use memplan_runtime::memory_plan;

memory_plan! {
    mod m {
        region r: 64 bytes, align 1;
        buffer a: [u64; 2] in r, live 0..=0, align 1;
    }
}

fn main() {}
