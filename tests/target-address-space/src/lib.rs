//! A plan of 5 GiB in one region. The macro plans it on the (64-bit) build machine, and
//! emits its sizes through `to_usize`, evaluated for the target: for a 32-bit target the
//! build fails with "memplan: the plan needs more bytes than the target's address space".
#![no_std]

memplan_runtime::memory_plan! {
    pub mod big {
        region ext: 8192 MiB, kind external;
        buffer frames: 5120 MiB in ext, live 0..=1;
    }
}
