//! `.tflite` files, read as TensorFlow Lite Micro plans them, and written back with an
//! offline plan.
//!
//! What is planned, how big and how long, follows TensorFlow Lite Micro
//! (`tensorflow/lite/micro/micro_allocation_info.cc`, `micro_allocator.cc`, at tflite-micro
//! `90b983c2`):
//!
//! - **Which tensors**: those without constant data (a buffer with at least one byte), not
//!   variable, of non-zero size (`InitializeAllocationInfo`'s `needs_allocating`), in every
//!   subgraph. Variable tensors are yielded too, [`persistent`](PlannedTensor::persistent)
//!   (TensorFlow Lite Micro allocates them outside the plan, `AllocateVariables`), live at
//!   every step.
//! - **Sizes**: elements (the product of `shape`; 1 for a scalar) times the type's size
//!   (`TfLiteEvalTensorByteLength`, `TfLiteTypeSizeOf` in `memory_helpers.cc`), unpadded.
//!   TensorFlow Lite Micro rounds each up to 16 bytes before it plans
//!   (`CreatePlan`: `AlignSizeUp(bytes, MicroArenaBufferAlignment())`, 16 in
//!   `micro_arena_constants.h`; its greedy planner adds no alignment of its own):
//!   [`ModelFile::align`] is 16.
//! - **Steps** are TensorFlow Lite Micro's allocation scopes (`MarkAllocationLifetimes`):
//!   subgraph 0's inputs are created at step 0, its operator `k` runs at step `k + 1`,
//!   each subgraph a control-flow operator (`IF`, `WHILE`, `CALL_ONCE`) runs is entered in
//!   a step of its own (its inputs created there) and walked before the operator's inputs
//!   and outputs are last used, at the step reached after it; a subgraph's outputs live to
//!   its end. A tensor that no operator writes and no subgraph takes as input has no first
//!   step in TensorFlow Lite Micro (-1, before the first): memplan has no step before 0, so
//!   it starts at 0; one that nothing reads either (a tensor of a subgraph never entered,
//!   say) is live at step 0 only. A subgraph that runs itself, directly or through others,
//!   is refused (TensorFlow Lite Micro's walk would not end).
//! - **The file's own plan**: the `OfflineMemoryAllocation` metadata (Vela writes it; the
//!   last entry of that name, the only one TensorFlow Lite Micro reads), one offset per
//!   tensor of every subgraph or -1; `write_offline_plan` (feature `write`) writes it.
//! - **Not in the file**: scratch buffers. Kernels request them in their `Prepare`
//!   (`RequestScratchBufferInArena`), at run time; their sizes depend on the kernel
//!   implementation (reference, CMSIS-NN, ...), so the arena TensorFlow Lite Micro needs can
//!   exceed this plan by them. TensorFlow Lite Micro's persistent (tail) allocations are not
//!   planned either.
//! - **Constants** are what their shapes say: a tensor's data (its buffer's, when not empty:
//!   `GetFlatbufferTensorBuffer` takes an empty buffer for no data) must be its elements
//!   times its type's size (`INT4`: packed two to a byte, as the converter stores it and
//!   TensorFlow Lite Micro's kernels unpack it), neither shorter nor longer. TensorFlow
//!   Lite Micro does not check (`InitializeTfLiteTensorFromFlatbuffer` points the tensor at
//!   the buffer and sizes it from the shape, `TfLiteEvalTensorByteLength`), so a kernel
//!   reads past short data; such a tensor is a fault naming it and the first operator that
//!   reads it. Sparse tensors (their data is the non-zero values) and `RESOURCE` tensors
//!   are not checked, as TensorFlow Lite's interpreter does not check them.
//!
//! Caps: [`MAX_MODEL_BYTES`](super::MAX_MODEL_BYTES), [`MAX_RANK`] dims,
//! the flatbuffers verifier's (tables nested at most 64 deep, at most 2^22 tables, at most
//! 2^31 bytes visited: a file may reference one vector many times over), and the read's
//! budget ([`read_budget`](super::read_budget): 64 bytes of records per byte of the file, at
//! least 16 MiB, at most 1 GiB), charged for every tensor, operator and subgraph input list
//! before it is copied, for every operator visited and subgraph entered by the scope walk,
//! and for every scratch request (a subgraph run twice is walked twice, so nested calls would otherwise multiply
//! the work; one table listed many times would multiply the copies). Tensor data stored outside the flatbuffer (`Buffer.offset`, models over 2 GB) is
//! refused, as TensorFlow Lite Micro does not read it. Control-flow operators are recognised
//! by the operator code's `builtin_code` field, the one TensorFlow Lite Micro's planner
//! reads (files older than schema 3a's `builtin_code` have only `deprecated_builtin_code`;
//! operator names use the larger of the two, as TensorFlow Lite's `GetBuiltinCode` does).

