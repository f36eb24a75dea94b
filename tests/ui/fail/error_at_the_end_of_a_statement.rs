// An error about something missing at the end of a statement points at its `;`, not at
// the whole invocation.
memplan_runtime::memory_plan! {
    mod m {
        region q: ;
        region r: 64 bytes;
        buffer a: 8 bytes in r, live 0..;
    }
}
fn main() {}
