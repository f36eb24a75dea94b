//! TensorFlow Lite Micro's allocation scopes: the lifetime of every tensor, as
//! `AllocationInfoBuilder::MarkAllocationLifetimes` (`tensorflow/lite/micro/
//! micro_allocation_info.cc`) marks them, walked without recursion.
//!
//! The scope count starts at 0. Entering a subgraph marks its inputs created and used at the
//! current scope; each operator opens a new scope (`+1`) in which its outputs are created;
//! each subgraph a control-flow operator runs (`IF`: then, else; `WHILE`: cond, body;
//! `CALL_ONCE`: init) opens one more scope (`+1`) and is walked there, before the operator's
//! inputs and outputs are marked used at the scope reached after them; at a subgraph's end its
//! outputs are created (if not yet) and used at the current scope. A tensor keeps its first
//! creation and its last use.
//!
//! A subgraph that several operators run (or that a subgraph run many times runs) is walked
//! again at every call, as TensorFlow Lite Micro walks it, so nested calls multiply the
//! work: every operator visited and every subgraph entered is charged to the read's
//! [`Budget`] (the visit's record and the tensor indices it marks), and the walk stops when
//! the budget is spent.

use std::fmt;

use crate::files::budget::{Budget, OverBudget};
use crate::problem::Step;

/// What the walk charges for visiting one operator, besides 4 bytes per tensor index it
/// marks and subgraph it runs: its record in [`Scopes::visits`] and its frame.
const VISIT_BYTES: usize = std::mem::size_of::<(Step, u32, u32)>() + std::mem::size_of::<Frame>();

/// One operator of a subgraph, as the walk needs it.
pub(crate) struct Op {
    /// Input tensor indices (-1: absent).
    pub inputs: Vec<i32>,
    /// Output tensor indices.
    pub outputs: Vec<i32>,
    /// The subgraphs it runs, in TFLite Micro's order.
    pub calls: Vec<i32>,
}

/// One subgraph, as the walk needs it.
pub(crate) struct Graph {
    /// Its number of tensors.
    pub tensors: usize,
    /// Its input tensor indices.
    pub inputs: Vec<i32>,
    /// Its output tensor indices.
    pub outputs: Vec<i32>,
    /// Its operators in order.
    pub ops: Vec<Op>,
}

/// What the walk found: the first and last scope of each tensor of each subgraph (`None`
/// where TFLite Micro keeps -1: never created, or never used), and the operators in the
/// order visited with their scopes.
pub(crate) struct Scopes {
    /// `first[subgraph][tensor]`.
    pub first: Vec<Vec<Option<Step>>>,
    /// `last[subgraph][tensor]`.
    pub last: Vec<Vec<Option<Step>>>,
    /// `(scope, subgraph, operator)` in the order visited.
    pub visits: Vec<(Step, u32, u32)>,
    /// The last scope opened (0 when none was).
    pub last_scope: Step,
}

/// Why the walk stopped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ScopeError {
    /// A tensor index outside its subgraph: `(subgraph, operator or None for the subgraph's
    /// own inputs and outputs, the list, the index)`.
    Tensor(u32, Option<u32>, &'static str, i32),
    /// A control-flow operator names a subgraph that does not exist.
    Subgraph(u32, u32, i32),
    /// A subgraph is entered while it is already being walked: `(the operator's subgraph,
    /// the operator, the callee)`.
    Recursion(u32, u32, u32),
    /// The read's budget ran out at operator `op` of subgraph `subgraph` (`None`: on
    /// entering or leaving it), which had been entered `entered` times.
    OverBudget {
        /// The subgraph walked.
        subgraph: u32,
        /// Its operator visited, if any.
        op: Option<u32>,
        /// How many times the subgraph had been entered.
        entered: u64,
        /// The budget.
        over: OverBudget,
    },
}

