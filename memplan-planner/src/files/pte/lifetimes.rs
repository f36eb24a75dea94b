//! What an execution plan's instructions do to its values, read as ExecuTorch's runtime
//! runs them (`runtime/executor/method.cpp`, `tensor_parser_exec_aten.cpp`).
//!
//! Steps are instruction indices: the chains' instructions numbered in order, chain 0's
//! first, from 0 (`Method::execute` runs the chains one after the other). A value is
//! *referenced* at a step where it is an argument of the instruction run there:
//!
//! - a `KernelCall`'s or `DelegateCall`'s argument. A `TensorList` or
//!   `OptionalTensorList` argument references each of its members at that step: the list
//!   holds pointers to its members' values (`BoxedEvalueList`), so a kernel reads or writes
//!   the members where it is given the list.
//! - a `MoveCall`'s source and destination, a `FreeCall`'s value, a `JumpFalseCall`'s
//!   condition.
//!
//! A value is *written* where it is a `KernelCall`'s last argument (the emitter,
//! `_emit_operator` in `exir/emit/_emitter.py`, appends the kernel's return values after
//! its arguments: an `.out` kernel's out tensor again, several as a `TensorList` whose
//! members are then written), any argument of a `DelegateCall` (a delegate does not say
//! which are its outputs), or, at step 0, a plan input or a value with initial state
//! (copied in when the method loads).
//!
//! A `MoveCall` does not write bytes: `mutable_value(move_to) = get_value(move_from)` makes
//! the destination the source's tensor, on the source's bytes, so the source's bytes are
//! read wherever the destination is read after the move. `executorch_prim::et_view` (the
//! emitter's view of a tensor whose shape is not static, `_emit_view`) does the same to its
//! out tensor: it points it at its input's data. Both *bind* a value to another's storage:
//! the source is then live as long as what is bound to it is ([`uses`] extends it).
//!
//! Refused, naming the instruction (or the list), as ExecuTorch refuses them when it loads
//! or runs the method: a value index out of range; a `KernelCall` without arguments or with
//! an operator index out of range; a `DelegateCall` whose delegate does not exist; an
//! instruction of a type the schema does not declare; a `FreeCall` of a value that is not a
//! tensor; a `JumpFalseCall` whose condition is neither a `Bool` nor a boolean tensor; a
//! tensor list
//! with a member that is not a tensor (an optional list: a tensor or `Null`), out of
//! range, or after the list (ExecuTorch parses values in order: the member is not a tensor
//! yet when the list is made). A `JumpFalseCall`'s destination is an index within its own
//! chain, from the next instruction to the chain's end (its length); past the end is
//! refused (`Method::execute` ends the chain there, `Method::step` fails on it). Refused
//! because memplan does not model them (ExecuTorch runs them): a jump back (a loop), a
//! `MoveCall` of a tensor list.

use crate::problem::Step;

/// The most instructions a program may have: 2^24.
pub(super) const MAX_INSTRUCTIONS: usize = 1 << 24;

/// One instruction, as its chain gives it.
pub(super) enum Instr {
    /// A kernel call: its operator index, its argument values.
    Kernel(u32, Vec<i32>),
    /// A delegate call: its delegate index, its argument values.
    Delegate(u32, Vec<i32>),
    /// `move_from`, `move_to`.
    Move(i32, i32),
    /// The condition value, the destination instruction (an index in its own chain).
    JumpFalse(i32, i32),
    /// The value freed.
    Free(i32),
    /// An instruction ExecuTorch refuses to load, and why.
    Invalid(String),
}

/// What a value is, as the instructions and lists need to know it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// A tensor; `true` when its scalar type is `Bool`.
    Tensor(bool),
    /// A tensor list: its members.
    TensorList(Vec<i32>),
    /// An optional tensor list: its members (-1: none).
    OptionalTensorList(Vec<i32>),
    /// A `Bool`.
    Bool(bool),
    /// Any other value: its kind in messages (`an Int`).
    Other(&'static str),
    /// A value that is itself faulty (reported on its own): nothing is checked against it.
    Faulty,
}

