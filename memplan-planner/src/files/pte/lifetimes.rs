//! Lifetimes of an execution plan's values, from the instructions that reference them.
//!
//! Steps are instruction indices: the chains' instructions numbered in order, chain 0's
//! first, from 0 (ExecuTorch's `Method::execute` runs the chains one after the other). A
//! value is live from the first to the last step that references it: a `KernelCall`'s or
//! `DelegateCall`'s argument (a `TensorList` or `OptionalTensorList` argument references
//! each of its members), a `MoveCall`'s source and destination, a `FreeCall`'s value, a
//! `JumpFalseCall`'s condition. The plan's inputs (and values with initial data) live from
//! step 0, its outputs to the last step.
//!
//! A value is *written* at a step where it is a `KernelCall`'s last argument (ExecuTorch's
//! emitter appends the kernel's return values after its arguments: for an `.out` kernel,
//! the out tensors again; several come as a `TensorList`), any argument of a
//! `DelegateCall` (which does not say which are outputs), a `MoveCall`'s destination, or,
//! at step 0, a plan input or a value with initial data. The alias rules use it.

use crate::problem::Step;

/// The most instructions a program may have: 2^24.
pub(super) const MAX_INSTRUCTIONS: usize = 1 << 24;

/// One instruction, as the lifetimes need it.
pub(super) enum Instr {
    /// A kernel call's argument values.
    Kernel(Vec<i32>),
    /// A delegate call's argument values.
    Delegate(Vec<i32>),
    /// `move_from`, `move_to`.
    Move(i32, i32),
    /// The condition value, the destination instruction.
    JumpFalse(i32, i32),
    /// The value freed.
    Free(i32),
    /// An instruction of a kind the schema does not declare (or without arguments).
    Unknown,
}

