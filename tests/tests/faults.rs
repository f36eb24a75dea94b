//! Fault cases whose answer is a plan that builds (from real bug reports of memory
//! planners, each described where it is declared): each invocation below is planned at
//! compile time, and the tests check the generated offsets against the right answer worked
//! out by hand in the comments. The cases whose answer is a build error are trybuild cases
//! in `ui/fail/`.

use memplan_runtime::{BufferInfo, MemoryId, PlannedBuffer, memory_plan};

/// Whether buffers `a` and `b` share a step and a byte.
fn clash(a: &BufferInfo, b: &BufferInfo) -> bool {
    let steps = a.first <= b.last && b.first <= a.last;
    let bytes =
        a.size > 0 && b.size > 0 && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
    a.memory_id == b.memory_id && steps && bytes
}

fn assert_no_clash(table: &[BufferInfo]) {
    assert_no_clash_except(table, &[]);
}

/// No two buffers share bytes at a common step, except the `allowed` pairs (a buffer and
/// one in place of it).
fn assert_no_clash_except(table: &[BufferInfo], allowed: &[(&str, &str)]) {
    for (i, a) in table.iter().enumerate() {
        for b in &table[i + 1..] {
            if allowed.contains(&(a.name, b.name)) || allowed.contains(&(b.name, a.name)) {
                continue;
            }
            assert!(
                !clash(a, b),
                "{} and {} share bytes at a common step",
                a.name,
                b.name
            );
        }
    }
}

// Exact fit (a real bug computed such an arena one byte short): 1024 bytes, align 8; a =
// 512 live [0,1], b = 512 live [1,2]. They meet at step 1, so they need 512 + 512 = 1024
// bytes: offsets {0, 512}, highest end exactly 1024.
memory_plan! {
    mod exact_fit {
        region sram: 1024 bytes, align 8;
        buffer a: 512 bytes in sram, live 0..=1, align 8;
        buffer b: 512 bytes in sram, live 1..=2, align 8;
    }
}

#[test]
fn exact_fit_compiles_with_offsets_0_and_512() {
    let mut offsets = [
        <exact_fit::A as PlannedBuffer>::OFFSET,
        <exact_fit::B as PlannedBuffer>::OFFSET,
    ];
    offsets.sort();
    assert_eq!(offsets, [0, 512]);
    let end = exact_fit::BUFFERS.iter().map(|b| b.offset + b.size).max();
    assert_eq!(end, Some(1024));
    assert_eq!(<exact_fit::Sram as MemoryId>::SIZE, 1024);
}

// Alignment padding counts (a real bug sized the pool from the raw sizes): twenty 10-byte
// buffers, align 4, all live at step 0, in a 240-byte pool. Each starts on a multiple of 4,
// so each but the last takes 12 bytes: the least end is 19 * 12 + 10 = 238.
memory_plan! {
    mod padded {
        region pool: 240 bytes, align 4;
        buffer b0: 10 bytes in pool, live 0..=0;
        buffer b1: 10 bytes in pool, live 0..=0;
        buffer b2: 10 bytes in pool, live 0..=0;
        buffer b3: 10 bytes in pool, live 0..=0;
        buffer b4: 10 bytes in pool, live 0..=0;
        buffer b5: 10 bytes in pool, live 0..=0;
        buffer b6: 10 bytes in pool, live 0..=0;
        buffer b7: 10 bytes in pool, live 0..=0;
        buffer b8: 10 bytes in pool, live 0..=0;
        buffer b9: 10 bytes in pool, live 0..=0;
        buffer b10: 10 bytes in pool, live 0..=0;
        buffer b11: 10 bytes in pool, live 0..=0;
        buffer b12: 10 bytes in pool, live 0..=0;
        buffer b13: 10 bytes in pool, live 0..=0;
        buffer b14: 10 bytes in pool, live 0..=0;
        buffer b15: 10 bytes in pool, live 0..=0;
        buffer b16: 10 bytes in pool, live 0..=0;
        buffer b17: 10 bytes in pool, live 0..=0;
        buffer b18: 10 bytes in pool, live 0..=0;
        buffer b19: 10 bytes in pool, live 0..=0;
    }
}