impl Kind {
    /// The kind in messages: `a tensor`, `an Int`.
    fn name(&self) -> &'static str {
        match self {
            Kind::Tensor(_) => "a tensor",
            Kind::TensorList(_) => "a tensor list",
            Kind::OptionalTensorList(_) => "an optional tensor list",
            Kind::Bool(_) => "a Bool",
            Kind::Other(name) => name,
            Kind::Faulty => "a faulty value",
        }
    }
}

/// The execution plan as [`uses`] reads it.
pub(super) struct Program<'p> {
    /// Every value's kind, by value index.
    pub kinds: &'p [Kind],
    /// The instructions, in step order.
    pub instrs: &'p [Instr],
    /// The number of instructions of each chain, in order.
    pub chains: &'p [usize],
    /// For each operator index, whether it is `executorch_prim::et_view`.
    pub views: &'p [bool],
    /// For each operator index, whether it is an in-place operator (ATen's naming: a
    /// name ending in `_`, `aten::index_put_`): it reads the tensor it writes.
    pub in_place: &'p [bool],
    /// The number of delegates.
    pub delegates: usize,
    /// The plan's inputs.
    pub inputs: &'p [i32],
    /// The plan's outputs.
    pub outputs: &'p [i32],
    /// The values with initial state (loaded once, when the method loads: they must keep
    /// their bytes across invocations).
    pub persistent: &'p [i32],
    /// Each instruction's name, for messages (`aten::add.out`, `move`).
    pub names: &'p [String],
}

/// What one instruction does to the values: the values (lists and their members) it
/// reads and those it writes, each once, in argument order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Access {
    /// Values it references without writing them.
    pub reads: Vec<usize>,
    /// Values it writes.
    pub writes: Vec<usize>,
}

/// What the instructions say about each value (by value index).
pub(super) struct Uses {
    /// The first step that references it.
    pub first: Vec<Option<Step>>,
    /// The last step at which it is live: the last that references it, or that references
    /// a value bound to its storage later (moves, `et_view`); the last step for a plan
    /// output or a value with initial state.
    pub last: Vec<Option<Step>>,
    /// The first step that writes it.
    pub written: Vec<Option<Step>>,
    /// For a value bound to another's storage (a move's destination, an `et_view`'s out
    /// tensor): the first value it was bound to and the step.
    pub bound: Vec<Option<(usize, Step)>>,
    /// Every binding: (step, the value bound to, the value bound), in step order.
    pub binds: Vec<(Step, usize, usize)>,
    /// Each instruction's [`Access`], in step order.
    pub access: Vec<Access>,
    /// Each step's chain and the step its chain starts at.
    pub chain_of: Vec<(u32, Step)>,
    /// Whether it keeps its bytes across invocations (live at every step).
    pub persistent: Vec<bool>,
}

impl Uses {
    fn touch(&mut self, v: usize, s: Step) {
        let f = self.first[v].get_or_insert(s);
        *f = (*f).min(s);
        let l = self.last[v].get_or_insert(s);
        *l = (*l).max(s);
    }

    fn write(&mut self, v: usize, s: Step) {
        let w = self.written[v].get_or_insert(s);
        *w = (*w).min(s);
    }
}

