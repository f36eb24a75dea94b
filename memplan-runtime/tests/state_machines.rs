//! The allocators against reference models, as state machines (proptest-state-machine):
//! random sequences of requests, resets and scoped temp uses. After every step: each block
//! handed out lies in its buffer, is aligned on its address and overlaps no live block; a
//! failed request changed nothing; `used`, `free` and `high_water` are the model's. The
//! hierarchical allocator has no allocation state: its lookups are checked against the
//! region table instead. (Fewer cases under Miri.)

use core::mem::MaybeUninit;
use core::ptr::NonNull;

use memplan_runtime::{Error, HierarchicalAllocator, MemoryAllocator, MemoryManager, Span};
use proptest::prelude::*;
use proptest::test_runner::Config;
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest, prop_state_machine};

/// Buffers start at this alignment plus a skew, so the model knows every address modulo it.
const BASE_ALIGN: usize = 4096;
const MAX_ALIGN_LOG2: u32 = 12;

fn cases() -> u32 {
    if cfg!(miri) { 3 } else { 128 }
}

/// A heap buffer at a known alignment plus `skew`, freed on drop.
struct Buffer {
    ptr: *mut u8,
    layout: std::alloc::Layout,
    skew: usize,
    len: usize,
}

impl Buffer {
    fn new(skew: usize, len: usize) -> Buffer {
        let layout = std::alloc::Layout::from_size_align(skew + len + 1, BASE_ALIGN).unwrap();
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        assert!(!ptr.is_null());
        Buffer {
            ptr,
            layout,
            skew,
            len,
        }
    }

