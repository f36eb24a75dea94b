//! [`MemoryManager`]: the four allocators of ExecuTorch's original
//! `runtime/executor/memory_manager.h`.

use core::fmt;

use crate::plan::{Plan, Untyped};
use crate::{HierarchicalAllocator, MemoryAllocator};

/// The memory of one program, as ExecuTorch's original `MemoryManager`: four allocators,
/// owned.
///
/// | allocator | ExecuTorch | what it holds |
/// |---|---|---|
/// | [`constant`](Self::constant) | constant allocator | data fixed after load |
/// | [`planned`](Self::planned) | non-constant (`HierarchicalAllocator`) | planned buffers at planned offsets |
/// | [`runtime`](Self::runtime) | runtime allocator | objects that live as long as the program |
/// | [`temp`](Self::temp) | kernel-temporary allocator | scratch of one kernel, reset after it |
///
/// The manager owns each allocator, and each allocator exclusively borrows its own bytes,
/// so the runtime and kernel-temporary allocators are distinct objects over distinct memory
/// by construction (current ExecuTorch checks this at run time).
/// [`with_temp`](Self::with_temp) resets the kernel-temporary pool around a closure, and the
/// borrow checker keeps every temporary allocation inside it:
///
/// ```compile_fail,E0521
/// use core::mem::MaybeUninit;
/// use memplan_runtime::{HierarchicalAllocator, MemoryAllocator, MemoryManager};
///
/// let mut t = [MaybeUninit::<u8>::uninit(); 64];
/// let mut manager = MemoryManager::new(
///     MemoryAllocator::empty(),
///     HierarchicalAllocator::new(&mut []),
///     MemoryAllocator::empty(),
///     MemoryAllocator::new(&mut t),
/// );
/// let mut leaked = None;
/// manager.with_temp(|temp| leaked = Some(temp.allocate_instance::<u32>().unwrap()));
/// ```
///
/// The manager is `Send` (move it to the context that runs the program) and not `Sync`:
///
/// ```compile_fail,E0277
/// fn shared<T: Sync>() {}
/// shared::<memplan_runtime::MemoryManager<'static>>();
/// ```
pub struct MemoryManager<'a, P: Plan = Untyped> {
    constant: MemoryAllocator<'a>,
    planned: HierarchicalAllocator<'a, P>,
    runtime: MemoryAllocator<'a>,
    temp: MemoryAllocator<'a>,
}

static_assertions::assert_impl_all!(MemoryManager<'static>: Send);
static_assertions::assert_not_impl_any!(MemoryManager<'static>: Sync, Clone);

/// Exclusive borrows of all four allocators at once, from [`MemoryManager::parts`], so a
/// kernel can use planned buffers and the temp pool together.
#[derive(Debug)]
#[non_exhaustive]
pub struct Parts<'m, 'a, P: Plan = Untyped> {
    /// Constant allocator.
    pub constant: &'m mut MemoryAllocator<'a>,
    /// Planned (non-constant) memory.
    pub planned: &'m mut HierarchicalAllocator<'a, P>,
    /// Runtime allocator.
    pub runtime: &'m mut MemoryAllocator<'a>,
    /// Kernel-temporary allocator.
    pub temp: &'m mut MemoryAllocator<'a>,
}

impl<'a, P: Plan> MemoryManager<'a, P> {
    /// A manager of four allocators, in ExecuTorch's original order: constant, planned
    /// (non-constant), runtime, kernel-temporary.
    pub const fn new(
        constant: MemoryAllocator<'a>,
        planned: HierarchicalAllocator<'a, P>,
        runtime: MemoryAllocator<'a>,
        temp: MemoryAllocator<'a>,
    ) -> Self {
        MemoryManager {
            constant,
            planned,
            runtime,
            temp,
        }
    }

    /// The constant allocator.
    #[inline]
    pub const fn constant(&self) -> &MemoryAllocator<'a> {
        &self.constant
    }

    /// The constant allocator, exclusively (to reset it).
    #[inline]
    pub const fn constant_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.constant
    }

    /// The planned (non-constant) memory: one buffer per memory id.
    #[inline]
    pub const fn planned(&self) -> &HierarchicalAllocator<'a, P> {
        &self.planned
    }

    /// The runtime allocator.
    #[inline]
    pub const fn runtime(&self) -> &MemoryAllocator<'a> {
        &self.runtime
    }

    /// The runtime allocator, exclusively (to reset it).
    #[inline]
    pub const fn runtime_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.runtime
    }

    /// The kernel-temporary allocator, for code that resets it by hand as ExecuTorch does.
    /// Prefer [`with_temp`](Self::with_temp).
    #[inline]
    pub const fn temp(&self) -> &MemoryAllocator<'a> {
        &self.temp
    }

    /// The kernel-temporary allocator, exclusively (to reset it).
    #[inline]
    pub const fn temp_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.temp
    }

    /// Runs `f` with the kernel-temporary pool, reset before `f` (so `f` starts with the
    /// whole pool, even after allocations made outside) and after it (so nothing `f`
    /// allocated outlives it; the borrow checker rejects any escape).
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// use memplan_runtime::{HierarchicalAllocator, MemoryAllocator, MemoryManager};
    ///
    /// #[repr(align(4))]
    /// struct Pool([MaybeUninit<u8>; 256]);
    ///
    /// let mut t = Pool([MaybeUninit::uninit(); 256]);
    /// let mut manager = MemoryManager::new(
    ///     MemoryAllocator::empty(),
    ///     HierarchicalAllocator::new(&mut []),
    ///     MemoryAllocator::empty(),
    ///     MemoryAllocator::new(&mut t.0),
    /// );
    /// let sum = manager.with_temp(|temp| {
    ///     let scratch = temp.allocate_list::<u32>(64).unwrap();
    ///     for (i, x) in scratch.iter_mut().enumerate() {
    ///         x.write(i as u32);
    ///     }
    ///     // SAFETY: every element was written above.
    ///     scratch.iter().map(|x| unsafe { x.assume_init() }).sum::<u32>()
    /// });
    /// assert_eq!(sum, 63 * 64 / 2);
    /// assert_eq!(manager.temp().used(), 0);
    /// assert_eq!(manager.temp().high_water(), 256);
    /// ```
    pub fn with_temp<R>(&mut self, f: impl FnOnce(&MemoryAllocator<'a>) -> R) -> R {
        self.temp.scoped(f)
    }

    /// All four allocators at once, exclusively borrowed.
    #[inline]
    pub const fn parts(&mut self) -> Parts<'_, 'a, P> {
        Parts {
            constant: &mut self.constant,
            planned: &mut self.planned,
            runtime: &mut self.runtime,
            temp: &mut self.temp,
        }
    }

    /// The four allocators, by value: (constant, planned, runtime, kernel-temporary).
    pub fn into_parts(
        self,
    ) -> (
        MemoryAllocator<'a>,
        HierarchicalAllocator<'a, P>,
        MemoryAllocator<'a>,
        MemoryAllocator<'a>,
    ) {
        (self.constant, self.planned, self.runtime, self.temp)
    }
}

impl<P: Plan> fmt::Debug for MemoryManager<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryManager")
            .field("constant", &self.constant)
            .field("planned", &self.planned)
            .field("runtime", &self.runtime)
            .field("temp", &self.temp)
            .finish()
    }
}