#[test]
fn alignment_padding_is_counted_and_the_end_is_238() {
    assert_eq!(padded::BUFFERS.len(), 20);
    for b in padded::BUFFERS {
        assert_eq!(b.offset % 4, 0, "{}", b.name);
        assert_eq!(b.size, 10);
    }
    assert_no_clash(padded::BUFFERS);
    let end = padded::BUFFERS
        .iter()
        .map(|b| b.offset + b.size)
        .max()
        .unwrap();
    assert_eq!(end, 238);
    assert_eq!(<padded::Pool as MemoryId>::SIZE, 238);
}

// Zero-size buffers: a 64-byte buffer and a zero-size one, both live [0,3], in 64 bytes,
// align 16.
memory_plan! {
    mod zero_size {
        region act: 64 bytes, align 16;
        buffer a: 64 bytes in act, live 0..=3, align 16;
        buffer z: 0 bytes in act, live 0..=3, align 16;
    }
}

#[test]
fn zero_size_buffer_is_aligned_and_raises_no_peak() {
    let z = <zero_size::Z as PlannedBuffer>::OFFSET;
    assert_eq!(z % 16, 0);
    assert!(z <= 64);
    assert_eq!(<zero_size::Z as PlannedBuffer>::SIZE, 0);
    assert_eq!(<zero_size::Act as MemoryId>::SIZE, 64);
    assert_eq!(zero_size::Act::LOWER_BOUND, 64);
}

// Lifetimes that do not meet share bytes: a = 608 live [0,2], b = 512 live [3,4] never
// meet, so b may reuse a's bytes and the peak is 608.
memory_plan! {
    mod disjoint {
        region act: 1024 bytes, align 16;
        buffer a: 608 bytes in act, live 0..=2;
        buffer b: 512 bytes in act, live 3..=4;
    }
}

#[test]
fn disjoint_lifetimes_reuse_bytes() {
    assert_eq!(<disjoint::Act as MemoryId>::SIZE, 608);
    assert_eq!(<disjoint::B as PlannedBuffer>::OFFSET, 0);
}

// Exclusive ends: `live 3..5` is steps 3 and 4, so it does not meet `live 0..3`.
memory_plan! {
    mod exclusive {
        region act: 1024 bytes, align 16;
        buffer a: 608 bytes in act, live 0..3;
        buffer b: 512 bytes in act, live 3..5;
    }
}

#[test]
fn exclusive_lifetimes_end_one_step_early() {
    assert_eq!(<exclusive::A as PlannedBuffer>::LAST, 2);
    assert_eq!(<exclusive::B as PlannedBuffer>::LAST, 4);
    assert_eq!(<exclusive::Act as MemoryId>::SIZE, 608);
}

#[test]
fn take_hands_out_the_manager_once() {
    assert!(disjoint::take().is_some());
    assert!(disjoint::take().is_none());
    assert!(disjoint::take().is_none());
}

// A plan file written by a build script into OUT_DIR: eight 1 KiB buffers in a chain, each
// live two steps, so at most two are live at once: 2048 bytes.
memory_plan! {
    mod generated {
        region sram: 4 KiB;
        buffers in sram from out_dir "generated_plan.csv";
    }
}

#[test]
fn plan_file_from_out_dir() {
    assert_eq!(generated::BUFFERS.len(), 8);
    assert_eq!(generated::BUFFERS[3].name, "layer3.out");
    assert_eq!(<generated::Sram as MemoryId>::SIZE, 2048);
    assert_eq!(<generated::Layer3Out as PlannedBuffer>::FIRST, 3);
    assert_no_clash(generated::BUFFERS);
}

// In place: `out` in place of `inp` takes its offset; nothing else live in [0, 3] overlaps
// inp's 256 bytes.
memory_plan! {
    mod in_place {
        region act: 1024 bytes, align 16;
        buffer inp: 256 bytes in act, live 0..=1;
        buffer out: 256 bytes in place of inp, live 1..=3;
        buffer other: 512 bytes in act, live 0..=3;
        buffer late: 256 bytes in act, live 2..=3;
    }
}

