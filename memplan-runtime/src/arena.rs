//! Aligned static storage for generated code: bytes only, zero-initialized (so in `.bss`),
//! aligned by a zero-sized marker because `repr(align)` cannot take a const generic.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

/// The largest alignment memplan supports, in bytes: 2^16 = 65536. [`Align<N>`] implements
/// [`Alignment`] for every power of two from 1 to this.
pub const MAX_ALIGN: usize = 1 << 16;

mod sealed {
    pub trait Sealed {}
}

/// An alignment marker: implemented by [`Align<N>`] for each power of two
/// `N` in `1..=`[`MAX_ALIGN`]. Sealed.
pub trait Alignment: sealed::Sealed + 'static {
    /// A zero-sized type with alignment [`ALIGN`](Self::ALIGN); `[Archetype; 0]` as a field
    /// aligns its struct without adding bytes.
    type Archetype: Copy + Send + Sync + 'static;
    /// The alignment in bytes.
    const ALIGN: usize;
}

/// Alignment marker: `Align<16>` is 16-byte alignment. Only powers of two up to
/// [`MAX_ALIGN`] implement [`Alignment`]:
///
/// ```compile_fail,E0277
/// use memplan_runtime::__private_0_1_0::{Arena, Align};
/// static TOO_ALIGNED: Arena<16, Align<131072>> = Arena::new();
/// ```
///
/// ```compile_fail,E0277
/// use memplan_runtime::__private_0_1_0::{Arena, Align};
/// static NOT_A_POWER_OF_TWO: Arena<16, Align<24>> = Arena::new();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Align<const N: usize>;

macro_rules! alignments {
    ($($archetype:ident = $n:literal),* $(,)?) => {
        /// Zero-sized types of each supported alignment (see [`Alignment::Archetype`]).
        pub mod archetypes {
            $(
                #[doc = concat!("Zero-sized, aligned to ", stringify!($n), " bytes.")]
                #[derive(Debug, Clone, Copy)]
                #[repr(align($n))]
                pub struct $archetype;
            )*
        }
        $(
            impl sealed::Sealed for Align<$n> {}
            impl Alignment for Align<$n> {
                type Archetype = archetypes::$archetype;
                const ALIGN: usize = $n;
            }
            static_assertions::const_assert_eq!(
                core::mem::align_of::<archetypes::$archetype>(),
                $n
            );
            static_assertions::const_assert_eq!(core::mem::size_of::<archetypes::$archetype>(), 0);
        )*
    };
}

alignments! {
    A1 = 1, A2 = 2, A4 = 4, A8 = 8, A16 = 16, A32 = 32, A64 = 64, A128 = 128, A256 = 256,
    A512 = 512, A1K = 1024, A2K = 2048, A4K = 4096, A8K = 8192, A16K = 16384, A32K = 32768,
    A64K = 65536,
}

static_assertions::const_assert_eq!(<Align<MAX_ALIGN> as Alignment>::ALIGN, MAX_ALIGN);

/// Static storage for one region or pool: `N` bytes, aligned to `A::ALIGN`.
///
/// ```
/// use memplan_runtime::__private_0_1_0::{Arena, Align};
/// static SRAM: Arena<1024, Align<64>> = Arena::new();
/// assert_eq!(core::mem::size_of_val(&SRAM), 1024);
/// assert_eq!(SRAM.as_ptr().addr() % 64, 0);
/// ```
///
/// The initializer is all zeros, so the static lands in `.bss` (zeroed at start-up); in a
/// section start-up code does not zero (`NOLOAD`, `.uninit`), the bytes are
/// `MaybeUninit<u8>` and are not read before written. An arena gives no safe access to its
/// bytes: only its address, for a [`Span`](crate::Span) or an allocator that generated code
/// builds once.
#[repr(C)]
pub struct Arena<const N: usize, A: Alignment> {
    // Zero-sized and first: aligns the struct, so `bytes` (at offset 0) too.
    _align: [A::Archetype; 0],
    bytes: UnsafeCell<[MaybeUninit<u8>; N]>,
}

// SAFETY: an `Arena` gives out only raw pointers to its bytes; every access goes through
// `unsafe` code that must hold the single `Span`/allocator built over it (which is what
// `TakeOnce` hands out once).
unsafe impl<const N: usize, A: Alignment> Sync for Arena<N, A> {}

impl<const N: usize, A: Alignment> Arena<N, A> {
    /// Length in bytes.
    pub const LEN: usize = N;
    /// Alignment of the base in bytes.
    pub const ALIGN: usize = A::ALIGN;

