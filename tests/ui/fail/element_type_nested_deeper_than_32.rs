// An element type nested deeper than the macro parses: a type alias names it instead.
use memplan_runtime::memory_plan;

memory_plan! {
    mod m {
        region r: 64 bytes;
        buffer deep: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[u8; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1] as 8 bytes in r, live 0..=0, align 1;
    }
}

fn main() {}