#[test]
fn in_place_shares_the_source_offset_and_keeps_its_bytes() {
    let inp = <in_place::Inp as PlannedBuffer>::OFFSET;
    assert_eq!(<in_place::Out as PlannedBuffer>::OFFSET, inp);
    for b in in_place::BUFFERS
        .iter()
        .filter(|b| b.name != "inp" && b.name != "out")
    {
        let overlaps = b.offset < inp + 256 && inp < b.offset + b.size;
        assert!(
            !overlaps,
            "{} overlaps inp's bytes while inp or out is live",
            b.name
        );
    }
}

// Spill: buffers without a region go to the first region, in declaration order, where the
// whole plan still fits.
memory_plan! {
    mod spill {
        region tcm: 1024 bytes;
        region sram: 8192 bytes;
        buffer small: 512 bytes, live 0..=1;
        buffer big: 4000 bytes, live 0..=1;
        buffer fits_tcm: 512 bytes, live 0..=1;
        buffer pinned_tcm: 256 bytes in tcm, live 5..=6;
    }
}

#[test]
fn unplaced_buffers_spill_in_declaration_order() {
    let region_of = |name: &str| {
        spill::BUFFERS
            .iter()
            .find(|b| b.name == name)
            .unwrap()
            .memory_id
    };
    assert_eq!(region_of("small"), 0);
    assert_eq!(region_of("big"), 1);
    assert_eq!(region_of("fits_tcm"), 0);
    assert_eq!(region_of("pinned_tcm"), 0);
    assert_eq!(<spill::Tcm as MemoryId>::SIZE, 1024);
}

// Pins: `p` pinned at 512 and `q` pinned at 640 never meet in time (q live [5,6]); an
// unpinned 512-byte `u` live [0,4] must go at 0, the only gap beside p.
memory_plan! {
    mod pins {
        region act: 1024 bytes, align 16;
        buffer p: 256 bytes in act, live 0..=4, at 512;
        buffer q: 128 bytes in act, live 5..=6, at 640;
        buffer u: 512 bytes in act, live 0..=4;
    }
}

#[test]
fn pins_are_kept_and_others_fill_the_gap() {
    assert_eq!(<pins::P as PlannedBuffer>::OFFSET, 512);
    assert_eq!(<pins::Q as PlannedBuffer>::OFFSET, 640);
    assert_eq!(<pins::U as PlannedBuffer>::OFFSET, 0);
    assert_no_clash(pins::BUFFERS);
}

// The kernel-temporary pool of the generated manager is empty before the first
// kernel: a first allocation of the whole pool returns its base.
memory_plan! {
    mod temp_pool {
        region act: 64 bytes;
        temp: 256 bytes, align 8;
        buffer a: 64 bytes in act, live 0..=0;
    }
}

#[test]
fn generated_temp_pool_starts_empty() {
    let m = temp_pool::take().unwrap();
    let base = m.temp().base_address();
    assert_eq!(m.temp().allocate(256, 8).unwrap(), base);
    assert!(m.temp().allocate(1, 1).is_err());
}

// In-place chains: the region comes from whichever member names one, and a missing size
// from the first sized buffer up the chain, whatever the declaration order.
memory_plan! {
    mod chains {
        region r0: 1 KiB;
        region r1: 1 KiB;
        buffer a: 64 bytes, live 0..=1;
        buffer b: in place of a, in r1, live 1..=2;
        buffer x: in place of y, live 2..=3;
        buffer y: in place of z, live 1..=2;
        buffer z: 96 bytes in r0, live 0..=1;
    }
}

#[test]
fn in_place_chains_take_region_and_size_from_the_chain() {
    let get = |name: &str| *chains::BUFFERS.iter().find(|b| b.name == name).unwrap();
    // `b` names r1, so its source `a` (placed anywhere) goes there too: never split.
    assert_eq!(get("a").memory_id, 1);
    assert_eq!(get("b").memory_id, 1);
    assert_eq!(get("b").offset, get("a").offset);
    // x -> y -> z: both take z's 96 bytes and offset.
    assert_eq!(get("x").size, 96);
    assert_eq!(get("y").size, 96);
    assert_eq!(get("x").offset, get("z").offset);
    assert_no_clash_except(
        chains::BUFFERS,
        &[("a", "b"), ("x", "y"), ("y", "z"), ("x", "z")],
    );
}
