//! The `.pte` programs of this repository's own models against the plan CSVs of the same
//! export (`examples/data/pte/README.md`): for every planned tensor, the size and the
//! lifetime the `.pte` reader gives must be the row's, or differ exactly as the two files
//! count steps. The side files (`<file>.pte.tensors.csv`, `<file>.pte.instructions.csv`)
//! were written by the export script from ExecuTorch's own objects (the graph's nodes and the
//! emitted program), independently of this reader.

use std::collections::HashMap;
use std::path::PathBuf;

use memplan_planner::files::{pte, read_executorch};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data")
        .join(path)
}

/// The rows of a side file, by column name.
fn rows(path: &str) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(data(path)).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

fn num(row: &HashMap<String, String>, col: &str) -> u64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col}: {:?}", row[col]))
}

#[test]
fn every_planned_tensor_matches_its_csv_row_step_for_step() {
    for (program, csv) in [
        ("pte/kws_dscnn.pte", "executorch/kws_dscnn_greedy.csv"),
        (
            "pte/transformer_encoder.pte",
            "executorch/transformer_encoder_greedy.csv",
        ),
        (
            "pte/transformer_encoder_constprop.pte",
            "executorch/transformer_encoder_constprop_greedy.csv",
        ),
    ] {
        let bytes = std::fs::read(data(program)).unwrap();
        let model = pte::read(&bytes, program, None).unwrap();
        let csv_rows = read_executorch(&data(csv)).unwrap();
        let side = rows(&format!("{program}.tensors.csv"));
        let node_of: Vec<u64> = rows(&format!("{program}.instructions.csv"))
            .iter()
            .map(|r| num(r, "node"))
            .collect();
        // One side row per planned value, and the reader plans exactly those values.
        assert_eq!(side.len(), model.tensors.len(), "{program}");
        let by_value: HashMap<u32, usize> = model
            .tensors
            .iter()
            .enumerate()
            .map(|(k, t)| (t.id.index, k))
            .collect();
        let mut views = 0;
        for row in &side {
            let t = &model.tensors[by_value[&(num(row, "value") as u32)]];
            let name = format!("{program}: value {}", t.id.index);
            // Sizes: the reader's are unpadded, the CSV's rounded up to 16.
            assert_eq!(t.size.next_multiple_of(16), num(row, "size"), "{name}");
            assert_eq!(t.file_offset, Some(num(row, "offset")), "{name}");
            // Steps: instructions, as the export read them from the program.
            assert_eq!(
                (u64::from(t.lifetime.first), u64::from(t.lifetime.last)),
                (num(row, "first_instruction"), num(row, "last_instruction")),
                "{name}"
            );
            if row["csv_row"].is_empty() {
                // A view: no row of its own; it shares its base's bytes, and the reader keeps
                // the two together.
                let base = &model.tensors[by_value[&(num(row, "view_of_value") as u32)]];
                assert!(t.alias_group.is_some(), "{name} is a view");
                assert_eq!(t.alias_group, base.alias_group, "{name}");
                views += 1;
                continue;
            }
            // The CSV's row: its size, and its node lifetime mapped onto instructions by the
            // rules of examples/data/pte/README.md.
            let (_, csv_row) = &csv_rows[num(row, "csv_row") as usize - 1];
            assert_eq!(csv_row.name, row["name"], "{name}");
            assert_eq!(csv_row.size, num(row, "size"), "{name}");
            let (fi, li) = (t.lifetime.first as usize, t.lifetime.last as usize);
            let (first_node, last_node) = (u64::from(csv_row.first), u64::from(csv_row.last));
            if first_node > 0 {
                assert!(first_node <= node_of[fi], "{name}: first");
                if fi > 0 {
                    assert!(node_of[fi - 1] < first_node, "{name}: first");
                }
            } else {
                assert_eq!(fi, 0, "{name}: a graph input starts at instruction 0");
            }
            // The last instruction of the value and of the values that view it.
            let li = model
                .tensors
                .iter()
                .filter(|v| t.alias_group.is_some() && v.alias_group == t.alias_group)
                .map(|v| v.lifetime.last as usize)
                .max()
                .unwrap_or(li)
                .max(li);
            assert!(node_of[li] <= last_node, "{name}: last");
            if let Some(&next) = node_of.get(li + 1) {
                assert!(last_node < next, "{name}: last");
            }
        }
        assert!(views > 0, "{program}: the exports have views");
    }
}
