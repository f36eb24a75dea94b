// The manager is the only path to a plan's arenas. The arenas are private statics
// of the generated module: user code cannot name them, so no second `&'static mut` to the
// same bytes can exist once `take()` has handed out the manager.
memplan_runtime::memory_plan! {
    pub mod m {
        region sram: 1 KiB;
        buffer a: 64 bytes in sram, live 0..=1;
    }
}

fn main() {
    let _manager = m::take();
    let _bytes = &m::__MEMPLAN_ARENA_0;
}
