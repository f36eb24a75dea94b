//! [`MemoryAllocator`]: the bump allocator, after ExecuTorch's
//! `runtime/core/memory_allocator.h`.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::mem::{self, MaybeUninit};
use core::ptr::NonNull;

use crate::Error;

/// A bump allocator over one buffer, as ExecuTorch's `MemoryAllocator`.
///
/// Each [`allocate`](Self::allocate) hands out the next `size` bytes after the cursor, at
/// an **address** that is a multiple of the alignment (the base need not be aligned), and
/// moves the cursor past them. Nothing is freed one by one: [`reset`](Self::reset) frees
/// everything at once. All sizes are in bytes.
///
/// Guarantees:
/// - A failed request returns an [`Error`] and changes nothing: [`used`](Self::used),
///   [`free`](Self::free) and [`high_water`](Self::high_water) are as before.
/// - All arithmetic is overflow-checked; a request whose end would not fit a `usize` is
///   [`Error::Overflow`], never a wrapped pointer.
/// - An alignment that is not a power of two is [`Error::InvalidAlignment`].
/// - A zero-size request never fails (but for an invalid alignment) and does not move the
///   cursor: it returns an aligned pointer inside (or one past the end of) the buffer when
///   there is one after the cursor, and otherwise a dangling pointer with that alignment,
///   valid for zero bytes (an empty allocator, a full one, a large alignment).
///
/// The cursor lives in a [`Cell`], so allocating takes `&self` and the allocator is `Send`
/// but not `Sync`: one execution context allocates at a time, with no lock and no atomic
/// (see the crate docs, "Interrupts and cores"). References handed out by
/// [`allocate_instance`](Self::allocate_instance) and [`allocate_list`](Self::allocate_list)
/// borrow the allocator, so [`reset`](Self::reset), which takes `&mut self`, cannot run
/// while one is alive:
///
/// ```compile_fail,E0502
/// use core::mem::MaybeUninit;
/// use memplan_runtime::MemoryAllocator;
///
/// let mut buf = [MaybeUninit::<u8>::uninit(); 64];
/// let mut pool = MemoryAllocator::new(&mut buf);
/// let x = pool.allocate_instance::<u32>().unwrap();
/// pool.reset(); // error: `pool` is still borrowed by `x`
/// x.write(1);
/// ```
///
/// A bump allocator cannot be shared between threads without a lock:
///
/// ```compile_fail,E0277
/// fn shared<T: Sync>(_: &T) {}
/// let mut buf = [core::mem::MaybeUninit::<u8>::uninit(); 64];
/// shared(&memplan_runtime::MemoryAllocator::new(&mut buf)); // error: the cursor `Cell` is not `Sync`
/// ```
///
/// Values placed in the buffer are never dropped; `reset` forgets them.
pub struct MemoryAllocator<'a> {
    /// Start of the buffer; valid for reads and writes of `size` bytes for `'a`, and no
    /// one else accesses those bytes while the allocator lives.
    base: NonNull<u8>,
    /// One past the last byte: `base + size`, same provenance.
    end: NonNull<u8>,
    /// Length of the buffer in bytes.
    size: usize,
    /// The cursor, kept as the last byte in use: `next - 1`, where `next` is the first free
    /// byte (`base - 1` when nothing is allocated), with `base`'s provenance; never
    /// dereferenced. `base - 1 <= last < end`.
    ///
    /// Why `next - 1`: the next aligned start is `(last | mask) + 1`, so a request's new
    /// `last` is `(last | mask) + size`, two operations on the loop-carried chain (as
    /// bumpalo's downward bump), where `next` needs three (add, and, add). A pointer, not an
    /// address, so that it can be set up in a `const` context.
    last: Cell<*mut u8>,
    /// Highest [`used`](Self::used) seen before the last [`reset`](Self::reset); the
    /// high-water mark is `max(peak, used)` because `used` only grows between resets.
    peak: Cell<usize>,
    _buffer: PhantomData<&'a mut [MaybeUninit<u8>]>,
}

