//! A `no_std` library whose working memory is planned by `memory_plan!` at compile time.
//!
//! `.ci/runtime-checks.sh` builds it for `thumbv6m-none-eabi` (feature `critical-section`),
//! `thumbv7em-none-eabihf` and `riscv32imac-unknown-none-elf` (a library build: no linking),
//! and runs its tests on the host, under Miri too.

#![no_std]

use core::ptr::NonNull;

use memplan_runtime::{Error, HierarchicalAllocator, MemoryManager, memory_plan};

memory_plan! {
    /// A keyword spotter's activations, and a transformer encoder's from an ExecuTorch plan.
    pub mod kws {
        region sram: 64 KiB, align 16, memory SRAM1;
        region dtcm: 16 KiB, align 32, kind tightly_coupled;
        region psram: 1 MiB, kind external;

        constant: 0;
        runtime: 2 KiB;
        temp: 1 KiB;

        buffer input: [i8; 490] in dtcm, live 0..=1;
        buffer conv1: 8000 bytes in sram, live 1..=2, align 64;
        buffer conv2: [i8; 8000] in sram, live 2..=3;
        buffer relu1: in place of conv1, live 2..=2;
        buffer logits: [f32; 12] in dtcm, live 3..=4, at 256;

        buffers in psram from "../../../examples/data/executorch/transformer_encoder_constprop_greedy.csv";
    }
}

memory_plan! {
    /// A transformer encoder layer's activations (46 buffers from its ExecuTorch plan),
    /// walked step by step through the safe views under Miri.
    pub mod encoder {
        region act: 1 MiB;
        buffers in act from "../../../examples/data/executorch/transformer_encoder_constprop_greedy.csv";
    }
}

/// Plans whose names are raw or not ASCII, and two plans of one name in two modules, all
/// with arenas placed in a memory: on bare-metal targets their guard symbols are in an
/// `extern` block, which takes only ASCII names, and each plan's sections are its own.
pub mod names {
    use memplan_runtime::memory_plan;

    memory_plan! {
        pub mod r#type { region r#in: 64 bytes, memory SRAM1; buffer x: 16 bytes in r#in, live 0..=0; }
    }

    memory_plan! {
        pub mod größe { region wärme: 64 bytes, memory SRAM1; buffer x: 16 bytes in wärme, live 0..=0; }
    }

    /// One `same`.
    pub mod a {
        memplan_runtime::memory_plan! {
            pub mod same { region r: 128 bytes, memory SRAM1; buffer x: 64 bytes in r, live 0..=0; }
        }
    }

    /// The other `same`.
    pub mod b {
        memplan_runtime::memory_plan! {
            pub mod same { region r: 64 bytes, memory SRAM1; buffer x: 32 bytes in r, live 0..=0; }
        }
    }
}

/// Typed access to `logits` (for reading the generated code: `--emit asm`).
#[inline(never)]
pub fn typed_logits(planned: &HierarchicalAllocator<'_, kws::Plan>) -> NonNull<f32> {
    planned.buffer::<kws::Logits>()
}

/// The same address by raw pointer arithmetic: region base + constant offset, unchecked.
#[inline(never)]
pub fn raw_logits(planned: &HierarchicalAllocator<'_, kws::Plan>) -> NonNull<f32> {
    // SAFETY: memory id 1 (`dtcm`) exists in this plan.
    let span = unsafe { planned.spans().get_unchecked(1) };
    // SAFETY: `logits` lies at offset 256 of `dtcm`.
    unsafe { span.as_ptr().add(256).cast() }
}

/// The plan's manager, once.
pub fn take() -> Option<&'static mut MemoryManager<'static, kws::Plan>> {
    kws::take()
}