    /// A zero-filled arena, for a `static` initializer.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Arena {
            _align: [],
            bytes: UnsafeCell::new([MaybeUninit::new(0); N]),
        }
    }

    /// Base address. Writing through it needs the arena's single owner (see the type docs).
    #[inline]
    pub const fn as_ptr(&self) -> *mut u8 {
        self.bytes.get().cast::<u8>()
    }

    /// Base address, non-null.
    #[inline]
    pub(crate) const fn base(&self) -> NonNull<u8> {
        // SAFETY: `UnsafeCell::get` of a reference is never null.
        unsafe { NonNull::new_unchecked(self.as_ptr()) }
    }
}

/// A static arena of any size and alignment, for generic code in const context
/// ([`manager`](crate::__private_0_1_0::manager)). Sealed: only [`Arena`] implements it.
pub trait ArenaStorage: sealed::Sealed + Sync + 'static {
    /// Length in bytes.
    const LEN: usize;
    /// Alignment of the base in bytes.
    const ALIGN: usize;
}

impl<const N: usize, A: Alignment> sealed::Sealed for Arena<N, A> {}
impl<const N: usize, A: Alignment> ArenaStorage for Arena<N, A> {
    const LEN: usize = N;
    const ALIGN: usize = A::ALIGN;
}

/// Base address of an arena given as `&S: ArenaStorage`, in const context (trait methods
/// are not callable there). Only `Arena` implements `ArenaStorage`, and `Arena` is
/// `repr(C)` with a zero-sized first field, so its bytes start at the struct's address.
pub(crate) const fn storage_base<S: ArenaStorage>(arena: &'static S) -> NonNull<u8> {
    let ptr: *const S = arena;
    // SAFETY: derived from a reference, so non-null. Writes through it land in the
    // `UnsafeCell` of `Arena::bytes`, which shared references allow.
    unsafe { NonNull::new_unchecked(ptr.cast::<u8>().cast_mut()) }
}

static_assertions::const_assert_eq!(core::mem::offset_of!(Arena<4, Align<16>>, bytes), 0);
static_assertions::const_assert_eq!(core::mem::size_of::<Arena<3, Align<1>>>(), 3);
static_assertions::const_assert_eq!(core::mem::size_of::<Arena<0, Align<MAX_ALIGN>>>(), 0);
static_assertions::const_assert_eq!(
    core::mem::align_of::<Arena<0, Align<MAX_ALIGN>>>(),
    MAX_ALIGN
);

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, size_of};

    #[test]
    fn max_align_is_two_to_the_sixteenth() {
        assert_eq!(MAX_ALIGN, 65536);
        assert_eq!(align_of::<Arena<1, Align<65536>>>(), 65536);
        // A Rust type's size is a multiple of its alignment, so a one-byte arena at the
        // largest alignment occupies 65536 bytes.
        assert_eq!(size_of::<Arena<1, Align<65536>>>(), 65536);
    }

    #[test]
    fn every_alignment_marker() {
        fn check<A: Alignment>(expected: usize) {
            assert_eq!(A::ALIGN, expected);
            assert_eq!(align_of::<Arena<3, A>>(), expected);
            assert_eq!(size_of::<Arena<3, A>>(), 3usize.next_multiple_of(expected));
        }
        check::<Align<1>>(1);
        check::<Align<2>>(2);
        check::<Align<4>>(4);
        check::<Align<8>>(8);
        check::<Align<16>>(16);
        check::<Align<32>>(32);
        check::<Align<64>>(64);
        check::<Align<128>>(128);
        check::<Align<256>>(256);
        check::<Align<512>>(512);
        check::<Align<1024>>(1024);
        check::<Align<2048>>(2048);
        check::<Align<4096>>(4096);
        check::<Align<8192>>(8192);
        check::<Align<16384>>(16384);
        check::<Align<32768>>(32768);
        check::<Align<65536>>(65536);
    }

    static ARENA: Arena<100, Align<256>> = Arena::new();

    #[test]
    fn static_arena_is_aligned_and_zeroed() {
        assert_eq!(ARENA.as_ptr().addr() % 256, 0);
        assert_eq!(storage_base(&ARENA).as_ptr(), ARENA.as_ptr());
        let mut sum = 0u32;
        for i in 0..100 {
            // SAFETY: `i < 100`, inside the arena.
            let byte = unsafe { ARENA.as_ptr().add(i) };
            // SAFETY: the arena is zero-initialized and no one writes it.
            sum += u32::from(unsafe { byte.read() });
        }
        assert_eq!(sum, 0);
    }
}