mod head;
mod offline;
mod options;
mod scopes;
mod scratch;
mod shared;
mod types;
#[cfg(feature = "write")]
mod write;

use std::cell::RefCell;

use memplan_flatbuffers::tflite::{self as fb, BuiltinOperator, Model};

pub use head::tflm_head;
pub use offline::{METADATA_NAME, ONLINE};
pub use scratch::{Scratch, ScratchRequest};
#[cfg(feature = "write")]
pub use write::write_offline_plan;

use super::budget::Budget;
use super::error::{Faults, Faulty, FileError};
use super::flatbuffer::{self, MAX_RANK, error};
use super::model::{
    ElementType, ModelFile, ModelFormat, Operator, PlannedTensor, Quantization, Subgraph, TensorId,
    TensorInfo, Value,
};
use crate::problem::Lifetime;

/// The schema version memplan reads: 3 (`Model.version`, the only version TensorFlow Lite
/// has written since 2018).
pub const SCHEMA_VERSION: u32 = 3;

/// The alignment of every planned buffer, in bytes: TensorFlow Lite Micro's
/// `MicroArenaBufferAlignment()`.
pub const ALIGN: u64 = 16;

/// Reads a `.tflite` file's bytes. `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] naming the file and the tensor, operator or buffer at fault: a file
/// identifier other than `TFL3` (saying which was found), a flatbuffer that does not verify
/// (truncated or corrupt), a schema version other than [`SCHEMA_VERSION`], a tensor with a
/// dynamic shape (a -1 in `shape`, or a `shape_signature` of another rank than `shape`; a
/// -1 in a `shape_signature` of the same rank is the dimension `shape` fixes, as TensorFlow
/// Lite Micro reads it), more than 16 dims, an element type
/// TensorFlow Lite Micro has no size for, a byte size over 64 bits, an index (tensor,
/// buffer, subgraph, operator code) out of range, a constant whose data is not what its
/// shape says (naming the first operator that reads it), a subgraph that runs itself, an
/// offline plan with the wrong number of entries or a negative offset other than -1, the
/// read's budget spent (naming the tensor or operator, see [`read_budget`](super::read_budget)).
/// The faults of tensors and operators (a shape, an element type, a byte size, an index,
/// a constant's length) are all
/// reported, each tensor and operator once, subgraph by subgraph (its tensors, then its
/// inputs and outputs, then its operators), the first [`LISTED`](crate::LISTED) in the
/// error (see [`FileError::more`]); an operator is checked for its own indices only, so a
/// faulty tensor brings no fault of the operators that use it. Every other fault is
/// reported alone. Never panics.
pub fn read(bytes: &[u8], file: &str) -> Result<ModelFile, FileError> {
    flatbuffer::check_header(bytes, file, ModelFormat::Tflite)?;
    let options = flatbuffer::verifier_options();
    let model = memplan_flatbuffers::verify_tflite(&options, bytes)
        .map_err(|e| flatbuffer::invalid(file, ModelFormat::Tflite, &e, &options))?;
    Reader {
        bytes,
        file,
        model,
        budget: RefCell::new(Budget::for_file(bytes.len())),
    }
    .read()
}

