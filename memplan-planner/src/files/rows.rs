//! The two CSV layouts other planners export: ExecuTorch's memory plan
//! (`name,mem_id,offset,size,first,last,dtype,shape`, inclusive lifetimes) and MiniMalloc's
//! benchmark input (`id,lower,upper,size`, half-open lifetimes), with the CSV machinery the
//! placed-CSV reader shares: columns looked up by name in the header, fields read one by
//! one with `csv-core` (no serde, no `csv` crate: this crate is built inside every
//! firmware build, through the macro), errors with the 1-based line. A reader goes on past
//! a faulty row (a malformed row, a bad field, an empty lifetime, an empty name, a name
//! given twice) and reports every faulty row in file order: the first
//! [`LISTED`](crate::LISTED) of them one by one, then how many more.

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
/// fields as the header (a row that has not is kept aside, in `malformed`). A row's line is the line the reader was on when
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
    /// The rows without as many fields as the header, in file order: how many well-formed
    /// rows come before each, its line, and its number of fields.
    malformed: Vec<(usize, u64, usize)>,
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
            malformed: Vec::new(),
        };
        while let Some(line) = records.next() {
            let count = records.len;
            if count != table.header.len() {
                table.malformed.push((table.lines.len(), line, count));
                continue;
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
    /// "column 6 (`last`)": column `name` as messages name it.
    pub(super) fn column(&self, name: &str) -> String {
        let c = self.table.column(name).unwrap_or(usize::MAX);
        format!("column {} (`{name}`)", c.saturating_add(1))
    }

    /// Column `name`'s 1-based number, as messages name it.
    fn number_of(&self, name: &str) -> usize {
        self.table
            .column(name)
            .unwrap_or(usize::MAX)
            .saturating_add(1)
    }

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
                "{}: `{value}` is not a whole number in range",
                self.column(name)
            )
        })
    }
}

/// The faults of a file's rows as they are found, in file order: the first
/// [`LISTED`](crate::LISTED) kept, the others counted.
pub(super) struct Faults<'a> {
    file: &'a str,
    listed: Vec<FileError>,
    unlisted: u64,
}

