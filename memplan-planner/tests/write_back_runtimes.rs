//! Files for the runtimes themselves to judge: each model written back with memplan's greedy
//! plan as its own (TFLite's offline plan, ExecuTorch's `allocation_info`), for
//! `tests/data/runtime_check.py` to run in TensorFlow Lite Micro's and ExecuTorch's Python
//! runtimes beside the original, on the same inputs. Ignored by default (it writes files):
//!
//! ```sh
//! MEMPLAN_WRITE_BACK_DIR=target/write-back cargo test -p memplan-planner --test write_back_runtimes -- --ignored
//! python memplan-planner/tests/data/runtime_check.py target/write-back
//! ```
#![cfg(feature = "write")]

use std::path::PathBuf;

use memplan_planner::files::{ModelFile, TensorId, pte, tflite};
use memplan_planner::{Buffer, Problem, Region, Strategy, align_up, plan};

/// memplan's greedy offsets for `(size, first, last)` items, 16-byte aligned.
fn greedy(items: &[(u64, u32, u32)]) -> (Vec<u64>, u64) {
    let problem = Problem {
        regions: vec![Region {
            name: "arena".into(),
            capacity: u64::MAX / 4,
            align: 16,
        }],
        buffers: items
            .iter()
            .enumerate()
            .map(|(k, &(size, first, last))| {
                Buffer::new(format!("b{k}"), align_up(size, 16).unwrap(), 0, first, last)
            })
            .collect(),
    };
    let p = plan(&problem, Strategy::Greedy).unwrap();
    (
        p.buffers.iter().map(|b| b.offset).collect(),
        p.regions[0].planned_bytes,
    )
}

fn tflite_plan(m: &ModelFile) -> Vec<(TensorId, u64)> {
    let live: Vec<_> = m.tensors.iter().filter(|t| !t.persistent).collect();
    let items: Vec<_> = live
        .iter()
        .map(|t| (t.size, t.lifetime.first, t.lifetime.last))
        .collect();
    let (offsets, _) = greedy(&items);
    live.iter().zip(offsets).map(|(t, o)| (t.id, o)).collect()
}

fn pte_plan(m: &ModelFile) -> (Vec<pte::PlannedOffset>, u64) {
    // One item per alias group and per tensor outside groups.
    let mut items = Vec::new();
    let mut item_of = Vec::new();
    let mut group_item = vec![None; m.alias_groups.len()];
    for t in &m.tensors {
        let k = match t.alias_group {
            Some(g) => *group_item[g].get_or_insert_with(|| {
                let a = &m.alias_groups[g];
                items.push((a.size, a.lifetime.first, a.lifetime.last));
                items.len() - 1
            }),
            None => {
                items.push((t.size, t.lifetime.first, t.lifetime.last));
                items.len() - 1
            }
        };
        item_of.push(k);
    }
    let (offsets, bytes) = greedy(&items);
    let planned = m
        .tensors
        .iter()
        .zip(item_of)
        .map(|(t, k)| pte::PlannedOffset {
            value: t.id.index,
            memory_id: 1,
            offset: offsets[k],
        })
        .collect();
    (planned, bytes)
}

#[test]
#[ignore = "writes files for the Python runtimes: set MEMPLAN_WRITE_BACK_DIR"]
fn write_files_for_the_runtimes() {
    let out =
        PathBuf::from(std::env::var("MEMPLAN_WRITE_BACK_DIR").expect("MEMPLAN_WRITE_BACK_DIR"));
    std::fs::create_dir_all(&out).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for name in [
        "hello_world_int8",
        "micro_speech_quantized",
        "person_detect",
        "simple_add_model",
    ] {
        let path = root.join(format!("../examples/data/tflite/{name}.tflite"));
        let bytes = std::fs::read(&path).unwrap();
        let m = tflite::read(&bytes, name).unwrap();
        let written = tflite::write_offline_plan(&bytes, name, &tflite_plan(&m)).unwrap();
        std::fs::copy(&path, out.join(format!("{name}.tflite"))).unwrap();
        std::fs::write(out.join(format!("{name}.memplan.tflite")), written).unwrap();
    }
    for (path, name) in [
        ("../examples/data/pte/add.pte", "add"),
        (
            "../examples/data/pte/arduino_add_model.pte",
            "arduino_add_model",
        ),
        ("tests/data/pte/views.pte", "views"),
    ] {
        let bytes = std::fs::read(root.join(path)).unwrap();
        let m = pte::read(&bytes, name, None).unwrap();
        let (offsets, size) = pte_plan(&m);
        let written = pte::write_plan(&bytes, name, None, &offsets, &[0, size]).unwrap();
        std::fs::write(out.join(format!("{name}.pte")), &bytes).unwrap();
        std::fs::write(out.join(format!("{name}.memplan.pte")), written).unwrap();
        if !m.alias_groups.is_empty() {
            // The control: the same plan with every tensor on bytes of its own, groups
            // ignored. A view no longer sees its base's data: the runtime's output differs.
            let mut next = 0;
            let split: Vec<_> = m
                .tensors
                .iter()
                .map(|t| {
                    let o = pte::PlannedOffset {
                        value: t.id.index,
                        memory_id: 1,
                        offset: next,
                    };
                    next += align_up(t.size, 16).unwrap();
                    o
                })
                .collect();
            let split = pte::write_plan(&bytes, name, None, &split, &[0, next]).unwrap();
            std::fs::write(out.join(format!("{name}.split.pte")), split).unwrap();
        }
    }
}
