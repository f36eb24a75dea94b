//! `.pte` programs (ExecuTorch's `schema/program.fbs`), read as ExecuTorch's runtime runs
//! them, and written back with memplan's offsets.
//!
//! Following `runtime/executor/program.cpp`, `method.cpp`, `tensor_parser_exec_aten.cpp`,
//! the emitter `exir/emit/_emitter.py`, the planner `exir/memory_planning.py` and
//! `exir/passes/memory_planning_pass.py`, and the serializer `exir/_serialize/_program.py`
//! (ExecuTorch `cff6f4dd`):
//!
//! - **The plan**: one execution plan, chosen by name (the first by default).
//! - **Which tensors**: every `Tensor` value with `allocation_info` (a memory-planned
//!   tensor, `getMemPlannedPtr`), including those with initial state (`data_buffer_idx > 0`,
//!   or external: loaded once, when the method loads). Values without it are constants
//!   (their data in the file: [`TensorInfo::data`](super::TensorInfo::data)) or supplied
//!   at run time.
//! - **Sizes**: elements (the product of `sizes`; 1 for a scalar) times the scalar type's
//!   size, unpadded (`nbytes`); a `DYNAMIC_BOUND` tensor's `sizes` are its upper bound, as
//!   ExecuTorch plans it. [`ModelFile::align`] is 16, ExecuTorch's memory planning's
//!   default alignment.
//! - **The file's own plan**: `memory_id` (1-based: ExecuTorch's runtime uses buffer
//!   `memory_id - 1`), `memory_offset_low + (memory_offset_high << 32)`, and the buffers'
//!   sizes, `non_const_buffer_sizes` (index 0 reserved): what the program asks the runtime
//!   for, [`ModelFile::buffer_sizes`], the figure memplan gives as the file's own plan
//!   (`add.pte`: 48 bytes, though its three tensors end at byte 36).
//! - **Steps** are instruction indices: the chains' instructions numbered in order, chain
//!   0's first, from 0 (`Method::execute` runs the chains one after the other). A value is
//!   live from the first to the last step that references it: a `KernelCall`'s or
//!   `DelegateCall`'s argument (a `TensorList` or `OptionalTensorList` argument references
//!   each of its members there: the list holds pointers to its members' values), a
//!   `MoveCall`'s source and destination, a `FreeCall`'s value, a `JumpFalseCall`'s
//!   condition. A `MoveCall` makes its destination the source's tensor, on the source's
//!   bytes (`mutable_value(move_to) = get_value(move_from)`), and `et_view` points its out
//!   tensor at its input's data: the source is live as long as what is bound to it is read.
//!   The plan's inputs live from step 0, its outputs to the last step; a planned tensor
//!   nothing references is live at step 0 only. A tensor that keeps its bytes from one
//!   invocation to the next is live at every step
//!   ([`PlannedTensor::persistent`](super::PlannedTensor::persistent)): one with initial
//!   state, a mutable buffer the emitter names, one referenced before the invocation first
//!   writes it (`torch.export` reads a mutable buffer, ExecuTorch writes it back with
//!   `copy_`), one an in-place operator (`aten::index_put_`) first writes.
//! - **Aliases**: tensors ExecuTorch places on the same bytes on purpose, while both are
//!   live, are [`AliasGroup`](super::AliasGroup)s, each planned as one buffer: an elided
//!   static view (a tensor nothing writes, at the memory id and offset of the tensor
//!   written there most recently), a value bound at its source's offset (`et_view`), an
//!   out-variant kernel's output placed on an input it reads at that instruction, of the
//!   same type and shape, whose group is not read after it. A tensor is written where it
//!   is a `KernelCall`'s last argument (the emitter appends a kernel's return values after
//!   its arguments: an `.out` kernel's out tensor again, several as a `TensorList`), any
//!   `DelegateCall` argument (a delegate does not say which are its outputs), or, before
//!   step 0, a plan input or a tensor with initial state. Reuse (a tensor on bytes whose
//!   earlier tensor is no longer live, as the greedy planner places them) is no group:
//!   memplan plans the two apart or together as it likes, and `memplan check` finds them
//!   live at no common step. Any other two tensors on common bytes while both are live
//!   collide. Grouping is `O(n log n)`. `add.pte` and `arduino_add_model.pte` have no
//!   aliases; `tests/data/pte/views.pte` (two elided views, exported with ExecuTorch 1.5.1)
//!   has two groups, and ExecuTorch computes a different output when they are split.
//! - **Branches**: a `cond` as the emitter lays it out (two `JumpFalseCall`s, the second
//!   on a `Bool` that is false) runs one of its branches per invocation: tensors written
//!   only in its two branches are never live together ([`Branches`]), though their steps
//!   say so once a `MoveCall` carries a branch's result past the `cond`. `memplan check`
//!   uses this; memplan plans every branch as if it ran (`examples/data/pte/cond.pte`).
//!
//! - **Constants** are what their shapes say (`get_constant_buffer_data`): a
//!   `constant_buffer` entry exactly the tensor's bytes (ExecuTorch refuses a longer one,
//!   and a kernel would read past a shorter one); in the constant segment, which stores
//!   each constant's start and not its length, the bytes up to the next constant's start
//!   (or the segment's end) at least the tensor's and less than the alignment between
//!   constants more (`_extract_constant_segment` pads each to it: the largest power of two,
//!   at most 4096, that divides every offset). Else a fault naming the value and the first
//!   instruction that reads it.
//!
//! Caps: [`MAX_MODEL_BYTES`](super::MAX_MODEL_BYTES) (segments included),
//! [`MAX_RANK`] dims, the verifier's (tables nested at most 64 deep, at
//! most 2^22 tables, at most 2^31 bytes visited), at most 2^24 instructions, and the read's
//! budget ([`read_budget`](super::read_budget): 64 bytes of records per byte of the file,
//! at least 16 MiB, at most 1 GiB), charged for every value, instruction and argument
//! before or as it is copied (instructions that share one argument list in the file would
//! otherwise each copy it).
//! Refused, naming the value, instruction or tensor list: what ExecuTorch refuses to load
//! or run (an index out of range; an operator or delegate the plan does not have; an
//! instruction of an unknown type or without its arguments; a `FreeCall` of a value that
//! is not a tensor; a `JumpFalseCall` on a value that is neither a `Bool` nor a Bool
//! tensor, or to past the end of its own chain; a tensor list holding a value that is not
//! a tensor, or one after the list; `DYNAMIC_UNBOUND` planned tensors; memory ids and
//! offsets outside `non_const_buffer_sizes`), and what memplan does not model: a jump back
//! (a loop), a `MoveCall` of a tensor list.