impl<'a> Faults<'a> {
    pub(super) fn new(file: &'a str) -> Faults<'a> {
        Faults {
            file,
            listed: Vec::new(),
            unlisted: 0,
        }
    }

    /// A fault on `line`.
    pub(super) fn push(&mut self, line: u64, message: String) {
        if self.listed.len() < crate::LISTED {
            self.listed
                .push(FileError::at_line(self.file, Some(line), message));
        } else {
            self.unlisted += 1;
        }
    }

    /// `Ok` without faults; else the first, with the other listed ones as its `more`.
    pub(super) fn finish(self) -> Result<(), FileError> {
        let mut listed = self.listed.into_iter();
        match listed.next() {
            None => Ok(()),
            Some(first) => Err(FileError {
                more: listed.collect(),
                unlisted: self.unlisted,
                ..first
            }),
        }
    }
}

/// Reads every row of `text` with `row`, then checks it with `check` (given its line),
/// naming `file` and the line in errors. Every faulty row is reported (as [`Faults`]
/// does), in file order: a row without as many fields as the header, a field `row`
/// rejects, a row `check` rejects.
pub(super) fn parse_rows<T>(
    text: &str,
    file: &str,
    header: &[&str],
    row: impl Fn(&Fields<'_>) -> Result<T, String>,
    mut check: impl FnMut(&Fields<'_>, u64, &T) -> Result<(), String>,
) -> Result<Vec<(u64, T)>, FileError> {
    let table = Table::read(text, file, header)?;
    let mut faults = Faults::new(file);
    let mut malformed = table.malformed.iter().peekable();
    let mut report_malformed = |faults: &mut Faults<'_>, before: usize| {
        while let Some(&(_, line, count)) = malformed.next_if(|m| m.0 <= before) {
            faults.push(
                line,
                format!(
                    "malformed row: {count} fields, expected {}",
                    table.header.len()
                ),
            );
        }
    };
    let mut rows = Vec::with_capacity(table.lines.len());
    for (i, &line) in table.lines.iter().enumerate() {
        report_malformed(&mut faults, i);
        let fields = Fields {
            table: &table,
            row: i,
        };
        match row(&fields) {
            Ok(r) => {
                if let Err(message) = check(&fields, line, &r) {
                    faults.push(line, message);
                }
                rows.push((line, r));
            }
            Err(message) => faults.push(line, message),
        }
    }
    report_malformed(&mut faults, usize::MAX);
    faults.finish()?;
    Ok(rows)
}

/// Parses an ExecuTorch plan file's text. `file` names it in errors.
///
/// Each row is returned with its 1-based line.
///
/// # Errors
///
/// A [`FileError`] naming the file and line: a missing column (alone); else every faulty
/// row, in file order, the first [`LISTED`](crate::LISTED) in the error (the first
/// itself, the others in [`FileError::more`]) and how many more in
/// [`FileError::unlisted`]. A faulty row is one with a number of fields other than the
/// header's, or a non-integer field (its column named: "column 4 (`size`): `sixty-four` is
/// not a whole number in range"); or else with `last < first` (naming column `last`, and
/// `first`), an empty name, or a name used twice (naming column `name` and the line of its
/// first use). A row is reported once, for its first fault.
pub fn parse_executorch(text: &str, file: &str) -> Result<Vec<(u64, ExecutorchRow)>, FileError> {
    parse_rows(
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
        named(|r: &ExecutorchRow| (r.name.as_str(), r.first, r.last)),
    )
}

/// The check of rows with a name and an inclusive lifetime (`key` gives them): the
/// lifetime non-empty (`first <= last`), the name non-empty and not given on an earlier
/// row; the first of these faults is the row's.
pub(super) fn named<T>(
    key: impl Fn(&T) -> (&str, Step, Step),
) -> impl FnMut(&Fields<'_>, u64, &T) -> Result<(), String> {
    let mut seen = std::collections::HashMap::<String, u64>::new();
    move |f, line, r| {
        let (name, first, last) = key(r);
        // Every name counts as given, even on a row with another fault.
        let earlier = if name.is_empty() {
            None
        } else {
            match seen.entry(name.to_string()) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(line);
                    None
                }
            }
        };
        if last < first {
            return Err(format!(
                "{}: `{name}` has an empty lifetime: last {last} < first {first} (`first` is column {})",
                f.column("last"),
                f.number_of("first")
            ));
        }
        if name.is_empty() {
            return Err(format!("{}: a row has an empty name", f.column("name")));
        }
        if let Some(prev) = earlier {
            return Err(format!(
                "{}: `{name}` is named twice (first on line {prev})",
                f.column("name")
            ));
        }
        Ok(())
    }
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
/// Ids may repeat (as in MiniMalloc's own reader); [`parse_any`](super::parse_any) rejects
/// a repeated one.
///
/// # Errors
///
/// A [`FileError`] naming the file and line: a missing column (alone); else every faulty
/// row, in file order, as [`parse_executorch`] reports them: one with a number of fields
/// other than the header's, a non-integer field (its column named), or `upper <= lower`
/// (an empty lifetime, naming column `upper`, and `lower`).
pub fn parse_minimalloc(text: &str, file: &str) -> Result<Vec<(u64, MinimallocRow)>, FileError> {
    minimalloc(text, file, false)
}

/// [`parse_minimalloc`]; with `unique`, an id given on an earlier row is a fault too
/// (naming column `id` and that row's line).
pub(super) fn minimalloc(
    text: &str,
    file: &str,
    unique: bool,
) -> Result<Vec<(u64, MinimallocRow)>, FileError> {
    let mut seen = std::collections::HashMap::<String, u64>::new();
    parse_rows(
        text,
        file,
        &["id", "lower", "upper", "size"],
        |f| {
            Ok(MinimallocRow {
                id: f.text("id"),
                lower: f.number("lower")?,
                upper: f.number("upper")?,
                size: f.number("size")?,
            })
        },
        |f, line, r| {
            let earlier = if unique {
                match seen.entry(r.id.clone()) {
                    std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(line);
                        None
                    }
                }
            } else {
                None
            };
            if r.upper <= r.lower {
                return Err(format!(
                    "{}: `{}` has an empty lifetime: upper {} <= lower {} (`lower` is column {})",
                    f.column("upper"),
                    r.id,
                    r.upper,
                    r.lower,
                    f.number_of("lower")
                ));
            }
            if let Some(prev) = earlier {
                return Err(format!(
                    "{}: `{}` is named twice (first on line {prev})",
                    f.column("id"),
                    r.id
                ));
            }
            Ok(())
        },
    )
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
        assert_eq!(
            e.message,
            "column 6 (`last`): `x` has an empty lifetime: last 4 < first 5 (`first` is column 5)"
        );
        let e = parse_executorch(
            &format!("{HEADER}x,1,0,16,0,1,f,1\nx,1,0,16,0,1,f,1\n"),
            "m.csv",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(
            e.message,
            "column 1 (`name`): `x` is named twice (first on line 2)"
        );
        assert!(e.more.is_empty());
        assert_eq!(e.unlisted, 0);
    }

