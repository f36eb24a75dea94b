//! `memplan check` and `memplan plan --write` on ExecuTorch programs, judged against the
//! programs' own tables (read here with memplan-flatbuffers, apart from memplan's reader):
//! the file's own plan is its `non_const_buffer_sizes`; every committed program's own plan
//! checks, with a lower bound no larger; `--write` never writes a larger plan; reuse at one
//! offset passes and two tensors that kernels write at one offset while both are live
//! collide, named with the instruction; a `cond`'s branches do not collide, and memplan's
//! plan keeps a `MoveCall`'s source where its destination is read. Programs ExecuTorch's
//! runtime (1.5.1, Python) was run on: the made `add.pte` variants below compute `a + 2b`
//! (reuse) and the right sum (in place) on their own plans, and `c + a` with `c` written on
//! `a`'s bytes computes 23 for `a = 1.5`, `b = 10` where 13 is right.

use std::path::{Path, PathBuf};

use memplan_flatbuffers::executorch::{
    self as et, EValueT, InstructionArgumentsT, InstructionT, KernelCallT, KernelTypesT,
};

mod common;
use common::run as memplan;

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/pte")
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn program(bytes: &[u8]) -> et::ProgramT {
    et::root_as_program(bytes).unwrap().unpack()
}

/// `non_const_buffer_sizes` of execution plan 0, as the file has it.
fn own_sizes(path: &Path) -> Vec<i64> {
    program(&std::fs::read(path).unwrap())
        .execution_plan
        .unwrap()[0]
        .non_const_buffer_sizes
        .clone()
        .unwrap()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = memplan(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The number in `text` just after `before`.
fn number_after(text: &str, before: &str) -> u64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} in {text}"))
        + before.len();
    text[at..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// `add.pte` with value 4 (and 5, when `d` is given) a copy of its output, FLOAT [1], at
/// the offsets given; the chain `add(0, 1, 4)`, then `add(d.1, d.2, 5)` when `d` is given;
/// the output the last value.
fn add_variant(name: &str, c: u32, d: Option<(u32, i32, i32)>) -> PathBuf {
    let mut p = program(&std::fs::read(models().join("add.pte")).unwrap());
    let plan = &mut p.execution_plan.as_mut().unwrap()[0];
    let values = plan.values.as_mut().unwrap();
    let at = |offset: u32| {
        let mut v: EValueT = values[2].clone();
        if let KernelTypesT::Tensor(t) = &mut v.val {
            t.allocation_info.as_mut().unwrap().memory_offset_low = offset;
        }
        v
    };
    let (vc, vd) = (at(c), d.map(|(o, _, _)| at(o)));
    values.push(vc);
    values.extend(vd);
    let add = |a: i32, b: i32, out: i32| {
        let mut k = KernelCallT::default();
        k.args = Some(vec![a, b, 3, out, out]);
        let mut i = InstructionT::default();
        i.instr_args = InstructionArgumentsT::KernelCall(Box::new(k));
        i
    };
    let mut instrs = vec![add(0, 1, 4)];
    instrs.extend(d.map(|(_, x, y)| add(x, y, 5)));
    plan.chains.as_mut().unwrap()[0].instructions = Some(instrs);
    plan.outputs = Some(vec![if d.is_some() { 5 } else { 4 }]);
    plan.non_const_buffer_sizes = Some(vec![0, 64]);
    let path = tmp(name);
    std::fs::write(&path, memplan_flatbuffers::finish_executorch(&p)).unwrap();
    path
}

#[test]
fn the_file_s_own_plan_is_its_non_const_buffer_sizes() {
    let add = models().join("add.pte");
    let own = own_sizes(&add)[1] as u64;
    let shown = add.display().to_string();
    let (code, out, _) = run(&["plan", &shown]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains(&format!(
            "  file's own plan  {own} bytes (non_const_buffer_sizes,"
        )),
        "{out}"
    );
    let (_, json, _) = run(&["plan", &shown, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["plans"][0]["regions"][0]["file_bytes"], own);
    let (_, given, _) = run(&["plan", &shown, "--offsets", "file"]);
    assert_eq!(number_after(&given, "  planned "), own, "{given}");
    let (code, check, _) = run(&["check", &shown]);
    assert_eq!(code, Some(0));
    assert!(
        check.contains(&format!(
            "memory id 1: the file's own plan asks for {own} bytes (non_const_buffer_sizes[1])"
        )),
        "{check}"
    );
}

#[test]
fn every_program_s_own_plan_checks_and_write_never_exceeds_it() {
    let mut checked = 0;
    for entry in std::fs::read_dir(models()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "pte") {
            continue;
        }
        let shown = path.display().to_string();
        let own = own_sizes(&path);
        let (code, out, _) = run(&["check", &shown]);
        assert_eq!(code, Some(0), "{out}");
        assert!(number_after(&out, "lower bound") <= own[1] as u64, "{out}");
        let written = tmp(&format!(
            "written_{}",
            path.file_name().unwrap().to_string_lossy()
        ));
        let (code, _, err) = run(&["plan", &shown, "--write", &written.display().to_string()]);
        assert_eq!(code, Some(0), "{err}");
        let sizes = own_sizes(&written);
        assert!(sizes[1] <= own[1], "{shown}: {sizes:?} vs {own:?}");
        let (code, out, _) = run(&["check", &written.display().to_string()]);
        assert_eq!(code, Some(0), "{out}");
        checked += 1;
    }
    assert_eq!(checked, 8);
}

#[test]
fn a_plan_larger_than_the_file_s_own_is_not_written() {
    // 64-byte alignment makes memplan's plan of add.pte larger than its own 48 bytes.
    let add = models().join("add.pte");
    let out_file = tmp("add_align64.pte");
    let (code, out, err) = run(&[
        "plan",
        &add.display().to_string(),
        "--align",
        "64",
        "--write",
        &out_file.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(number_after(&out, "  planned ") > own_sizes(&add)[1] as u64);
    assert_eq!(
        std::fs::read(&out_file).unwrap(),
        std::fs::read(&add).unwrap()
    );
    assert!(
        out.lines().last().unwrap().contains(
            "the file's own plan, unchanged (48 bytes, its non_const_buffer_sizes): memplan's plan needs"
        ),
        "{out}"
    );
    // When the file's own plan does not check either, nothing is written.
    let broken = add_variant("collide_for_write.pte", 0, Some((32, 4, 0)));
    let none = tmp("collide_align64.pte");
    let _ = std::fs::remove_file(&none);
    let (code, _, err) = run(&[
        "plan",
        &broken.display().to_string(),
        "--align",
        "64",
        "--write",
        &none.display().to_string(),
    ]);
    assert_ne!(code, Some(0));
    assert!(err.contains("nothing written"), "{err}");
    assert!(!none.exists());
}

#[test]
fn reuse_at_one_offset_passes_and_kernels_writing_one_offset_while_both_are_live_collide() {
    // c = a + b (value 4, offset 32), d = c + b (value 5) on a's bytes (offset 0): a is
    // named by instruction 0 only.
    let reuse = add_variant("reuse.pte", 32, Some((0, 4, 1)));
    let (code, out, _) = run(&["check", &reuse.display().to_string()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.ends_with(": no overlapping pair, no misaligned offset, no buffer out of bounds\n")
    );
    // c on a's bytes at instruction 0, then d = c + a at 1: a is read after c is written.
    let collide = add_variant("collide.pte", 0, Some((32, 4, 0)));
    let p = program(&std::fs::read(&collide).unwrap());
    let o = &p.execution_plan.as_ref().unwrap()[0]
        .operators
        .as_ref()
        .unwrap()[0];
    let op = format!(
        "{}.{}",
        o.name.as_deref().unwrap(),
        o.overload.as_deref().unwrap()
    );
    let (code, out, _) = run(&["check", &collide.display().to_string()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "buffers `value_0` (bytes 0..4, live 0..=1) and `value_4` (value 4: bytes 0..4, live 0..=1) overlap: bytes 0..4 are used by both at steps 0..=1, from instruction 0 (`{op}`) on"
        )),
        "{out}"
    );
    assert!(out.contains(": 1 overlapping pair,"), "{out}");
    // c on a's bytes by the kernel that reads a last: in place, one buffer.
    let in_place = add_variant("in_place.pte", 0, None);
    let (code, out, _) = run(&["check", &in_place.display().to_string()]);
    assert_eq!(code, Some(0), "{out}");
}

/// Each planned value's memory id, offset and bytes in execution plan 0 of `p` (FLOAT and
/// BOOL tensors, as cond.pte and state.pte have).
fn placed(p: &et::ProgramT) -> Vec<Option<(u32, u64, u64)>> {
    p.execution_plan.as_ref().unwrap()[0]
        .values
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| match &v.val {
            KernelTypesT::Tensor(t) => t.allocation_info.as_ref().map(|a| {
                let elements: i64 = t
                    .sizes
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(|&d| d as i64)
                    .product();
                let size = match t.scalar_type {
                    et::ScalarType::FLOAT => 4,
                    et::ScalarType::BOOL => 1,
                    other => panic!("{other:?}"),
                };
                (
                    a.memory_id,
                    u64::from(a.memory_offset_low),
                    (elements * size) as u64,
                )
            }),
            _ => None,
        })
        .collect()
}

/// One instruction: the values it names, the value its kernel writes (its last argument),
/// a move's source and destination.
type Named = (Vec<i32>, Option<i32>, Option<(i32, i32)>);

/// Each instruction of chain 0.
fn instructions(p: &et::ProgramT) -> Vec<Named> {
    p.execution_plan.as_ref().unwrap()[0]
        .chains
        .as_ref()
        .unwrap()[0]
        .instructions
        .as_ref()
        .unwrap()
        .iter()
        .map(|i| match &i.instr_args {
            InstructionArgumentsT::KernelCall(k) => {
                let a = k.args.clone().unwrap();
                let last = a.last().copied();
                (a, last, None)
            }
            InstructionArgumentsT::MoveCall(m) => (
                vec![m.move_from, m.move_to],
                None,
                Some((m.move_from, m.move_to)),
            ),
            InstructionArgumentsT::JumpFalseCall(j) => (vec![j.cond_value_index], None, None),
            _ => (vec![], None, None),
        })
        .collect()
}

fn share(a: (u32, u64, u64), b: (u32, u64, u64)) -> bool {
    a.0 == b.0 && a.1 < b.1 + b.2 && b.1 < a.1 + a.2
}

#[test]
fn a_cond_s_branches_pass_and_the_written_plan_keeps_a_move_s_source() {
    let cond = models().join("cond.pte");
    let original = program(&std::fs::read(&cond).unwrap());
    // ExecuTorch's own plan puts both branches' results on the same bytes.
    let moves: Vec<(usize, (i32, i32))> = instructions(&original)
        .into_iter()
        .enumerate()
        .filter_map(|(s, (_, _, m))| m.map(|m| (s, m)))
        .collect();
    let own = placed(&original);
    assert_eq!(moves.len(), 2);
    let (x, y) = (moves[0].1.0 as usize, moves[1].1.0 as usize);
    assert!(share(own[x].unwrap(), own[y].unwrap()));
    let (code, out, _) = run(&["check", &cond.display().to_string()]);
    assert_eq!(code, Some(0), "{out}");
    // memplan's plan: while a move's destination is still to be read, no kernel writes a
    // tensor on the source's bytes.
    let written = tmp("cond_written.pte");
    let (code, _, err) = run(&[
        "plan",
        &cond.display().to_string(),
        "--write",
        &written.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let w = program(&std::fs::read(&written).unwrap());
    let (at, ins) = (placed(&w), instructions(&w));
    for &(m, (from, to)) in &moves {
        let last = (0..ins.len())
            .filter(|&s| ins[s].0.contains(&to))
            .max()
            .unwrap();
        assert!(last > m);
        for (s, named) in ins.iter().enumerate().take(last + 1).skip(m + 1) {
            if let Some(x) = named.1.filter(|&x| x != from) {
                assert!(
                    !share(at[x as usize].unwrap(), at[from as usize].unwrap()),
                    "instruction {s} writes value {x} on value {from}'s bytes, read through value {to} until {last}"
                );
            }
        }
    }
}

#[test]
fn a_mutable_buffer_keeps_its_bytes() {
    // state.pte: value 0 is the buffer (named before the instruction that writes it back).
    let state = models().join("state.pte");
    let written = tmp("state_written.pte");
    let (code, _, err) = run(&[
        "plan",
        &state.display().to_string(),
        "--write",
        &written.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let w = program(&std::fs::read(&written).unwrap());
    let ins = instructions(&w);
    let first = ins.iter().position(|i| i.0.contains(&0)).unwrap();
    let write = ins.iter().position(|i| i.1 == Some(0)).unwrap();
    assert!(first < write);
    let at = placed(&w);
    for (v, p) in at.iter().enumerate().skip(1) {
        if let Some(p) = p {
            assert!(
                !share(*p, at[0].unwrap()),
                "value {v} on the buffer's bytes"
            );
        }
    }
}

#[test]
fn executorch_s_own_plan_of_two_conds_in_a_row_collides_and_is_not_kept() {
    // cond_twice.pte (memplan-planner/tests/data/pte/README.md): the runtime computes other
    // outputs than PyTorch with this plan, and PyTorch's with tensors apart. The first
    // cond's results (its MoveCalls' sources) are read after the second cond's branches
    // wrote on their bytes.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../memplan-planner/tests/data/pte/cond_twice.pte");
    let p = program(&std::fs::read(&path).unwrap());
    let ins = instructions(&p);
    let moves: Vec<(i32, i32)> = ins.iter().filter_map(|i| i.2).collect();
    assert_eq!(moves.len(), 4);
    let first: Vec<String> = moves[..2]
        .iter()
        .map(|m| format!("`value_{}`", m.0))
        .collect();
    let (code, out, _) = run(&["check", &path.display().to_string()]);
    assert_eq!(code, Some(1), "{out}");
    let pairs: Vec<&str> = out.lines().filter(|l| l.contains(" overlap: ")).collect();
    assert!(!pairs.is_empty());
    for line in pairs {
        assert!(first.iter().any(|v| line.contains(v.as_str())), "{line}");
    }
    // memplan's plan keeps those bytes, so it needs more than this plan: nothing written.
    let none = tmp("cond_twice_written.pte");
    let _ = std::fs::remove_file(&none);
    let (code, _, err) = run(&[
        "plan",
        &path.display().to_string(),
        "--write",
        &none.display().to_string(),
    ]);
    assert_ne!(code, Some(0));
    assert!(err.contains("nothing written"), "{err}");
    assert!(!none.exists());
}
