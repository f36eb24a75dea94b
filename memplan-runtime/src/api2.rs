//! `allocator_api2::alloc::Allocator` for [`MemoryAllocator`] (feature `allocator-api2`).

use core::alloc::Layout;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};

use crate::MemoryAllocator;

// SAFETY: blocks come from `MemoryAllocator::allocate`, which returns fresh, disjoint,
// aligned bytes of the requested size that stay valid until `reset` (`&mut self`, so no
// `&MemoryAllocator` — and no collection holding one — is alive then) or until the
// allocator's buffer borrow ends (which the collection's `&MemoryAllocator` outlives not).
// `deallocate`, `grow` and `shrink` only move the cursor back over the block being freed
// or resized when it is the last one handed out, so no live block is ever handed out twice.
unsafe impl Allocator for MemoryAllocator<'_> {
    #[inline]
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let ptr = MemoryAllocator::allocate(self, layout.size(), layout.align())
            .map_err(|_| AllocError)?;
        Ok(NonNull::slice_from_raw_parts(ptr, layout.size()))
    }

    /// Frees the block if it is the last one allocated (the cursor moves back); otherwise
    /// its bytes stay used until [`reset`](MemoryAllocator::reset).
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        if let Some(start) = self.offset_of(ptr)
            && start.checked_add(layout.size()) == Some(self.used())
            && layout.size() != 0
        {
            self.set_used(start);
        }
    }

    /// Grows in place when the block is the last one allocated and the buffer has room;
    /// otherwise allocates a new block and copies.
    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        if let Some(start) = self.offset_of(ptr)
            && old_layout.size() != 0
            && start.checked_add(old_layout.size()) == Some(self.used())
            && ptr.as_ptr().addr().is_multiple_of(new_layout.align())
            && let Some(end) = start.checked_add(new_layout.size())
            && end <= self.size()
        {
            self.set_used(end);
            return Ok(NonNull::slice_from_raw_parts(ptr, new_layout.size()));
        }
        let new = Allocator::allocate(self, new_layout)?;
        // SAFETY: the caller guarantees `ptr` is a live block of `old_layout.size()` bytes,
        // and `new` is a fresh block of `new_layout.size() >= old_layout.size()` bytes
        // (the `grow` contract), so both ranges are valid and do not overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(
                ptr.as_ptr(),
                new.cast::<u8>().as_ptr(),
                old_layout.size(),
            );
        }
        // SAFETY: `ptr` was allocated by us with `old_layout` (the caller's contract).
        unsafe { Allocator::deallocate(self, ptr, old_layout) };
        Ok(new)
    }

    /// Shrinks in place (the cursor moves back when the block is the last one allocated).
    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        if !ptr.as_ptr().addr().is_multiple_of(new_layout.align()) {
            let new = Allocator::allocate(self, new_layout)?;
            // SAFETY: `ptr` holds `old_layout.size() >= new_layout.size()` live bytes and
            // `new` is a fresh, disjoint block of `new_layout.size()` bytes.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    ptr.as_ptr(),
                    new.cast::<u8>().as_ptr(),
                    new_layout.size(),
                );
            }
            return Ok(new);
        }
        if let Some(start) = self.offset_of(ptr)
            && old_layout.size() != 0
            && start.checked_add(old_layout.size()) == Some(self.used())
        {
            // `start + new_size <= start + old_size`: cannot overflow.
            self.set_used(start + new_layout.size());
        }
        Ok(NonNull::slice_from_raw_parts(ptr, new_layout.size()))
    }
}
