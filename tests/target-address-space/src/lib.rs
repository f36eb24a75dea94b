//! The target's address space bounds only what is emitted. With the feature `big-plan`, a
//! plan of 5 GiB in one region: the macro plans it on the (64-bit) build machine and emits
//! its sizes through `to_usize`, evaluated for the target, so for a 32-bit target the
//! build fails with "memplan: the plan needs more bytes than the target's address space".
//! Without it, a region of 8 GiB capacity holding a 16-byte plan: it builds for a 32-bit
//! target (the capacity is a bound, not an object).
#![no_std]

#[cfg(feature = "big-plan")]
memplan_runtime::memory_plan! {
    pub mod big {
        region ext: 8192 MiB, kind external;
        buffer frames: 5120 MiB in ext, live 0..=1;
    }
}

#[cfg(not(feature = "big-plan"))]
memplan_runtime::memory_plan! {
    pub mod small {
        region ext: 8192 MiB, kind external;
        buffer frames: 16 bytes in ext, live 0..=1;
    }
}

/// The small plan's capacity as the target sees it (saturated at `usize::MAX` on 32 bits).
#[cfg(not(feature = "big-plan"))]
pub const CAPACITY: usize = <small::Ext as memplan_runtime::MemoryId>::CAPACITY;