mod aliases;
mod branches;
mod header;
mod lifetimes;
mod types;
#[cfg(feature = "write")]
mod write;

use memplan_flatbuffers::executorch::{
    self as fb, InstructionArguments, KernelTypes, ScalarType, TensorShapeDynamism,
};
use memplan_flatbuffers::flatbuffers::VerifierOptions;

#[cfg(feature = "write")]
pub use write::{PlannedOffset, write_plan};

use std::cell::RefCell;

use super::budget::Budget;
use super::error::{Faults, Faulty, FileError};
use super::flatbuffer::{self, MAX_RANK, error};
use super::model::{
    ModelFile, ModelFormat, Operator, Options, PlannedTensor, Subgraph, TensorId, TensorInfo, Value,
};
use crate::problem::{Lifetime, Step};
pub use branches::Branches;
use lifetimes::{Instr, Kind};

/// The alignment of every planned buffer, in bytes: ExecuTorch's default
/// (`exir/memory_planning.py`, and `@executorch-tensor-alignment` in the schema).
pub const ALIGN: u64 = 16;

/// The operator whose out tensor takes its input's data: ExecuTorch's view of a tensor
/// whose shape is not static (`_emit_view`; `kernels/prim_ops/et_view.cpp`).
const ET_VIEW: &str = "executorch_prim::et_view";

/// The in-place outputs of a program ([`aliases::InPlace`]): for each instruction, each
/// planned tensor it first writes there, with each planned tensor it reads at the same
/// memory id and offset, of the same scalar type and shape. `placed` and `tensors` are the
/// planned tensors, `planned_index` the planned index of each value.
fn in_place(
    tensors: &[PlannedTensor],
    placed: &[aliases::Placed],
    uses: &lifetimes::Uses,
    planned_index: &[Option<usize>],
) -> Vec<aliases::InPlace> {
    let key = |k: usize| {
        (
            placed[k].memory_id,
            placed[k].offset,
            tensors[k].element.code,
            &tensors[k].shape,
        )
    };
    let mut out = Vec::new();
    for (s, access) in uses.access.iter().enumerate() {
        let mut reads: Vec<usize> = access
            .reads
            .iter()
            .filter_map(|&v| planned_index[v])
            .filter(|&k| placed[k].size > 0)
            .collect();
        if reads.is_empty() {
            continue;
        }
        reads.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)));
        for o in access.writes.iter().filter_map(|&v| planned_index[v]) {
            if placed[o].written != Some(s as Step) || placed[o].size == 0 {
                continue;
            }
            let from = reads.partition_point(|&r| key(r) < key(o));
            for &i in reads[from..].iter().take_while(|&&r| key(r) == key(o)) {
                out.push(aliases::InPlace {
                    input: i,
                    output: o,
                    step: s as Step,
                });
            }
        }
    }
    out
}

/// The flatbuffer part of `bytes`: up to the extended header's program size, or all of it.
fn program_part<'a>(
    bytes: &'a [u8],
    file: &str,
) -> Result<(&'a [u8], Option<header::Header>), FileError> {
    let Some(h) = header::read(bytes) else {
        return Ok((bytes, None));
    };
    let end = usize::try_from(h.program_size)
        .ok()
        .filter(|&e| (8..=bytes.len()).contains(&e))
        .ok_or_else(|| {
            error(
                file,
                format!(
                    "the extended header's program size, {}, is outside the file's {} bytes",
                    h.program_size,
                    bytes.len()
                ),
            )
        })?;
    if h.segment_base_offset != 0 && h.segment_base_offset < h.program_size {
        return Err(error(
            file,
            format!(
                "the extended header's segment base offset, {}, is inside the program ({} bytes)",
                h.segment_base_offset, h.program_size
            ),
        ));
    }
    Ok((&bytes[..end], Some(h)))
}

/// Checks the header and verifies the flatbuffer.
fn program<'a>(
    bytes: &'a [u8],
    file: &str,
    options: &VerifierOptions,
) -> Result<(fb::Program<'a>, Option<header::Header>), FileError> {
    flatbuffer::check_header(bytes, file, ModelFormat::Pte).map_err(|mut e| {
        if let Some(id) = bytes.get(4..8)
            && id.starts_with(b"ET")
        {
            e.message
                .push_str(" (another version of ExecuTorch's schema: memplan reads ET12)");
        }
        e
    })?;
    let (part, h) = program_part(bytes, file)?;
    let p = memplan_flatbuffers::verify_executorch(options, part)
        .map_err(|e| flatbuffer::invalid(file, ModelFormat::Pte, &e, options))?;
    Ok((p, h))
}