// SAFETY: the allocator owns exclusive access to its buffer for `'a`, like the
// `&'a mut [MaybeUninit<u8>]` it is made from, which is `Send`; its raw pointers (base, end,
// cursor) point into that buffer and move with it. Every reference it hands out borrows
// `&self`, so none is alive when the allocator moves to another thread; raw pointers from
// `allocate` carry no such promise, and their use across threads is the caller's `unsafe`
// business, as for any raw pointer.
unsafe impl Send for MemoryAllocator<'_> {}

static_assertions::assert_impl_all!(MemoryAllocator<'static>: Send);
static_assertions::assert_not_impl_any!(MemoryAllocator<'static>: Sync, Clone);

impl<'a> MemoryAllocator<'a> {
    /// A bump allocator over `buffer`; its size is `buffer.len()` bytes.
    ///
    /// The allocator borrows `buffer` exclusively for `'a`. Alignment is measured on
    /// addresses, so `buffer` may start anywhere.
    pub const fn new(buffer: &'a mut [MaybeUninit<u8>]) -> Self {
        let size = buffer.len();
        let ptr = buffer.as_mut_ptr().cast::<u8>();
        // SAFETY: a slice's data pointer is never null (it is dangling and aligned when the
        // slice is empty).
        let base = unsafe { NonNull::new_unchecked(ptr) };
        // SAFETY: the exclusive borrow makes the `size` bytes at `base` ours for `'a`.
        unsafe { Self::from_raw_parts(base, size) }
    }

    /// A bump allocator over an initialized byte buffer.
    ///
    /// # Safety
    ///
    /// Values written through the allocator may leave bytes uninitialized (padding, or a
    /// `MaybeUninit::uninit()` written into an
    /// [`allocate_instance`](Self::allocate_instance) slot). After `'a`, the caller must not
    /// read `buffer` as `u8` unless every byte it reads was written with an initialized
    /// value in the meantime. [`new`](Self::new) over `&mut [MaybeUninit<u8>]` has no such
    /// condition.
    pub const unsafe fn from_bytes(buffer: &'a mut [u8]) -> Self {
        let size = buffer.len();
        let ptr = buffer.as_mut_ptr();
        // SAFETY: a slice's data pointer is never null.
        let base = unsafe { NonNull::new_unchecked(ptr) };
        // SAFETY: exclusively borrowed for `'a`; the initialization condition is passed on
        // to our caller.
        unsafe { Self::from_raw_parts(base, size) }
    }

    /// A bump allocator over an initialized byte buffer that is never handed back: safe,
    /// because no one can read the bytes as `u8` after the allocator (compare
    /// [`from_bytes`](Self::from_bytes)). For buffers from `static_cell`, `Box::leak` or a
    /// `TakeOnce`.
    pub const fn from_static_bytes(buffer: &'static mut [u8]) -> MemoryAllocator<'static> {
        // SAFETY: the exclusive `'static` borrow is moved into the allocator and never
        // returned, so `buffer` is never read as `u8` afterwards.
        unsafe { MemoryAllocator::from_bytes(buffer) }
    }

    /// A bump allocator over `size` bytes at `base` (memory from a linker section, a
    /// static arena).
    ///
    /// # Safety
    ///
    /// For all of `'a`, `base` must be valid for reads and writes of `size` bytes within
    /// one allocation (so `size <= isize::MAX`), and nothing else may access those bytes
    /// while the allocator or anything it handed out is alive.
    pub const unsafe fn from_raw_parts(base: NonNull<u8>, size: usize) -> Self {
        MemoryAllocator {
            base,
            // SAFETY: the caller guarantees `size` bytes at `base` in one allocation, so
            // `base + size` is in bounds or one past the end.
            end: unsafe { base.add(size) },
            size,
            last: Cell::new(base.as_ptr().wrapping_sub(1)),
            peak: Cell::new(0),
            _buffer: PhantomData,
        }
    }

    /// A zero-byte allocator (a pool the plan sized at 0): every non-zero request fails.
    pub const fn empty() -> MemoryAllocator<'static> {
        // SAFETY: zero bytes need no valid memory; `dangling` is non-null and aligned.
        unsafe { MemoryAllocator::from_raw_parts(NonNull::dangling(), 0) }
    }

    /// Allocates `size` bytes at an address that is a multiple of `align`, as ExecuTorch's
    /// `MemoryAllocator::allocate`, but measured on the address and overflow-checked.
    ///
    /// The returned bytes are uninitialized (or hold what an earlier use left there) and
    /// stay reserved until [`reset`](Self::reset). The pointer is derived from the buffer
    /// given at construction and may be used for `size` bytes while the allocator's buffer
    /// borrow (`'a`) lasts and no reset has happened.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidAlignment`] if `align` is not a power of two.
    /// - [`Error::OutOfMemory`] if padding + `size` exceeds [`free`](Self::free).
    /// - [`Error::Overflow`] if the aligned end does not fit a `usize`.
    ///
    /// On error nothing changes.
    #[inline]
    pub fn allocate(&self, size: usize, align: usize) -> Result<NonNull<u8>, Error> {
        if !align.is_power_of_two() {
            return Err(invalid_alignment(align));
        }
        if size == 0 {
            return self.allocate_zero_size(align);
        }
        let last = self.last.get();
        let mask = align - 1;
        // `above + 1` is the cursor rounded up to a multiple of `align`: the address, not
        // the offset, is aligned (a bump allocator that aligned the offset handed out
        // misaligned addresses from a misaligned buffer).
        let above = last.addr() | mask;
        let Some(new_last) = above.checked_add(size) else {
            // The aligned end does not fit a `usize`.
            return Err(Error::Overflow {
                count: 1,
                elem_size: size,
                align,
            });
        };
        if new_last >= self.end.as_ptr().addr() {
            return Err(self.failure(size, align));
        }
        // `base <= above + 1 <= new_last < end` (`size >= 1`, and the sum did not
        // overflow): the new cursor and the start lie in the buffer, and `with_addr` keeps
        // `base`'s provenance.
        self.last.set(last.with_addr(new_last));
        // SAFETY: `above + 1 >= base`, which is not null.
        Ok(unsafe { NonNull::new_unchecked(last.with_addr(above + 1)) })
    }

    /// A zero-size request: an aligned address in the buffer or one past its end, else a
    /// dangling aligned pointer; the cursor does not move, padding included.
    #[cold]
    fn allocate_zero_size(&self, align: usize) -> Result<NonNull<u8>, Error> {
        let above = self.last.get().addr() | (align - 1);
        match above.checked_add(1) {
            Some(start) if start <= self.end.as_ptr().addr() => {
                // SAFETY: `base <= start <= end`: in bounds or one past the end, with
                // `base`'s provenance, not null.
                Ok(unsafe { NonNull::new_unchecked(self.base.as_ptr().with_addr(start)) })
            }
            // No aligned address left in the buffer: zero bytes need none (a dangling,
            // aligned pointer is valid for zero-size access).
            _ => Ok(NonNull::<u8>::dangling().with_addr(
                core::num::NonZeroUsize::new(align).unwrap_or(core::num::NonZeroUsize::MIN),
            )),
        }
    }

    /// Allocates room for one `T`, uninitialized, as ExecuTorch's `allocateInstance<T>`.
    ///
    /// The slot borrows the allocator, so no [`reset`](Self::reset) can run while it is in
    /// use. A value written into it is never dropped.
    ///
    /// # Errors
    ///
    /// As [`allocate`](Self::allocate) with `size_of::<T>()` and `align_of::<T>()`.
    // The `&mut` comes from `&self` by design, as bumpalo's `alloc`: every call returns
    // fresh, disjoint bytes, and `reset` needs `&mut self`.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn allocate_instance<T>(&self) -> Result<&mut MaybeUninit<T>, Error> {
        let ptr = self.allocate(mem::size_of::<T>(), mem::align_of::<T>())?;
        // SAFETY: `allocate` gave `size_of::<T>()` fresh bytes of our buffer aligned for `T`,
        // reserved until `reset`, which needs `&mut self` and so cannot run while this borrow
        // lives; `MaybeUninit<T>` has no validity requirement on its bytes.
        Ok(unsafe { ptr.cast::<MaybeUninit<T>>().as_mut() })
    }

    /// Allocates room for `value` and moves it there (a convenience over
    /// [`allocate_instance`](Self::allocate_instance)). The value is never dropped.
    ///
    /// # Errors
    ///
    /// As [`allocate_instance`](Self::allocate_instance); `value` is dropped on error.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn allocate_value<T>(&self, value: T) -> Result<&mut T, Error> {
        Ok(self.allocate_instance::<T>()?.write(value))
    }

    /// Allocates room for `count` values of `T`, uninitialized, as ExecuTorch's
    /// `allocateList<T>`, with the size multiplication checked.
    ///
    /// # Errors
    ///
    /// - [`Error::Overflow`] if `count * size_of::<T>()` does not fit a `usize`.
    /// - Otherwise as [`allocate`](Self::allocate).
    // As `allocate_instance`: fresh, disjoint bytes per call.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn allocate_list<T>(&self, count: usize) -> Result<&mut [MaybeUninit<T>], Error> {
        let elem = mem::size_of::<T>();
        let align = mem::align_of::<T>();
        let Some(bytes) = count.checked_mul(elem) else {
            return Err(Error::Overflow {
                count,
                elem_size: elem,
                align,
            });
        };
        let ptr = self.allocate(bytes, align)?;
        // SAFETY: as in `allocate_instance`, for `count * size_of::<T>()` bytes, which fit in
        // our buffer (so at most `isize::MAX`); for a zero-size `T` any `count` is valid at
        // an aligned non-null pointer.
        Ok(unsafe { NonNull::slice_from_raw_parts(ptr.cast::<MaybeUninit<T>>(), count).as_mut() })
    }

    /// Allocates `count` values of `T`, each a copy of `value`: an initialized list of a
    /// length known only at run time (a kernel's accumulators, say) without `unsafe` in
    /// the caller. Writes every element, so it costs `count` stores.
    ///
    /// # Errors
    ///
    /// As [`allocate_list`](Self::allocate_list); on error nothing is written.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// use memplan_runtime::MemoryAllocator;
    ///
    /// let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    /// let pool = MemoryAllocator::new(&mut buf);
    /// let acc: &mut [i32] = pool.allocate_list_filled(5, 0).unwrap();
    /// acc[4] += 7;
    /// assert_eq!(acc, [0, 0, 0, 0, 7]);
    /// ```
    // As `allocate_instance`: fresh, disjoint bytes per call.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn allocate_list_filled<T: Copy>(&self, count: usize, value: T) -> Result<&mut [T], Error> {
        let list = self.allocate_list::<T>(count)?;
        for slot in list.iter_mut() {
            slot.write(value);
        }
        let len = list.len();
        // SAFETY: every one of the `len` elements of `list` was written just above, so the
        // slice is initialized; `MaybeUninit<T>` has the layout of `T`, and the pointer and
        // length come from a live `&mut` slice, whose borrow this one takes over.
        Ok(unsafe { core::slice::from_raw_parts_mut(list.as_mut_ptr().cast::<T>(), len) })
    }

    /// Frees every allocation at once and records the high-water mark.
    ///
    /// `&mut self` guarantees no reference from [`allocate_instance`](Self::allocate_instance)
    /// or [`allocate_list`](Self::allocate_list) is alive. Raw pointers from
    /// [`allocate`](Self::allocate) must not be used after a reset.
    #[inline]
    pub fn reset(&mut self) {
        self.peak.set(self.high_water());
        self.last.set(self.base.as_ptr().wrapping_sub(1));
    }

    /// Runs `f` with this allocator reset before and after: nothing `f` allocates can
    /// outlive the call (the borrow checker rejects it), and `f` always starts with the
    /// whole buffer free (the ExecuTorch fix for leftovers in the temp allocator, #13384).
    ///
    /// ```compile_fail,E0521
    /// use core::mem::MaybeUninit;
    /// use memplan_runtime::MemoryAllocator;
    ///
    /// let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    /// let mut pool = MemoryAllocator::new(&mut buf);
    /// let mut escaped = None;
    /// pool.scoped(|temp| escaped = Some(temp.allocate_instance::<u32>().unwrap()));
    /// ```
    pub fn scoped<R>(&mut self, f: impl FnOnce(&MemoryAllocator<'a>) -> R) -> R {
        self.reset();
        let result = f(self);
        self.reset();
        result
    }

    /// Start of the buffer (ExecuTorch's `base_address`).
    #[inline]
    pub const fn base_address(&self) -> NonNull<u8> {
        self.base
    }

    /// Length of the buffer in bytes (ExecuTorch's `size`).
    #[inline]
    pub const fn size(&self) -> usize {
        self.size
    }

    /// Bytes consumed since the last reset, alignment padding included.
    #[inline]
    pub fn used(&self) -> usize {
        self.next_addr() - self.base.as_ptr().addr()
    }

    /// Bytes still free after the cursor: `size() - used()`.
    #[inline]
    pub fn free(&self) -> usize {
        self.end.as_ptr().addr() - self.next_addr()
    }

    /// The most bytes ever consumed between two resets, padding included: size a pool from
    /// a real run with it (ExecuTorch's allocation tracking, TFLite Micro's recording
    /// allocator).
    #[inline]
    pub fn high_water(&self) -> usize {
        let used = self.used();
        let peak = self.peak.get();
        if used > peak { used } else { peak }
    }

    /// Address of the first free byte (`last + 1`; cannot overflow since `last < end`).
    #[inline]
    fn next_addr(&self) -> usize {
        self.last.get().addr() + 1
    }

    /// Offset of `ptr` from the base if `ptr` lies in the buffer (one-past-end included).
    #[cfg(feature = "allocator-api2")]
    pub(crate) fn offset_of(&self, ptr: NonNull<u8>) -> Option<usize> {
        let offset = ptr.as_ptr().addr().checked_sub(self.base.as_ptr().addr())?;
        (offset <= self.size).then_some(offset)
    }

    /// Moves the cursor to `used` (at most `size`), recording the high-water mark first.
    #[cfg(feature = "allocator-api2")]
    pub(crate) fn set_used(&self, used: usize) {
        assert!(used <= self.size);
        self.peak.set(self.high_water());
        // `used <= size`: the cursor stays in the buffer or one past its end.
        self.last
            .set(self.base.as_ptr().wrapping_add(used).wrapping_sub(1));
    }

    /// The error for a request of `requested` bytes at `align` (a power of two) that did
    /// not fit: [`Error::OutOfMemory`] with the bytes needed from the cursor (padding +
    /// size) when that figure fits a `usize`, else [`Error::Overflow`]. It does not depend
    /// on where the buffer lies beyond the padding.
    #[cold]
    #[inline(never)]
    fn failure(&self, requested: usize, align: usize) -> Error {
        let padding = self.next_addr().wrapping_neg() & (align - 1);
        match padding.checked_add(requested) {
            Some(needed) => Error::OutOfMemory {
                requested,
                align,
                needed,
                available: self.free(),
            },
            None => Error::Overflow {
                count: 1,
                elem_size: requested,
                align,
            },
        }
    }
}