    /// A bump allocator over the buffer.
    ///
    /// # Safety
    ///
    /// The allocator must be dropped before the buffer, and be its only user.
    unsafe fn allocator(&self) -> MemoryAllocator<'static> {
        // SAFETY: `skew + len` bytes lie in the allocation.
        let start = unsafe { self.ptr.add(self.skew) };
        // SAFETY: inside a non-null allocation.
        let base = unsafe { NonNull::new_unchecked(start) };
        // SAFETY: valid for reads and writes of `len` bytes, used by that allocator only
        // (the caller's contract), for as long as it lives.
        unsafe { MemoryAllocator::from_raw_parts(base, self.len) }
    }

    fn base(&self) -> usize {
        self.ptr.addr() + self.skew
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

/// One pool's model: its length, its base address modulo `BASE_ALIGN`, the live blocks as
/// offsets, the bytes used and the high-water mark.
#[derive(Clone, Debug, Default)]
struct PoolModel {
    skew: usize,
    len: usize,
    live: Vec<(usize, usize)>,
    used: usize,
    high: usize,
}

impl PoolModel {
    /// The model of a request: `Some(offset)` of the block, or `None` when it fails.
    fn allocate(&mut self, size: usize, align: usize) -> Option<usize> {
        let addr = self.skew + self.used;
        let start = addr.next_multiple_of(align) - self.skew;
        if size == 0 {
            return Some(start.min(self.len).max(self.used));
        }
        if start + size > self.len {
            return None;
        }
        self.live.push((start, start + size));
        self.used = start + size;
        self.high = self.high.max(self.used);
        Some(start)
    }

    fn reset(&mut self) {
        self.live.clear();
        self.used = 0;
    }
}

/// Checks a block the allocator gave against the model's answer and the pool's state.
fn check_block(
    got: Result<NonNull<u8>, Error>,
    want: Option<usize>,
    size: usize,
    align: usize,
    base: usize,
) {
    match (got, want) {
        (Ok(p), Some(off)) => {
            assert_eq!(p.as_ptr().addr() % align, 0, "aligned on the address");
            if size > 0 {
                assert_eq!(p.as_ptr().addr(), base + off, "where the model puts it");
            }
        }
        (Err(e), None) => assert!(
            matches!(e, Error::OutOfMemory { .. } | Error::Overflow { .. }),
            "{e:?}"
        ),
        (got, want) => panic!("allocator {got:?}, model {want:?}"),
    }
}

fn check_counters(pool: &MemoryAllocator<'_>, model: &PoolModel) {
    assert_eq!(pool.used(), model.used);
    assert_eq!(pool.free(), model.len - model.used);
    assert_eq!(pool.high_water(), model.high);
}

/// Requests: a size and an alignment (a power of two up to 4096).
fn request() -> impl Strategy<Value = (usize, usize)> {
    (0usize..160, 0..=MAX_ALIGN_LOG2).prop_map(|(s, a)| (s, 1usize << a))
}

// ---- The bump allocator ----------------------------------------------------------------

#[derive(Clone, Debug)]
enum BumpOp {
    Allocate(usize, usize),
    Reset,
    Scoped(Vec<(usize, usize)>),
}

struct BumpRef;

impl ReferenceStateMachine for BumpRef {
    type State = PoolModel;
    type Transition = BumpOp;

    fn init_state() -> BoxedStrategy<PoolModel> {
        (0usize..BASE_ALIGN, 0usize..1024)
            .prop_map(|(skew, len)| PoolModel {
                skew,
                len,
                ..PoolModel::default()
            })
            .boxed()
    }

    fn transitions(_: &PoolModel) -> BoxedStrategy<BumpOp> {
        prop_oneof![
            6 => request().prop_map(|(s, a)| BumpOp::Allocate(s, a)),
            1 => Just(BumpOp::Reset),
            1 => proptest::collection::vec(request(), 0..6).prop_map(BumpOp::Scoped),
        ]
        .boxed()
    }

    fn apply(mut state: PoolModel, op: &BumpOp) -> PoolModel {
        match op {
            BumpOp::Allocate(s, a) => {
                state.allocate(*s, *a);
            }
            BumpOp::Reset => state.reset(),
            BumpOp::Scoped(requests) => {
                state.reset();
                for &(s, a) in requests {
                    state.allocate(s, a);
                }
                state.reset();
            }
        }
        state
    }
}

/// The allocator, its buffer, and the model's state before each step (proptest hands
/// `apply` the reference state after the step).
struct Bump {
    pool: MemoryAllocator<'static>,
    model: PoolModel,
    _buffer: Buffer,
}

impl StateMachineTest for Bump {
    type SystemUnderTest = Bump;
    type Reference = BumpRef;

    fn init_test(model: &PoolModel) -> Bump {
        let buffer = Buffer::new(model.skew, model.len);
        // SAFETY: `Bump` drops `pool` (declared first) before `_buffer`, its only user.
        let pool = unsafe { buffer.allocator() };
        Bump {
            pool,
            model: model.clone(),
            _buffer: buffer,
        }
    }

    fn apply(mut sut: Bump, _after: &PoolModel, op: BumpOp) -> Bump {
        let base = sut._buffer.base();
        let mut model = sut.model.clone();
        match op {
            BumpOp::Allocate(size, align) => {
                let counters = (sut.pool.used(), sut.pool.free(), sut.pool.high_water());
                let want = model.allocate(size, align);
                let got = sut.pool.allocate(size, align);
                if got.is_err() {
                    assert_eq!(
                        (sut.pool.used(), sut.pool.free(), sut.pool.high_water()),
                        counters,
                        "a failed request changes nothing"
                    );
                }
                check_block(got, want, size, align, base);
            }
            BumpOp::Reset => {
                model.reset();
                sut.pool.reset();
            }
            BumpOp::Scoped(requests) => {
                model.reset();
                sut.pool.scoped(|temp| {
                    for (size, align) in requests {
                        let want = model.allocate(size, align);
                        check_block(temp.allocate(size, align), want, size, align, base);
                    }
                });
                model.reset();
            }
        }
        sut.model = model;
        sut
    }

    fn check_invariants(sut: &Bump, after: &PoolModel) {
        check_counters(&sut.pool, after);
        assert_eq!(sut.model.used, after.used, "the two models agree");
    }
}

prop_state_machine! {
    #![proptest_config(Config { cases: cases(), failure_persistence: None, ..Config::default() })]
    #[test]
    fn the_bump_allocator_follows_its_model(sequential 1..40 => Bump);
}

// ---- The manager's pools -----------------------------------------------------------------

#[derive(Clone, Debug)]
enum ManagerOp {
    /// In pool 0 (constant), 1 (runtime) or 2 (temp).
    Allocate(usize, usize, usize),
    Reset(usize),
    WithTemp(Vec<(usize, usize)>),
}

#[derive(Clone, Debug)]
struct ManagerModel {
    pools: [PoolModel; 3],
}

struct ManagerRef;

impl ReferenceStateMachine for ManagerRef {
    type State = ManagerModel;
    type Transition = ManagerOp;

    fn init_state() -> BoxedStrategy<ManagerModel> {
        proptest::array::uniform3((0usize..BASE_ALIGN, 0usize..512))
            .prop_map(|p| ManagerModel {
                pools: p.map(|(skew, len)| PoolModel {
                    skew,
                    len,
                    ..PoolModel::default()
                }),
            })
            .boxed()
    }

    fn transitions(_: &ManagerModel) -> BoxedStrategy<ManagerOp> {
        prop_oneof![
            6 => (0usize..3, request()).prop_map(|(p, (s, a))| ManagerOp::Allocate(p, s, a)),
            1 => (0usize..3).prop_map(ManagerOp::Reset),
            2 => proptest::collection::vec(request(), 0..6).prop_map(ManagerOp::WithTemp),
        ]
        .boxed()
    }

    fn apply(mut state: ManagerModel, op: &ManagerOp) -> ManagerModel {
        match op {
            ManagerOp::Allocate(p, s, a) => {
                state.pools[*p].allocate(*s, *a);
            }
            ManagerOp::Reset(p) => state.pools[*p].reset(),
            ManagerOp::WithTemp(requests) => {
                let temp = &mut state.pools[2];
                temp.reset();
                for &(s, a) in requests {
                    temp.allocate(s, a);
                }
                temp.reset();
            }
        }
        state
    }
}

/// The manager, its buffers, and the model's state before each step.
struct Manager {
    manager: MemoryManager<'static>,
    model: ManagerModel,
    buffers: [Buffer; 3],
}

impl StateMachineTest for Manager {
    type SystemUnderTest = Manager;
    type Reference = ManagerRef;

    fn init_test(model: &ManagerModel) -> Manager {
        let buffers = [0, 1, 2].map(|i| Buffer::new(model.pools[i].skew, model.pools[i].len));
        let [c, r, t] = [0, 1, 2].map(|i| {
            // SAFETY: `Manager` drops `manager` (declared first) before `buffers`, and each
            // buffer has this one allocator.
            unsafe { buffers[i].allocator() }
        });
        Manager {
            manager: MemoryManager::new(c, HierarchicalAllocator::new(&mut []), r, t),
            model: model.clone(),
            buffers,
        }
    }

    fn apply(mut sut: Manager, _after: &ManagerModel, op: ManagerOp) -> Manager {
        let mut model = sut.model.clone();
        let bases = [0, 1, 2].map(|i| sut.buffers[i].base());
        match op {
            ManagerOp::Allocate(p, size, align) => {
                let want = model.pools[p].allocate(size, align);
                let pool = match p {
                    0 => sut.manager.constant(),
                    1 => sut.manager.runtime(),
                    _ => sut.manager.temp(),
                };
                check_block(pool.allocate(size, align), want, size, align, bases[p]);
            }
            ManagerOp::Reset(p) => {
                model.pools[p].reset();
                match p {
                    0 => sut.manager.constant_mut().reset(),
                    1 => sut.manager.runtime_mut().reset(),
                    _ => sut.manager.temp_mut().reset(),
                }
            }
            ManagerOp::WithTemp(requests) => {
                let temp = &mut model.pools[2];
                temp.reset();
                sut.manager.with_temp(|pool| {
                    for (size, align) in requests {
                        let want = temp.allocate(size, align);
                        check_block(pool.allocate(size, align), want, size, align, bases[2]);
                    }
                });
                temp.reset();
                assert_eq!(sut.manager.temp().used(), 0, "with_temp resets after");
            }
        }
        sut.model = model;
        sut
    }

    fn check_invariants(sut: &Manager, model: &ManagerModel) {
        check_counters(sut.manager.constant(), &model.pools[0]);
        check_counters(sut.manager.runtime(), &model.pools[1]);
        check_counters(sut.manager.temp(), &model.pools[2]);
    }
}

prop_state_machine! {
    #![proptest_config(Config { cases: cases(), failure_persistence: None, ..Config::default() })]
    #[test]
    fn the_managers_pools_follow_their_models(sequential 1..40 => Manager);
}

// ---- The hierarchical allocator's lookups -----------------------------------------------

proptest! {
    #![proptest_config(Config { cases: cases() * 2, failure_persistence: None, ..Config::default() })]

    /// `get_offset_address(id, offset, size)` is `base + offset` exactly when `id` is a
    /// region and `[offset, offset + size)` lies inside it, without wraparound.
    #[test]
    fn lookups_follow_the_region_table(
        lens in proptest::collection::vec(0usize..256, 0..4),
        queries in proptest::collection::vec(
            (0u32..5, prop_oneof![0usize..300, Just(usize::MAX)], prop_oneof![0usize..300, Just(usize::MAX)]),
            1..20,
        ),
    ) {
        let mut storage: Vec<Vec<MaybeUninit<u8>>> =
            lens.iter().map(|&n| vec![MaybeUninit::uninit(); n]).collect();
        let bases: Vec<usize> = storage.iter().map(|v| v.as_ptr().addr()).collect();
        let mut spans: Vec<Span<'_>> = storage.iter_mut().map(|v| Span::new(v)).collect();
        let planned = HierarchicalAllocator::new(&mut spans);
        for (id, offset, size) in queries {
            let got = planned.get_offset_address(id, offset, size);
            match lens.get(id as usize) {
                None => {
                    let unknown = matches!(got, Err(Error::UnknownMemoryId { .. }));
                    prop_assert!(unknown, "{:?}", got);
                }
                Some(&len) if offset <= len && size <= len - offset => {
                    prop_assert_eq!(got.map(|p| p.as_ptr().addr()), Ok(bases[id as usize] + offset));
                }
                Some(_) => {
                    let out = matches!(got, Err(Error::OutOfBounds { .. }));
                    prop_assert!(out, "{:?}", got);
                }
            }
        }
    }
}
