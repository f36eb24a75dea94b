//! What is wrong with a plan file: the file, the line and column, and why.

use std::fmt;

/// What is wrong with a plan file or a model: its first fault, and the faults after it
/// (the CSV readers' faulty rows, the JSON reader's faulty entries, a model reader's faulty
/// tensors and operators).
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
    /// The faults after this one, in file order, each with an empty `more`, up to
    /// [`LISTED`](crate::LISTED) in all (this one included): a CSV reader's faulty rows, the
    /// JSON reader's faulty entries, a model reader's faulty tensors and operators. Empty
    /// after a fault that stops a reader (malformed JSON, a file that is not a model, ...).
    pub more: Vec<FileError>,
    /// How many faults were found past those listed (0 when all are).
    pub unlisted: u64,
    /// What each fault is about, as the last of [`lines`](FileError::lines) counts those
    /// not listed.
    pub faulty: Faulty,
}

/// What the faults of a [`FileError`] are about: what `and N more faulty ...` counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Faulty {
    /// A CSV file's rows: `and N more faulty rows`.
    #[default]
    Rows,
    /// A JSON plan file's region and buffer entries: `and N more faulty entries`.
    Entries,
    /// A model's tensors and operators (values and instructions of a `.pte`'s plan):
    /// `and N more faulty tensors or operators`.
    Parts,
}

impl Faulty {
    /// The noun for `n` of them.
    fn noun(self, n: u64) -> &'static str {
        match (self, n) {
            (Faulty::Rows, 1) => "row",
            (Faulty::Rows, _) => "rows",
            (Faulty::Entries, 1) => "entry",
            (Faulty::Entries, _) => "entries",
            (Faulty::Parts, 1) => "tensor or operator",
            (Faulty::Parts, _) => "tensors or operators",
        }
    }
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
    /// faulty rows` (`row` for 1; `entries` for a JSON file, `tensors or operators` for a
    /// model, as [`faulty`](FileError::faulty) says).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.first_line()];
        out.extend(self.more.iter().map(FileError::first_line));
        if self.unlisted > 0 {
            let n = self.unlisted;
            out.push(format!(
                "{}: and {n} more faulty {}",
                self.file,
                self.faulty.noun(n)
            ));
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

/// The faults of a file as they are found: the first [`LISTED`](crate::LISTED) in file
/// order kept, the others counted. Faults may be pushed out of file order with a key (a
/// byte offset, an index): those with the smallest keys are kept, those with equal keys in
/// the order pushed. Each push costs at most `LISTED` steps, and no more than `LISTED`
/// faults are held, however many a file has.
pub(super) struct Faults {
    faulty: Faulty,
    /// The kept faults, sorted by key.
    kept: Vec<(u64, FileError)>,
    /// How many were pushed in all.
    pushed: u64,
}

impl Faults {
    pub(super) fn new(faulty: Faulty) -> Faults {
        Faults {
            faulty,
            kept: Vec::with_capacity(crate::LISTED),
            pushed: 0,
        }
    }

    /// A fault, placed in file order by `key`.
    pub(super) fn push(&mut self, key: u64, e: FileError) {
        self.pushed += 1;
        let at = self.kept.partition_point(|k| k.0 <= key);
        if at < crate::LISTED {
            if self.kept.len() == crate::LISTED {
                self.kept.pop();
            }
            self.kept.insert(at, (key, e));
        }
    }

    /// A fault after every one pushed so far (for a reader that finds them in file order).
    pub(super) fn add(&mut self, e: FileError) {
        self.push(self.pushed, e);
    }

    /// `Ok` without faults; else the first in file order, with the next listed ones as
    /// its `more` and the count of the others.
    pub(super) fn finish(self) -> Result<(), FileError> {
        let unlisted = self.pushed - self.kept.len() as u64;
        let mut listed = self.kept.into_iter().map(|f| f.1);
        match listed.next() {
            None => Ok(()),
            Some(first) => Err(FileError {
                more: listed.collect(),
                unlisted,
                faulty: self.faulty,
                ..first
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_keep_the_first_listed_in_key_order_and_count_the_others() {
        assert_eq!(crate::LISTED, 8, "the kept below are eight");
        let e = |m: &str| FileError::at_line("f", None, m);
        let mut faults = Faults::new(Faulty::Entries);
        // Keys 10, 20, ..., 100 pushed in order, then 5 and 15 (out of order) and two at
        // 15 more: the kept are the eight smallest keys, equal keys in the order pushed.
        for k in 1..=10 {
            faults.push(k * 10, e(&format!("k{}", k * 10)));
        }
        faults.push(5, e("k5"));
        faults.push(15, e("k15a"));
        faults.push(15, e("k15b"));
        let err = faults.finish().unwrap_err();
        let kept: Vec<String> = err.lines();
        assert_eq!(
            kept,
            [
                "f: k5",
                "f: k10",
                "f: k15a",
                "f: k15b",
                "f: k20",
                "f: k30",
                "f: k40",
                "f: k50",
                "f: and 5 more faulty entries",
            ]
        );
        assert!(Faults::new(Faulty::Rows).finish().is_ok());
    }
}
