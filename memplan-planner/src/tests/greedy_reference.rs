//! Greedy's offsets are a public contract: first fit through interval unions over a time
//! tree ([`crate::fit`]) must give the same offsets as the plain quadratic scan over every
//! placed item, kept here as the reference, on random instances, on the adversarial shapes
//! (everything live at once, a few long steps, nested and staggered lifetimes) and on real
//! plans.

use std::path::PathBuf;

use crate::files::read_executorch;
use crate::greedy::{first_fit, greedy, greedy_order};
use crate::problem::Lifetime;
use crate::{Instance, Item, Layout};
use proptest::prelude::*;

/// The reference: the original greedy by size, first fit, scanning every placed item for
/// each new one (quadratic), with its own copy of the order and the fit.
mod reference {
    use super::*;

    /// Size, largest first; ties: the later item first (TensorFlow Lite Micro's order).
    pub fn order(instance: &Instance) -> Vec<usize> {
        let mut order: Vec<usize> = (0..instance.items.len()).rev().collect();
        // Stable: equal sizes keep the reversed index order.
        order.sort_by(|&a, &b| instance.items[b].size.cmp(&instance.items[a].size));
        order
    }

    fn align_up(v: u64, a: u64) -> Option<u64> {
        v.checked_add(a - 1).map(|x| x & !(a - 1))
    }

    fn lowest_fit(item: &Item, taken: &[(u64, u64)]) -> Option<u64> {
        let mut cand = 0u64;
        for &(start, end) in taken {
            if cand.checked_add(item.size)? <= start {
                break;
            }
            if end > cand {
                cand = align_up(end, item.align)?;
            }
        }
        Some(cand)
    }

    /// `None` on overflow.
    pub fn first_fit(instance: &Instance, order: &[usize]) -> Option<Vec<u64>> {
        let items = &instance.items;
        let mut offsets = vec![0u64; items.len()];
        let mut placed: Vec<(u64, u64, usize)> = Vec::new();
        for (i, it) in items.iter().enumerate() {
            if let Some(off) = it.fixed {
                offsets[i] = off;
                if it.size > 0 {
                    placed.push((off, off.checked_add(it.size)?, i));
                }
            }
        }
        for &i in order {
            let it = &items[i];
            if it.fixed.is_some() {
                continue;
            }
            if it.size == 0 {
                offsets[i] = 0;
                continue;
            }
            let mut conflicts: Vec<(u64, u64)> = placed
                .iter()
                .filter(|&&(_, _, j)| items[j].lifetime.conflicts(&it.lifetime))
                .map(|&(o, e, _)| (o, e))
                .collect();
            conflicts.sort_unstable();
            let off = lowest_fit(it, &conflicts)?;
            offsets[i] = off;
            placed.push((off, off.checked_add(it.size)?, i));
        }
        Some(offsets)
    }
}

fn items_strategy(max_items: usize) -> impl Strategy<Value = Instance> {
    let item = (
        0u64..200,
        0u32..5,
        0u32..40,
        0u32..12,
        proptest::bool::weighted(0.1),
    );
    proptest::collection::vec(item, 0..max_items).prop_map(|raw| {
        let mut items: Vec<Item> = raw
            .iter()
            .map(|&(size, a, first, len, _)| Item {
                size,
                align: 1 << (a * 2),
                lifetime: Lifetime {
                    first,
                    last: first + len,
                },
                fixed: None,
            })
            .collect();
        // Pins that are valid among themselves: the pinned items first-fit on their own.
        let pinned: Vec<usize> = (0..raw.len()).filter(|&i| raw[i].4).collect();
        let sub = Instance {
            pieces: Vec::new(),
            items: pinned.iter().map(|&i| items[i]).collect(),
        };
        let order: Vec<usize> = (0..pinned.len()).collect();
        let offsets = reference::first_fit(&sub, &order).expect("small sizes");
        for (k, &i) in pinned.iter().enumerate() {
            items[i].fixed = Some(offsets[k]);
        }
        Instance::new(items)
    })
}

/// Up to `max_items` items over `steps` steps, sizes and alignments mixed so that gaps
/// open that a later item fits only once aligned (or not at all).
fn crowded(max_items: usize, steps: u32) -> impl Strategy<Value = Instance> {
    let item = (1u64..300, 0u32..4, 0..steps, 0..steps);
    proptest::collection::vec(item, 0..max_items).prop_map(|raw| Instance {
        pieces: Vec::new(),
        items: raw
            .iter()
            .map(|&(size, a, x, y)| Item {
                size,
                align: 1 << (a * 2),
                lifetime: Lifetime {
                    first: x.min(y),
                    last: x.max(y),
                },
                fixed: None,
            })
            .collect(),
    })
}

/// A deterministic generator (xorshift64) from `seed`: each call, a number below `m`.
fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut s = seed | 1;
    move |m| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    }
}

