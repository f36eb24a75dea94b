//! The two CSV layouts other planners export: ExecuTorch's memory plan
//! (`name,mem_id,offset,size,first,last,dtype,shape`, inclusive lifetimes) and MiniMalloc's
//! benchmark input (`id,lower,upper,size`, half-open lifetimes), with the CSV machinery the
//! placed-CSV reader shares: columns looked up by name in the header, fields read one by
//! one with `csv-core` (no serde, no `csv` crate: this crate is built inside every
//! firmware build, through the macro), errors with the 1-based line.

use std::ops::Range;
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

/// A CSV table read with `csv-core`, as the `csv` crate's reader with its defaults and
/// `Trim::All` reads it (this crate used that reader before, and its behaviour is kept):
/// fields separated by `,`, quoted with `"` (`""` inside quotes is one `"`; a field quoted
/// only in part keeps its text, unquoted), records ended by `\n`, `\r` or `\r\n`, empty
/// lines skipped, a UTF-8 byte-order mark at the start dropped. Every name and field is
/// trimmed of white space (Unicode's, as `str::trim`), and every row must have as many
/// fields as the header. A row's line is the line the reader was on when
/// the row began: the line after the previous record's end, so the first line of any
/// empty lines before the row, and, after a `\r\n` (or a lone `\r`), the previous
/// record's line.
struct Table {
    /// The header's column names, trimmed.
    header: Vec<String>,
    /// Every row's fields, trimmed, one after the other.
    text: String,
    /// Each field's byte range in `text`, row after row (`header.len()` a row).
    fields: Vec<Range<usize>>,
    /// Each row's 1-based line.
    lines: Vec<u64>,
}

impl Table {
    fn read(text: &str, file: &str, header: &[&str]) -> Result<Table, FileError> {
        let err = |line: Option<u64>, message: String| FileError::at_line(file, line, message);
        let mut records = Records::new(text.as_bytes());
        let got: Vec<String> = match records.next() {
            Some(_) => records.fields().map(|f| f.trim().to_string()).collect(),
            None => Vec::new(),
        };
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
        let mut table = Table {
            header: got,
            text: String::new(),
            fields: Vec::new(),
            lines: Vec::new(),
        };
        while let Some(line) = records.next() {
            let count = records.len;
            if count != table.header.len() {
                return Err(err(
                    Some(line),
                    format!(
                        "malformed row: {count} fields, expected {}",
                        table.header.len()
                    ),
                ));
            }
            for field in records.fields() {
                let start = table.text.len();
                table.text.push_str(field.trim());
                table.fields.push(start..table.text.len());
            }
            table.lines.push(line);
        }
        Ok(table)
    }

    /// The index of column `name`, if the header has it.
    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Row `row`'s field in column `column`, if the header has that column.
    fn field(&self, row: usize, column: usize) -> Option<&str> {
        if column >= self.header.len() {
            return None;
        }
        let range = self.fields.get(row * self.header.len() + column)?;
        Some(&self.text[range.clone()])
    }
}

/// The records of a CSV text, one at a time, through `csv-core` (which never fails: every
/// input is some table).
struct Records<'a> {
    reader: csv_core::Reader,
    input: &'a [u8],
    /// The current record's unquoted bytes, the end of each of its fields in them (room
    /// for more), and its number of fields.
    out: Vec<u8>,
    ends: Vec<usize>,
    len: usize,
}

impl<'a> Records<'a> {
    fn new(input: &'a [u8]) -> Records<'a> {
        Records {
            reader: csv_core::Reader::new(),
            input,
            out: vec![0; 1024],
            ends: vec![0; 16],
            len: 0,
        }
    }

    /// Reads the next record; its line (where the reader was when it began), or `None`
    /// at the end of the text.
    fn next(&mut self) -> Option<u64> {
        let line = self.reader.line();
        let (mut nout, mut nend) = (0, 0);
        loop {
            let (result, nin, o, e) =
                self.reader
                    .read_record(self.input, &mut self.out[nout..], &mut self.ends[nend..]);
            self.input = &self.input[nin..];
            nout += o;
            nend += e;
            match result {
                // An empty input tells the reader the text ends: the next call ends the
                // last record, if any.
                csv_core::ReadRecordResult::InputEmpty => {}
                csv_core::ReadRecordResult::OutputFull => {
                    self.out.resize(self.out.len() * 2, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => {
                    self.ends.resize(self.ends.len() * 2, 0);
                }
                csv_core::ReadRecordResult::Record => {
                    self.len = nend;
                    return Some(line);
                }
                csv_core::ReadRecordResult::End => {
                    self.len = 0;
                    return None;
                }
            }
        }
    }

    /// The current record's fields. The reader only removes ASCII bytes (separators,
    /// quotes, line ends) and a whole byte-order mark from UTF-8 text, so every field is
    /// UTF-8; the lossy conversion never replaces anything.
    fn fields(&self) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
        let mut start = 0;
        self.ends[..self.len].iter().map(move |&end| {
            let field = String::from_utf8_lossy(&self.out[start..end]);
            start = end;
            field
        })
    }
}

/// One row's fields, read by column with errors that name the column.
pub(super) struct Fields<'a> {
    table: &'a Table,
    row: usize,
}

impl Fields<'_> {
    /// The text of column `name` (empty when the file has no such column).
    pub(super) fn text(&self, name: &str) -> String {
        self.table
            .column(name)
            .and_then(|c| self.table.field(self.row, c))
            .unwrap_or("")
            .to_string()
    }

