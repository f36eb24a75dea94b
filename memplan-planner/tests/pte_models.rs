//! The `.pte` reader on real ExecuTorch programs: `examples/data/pte` (copied from
//! ExecuTorch) and `tests/data/pte/views.pte` (exported by `tests/data/pte/views.py` with
//! executorch==1.5.1 and torch==2.15.0: two static views, which the emitter elides).
//!
//! Facts from ExecuTorch's own Python deserializer (executorch==1.5.1,
//! `exir._serialize._program.deserialize_pte_binary` and `_get_extended_header`, Python
//! 3.11.7): values, their `allocation_info`, instructions' arguments,
//! `non_const_buffer_sizes`, the extended header; constants' bytes read with Python's
//! `struct` at the segment offsets flatc's JSON dump (flatc 25.12.19, the vendored schema)
//! gives. Lifetimes follow from those instructions by the reader's documented rule (steps
//! are instruction indices).

use std::path::PathBuf;

use memplan_planner::Lifetime;
use memplan_planner::files::{ModelFormat, Value, detect_model, pte};

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

const ADD: &str = "../examples/data/pte/add.pte";
const ARDUINO: &str = "../examples/data/pte/arduino_add_model.pte";
const VIEWS: &str = "tests/data/pte/views.pte";

/// `(value, memory id, offset, bytes, lifetime)` of a planned tensor.
type Row = (u32, Option<u32>, Option<u64>, u64, Lifetime);

/// Each planned tensor's [`Row`].
fn planned(m: &memplan_planner::files::ModelFile) -> Vec<Row> {
    m.tensors
        .iter()
        .map(|t| (t.id.index, t.memory_id, t.file_offset, t.size, t.lifetime))
        .collect()
}

fn lt(first: u32, last: u32) -> Lifetime {
    Lifetime { first, last }
}

#[test]
fn add_pte() {
    // Values 0, 1 (inputs), 2 (output): FLOAT [1] at memory 1, offsets 0, 16, 32;
    // non_const_buffer_sizes [0, 48]; one instruction, aten::add.out, args [0, 1, 3, 2, 2].
    let b = bytes(ADD);
    assert_eq!(detect_model(&b), Some(ModelFormat::Pte));
    let m = pte::read(&b, "add.pte", None).unwrap();
    assert_eq!(m.buffer_sizes, vec![0, 48]);
    assert_eq!(
        planned(&m),
        vec![
            (0, Some(1), Some(0), 4, lt(0, 0)),
            (1, Some(1), Some(16), 4, lt(0, 0)),
            (2, Some(1), Some(32), 4, lt(0, 0)),
        ]
    );
    assert_eq!(m.operators.len(), 1);
    assert_eq!(m.operators[0].name, "aten::add.out");
    assert_eq!(m.operators[0].inputs, vec![0, 1, 3, 2, 2]);
    assert_eq!(m.subgraphs[0].values[3], Value::Int(1));
    assert!(m.alias_groups.is_empty());
    let t = &m.tensors[0];
    assert_eq!(
        (t.element.name, t.element.size, t.shape.clone()),
        ("FLOAT", 4, vec![1])
    );
    assert_eq!(t.name, "value_0");
    assert_eq!(
        m.description,
        "ExecuTorch program version 0, execution plan `forward`"
    );
}

#[test]
fn arduino_constant_is_in_its_segment() {
    // Extended header: program 1040 bytes, segments from 1152, 4 bytes. Value 0 is a FLOAT
    // scalar constant (data_buffer_idx 1) in the constant segment, at bytes 1152..1156 of the
    // file: 1.0. Values 1 (input) and 2 (output) FLOAT [3] at offsets 16 and 0.
    let b = bytes(ARDUINO);
    let m = pte::read(&b, "arduino.pte", Some("forward")).unwrap();
    assert_eq!(m.buffer_sizes, vec![0, 32]);
    assert_eq!(
        planned(&m),
        vec![
            (1, Some(1), Some(16), 12, lt(0, 0)),
            (2, Some(1), Some(0), 12, lt(0, 0))
        ]
    );
    let Value::Tensor(c) = &m.subgraphs[0].values[0] else {
        panic!()
    };
    assert_eq!(c.data, Some(1152..1156));
    assert_eq!(f32::from_le_bytes(b[1152..1156].try_into().unwrap()), 1.0);
    assert_eq!(c.planned, None);
    let e = pte::read(&b, "arduino.pte", Some("backward")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "arduino.pte: the program has no execution plan `backward` (it has: forward)"
    );
}

