//! Paired timing of `MemoryAllocator::allocate` against bumpalo's `Bump::alloc_layout`:
//! the two run alternately in short rounds inside one process, and each round's ratio is
//! taken against its neighbour, so slow drifts of a shared machine cancel. Complements the
//! criterion benchmark `alloc`, whose cases run one after the other.
//!
//! `cargo bench -p memplan-runtime --no-default-features --bench paired`

#![allow(missing_docs)]

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::time::Instant;

use bumpalo::Bump;
use memplan_runtime::MemoryAllocator;

mod workload;
use workload::{POOL, RESET_EVERY, SEQUENCE, sequence};

const ROUNDS: usize = 2001;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("paired: bench");
        return;
    }
    let layouts = sequence();
    let mut mem = vec![MaybeUninit::<u8>::uninit(); POOL];
    let mut pool = MemoryAllocator::new(&mut mem);
    let mut bump = Bump::with_capacity(POOL);

    let mut memplan_round = || {
        let t = Instant::now();
        for batch in layouts.chunks(RESET_EVERY) {
            for layout in batch {
                black_box(pool.allocate(layout.size(), layout.align()).unwrap());
            }
            pool.reset();
        }
        t.elapsed().as_secs_f64()
    };
    let mut bumpalo_round = || {
        let t = Instant::now();
        for batch in layouts.chunks(RESET_EVERY) {
            for layout in batch {
                black_box(bump.alloc_layout(*layout));
            }
            bump.reset();
        }
        t.elapsed().as_secs_f64()
    };
    // Warm-up.
    for _ in 0..200 {
        memplan_round();
        bumpalo_round();
    }
    let (mut m, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        // Alternate which goes first, so neither always follows the other.
        let (x, y) = if i % 2 == 0 {
            let x = memplan_round();
            (x, bumpalo_round())
        } else {
            let y = bumpalo_round();
            (memplan_round(), y)
        };
        m.push(x);
        b.push(y);
        ratios.push(x / y);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let per = |s: f64| s * 1e9 / SEQUENCE as f64;
    let (mm, bm) = (median(&mut m), median(&mut b));
    let (mmin, bmin) = (m[0], b[0]);
    let r = median(&mut ratios);
    let (q1, q3) = (ratios[ROUNDS / 4], ratios[3 * ROUNDS / 4]);
    println!(
        "paired over {ROUNDS} rounds of {SEQUENCE} allocations: memplan {:.3} ns (min {:.3}), bumpalo {:.3} ns (min {:.3}) per allocation",
        per(mm),
        per(mmin),
        per(bm),
        per(bmin)
    );
    println!(
        "memplan/bumpalo per-round ratio: median {r:.3}, quartiles {q1:.3}..{q3:.3}; ratio of minima {:.3}",
        mmin / bmin
    );
}
