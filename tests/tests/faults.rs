//! The fault cases of `shared/cases/faults.md` whose answer is a plan that builds: each
//! invocation below is planned at compile time, and the tests check the generated
//! offsets against the right answer worked out by hand in the comments. The cases whose
//! answer is a build error are trybuild cases in `ui/fail/`.

use memplan_runtime::{BufferInfo, MemoryId, PlannedBuffer, memory_plan};

/// Whether buffers `a` and `b` share a step and a byte.
fn clash(a: &BufferInfo, b: &BufferInfo) -> bool {
    let steps = a.first <= b.last && b.first <= a.last;
    let bytes = a.size > 0 && b.size > 0 && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
    a.memory_id == b.memory_id && steps && bytes
}

fn assert_no_clash(table: &[BufferInfo]) {
    for (i, a) in table.iter().enumerate() {
        for b in &table[i + 1..] {
            assert!(!clash(a, b), "{} and {} share bytes at a common step", a.name, b.name);
        }
    }
}

// BL-01: 1024 bytes, align 8; a = 512 live [0,1], b = 512 live [1,2]. They meet at step 1,
// so they need 512 + 512 = 1024 bytes: offsets {0, 512}, highest end exactly 1024.
memory_plan! {
    mod bl01 {
        region sram: 1024 bytes, align 8;
        buffer a: 512 bytes in sram, live 0..=1, align 8;
        buffer b: 512 bytes in sram, live 1..=2, align 8;
    }
}

#[test]
fn bl01_exact_fit_compiles_with_offsets_0_and_512() {
    let mut offsets = [<bl01::A as PlannedBuffer>::OFFSET, <bl01::B as PlannedBuffer>::OFFSET];
    offsets.sort();
    assert_eq!(offsets, [0, 512]);
    let end = bl01::BUFFERS.iter().map(|b| b.offset + b.size).max();
    assert_eq!(end, Some(1024));
    assert_eq!(<bl01::Sram as MemoryId>::SIZE, 1024);
}

// BL-02: twenty 10-byte buffers, align 4, all live at step 0, in a 240-byte pool. Each
// starts on a multiple of 4, so each but the last takes 12 bytes: the least end is
// 19 * 12 + 10 = 238.
memory_plan! {
    mod bl02 {
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
fn bl02_padding_is_counted_and_the_end_is_238() {
    assert_eq!(bl02::BUFFERS.len(), 20);
    for b in bl02::BUFFERS {
        assert_eq!(b.offset % 4, 0, "{}", b.name);
        assert_eq!(b.size, 10);
    }
    assert_no_clash(bl02::BUFFERS);
    let end = bl02::BUFFERS.iter().map(|b| b.offset + b.size).max().unwrap();
    assert_eq!(end, 238);
    assert_eq!(<bl02::Pool as MemoryId>::SIZE, 238);
}

// BL-05: a 64-byte buffer and a zero-size one, both live [0,3], in 64 bytes, align 16.
memory_plan! {
    mod bl05 {
        region act: 64 bytes, align 16;
        buffer a: 64 bytes in act, live 0..=3, align 16;
        buffer z: 0 bytes in act, live 0..=3, align 16;
    }
}

#[test]
fn bl05_zero_size_buffer_is_aligned_and_raises_no_peak() {
    let z = <bl05::Z as PlannedBuffer>::OFFSET;
    assert_eq!(z % 16, 0);
    assert!(z <= 64);
    assert_eq!(<bl05::Z as PlannedBuffer>::SIZE, 0);
    assert_eq!(<bl05::Act as MemoryId>::SIZE, 64);
    assert_eq!(bl05::Act::LOWER_BOUND, 64);
}

// BL-06 control: a = 608 live [0,2], b = 512 live [3,4] never meet, so b may reuse a's
// bytes and the peak is 608.
memory_plan! {
    mod bl06 {
        region act: 1024 bytes, align 16;
        buffer a: 608 bytes in act, live 0..=2;
        buffer b: 512 bytes in act, live 3..=4;
    }
}

#[test]
fn bl06_disjoint_lifetimes_reuse_bytes() {
    assert_eq!(<bl06::Act as MemoryId>::SIZE, 608);
    assert_eq!(<bl06::B as PlannedBuffer>::OFFSET, 0);
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
fn bl11_take_once() {
    assert!(bl06::take().is_some());
    assert!(bl06::take().is_none());
    assert!(bl06::take().is_none());
}
