//! The runtime of memplan: the allocators a firmware links, after ExecuTorch's
//! (`runtime/core/memory_allocator.h`, `hierarchical_allocator.h`,
//! `runtime/executor/memory_manager.h`), over memory that `memory_plan!` planned at
//! compile time.
//!
//! `#![no_std]`, no `alloc`, no mutable statics (interior mutability only); every size is in
//! bytes.
//!
//! - [`MemoryAllocator`]: a bump allocator over one buffer. Alignment is measured on the
//!   address, every sum is overflow-checked, a failed request changes nothing, and a
//!   high-water mark tells how much of a pool a real run used.
//! - [`HierarchicalAllocator`]: one buffer per memory id (a region).
//!   [`get_offset_address`](HierarchicalAllocator::get_offset_address) is bounds-checked
//!   without wraparound; [`buffer::<B>()`](HierarchicalAllocator::buffer) looks up a planned
//!   buffer by its generated type, checked at compile time, for the cost of base + constant.
//! - [`MemoryManager`]: constant, planned (non-constant), runtime and kernel-temporary
//!   allocators, owned; [`with_temp`](MemoryManager::with_temp) scopes the kernel-temporary
//!   pool to a closure.
//! - [`Plan`], [`MemoryId`], [`PlannedBuffer`]: the typed ids `memory_plan!` generates, with
//!   the tables [`RegionInfo`] and [`BufferInfo`].
//! - [`TakeOnce`]: hands a `static` out as `&'static mut` once.
//!
//! # Using it without the macro
//!
//! ```
//! use core::mem::MaybeUninit;
//! use memplan_runtime::{HierarchicalAllocator, MemoryAllocator, MemoryManager, Span};
//!
//! let mut sram = [MaybeUninit::<u8>::uninit(); 4096];
//! let mut runtime = [MaybeUninit::<u8>::uninit(); 512];
//! let mut temp = [MaybeUninit::<u8>::uninit(); 256];
//! let mut spans = [Span::new(&mut sram)];
//!
//! let mut manager = MemoryManager::new(
//!     MemoryAllocator::empty(),                 // constant: none
//!     HierarchicalAllocator::new(&mut spans),   // planned: memory id 0
//!     MemoryAllocator::new(&mut runtime),
//!     MemoryAllocator::new(&mut temp),
//! );
//!
//! // A planned buffer at offset 1024, 256 bytes, found the data-driven way.
//! let conv1 = manager.planned().get_offset_address(0, 1024, 256)?;
//! // Program-lifetime state from the runtime pool.
//! let state = manager.runtime().allocate_value([0u32; 8])?;
//! state[0] = 1;
//! // Kernel scratch, freed when the closure returns.
//! manager.with_temp(|temp| -> Result<(), memplan_runtime::Error> {
//!     let scratch = temp.allocate_list::<f32>(32)?;
//!     scratch[0].write(0.5);
//!     Ok(())
//! })?;
//! assert_eq!(manager.temp().used(), 0);
//! # let _ = conv1;
//! # Ok::<(), memplan_runtime::Error>(())
//! ```
//!
//! With `memory_plan!` (feature `macros`, on by default) the arenas are statics sized by the
//! plan, the manager is built in a `const` context, and `take()` hands it out once.
//!
//! # Take-once backends
//!
//! [`TakeOnce::take`] sets a flag that must be read and written in one indivisible step.
//! Which primitive does that is chosen by feature, as static_cell does:
//!
//! | features | flag | targets |
//! |---|---|---|
//! | none (default) | `core::sync::atomic::AtomicBool::swap` | every target with compare-and-swap: hosts, `thumbv7em-none-eabihf`, `riscv32imac-unknown-none-elf`, ... |
//! | `critical-section` | a `Cell<bool>` inside [`critical_section::with`](https://docs.rs/critical-section) | every target, `thumbv6m-none-eabi` included; the final binary must link one critical-section implementation |
//! | `portable-atomic` | `portable_atomic::AtomicBool::swap` | every target portable-atomic supports; on targets without compare-and-swap configure portable-atomic itself (its `critical-section` feature, or `unsafe-assume-single-core`) |
//!
//! With both features on, `critical-section` wins. On a target without compare-and-swap and
//! neither feature, the crate does not build and says which feature to enable.
//!
//! Critical-section implementations: on a single-core Cortex-M (thumbv6m, thumbv7em)
//! `cortex-m = { features = ["critical-section-single-core"] }` (masks interrupts); on a
//! single-hart RISC-V `riscv = { features = ["critical-section-single-hart"] }`; on a
//! multi-core chip the HAL's implementation (e.g. `rp2040-hal`'s hardware spinlock); on a
//! host `critical-section = { features = ["std"] }`. A single-core implementation on a
//! multi-core chip is unsound for every crate that uses it, not only this one.
//!
//! # Interrupts and cores
//!
//! - [`TakeOnce::take`] may be called at the same time from thread mode, any interrupt
//!   handler and any core (with a multi-core-safe backend as above): exactly one call gets
//!   `Some`. It never blocks except for the length of a critical section.
//! - The allocators ([`MemoryAllocator`], [`MemoryManager`]) are `Send` and not `Sync`:
//!   the cursor is a plain `Cell`, with no atomic and no lock on the fast path. Safe code
//!   cannot share one between an interrupt handler and the code it interrupts, or between
//!   cores, because a `static` needs `Sync`. To use a manager from an interrupt handler,
//!   move it there (an RTIC `#[local]` resource, or take it inside the handler), or wrap it
//!   in `critical_section::Mutex<RefCell<_>>` and allocate inside the critical section.
//! - A handler that preempts the owner cannot reach the allocator, so `allocate` needs no
//!   reentrancy protection; a reset needs `&mut` and so cannot run while any reference the
//!   allocator handed out is alive.
//! - [`HierarchicalAllocator`] is `Sync`: it only gives out raw pointers. Which buffers a
//!   handler may touch at which step is the schedule's business (the plan guarantees that
//!   buffers live at the same step are disjoint).
//!
//! # `allocator-api2` collections (feature `allocator-api2`)
//!
//! `&MemoryAllocator` implements [`allocator_api2::alloc::Allocator`](https://docs.rs/allocator-api2),
//! so `allocator_api2::vec::Vec::new_in(&pool)` keeps a vector in a planned pool. A block
//! that is freed or resized while it is the last one handed out gives its bytes back (a
//! growing vector grows in place); other frees wait for [`MemoryAllocator::reset`].
//!
//! What a `no_std` firmware needs for that:
//! - The trait alone needs only `core`: this crate depends on `allocator-api2` with
//!   `default-features = false`.
//! - The collections (`Vec`, `Box`) need `allocator-api2 = { default-features = false,
//!   features = ["alloc"] }`, which links the `alloc` crate.
//! - A binary that links `alloc` must define a `#[global_allocator]`, even if every
//!   collection uses a memplan pool: rustc requires one whenever `alloc` is linked. A stub
//!   whose `alloc` returns null is enough when nothing uses the global heap.
//! - A collection whose pool is full calls `alloc::alloc::handle_alloc_error`, which panics
//!   in `no_std` (so the panic handler runs); use `try_reserve` to get an error instead.
//!
//! # Soundness
//!
//! Every `unsafe` block carries a `// SAFETY:` comment; `Send`/`Sync` facts are pinned with
//! `static_assertions` and `compile_fail` doctests; the tests run under Miri with
//! `-Zmiri-strict-provenance` on a 64-bit and a 32-bit target (`.ci/runtime-checks.sh`).
//! All pointers keep the provenance of the buffer they were made from (no integer-to-pointer
//! casts).

#![no_std]
#![warn(missing_docs)]

mod allocator;
#[cfg(feature = "allocator-api2")]
mod api2;
mod arena;
mod error;
mod hierarchical;
mod manager;
pub mod ops;
mod plan;
pub mod steps;
mod take_once;

/// What generated code calls: not an API. Named after this crate's version, which the
/// macro that generates the calls pins exactly, so code from another version of the
/// macro does not build against it.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private_0_1_0;

pub use allocator::MemoryAllocator;
pub use arena::MAX_ALIGN;
pub use error::{Error, PlanMismatch};
pub use hierarchical::{HierarchicalAllocator, Span};
pub use manager::{MemoryManager, Parts};
pub use plan::{BufferInfo, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind, Untyped};
pub use steps::{
    InPlace, Live, LiveBuffers, LiveBytes, Schedule, Step, StepOf, View, Walk, Walked,
};
pub use take_once::TakeOnce;

#[cfg(feature = "macros")]
pub use memplan_macros::memory_plan;