#[test]
fn static_views_are_grouped_with_their_bases() {
    // views.pte: instructions [1, 2, 4, 3, 3] (add), [5, 0, 6, 6] (mul), [7, 1, 9, 8, 8]
    // (add). Value 5 ([4, 2]) is the elided view of 3, value 7 ([8]) that of 6: each shares
    // its base's offset (0 and 32) and is written by no instruction. Value 2 (an input,
    // last read at step 0) and 6 (written at step 1) also share offset 32: reuse, not an
    // alias.
    let b = bytes(VIEWS);
    let m = pte::read(&b, "views.pte", None).unwrap();
    assert_eq!(m.buffer_sizes, vec![0, 96]);
    assert_eq!(
        planned(&m),
        vec![
            (1, Some(1), Some(64), 32, lt(0, 2)),
            (2, Some(1), Some(32), 32, lt(0, 0)),
            (3, Some(1), Some(0), 32, lt(0, 0)),
            (5, Some(1), Some(0), 32, lt(1, 1)),
            (6, Some(1), Some(32), 32, lt(1, 1)),
            (7, Some(1), Some(32), 32, lt(2, 2)),
            (8, Some(1), Some(0), 32, lt(2, 2)),
        ]
    );
    let groups: Vec<(Vec<usize>, u64, Lifetime)> = m
        .alias_groups
        .iter()
        .map(|g| (g.members.clone(), g.size, g.lifetime))
        .collect();
    // Planned indices: 2 = value 3, 3 = value 5, 4 = value 6, 5 = value 7.
    assert_eq!(
        groups,
        vec![(vec![2, 3], 32, lt(0, 1)), (vec![4, 5], 32, lt(1, 2))]
    );
    assert_eq!(m.tensors[3].alias_group, Some(0));
    assert_eq!(m.tensors[0].alias_group, None);
    assert_eq!(m.operators[1].name, "aten::mul.out");
    let Value::Tensor(c) = &m.subgraphs[0].values[0] else {
        panic!()
    };
    assert_eq!(
        f32::from_le_bytes(
            b[c.data.clone().unwrap().start as usize..][..4]
                .try_into()
                .unwrap()
        ),
        2.0
    );
}

#[test]
#[cfg(feature = "write")]
fn write_back_keeps_everything_but_the_plan() {
    for (path, name) in [
        (ADD, "add.pte"),
        (ARDUINO, "arduino.pte"),
        (VIEWS, "views.pte"),
    ] {
        let original = bytes(path);
        let m = pte::read(&original, name, None).unwrap();
        // New offsets: each alias group at one offset, others packed in file order, each
        // 16-byte aligned, in memory id 1.
        let mut offsets = Vec::new();
        let mut group_at = vec![None; m.alias_groups.len()];
        let mut next = 0u64;
        for t in &m.tensors {
            let at = match t.alias_group {
                Some(g) => *group_at[g].get_or_insert_with(|| {
                    let o = next;
                    next += m.alias_groups[g].size.div_ceil(16) * 16;
                    o
                }),
                None => {
                    let o = next;
                    next += t.size.div_ceil(16) * 16;
                    o
                }
            };
            offsets.push(pte::PlannedOffset {
                value: t.id.index,
                memory_id: 1,
                offset: at,
            });
        }
        let written = pte::write_plan(&original, name, None, &offsets, &[0, next]).unwrap();
        let again = pte::read(&written, name, None).unwrap();
        assert_eq!(again.buffer_sizes, vec![0, next]);
        for (a, (b, o)) in m.tensors.iter().zip(again.tensors.iter().zip(&offsets)) {
            assert_eq!(b.file_offset, Some(o.offset));
            let mut a = a.clone();
            a.file_offset = b.file_offset;
            assert_eq!(&a, b, "{name}");
        }
        assert_eq!(again.operators, m.operators);
        assert_eq!(again.alias_groups.len(), m.alias_groups.len());
        assert_eq!(again.description, m.description);
        for (va, vb) in m.subgraphs[0].values.iter().zip(&again.subgraphs[0].values) {
            match (va, vb) {
                (Value::Tensor(ta), Value::Tensor(tb)) => {
                    let mut ta = ta.clone();
                    if let (Some(ra), Some(rb)) = (&ta.data, &tb.data) {
                        assert_eq!(
                            original[ra.start as usize..ra.end as usize],
                            written[rb.start as usize..rb.end as usize]
                        );
                        ta.data = tb.data.clone();
                    }
                    assert_eq!(&ta, tb);
                }
                _ => assert_eq!(va, vb),
            }
        }
    }
}

