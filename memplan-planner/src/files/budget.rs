//! What reading a model may cost: memory and work in proportion to the file's size, with a
//! fixed floor and ceiling.
//!
//! A flatbuffer can reference one table or vector from many places (an operator list
//! naming one operator thousands of times, instructions sharing one argument list), and a
//! TensorFlow Lite model's control-flow operators make the reader walk a subgraph again at
//! every call, so what a reader builds is not bounded by the file's size alone: a file of
//! a few KB could otherwise describe millions of operator records. Every record a reader
//! produces (an operator or instruction visited, a tensor's name, shape and quantization,
//! an argument or tensor list, a subgraph entered) is charged to a [`Budget`] where it is
//! produced (before its contents are copied, or, for an instruction, as soon as it is
//! read, after a first pass that has charged every argument): its bytes (the record and
//! what it holds) and, for the walk, a few bytes for every tensor index it visits. The budget is [`BUDGET_PER_BYTE`]
//! bytes per byte of the file, at least [`MIN_BUDGET`] and at most [`MAX_BUDGET`]; past
//! it, reading stops with an error that names the tensor, operator or instruction being
//! read and the budget. Real models use a small part of theirs: the models in
//! `examples/data` take at most 3.6 bytes of records per byte of the file (`add.pte`: 2,569
//! bytes for its 728), person_detect.tflite 110 KB for its 300 KB, kws_dscnn.pte 130 KB
//! for its 106 KB, each far below the 16 MiB floor.

use std::fmt;

/// Bytes of records a reader may build per byte of the model file: 64.
pub const BUDGET_PER_BYTE: u64 = 64;

/// The least budget, whatever the file's size: 16 MiB.
pub const MIN_BUDGET: u64 = 16 << 20;

/// The most budget, whatever the file's size: 1 GiB.
pub const MAX_BUDGET: u64 = 1 << 30;

/// The budget of a file of `file_bytes` bytes, in bytes: [`BUDGET_PER_BYTE`] per byte,
/// clamped to [`MIN_BUDGET`]..=[`MAX_BUDGET`].
pub fn read_budget(file_bytes: usize) -> u64 {
    (file_bytes as u64)
        .saturating_mul(BUDGET_PER_BYTE)
        .clamp(MIN_BUDGET, MAX_BUDGET)
}

/// What one read may still spend.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    spent: u64,
    file_bytes: usize,
}

/// A read went past its budget: why, in [`fmt::Display`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OverBudget {
    limit: u64,
    file_bytes: usize,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reading the model would take more than its budget of {} bytes of memory and work ({BUDGET_PER_BYTE} per byte of the file's {} bytes, at least {} MiB, at most {} MiB)",
            self.limit,
            self.file_bytes,
            MIN_BUDGET >> 20,
            MAX_BUDGET >> 20
        )
    }
}

impl Budget {
    /// The budget of a file of `file_bytes` bytes ([`read_budget`]).
    pub(crate) fn for_file(file_bytes: usize) -> Budget {
        Budget {
            limit: read_budget(file_bytes),
            spent: 0,
            file_bytes,
        }
    }

    /// Charges `bytes`.
    ///
    /// # Errors
    ///
    /// [`OverBudget`] once more than the budget has been charged in all (and on every
    /// charge after it).
    pub(crate) fn spend(&mut self, bytes: u64) -> Result<(), OverBudget> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > self.limit {
            return Err(OverBudget {
                limit: self.limit,
                file_bytes: self.file_bytes,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_grows_with_the_file_between_its_floor_and_ceiling() {
        assert_eq!(read_budget(0), MIN_BUDGET);
        assert_eq!(read_budget(4684), MIN_BUDGET);
        assert_eq!(read_budget(1 << 20), 64 << 20);
        assert_eq!(read_budget(usize::MAX), MAX_BUDGET);
        let mut b = Budget::for_file(10);
        assert!(b.spend(MIN_BUDGET).is_ok());
        let e = b.spend(1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "reading the model would take more than its budget of 16777216 bytes of memory and work (64 per byte of the file's 10 bytes, at least 16 MiB, at most 1024 MiB)"
        );
        assert!(b.spend(0).is_err());
        let mut b = Budget::for_file(10);
        assert!(b.spend(u64::MAX).is_err());
    }
}