#[cold]
#[inline(never)]
fn invalid_alignment(align: usize) -> Error {
    Error::InvalidAlignment { align }
}

impl fmt::Debug for MemoryAllocator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryAllocator")
            .field("base", &self.base)
            .field("size", &self.size)
            .field("used", &self.used())
            .field("high_water", &self.high_water())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C, align(16))]
    struct Aligned<const N: usize>([MaybeUninit<u8>; N]);

    impl<const N: usize> Aligned<N> {
        fn new() -> Self {
            Aligned([MaybeUninit::uninit(); N])
        }
    }

    #[test]
    fn allocations_are_disjoint_and_in_order() {
        let mut buf = Aligned::<64>::new();
        let base = buf.0.as_ptr().addr();
        let pool = MemoryAllocator::new(&mut buf.0);
        let a = pool.allocate(3, 1).unwrap();
        let b = pool.allocate(4, 4).unwrap();
        let c = pool.allocate(1, 16).unwrap();
        assert_eq!(a.as_ptr().addr() - base, 0);
        assert_eq!(b.as_ptr().addr() - base, 4);
        assert_eq!(c.as_ptr().addr() - base, 16);
        assert_eq!(pool.used(), 17);
        assert_eq!(pool.free(), 47);
    }

    #[test]
    fn invalid_alignment_changes_nothing() {
        let mut buf = Aligned::<64>::new();
        let pool = MemoryAllocator::new(&mut buf.0);
        pool.allocate(5, 1).unwrap();
        for align in [0, 3, 6, 12, usize::MAX] {
            assert_eq!(
                pool.allocate(1, align),
                Err(Error::InvalidAlignment { align })
            );
        }
        assert_eq!((pool.used(), pool.high_water()), (5, 5));
    }

    #[test]
    fn huge_requests_overflow_without_moving() {
        let mut buf = Aligned::<64>::new();
        let pool = MemoryAllocator::new(&mut buf.0);
        pool.allocate(1, 1).unwrap();
        assert_eq!(
            pool.allocate(usize::MAX, 8),
            Err(Error::Overflow {
                count: 1,
                elem_size: usize::MAX,
                align: 8
            })
        );
        // The end address `cursor + usize::MAX - 7` does not fit a `usize` either (the
        // buffer does not start below address 8).
        assert_eq!(
            pool.allocate(usize::MAX - 7, 1),
            Err(Error::Overflow {
                count: 1,
                elem_size: usize::MAX - 7,
                align: 1
            })
        );
        // A non-zero request at an alignment far above the address: the padding runs past
        // the end. Zero bytes at that alignment need no room: a dangling aligned pointer.
        assert!(pool.allocate(1, 1 << (usize::BITS - 1)).is_err());
        let zero = pool.allocate(0, 1 << (usize::BITS - 1)).unwrap();
        assert_eq!(zero.as_ptr().addr(), 1 << (usize::BITS - 1));
        assert_eq!((pool.used(), pool.high_water()), (1, 1));
    }

    #[test]
    fn filled_lists_are_written_and_disjoint() {
        let mut buf = Aligned::<64>::new();
        let base = buf.0.as_ptr().addr();
        let pool = MemoryAllocator::new(&mut buf.0);
        pool.allocate(1, 1).unwrap();
        let a = pool.allocate_list_filled::<i32>(3, -1).unwrap();
        let b = pool.allocate_list_filled::<u16>(2, 7).unwrap();
        assert_eq!(a, [-1, -1, -1]);
        assert_eq!(b, [7, 7]);
        a[2] = 5;
        b[0] = 9;
        assert_eq!((a[2], b[0], b[1]), (5, 9, 7));
        // After the byte at 0: `a` at 4 (i32 alignment) for 12 bytes, `b` at 16.
        assert_eq!(a.as_ptr().addr() - base, 4);
        assert_eq!(b.as_ptr().addr() - base, 16);
        assert_eq!(pool.used(), 20);
        // Too long for what is left: an error, and nothing moves.
        assert_eq!(
            pool.allocate_list_filled::<u32>(12, 0).unwrap_err(),
            Error::OutOfMemory {
                requested: 48,
                align: 4,
                needed: 48,
                available: 44,
            }
        );
        assert_eq!(pool.used(), 20);
        let empty: &mut [u8] = pool.allocate_list_filled(0, 1).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn list_size_overflow_is_an_error() {
        let mut buf = Aligned::<64>::new();
        let pool = MemoryAllocator::new(&mut buf.0);
        assert_eq!(
            pool.allocate_list::<u32>(usize::MAX / 2).unwrap_err(),
            (Error::Overflow {
                count: usize::MAX / 2,
                elem_size: 4,
                align: 4
            })
        );
        assert_eq!(pool.used(), 0);
        let list = pool.allocate_list::<u16>(5).unwrap();
        assert_eq!(list.len(), 5);
        assert_eq!(pool.used(), 10);
        // Zero-size elements take no bytes, whatever the count.
        assert_eq!(
            pool.allocate_list::<()>(usize::MAX).unwrap().len(),
            usize::MAX
        );
        assert_eq!(pool.used(), 10);
    }

    #[test]
    fn high_water_survives_reset() {
        let mut buf = Aligned::<64>::new();
        let mut pool = MemoryAllocator::new(&mut buf.0);
        pool.allocate(40, 1).unwrap();
        pool.reset();
        assert_eq!((pool.used(), pool.high_water()), (0, 40));
        pool.allocate(10, 1).unwrap();
        assert_eq!(pool.high_water(), 40);
        pool.allocate(35, 1).unwrap();
        assert_eq!(pool.high_water(), 45);
        pool.reset();
        assert_eq!((pool.used(), pool.high_water()), (0, 45));
    }

    #[test]
    fn values_round_trip() {
        let mut buf = Aligned::<64>::new();
        let pool = MemoryAllocator::new(&mut buf.0);
        let x = pool.allocate_value(0x1122_3344_u32).unwrap();
        let y = pool.allocate_value([7u8; 3]).unwrap();
        let z = pool.allocate_value(0x5566_7788_99aa_bbcc_u64).unwrap();
        assert_eq!((*x, *y, *z), (0x1122_3344, [7; 3], 0x5566_7788_99aa_bbcc));
        // 4 + 3, then padding to 8.
        assert_eq!(pool.used(), 16);
        assert_eq!(z as *mut u64 as usize % 8, 0);
    }

    #[test]
    fn empty_allocator() {
        let pool = MemoryAllocator::empty();
        assert_eq!((pool.size(), pool.used(), pool.free()), (0, 0, 0));
        assert_eq!(
            pool.allocate(1, 1),
            Err(Error::OutOfMemory {
                requested: 1,
                align: 1,
                needed: 1,
                available: 0
            })
        );
        assert!(pool.allocate(0, 1).is_ok());
    }

    #[test]
    fn from_static_bytes_is_safe_and_sized_exactly() {
        static BUF: crate::TakeOnce<[u8; 24]> = crate::TakeOnce::new([0; 24]);
        let bytes: &'static mut [u8] = BUF.take().unwrap();
        let base = bytes.as_ptr().addr();
        let pool = MemoryAllocator::from_static_bytes(bytes);
        assert_eq!(pool.size(), 24);
        assert_eq!(pool.base_address().as_ptr().addr(), base);
        let x = pool.allocate_value(3u16).unwrap();
        assert_eq!(*x, 3);
        assert_eq!(pool.free(), 24 - pool.used());
    }

    #[test]
    fn from_bytes_allocates_like_new() {
        let mut bytes = [0u8; 8];
        // SAFETY: only `u8`s are written, and `bytes` is not read afterwards.
        let pool = unsafe { MemoryAllocator::from_bytes(&mut bytes) };
        let x = pool.allocate_list::<u8>(8).unwrap();
        assert_eq!(x.len(), 8);
        assert!(pool.allocate(1, 1).is_err());
    }
}
