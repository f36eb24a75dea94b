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

#[cfg(feature = "json")]
pub mod json;
pub mod placed;

mod any;
mod error;
mod plan_file;
mod read;
mod rows;

pub use any::{detect, parse_any, read_any};
pub use error::FileError;
pub use plan_file::{FileBuffer, FileRegion, Format, PlanFile, ProblemOptions, UNBOUNDED};
pub use read::{MAX_FILE_BYTES, read_bounded, read_text};
pub use rows::{
    ExecutorchRow, MinimallocRow, parse_executorch, parse_minimalloc, read_executorch,
    read_minimalloc,
};
