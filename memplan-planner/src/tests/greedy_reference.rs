//! Greedy's offsets are a public contract: the conflict-graph implementation must give the
//! same offsets as the plain quadratic scan it replaced, kept here as the reference.

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

    pub fn order(instance: &Instance) -> Vec<usize> {
        let mut order: Vec<usize> = (0..instance.items.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&instance.items[a], &instance.items[b]);
            y.size
                .cmp(&x.size)
                .then(y.lifetime.len().cmp(&x.lifetime.len()))
                .then(x.lifetime.first.cmp(&y.lifetime.first))
                .then(a.cmp(&b))
        });
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
            items: pinned.iter().map(|&i| items[i]).collect(),
        };
        let order: Vec<usize> = (0..pinned.len()).collect();
        let offsets = reference::first_fit(&sub, &order).expect("small sizes");
        for (k, &i) in pinned.iter().enumerate() {
            items[i].fixed = Some(offsets[k]);
        }
        Instance { items }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

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
        // A deterministic shuffle of the indices.
        let mut order: Vec<usize> = (0..instance.items.len()).collect();
        let mut s = seed | 1;
        for i in (1..order.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            order.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let got = first_fit(&instance, &order).unwrap();
        prop_assert_eq!(got.offsets, reference::first_fit(&instance, &order).unwrap());
    }
}

#[test]
fn overflow_is_reported_like_the_reference() {
    let inst = Instance {
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
        let rows = read_executorch(&path).unwrap();
        let instance = Instance {
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
    assert_eq!(seen, 6);
}

#[test]
fn a_long_random_instance_matches_the_reference() {
    // 3,000 items over 2,000 steps: enough overlap for long conflict lists.
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
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
    let instance = Instance { items };
    let want = reference::first_fit(&instance, &reference::order(&instance)).unwrap();
    assert_eq!(greedy(&instance).unwrap().offsets, want);
}