/// The uses of the values of `p` by its instructions.
///
/// # Errors
///
/// Every fault, in this order: each plan input and output, each instruction (step) and
/// each tensor list, once, for its first fault, a message naming it.
pub(super) fn uses(p: &Program<'_>) -> Result<Uses, Vec<String>> {
    let n = p.kinds.len();
    let steps = p.instrs.len();
    let mut u = Uses {
        first: vec![None; n],
        last: vec![None; n],
        written: vec![None; n],
        bound: vec![None; n],
        binds: Vec::new(),
        access: Vec::with_capacity(steps),
        chain_of: Vec::with_capacity(steps),
        persistent: vec![false; n],
    };
    for (c, &len) in p.chains.iter().enumerate() {
        let start = u.chain_of.len() as Step;
        u.chain_of
            .extend(std::iter::repeat_n((c as u32, start), len));
    }
    let mut faults = Vec::new();
    let index = |v: i32, what: &dyn Fn() -> String| -> Result<usize, String> {
        usize::try_from(v).ok().filter(|&v| v < n).ok_or_else(|| {
            format!(
                "{} is value {v}, which the plan does not have ({n} values)",
                what()
            )
        })
    };
    // A value's members when it is a list (a faulty list has none).
    let members = |v: usize| -> Vec<usize> {
        match &p.kinds[v] {
            Kind::TensorList(m) | Kind::OptionalTensorList(m) => m
                .iter()
                .filter_map(|&x| usize::try_from(x).ok().filter(|&x| x < n))
                .collect(),
            _ => Vec::new(),
        }
    };
    let last_step = steps.saturating_sub(1) as Step;
    for (k, &v) in p.inputs.iter().enumerate() {
        match index(v, &|| format!("plan input {k}")) {
            Ok(v) => {
                for x in std::iter::once(v).chain(members(v)) {
                    u.touch(x, 0);
                    u.write(x, 0);
                }
            }
            Err(e) => faults.push(e),
        }
    }
    for (k, &v) in p.outputs.iter().enumerate() {
        match index(v, &|| format!("plan output {k}")) {
            Ok(v) => {
                for x in std::iter::once(v).chain(members(v)) {
                    u.touch(x, last_step);
                }
            }
            Err(e) => faults.push(e),
        }
    }
    let mut binds: Vec<(Step, usize, usize)> = Vec::new();
    // Values whose first write is an in-place operator's, which reads them there.
    let mut read_where_first_written = vec![false; n];
    // The first step that names each value as an argument itself (not as a list member).
    let mut direct: Vec<Option<Step>> = vec![None; n];
    // The last step (+ 1) that listed each value among its writes, its reads: each value
    // once per instruction, in linear time however long its lists are.
    let (mut wrote, mut read) = (vec![0usize; n], vec![0usize; n]);
    for (s, instr) in p.instrs.iter().enumerate() {
        let step = s as Step;
        let (chain, start) = u.chain_of[s];
        let at = |what: String| format!("instruction {s}: {what}");
        let mut access = Access::default();
        let mut one = || -> Result<(), String> {
            match instr {
                Instr::Invalid(why) => return Err(at(why.clone())),
                Instr::Kernel(op, args) | Instr::Delegate(op, args) => {
                    let kernel = matches!(instr, Instr::Kernel(..));
                    if kernel && args.is_empty() {
                        return Err(at(
                            "a KernelCall without arguments, which ExecuTorch refuses".into(),
                        ));
                    }
                    let known = if kernel { p.views.len() } else { p.delegates };
                    if *op as usize >= known {
                        return Err(at(if kernel {
                            format!(
                                "operator {op}, which the plan does not have ({known} operators): ExecuTorch refuses the method"
                            )
                        } else {
                            format!(
                                "delegate {op}, which the plan does not have ({known} delegates): ExecuTorch fails to run it"
                            )
                        }));
                    }
                    let slots = args
                        .iter()
                        .enumerate()
                        .map(|(a, &v)| index(v, &|| at(format!("argument {a}"))))
                        .collect::<Result<Vec<_>, _>>()?;
                    let view = kernel && p.views[*op as usize];
                    if kernel
                        && p.in_place[*op as usize]
                        && let Some((&ret, given)) = slots.split_last()
                        && given.contains(&ret)
                        && u.written[ret].is_none()
                    {
                        read_where_first_written[ret] = true;
                    }
                    for (a, &v) in slots.iter().enumerate() {
                        let returned = a + 1 == slots.len();
                        if view && returned {
                            // `et_view(self, size, out)`: out takes self's data.
                            access.reads.push(v);
                            if p.kinds[slots[0]] != Kind::Faulty && slots[0] != v {
                                binds.push((step, slots[0], v));
                            }
                            continue;
                        }
                        let written = !kernel || returned;
                        for x in std::iter::once(v).chain(members(v)) {
                            if written {
                                access.writes.push(x);
                            } else {
                                access.reads.push(x);
                            }
                        }
                    }
                }
                Instr::Move(from, to) => {
                    let f = index(*from, &|| at("move_from".into()))?;
                    let t = index(*to, &|| at("move_to".into()))?;
                    for (v, what) in [(f, "move_from"), (t, "move_to")] {
                        if matches!(
                            p.kinds[v],
                            Kind::TensorList(_) | Kind::OptionalTensorList(_)
                        ) {
                            return Err(at(format!(
                                "{what} is value {v}, {}: a move of a list, whose members' lifetimes memplan does not model",
                                p.kinds[v].name()
                            )));
                        }
                    }
                    access.reads.push(f);
                    access.reads.push(t);
                    if f != t {
                        binds.push((step, f, t));
                    }
                }
                Instr::Free(v) => {
                    let v = index(*v, &|| at("value_index".into()))?;
                    if !matches!(p.kinds[v], Kind::Tensor(_) | Kind::Faulty) {
                        return Err(at(format!(
                            "a FreeCall of value {v}, {}: ExecuTorch frees tensors only (it fails to run it)",
                            p.kinds[v].name()
                        )));
                    }
                    access.reads.push(v);
                }
                Instr::JumpFalse(cond, dest) => {
                    let c = index(*cond, &|| at("cond_value_index".into()))?;
                    match p.kinds[c] {
                        Kind::Bool(_) | Kind::Tensor(true) | Kind::Faulty => {}
                        Kind::Tensor(false) => {
                            return Err(at(format!(
                                "a JumpFalseCall on value {c}, a tensor whose scalar type is not Bool: ExecuTorch fails to run it"
                            )));
                        }
                        ref other => {
                            return Err(at(format!(
                                "a JumpFalseCall on value {c}, {}: its condition must be a Bool or a Bool tensor, or ExecuTorch fails to run it",
                                other.name()
                            )));
                        }
                    }
                    let len = p.chains[chain as usize];
                    let index_in_chain = s - start as usize;
                    match usize::try_from(*dest) {
                        Ok(d) if d > index_in_chain && d <= len => {}
                        Ok(d) if d <= index_in_chain => {
                            return Err(at(format!(
                                "a jump back to index {d} of chain {chain} (instruction {}): a loop, whose lifetimes memplan does not model",
                                start as usize + d
                            )));
                        }
                        _ => {
                            return Err(at(format!(
                                "a jump to index {dest} of chain {chain}, past its end ({len}): a destination counts within its own chain (Method::execute ends the chain at such a jump, Method::step fails on it)"
                            )));
                        }
                    }
                    access.reads.push(c);
                }
            }
            Ok(())
        };
        if let Err(e) = one() {
            faults.push(e);
            access = Access::default();
        }
        if let Instr::Kernel(_, args) | Instr::Delegate(_, args) = instr {
            for v in args.iter().filter_map(|&v| usize::try_from(v).ok()) {
                if v < n {
                    direct[v].get_or_insert(step);
                }
            }
        }
        // Each value once, in argument order; a value written is not read there too.
        let mark = s + 1;
        access
            .writes
            .retain(|&v| std::mem::replace(&mut wrote[v], mark) != mark);
        access
            .reads
            .retain(|&v| wrote[v] != mark && std::mem::replace(&mut read[v], mark) != mark);
        for &v in access.reads.iter().chain(&access.writes) {
            u.touch(v, step);
        }
        for &v in &access.writes {
            u.write(v, step);
        }
        u.access.push(access);
    }
    // Tensor lists, as `parseTensorList` and `parseListOptionalType` make them.
    for (l, kind) in p.kinds.iter().enumerate() {
        let (items, optional) = match kind {
            Kind::TensorList(m) => (m, false),
            Kind::OptionalTensorList(m) => (m, true),
            _ => continue,
        };
        let list = if optional {
            "optional tensor list"
        } else {
            "tensor list"
        };
        let read_by = || {
            direct[l].map_or(String::new(), |s| {
                format!(", used by instruction {s} ({})", p.names[s as usize])
            })
        };
        for (m, &v) in items.iter().enumerate() {
            if optional && v == -1 {
                continue;
            }
            let fault = match usize::try_from(v).ok().filter(|&x| x < n) {
                None => Some(format!(
                    "is value {v}, which the plan does not have ({n} values)"
                )),
                Some(x) if p.kinds[x] == Kind::Faulty => None,
                Some(x) if x >= l => Some(format!(
                    "is value {x}, which comes after the list: ExecuTorch makes the values in order, so it is not a tensor yet when the list is made"
                )),
                Some(x) => match p.kinds[x] {
                    Kind::Tensor(_) => None,
                    Kind::Other("a Null") if optional => None,
                    ref other => Some(format!(
                        "is value {x}, {}: ExecuTorch's {list}s hold tensors{} only, and it refuses the list",
                        other.name(),
                        if optional { " or Null" } else { "" }
                    )),
                },
            };
            if let Some(f) = fault {
                faults.push(format!("member {m} of {list} {l}{} {f}", read_by()));
                break;
            }
        }
    }
    // Storage bound to another value's is read wherever the value bound to it is: the
    // latest binding first, so that a chain of moves reaches its first source.
    binds.sort_unstable();
    for &(s, from, to) in binds.iter().rev() {
        if let Some(l) = u.last[to] {
            let f = u.last[from].get_or_insert(s);
            *f = (*f).max(l);
        }
        u.bound[to].get_or_insert((from, s));
    }
    u.binds = binds;
    // State kept across invocations: initial state, loaded once; a value referenced before
    // this invocation first writes it (a mutable buffer: `torch.export` reads a buffer,
    // then ExecuTorch writes it back with `copy_`), or that an in-place operator first
    // writes (it reads what was there).
    let mut input = vec![false; n];
    for v in p.inputs.iter().filter_map(|&v| usize::try_from(v).ok()) {
        if v < n {
            input[v] = true;
        }
    }
    let state: Vec<usize> = (0..n)
        .filter(|&v| {
            matches!(p.kinds[v], Kind::Tensor(_))
                && match (u.first[v], u.written[v]) {
                    (Some(f), Some(w)) => f < w || read_where_first_written[v],
                    _ => false,
                }
                && !input[v]
        })
        .chain(
            p.persistent
                .iter()
                .filter_map(|&v| usize::try_from(v).ok().filter(|&v| v < n)),
        )
        .collect();
    for v in state {
        u.first[v] = Some(0);
        u.last[v] = Some(last_step);
        u.write(v, 0);
        u.persistent[v] = true;
    }
    if faults.is_empty() {
        Ok(u)
    } else {
        Err(faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Kind = Kind::Tensor(false);

    /// A one-chain program over `kinds` with `instrs`; operator 0 a kernel, operator 1
    /// `et_view`.
    fn run(
        kinds: &[Kind],
        instrs: &[Instr],
        inputs: &[i32],
        outputs: &[i32],
    ) -> Result<Uses, Vec<String>> {
        let names: Vec<String> = (0..instrs.len()).map(|s| format!("op{s}")).collect();
        uses(&Program {
            kinds,
            instrs,
            chains: &[instrs.len()],
            views: &[false, true],
            in_place: &[false, false],
            delegates: 0,
            inputs,
            outputs,
            persistent: &[],
            names: &names,
        })
    }

    #[test]
    fn an_add_out_kernel() {
        // add.pte: values 0, 1 in, 2 out, 3 the alpha Int; args [0, 1, 3, 2, 2].
        let kinds = [T, T, T, Kind::Other("an Int")];
        let u = run(
            &kinds,
            &[Instr::Kernel(0, vec![0, 1, 3, 2, 2])],
            &[0, 1],
            &[2],
        )
        .unwrap();
        assert_eq!(u.first, vec![Some(0); 4]);
        assert_eq!(u.written, vec![Some(0), Some(0), Some(0), None]);
        assert_eq!(u.access[0].reads, vec![0, 1, 3]);
        assert_eq!(u.access[0].writes, vec![2]);
    }

    #[test]
    fn a_list_s_members_are_referenced_where_the_list_is() {
        // 0 and 2 are inputs; 1 = k(0) at 0; the list 3 = [1, 2] is read at 1 by a kernel
        // writing 4; a kernel at 2 reads 4 and writes the list 7 = [5, 6].
        let mut kinds = vec![
            T,
            T,
            T,
            Kind::TensorList(vec![1, 2]),
            T,
            T,
            T,
            Kind::TensorList(vec![5, 6]),
        ];
        let instrs = [
            Instr::Kernel(0, vec![0, 1, 1]),
            Instr::Kernel(0, vec![3, 4, 4]),
            Instr::Kernel(0, vec![4, 7]),
        ];
        let u = run(&kinds, &instrs, &[0, 2], &[]).unwrap();
        assert_eq!((u.first[1], u.last[1]), (Some(0), Some(1)));
        assert_eq!((u.first[2], u.last[2]), (Some(0), Some(1)));
        assert_eq!(u.access[1].reads, vec![3, 1, 2]);
        // The list written at step 2 writes its members there.
        assert_eq!(u.access[2].writes, vec![7, 5, 6]);
        assert_eq!(u.access[2].reads, vec![4]);
        assert_eq!(
            (u.written[5], u.first[5], u.last[5]),
            (Some(2), Some(2), Some(2))
        );
        // A member after its list is refused.
        kinds[3] = Kind::TensorList(vec![1, 5]);
        let e = run(&kinds, &instrs, &[0, 2], &[]).err().unwrap();
        assert_eq!(
            e,
            [
                "member 1 of tensor list 3, used by instruction 1 (op1) is value 5, which comes after the list: ExecuTorch makes the values in order, so it is not a tensor yet when the list is made"
            ]
        );
    }

    #[test]
    fn a_list_holding_a_non_tensor_is_refused_naming_the_instruction() {
        // aten::cat.out(tensors, dim, out, out) with tensors = [0, 1] where 1 is an Int.
        let kinds = [
            T,
            Kind::Other("an Int"),
            Kind::TensorList(vec![0, 1]),
            Kind::Other("an Int"),
            T,
        ];
        let e = run(&kinds, &[Instr::Kernel(0, vec![2, 3, 4, 4])], &[0], &[4])
            .err()
            .unwrap();
        assert_eq!(
            e,
            [
                "member 1 of tensor list 2, used by instruction 0 (op0) is value 1, an Int: ExecuTorch's tensor lists hold tensors only, and it refuses the list"
            ]
        );
        // An optional list may hold Null (and -1), not an Int.
        let kinds = [
            T,
            Kind::Other("a Null"),
            Kind::OptionalTensorList(vec![0, 1, -1]),
        ];
        assert!(run(&kinds, &[Instr::Kernel(0, vec![2, 0])], &[0], &[]).is_ok());
        let kinds = [
            T,
            Kind::Other("an Int"),
            Kind::OptionalTensorList(vec![0, 1]),
        ];
        let e = run(&kinds, &[], &[0], &[]).err().unwrap();
        assert_eq!(
            e,
            [
                "member 1 of optional tensor list 2 is value 1, an Int: ExecuTorch's optional tensor lists hold tensors or Null only, and it refuses the list"
            ]
        );
    }

    #[test]
    fn a_move_keeps_its_source_live_while_the_destination_is_read() {
        // 1 = k(0) at 0; move 1 -> 2 at 1; move 2 -> 3 at 2; 4 = k(0) at 3; 5 = k(3) at 4.
        let kinds = [T, T, T, T, T, T];
        let instrs = [
            Instr::Kernel(0, vec![0, 1, 1]),
            Instr::Move(1, 2),
            Instr::Move(2, 3),
            Instr::Kernel(0, vec![0, 4, 4]),
            Instr::Kernel(0, vec![3, 5, 5]),
        ];
        let u = run(&kinds, &instrs, &[0], &[5]).unwrap();
        // 3 is read at 4: 2, and through it 1, hold the bytes it reads until then.
        assert_eq!((u.first[1], u.last[1]), (Some(0), Some(4)));
        assert_eq!((u.first[2], u.last[2]), (Some(1), Some(4)));
        assert_eq!(u.bound[3], Some((2, 2)));
        assert_eq!(u.bound[2], Some((1, 1)));
        // A move writes no bytes.
        assert_eq!((u.written[2], u.written[3]), (None, None));
        // et_view(self, size, out) binds out to self the same way.
        let kinds = [T, Kind::Other("an IntList"), T, T];
        let instrs = [
            Instr::Kernel(1, vec![0, 1, 2]),
            Instr::Kernel(0, vec![0, 3, 3]),
            Instr::Kernel(0, vec![2, 3, 3]),
        ];
        let u = run(&kinds, &instrs, &[0], &[3]).unwrap();
        assert_eq!(u.written[2], None);
        assert_eq!(u.bound[2], Some((0, 0)));
        assert_eq!(u.last[0], Some(2));
    }

    #[test]
    fn jumps_count_within_their_own_chain() {
        // Two chains of two instructions; the second's jump to index 2 is its end.
        let kinds = [Kind::Bool(false)];
        let names = vec![String::new(); 4];
        let program = |instrs: &[Instr]| {
            uses(&Program {
                kinds: &kinds,
                instrs,
                chains: &[2, 2],
                views: &[],
                in_place: &[],
                delegates: 0,
                inputs: &[],
                outputs: &[],
                persistent: &[],
                names: &names,
            })
        };
        let ok = [
            Instr::JumpFalse(0, 2),
            Instr::Free(0),
            Instr::JumpFalse(0, 2),
            Instr::JumpFalse(0, 2),
        ];
        // Free(0) of a Bool is refused; the jumps are fine (index 2 ends each chain).
        let e = program(&ok).err().unwrap();
        assert_eq!(
            e,
            [
                "instruction 1: a FreeCall of value 0, a Bool: ExecuTorch frees tensors only (it fails to run it)"
            ]
        );
        let bad = [
            Instr::JumpFalse(0, 1),
            Instr::JumpFalse(0, 2),
            Instr::JumpFalse(0, 3),
            Instr::JumpFalse(0, 0),
        ];
        let e = program(&bad).err().unwrap();
        assert_eq!(
            e,
            [
                "instruction 2: a jump to index 3 of chain 1, past its end (2): a destination counts within its own chain (Method::execute ends the chain at such a jump, Method::step fails on it)",
                "instruction 3: a jump back to index 0 of chain 1 (instruction 2): a loop, whose lifetimes memplan does not model",
            ]
        );
    }

    #[test]
    fn what_executorch_refuses_is_refused() {
        let kinds = [T, Kind::Other("an Int"), Kind::TensorList(vec![0])];
        let e = run(
            &kinds,
            &[
                Instr::Kernel(0, vec![0, 5]),
                Instr::Move(7, 0),
                Instr::Kernel(9, vec![0]),
                Instr::Kernel(0, vec![]),
                Instr::JumpFalse(1, 5),
                Instr::JumpFalse(0, 6),
                Instr::Move(2, 0),
                Instr::Invalid("of type 9, which the schema does not declare".into()),
            ],
            &[9],
            &[],
        )
        .err()
        .unwrap();
        assert_eq!(
            e,
            [
                "plan input 0 is value 9, which the plan does not have (3 values)",
                "instruction 0: argument 1 is value 5, which the plan does not have (3 values)",
                "instruction 1: move_from is value 7, which the plan does not have (3 values)",
                "instruction 2: operator 9, which the plan does not have (2 operators): ExecuTorch refuses the method",
                "instruction 3: a KernelCall without arguments, which ExecuTorch refuses",
                "instruction 4: a JumpFalseCall on value 1, an Int: its condition must be a Bool or a Bool tensor, or ExecuTorch fails to run it",
                "instruction 5: a JumpFalseCall on value 0, a tensor whose scalar type is not Bool: ExecuTorch fails to run it",
                "instruction 6: move_from is value 2, a tensor list: a move of a list, whose members' lifetimes memplan does not model",
                "instruction 7: of type 9, which the schema does not declare",
            ]
        );
    }
}
