//! The `.pte` reader read as ExecuTorch runs a program: which tensors share bytes on
//! purpose and which merely reuse them, what a `MoveCall` keeps live, what a mutable buffer
//! keeps across invocations, and what ExecuTorch refuses. Programs are real ones
//! (`examples/data/pte`) or made from a real one's tables (memplan-flatbuffers' object
//! types: `add.pte`'s values, operator and instruction, recombined). Every expected value
//! is read from the program's own tables here (which instructions name which values, the
//! offsets ExecuTorch gave), not from the reader.
#![cfg(feature = "write")]

use std::path::PathBuf;

use memplan_flatbuffers::executorch::{
    self as et, ChainT, EValueT, InstructionArgumentsT, InstructionT, IntT, JumpFalseCallT,
    KernelCallT, KernelTypesT, TensorListT,
};
use memplan_planner::files::{ModelFile, pte};

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

const ADD: &str = "../examples/data/pte/add.pte";
const COND: &str = "../examples/data/pte/cond.pte";
const STATE: &str = "../examples/data/pte/state.pte";

fn program(path: &str) -> et::ProgramT {
    et::root_as_program(&bytes(path)).unwrap().unpack()
}

fn plan(p: &mut et::ProgramT) -> &mut et::ExecutionPlanT {
    &mut p.execution_plan.as_mut().unwrap()[0]
}

fn values(p: &mut et::ProgramT) -> &mut Vec<EValueT> {
    plan(p).values.as_mut().unwrap()
}

fn read(p: &et::ProgramT) -> Result<ModelFile, String> {
    pte::read(&memplan_flatbuffers::finish_executorch(p), "m.pte", None).map_err(|e| e.to_string())
}

/// `add.pte`'s `aten::add.out(a, b, alpha, out, out)` (operator 0; value 3 is alpha).
fn add(a: i32, b: i32, out: i32) -> InstructionT {
    let mut k = KernelCallT::default();
    k.args = Some(vec![a, b, 3, out, out]);
    instruction(InstructionArgumentsT::KernelCall(Box::new(k)))
}

fn instruction(args: InstructionArgumentsT) -> InstructionT {
    let mut i = InstructionT::default();
    i.instr_args = args;
    i
}

fn evalue(val: KernelTypesT) -> EValueT {
    let mut v = EValueT::default();
    v.val = val;
    v
}

/// `add.pte` with tensors (clones of its output, FLOAT [1]) at `offsets` after its own
/// four values, its own three at `own` offsets, the chain `instrs`, the outputs `outputs`.
fn add_program(
    own: [u32; 3],
    offsets: &[u32],
    instrs: Vec<InstructionT>,
    outputs: Vec<i32>,
) -> et::ProgramT {
    let mut p = program(ADD);
    let proto = values(&mut p)[2].clone();
    for (v, &o) in own.iter().enumerate() {
        set_offset(&mut values(&mut p)[v], o);
    }
    for &o in offsets {
        let mut t = proto.clone();
        set_offset(&mut t, o);
        values(&mut p).push(t);
    }
    let plan = plan(&mut p);
    plan.chains.as_mut().unwrap()[0].instructions = Some(instrs);
    plan.outputs = Some(outputs);
    plan.non_const_buffer_sizes = Some(vec![0, 64]);
    p
}

fn set_offset(v: &mut EValueT, offset: u32) {
    if let KernelTypesT::Tensor(t) = &mut v.val {
        t.allocation_info.as_mut().unwrap().memory_offset_low = offset;
    }
}

/// The value indices an instruction names (a list's members with the list).
fn named(p: &et::ExecutionPlanT, ins: &InstructionT) -> Vec<i32> {
    let args = match &ins.instr_args {
        InstructionArgumentsT::KernelCall(k) => k.args.clone().unwrap_or_default(),
        InstructionArgumentsT::DelegateCall(d) => d.args.clone().unwrap_or_default(),
        InstructionArgumentsT::MoveCall(m) => vec![m.move_from, m.move_to],
        InstructionArgumentsT::JumpFalseCall(j) => vec![j.cond_value_index],
        InstructionArgumentsT::FreeCall(f) => vec![f.value_index],
        _ => vec![],
    };
    let mut out = Vec::new();
    for a in args {
        out.push(a);
        if let KernelTypesT::TensorList(l) = &p.values.as_ref().unwrap()[a as usize].val {
            out.extend(l.items.clone().unwrap_or_default());
        }
    }
    out
}

/// The planned tensor of value `v`.
fn tensor(m: &ModelFile, v: u32) -> &memplan_planner::files::PlannedTensor {
    m.tensors.iter().find(|t| t.id.index == v).unwrap()
}