/// The index of the execution plan named `name` (the first when `None`).
fn plan_index(p: &fb::Program<'_>, file: &str, name: Option<&str>) -> Result<usize, FileError> {
    let plans = p.execution_plan();
    let names: Vec<&str> = plans
        .iter()
        .flatten()
        .map(|e| e.name().unwrap_or(""))
        .collect();
    match name {
        None if !names.is_empty() => Ok(0),
        None => Err(error(file, "the program has no execution plan")),
        Some(n) => names.iter().position(|&m| m == n).ok_or_else(|| {
            // The first few, each clipped: one long name listed many times stays short.
            let mut shown: Vec<String> = names
                .iter()
                .take(crate::LISTED)
                .map(|m| m.chars().take(64).collect())
                .collect();
            if names.len() > crate::LISTED {
                shown.push(format!("and {} more", names.len() - crate::LISTED));
            }
            error(
                file,
                format!(
                    "the program has no execution plan `{n}` (it has: {})",
                    shown.join(", ")
                ),
            )
        }),
    }
}

/// Reads a `.pte` program's bytes: the execution plan `plan_name` (the first when `None`).
/// `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] naming the file and the value, instruction or byte offset at fault: a
/// file identifier other than `ET12` (saying which was found, and that another `ET..` is
/// another schema version), a flatbuffer that does not verify, an extended header that
/// points outside the file, no such execution plan, a planned tensor with a dynamic
/// (`DYNAMIC_UNBOUND`) or negative shape, more than 16 dims, an unknown scalar type, a byte
/// size over 64 bits, a memory id or an extent outside `non_const_buffer_sizes`, a
/// constant's data outside the file or not what its shape says, an instruction naming a
/// value that does not exist, a backward jump, the read's budget spent. The faults of values, plan inputs and outputs, instructions and tensor
/// lists are all reported, each once, in that order, the first [`LISTED`](crate::LISTED)
/// in the error (see [`FileError::more`]); an instruction is checked for its own indices
/// only, so a faulty value brings no fault of the instructions that use it. Every other
/// fault is reported alone. Never panics.
pub fn read(bytes: &[u8], file: &str, plan_name: Option<&str>) -> Result<ModelFile, FileError> {
    let (p, h) = program(bytes, file, &flatbuffer::verifier_options())?;
    let index = plan_index(&p, file, plan_name)?;
    let plans = p
        .execution_plan()
        .ok_or_else(|| error(file, "the program has no execution plan"))?;
    let plan = plans.get(index);
    Reader {
        bytes,
        file,
        program: p,
        header: h,
        plan,
        index: index as u32,
        budget: RefCell::new(Budget::for_file(bytes.len())),
        readers: RefCell::new(Vec::new()),
        sorted_offsets: std::cell::OnceCell::new(),
    }
    .read()
}

struct Reader<'a> {
    bytes: &'a [u8],
    file: &'a str,
    program: fb::Program<'a>,
    header: Option<header::Header>,
    plan: fb::ExecutionPlan<'a>,
    index: u32,
    /// What the read may still build ([`super::budget`]).
    budget: RefCell<Budget>,
    /// The first instruction (its step, chain and index) that names each value, directly
    /// or in a tensor list: the instruction a constant's faults name.
    readers: RefCell<Vec<Option<(u32, u32, u32)>>>,
    /// The constant segment's offsets, sorted (where each constant's bytes end).
    sorted_offsets: std::cell::OnceCell<Vec<u64>>,
}

/// Bytes a value's record takes besides its contents: the value, its tensor list slot and
/// its three entries of the lifetimes.
const VALUE_BYTES: usize =
    std::mem::size_of::<Value>() + std::mem::size_of::<Option<Vec<i32>>>() + 24;

/// Bytes a planned tensor's records take besides its shape.
const PLANNED_BYTES: usize =
    std::mem::size_of::<(usize, PlannedTensor)>() + std::mem::size_of::<aliases::Placed>() + 16;

impl<'a> Reader<'a> {
    fn err(&self, message: impl Into<String>) -> FileError {
        error(self.file, message)
    }

