//! Plan files: the CSV that ExecuTorch's memory planning exports
//! (`name,mem_id,offset,size,first,last,dtype,shape`, inclusive lifetimes) and MiniMalloc's
//! benchmark format (`id,lower,upper,size`, half-open lifetimes), read with `csv-core`.
//! Errors name the file and the 1-based line.
//!
//! The two layouts are fixed, so their columns are looked up by name in the header and
//! read field by field (no serde, no `csv` crate: this crate is built inside every
//! firmware build, through the macro).
//!
//! Beside them: [`placed`], a plan with its offsets (`name,offset,size,first,last`, what
//! `memplan-bench --write-plans` writes); `json` (feature `json`), memplan's own JSON
//! plan file; and [`PlanFile`], any of the four told apart by content ([`parse_any`]) and
//! turned into a [`Problem`](crate::Problem) ([`PlanFile::problem`]).
//!
//! Models: [`tflite`] reads `.tflite` files as TensorFlow Lite Micro plans them, [`pte`]
//! ExecuTorch programs as ExecuTorch runs them, both into one [`ModelFile`] (the tensors to
//! plan, and the schedule: operators, every tensor, constants' bytes), and both write a
//! model back with memplan's offsets in the runtime's own format (feature `write`, on by
//! default). [`detect_model`] tells the two apart from plan files by their flatbuffer file
//! identifier (`TFL3`, `ET12`). Their errors are [`FileError`]s without a line, the message
//! naming the tensor, operator, value or byte offset.

#[cfg(feature = "json")]
pub mod json;
pub mod placed;
pub mod pte;
pub mod tflite;

mod any;
mod budget;
mod error;
mod flatbuffer;
mod model;
mod model_plan;
mod output;
mod plan_file;
mod read;
mod rows;

pub use any::{detect, parse_any, parse_bytes, read_any, read_model};
pub use budget::{BUDGET_PER_BYTE, MAX_BUDGET, MIN_BUDGET, read_budget};
pub use error::{Faulty, FileError};
pub use flatbuffer::{MAX_MODEL_BYTES, MAX_RANK};
pub use model::{
    Activation, AliasGroup, ElementType, ModelFile, ModelFormat, Operator, Options, Padding,
    PlannedTensor, Primitive, Quantization, Subgraph, TensorId, TensorInfo, Value, detect_model,
};
#[cfg(feature = "write")]
pub use model_plan::write_model_plan;
pub use output::{WriteError, same_file, write_file, write_with};
pub use plan_file::{FileBuffer, FileRegion, Format, PlanFile, ProblemOptions, Role, UNBOUNDED};
pub use read::{
    InputError, MAX_FILE_BYTES, kind_of, open_input, read_bounded, read_input, read_text,
};
pub use rows::{
    ExecutorchRow, MinimallocRow, parse_executorch, parse_minimalloc, read_executorch,
    read_minimalloc,
};