impl fmt::Display for ScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScopeError::Tensor(g, Some(op), list, t) => write!(
                f,
                "operator {op} of subgraph {g}: {list} tensor {t} is not a tensor of the subgraph"
            ),
            ScopeError::Tensor(g, None, list, t) => {
                write!(
                    f,
                    "subgraph {g}: {list} tensor {t} is not a tensor of the subgraph"
                )
            }
            ScopeError::Subgraph(g, op, s) => write!(
                f,
                "operator {op} of subgraph {g} runs subgraph {s}, which the model does not have"
            ),
            ScopeError::Recursion(g, op, s) => write!(
                f,
                "operator {op} of subgraph {g} runs subgraph {s} while subgraph {s} is running: recursive subgraphs are refused (TensorFlow Lite Micro's planner would not terminate)"
            ),
            ScopeError::OverBudget {
                subgraph,
                op,
                entered,
                over,
            } => {
                match op {
                    Some(op) => write!(f, "operator {op} of subgraph {subgraph}")?,
                    None => write!(f, "subgraph {subgraph}")?,
                }
                write!(
                    f,
                    ": walking the subgraphs as TensorFlow Lite Micro's planner does (a control-flow operator walks the subgraphs it runs at every call), subgraph {subgraph} is entered for the {} time: {over}",
                    ordinal(*entered)
                )
            }
        }
    }
}

/// `n` as an English ordinal: `1st`, `2nd`, `3rd`, `11th`, `1048577th`.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

enum Frame {
    /// Walking a subgraph: `op` is the next operator.
    Graph { g: usize, op: usize },
    /// Inside operator `op` of subgraph `g`: `call` is the next subgraph to enter.
    Op { g: usize, op: usize, call: usize },
}

struct Walk<'a> {
    graphs: &'a [Graph],
    scopes: Scopes,
    scope: u64,
    active: Vec<bool>,
    /// How many times each subgraph has been entered.
    entered: Vec<u64>,
    stack: Vec<Frame>,
    budget: &'a mut Budget,
}

