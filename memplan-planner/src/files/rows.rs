//! The two CSV layouts other planners export: ExecuTorch's memory plan
//! (`name,mem_id,offset,size,first,last,dtype,shape`, inclusive lifetimes) and MiniMalloc's
//! benchmark input (`id,lower,upper,size`, half-open lifetimes), with the CSV machinery the
//! placed-CSV reader shares: columns looked up by name in the header, fields read one by
//! one (no serde derive: this crate is built inside every firmware build, through the
//! macro), errors with the 1-based line.

use std::path::Path;
use std::str::FromStr;

use super::error::FileError;
use crate::problem::{Lifetime, Step};

/// One planned tensor of an ExecuTorch plan file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorchRow {
    /// The tensor's name, unique in the file.
    pub name: String,
    /// ExecuTorch's memory id (informational: `memory_plan!` uses its own `in REGION`).
    pub mem_id: u32,
    /// The offset ExecuTorch's planner chose, in bytes.
    pub offset: u64,
    /// Bytes to plan (ExecuTorch rounds tensor bytes up to 16).
    pub size: u64,
    /// First step live (node index), inclusive.
    pub first: Step,
    /// Last step live (node index), inclusive.
    pub last: Step,
    /// The torch dtype, for example `float32` (empty when the file has no `dtype` column).
    pub dtype: String,
    /// The dims joined by `x`; empty for 0-d tensors (and when the file has no `shape`
    /// column).
    pub shape: String,
}

impl ExecutorchRow {
    /// The row's lifetime.
    pub fn lifetime(&self) -> Lifetime {
        Lifetime {
            first: self.first,
            last: self.last,
        }
    }
}

/// One buffer of a MiniMalloc benchmark file; `[lower, upper)` is half-open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinimallocRow {
    /// The buffer's id.
    pub id: String,
    /// First step live.
    pub lower: Step,
    /// One past the last step live.
    pub upper: Step,
    /// Bytes.
    pub size: u64,
}

impl MinimallocRow {
    /// The inclusive lifetime `[lower, upper - 1]`.
    pub fn lifetime(&self) -> Lifetime {
        Lifetime {
            first: self.lower,
            last: self.upper - 1,
        }
    }
}

/// The records of a CSV table with the columns `header` (at least), each with its 1-based
/// line, and the index of each column of `header` and `optional` in the file's header.
struct Table {
    rows: Vec<(u64, csv::StringRecord)>,
    header: csv::StringRecord,
}

impl Table {
    fn read(text: &str, file: &str, header: &[&str]) -> Result<Table, FileError> {
        let err = |line: Option<u64>, message: String| FileError::at_line(file, line, message);
        let mut rdr = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let got = rdr
            .headers()
            .map_err(|e| err(Some(1), format!("cannot read the header: {e}")))?
            .clone();
        for h in header {
            if !got.iter().any(|g| g == *h) {
                return Err(err(
                    Some(1),
                    format!(
                        "the header has no column `{h}` (expected `{}`)",
                        header.join(",")
                    ),
                ));
            }
        }
        let mut rows = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map(|p| p.line());
                err(line, format!("malformed row: {}", csv_message(&e)))
            })?;
            let line = rec.position().map_or(0, |p| p.line());
            rows.push((line, rec));
        }
        Ok(Table { rows, header: got })
    }

    /// The index of column `name`, if the header has it.
    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// One row's fields, read by column with errors that name the column.
pub(super) struct Fields<'a> {
    table: &'a Table,
    rec: &'a csv::StringRecord,
}

impl Fields<'_> {
    /// The text of column `name` (empty when the file has no such column).
    pub(super) fn text(&self, name: &str) -> String {
        self.table
            .column(name)
            .and_then(|c| self.rec.get(c))
            .unwrap_or("")
            .to_string()
    }

    /// Column `name` as a whole number: "column 4 (`size`): `sixty-four` is not a whole
    /// number in range" when it is not one.
    pub(super) fn number<T: FromStr>(&self, name: &str) -> Result<T, String> {
        let c = self.table.column(name).unwrap_or(usize::MAX);
        let value = self.rec.get(c).unwrap_or("");
        value.parse::<T>().map_err(|_| {
            format!(
                "column {} (`{name}`): `{value}` is not a whole number in range",
                c.saturating_add(1)
            )
        })
    }
}

/// Reads every row of `text` with `row`, naming `file` and the line in errors.
pub(super) fn parse_rows<T>(
    text: &str,
    file: &str,
    header: &[&str],
    row: impl Fn(&Fields<'_>) -> Result<T, String>,
) -> Result<Vec<(u64, T)>, FileError> {
    let table = Table::read(text, file, header)?;
    table
        .rows
        .iter()
        .map(|(line, rec)| {
            let fields = Fields { table: &table, rec };
            row(&fields)
                .map(|r| (*line, r))
                .map_err(|message| FileError::at_line(file, Some(*line), message))
        })
        .collect()
}

fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("{len} fields, expected {expected_len}")
        }
        _ => e.to_string(),
    }
}

