//! Plan files: the CSV that ExecuTorch's memory planning exports
//! (`name,mem_id,offset,size,first,last,dtype,shape`, inclusive lifetimes) and MiniMalloc's
//! benchmark format (`id,lower,upper,size`, half-open lifetimes), read with the `csv` crate.
//! Errors name the file and the 1-based line.

use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::problem::{Lifetime, Step};

/// One planned tensor of an ExecuTorch plan file.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
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
    /// The torch dtype, for example `float32`.
    #[serde(default)]
    pub dtype: String,
    /// The dims joined by `x`; empty for 0-d tensors.
    #[serde(default)]
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
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
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

/// What is wrong with a plan file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The file, as given.
    pub file: String,
    /// The 1-based line, when the fault is on one.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for FileError {}

fn parse_rows<T: for<'de> Deserialize<'de>>(
    text: &str,
    file: &str,
    header: &[&str],
) -> Result<Vec<(u64, T)>, FileError> {
    let err = |line: Option<u64>, message: String| FileError {
        file: file.to_string(),
        line,
        message,
    };
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
        let row: T = rec
            .deserialize(Some(&got))
            .map_err(|e| err(Some(line), field_message(&e, &got, &rec)))?;
        rows.push((line, row));
    }
    Ok(rows)
}

/// "column 4 (`size`): `sixty-four` is not a whole number", for a field that does not
/// parse.
fn field_message(e: &csv::Error, header: &csv::StringRecord, rec: &csv::StringRecord) -> String {
    if let csv::ErrorKind::Deserialize { err, .. } = e.kind()
        && let Some(f) = err.field()
    {
        let f = f as usize;
        let name = header.get(f).unwrap_or("?");
        let value = rec.get(f).unwrap_or("");
        let what = match err.kind() {
            csv::DeserializeErrorKind::ParseInt(_) => "is not a whole number in range".to_string(),
            other => format!("cannot be read: {other}"),
        };
        return format!("column {} (`{name}`): `{value}` {what}", f + 1);
    }
    format!("malformed row: {}", csv_message(e))
}

fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => match err.field() {
            Some(f) => format!("field {}: {}", f + 1, err.kind()),
            None => err.kind().to_string(),
        },
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
    let rows: Vec<(u64, ExecutorchRow)> = parse_rows(
        text,
        file,
        &["name", "mem_id", "offset", "size", "first", "last"],
    )?;
    let mut seen = std::collections::HashMap::new();
    for (line, r) in &rows {
        let e = |message: String| FileError {
            file: file.to_string(),
            line: Some(*line),
            message,
        };
        if r.last < r.first {
            return Err(e(format!(
                "`{}` has an empty lifetime: last {} < first {}",
                r.name, r.last, r.first
            )));
        }
        if r.name.is_empty() {
            return Err(e("a row has an empty name".to_string()));
        }
        if let Some(prev) = seen.insert(r.name.as_str(), *line) {
            return Err(e(format!(
                "`{}` is named twice (first on line {prev})",
                r.name
            )));
        }
    }
    Ok(rows)
}

/// Reads an ExecuTorch plan file.
///
/// # Errors
///
/// As [`parse_executorch`], and a [`FileError`] when the file cannot be read.
pub fn read_executorch(path: &Path) -> Result<Vec<(u64, ExecutorchRow)>, FileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FileError {
        file: file.clone(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
    parse_executorch(&text, &file)
}

/// Parses a MiniMalloc benchmark file's text. `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] naming the file and line: a missing column, a malformed field, or
/// `upper <= lower` (an empty lifetime).
pub fn parse_minimalloc(text: &str, file: &str) -> Result<Vec<(u64, MinimallocRow)>, FileError> {
    let rows: Vec<(u64, MinimallocRow)> =
        parse_rows(text, file, &["id", "lower", "upper", "size"])?;
    for (line, r) in &rows {
        if r.upper <= r.lower {
            return Err(FileError {
                file: file.to_string(),
                line: Some(*line),
                message: format!(
                    "`{}` has an empty lifetime: upper {} <= lower {}",
                    r.id, r.upper, r.lower
                ),
            });
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
    let text = std::fs::read_to_string(path).map_err(|e| FileError {
        file: file.clone(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
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