/// Runs the keyword spotter's four steps over its planned buffers: step 0 writes the
/// input, step 1 a "convolution" into `conv1`, step 2 `conv2` from `conv1` (read at the
/// step `relu1` reuses its bytes), step 3 the logits. Returns the sum of the logits.
///
/// # Errors
///
/// If the kernel-temporary pool cannot hold a step's scratch.
pub fn run(
    manager: &mut MemoryManager<'static, kws::Plan>,
    samples: &[i8; 490],
) -> Result<f32, Error> {
    let planned = manager.planned();
    let input = planned.buffer::<kws::Input>();
    let conv1 = planned.buffer::<kws::Conv1>();
    let conv2 = planned.buffer::<kws::Conv2>();
    let logits = planned.buffer::<kws::Logits>();

    // Step 0: `input` is live 0..=1 and nothing else shares its bytes then.
    for (i, s) in samples.iter().enumerate() {
        // SAFETY: `i < 490`, inside `input` ([i8; 490]), which no live buffer overlaps.
        unsafe { input.add(i).write(*s) };
    }
    // Step 1: conv1 (8000 bytes) from the input.
    for i in 0..8000 {
        // SAFETY: `i < 490` is inside `input`, alive at step 1.
        let x = unsafe { input.add(i % 490).read() };
        // SAFETY: `i < 8000`, inside `conv1`, alive at step 1.
        unsafe { conv1.add(i).write(x.wrapping_mul(3) as u8) };
    }
    // Step 2: conv2 from conv1, with scratch from the kernel-temporary pool.
    manager.with_temp(|temp| -> Result<(), Error> {
        let acc = temp.allocate_list::<i32>(250)?;
        for (j, a) in acc.iter_mut().enumerate() {
            let mut s = 0i32;
            for k in 0..32 {
                // SAFETY: `j * 32 + k < 8000`, inside `conv1`, alive at step 2.
                s += i32::from(unsafe { conv1.add(j * 32 + k).read() } as i8);
            }
            a.write(s);
        }
        for i in 0..8000 {
            // SAFETY: every element of `acc` was written above.
            let v = unsafe { acc[i / 32].assume_init() };
            // SAFETY: `i < 8000`, inside `conv2`, alive at step 2 and disjoint from `conv1`.
            unsafe { conv2.add(i).write((v >> 4) as i8) };
        }
        Ok(())
    })?;
    // Step 3: the logits from conv2.
    let mut total = 0.0f32;
    for l in 0..12 {
        let mut s = 0i32;
        for k in 0..64 {
            // SAFETY: `l * 64 + k < 8000`, inside `conv2`, alive at step 3.
            s += i32::from(unsafe { conv2.add(l * 64 + k).read() });
        }
        let v = s as f32 / 64.0;
        // SAFETY: `l < 12`, inside `logits`, alive at step 3.
        unsafe { logits.add(l).write(v) };
        total += v;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use memplan_runtime::{MemoryId, PlannedBuffer};

    /// Buffer `b`'s byte: distinct for each of up to 256 buffers.
    fn mark(b: usize) -> u8 {
        (b as u8).wrapping_mul(37).wrapping_add(11)
    }

    /// Every step of a real ExecuTorch plan (transformer_encoder_constprop: 46 buffers over
    /// 99 steps, 1,967,616 bytes of buffers in all) through the safe generic path: each
    /// buffer filled with its own byte when it starts and compared when it ends (outside
    /// Miri, every live buffer at every step too), so a byte of one buffer changed by
    /// another is caught. Under Miri every reference the path makes is checked as well; the
    /// fills and compares are `memset` and `memcmp`, which keeps the run short.
    #[test]
    fn every_step_of_the_encoder_through_views() {
        let manager = encoder::take().expect("first take");
        let last = encoder::BUFFERS.iter().map(|b| b.last).max().unwrap();
        let index = |name: &str| {
            encoder::BUFFERS
                .iter()
                .position(|b| b.name == name)
                .unwrap()
        };
        let largest = encoder::BUFFERS.iter().map(|b| b.size).max().unwrap();
        let mut checked = 0;
        for t in 0..=last {
            let mut seen = 0;
            for live in manager.live_at(t) {
                let b = index(live.info.name);
                assert!(live.info.is_live_at(t));
                assert!(
                    live.handover_from.is_none(),
                    "no in-place pairs in this plan"
                );
                let bytes = live.bytes.into_init().expect("a zeroed region");
                if live.info.first == t {
                    bytes.fill(mark(b));
                }
                if live.info.last == t || !cfg!(miri) {
                    let expected = std::vec![mark(b); bytes.len().min(largest)];
                    assert!(
                        bytes == &expected[..],
                        "{} changed by step {t}",
                        live.info.name
                    );
                }
                checked += usize::from(live.info.last == t);
                seen += 1;
            }
            let expected = encoder::BUFFERS.iter().filter(|b| b.is_live_at(t)).count();
            assert_eq!(seen, expected, "step {t}");
        }
        assert_eq!(checked, encoder::BUFFERS.len());
        // A named view: the buffers live at step 0, typed from the plan file's `dtype`.
        let (s, _) = manager.step_any_order::<0>();
        let src: &mut [f32; 8192] = s.src; // 1x64x128 float32: 32768 bytes
        src[0] = 1.5;
        assert_eq!(src[0], 1.5);
    }

    /// The whole generated path: taken once, typed addresses at base + offset, the temp
    /// pool empty before the first kernel, and the plan's arithmetic end to end.
    #[test]
    fn generated_manager_end_to_end() {
        let manager = take().expect("first take");
        assert!(take().is_none(), "a second take must fail");

        let planned = manager.planned();
        assert_eq!(planned.len(), 3);
        let dtcm = planned.spans()[1].as_ptr().as_ptr().addr();
        assert_eq!(dtcm % 32, 0);
        assert_eq!(planned.buffer::<kws::Logits>().as_ptr().addr(), dtcm + 256);
        assert_eq!(<kws::Logits as PlannedBuffer>::OFFSET, 256);
        assert_eq!(typed_logits(planned), raw_logits(planned));
        assert_eq!(
            <kws::Relu1 as PlannedBuffer>::OFFSET,
            <kws::Conv1 as PlannedBuffer>::OFFSET
        );
        assert_eq!(<kws::Dtcm as MemoryId>::ID, 1);
        assert!(kws::BUFFERS.len() > 5);
        // Every buffer of the table lies inside its region's span.
        for b in kws::BUFFERS {
            let span = &planned.spans()[b.memory_id as usize];
            assert!(b.end().unwrap() <= span.len(), "{}", b.name);
            assert!(
                planned
                    .get_offset_address(b.memory_id, b.offset, b.size)
                    .is_ok()
            );
        }

        assert_eq!(manager.temp().used(), 0);
        let temp_base = manager.temp().base_address();
        assert_eq!(manager.temp().allocate(1024, 8).unwrap(), temp_base);
        manager.temp_mut().reset();

        let samples: [i8; 490] = core::array::from_fn(|i| (i % 7) as i8 - 3);
        let total = run(manager, &samples).unwrap();
        // The same computation on plain arrays.
        let conv1: std::vec::Vec<u8> = (0..8000)
            .map(|i| samples[i % 490].wrapping_mul(3) as u8)
            .collect();
        let acc: std::vec::Vec<i32> = (0..250)
            .map(|j| (0..32).map(|k| i32::from(conv1[j * 32 + k] as i8)).sum())
            .collect();
        let conv2: std::vec::Vec<i8> = (0..8000).map(|i| (acc[i / 32] >> 4) as i8).collect();
        let expected: f32 = (0..12)
            .map(|l| (0..64).map(|k| i32::from(conv2[l * 64 + k])).sum::<i32>() as f32 / 64.0)
            .sum();
        assert_eq!(total, expected);
        assert_eq!(manager.temp().used(), 0);
        assert_eq!(manager.temp().high_water(), 1024);
    }
}

/// Soundness around uninitialised memory, each case once reachable from safe code (Miri,
/// with strict provenance, runs these in CI): a region that says `uninit` is seen only as
/// `MaybeUninit` (through a step's view, an in-place pair's `input()`/`output()` and
/// `live_at`), and a typed allocator takes a span over `MaybeUninit` memory only for such a
/// region, and one over initialised bytes only for the others.
#[cfg(test)]
mod uninit {
    extern crate std;

    use core::mem::MaybeUninit;
    use memplan_runtime::{
        Error, HierarchicalAllocator, LiveBytes, MemoryAllocator, MemoryManager, PlanMismatch,
        Span, memory_plan,
    };

    memory_plan! {
        mod scratch {
            region fast: 256 bytes;
            region raw: 256 bytes, uninit;
            buffer a: [i8; 64] in raw, live 0..=1;
            buffer b: [i8; 64] in place of a, live 1..=2;
            buffer c: [u32; 16] in fast, live 0..=2;
        }
    }

    #[test]
    fn an_uninit_region_is_maybe_uninit_in_views_in_place_pairs_and_live_at() {
        let m = scratch::take().expect("taken once");
        let (s, _) = m.step_any_order::<0>();
        let a: &mut [MaybeUninit<i8>; 64] = s.a;
        a[0].write(-3);
        let c: &mut [u32; 16] = s.c;
        c[0] = 7;
        let (mut s, _) = m.step_any_order::<1>();
        // At the handover both sides are `MaybeUninit`: `b` may read `a`'s bytes only as
        // such, and the bytes `a` never wrote stay unread.
        let input: &mut [MaybeUninit<i8>; 64] = s.b.input();
        // SAFETY: written at step 0 just above.
        assert_eq!(unsafe { input[0].assume_init() }, -3);
        let output: &mut [MaybeUninit<i8>; 64] = s.b.output();
        output[1].write(5);
        let mut kinds = std::vec::Vec::new();
        for live in m.live_at(2) {
            match live.bytes {
                LiveBytes::Init(bytes) => {
                    assert_eq!(live.info.name, "c");
                    assert_eq!(bytes[0], 7); // little-endian 7u32, written at step 0
                    kinds.push("init");
                }
                LiveBytes::Uninit(bytes) => {
                    assert_eq!(live.info.name, "b");
                    assert_eq!(bytes.len(), 64);
                    kinds.push("uninit");
                }
            }
        }
        kinds.sort_unstable();
        assert_eq!(kinds, ["init", "uninit"]);
    }

    /// A generated plan's typed allocator over the caller's own spans: a span over
    /// `MaybeUninit` stack bytes for a zeroed region would give `&mut [u32; 16]` over
    /// uninitialised bytes, and a span over the caller's `[u8]` for the `uninit` region
    /// would let safe code write `MaybeUninit::uninit()` into bytes the caller reads later.
    /// Both are refused; the right kinds are taken and work.
    #[test]
    fn a_typed_allocator_takes_only_spans_of_the_region_s_kind() {
        #[repr(align(16))]
        struct Bytes([u8; 256]);
        #[repr(align(16))]
        struct Raw([MaybeUninit<u8>; 256]);
        let (mut fast, mut raw) = (Bytes([0; 256]), Raw([MaybeUninit::uninit(); 256]));
        let (mut fast_uninit, mut raw_bytes) = (Raw([MaybeUninit::uninit(); 256]), Bytes([1; 256]));
        {
            let mut spans = [Span::new(&mut fast_uninit.0), Span::new(&mut raw.0)];
            let err = HierarchicalAllocator::<scratch::Plan>::with_plan(&mut spans).unwrap_err();
            assert_eq!(
                err,
                Error::PlanMismatch { memory_id: 0, needed: 1, available: 0, what: PlanMismatch::RegionInit }
            );
        }
        {
            let mut spans = [Span::from_bytes(&mut fast.0), Span::from_bytes(&mut raw_bytes.0)];
            let err = HierarchicalAllocator::<scratch::Plan>::with_plan(&mut spans).unwrap_err();
            assert_eq!(
                err,
                Error::PlanMismatch { memory_id: 1, needed: 0, available: 1, what: PlanMismatch::RegionInit }
            );
        }
        assert!(raw_bytes.0.iter().all(|&b| b == 1));
        let mut spans = [Span::from_bytes(&mut fast.0), Span::new(&mut raw.0)];
        let planned = HierarchicalAllocator::<scratch::Plan>::with_plan(&mut spans).unwrap();
        let mut m = MemoryManager::new(
            MemoryAllocator::empty(),
            planned,
            MemoryAllocator::empty(),
            MemoryAllocator::empty(),
        );
        let (s, _) = m.step_any_order::<0>();
        // The caller's zeros (poisoned as the buffer starts, with `debug-canary`).
        let fresh = if cfg!(feature = "debug-canary") { 0xA5A5_A5A5 } else { 0 };
        assert_eq!(s.c[3], fresh);
        s.a[3].write(1);
    }
}

/// With the runtime's `debug-canary`: a buffer used outside its lifetime through the raw
/// accessor, and a kernel that writes past its buffer, are reported, naming the buffer
/// and the step. (Through a step's view the first does not compile, and the second cannot
/// happen: a view's field is exactly the buffer's array.)
#[cfg(all(test, feature = "debug-canary"))]
mod canary {
    use memplan_runtime::memory_plan;

    memory_plan! {
        mod wrong_lifetime {
            region r: 256 bytes;
            buffer logits: [f32; 4] in r, live 0..=0;
            buffer next: [f32; 4] in r, live 1..=1;
        }
    }

    memory_plan! {
        mod overflow {
            region r: 256 bytes;
            buffer a: [u8; 16] in r, live 0..=1;
            buffer b: [u8; 16] in r, live 1..=2;
        }
    }

    #[test]
    fn a_buffer_in_its_lifetime_passes_the_checked_accessor() {
        memory_plan! {
            mod fine {
                region r: 64 bytes;
                buffer a: [u8; 16] in r, live 0..=1;
            }
        }
        let m = fine::take().expect("taken once");
        m.begin_step(0);
        m.begin_step(1);
        let _ = m.checked_buffer::<fine::A>();
    }

    #[test]
    #[should_panic(expected = "memplan: buffer `logits` (live 0..=0) used at step 1")]
    fn a_raw_use_outside_the_lifetime_is_reported_by_the_checked_accessor() {
        let m = wrong_lifetime::take().expect("taken once");
        m.begin_step(0);
        let _ = m.checked_buffer::<wrong_lifetime::Logits>();
        m.begin_step(1);
        // The mistake of the firmware that printed wrong logits: read at step 1.
        let _ = m.checked_buffer::<wrong_lifetime::Logits>();
    }

    /// Steps opened out of order through the API that does not check it at compile time:
    /// caught at run time with `debug-canary`, naming both steps.
    #[test]
    #[should_panic(expected = "memplan: step 2 begun after step 0: a plan's steps run in order (step 1 next)")]
    fn a_step_opened_out_of_order_is_reported() {
        memory_plan! {
            mod ordered {
                region r: 256 bytes;
                buffer a: [u8; 16] in r, live 0..=1;
                buffer b: [u8; 16] in r, live 1..=2;
            }
        }
        let m = ordered::take().expect("taken once");
        let _ = m.step_any_order::<0>();
        let _ = m.step_any_order::<2>();
    }

    /// The wrap from the last step to step 0 (the next inference) is in order, and the
    /// canaries of the buffers that end at the last step are checked before step 0's
    /// buffers are poisoned (they share bytes: a false alarm before).
    #[test]
    fn the_walk_wraps_to_step_0_without_a_false_alarm() {
        memory_plan! {
            mod wrap {
                region r: 64 bytes;
                // Declared first and larger: poisoned first, over `late`'s canary.
                buffer early: [u8; 32] in r, live 0..=0;
                buffer late: [u8; 16] in r, live 1..=2;
            }
        }
        let m = wrap::take().expect("taken once");
        for _ in 0..3 {
            let mut step = m.walk();
            let (s, _) = step.view();
            s.early.fill(1);
            let mut step = step.next();
            let (s, _) = step.view();
            s.late.fill(2);
            let mut step = step.next();
            let _ = step.view();
        }
    }

    #[test]
    #[should_panic(expected = "memplan: buffer `a` (live 0..=1) wrote past its end")]
    fn a_kernel_writing_past_its_buffer_is_reported_by_the_canary() {
        let m = overflow::take().expect("taken once");
        m.begin_step(0);
        // A kernel is handed a raw pointer (as C kernels are) and writes 17 bytes into `a`.
        let a = m.checked_buffer::<overflow::A>().cast::<u8>().as_ptr();
        for i in 0..17 {
            // SAFETY: the pointer has the provenance of the whole arena, and `a` is followed
            // by its canary bytes (planned for `debug-canary`) inside it: the write is wrong,
            // not out of bounds; no view or slice of these bytes is alive.
            unsafe { a.add(i).write(0) };
        }
        m.begin_step(1);
        m.begin_step(2); // `a` ended at step 1: its canary is checked now
    }
}