/// A deterministic shuffle of `0..n`.
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut next = numbers(seed);
    for i in (1..order.len()).rev() {
        order.swap(i, next(i as u64 + 1) as usize);
    }
    order
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn crowded_steps_match_the_reference(instance in crowded(200, 4), seed in any::<u64>()) {
        // Many items over few steps: unions of dozens of intervals (past the short lists).
        let order = reference::order(&instance);
        prop_assert_eq!(first_fit(&instance, &order).unwrap().offsets, reference::first_fit(&instance, &order).unwrap());
        let order = shuffled(instance.items.len(), seed);
        prop_assert_eq!(first_fit(&instance, &order).unwrap().offsets, reference::first_fit(&instance, &order).unwrap());
    }

    #[test]
    fn greedy_matches_the_quadratic_reference(instance in items_strategy(60)) {
        let got = greedy(&instance).unwrap();
        let want = reference::first_fit(&instance, &reference::order(&instance)).unwrap();
        prop_assert_eq!(greedy_order(&instance), reference::order(&instance));
        prop_assert_eq!(&got.offsets, &want);
        prop_assert_eq!(got, Layout::from_offsets(&instance, want).unwrap());
    }

    #[test]
    fn first_fit_matches_the_reference_in_any_order(instance in items_strategy(40), seed in any::<u64>()) {
        let order = shuffled(instance.items.len(), seed);
        let got = first_fit(&instance, &order).unwrap();
        prop_assert_eq!(got.offsets, reference::first_fit(&instance, &order).unwrap());
    }
}

#[test]
fn overflow_is_reported_like_the_reference() {
    let inst = Instance {
        pieces: Vec::new(),
        items: vec![
            Item {
                size: u64::MAX - 4,
                align: 1,
                lifetime: Lifetime { first: 0, last: 1 },
                fixed: None,
            },
            Item {
                size: 8,
                align: 1,
                lifetime: Lifetime { first: 1, last: 2 },
                fixed: None,
            },
        ],
    };
    assert!(reference::first_fit(&inst, &reference::order(&inst)).is_none());
    assert_eq!(greedy(&inst).unwrap_err().item, 1);
}

#[test]
fn executorch_plans_match_the_reference() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let rows = read_executorch(&path).unwrap();
        let instance = Instance {
            pieces: Vec::new(),
            items: rows
                .iter()
                .map(|(_, r)| Item {
                    size: r.size,
                    align: 16,
                    lifetime: r.lifetime(),
                    fixed: None,
                })
                .collect(),
        };
        let want = reference::first_fit(&instance, &reference::order(&instance)).unwrap();
        assert_eq!(
            greedy(&instance).unwrap().offsets,
            want,
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert_eq!(seen, 7);
}

#[test]
fn a_long_random_instance_matches_the_reference() {
    // 3,000 items over 2,000 steps: enough overlap for long conflict lists.
    let mut next = numbers(0x2545_F491_4F6C_DD1D);
    let items = (0..3000)
        .map(|_| {
            let first = next(2000) as u32;
            Item {
                size: 16 * (1 + next(256)),
                align: 1 << (4 + next(3)),
                lifetime: Lifetime {
                    first,
                    last: first + next(64) as u32,
                },
                fixed: None,
            }
        })
        .collect();
    let instance = Instance::new(items);
    let want = reference::first_fit(&instance, &reference::order(&instance)).unwrap();
    assert_eq!(greedy(&instance).unwrap().offsets, want);
}

/// An adversarial shape of `n` items from a seed: sizes 16 B to 64 KiB, alignments 1 to
/// 64, a few pinned items laid out first.
fn shape(
    n: usize,
    seed: u64,
    lifetime: impl Fn(usize, &mut dyn FnMut(u64) -> u64) -> (u32, u32),
) -> Instance {
    let mut next = numbers(seed);
    let mut items: Vec<Item> = (0..n)
        .map(|i| {
            let (first, last) = lifetime(i, &mut next);
            Item {
                size: 16 << next(13),
                align: 1 << next(7),
                lifetime: Lifetime { first, last },
                fixed: None,
            }
        })
        .collect();
    // Every 97th item pinned, where first fit of the pinned ones alone puts it.
    let pinned: Vec<usize> = (0..n).step_by(97).collect();
    let sub = Instance {
        pieces: Vec::new(),
        items: pinned.iter().map(|&i| items[i]).collect(),
    };
    let order: Vec<usize> = (0..pinned.len()).collect();
    let offsets = reference::first_fit(&sub, &order).expect("small sizes");
    for (k, &i) in pinned.iter().enumerate() {
        items[i].fixed = Some(offsets[k]);
    }
    Instance::new(items)
}

#[test]
fn adversarial_shapes_match_the_reference() {
    let n = 1500;
    let shapes: Vec<(&str, Instance)> = vec![
        ("all live", shape(n, 1, |_, _| (0, 0))),
        (
            "seven steps",
            shape(n, 2, |_, next| {
                let (a, b) = (next(7) as u32, next(7) as u32);
                (a.min(b), a.max(b))
            }),
        ),
        (
            "nested",
            shape(n, 3, |i, _| (i as u32, 2 * n as u32 - i as u32)),
        ),
        (
            "staggered",
            shape(n, 4, |i, _| (i as u32, (i + n / 2) as u32)),
        ),
        (
            "long and short",
            shape(n, 5, |i, next| {
                let first = next(3000) as u32;
                let len = if i % 10 == 0 { next(3000) } else { next(8) };
                (first, first + len as u32)
            }),
        ),
    ];
    for (name, instance) in &shapes {
        for (k, order) in [reference::order(instance), shuffled(n, 7)]
            .iter()
            .enumerate()
        {
            let want = reference::first_fit(instance, order).unwrap();
            assert_eq!(
                first_fit(instance, order).unwrap().offsets,
                want,
                "{name}, order {k}"
            );
        }
    }
}
