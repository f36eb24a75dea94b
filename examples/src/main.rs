//! The main job: six real models' memory plans, exported by ExecuTorch, planned again by
//! `memory_plan!` at compile time and proven at run time.
//!
//! Each model's buffers come from its ExecuTorch plan file (`data/executorch/*_greedy.csv`);
//! ExecuTorch's own offsets in the file are ignored: memplan plans the buffers itself. At
//! run time the example takes each plan's `MemoryManager` and walks the steps in order,
//! through the plan's safe generic path (`MemoryManager::live_at`, no `unsafe` here): at
//! step `t` it fills every buffer whose first step is `t` with a pattern derived from its
//! name, and checks that every buffer whose last step is `t` still holds its pattern, so a
//! buffer changed between its first and last step is reported.
//!
//! Run it with `cargo run --release --bin executorch-models`.

#![forbid(unsafe_code)]

use memplan_planner::files::parse_executorch;
use memplan_runtime::steps::CANARY_BYTES;
use memplan_runtime::{BufferInfo, MemoryManager, Schedule, memory_plan};

memory_plan! {
    /// MobileNetV2, default export.
    pub mod mobilenet_v2 {
        region act: 16 MiB;
        buffers in act from "../data/executorch/mobilenet_v2_greedy.csv";
    }
}
memory_plan! {
    /// MobileNetV2 with constant propagation.
    pub mod mobilenet_v2_constprop {
        region act: 16 MiB;
        buffers in act from "../data/executorch/mobilenet_v2_constprop_greedy.csv";
    }
}
memory_plan! {
    /// ResNet-18, default export.
    pub mod resnet18 {
        region act: 8 MiB;
        buffers in act from "../data/executorch/resnet18_greedy.csv";
    }
}
memory_plan! {
    /// ResNet-18 with constant propagation.
    pub mod resnet18_constprop {
        region act: 8 MiB;
        buffers in act from "../data/executorch/resnet18_constprop_greedy.csv";
    }
}
memory_plan! {
    /// A transformer encoder layer, default export.
    pub mod transformer_encoder {
        region act: 1 MiB;
        buffers in act from "../data/executorch/transformer_encoder_greedy.csv";
    }
}
memory_plan! {
    /// A transformer encoder layer with constant propagation.
    pub mod transformer_encoder_constprop {
        region act: 1 MiB;
        buffers in act from "../data/executorch/transformer_encoder_constprop_greedy.csv";
    }
}

/// One model: its name, its plan's table, its manager's planned memory, and the CSV text.
struct Model {
    name: &'static str,
    buffers: &'static [BufferInfo],
    csv: &'static str,
}

/// What the run found for one model.
struct Outcome {
    buffers: usize,
    memplan: usize,
    executorch: u64,
    lower_bound: u64,
    intact: bool,
}

/// The pattern byte `i` of the buffer whose name hashes to `seed`.
fn pattern(seed: u64, i: usize) -> u8 {
    // splitmix64 of (seed, i / 8), one byte of it per position.
    let mut z = seed.wrapping_add((i as u64 / 8).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> ((i % 8) * 8)) as u8
}

/// FNV-1a of the name: the buffer's pattern seed.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Walks the steps through the plan's generic safe path, `live_at`: at step `t`, fills
/// every buffer that starts at `t` with its pattern and checks every buffer that ends at
/// `t`. Returns whether every buffer held its pattern at its last step. `tamper` (tests
/// only) writes into one buffer at one step, as a kernel that wrote a byte it should not
/// would.
fn prove<P: Schedule>(manager: &mut MemoryManager<'_, P>, tamper: Option<(u32, &str)>) -> bool {
    let last_step = P::BUFFERS.iter().map(|b| b.last).max().unwrap_or(0);
    let mut intact = true;
    for t in 0..=last_step {
        for live in manager.live_at(t) {
            let b = live.info;
            // The six models' regions are zeroed (no `uninit`): their bytes are initialised.
            let Some(bytes) = live.bytes.into_init() else {
                continue;
            };
            let s = seed(b.name);
            if b.first == t {
                for (i, byte) in bytes.iter_mut().enumerate() {
                    *byte = pattern(s, i);
                }
            }
            if tamper == Some((t, b.name)) && !bytes.is_empty() {
                bytes[0] ^= 0xFF;
            }
            if b.last == t
                && let Some(i) = (0..bytes.len()).find(|&i| bytes[i] != pattern(s, i))
            {
                intact = false;
                eprintln!("{}: byte {i} was overwritten before step {t}", b.name);
            }
        }
    }
    intact
}