/// Operator `k` of subgraph `g`, when the model has it.
fn operator<'a>(subgraphs: &[fb::SubGraph<'a>], g: u32, k: u32) -> Option<fb::Operator<'a>> {
    let ops = subgraphs.get(g as usize)?.operators()?;
    ((k as usize) < ops.len()).then(|| ops.get(k as usize))
}

struct Reader<'a> {
    bytes: &'a [u8],
    file: &'a str,
    model: Model<'a>,
    /// What the read may still build ([`super::budget`]).
    budget: RefCell<Budget>,
}

/// A subgraph's tensors as read, before lifetimes.
struct Tensors {
    infos: Vec<TensorInfo>,
    sizes: Vec<u64>,
}

impl<'a> Reader<'a> {
    fn err(&self, message: impl Into<String>) -> FileError {
        error(self.file, message)
    }

    /// Charges `bytes` to the budget; past it, an error that starts with `what` (the
    /// tensor or operator being read).
    fn charge(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<(), FileError> {
        self.budget
            .borrow_mut()
            .spend(bytes as u64)
            .map_err(|over| self.err(format!("{}: {over}", what())))
    }

    fn read(&self) -> Result<ModelFile, FileError> {
        let version = self.model.version();
        if version != SCHEMA_VERSION {
            return Err(self.err(format!(
                "schema version {version}: memplan reads TFLite schema version {SCHEMA_VERSION}"
            )));
        }
        let subgraphs: Vec<fb::SubGraph<'a>> = self
            .model
            .subgraphs()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        // Every faulty tensor and operator, subgraph by subgraph (its tensors, then its
        // inputs and outputs, then its operators), each once, for its first fault.
        let mut faults = Faults::new(Faulty::Parts);
        let mut tensors = Vec::with_capacity(subgraphs.len());
        let mut graphs = Vec::with_capacity(subgraphs.len());
        for (g, sg) in subgraphs.iter().enumerate() {
            tensors.push(self.tensors(g, sg, &mut faults)?);
            graphs.push(self.graph(g, sg, &mut faults)?);
        }
        faults.finish()?;
        let scopes = scopes::walk(&graphs, &mut self.budget.borrow_mut())
            .map_err(|e| self.scope_error(&subgraphs, &e))?;
        let total: usize = tensors.iter().map(|t| t.infos.len()).sum();
        let offline = offline::read(&self.model, total).map_err(|e| self.err(e))?;

        let mut planned = Vec::new();
        let mut entry = 0;
        for (g, t) in tensors.iter_mut().enumerate() {
            for (i, info) in t.infos.iter_mut().enumerate() {
                let offset = offline.as_ref().and_then(|o| o[entry]);
                entry += 1;
                let size = t.sizes[i];
                let constant = info.data.is_some();
                if size == 0 || (constant && !info.variable) {
                    continue;
                }
                self.charge(
                    std::mem::size_of::<PlannedTensor>() + info.name.len() + 8 * info.shape.len(),
                    || format!("tensor {i} (`{}`) of subgraph {g}", info.name),
                )?;
                let lifetime = if info.variable {
                    Lifetime {
                        first: 0,
                        last: scopes.last_scope,
                    }
                } else {
                    let first = scopes.first[g][i].unwrap_or(0);
                    let last = scopes.last[g][i].unwrap_or(first).max(first);
                    Lifetime { first, last }
                };
                info.planned = Some(planned.len());
                planned.push(PlannedTensor {
                    name: info.name.clone(),
                    id: TensorId {
                        subgraph: g as u32,
                        index: i as u32,
                    },
                    size,
                    element: info.element,
                    shape: info.shape.clone(),
                    lifetime,
                    file_offset: offset.map(u64::from),
                    memory_id: None,
                    persistent: info.variable,
                    alias_group: None,
                });
            }
        }

        // Each operator visited is a record of its own (a subgraph run twice is visited
        // twice), charged before it is built. `custom[k]`: operator `k` is a custom one,
        // whose operands the offline plan may share on purpose.
        let mut operators = Vec::with_capacity(scopes.visits.len());
        let mut custom = Vec::with_capacity(scopes.visits.len());
        for &(step, g, k) in &scopes.visits {
            // The walk visits only operators the subgraph has.
            let Some(op) = operator(&subgraphs, g, k) else {
                continue;
            };
            let (code, name) = self.code(g, k, &op)?;
            let inputs = op.inputs().map_or(0, |v| v.len());
            let outputs = op.outputs().map_or(0, |v| v.len());
            let custom_bytes = op.custom_options().map_or(0, |v| v.len());
            self.charge(
                std::mem::size_of::<Operator>()
                    + name.len()
                    + custom_bytes
                    + 4 * (inputs + outputs),
                || format!("operator {k} of subgraph {g} (`{name}`), visited at step {step}"),
            )?;
            custom.push(code == BuiltinOperator::CUSTOM);
            operators.push(Operator {
                step,
                subgraph: g,
                index: k,
                name,
                options: options::options(&op, code),
                inputs: op.inputs().map(|v| v.iter().collect()).unwrap_or_default(),
                outputs: op.outputs().map(|v| v.iter().collect()).unwrap_or_default(),
            });
        }

        let scratch = self.scratch(&subgraphs, &tensors, &scopes.visits)?;
        let infos = &tensors;
        let alias_groups = shared::groups(&mut planned, &operators, &custom, |g, t| {
            let t = usize::try_from(t).ok()?;
            infos.get(g as usize)?.infos.get(t)?.planned
        });

        let description = match self.model.description() {
            Some(d) if !d.is_empty() => format!("TFLite schema {version}: {d}"),
            _ => format!("TFLite schema {version}"),
        };
        Ok(ModelFile {
            file: self.file.to_string(),
            format: ModelFormat::Tflite,
            description,
            align: ALIGN,
            tensors: planned,
            alias_groups,
            buffer_sizes: Vec::new(),
            subgraphs: subgraphs
                .iter()
                .zip(tensors)
                .zip(graphs)
                .map(|((sg, t), graph)| Subgraph {
                    name: sg.name().unwrap_or("").to_string(),
                    values: t.infos.into_iter().map(Value::Tensor).collect(),
                    inputs: graph.inputs,
                    outputs: graph.outputs,
                })
                .collect(),
            operators,
            last_step: scopes.last_scope,
            scratch,
            branches: Default::default(),
        })
    }

    /// The walk's error `e` in the file's terms: an operator out of budget with its name.
    fn scope_error(&self, subgraphs: &[fb::SubGraph<'_>], e: &scopes::ScopeError) -> FileError {
        if let scopes::ScopeError::OverBudget {
            subgraph,
            op: Some(k),
            ..
        } = *e
        {
            let name =
                operator(subgraphs, subgraph, k).and_then(|op| self.code(subgraph, k, &op).ok());
            if let Some((_, name)) = name {
                let text = e.to_string();
                let prefix = format!("operator {k} of subgraph {subgraph}");
                let rest = text.strip_prefix(&prefix).unwrap_or(&text);
                return self.err(format!("{prefix} (`{name}`){rest}"));
            }
        }
        self.err(e.to_string())
    }

    /// The scratch buffers the kernels of the operators the walk `visits` request
    /// ([`scratch`]), in TensorFlow Lite Micro's order: subgraph by subgraph, operator by
    /// operator, each live over the steps of every visit of its operator.
    fn scratch(
        &self,
        subgraphs: &[fb::SubGraph<'a>],
        tensors: &[Tensors],
        visits: &[(crate::problem::Step, u32, u32)],
    ) -> Result<Scratch, FileError> {
        let mut steps: std::collections::BTreeMap<(u32, u32), Lifetime> = Default::default();
        for &(step, g, k) in visits {
            steps
                .entry((g, k))
                .and_modify(|l| {
                    *l = l.hull(&Lifetime {
                        first: step,
                        last: step,
                    })
                })
                .or_insert(Lifetime {
                    first: step,
                    last: step,
                });
        }
        let mut out = Scratch::default();
        let mut unmodelled = std::collections::BTreeSet::new();
        for (&(g, k), &lifetime) in &steps {
            let Some(op) = operator(subgraphs, g, k) else {
                continue;
            };
            let (code, name) = self.code(g, k, &op)?;
            let rule = scratch::Op {
                code,
                name: &name,
                op: &op,
                tensors: &tensors[g as usize],
            };
            match scratch::requests(&rule) {
                // Its requests, each with the operator's name, charged as they are made.
                Ok(bytes) => {
                    self.charge(
                        bytes.len() * (std::mem::size_of::<ScratchRequest>() + name.len()),
                        || format!("operator {k} of subgraph {g} (`{name}`): its scratch buffers"),
                    )?;
                    out.requests
                        .extend(bytes.into_iter().map(|bytes| ScratchRequest {
                            subgraph: g,
                            operator: k,
                            kind: name.clone(),
                            bytes,
                            lifetime,
                        }));
                }
                Err(()) => {
                    if unmodelled.insert(name.clone()) {
                        out.unmodelled
                            .push(format!("operator {k} of subgraph {g} ({name})"));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The operator code of operator `k` of subgraph `g`: TensorFlow Lite Micro's
    /// `builtin_code`, and the operator's name.
    fn code(
        &self,
        g: u32,
        k: u32,
        op: &fb::Operator<'_>,
    ) -> Result<(BuiltinOperator, String), FileError> {
        let (builtin, code) = self.opcode(g, k, op)?;
        Ok((builtin, name_of(builtin, &code, usize::MAX)))
    }

    /// The operator code of operator `k` of subgraph `g` (without its name, which copies a
    /// custom operator's code): TensorFlow Lite Micro's `builtin_code`, and the table.
    fn opcode(
        &self,
        g: u32,
        k: u32,
        op: &fb::Operator<'_>,
    ) -> Result<(BuiltinOperator, fb::OperatorCode<'a>), FileError> {
        let i = op.opcode_index() as usize;
        let codes = self.model.operator_codes();
        let code = codes
            .and_then(|c| (i < c.len()).then(|| c.get(i)))
            .ok_or_else(|| {
                self.err(format!(
                    "operator {k} of subgraph {g}: operator code {i} is not among the model's {}",
                    codes.map_or(0, |c| c.len())
                ))
            })?;
        Ok((code.builtin_code(), code))
    }

    /// Subgraph `g` as the scope walk needs it, its faults pushed on `faults`: a tensor
    /// index of its inputs or outputs out of range (once for the subgraph), and, once for
    /// each operator, an operator code, tensor index or subgraph index out of range. Those
    /// of the scope walk, which checks only the subgraphs it enters, in any subgraph.
    fn graph(
        &self,
        g: usize,
        sg: &fb::SubGraph<'_>,
        faults: &mut Faults,
    ) -> Result<scopes::Graph, FileError> {
        let tensors = sg.tensors().map_or(0, |v| v.len());
        let list = |v: Option<memplan_flatbuffers::flatbuffers::Vector<'_, i32>>| -> Vec<i32> {
            v.map(|v| v.iter().collect()).unwrap_or_default()
        };
        let len =
            |v: Option<memplan_flatbuffers::flatbuffers::Vector<'_, i32>>| v.map_or(0, |v| v.len());
        let out_of_range = |t: i32| usize::try_from(t).map_or(true, |t| t >= tensors);
        let mut push = |e: FileError| faults.add(e);
        self.charge(4 * (len(sg.inputs()) + len(sg.outputs())), || {
            format!("subgraph {g}: its inputs and outputs")
        })?;
        let inputs = list(sg.inputs());
        let outputs = list(sg.outputs());
        if let Some((which, t)) = first_out_of_range(&inputs, &outputs, &out_of_range) {
            push(self.err(scopes::ScopeError::Tensor(g as u32, None, which, t).to_string()));
        }
        let mut ops = Vec::new();
        for (k, op) in sg.operators().into_iter().flatten().enumerate() {
            // Its record, charged before it is built (one operator table may be listed
            // many times over).
            self.charge(
                std::mem::size_of::<scopes::Op>() + 4 * (len(op.inputs()) + len(op.outputs()) + 2),
                || format!("operator {k} of subgraph {g}"),
            )?;
            let op_inputs = list(op.inputs());
            let op_outputs = list(op.outputs());
            let code = match self.opcode(g as u32, k as u32, &op) {
                Ok((code, _)) => code,
                Err(e) => {
                    push(e);
                    continue;
                }
            };
            let calls = options::subgraph_calls(&op, code);
            // An operator's input -1 is an optional input left out.
            let input_out_of_range = |t: i32| t >= 0 && out_of_range(t);
            let bad = first_out_of_range(&op_inputs, &[], &input_out_of_range)
                .or_else(|| first_out_of_range(&[], &op_outputs, &out_of_range));
            if let Some((which, t)) = bad {
                push(self.err(
                    scopes::ScopeError::Tensor(g as u32, Some(k as u32), which, t).to_string(),
                ));
                continue;
            }
            let graphs = self.model.subgraphs().map_or(0, |v| v.len());
            if let Some(&c) = calls
                .iter()
                .find(|&&c| usize::try_from(c).map_or(true, |c| c >= graphs))
            {
                push(self.err(scopes::ScopeError::Subgraph(g as u32, k as u32, c).to_string()));
                continue;
            }
            ops.push(scopes::Op {
                inputs: op_inputs,
                outputs: op_outputs,
                calls,
            });
        }
        Ok(scopes::Graph {
            tensors,
            inputs,
            outputs,
            ops,
        })
    }

    /// Subgraph `g`'s tensors: types, shapes, sizes, quantization and constant data; the
    /// fault of each faulty tensor pushed on `faults` (its first), and the tensor left out.
    ///
    /// # Errors
    ///
    /// The budget spent (a fault that stops the reader).
    fn tensors(
        &self,
        g: usize,
        sg: &fb::SubGraph<'_>,
        faults: &mut Faults,
    ) -> Result<Tensors, FileError> {
        let count = sg.tensors().map_or(0, |v| v.len());
        let readers = self.readers(g, sg, count)?;
        let buffers = self.model.buffers();
        let mut out = Tensors {
            infos: Vec::with_capacity(count),
            sizes: Vec::with_capacity(count),
        };
        for (i, t) in sg.tensors().into_iter().flatten().enumerate() {
            // Its record (and its two entries of the scope walk), charged before it is
            // built: one tensor table may be listed many times over.
            let name = t.name().unwrap_or("");
            let quantization = t.quantization().map_or(0, |q| {
                4 * q.scale().map_or(0, |v| v.len()) + 8 * q.zero_point().map_or(0, |v| v.len())
            });
            self.charge(
                std::mem::size_of::<TensorInfo>()
                    + 24
                    + name.len()
                    + 8 * t.shape().map_or(0, |v| v.len())
                    + quantization,
                || format!("tensor {i} (`{name}`) of subgraph {g}"),
            )?;
            match self.tensor(g, i, &t, buffers, readers[i]) {
                Ok((info, size)) => {
                    out.infos.push(info);
                    out.sizes.push(size);
                }
                Err(e) => faults.add(e),
            }
        }
        Ok(out)
    }

    /// For each of the `count` tensors of subgraph `g`, the first of its operators that
    /// reads it (as an input), if any: the operator a constant's faults name.
    fn readers(
        &self,
        g: usize,
        sg: &fb::SubGraph<'_>,
        count: usize,
    ) -> Result<Vec<Option<u32>>, FileError> {
        self.charge(8 * count, || format!("subgraph {g}: its {count} tensors"))?;
        let mut readers = vec![None; count];
        for (k, op) in sg.operators().into_iter().flatten().enumerate() {
            let inputs = op.inputs();
            self.charge(4 * inputs.map_or(0, |v| v.len()), || {
                format!("operator {k} of subgraph {g}")
            })?;
            for t in inputs.into_iter().flatten() {
                if let Some(r) = usize::try_from(t).ok().and_then(|t| readers.get_mut(t)) {
                    r.get_or_insert(k as u32);
                }
            }
        }
        Ok(readers)
    }

    /// Tensor `i` of subgraph `g`, and its byte size; `reader` is the first operator that
    /// reads it.
    fn tensor(
        &self,
        g: usize,
        i: usize,
        t: &fb::Tensor<'_>,
        buffers: Option<
            memplan_flatbuffers::flatbuffers::Vector<
                '_,
                memplan_flatbuffers::flatbuffers::ForwardsUOffset<fb::Buffer<'_>>,
            >,
        >,
        reader: Option<u32>,
    ) -> Result<(TensorInfo, u64), FileError> {
        let name = t.name().unwrap_or("");
        let at = |m: String| self.err(format!("tensor {i} (`{name}`) of subgraph {g}: {m}"));
        let element = types::element_type(t.type_()).ok_or_else(|| {
            at(format!(
                "element type {} has no size in TensorFlow Lite Micro",
                types::type_name(t.type_())
            ))
        })?;
        let rank = t.shape().map_or(0, |s| s.len());
        if rank > MAX_RANK {
            return Err(at(format!("{rank} dims, more than {MAX_RANK}")));
        }
        let dims: Vec<i64> = t
            .shape()
            .map(|s| s.iter().map(i64::from).collect())
            .unwrap_or_default();
        // A -1 in `shape_signature` is a dimension left dynamic at conversion and fixed by
        // `shape` (the batch of most converted models): TensorFlow Lite Micro plans
        // `shape`, and so does memplan. A signature of another rank means the file does
        // not fix the rank: refused, as a -1 in `shape` is.
        if let Some(sig) = t.shape_signature()
            && sig.len() != dims.len()
        {
            let shown: Vec<String> = sig
                .iter()
                .take(MAX_RANK + 1)
                .map(|d| d.to_string())
                .collect();
            let more = if sig.len() > shown.len() { ", ..." } else { "" };
            return Err(at(format!(
                "a dynamic shape: shape_signature [{}{more}] has {} dims, shape has {}",
                shown.join(", "),
                sig.len(),
                dims.len()
            )));
        }
        let size = flatbuffer::byte_size(&dims, element.size).map_err(at)?;
        let b = t.buffer() as usize;
        let buffer = buffers
            .and_then(|bs| (b < bs.len()).then(|| bs.get(b)))
            .ok_or_else(|| {
                at(format!(
                    "buffer {b} is not among the model's {}",
                    buffers.map_or(0, |bs| bs.len())
                ))
            })?;
        if buffer.offset() > 1 {
            return Err(at(format!(
                "its data (buffer {b}) is outside the flatbuffer (offset {}, {} bytes), which TensorFlow Lite Micro does not read",
                buffer.offset(),
                buffer.size()
            )));
        }
        let data = buffer
            .data()
            .map(|d| d.bytes())
            .filter(|d| !d.is_empty())
            .map(|d| flatbuffer::range_in(self.bytes, d));
        if let Some(r) = &data {
            self.check_data(t, element, &dims, size, r.end - r.start)
                .map_err(|m| {
                    let by = match reader {
                        Some(k) => {
                            let op = self.model.subgraphs().and_then(|sgs| {
                                let sg = sgs.get(g);
                                let ops = sg.operators()?;
                                ((k as usize) < ops.len()).then(|| ops.get(k as usize))
                            });
                            // At most 64 characters of its name: a long custom code
                            // named by many faulty tensors is not copied for each.
                            let label = op
                                .and_then(|op| self.opcode(g as u32, k, &op).ok())
                                .map(|(builtin, code)| name_of(builtin, &code, 64));
                            match label {
                                Some(op_name) => format!("read by operator {k} (`{op_name}`)"),
                                None => format!("read by operator {k}"),
                            }
                        }
                        None => "read by no operator".to_string(),
                    };
                    self.err(format!(
                        "tensor {i} (`{name}`) of subgraph {g}, {by}: its data (buffer {b}) {m}"
                    ))
                })?;
        }
        let quantization = t.quantization().and_then(|q| {
            let scale: Vec<f32> = q.scale()?.iter().collect();
            (!scale.is_empty()).then(|| Quantization {
                scale,
                zero_point: q
                    .zero_point()
                    .map(|z| z.iter().collect())
                    .unwrap_or_default(),
                quantized_dimension: q.quantized_dimension(),
            })
        });
        let info = TensorInfo {
            name: name.to_string(),
            element,
            shape: dims.iter().map(|&d| d as u64).collect(),
            quantization,
            data,
            variable: t.is_variable(),
            planned: None,
        };
        Ok((info, size))
    }

    /// Whether a constant's `have` bytes of data are what its shape and type say: the
    /// elements times the type's size (`size`), or, for `INT4`, the elements packed two to
    /// a byte (as the converter stores them and TensorFlow Lite Micro's kernels unpack
    /// them). A sparse tensor's data holds its non-zero values only, and a `RESOURCE`'s
    /// none of the shape's (TensorFlow Lite skips both too): not checked. Else, the fault
    /// after `its data (buffer B) `.
    fn check_data(
        &self,
        t: &fb::Tensor<'_>,
        element: ElementType,
        dims: &[i64],
        size: u64,
        have: u64,
    ) -> Result<(), String> {
        if t.sparsity().is_some() || element.name == "RESOURCE" {
            return Ok(());
        }
        let (want, per) = if element.name == "INT4" {
            (size.div_ceil(2), "two to a byte".to_string())
        } else {
            (size, format!("{} bytes each", element.size))
        };
        if have == want {
            return Ok(());
        }
        let shape: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        let elements = match size / element.size.max(1) {
            1 => "1 element".to_string(),
            n => format!("{n} elements"),
        };
        Err(format!(
            "has {have} bytes, {} than its shape [{}] of {} says: {want} ({elements}, {per}); a kernel reads as many as the shape says",
            if have < want { "fewer" } else { "more" },
            shape.join(", "),
            element.name
        ))
    }
}

/// An operator's name from its code: the builtin operator's (the larger of `builtin_code`
/// and `deprecated_builtin_code`, as TensorFlow Lite's `GetBuiltinCode` reads them), or a
/// custom operator's code, at most `max` characters of it.
fn name_of(builtin: BuiltinOperator, code: &fb::OperatorCode<'_>, max: usize) -> String {
    let named = BuiltinOperator(builtin.0.max(i32::from(code.deprecated_builtin_code())));
    if named == BuiltinOperator::CUSTOM {
        code.custom_code()
            .unwrap_or("CUSTOM")
            .chars()
            .take(max)
            .collect()
    } else {
        named
            .variant_name()
            .map_or_else(|| format!("BUILTIN_{}", named.0), str::to_string)
    }
}

/// The first of `inputs` (then of `outputs`) that `out_of_range` refuses, with which list
/// it is in.
fn first_out_of_range(
    inputs: &[i32],
    outputs: &[i32],
    out_of_range: &dyn Fn(i32) -> bool,
) -> Option<(&'static str, i32)> {
    let first = |list: &[i32]| list.iter().copied().find(|&t| out_of_range(t));
    first(inputs)
        .map(|t| ("input", t))
        .or_else(|| first(outputs).map(|t| ("output", t)))
}