#[test]
fn reuse_at_one_offset_is_no_group() {
    // a (value 0, offset 0) and b (16) in; c = a + b (value 4, 32) at 0; d = c + b (value
    // 5, offset 0, a's bytes) at 1. a is named by instruction 0 only, d first by 1.
    let p = add_program(
        [0, 16, 48],
        &[32, 0],
        vec![add(0, 1, 4), add(4, 1, 5)],
        vec![5],
    );
    let m = read(&p).unwrap();
    assert!(m.alias_groups.is_empty(), "{:?}", m.alias_groups);
    let (a, d) = (tensor(&m, 0), tensor(&m, 5));
    assert_eq!((a.file_offset, d.file_offset), (Some(0), Some(0)));
    assert!(a.lifetime.last < d.lifetime.first);
    assert_eq!(m.plan_file().buffers.len(), m.tensors.len());
}

#[test]
fn kernels_writing_one_offset_while_both_are_live_are_no_group() {
    // c = a + b (value 4) at a's offset (0) at instruction 0, then d = c + a at 1: a is read
    // after c is written on its bytes. Two buffers, which `memplan check` reports.
    let p = add_program(
        [0, 16, 48],
        &[0, 32],
        vec![add(0, 1, 4), add(4, 0, 5)],
        vec![5],
    );
    let m = read(&p).unwrap();
    assert!(m.alias_groups.is_empty(), "{:?}", m.alias_groups);
    let (a, c) = (tensor(&m, 0), tensor(&m, 4));
    assert_eq!(a.file_offset, c.file_offset);
    assert!(a.lifetime.conflicts(&c.lifetime));
    // Written by the kernel that last reads a, on a's bytes, a's type and shape: in place,
    // one buffer.
    let p = add_program([0, 16, 48], &[0], vec![add(0, 1, 4)], vec![4]);
    let m = read(&p).unwrap();
    let k = |v: u32| m.tensors.iter().position(|t| t.id.index == v).unwrap();
    assert_eq!(m.alias_groups.len(), 1);
    assert_eq!(m.alias_groups[0].members, vec![k(0), k(4)]);
}

#[test]
fn a_move_keeps_its_source_live_while_its_destination_is_read() {
    let mut p = program(COND);
    let m = read(&p).unwrap();
    let plan = plan(&mut p);
    let instrs = plan.chains.as_ref().unwrap()[0]
        .instructions
        .clone()
        .unwrap();
    let mut moves = 0;
    for (s, ins) in instrs.iter().enumerate() {
        let InstructionArgumentsT::MoveCall(mv) = &ins.instr_args else {
            continue;
        };
        moves += 1;
        // The last instruction that names the destination, from the tables.
        let last = instrs
            .iter()
            .enumerate()
            .filter(|(_, i)| named(plan, i).contains(&mv.move_to))
            .map(|(k, _)| k as u32)
            .max()
            .unwrap();
        assert!(last > s as u32);
        let source = tensor(&m, mv.move_from as u32);
        assert_eq!(source.lifetime.last, last, "value {}", mv.move_from);
    }
    assert_eq!(moves, 2);
}

#[test]
fn a_mutable_buffer_is_live_at_every_step() {
    // state.pte: value 0 (the buffer) is named by an instruction before the one whose last
    // argument it is (the write back).
    let mut p = program(STATE);
    let m = read(&p).unwrap();
    let plan = plan(&mut p);
    let instrs = plan.chains.as_ref().unwrap()[0]
        .instructions
        .clone()
        .unwrap();
    let named_at: Vec<usize> = (0..instrs.len())
        .filter(|&s| named(plan, &instrs[s]).contains(&0))
        .collect();
    let written_at = instrs.iter().position(|i| match &i.instr_args {
        InstructionArgumentsT::KernelCall(k) => k.args.as_ref().unwrap().last() == Some(&0),
        _ => false,
    });
    assert!(named_at[0] < written_at.unwrap());
    let t = tensor(&m, 0);
    assert!(t.persistent);
    assert_eq!(
        (t.lifetime.first, t.lifetime.last),
        (0, instrs.len() as u32 - 1)
    );
}

#[test]
fn a_tensor_list_holding_a_non_tensor_is_refused_naming_the_instruction() {
    // add.pte with value 4 an Int and value 5 the tensor list [a, 4], given to its kernel
    // in a's place. ExecuTorch's `parseTensorList` refuses the list when the method loads.
    let mut p = program(ADD);
    let mut seven = IntT::default();
    seven.int_val = 7;
    values(&mut p).push(evalue(KernelTypesT::Int(Box::new(seven))));
    let mut list = TensorListT::default();
    list.items = Some(vec![0, 4]);
    values(&mut p).push(evalue(KernelTypesT::TensorList(Box::new(list))));
    let plan = plan(&mut p);
    plan.chains.as_mut().unwrap()[0].instructions = Some(vec![add(5, 1, 2)]);
    let o = &plan.operators.as_ref().unwrap()[0];
    let op = format!(
        "{}.{}",
        o.name.as_deref().unwrap(),
        o.overload.as_deref().unwrap()
    );
    assert_eq!(
        read(&p).unwrap_err(),
        format!(
            "m.pte: execution plan 0: member 1 of tensor list 5, used by instruction 0 ({op}) is value 4, an Int: ExecuTorch's tensor lists hold tensors only, and it refuses the list"
        )
    );
    // With a tensor there (b), the list reads: a and b are named where the list is.
    if let KernelTypesT::TensorList(l) = &mut values(&mut p)[5].val {
        l.items = Some(vec![0, 1]);
    }
    let m = read(&p).unwrap();
    assert_eq!(tensor(&m, 0).lifetime, tensor(&m, 1).lifetime);
}