impl Walk<'_> {
    fn slot(
        &self,
        g: usize,
        op: Option<usize>,
        list: &'static str,
        t: i32,
    ) -> Result<usize, ScopeError> {
        usize::try_from(t)
            .ok()
            .filter(|&t| t < self.graphs[g].tensors)
            .ok_or(ScopeError::Tensor(g as u32, op.map(|o| o as u32), list, t))
    }

    fn created(&mut self, g: usize, t: usize) {
        let s = self.scope as Step;
        self.scopes.first[g][t].get_or_insert(s);
    }

    fn used(&mut self, g: usize, t: usize) {
        self.scopes.last[g][t] = Some(self.scope as Step);
    }

    /// Charges `bytes` of the walk of subgraph `g` (at its operator `op`).
    fn charge(&mut self, g: usize, op: Option<usize>, bytes: usize) -> Result<(), ScopeError> {
        self.budget
            .spend(bytes as u64)
            .map_err(|over| ScopeError::OverBudget {
                subgraph: g as u32,
                op: op.map(|o| o as u32),
                entered: self.entered[g],
                over,
            })
    }

    fn open_scope(&mut self) {
        // The budget bounds the scopes far below `Step::MAX` (each costs more than a byte).
        self.scope += 1;
    }

    fn enter(&mut self, g: usize) -> Result<(), ScopeError> {
        self.entered[g] += 1;
        let graph = &self.graphs[g];
        let bytes = std::mem::size_of::<Frame>() + 4 * (graph.inputs.len() + graph.outputs.len());
        self.charge(g, None, bytes)?;
        self.active[g] = true;
        for i in 0..self.graphs[g].inputs.len() {
            let t = self.slot(g, None, "input", self.graphs[g].inputs[i])?;
            self.created(g, t);
            self.used(g, t);
        }
        self.stack.push(Frame::Graph { g, op: 0 });
        Ok(())
    }

    fn step(&mut self) -> Result<(), ScopeError> {
        let graphs = self.graphs;
        let Some(top) = self.stack.last_mut() else {
            return Ok(());
        };
        match *top {
            Frame::Graph { g, op } if op < graphs[g].ops.len() => {
                *top = Frame::Graph { g, op: op + 1 };
                let o = &graphs[g].ops[op];
                let marks = 2 * (o.inputs.len() + o.outputs.len()) + o.calls.len();
                self.charge(g, Some(op), VISIT_BYTES + 4 * marks)?;
                self.open_scope();
                self.scopes
                    .visits
                    .push((self.scope as Step, g as u32, op as u32));
                for &o in &graphs[g].ops[op].outputs {
                    let t = self.slot(g, Some(op), "output", o)?;
                    self.created(g, t);
                }
                self.stack.push(Frame::Op { g, op, call: 0 });
            }
            Frame::Graph { g, .. } => {
                self.stack.pop();
                for &o in &graphs[g].outputs {
                    let t = self.slot(g, None, "output", o)?;
                    self.created(g, t);
                    self.used(g, t);
                }
                self.active[g] = false;
            }
            Frame::Op { g, op, call } if call < graphs[g].ops[op].calls.len() => {
                *top = Frame::Op {
                    g,
                    op,
                    call: call + 1,
                };
                let callee = graphs[g].ops[op].calls[call];
                let c = usize::try_from(callee)
                    .ok()
                    .filter(|&c| c < graphs.len())
                    .ok_or(ScopeError::Subgraph(g as u32, op as u32, callee))?;
                if self.active[c] {
                    return Err(ScopeError::Recursion(g as u32, op as u32, c as u32));
                }
                self.open_scope();
                self.enter(c)?;
            }
            Frame::Op { g, op, .. } => {
                self.stack.pop();
                let o = &graphs[g].ops[op];
                for &i in &o.inputs {
                    if i >= 0 {
                        let t = self.slot(g, Some(op), "input", i)?;
                        self.used(g, t);
                    }
                }
                for &i in &o.outputs {
                    let t = self.slot(g, Some(op), "output", i)?;
                    self.used(g, t);
                }
            }
        }
        Ok(())
    }
}