/// The most bytes live at one step, computed directly from the plan file's rows.
fn lower_bound(rows: &[(u64, u64, u64)]) -> u64 {
    let steps = rows.iter().map(|r| r.2).max().unwrap_or(0);
    (0..=steps)
        .map(|t| {
            rows.iter()
                .filter(|r| r.1 <= t && t <= r.2)
                .map(|r| r.0)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

fn run<P: Schedule>(model: &Model, manager: &mut MemoryManager<'_, P>) -> Outcome {
    let rows = parse_executorch(model.csv, model.name).expect("the plan file is well formed");
    let executorch = rows
        .iter()
        .map(|(_, r)| r.offset + r.size)
        .max()
        .unwrap_or(0);
    let spans: Vec<(u64, u64, u64)> = rows
        .iter()
        .map(|(_, r)| (r.size, r.first as u64, r.last as u64))
        .collect();
    let memplan = model
        .buffers
        .iter()
        .filter(|b| b.size > 0)
        .map(|b| b.offset + b.size)
        .max()
        .unwrap_or(0);
    Outcome {
        buffers: model.buffers.len(),
        memplan,
        executorch,
        lower_bound: lower_bound(&spans),
        intact: prove(manager, None),
    }
}

macro_rules! model {
    ($m:ident, $file:literal) => {{
        let model = Model {
            name: stringify!($m),
            buffers: $m::BUFFERS,
            csv: include_str!(concat!("../data/executorch/", $file)),
        };
        let manager = $m::take().expect("first take of the plan's manager");
        print!("{}", $m::REPORT);
        (model.name, run(&model, manager))
    }};
}

fn main() {
    let results = [
        model!(mobilenet_v2, "mobilenet_v2_greedy.csv"),
        model!(mobilenet_v2_constprop, "mobilenet_v2_constprop_greedy.csv"),
        model!(resnet18, "resnet18_greedy.csv"),
        model!(resnet18_constprop, "resnet18_constprop_greedy.csv"),
        model!(transformer_encoder, "transformer_encoder_greedy.csv"),
        model!(
            transformer_encoder_constprop,
            "transformer_encoder_constprop_greedy.csv"
        ),
    ];
    println!();
    println!(
        "{:<30} {:>7} {:>12} {:>12} {:>12} {:>9} {:>7}",
        "model", "buffers", "memplan", "executorch", "lower bound", "vs ET", "intact"
    );
    for (name, o) in &results {
        println!(
            "{:<30} {:>7} {:>12} {:>12} {:>12} {:>9.4} {:>7}",
            name,
            o.buffers,
            o.memplan,
            o.executorch,
            o.lower_bound,
            o.memplan as f64 / o.executorch as f64,
            if o.intact { "yes" } else { "NO" }
        );
    }
    println!();
    let mut ok = true;
    let guards = CANARY_BYTES != 0;
    for (name, o) in &results {
        println!(
            "model={name} buffers={} memplan={} executorch={} lower_bound={} intact={}",
            o.buffers,
            o.memplan,
            o.executorch,
            o.lower_bound,
            if o.intact { "yes" } else { "no" }
        );
        // With `debug-canary` the plan holds guard bytes after every buffer: only the
        // bytes' integrity is checked then, not the size against ExecuTorch's.
        ok &= o.intact && (guards || o.memplan as u64 <= o.executorch);
    }
    if guards {
        println!(
            "debug-canary: {CANARY_BYTES} guard bytes planned after every buffer; sizes not compared with ExecuTorch's"
        );
    }
    if !ok {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    memory_plan! {
        mod small {
            region r: 96 bytes, align 1;
            buffer a: 32 bytes in r, live 0..=3;
            buffer b: 32 bytes in r, live 1..=1;
            buffer c: 32 bytes in r, live 2..=3;
            buffer d: 32 bytes in r, live 0..=0;
        }
    }

    #[test]
    fn the_walk_accepts_a_sound_plan() {
        // 64 bytes are live at every step (a with d, b or c): a plan at that bound reuses
        // bytes across d, b and c.
        assert_eq!(
            small::BUFFERS.iter().map(|b| b.offset + b.size).max(),
            Some(64)
        );
        let manager = small::take().expect("taken once");
        assert!(prove(manager, None));
    }

    #[test]
    fn the_walk_catches_a_byte_written_by_the_wrong_kernel() {
        // A write into `a` at step 2, between its first and its last step.
        memory_plan! {
            mod again {
                region r: 96 bytes, align 1;
                buffer a: 32 bytes in r, live 0..=3;
                buffer b: 32 bytes in r, live 1..=1;
            }
        }
        let manager = again::take().expect("taken once");
        assert!(!prove(manager, Some((2, "a"))));
    }

    #[test]
    fn lower_bound_is_the_most_bytes_live_at_one_step() {
        // (size, first, last): steps 1 and 2 hold 30 and 50 bytes.
        assert_eq!(lower_bound(&[(10, 0, 1), (20, 1, 2), (30, 2, 3)]), 50);
    }
}