    #[test]
    fn every_faulty_row_is_reported_in_file_order() {
        let text = "name,mem_id,offset,size,first,last\n\
                    x,0,0,64,0,1\n\
                    y,0,0,sixty-four,1,2\n\
                    z,0,0,64,3,1\n\
                    x,0,0,64,0,1\n";
        let e = parse_executorch(text, "bad.csv").unwrap_err();
        assert_eq!(
            e.lines(),
            [
                "bad.csv:3: column 4 (`size`): `sixty-four` is not a whole number in range",
                "bad.csv:4: column 6 (`last`): `z` has an empty lifetime: last 1 < first 3 (`first` is column 5)",
                "bad.csv:5: column 1 (`name`): `x` is named twice (first on line 2)",
            ]
        );
        assert_eq!(e.to_string(), e.lines().join("\n"));
        // The first fault is the error itself, the others its `more`.
        assert_eq!(e.line, Some(3));
        assert_eq!(
            e.more.iter().map(|m| m.line).collect::<Vec<_>>(),
            [Some(4), Some(5)]
        );
        assert!(e.more.iter().all(|m| m.more.is_empty() && m.unlisted == 0));
    }

    #[test]
    fn malformed_rows_empty_names_and_third_uses_take_their_place_in_file_order() {
        // Columns in another order than ExecuTorch's: the messages name them as they are.
        let text = "last,first,name,size,offset,mem_id\n\
                    1,0,a,16,0,0\n\
                    1,0,a\n\
                    1,0,,16,0,0\n\
                    1,0,a,16,0,0\n\
                    1,0,a,16,0,0\n\
                    0,1,b,16,0,0,7\n";
        let e = parse_executorch(text, "o.csv").unwrap_err();
        assert_eq!(
            e.lines(),
            [
                "o.csv:3: malformed row: 3 fields, expected 6",
                "o.csv:4: column 3 (`name`): a row has an empty name",
                "o.csv:5: column 3 (`name`): `a` is named twice (first on line 2)",
                "o.csv:6: column 3 (`name`): `a` is named twice (first on line 2)",
                "o.csv:7: malformed row: 7 fields, expected 6",
            ]
        );
    }

    #[test]
    fn past_the_listed_faults_only_their_number_is_reported() {
        // 20 rows, every one with an empty lifetime but the 1st, 10th and 19th (t0, t9, t18).
        let mut text = HEADER.to_string();
        for i in 0..20 {
            let (first, last) = if i % 9 == 0 { (0, 1) } else { (2, 1) };
            text.push_str(&format!("t{i},1,0,16,{first},{last},f,1\n"));
        }
        let e = parse_executorch(&text, "m.csv").unwrap_err();
        let lines = e.lines();
        // Rows t1..t8 (lines 3..10) are listed, then t10..t17 and t19 (9 rows) counted.
        assert_eq!(lines.len(), 9);
        assert_eq!(
            lines[0],
            "m.csv:3: column 6 (`last`): `t1` has an empty lifetime: last 1 < first 2 (`first` is column 5)"
        );
        assert_eq!(
            lines[7],
            "m.csv:10: column 6 (`last`): `t8` has an empty lifetime: last 1 < first 2 (`first` is column 5)"
        );
        assert_eq!(lines[8], "m.csv: and 9 more faulty rows");
        assert_eq!(e.more.len(), crate::LISTED - 1);
        assert_eq!(e.unlisted, 9);
    }

    #[test]
    fn minimalloc_reports_every_faulty_row() {
        let text = "id,lower,upper,size\n0,5,5,8\n1,0,x,8\n0,0,1,8\n2,3,1,8\n";
        let e = parse_minimalloc(text, "b.csv").unwrap_err();
        assert_eq!(
            e.lines(),
            [
                "b.csv:2: column 3 (`upper`): `0` has an empty lifetime: upper 5 <= lower 5 (`lower` is column 2)",
                "b.csv:3: column 3 (`upper`): `x` is not a whole number in range",
                "b.csv:5: column 3 (`upper`): `2` has an empty lifetime: upper 1 <= lower 3 (`lower` is column 2)",
            ]
        );
        // Through `parse_any`, an id given twice is a faulty row too.
        let e = super::super::parse_any(text, "b.csv").unwrap_err();
        assert_eq!(
            e.lines()[2],
            "b.csv:4: column 1 (`id`): `0` is named twice (first on line 2)"
        );
        assert_eq!(e.lines().len(), 4);
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
            malformed: Vec::new(),
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
        // The csv crate's reader stops at the first malformed row: its error is ours.
        let ours = Table::read(text, "t.csv", &header).and_then(|t| match t.malformed.first() {
            Some(&(_, line, count)) => Err(FileError::at_line(
                "t.csv",
                Some(line),
                format!("malformed row: {count} fields, expected {}", t.header.len()),
            )),
            None => Ok(t),
        });
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