    /// Charges `bytes` to the budget; past it, an error that starts with `what` (the value
    /// or instruction being read).
    fn charge(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<(), FileError> {
        self.budget
            .borrow_mut()
            .spend(bytes as u64)
            .map_err(|over| self.err(format!("execution plan {}: {}: {over}", self.index, what())))
    }

    /// Fills [`Reader::readers`]: the first instruction that names each of `values`, as an
    /// argument, a move's source or destination, a freed value or a jump's condition, or
    /// as a member of a tensor list an instruction names. Charged: 4 bytes per argument
    /// and list member visited.
    fn find_readers(&self, values: &[fb::EValue<'a>]) -> Result<(), FileError> {
        // Its entries, and the sorted constant offsets `constant` may need.
        let offsets = self
            .program
            .constant_segment()
            .and_then(|c| c.offsets())
            .map_or(0, |o| o.len());
        self.charge(8 * (values.len() + offsets), || "its values".to_string())?;
        let mut readers: Vec<Option<(u32, u32, u32)>> = vec![None; values.len()];
        let mut mark = |v: i32, at: (u32, u32, u32)| {
            if let Some(r) = usize::try_from(v).ok().and_then(|v| readers.get_mut(v)) {
                r.get_or_insert(at);
            }
        };
        let mut step = 0u32;
        for (c, chain) in self.plan.chains().iter().flatten().enumerate() {
            for (k, ins) in chain.instructions().iter().flatten().enumerate() {
                let at = (step, c as u32, k as u32);
                step = step.saturating_add(1);
                let args = match ins.instr_args_type() {
                    InstructionArguments::KernelCall => {
                        ins.instr_args_as_kernel_call().and_then(|k| k.args())
                    }
                    InstructionArguments::DelegateCall => {
                        ins.instr_args_as_delegate_call().and_then(|d| d.args())
                    }
                    _ => None,
                };
                self.charge(4 * args.map_or(1, |a| a.len()), || {
                    format!("instruction {k} of chain {c}")
                })?;
                for a in args.into_iter().flatten() {
                    mark(a, at);
                }
                if let Some(m) = ins.instr_args_as_move_call() {
                    mark(m.move_from(), at);
                    mark(m.move_to(), at);
                }
                if let Some(f) = ins.instr_args_as_free_call() {
                    mark(f.value_index(), at);
                }
                if let Some(j) = ins.instr_args_as_jump_false_call() {
                    mark(j.cond_value_index(), at);
                }
            }
        }
        for (l, ev) in values.iter().enumerate() {
            let Some(at) = readers[l] else { continue };
            let items = match ev.val_type() {
                KernelTypes::TensorList => ev.val_as_tensor_list().and_then(|x| x.items()),
                KernelTypes::OptionalTensorList => {
                    ev.val_as_optional_tensor_list().and_then(|x| x.items())
                }
                _ => None,
            };
            self.charge(4 * items.map_or(0, |i| i.len()), || format!("value {l}"))?;
            for m in items.into_iter().flatten() {
                if let Some(r) = usize::try_from(m).ok().and_then(|m| readers.get_mut(m)) {
                    r.get_or_insert(at);
                }
            }
        }
        *self.readers.borrow_mut() = readers;
        Ok(())
    }

    /// `read by instruction K (`NAME`)` for the first instruction that names value `v`
    /// (`read by no instruction`): its step (instructions numbered across the chains) and
    /// its kernel, at most 64 characters of each of its names.
    fn reader_label(&self, v: usize) -> String {
        let Some((step, c, k)) = self.readers.borrow().get(v).copied().flatten() else {
            return "read by no instruction".to_string();
        };
        let ins = self
            .plan
            .chains()
            .filter(|ch| (c as usize) < ch.len())
            .map(|ch| ch.get(c as usize))
            .and_then(|ch| ch.instructions())
            .filter(|i| (k as usize) < i.len())
            .map(|i| i.get(k as usize));
        let clip = |s: &str| -> String { s.chars().take(64).collect() };
        let name = ins.and_then(|ins| match ins.instr_args_type() {
            InstructionArguments::KernelCall => {
                let i = ins.instr_args_as_kernel_call()?.op_index();
                let ops = self.plan.operators()?;
                let o = usize::try_from(i).ok().filter(|&i| i < ops.len())?;
                let o = ops.get(o);
                Some(match o.overload() {
                    Some(ov) if !ov.is_empty() => {
                        format!("{}.{}", clip(o.name().unwrap_or("")), clip(ov))
                    }
                    _ => clip(o.name().unwrap_or("")),
                })
            }
            InstructionArguments::DelegateCall => {
                let i = ins.instr_args_as_delegate_call()?.delegate_index();
                let ds = self.plan.delegates()?;
                let d = usize::try_from(i).ok().filter(|&i| i < ds.len())?;
                Some(format!("delegate:{}", clip(ds.get(d).id().unwrap_or(""))))
            }
            InstructionArguments::MoveCall => Some("move".into()),
            InstructionArguments::FreeCall => Some("free".into()),
            InstructionArguments::JumpFalseCall => Some("jump_false".into()),
            _ => None,
        });
        match name {
            Some(name) => format!("read by instruction {step} (`{name}`)"),
            None => format!("read by instruction {step}"),
        }
    }

    /// What value `ev`'s records take, before they are built: one value table may be listed
    /// many times over, and each copy is a record of its own.
    fn value_bytes(ev: &fb::EValue<'_>) -> usize {
        let contents = match ev.val_type() {
            KernelTypes::Tensor => ev.val_as_tensor().map_or(0, |t| {
                let dims = t.sizes().map_or(0, |s| s.len());
                std::mem::size_of::<TensorInfo>() + 16 + 8 * dims + PLANNED_BYTES + 8 * dims
            }),
            KernelTypes::String => ev
                .val_as_string()
                .and_then(|x| x.string_val())
                .map_or(0, str::len),
            KernelTypes::IntList => {
                8 * ev
                    .val_as_int_list()
                    .and_then(|x| x.items())
                    .map_or(0, |i| i.len())
            }
            KernelTypes::DoubleList => {
                8 * ev
                    .val_as_double_list()
                    .and_then(|x| x.items())
                    .map_or(0, |i| i.len())
            }
            KernelTypes::BoolList => ev
                .val_as_bool_list()
                .and_then(|x| x.items())
                .map_or(0, |i| i.len()),
            // The list, and its copy for the lifetimes.
            KernelTypes::TensorList => {
                8 * ev
                    .val_as_tensor_list()
                    .and_then(|x| x.items())
                    .map_or(0, |i| i.len())
            }
            KernelTypes::OptionalTensorList => {
                8 * ev
                    .val_as_optional_tensor_list()
                    .and_then(|x| x.items())
                    .map_or(0, |i| i.len())
            }
            _ => 0,
        };
        VALUE_BYTES + contents
    }

    fn read(&self) -> Result<ModelFile, FileError> {
        let values: Vec<fb::EValue<'a>> = self
            .plan
            .values()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let sizes: Vec<i64> = self
            .plan
            .non_const_buffer_sizes()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let mut buffer_sizes = Vec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            buffer_sizes.push(
                u64::try_from(s).map_err(|_| {
                    self.err(format!("non_const_buffer_sizes[{i}] is {s}: negative"))
                })?,
            );
        }

        // Every value, and the planned tensors among them.
        let mut out_values = Vec::with_capacity(values.len());
        let mut kinds = Vec::with_capacity(values.len());
        let mut planned: Vec<(usize, PlannedTensor)> = Vec::new();
        let io =
            self.plan.inputs().map_or(0, |v| v.len()) + self.plan.outputs().map_or(0, |v| v.len());
        self.charge(8 * io, || "its inputs and outputs".to_string())?;
        let mut persistent: Vec<i32> = Vec::new();
        let inputs: Vec<i32> = self
            .plan
            .inputs()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        self.find_readers(&values)?;
        // Every faulty value, then every faulty instruction, each once, for its first fault.
        let mut faults = Faults::new(Faulty::Parts);
        for (v, ev) in values.iter().enumerate() {
            self.charge(Self::value_bytes(ev), || format!("value {v}"))?;
            match self.value(v, ev, &buffer_sizes, &mut planned, &mut persistent) {
                Ok((value, kind)) => {
                    out_values.push(value);
                    kinds.push(kind);
                }
                Err(e) => {
                    faults.add(e);
                    out_values.push(Value::Null);
                    kinds.push(Kind::Faulty);
                }
            }
        }

        // Instructions, in step order.
        let op_names: Vec<String> = self
            .plan
            .operators()
            .iter()
            .flatten()
            .map(|o| match o.overload() {
                Some(ov) if !ov.is_empty() => format!("{}.{ov}", o.name().unwrap_or("")),
                _ => o.name().unwrap_or("").to_string(),
            })
            .collect();
        let views: Vec<bool> = self
            .plan
            .operators()
            .iter()
            .flatten()
            .map(|o| o.name() == Some(ET_VIEW))
            .collect();
        // ATen's in-place operators end in `_` (`aten::index_put_`).
        let in_place_ops: Vec<bool> = op_names
            .iter()
            .map(|n| {
                let base = n.split('.').next().unwrap_or("");
                let op = base.rsplit("::").next().unwrap_or("");
                op.ends_with('_') && !op.starts_with("__")
            })
            .collect();
        let mut instrs = Vec::new();
        let mut operators = Vec::new();
        let mut chains = Vec::new();
        for (c, chain) in self.plan.chains().iter().flatten().enumerate() {
            let mut len = 0;
            for (k, ins) in chain.instructions().iter().flatten().enumerate() {
                if instrs.len() >= lifetimes::MAX_INSTRUCTIONS {
                    return Err(self.err(format!(
                        "more than {} instructions",
                        lifetimes::MAX_INSTRUCTIONS
                    )));
                }
                let (instr, name) = self.instruction(&ins, &op_names);
                // Its records (the instruction, its operator, its arguments twice), charged
                // as it is read: instructions that share one argument list in the file
                // each get a copy of it.
                let arguments = match &instr {
                    Instr::Kernel(_, a) | Instr::Delegate(_, a) => a.len(),
                    _ => 2,
                };
                self.charge(
                    std::mem::size_of::<Instr>()
                        + std::mem::size_of::<Operator>()
                        + name.len()
                        + 16 * arguments,
                    || {
                        format!(
                            "instruction {} (`{name}`, {arguments} arguments)",
                            instrs.len()
                        )
                    },
                )?;
                let args = match &instr {
                    Instr::Kernel(_, a) | Instr::Delegate(_, a) => a.clone(),
                    Instr::Move(f, t) => vec![*f, *t],
                    Instr::JumpFalse(c, _) => vec![*c],
                    Instr::Free(v) => vec![*v],
                    Instr::Invalid(_) => Vec::new(),
                };
                operators.push(Operator {
                    step: instrs.len() as u32,
                    subgraph: c as u32,
                    index: k as u32,
                    name,
                    options: Options::None,
                    inputs: args,
                    outputs: Vec::new(),
                });
                instrs.push(instr);
                len += 1;
            }
            chains.push(len);
        }
        let outputs: Vec<i32> = self
            .plan
            .outputs()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let names: Vec<String> = operators.iter().map(|o| o.name.clone()).collect();
        let program = lifetimes::Program {
            kinds: &kinds,
            instrs: &instrs,
            chains: &chains,
            views: &views,
            in_place: &in_place_ops,
            delegates: self.plan.delegates().map_or(0, |d| d.len()),
            inputs: &inputs,
            outputs: &outputs,
            persistent: &persistent,
            names: &names,
        };
        let uses = match lifetimes::uses(&program) {
            Ok(uses) => Some(uses),
            Err(found) => {
                for e in found {
                    faults.add(self.err(format!("execution plan {}: {e}", self.index)));
                }
                None
            }
        };
        faults.finish()?;
        // `uses` fails with at least one fault, so `finish` has returned it.
        let Some(uses) = uses else {
            return Err(self.err(format!(
                "execution plan {}: unreadable instructions",
                self.index
            )));
        };

        let mut planned_index = vec![None; values.len()];
        for (k, (v, _)) in planned.iter().enumerate() {
            planned_index[*v] = Some(k);
        }
        let last_step = instrs.len().saturating_sub(1) as u32;
        let mut tensors = Vec::with_capacity(planned.len());
        let mut placed = Vec::with_capacity(planned.len());
        for (k, (v, mut t)) in planned.into_iter().enumerate() {
            let first = uses.first[v].unwrap_or(0);
            let last = uses.last[v].unwrap_or(first).max(first);
            t.lifetime = Lifetime { first, last };
            t.persistent = uses.persistent[v];
            if let Some(Value::Tensor(info)) = out_values.get_mut(v) {
                info.planned = Some(k);
            }
            placed.push(aliases::Placed {
                memory_id: t.memory_id.unwrap_or(0),
                offset: t.file_offset.unwrap_or(0),
                lifetime: t.lifetime,
                written: uses.written[v],
                bound: uses.bound[v].map(|(from, s)| (s, planned_index[from])),
                size: t.size,
            });
            tensors.push(t);
        }
        let in_place = in_place(&tensors, &placed, &uses, &planned_index);
        let alias_groups = aliases::alias_groups(&mut tensors, &placed, &in_place);
        let mut branches = Branches::read(&instrs, &kinds, &uses);
        branches.define(&tensors, &uses, &planned_index);

        let name = self.plan.name().unwrap_or("").to_string();
        Ok(ModelFile {
            file: self.file.to_string(),
            format: ModelFormat::Pte,
            description: format!(
                "ExecuTorch program version {}, execution plan `{name}`",
                self.program.version()
            ),
            align: ALIGN,
            tensors,
            alias_groups,
            buffer_sizes,
            subgraphs: vec![Subgraph {
                name,
                values: out_values,
                inputs,
                outputs,
            }],
            last_step,
            scratch: Default::default(),
            operators,
            branches,
        })
    }

    /// One instruction and its name in [`Operator::name`]. An instruction ExecuTorch
    /// refuses is [`Instr::Invalid`].
    fn instruction(&self, ins: &fb::Instruction<'_>, op_names: &[String]) -> (Instr, String) {
        let args = |a: memplan_flatbuffers::flatbuffers::Vector<'_, i32>| a.iter().collect();
        let missing = |what: &str| {
            Instr::Invalid(format!(
                "a {what} without its arguments table, which ExecuTorch refuses"
            ))
        };
        match ins.instr_args_type() {
            InstructionArguments::KernelCall => match ins.instr_args_as_kernel_call() {
                Some(k) => {
                    let i = k.op_index();
                    let name = usize::try_from(i)
                        .ok()
                        .and_then(|i| op_names.get(i))
                        .map_or_else(|| format!("operator {i}"), Clone::clone);
                    let instr = match (u32::try_from(i), k.args()) {
                        (Ok(i), Some(a)) => Instr::Kernel(i, args(a)),
                        (Err(_), _) => Instr::Invalid(format!(
                            "operator {i}, which the plan does not have ({} operators): ExecuTorch refuses the method",
                            op_names.len()
                        )),
                        (_, None) => Instr::Invalid(
                            "a KernelCall without arguments, which ExecuTorch refuses".into(),
                        ),
                    };
                    (instr, name)
                }
                None => (missing("KernelCall"), "kernel".into()),
            },
            InstructionArguments::DelegateCall => match ins.instr_args_as_delegate_call() {
                Some(d) => {
                    let i = d.delegate_index();
                    let id = usize::try_from(i)
                        .ok()
                        .and_then(|i| {
                            self.plan
                                .delegates()
                                .filter(|ds| i < ds.len())
                                .map(|ds| ds.get(i))
                        })
                        .and_then(|d| d.id())
                        .unwrap_or("");
                    let instr = match (u32::try_from(i), d.args()) {
                        (Ok(i), Some(a)) => Instr::Delegate(i, args(a)),
                        (Err(_), _) => Instr::Invalid(format!(
                            "delegate {i}, which the plan does not have ({} delegates): ExecuTorch fails to run it",
                            self.plan.delegates().map_or(0, |d| d.len())
                        )),
                        (_, None) => Instr::Invalid(
                            "a DelegateCall without arguments, which ExecuTorch refuses".into(),
                        ),
                    };
                    (instr, format!("delegate:{id}"))
                }
                None => (missing("DelegateCall"), "delegate".into()),
            },
            InstructionArguments::MoveCall => match ins.instr_args_as_move_call() {
                Some(m) => (Instr::Move(m.move_from(), m.move_to()), "move".into()),
                None => (missing("MoveCall"), "move".into()),
            },
            InstructionArguments::JumpFalseCall => match ins.instr_args_as_jump_false_call() {
                Some(j) => (
                    Instr::JumpFalse(j.cond_value_index(), j.destination_instruction()),
                    "jump_false".into(),
                ),
                None => (missing("JumpFalseCall"), "jump_false".into()),
            },
            InstructionArguments::FreeCall => match ins.instr_args_as_free_call() {
                Some(f) => (Instr::Free(f.value_index()), "free".into()),
                None => (missing("FreeCall"), "free".into()),
            },
            other => (
                Instr::Invalid(format!(
                    "of type {}, which the schema does not declare: ExecuTorch refuses it",
                    other.0
                )),
                format!("instruction type {}", other.0),
            ),
        }
    }

    /// Value `v`: its description and its kind, and, for a planned tensor, an entry in
    /// `planned` (lifetime to come); planned tensors with initial state go to `persistent`.
    fn value(
        &self,
        v: usize,
        ev: &fb::EValue<'a>,
        buffer_sizes: &[u64],
        planned: &mut Vec<(usize, PlannedTensor)>,
        persistent: &mut Vec<i32>,
    ) -> Result<(Value, Kind), FileError> {
        let at = |m: String| self.err(format!("value {v} of execution plan {}: {m}", self.index));
        let value = match ev.val_type() {
            KernelTypes::Tensor => match ev.val_as_tensor() {
                Some(t) => {
                    let bool_type = t.scalar_type() == ScalarType::BOOL;
                    return self
                        .tensor(v, &t, buffer_sizes, planned, persistent)
                        .map(|t| (Value::Tensor(t), Kind::Tensor(bool_type)));
                }
                None => Value::Null,
            },
            KernelTypes::Int => Value::Int(ev.val_as_int().map_or(0, |x| x.int_val())),
            KernelTypes::Bool => Value::Bool(ev.val_as_bool().is_some_and(|x| x.bool_val())),
            KernelTypes::Double => {
                Value::Double(ev.val_as_double().map_or(0.0, |x| x.double_val()))
            }
            KernelTypes::String => Value::String(
                ev.val_as_string()
                    .and_then(|x| x.string_val())
                    .unwrap_or("")
                    .to_string(),
            ),
            KernelTypes::IntList => Value::IntList(
                ev.val_as_int_list()
                    .and_then(|x| x.items())
                    .map(|i| i.iter().collect())
                    .unwrap_or_default(),
            ),
            KernelTypes::DoubleList => Value::DoubleList(
                ev.val_as_double_list()
                    .and_then(|x| x.items())
                    .map(|i| i.iter().collect())
                    .unwrap_or_default(),
            ),
            KernelTypes::BoolList => Value::BoolList(
                ev.val_as_bool_list()
                    .and_then(|x| x.items())
                    .map(|i| i.iter().collect())
                    .unwrap_or_default(),
            ),
            KernelTypes::TensorList => {
                let items: Vec<i32> = ev
                    .val_as_tensor_list()
                    .and_then(|x| x.items())
                    .map(|i| i.iter().collect())
                    .unwrap_or_default();
                return Ok((Value::TensorList(items.clone()), Kind::TensorList(items)));
            }
            KernelTypes::OptionalTensorList => {
                let items: Vec<i32> = ev
                    .val_as_optional_tensor_list()
                    .and_then(|x| x.items())
                    .map(|i| i.iter().collect())
                    .unwrap_or_default();
                return Ok((
                    Value::OptionalTensorList(items.clone()),
                    Kind::OptionalTensorList(items),
                ));
            }
            KernelTypes::Null | KernelTypes::NONE => Value::Null,
            other => {
                return Err(at(format!(
                    "a value of type {}, which the schema does not declare",
                    other.0
                )));
            }
        };
        let kind = match &value {
            Value::Bool(b) => Kind::Bool(*b),
            Value::Int(_) => Kind::Other("an Int"),
            Value::Double(_) => Kind::Other("a Double"),
            Value::String(_) => Kind::Other("a String"),
            Value::IntList(_) => Kind::Other("an IntList"),
            Value::DoubleList(_) => Kind::Other("a DoubleList"),
            Value::BoolList(_) => Kind::Other("a BoolList"),
            _ => Kind::Other("a Null"),
        };
        Ok((value, kind))
    }

    fn tensor(
        &self,
        v: usize,
        t: &fb::Tensor<'a>,
        buffer_sizes: &[u64],
        planned: &mut Vec<(usize, PlannedTensor)>,
        persistent: &mut Vec<i32>,
    ) -> Result<TensorInfo, FileError> {
        let at = |m: String| {
            self.err(format!(
                "value {v} (a tensor) of execution plan {}: {m}",
                self.index
            ))
        };
        let element = types::element_type(t.scalar_type()).ok_or_else(|| {
            at(format!(
                "scalar type {}, which the schema does not declare",
                t.scalar_type().0
            ))
        })?;
        let rank = t.sizes().map_or(0, |s| s.len());
        if rank > MAX_RANK {
            return Err(at(format!("{rank} dims, more than {MAX_RANK}")));
        }
        let dims: Vec<i64> = t
            .sizes()
            .map(|s| s.iter().map(i64::from).collect())
            .unwrap_or_default();
        let size = flatbuffer::byte_size(&dims, element.size).map_err(at)?;
        let shape: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
        let data_index = t.data_buffer_idx();
        let mut data = None;
        let mut planned_at = None;
        if let Some(a) = t.allocation_info() {
            if t.shape_dynamism() == TensorShapeDynamism::DYNAMIC_UNBOUND {
                return Err(at(
                    "a planned tensor with a DYNAMIC_UNBOUND shape, which ExecuTorch does not plan"
                        .into(),
                ));
            }
            let id = a.memory_id();
            let offset =
                u64::from(a.memory_offset_low()) | (u64::from(a.memory_offset_high()) << 32);
            let capacity = (id != 0)
                .then(|| buffer_sizes.get(id as usize))
                .flatten()
                .ok_or_else(|| {
                    at(format!(
                        "memory id {id}, which non_const_buffer_sizes (ids 1..{}) does not have",
                        buffer_sizes.len()
                    ))
                })?;
            if offset.checked_add(size).is_none_or(|end| end > *capacity) {
                return Err(at(format!(
                    "its {size} bytes at offset {offset} of memory id {id} end past the buffer's {capacity} bytes (non_const_buffer_sizes[{id}])"
                )));
            }
            // State: initial state (in the file, or external), loaded once when the method
            // loads; a mutable buffer the emitter names (`emit_mutable_buffer_names`).
            let state = t.extra_tensor_info().is_some_and(|x| {
                x.location() == fb::TensorDataLocation::EXTERNAL
                    || x.fully_qualified_name().is_some_and(|n| !n.is_empty())
            });
            if data_index > 0 || state {
                persistent.push(v as i32);
            }
            planned_at = Some((id, offset));
        } else if data_index > 0 {
            let what = format!(
                "shape [{}] of {}",
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                element.name
            );
            data = Some(self.constant(data_index, size, &what).map_err(|m| {
                self.err(format!(
                    "value {v} (a tensor) of execution plan {}, {}: {m}",
                    self.index,
                    self.reader_label(v)
                ))
            })?);
        }
        if let Some((id, offset)) = planned_at {
            planned.push((
                v,
                PlannedTensor {
                    name: format!("value_{v}"),
                    id: TensorId {
                        subgraph: self.index,
                        index: v as u32,
                    },
                    size,
                    element,
                    shape: shape.clone(),
                    lifetime: Lifetime { first: 0, last: 0 },
                    file_offset: Some(offset),
                    memory_id: Some(id),
                    persistent: false,
                    alias_group: None,
                },
            ));
        }
        Ok(TensorInfo {
            name: format!("value_{v}"),
            element,
            shape,
            quantization: None,
            data,
            variable: false,
            planned: planned_at.map(|_| usize::MAX),
        })
    }

    /// The byte range in the file of constant buffer `index`, the data of a tensor of
    /// `size` bytes (`what`: its shape and type, for messages), as
    /// `Program::get_constant_buffer_data` finds it: in the constant segment when the
    /// program has one, else in `constant_buffer`. Its data must be what the shape says:
    /// a `constant_buffer` entry exactly `size` bytes (ExecuTorch refuses a longer one, and
    /// a kernel would read past a shorter one); in the segment, which stores where each
    /// constant starts but not its length, the bytes up to the next constant (or the
    /// segment's end) at least `size` and less than `size` plus the alignment between
    /// constants (ExecuTorch's serializer pads each to it): the largest power of two, at
    /// most 4096, that divides every offset.
    fn constant(&self, index: u32, size: u64, what: &str) -> Result<std::ops::Range<u64>, String> {
        let i = index as usize;
        if let Some(cs) = self.program.constant_segment()
            && let Some(offsets) = cs.offsets().filter(|o| !o.is_empty())
        {
            let seg = cs.segment_index() as usize;
            let segment = self
                .program
                .segments()
                .filter(|s| seg < s.len())
                .map(|s| s.get(seg))
                .ok_or_else(|| {
                    format!(
                        "the constant segment is segment {seg}, which the program does not have"
                    )
                })?;
            let base = self.header.map_or(0, |h| h.segment_base_offset);
            let off = (i < offsets.len()).then(|| offsets.get(i)).ok_or_else(|| {
                format!(
                    "constant buffer {i} is not among the constant segment's {}",
                    offsets.len()
                )
            })?;
            let start = base
                .checked_add(segment.offset())
                .and_then(|s| s.checked_add(off));
            let range = start.and_then(|s| Some(s..s.checked_add(size)?));
            let range = match range {
                Some(r)
                    if off.checked_add(size).is_some_and(|e| e <= segment.size())
                        && r.end <= self.bytes.len() as u64 =>
                {
                    r
                }
                _ => {
                    return Err(format!(
                        "constant buffer {i} ({size} bytes at offset {off} of the constant segment) is outside the segment ({} bytes) or the file ({} bytes)",
                        segment.size(),
                        self.bytes.len()
                    ));
                }
            };
            let sorted = self.sorted_offsets.get_or_init(|| {
                let mut o: Vec<u64> = offsets.iter().collect();
                o.sort_unstable();
                o.dedup();
                o
            });
            let next = sorted
                .get(sorted.partition_point(|&o| o <= off))
                .copied()
                .unwrap_or(segment.size())
                .max(off);
            let extent = next - off;
            let align = sorted
                .iter()
                .map(|&o| o.trailing_zeros())
                .min()
                .map_or(4096, |z| 1u64 << z.min(12));
            if extent < size {
                return Err(format!(
                    "constant buffer {i} has {extent} bytes in the constant segment (offset {off} up to {next}), fewer than its {what} says: {size}; a kernel reads as many as the shape says"
                ));
            }
            if extent - size >= align {
                return Err(format!(
                    "constant buffer {i} has {extent} bytes in the constant segment (offset {off} up to {next}), more than its {what} says ({size}) and the {align}-byte alignment between constants allows"
                ));
            }
            return Ok(range);
        }
        let storage = self
            .program
            .constant_buffer()
            .filter(|b| i < b.len())
            .and_then(|b| b.get(i).storage())
            .ok_or_else(|| format!("constant buffer {i}, which the program does not have"))?;
        let bytes = storage.bytes();
        let have = bytes.len() as u64;
        if have != size {
            return Err(format!(
                "constant buffer {i} has {have} bytes, {} than its {what} says: {size}{}",
                if have < size { "fewer" } else { "more" },
                if have < size {
                    "; a kernel reads as many as the shape says"
                } else {
                    " (ExecuTorch refuses it)"
                }
            ));
        }
        Ok(flatbuffer::range_in(self.bytes, bytes))
    }
}
