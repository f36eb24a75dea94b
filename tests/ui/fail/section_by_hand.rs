// A section name is memplan's to choose: a user-chosen one could be a section the loader
// treats as code or constructors (`.init_array`: the zeroed arena would be run as eight null
// constructor pointers before `main`).
use memplan_runtime::memory_plan;

memory_plan! {
    mod m {
        region sram: 64 bytes, section ".init_array";
        buffer a: 16 bytes in sram, live 0..=0;
    }
}

fn main() {}
