//! The `.pte` reader on arbitrary bytes: an error naming the file, or a program whose
//! planned tensors have lifetimes within its steps and alias groups that cover their
//! members; a program that reads is written back with its own plan and read again, to the
//! same tensors. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_planner::files::pte;

fuzz_target!(|data: &[u8]| {
    match pte::read(data, "fuzz.pte", None) {
        Err(e) => assert_eq!(e.file, "fuzz.pte"),
        Ok(m) => {
            for t in &m.tensors {
                assert!(t.lifetime.first <= t.lifetime.last && t.lifetime.last <= m.last_step);
            }
            for g in &m.alias_groups {
                for &k in &g.members {
                    assert!(g.size >= m.tensors[k].size);
                }
            }
            let offsets: Vec<_> = m
                .tensors
                .iter()
                .map(|t| pte::PlannedOffset {
                    value: t.id.index,
                    memory_id: t.memory_id.unwrap_or(1),
                    offset: t.file_offset.unwrap_or(0),
                })
                .collect();
            if let Ok(written) = pte::write_plan(data, "fuzz.pte", None, &offsets, &m.buffer_sizes)
            {
                let again = pte::read(&written, "fuzz.pte", None).expect("a written program reads");
                assert_eq!(again.tensors, m.tensors);
            }
        }
    }
});