#[test]
#[cfg(feature = "write")]
fn write_back_refuses_an_incomplete_or_out_of_range_plan() {
    let b = bytes(ADD);
    let one = [pte::PlannedOffset {
        value: 0,
        memory_id: 1,
        offset: 0,
    }];
    let e = pte::write_plan(&b, "add.pte", None, &one, &[0, 48]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "add.pte: value 1 (planned) is given no offset"
    );
    let bad = [pte::PlannedOffset {
        value: 3,
        memory_id: 1,
        offset: 0,
    }];
    let e = pte::write_plan(&b, "add.pte", None, &bad, &[0, 48]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "add.pte: value 3 is not a planned tensor of the execution plan"
    );
    let far = [pte::PlannedOffset {
        value: 0,
        memory_id: 1,
        offset: 46,
    }];
    let e = pte::write_plan(&b, "add.pte", None, &far, &[0, 48]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "add.pte: value 0: its 4 bytes at offset 46 end past memory id 1's 48 bytes"
    );
}

#[test]
#[cfg(feature = "write")]
fn write_back_changes_no_field_but_the_plan() {
    // Every field of every table, compared through the generated owned types: the written
    // program is the original with the new allocation_info and non_const_buffer_sizes; the
    // segment bytes after the flatbuffer are the same.
    use memplan_flatbuffers::executorch::{KernelTypesT, root_as_program};
    for (path, name) in [
        (ADD, "add.pte"),
        (ARDUINO, "arduino.pte"),
        (VIEWS, "views.pte"),
    ] {
        let original = bytes(path);
        let m = pte::read(&original, name, None).unwrap();
        let offsets: Vec<_> = m
            .tensors
            .iter()
            .map(|t| pte::PlannedOffset {
                value: t.id.index,
                memory_id: 1,
                offset: 0,
            })
            .collect();
        let sizes = [0, 1 << 33];
        let written = pte::write_plan(&original, name, None, &offsets, &sizes).unwrap();
        let mut before = root_as_program(&original).unwrap().unpack();
        let after = root_as_program(&written).unwrap().unpack();
        let plan = &mut before.execution_plan.as_mut().unwrap()[0];
        for v in plan.values.iter_mut().flatten() {
            if let KernelTypesT::Tensor(t) = &mut v.val
                && let Some(a) = t.allocation_info.as_mut()
            {
                (a.memory_id, a.memory_offset_low, a.memory_offset_high) = (1, 0, 0);
            }
        }
        plan.non_const_buffer_sizes = Some(vec![0, 1 << 33]);
        assert!(before == after, "{name}: a field changed");
        // The segments: the same bytes from each file's segment base offset on.
        let base = |b: &[u8]| u64::from_le_bytes(b[24..32].try_into().unwrap()) as usize;
        if &original[8..12] == b"eh00" {
            assert_eq!(&written[8..12], b"eh00");
            assert_eq!(original[base(&original)..], written[base(&written)..]);
            assert_eq!(base(&written) % 128, 0);
        }
    }
}