/// Walks subgraph 0 (and every subgraph its control-flow operators run) as TFLite Micro's
/// planner does, charging `budget`. An empty model (no subgraphs) has no scopes.
///
/// # Errors
///
/// A [`ScopeError`]: a tensor or subgraph index out of range, a subgraph that runs itself
/// (directly or through others), the budget spent.
pub(crate) fn walk(graphs: &[Graph], budget: &mut Budget) -> Result<Scopes, ScopeError> {
    let mut w = Walk {
        graphs,
        scopes: Scopes {
            first: graphs.iter().map(|g| vec![None; g.tensors]).collect(),
            last: graphs.iter().map(|g| vec![None; g.tensors]).collect(),
            visits: Vec::new(),
            last_scope: 0,
        },
        scope: 0,
        active: vec![false; graphs.len()],
        entered: vec![0; graphs.len()],
        stack: Vec::new(),
        budget,
    };
    if !graphs.is_empty() {
        w.enter(0)?;
        while !w.stack.is_empty() {
            w.step()?;
        }
    }
    w.scopes.last_scope = w.scope as Step;
    Ok(w.scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(graphs: &[Graph]) -> Result<Scopes, ScopeError> {
        super::walk(graphs, &mut Budget::for_file(0))
    }

    fn op(inputs: &[i32], outputs: &[i32], calls: &[i32]) -> Op {
        Op {
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            calls: calls.to_vec(),
        }
    }

    #[test]
    fn a_chain_gets_one_scope_per_operator() {
        // in -> op0 -> a -> op1 -> out, as TFLM marks it: in [0,1], a [1,2], out [2,2].
        let g = Graph {
            tensors: 3,
            inputs: vec![0],
            outputs: vec![2],
            ops: vec![op(&[0, -1], &[1], &[]), op(&[1], &[2], &[])],
        };
        let s = walk(&[g]).unwrap();
        assert_eq!(s.first[0], vec![Some(0), Some(1), Some(2)]);
        assert_eq!(s.last[0], vec![Some(1), Some(2), Some(2)]);
        assert_eq!(s.visits, vec![(1, 0, 0), (2, 0, 1)]);
    }

    #[test]
    fn a_control_flow_operator_walks_its_subgraphs_in_scopes_of_their_own() {
        // op0 of subgraph 0 is an IF on subgraphs 1 and 2: scope 1 for the op, 2 to enter
        // subgraph 1 (one op at 3), 4 to enter subgraph 2 (one op at 5); the IF's inputs
        // and outputs are used at 5.
        let main = Graph {
            tensors: 2,
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![op(&[0], &[1], &[1, 2])],
        };
        let branch = || Graph {
            tensors: 2,
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![op(&[0], &[1], &[])],
        };
        let s = walk(&[main, branch(), branch()]).unwrap();
        assert_eq!((s.first[0][1], s.last[0][1]), (Some(1), Some(5)));
        assert_eq!((s.first[0][0], s.last[0][0]), (Some(0), Some(5)));
        assert_eq!((s.first[1][0], s.last[1][0]), (Some(2), Some(3)));
        assert_eq!((s.first[2][1], s.last[2][1]), (Some(5), Some(5)));
        assert_eq!(s.visits, vec![(1, 0, 0), (3, 1, 0), (5, 2, 0)]);
        assert_eq!(s.last_scope, 5);
    }

    #[test]
    fn recursion_and_bad_indices_are_errors() {
        let looping = Graph {
            tensors: 1,
            inputs: vec![],
            outputs: vec![],
            ops: vec![op(&[], &[0], &[0])],
        };
        assert_eq!(walk(&[looping]).err(), Some(ScopeError::Recursion(0, 0, 0)));
        let bad = Graph {
            tensors: 1,
            inputs: vec![3],
            outputs: vec![],
            ops: vec![],
        };
        assert_eq!(
            walk(&[bad]).err(),
            Some(ScopeError::Tensor(0, None, "input", 3))
        );
    }

    #[test]
    fn a_call_tree_that_doubles_at_every_level_stops_at_the_budget() {
        // Subgraph k runs subgraph k + 1 twice: 2^40 walks without the budget.
        let graphs: Vec<Graph> = (0..40)
            .map(|k| Graph {
                tensors: 0,
                inputs: vec![],
                outputs: vec![],
                ops: if k < 39 {
                    vec![op(&[], &[], &[k + 1, k + 1])]
                } else {
                    vec![]
                },
            })
            .collect();
        let start = std::time::Instant::now();
        let e = walk(&graphs).err().unwrap();
        assert!(start.elapsed().as_secs() < 5);
        assert!(matches!(e, ScopeError::OverBudget { .. }), "{e:?}");
        // Depth first: the deepest subgraph is entered most often.
        let text = e.to_string();
        assert!(text.starts_with("subgraph 39: walking the subgraphs as TensorFlow Lite Micro's planner does (a control-flow operator walks the subgraphs it runs at every call), subgraph 39 is entered for the "), "{text}");
        assert!(
            text.contains(
                "th time: reading the model would take more than its budget of 16777216 bytes"
            ),
            "{text}"
        );
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(1048577), "1048577th");
        assert_eq!(ordinal(23), "23rd");
    }

    #[test]
    fn tensors_no_operator_writes_keep_no_first_scope() {
        let g = Graph {
            tensors: 3,
            inputs: vec![],
            outputs: vec![1],
            ops: vec![op(&[0], &[1], &[])],
        };
        let s = walk(&[g]).unwrap();
        assert_eq!((s.first[0][0], s.last[0][0]), (None, Some(1)));
        assert_eq!((s.first[0][2], s.last[0][2]), (None, None));
    }
}