    /// Column `name` as a whole number: "column 4 (`size`): `sixty-four` is not a whole
    /// number in range" when it is not one.
    pub(super) fn number<T: FromStr>(&self, name: &str) -> Result<T, String> {
        let c = self.table.column(name).unwrap_or(usize::MAX);
        let value = self.table.field(self.row, c).unwrap_or("");
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
        .lines
        .iter()
        .enumerate()
        .map(|(i, &line)| {
            let fields = Fields {
                table: &table,
                row: i,
            };
            row(&fields)
                .map(|r| (line, r))
                .map_err(|message| FileError::at_line(file, Some(line), message))
        })
        .collect()
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

    /// The table as the `csv` crate's reader reads it (this crate's reader before
    /// `csv-core`), with the messages of the reader that used it: the reference for
    /// `reads_every_text_as_the_csv_crate_does`.
    fn csv_crate_table(text: &str, file: &str, header: &[&str]) -> Result<Table, FileError> {
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
        let mut table = Table {
            header: got.iter().map(str::to_string).collect(),
            text: String::new(),
            fields: Vec::new(),
            lines: Vec::new(),
        };
        for rec in rdr.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map(|p| p.line());
                let message = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!("{len} fields, expected {expected_len}"),
                    _ => e.to_string(),
                };
                err(line, format!("malformed row: {message}"))
            })?;
            for field in &rec {
                let start = table.text.len();
                table.text.push_str(field);
                table.fields.push(start..table.text.len());
            }
            table.lines.push(rec.position().map_or(0, |p| p.line()));
        }
        Ok(table)
    }

    /// The rows of a table as text, for comparing two readers.
    fn rows_of(table: &Table) -> Vec<(u64, Vec<&str>)> {
        let n = table.header.len();
        (0..table.lines.len())
            .map(|r| {
                let fields = (0..n).map(|c| table.field(r, c).unwrap()).collect();
                (table.lines[r], fields)
            })
            .collect()
    }

    fn assert_reads_as_the_csv_crate(text: &str) {
        let header = ["a", "b"];
        let ours = Table::read(text, "t.csv", &header);
        let theirs = csv_crate_table(text, "t.csv", &header);
        match (&ours, &theirs) {
            (Ok(o), Ok(t)) => {
                assert_eq!(o.header, t.header, "header of {text:?}");
                assert_eq!(rows_of(o), rows_of(t), "rows of {text:?}");
            }
            (Err(o), Err(t)) => assert_eq!(o, t, "error of {text:?}"),
            _ => panic!(
                "{text:?}: csv-core reader {:?}, csv crate {:?}",
                ours.as_ref().map(rows_of),
                theirs.as_ref().map(rows_of)
            ),
        }
    }

    #[test]
    fn quoting_trimming_bom_line_ends_and_ragged_rows_read_as_the_csv_crate_does() {
        for text in [
            "a,b\n1,2\n",
            "\u{feff}a,b\r\n1,2\r\n3,4",
            "a,b\r1,2\r3,4\r",
            " a , b \n \t1 , 2\u{a0}\n",
            "\u{a0}a\u{2003},\u{b}b\n1,2\n",
            "a,b\n\n\n1,2\n\r\n3,4\n",
            "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n",
            "a,b\n\"multi\nline\",2\n3,4\n",
            "a,b\nab\"cd,\"ef\"gh\n \"q\" ,2\n",
            "a,b\n1,2,3\n",
            "a,b\n1\n",
            "a,b,c\n1,2\n",
            "a,b\n1,2\n \n",
            "a,b\n\"unterminated,2\n3,4\n",
            "",
            "\n\n",
            "\u{feff}",
            "b,a\n1,2",
            "a,a,b\n1,2,3\n",
            "a,b\n,\n",
        ] {
            assert_reads_as_the_csv_crate(text);
        }
    }

    proptest::proptest! {
        #[test]
        fn reads_every_text_as_the_csv_crate_does(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "b", "1", ",", ",", "\"", "\"\"", "\n", "\r", "\r\n", " ", "\t",
                    "\u{b}", "\u{c}", "\u{a0}", "\u{feff}", "é", "a,b\n", "\na,b", "x",
                ]),
                0..40,
            ),
        ) {
            assert_reads_as_the_csv_crate(&parts.concat());
        }
    }

    #[test]
    fn minimalloc_lifetimes_are_half_open() {
        let rows = parse_minimalloc("id,lower,upper,size\n0,3,5,8\n", "b.csv").unwrap();
        assert_eq!(rows[0].1.lifetime(), Lifetime { first: 3, last: 4 });
        assert!(parse_minimalloc("id,lower,upper,size\n0,5,5,8\n", "b.csv").is_err());
    }
}
