//! What is wrong with a plan file: the file, the line and column, and why.

use std::fmt;

/// What is wrong with a plan file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The file, as given.
    pub file: String,
    /// The 1-based line, when the fault is on one.
    pub line: Option<u64>,
    /// The 1-based column (in characters) on that line, where the reader knows it (JSON).
    /// A CSV reader names the field instead, in the message (`column 4 (`size`)`).
    pub column: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl FileError {
    /// An error at `line` (1-based) of `file`, without a column.
    pub fn at_line(file: &str, line: Option<u64>, message: impl Into<String>) -> FileError {
        FileError {
            file: file.to_string(),
            line,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for FileError {
    /// `FILE:LINE:COLUMN: MESSAGE`, `FILE:LINE: MESSAGE` or `FILE: MESSAGE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            (Some(l), None) => write!(f, "{}:{l}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for FileError {}