#[test]
fn jump_destinations_count_within_their_own_chain() {
    // add.pte with a second chain of one JumpFalseCall on a Bool: ExecuTorch's runtime
    // (1.5.1, Python) runs it with destination 1, the chain's end. Instruction 1 is that
    // chain's index 0.
    let with_jump = |dest: i32| {
        let mut p = program(ADD);
        values(&mut p).push(evalue(KernelTypesT::Bool(Box::default())));
        let b = values(&mut p).len() as i32 - 1;
        let mut jump = JumpFalseCallT::default();
        (jump.cond_value_index, jump.destination_instruction) = (b, dest);
        let mut chain = ChainT::default();
        chain.instructions = Some(vec![instruction(InstructionArgumentsT::JumpFalseCall(
            Box::new(jump),
        ))]);
        plan(&mut p).chains.as_mut().unwrap().push(chain);
        read(&p)
    };
    let m = with_jump(1).unwrap();
    assert_eq!((m.operators[1].subgraph, m.operators[1].index), (1, 0));
    assert_eq!(
        with_jump(2).unwrap_err(),
        "m.pte: execution plan 0: instruction 1: a jump to index 2 of chain 1, past its end (1): a destination counts within its own chain (Method::execute ends the chain at such a jump, Method::step fails on it)"
    );
    assert_eq!(
        with_jump(0).unwrap_err(),
        "m.pte: execution plan 0: instruction 1: a jump back to index 0 of chain 1 (instruction 1): a loop, whose lifetimes memplan does not model"
    );
}

#[test]
fn the_file_s_own_plan_is_its_non_const_buffer_sizes() {
    let p = program(ADD);
    let own = p.execution_plan.as_ref().unwrap()[0]
        .non_const_buffer_sizes
        .clone()
        .unwrap();
    let m = read(&p).unwrap();
    let file = m.plan_file();
    let own: Vec<u64> = own.iter().map(|&s| s as u64).collect();
    assert_eq!(file.buffer_sizes, own);
    // More than the bytes its tensors reach.
    let reach = file
        .buffers
        .iter()
        .map(|b| b.offset.unwrap() + b.size)
        .max()
        .unwrap();
    assert!(own[1] > reach, "{own:?} {reach}");
}

#[test]
fn the_branches_of_a_cond_are_told_apart() {
    // cond.pte: the two MoveCalls' sources, one per branch, at one offset (ExecuTorch's).
    let mut p = program(COND);
    let m = read(&p).unwrap();
    let plan = plan(&mut p);
    let sources: Vec<u32> = plan.chains.as_ref().unwrap()[0]
        .instructions
        .as_ref()
        .unwrap()
        .iter()
        .filter_map(|i| match &i.instr_args {
            InstructionArgumentsT::MoveCall(mv) => Some(mv.move_from as u32),
            _ => None,
        })
        .collect();
    let (t, f) = (tensor(&m, sources[0]), tensor(&m, sources[1]));
    assert_eq!(t.file_offset, f.file_offset);
    assert!(t.lifetime.conflicts(&f.lifetime));
    let k = |v: u32| m.tensors.iter().position(|t| t.id.index == v).unwrap();
    assert!(m.branches.any());
    assert!(m.branches.exclusive(&[k(sources[0])], &[k(sources[1])]));
    // A plan input is written before the cond: compatible with both.
    assert!(!m.branches.exclusive(&[k(2)], &[k(sources[1])]));
}

#[test]
fn a_long_tensor_list_reads_in_linear_time() {
    // add.pte given a list of 100,000 tensors (copies of its output) in place of a.
    let n = 100_000;
    let mut p = program(ADD);
    let proto = values(&mut p)[2].clone();
    let first = values(&mut p).len() as i32;
    values(&mut p).extend((0..n).map(|_| proto.clone()));
    let mut list = TensorListT::default();
    list.items = Some((first..first + n).collect());
    values(&mut p).push(evalue(KernelTypesT::TensorList(Box::new(list))));
    let list = first + n;
    plan(&mut p).chains.as_mut().unwrap()[0].instructions = Some(vec![add(list, 1, 2)]);
    let start = std::time::Instant::now();
    let m = read(&p).unwrap();
    let took = start.elapsed();
    assert_eq!(m.tensors.len(), 3 + n as usize);
    assert!(took.as_secs() < 10, "{took:?}");
}