/// What the instructions say about each value (by value index).
pub(super) struct Uses {
    /// The first step that references it.
    pub first: Vec<Option<Step>>,
    /// The last step that references it.
    pub last: Vec<Option<Step>>,
    /// The first step that writes it.
    pub written: Vec<Option<Step>>,
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

/// The uses of `values` values by `instrs` (in step order). `lists[v]` are the members of
/// value `v` when it is a tensor list; `initial` lists the values written at step 0 (plan
/// inputs, values with initial data); `outputs` the plan's outputs.
///
/// # Errors
///
/// Every fault, in this order: each plan input and output, each instruction (step) and
/// each tensor list, once, for its first fault, a message naming it and the argument: a
/// value index out of range, a jump backwards (a loop, whose lifetimes memplan does not
/// model) or out of range.
pub(super) fn uses(
    values: usize,
    instrs: &[Instr],
    lists: &[Option<Vec<i32>>],
    initial: &[i32],
    outputs: &[i32],
) -> Result<Uses, Vec<String>> {
    let mut u = Uses {
        first: vec![None; values],
        last: vec![None; values],
        written: vec![None; values],
    };
    let mut faults = Vec::new();
    let index = |v: i32, what: &dyn Fn() -> String| -> Result<usize, String> {
        usize::try_from(v)
            .ok()
            .filter(|&v| v < values)
            .ok_or_else(|| {
                format!(
                    "{} is value {v}, which the plan does not have ({values} values)",
                    what()
                )
            })
    };
    let last_step = instrs.len().saturating_sub(1) as Step;
    for (k, &v) in initial.iter().enumerate() {
        match index(v, &|| format!("plan input {k}")) {
            Ok(v) => {
                u.touch(v, 0);
                u.write(v, 0);
            }
            Err(e) => faults.push(e),
        }
    }
    for (k, &v) in outputs.iter().enumerate() {
        match index(v, &|| format!("plan output {k}")) {
            Ok(v) => u.touch(v, last_step),
            Err(e) => faults.push(e),
        }
    }
    for (s, instr) in instrs.iter().enumerate() {
        let step = s as Step;
        let at = |what: String| format!("instruction {s}: {what}");
        let mut one = || -> Result<(), String> {
            match instr {
                Instr::Kernel(args) | Instr::Delegate(args) => {
                    let slots = args
                        .iter()
                        .enumerate()
                        .map(|(a, &v)| index(v, &|| at(format!("argument {a}"))))
                        .collect::<Result<Vec<_>, _>>()?;
                    for (a, &v) in slots.iter().enumerate() {
                        u.touch(v, step);
                        if matches!(instr, Instr::Delegate(..)) || a + 1 == args.len() {
                            u.write(v, step);
                        }
                    }
                }
                Instr::Move(from, to) => {
                    let f = index(*from, &|| at("move_from".into()))?;
                    let t = index(*to, &|| at("move_to".into()))?;
                    u.touch(f, step);
                    u.touch(t, step);
                    u.write(t, step);
                }
                Instr::Free(v) => {
                    let v = index(*v, &|| at("value_index".into()))?;
                    u.touch(v, step);
                }
                Instr::JumpFalse(cond, dest) => {
                    let c = index(*cond, &|| at("cond_value_index".into()))?;
                    if usize::try_from(*dest).map_or(true, |d| d <= s || d > instrs.len()) {
                        return Err(at(format!(
                            "a jump to instruction {dest}: only forward jumps within the chain are read (a loop's lifetimes are not modelled)"
                        )));
                    }
                    u.touch(c, step);
                }
                Instr::Unknown => {}
            }
            Ok(())
        };
        if let Err(e) = one() {
            faults.push(e);
        }
    }
    // A list's members are referenced wherever the list is, and written where it is.
    for (l, members) in lists.iter().enumerate() {
        let Some(members) = members else { continue };
        let (Some(first), Some(last)) = (u.first[l], u.last[l]) else {
            continue;
        };
        let written = u.written[l];
        let slots = members
            .iter()
            .enumerate()
            // A negative member is an absent optional tensor.
            .filter(|&(_, &v)| v >= 0)
            .map(|(m, &v)| index(v, &|| format!("member {m} of tensor list {l}")))
            .collect::<Result<Vec<_>, _>>();
        match slots {
            Ok(slots) => {
                for v in slots {
                    u.touch(v, first);
                    u.touch(v, last);
                    if let Some(w) = written {
                        u.write(v, w);
                    }
                }
            }
            Err(e) => faults.push(e),
        }
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

    #[test]
    fn an_add_out_kernel() {
        // add.pte: values 0, 1 in, 2 out, 3 the alpha Int; args [0, 1, 3, 2, 2].
        let u = uses(
            4,
            &[Instr::Kernel(vec![0, 1, 3, 2, 2])],
            &[None, None, None, None],
            &[0, 1],
            &[2],
        )
        .unwrap();
        assert_eq!(u.first, vec![Some(0); 4]);
        assert_eq!(u.written, vec![Some(0), Some(0), Some(0), None]);
    }

    #[test]
    fn list_members_and_steps() {
        // 0 -k0-> 1 (step 0); a list 2 = [1, 3] is read at step 1; 3 is written at 1.
        let instrs = [
            Instr::Kernel(vec![0, 1, 1]),
            Instr::Kernel(vec![2, 3, 3]),
            Instr::Free(0),
        ];
        let lists = [None, None, Some(vec![1, 3]), None];
        let u = uses(4, &instrs, &lists, &[0], &[3]).unwrap();
        assert_eq!((u.first[1], u.last[1]), (Some(0), Some(1)));
        assert_eq!((u.first[0], u.last[0]), (Some(0), Some(2)));
        assert_eq!(
            (u.first[3], u.last[3], u.written[3]),
            (Some(1), Some(2), Some(1))
        );
    }

    #[test]
    fn bad_indices_and_loops_are_refused() {
        let e = uses(1, &[Instr::Kernel(vec![0, 5])], &[None], &[], &[])
            .err()
            .unwrap();
        assert_eq!(
            e,
            ["instruction 0: argument 1 is value 5, which the plan does not have (1 values)"]
        );
        let e = uses(
            1,
            &[Instr::Free(0), Instr::JumpFalse(0, 0)],
            &[None],
            &[],
            &[],
        )
        .err()
        .unwrap();
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with("instruction 1: a jump to instruction 0"),
            "{e:?}"
        );
    }

    #[test]
    fn every_faulty_input_instruction_and_list_is_reported() {
        let e = uses(
            3,
            &[
                Instr::Kernel(vec![0, 5]),
                Instr::Move(7, 0),
                Instr::Free(1),
                Instr::Kernel(vec![2, 1]),
                Instr::JumpFalse(0, 0),
            ],
            &[None, None, Some(vec![-1, 4])],
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
                "instruction 4: a jump to instruction 0: only forward jumps within the chain are read (a loop's lifetimes are not modelled)",
                "member 1 of tensor list 2 is value 4, which the plan does not have (3 values)",
            ]
        );
    }
}
