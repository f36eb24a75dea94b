//! What is wrong with a plan file: the file, the line and column, and why.

use std::fmt;

/// What is wrong with a plan file: its first fault, and, from the CSV readers, the faulty
/// rows after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    /// The faults after this one, in file order, each with an empty `more`: a CSV reader
    /// lists the faulty rows after the first, up to [`LISTED`](crate::LISTED) in all
    /// (this one included). Empty from every other reader, which stops at its first fault.
    pub more: Vec<FileError>,
    /// How many faulty rows were found past those listed (0 when all are).
    pub unlisted: u64,
}

impl FileError {
    /// An error at `line` (1-based) of `file`, without a column and with no more faults.
    pub fn at_line(file: &str, line: Option<u64>, message: impl Into<String>) -> FileError {
        FileError {
            file: file.to_string(),
            line,
            message: message.into(),
            ..FileError::default()
        }
    }

    /// An error at `line` and `column` (both 1-based) of `file`, with no more faults.
    pub fn at(file: &str, line: u64, column: u64, message: impl Into<String>) -> FileError {
        FileError {
            column: Some(column),
            ..FileError::at_line(file, Some(line), message)
        }
    }

    /// One line per fault, in file order: `FILE:LINE: MESSAGE` for this one and each of
    /// [`more`](FileError::more), then, when some were not listed, `FILE: and N more
    /// faulty rows` (`row` for 1).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.first_line()];
        out.extend(self.more.iter().map(FileError::first_line));
        match self.unlisted {
            0 => {}
            1 => out.push(format!("{}: and 1 more faulty row", self.file)),
            n => out.push(format!("{}: and {n} more faulty rows", self.file)),
        }
        out
    }

    /// This fault alone: `FILE:LINE:COLUMN: MESSAGE`, `FILE:LINE: MESSAGE` or
    /// `FILE: MESSAGE`.
    fn first_line(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}: {}", self.file, self.message),
            (Some(l), None) => format!("{}:{l}: {}", self.file, self.message),
            _ => format!("{}: {}", self.file, self.message),
        }
    }
}

impl fmt::Display for FileError {
    /// [`FileError::lines`], one after the other, each but the last ended by a newline:
    /// `FILE:LINE:COLUMN: MESSAGE`, `FILE:LINE: MESSAGE` or `FILE: MESSAGE` for a single
    /// fault.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("\n"))
    }
}

impl std::error::Error for FileError {}
