//! Plans generated from a fixed seed at build time (`build.rs`: a few dozen random
//! invocations, with in-place buffers), walked step by step through the safe generic path
//! (`MemoryManager::live_at`): each buffer written with its own pattern when it starts,
//! and every buffer live at a step checked at that step, so no byte under a live buffer
//! ever changes; an in-place buffer finds its source's pattern at the handover.

use memplan_runtime::{MemoryManager, Schedule, memory_plan};

include!(concat!(env!("OUT_DIR"), "/random_plans.rs"));

fn pattern(name: &str, i: usize) -> u8 {
    name.bytes().fold(i as u8, |h, b| h.wrapping_mul(31) ^ b)
}

fn walk<P: Schedule>(plan: &str, manager: &mut MemoryManager<'_, P>) {
    let last = P::BUFFERS.iter().map(|b| b.last).max().unwrap_or(0);
    let mut seen = 0;
    for t in 0..=last {
        for live in manager.live_at(t) {
            let b = live.info;
            let bytes = live
                .bytes
                .into_init()
                .expect("a zeroed region: initialised bytes");
            if let Some(src) = live.handover_from {
                // The source's bytes, still its own at its last step (written now if it
                // starts at this step too).
                let n = src.size.min(bytes.len());
                if src.first == t {
                    for (i, x) in bytes[..n].iter_mut().enumerate() {
                        *x = pattern(src.name, i);
                    }
                }
                assert!(
                    (0..n).all(|i| bytes[i] == pattern(src.name, i)),
                    "{plan}: {} changed before {} took it over at step {t}",
                    src.name,
                    b.name
                );
                seen += 1;
            }
            if b.first == t {
                for (i, x) in bytes.iter_mut().enumerate() {
                    *x = pattern(b.name, i);
                }
            }
            assert!(
                bytes
                    .iter()
                    .enumerate()
                    .all(|(i, &x)| x == pattern(b.name, i)),
                "{plan}: a byte of {} changed at step {t}",
                b.name
            );
            seen += usize::from(b.last == t);
        }
    }
    assert_eq!(seen, P::BUFFERS.len(), "{plan}: every buffer ends once");
}

#[test]
fn no_byte_under_a_live_buffer_changes_in_any_generated_plan() {
    walk_all();
}