/// Parses an ExecuTorch plan file's text. `file` names it in errors.
///
/// Each row is returned with its 1-based line.
///
/// # Errors
///
/// A [`FileError`] naming the file and line: a missing column, a malformed or non-integer
/// field, `last < first`, or a name used twice (naming both lines).
pub fn parse_executorch(text: &str, file: &str) -> Result<Vec<(u64, ExecutorchRow)>, FileError> {
    let rows = parse_rows(
        text,
        file,
        &["name", "mem_id", "offset", "size", "first", "last"],
        |f| {
            Ok(ExecutorchRow {
                name: f.text("name"),
                mem_id: f.number("mem_id")?,
                offset: f.number("offset")?,
                size: f.number("size")?,
                first: f.number("first")?,
                last: f.number("last")?,
                dtype: f.text("dtype"),
                shape: f.text("shape"),
            })
        },
    )?;
    named_rows(
        file,
        rows.iter()
            .map(|(l, r)| (*l, r.name.as_str(), r.first, r.last)),
    )?;
    Ok(rows)
}

/// Checks rows given as `(line, name, first, last)`: every name non-empty and given once,
/// every lifetime non-empty (`first <= last`); the first fault is the error, on its line.
pub(super) fn named_rows<'a>(
    file: &str,
    rows: impl Iterator<Item = (u64, &'a str, Step, Step)>,
) -> Result<(), FileError> {
    let mut seen = std::collections::HashMap::new();
    for (line, name, first, last) in rows {
        let e = |message: String| FileError::at_line(file, Some(line), message);
        if last < first {
            return Err(e(format!(
                "`{name}` has an empty lifetime: last {last} < first {first}"
            )));
        }
        if name.is_empty() {
            return Err(e("a row has an empty name".to_string()));
        }
        if let Some(prev) = seen.insert(name, line) {
            return Err(e(format!("`{name}` is named twice (first on line {prev})")));
        }
    }
    Ok(())
}

/// Reads an ExecuTorch plan file.
///
/// # Errors
///
/// As [`parse_executorch`], and a [`FileError`] when the file cannot be read.
pub fn read_executorch(path: &Path) -> Result<Vec<(u64, ExecutorchRow)>, FileError> {
    let file = path.display().to_string();
    let text = super::read::read_text(path).map_err(|e| FileError::at_line(&file, None, e))?;
    parse_executorch(&text, &file)
}

/// Parses a MiniMalloc benchmark file's text. `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] naming the file and line: a missing column, a malformed field, or
/// `upper <= lower` (an empty lifetime).
pub fn parse_minimalloc(text: &str, file: &str) -> Result<Vec<(u64, MinimallocRow)>, FileError> {
    let rows = parse_rows(text, file, &["id", "lower", "upper", "size"], |f| {
        Ok(MinimallocRow {
            id: f.text("id"),
            lower: f.number("lower")?,
            upper: f.number("upper")?,
            size: f.number("size")?,
        })
    })?;
    for (line, r) in &rows {
        if r.upper <= r.lower {
            return Err(FileError::at_line(
                file,
                Some(*line),
                format!(
                    "`{}` has an empty lifetime: upper {} <= lower {}",
                    r.id, r.upper, r.lower
                ),
            ));
        }
    }
    Ok(rows)
}

/// Reads a MiniMalloc benchmark file.
///
/// # Errors
///
/// As [`parse_minimalloc`], and a [`FileError`] when the file cannot be read.
pub fn read_minimalloc(path: &Path) -> Result<Vec<(u64, MinimallocRow)>, FileError> {
    let file = path.display().to_string();
    let text = super::read::read_text(path).map_err(|e| FileError::at_line(&file, None, e))?;
    parse_minimalloc(&text, &file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "name,mem_id,offset,size,first,last,dtype,shape\n";

    #[test]
    fn reads_rows_with_lines() {
        let text =
            format!("{HEADER}x,1,0,602112,0,264,float32,1x3x224x224\nz,1,16,0,3,4,float32,0\n");
        let rows = parse_executorch(&text, "m.csv").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].0, 2);
        assert_eq!(rows[0].1.size, 602112);
        assert_eq!(rows[1].0, 3);
        assert_eq!(rows[1].1.lifetime(), Lifetime { first: 3, last: 4 });
    }

    #[test]
    fn bad_integer_names_file_and_line() {
        let text = format!("{HEADER}x,1,0,16,0,1,f,1\ny,1,0,sixteen,0,1,f,1\n");
        let e = parse_executorch(&text, "m.csv").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(
            e.to_string(),
            "m.csv:3: column 4 (`size`): `sixteen` is not a whole number in range"
        );
    }

    #[test]
    fn inverted_lifetime_and_duplicate_name_are_errors() {
        let e = parse_executorch(&format!("{HEADER}x,1,0,16,5,4,f,1\n"), "m.csv").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("last 4 < first 5"));
        let e = parse_executorch(
            &format!("{HEADER}x,1,0,16,0,1,f,1\nx,1,0,16,0,1,f,1\n"),
            "m.csv",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("first on line 2"));
    }

    #[test]
    fn missing_column_is_an_error_on_line_1() {
        let e = parse_executorch("name,offset\nx,0\n", "m.csv").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("no column `mem_id`"));
    }

    #[test]
    fn minimalloc_lifetimes_are_half_open() {
        let rows = parse_minimalloc("id,lower,upper,size\n0,3,5,8\n", "b.csv").unwrap();
        assert_eq!(rows[0].1.lifetime(), Lifetime { first: 3, last: 4 });
        assert!(parse_minimalloc("id,lower,upper,size\n0,5,5,8\n", "b.csv").is_err());
    }
}
