//! memplan's JSON plan file (feature `json`): regions with their capacity and alignment,
//! buffers with their size, lifetime and, optionally, region, alignment and offset.
//!
//! ```json
//! {
//!   "version": 1,
//!   "name": "kws",
//!   "regions": [
//!     { "name": "sram", "capacity": 65536, "align": 16 },
//!     { "name": "dtcm", "capacity": 16384 }
//!   ],
//!   "buffers": [
//!     { "name": "input", "size": 490, "first": 0, "last": 1, "region": "dtcm" },
//!     { "name": "conv1", "size": 8000, "first": 1, "last": 2, "align": 64 },
//!     { "name": "conv2", "size": 8000, "first": 2, "last": 3, "region": "sram", "offset": 8000 }
//!   ]
//! }
//! ```
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `version` | integer, optional | the schema's version: `1`, or `2` for a file that uses `dtype` or `in_place_of` (a version-1 file reads as before) |
//! | `name` | string, optional | the plan's name (reports, the module `memplan emit` writes) |
//! | `regions` | array, optional | the memory regions in memory-id order (0, 1, ...); absent or empty: one region `arena`, unbounded, aligned to 16 |
//! | `regions[].name` | string | unique among the regions |
//! | `regions[].capacity` | integer, optional | bytes available; absent: unbounded |
//! | `regions[].align` | integer, optional | the default alignment of the region's buffers, in bytes, a power of two at most 65536; absent: 16 |
//! | `buffers` | array | the buffers, in declaration order |
//! | `buffers[].name` | string | unique among the buffers, not empty |
//! | `buffers[].size` | integer | bytes (0 is legal) |
//! | `buffers[].first`, `buffers[].last` | integers | the first and last steps live, inclusive (`first <= last`, at most 2^32 - 1) |
//! | `buffers[].region` | string, optional | the region's name; absent: the only region, or, with several, the first that can take it (spilled, as `memory_plan!` spills a buffer without `in`) |
//! | `buffers[].align` | integer, optional | alignment of the offset, in bytes, a power of two at most 65536; absent: the region's |
//! | `buffers[].offset` | integer, optional | the buffer's offset in its region, in bytes: a pin when the file is planned (verified, never trusted; the buffer then needs a region), the offset checked when the file is a plan to check |
//! | `buffers[].dtype` | string, optional (version 2) | its element type, a Rust primitive (`i8`, `u8`, `i16`, `u16`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`; torch's names `float32`, `int8`, ... are read too), whose size divides `size`; absent: bytes |
//! | `buffers[].in_place_of` | string, optional (version 2) | the name of the buffer whose bytes it takes in place (as `memory_plan!`'s `in place of`); the planner checks the pair |
//!
//! Numbers are JSON integers (no fractions, no exponents, not negative). Unknown fields are
//! errors, so a misspelt field is never silently ignored. Every error names the file, the
//! line and the column: serde_json's own for malformed JSON and wrong types, the start of
//! the offending region or buffer object for the rules above. Every faulty entry is
//! reported (see [`parse_json`]).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::error::{Faults, Faulty, FileError};
use super::model::Primitive;
use super::plan_file::{FileBuffer, FileRegion, Format, PlanFile, Positions};
use crate::problem::{Lifetime, MAX_ALIGN};

/// A JSON plan file, as read and as written (`serde`): the schema above.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonPlan {
    /// `1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// The plan's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The regions, in memory-id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<JsonRegion>,
    /// The buffers.
    pub buffers: Vec<JsonBuffer>,
}

/// A region of a [`JsonPlan`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonRegion {
    /// Its name.
    pub name: String,
    /// Bytes available; `None`: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    /// The default alignment of its buffers, in bytes; `None`: 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
}

/// A buffer of a [`JsonPlan`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonBuffer {
    /// Its name.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// First step live.
    pub first: u32,
    /// Last step live, inclusive.
    pub last: u32,
    /// Its region's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Alignment of its offset, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// Its offset in its region, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Its element type, a Rust primitive's name (version 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    /// The name of the buffer whose bytes it takes in place (version 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_place_of: Option<String>,
}

impl JsonBuffer {
    /// Whether it uses a field of version 2 (`dtype`, `in_place_of`).
    pub fn needs_version_2(&self) -> bool {
        self.dtype.is_some() || self.in_place_of.is_some()
    }
}

impl JsonPlan {
    /// The version a file with these buffers says: 2 when one uses `dtype` or
    /// `in_place_of`, else 1 (what a reader of version 1 takes).
    pub fn version_needed(&self) -> u64 {
        if self.buffers.iter().any(JsonBuffer::needs_version_2) {
            2
        } else {
            1
        }
    }
}

/// The element type `name` stands for: a Rust primitive's name (`f32`), or torch's
/// (`float32`).
fn primitive(name: &str) -> Option<Primitive> {
    Primitive::of_rust(name).or_else(|| Primitive::of_torch(name))
}

/// The document's top level, each region and buffer object kept as its text, read one by
/// one after (so that a fault in one does not hide those of the others).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document<'a> {
    version: Option<u64>,
    name: Option<String>,
    #[serde(borrow, default)]
    regions: Vec<&'a RawValue>,
    #[serde(borrow)]
    buffers: Vec<&'a RawValue>,
}

/// serde_json's message without its ` at line L column C` suffix, and that place.
fn serde_message(e: &serde_json::Error) -> (String, u64, u64) {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
    (message, e.line() as u64, e.column() as u64)
}

/// Parses a JSON plan file's text. `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] with the file, line and column. Alone, when the file cannot be read
/// further: malformed JSON, a top-level field that is missing, unknown or of the wrong
/// type (serde_json's message, at its place), `version` other than 1 or 2. Else every
/// faulty region and buffer entry, in file order, the first [`LISTED`](crate::LISTED) in
/// the error (the others in [`FileError::more`], then how many more in
/// [`FileError::unlisted`], counted as [`Faulty::Entries`]): a missing or unknown field, a
/// value of the wrong type or out of range (serde_json's message, at its place); an empty
/// or repeated name; a region named by a buffer that is not declared; an alignment that
/// is not a power of two at most 65536; `last < first`; a field of version 2 in a file
/// that says version 1; a `dtype` that is not a primitive, or whose size does not divide
/// `size`; an `in_place_of` that names no buffer, or with an `offset` other than its
/// source's. An entry is reported once, for its first fault; a buffer that names a faulty
/// region or is in place of a faulty buffer is not reported for it.
pub fn parse_json(text: &str, file: &str) -> Result<PlanFile, FileError> {
    let doc: Document<'_> = serde_json::from_str(text).map_err(|e| {
        let (message, line, column) = serde_message(&e);
        FileError::at(file, line, column, message)
    })?;
    if let Some(v) = doc.version.filter(|&v| v != 1 && v != 2) {
        return Err(FileError::at(
            file,
            1,
            1,
            format!("`version` is {v}: this reader knows versions 1 and 2"),
        ));
    }
    let mut positions = Positions::new(text);
    let offset_of = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let mut faults = Faults::new(Faulty::Entries);
    // Each entry's own fields, or the fault of the first that does not read, placed in the
    // file (serde_json counts lines and columns from the entry's start).
    fn entry<'t, T: Deserialize<'t>>(
        raw: &'t RawValue,
        (line, column): (u64, u64),
    ) -> Result<T, (u64, u64, String)> {
        serde_json::from_str(raw.get()).map_err(|e| {
            let (message, l, c) = serde_message(&e);
            if l <= 1 {
                (line, column + c.saturating_sub(1), message)
            } else {
                (line + l - 1, c, message)
            }
        })
    }

    let valid_align = |a: u64| a.is_power_of_two() && a <= MAX_ALIGN;
    let mut regions = Vec::with_capacity(doc.regions.len());
    // Every region named, faulty or not: a buffer that names a faulty one is not faulted
    // for it.
    let mut region_index = std::collections::HashMap::new();
    // The names of faulty regions declared first (not twice): their buffers are not
    // faulted for naming them.
    let mut faulty_regions = std::collections::HashSet::new();
    for raw in &doc.regions {
        let offset = offset_of(raw);
        let (line, column) = positions.at(offset);
        let fault = |message: String| FileError::at(file, line, column, message);
        let r: JsonRegion = match entry(raw, (line, column)) {
            Ok(r) => r,
            Err((l, c, message)) => {
                faults.push(offset as u64, FileError::at(file, l, c, message));
                if let Some(name) = name_of(raw).filter(|n| !region_index.contains_key(n)) {
                    faulty_regions.insert(name);
                }
                continue;
            }
        };
        let given = region_index.contains_key(&r.name) || faulty_regions.contains(&r.name);
        let problem = if r.name.is_empty() {
            Some("a region has an empty name".to_string())
        } else if let Some(a) = r.align.filter(|&a| !valid_align(a)) {
            Some(format!(
                "region `{}`: alignment {a} is not a power of two at most {MAX_ALIGN}",
                r.name
            ))
        } else if given {
            Some(format!("region `{}` is declared twice", r.name))
        } else {
            None
        };
        if let Some(message) = problem {
            faults.push(offset as u64, fault(message));
            if !given {
                faulty_regions.insert(r.name);
            }
            continue;
        }
        region_index.insert(r.name.clone(), regions.len());
        regions.push(FileRegion {
            name: r.name,
            capacity: r.capacity,
            align: r.align,
        });
    }

    let mut buffers = Vec::with_capacity(doc.buffers.len());
    // Every buffer name given, with its line, faulty buffer or not (a name given twice is
    // the second's fault; a buffer in place of a faulty one is not faulted for it).
    let mut seen = std::collections::HashMap::new();
    let mut faulty_buffers = std::collections::HashSet::new();
    let mut sources = Vec::with_capacity(doc.buffers.len());
    let mut sources_at = Vec::with_capacity(doc.buffers.len());
    let mut index_of = std::collections::HashMap::new();
    for raw in &doc.buffers {
        let offset = offset_of(raw);
        let (line, column) = positions.at(offset);
        let b: JsonBuffer = match entry(raw, (line, column)) {
            Ok(b) => b,
            Err((l, c, message)) => {
                faults.push(offset as u64, FileError::at(file, l, c, message));
                // Its name, if it reads, counts as given, and as a faulty buffer's.
                if let Some(name) = name_of(raw).filter(|n| !n.is_empty())
                    && let std::collections::hash_map::Entry::Vacant(e) = seen.entry(name)
                {
                    faulty_buffers.insert(e.key().clone());
                    e.insert(line);
                }
                continue;
            }
        };
        let earlier = if b.name.is_empty() {
            None
        } else {
            match seen.entry(b.name.clone()) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(line);
                    None
                }
            }
        };
        match buffer(&b, doc.version, &region_index, &faulty_regions, earlier) {
            Ok((lifetime, Some(region), element)) => {
                sources.push(b.in_place_of);
                index_of.insert(b.name.clone(), buffers.len());
                buffers.push(FileBuffer {
                    name: b.name,
                    size: b.size,
                    region,
                    mem_id: None,
                    align: b.align,
                    offset: b.offset,
                    column,
                    element,
                    dtype: b.dtype,
                    ..FileBuffer::new(String::new(), 0, lifetime, line)
                });
                // Its offset in the text, to place a fault of its `in_place_of` below.
                sources_at.push(offset);
            }
            // A buffer in a faulty region: faulty, not reported for it.
            Ok((_, None, _)) => {
                if earlier.is_none() {
                    faulty_buffers.insert(b.name);
                }
            }
            Err(message) => {
                faults.push(offset as u64, FileError::at(file, line, column, message));
                if earlier.is_none() {
                    faulty_buffers.insert(b.name);
                }
            }
        }
    }
    // `in_place_of` names any buffer of the file, before or after it.
    for (i, source) in sources.into_iter().enumerate() {
        let Some(source) = source else { continue };
        let b = &buffers[i];
        let message = match index_of.get(&source) {
            Some(&s) if b.offset.is_some() && b.offset != buffers[s].offset => format!(
                "`{}` is in place of `{source}`, so its `offset` is `{source}`'s: give both the same offset, or neither",
                b.name
            ),
            Some(&s) => {
                buffers[i].in_place_of = Some(s);
                continue;
            }
            None if faulty_buffers.contains(&source) => continue,
            None => format!(
                "`{}` is in place of `{source}`, which `buffers` does not declare",
                b.name
            ),
        };
        let e = FileError::at(file, b.line, b.column, message);
        faults.push(sources_at[i] as u64, e);
    }
    faults.finish()?;
    Ok(PlanFile {
        file: file.to_string(),
        format: Format::Json,
        name: doc.name,
        regions,
        buffers,
        buffer_sizes: Vec::new(),
    })
}

/// The `name` of an entry that does not read as a whole, if it is a string.
fn name_of(raw: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct Named {
        name: Option<String>,
    }
    serde_json::from_str::<Named>(raw.get()).ok()?.name
}

/// The checks of one buffer entry, in this order: an empty name, `last < first`, an
/// alignment, its region, a field of version 2 in a version-1 file, its `dtype`, a name
/// given before (on line `earlier`). Its lifetime, region (`None` when it names a faulty
/// region: the buffer is left out, and not faulted for it) and element type, or the first
/// fault.
#[allow(clippy::type_complexity)]
fn buffer(
    b: &JsonBuffer,
    version: Option<u64>,
    region_index: &std::collections::HashMap<String, usize>,
    faulty_regions: &std::collections::HashSet<String>,
    earlier: Option<u64>,
) -> Result<(Lifetime, Option<Option<usize>>, Option<Primitive>), String> {
    if b.name.is_empty() {
        return Err("a buffer has an empty name".to_string());
    }
    let Some(lifetime) = Lifetime::new(b.first, b.last) else {
        return Err(format!(
            "`{}` has an empty lifetime: last {} < first {}",
            b.name, b.last, b.first
        ));
    };
    if let Some(a) = b
        .align
        .filter(|&a| !(a.is_power_of_two() && a <= MAX_ALIGN))
    {
        return Err(format!(
            "`{}`: alignment {a} is not a power of two at most {MAX_ALIGN}",
            b.name
        ));
    }
    let region = match &b.region {
        None => Some(None),
        Some(name) => match region_index.get(name) {
            Some(&r) => Some(Some(r)),
            None if faulty_regions.contains(name) => None,
            None => {
                return Err(format!(
                    "`{}` names region `{name}`, which `regions` does not declare",
                    b.name
                ));
            }
        },
    };
    if version == Some(1) && b.needs_version_2() {
        let field = if b.dtype.is_some() {
            "dtype"
        } else {
            "in_place_of"
        };
        return Err(format!(
            "`{}`: `{field}` is a field of version 2, and the file says `\"version\": 1`",
            b.name
        ));
    }
    let element = match &b.dtype {
        None => None,
        Some(name) => match primitive(name) {
            Some(p) if b.size.is_multiple_of(p.size()) => Some(p),
            Some(p) => {
                return Err(format!(
                    "`{}`: {} bytes are not a whole number of `{name}` elements ({} bytes each)",
                    b.name,
                    b.size,
                    p.size()
                ));
            }
            None => {
                return Err(format!(
                    "`{}`: `dtype` `{name}` is not a Rust primitive (i8, u8, i16, u16, i32, u32, i64, u64, f32, f64); leave it out for bytes",
                    b.name
                ));
            }
        },
    };
    if let Some(prev) = earlier {
        return Err(format!(
            "`{}` is named twice (first on line {prev})",
            b.name
        ));
    }
    Ok((lifetime, region, element))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regions_buffers_and_where_each_buffer_starts() {
        let text = "{\n  \"regions\": [{\"name\": \"sram\", \"capacity\": 64}],\n  \"buffers\": [\n    {\"name\": \"a\", \"size\": 16, \"first\": 0, \"last\": 1, \"region\": \"sram\", \"offset\": 0}\n  ]\n}\n";
        let p = parse_json(text, "p.json").unwrap();
        assert_eq!(p.regions[0].capacity, Some(64));
        assert_eq!(p.regions[0].align, None);
        let a = &p.buffers[0];
        assert_eq!((a.region, a.offset, a.size), (Some(0), Some(0), 16));
        assert_eq!((a.line, a.column), (4, 5));
    }

    #[test]
    fn malformed_json_and_wrong_types_carry_serde_json_s_line_and_column() {
        // A missing comma after `"size": 16` on line 3: serde_json stops at the next key.
        let text =
            "{\"buffers\": [\n  {\"name\": \"a\",\n   \"size\": 16 \"first\": 0, \"last\": 0}\n]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(15)));
        assert_eq!(e.to_string(), "p.json:3:15: expected `,` or `}`");
        // A negative size: the column is after the value.
        let text = "{\"buffers\": [{\"name\": \"a\", \"size\": -1, \"first\": 0, \"last\": 0}]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(37)));
        assert!(e.message.contains("invalid value: integer `-1`"), "{e}");
        // An unknown field.
        let text = "{\"buffers\": [{\"name\": \"a\", \"sise\": 1, \"first\": 0, \"last\": 0}]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.starts_with("unknown field `sise`"), "{e}");
    }

    #[test]
    fn rule_errors_point_at_the_object() {
        let text = "{\"buffers\": [\n  {\"name\": \"a\", \"size\": 1, \"first\": 0, \"last\": 0},\n  {\"name\": \"b\", \"size\": 1, \"first\": 3, \"last\": 2}\n]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json:3:3: `b` has an empty lifetime: last 2 < first 3"
        );
        let text = "{\"buffers\": [{\"name\": \"a\", \"size\": 1, \"first\": 0, \"last\": 0},\n {\"name\": \"a\", \"size\": 1, \"first\": 0, \"last\": 0}]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json:2:2: `a` is named twice (first on line 1)"
        );
        let text = "{\"regions\": [{\"name\": \"r\", \"align\": 24}], \"buffers\": []}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(14)));
        let text = "{\"buffers\": [{\"name\": \"a\", \"size\": 1, \"first\": 0, \"last\": 0, \"region\": \"x\"}]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert!(
            e.message.contains("which `regions` does not declare"),
            "{e}"
        );
    }

    #[test]
    fn every_faulty_entry_is_an_error_of_its_own_in_file_order() {
        let text = r#"{"regions": [
  {"name": "sram", "capacity": 64, "align": 24},
  {"name": "dtcm"},
  {"name": "dtcm"}
], "buffers": [
  {"name": "a", "size": -1, "first": 0, "last": 0},
  {"name": "b", "size": 1, "first": 3, "last": 2},
  {"name": "c", "size": 1, "first": 0, "last": 0, "region": "sram"},
  {"name": "d", "size": 1, "first": 0, "last": 0, "region": "x"},
  {"name": "e", "size": 1, "first": 0, "last": 0, "in_place_of": "b"},
  {"name": "f", "size": 1, "first": 0, "last": 0, "in_place_of": "nope"},
  {"name": "c", "size": 1, "first": 0, "last": 0},
  {"name": "g", "sise": 1, "first": 0, "last": 0},
  {"name": "", "size": 1, "first": 0, "last": 0}
]}"#;
        let e = parse_json(text, "p.json").unwrap_err();
        // `c` names the faulty region `sram`, `e` is in place of the faulty `b`: neither is
        // reported for it. `f`'s fault, found after every entry is read, is in file order.
        assert_eq!(
            e.lines(),
            [
                "p.json:2:3: region `sram`: alignment 24 is not a power of two at most 65536",
                "p.json:4:3: region `dtcm` is declared twice",
                "p.json:6:26: invalid value: integer `-1`, expected u64",
                "p.json:7:3: `b` has an empty lifetime: last 2 < first 3",
                "p.json:9:3: `d` names region `x`, which `regions` does not declare",
                "p.json:11:3: `f` is in place of `nope`, which `buffers` does not declare",
                "p.json:12:3: `c` is named twice (first on line 8)",
                "p.json:13:22: unknown field `sise`, expected one of `name`, `size`, `first`, `last`, `region`, `align`, `offset`, `dtype`, `in_place_of`",
                "p.json: and 1 more faulty entry",
            ]
        );
        assert_eq!((e.more.len(), e.unlisted), (crate::LISTED - 1, 1));
        // Many faulty entries: the first LISTED, then how many more.
        let entries: Vec<String> = (0..11)
            .map(|i| format!("{{\"name\": \"b{i}\", \"size\": 1, \"first\": 1, \"last\": 0}}"))
            .collect();
        let text = format!("{{\"buffers\": [\n{}\n]}}", entries.join(",\n"));
        let lines = parse_json(&text, "p.json").unwrap_err().lines();
        assert_eq!(lines.len(), crate::LISTED + 1);
        assert_eq!(
            lines[7],
            "p.json:9:1: `b7` has an empty lifetime: last 0 < first 1"
        );
        assert_eq!(lines[8], "p.json: and 3 more faulty entries");
        // serde_json's place inside an entry of several lines is the file's.
        let text = "{\"buffers\": [{\"name\": \"\", \"size\": 1, \"first\": 0, \"last\": 0},\n {\"name\": \"a\",\n  \"size\": -1, \"first\": 0, \"last\": 0}]}";
        assert_eq!(
            parse_json(text, "p.json").unwrap_err().lines(),
            [
                "p.json:1:14: a buffer has an empty name",
                "p.json:3:12: invalid value: integer `-1`, expected u64",
            ]
        );
        // A fault that stops the reader is alone: malformed JSON in the second entry.
        let text = "{\"buffers\": [{\"name\": \"\", \"size\": 1, \"first\": 0, \"last\": 0},\n {\"name\": \"a\" \"size\": 1}]}";
        let e = parse_json(text, "p.json").unwrap_err();
        assert_eq!(e.lines(), ["p.json:2:15: expected `,` or `}`"]);
    }

    #[test]
    fn an_entry_that_does_not_read_keeps_its_name() {
        // Region `r` and buffer `a` do not read (a negative capacity, a negative size): `b`
        // in `r` and `c` in place of `a` are not faulted for them; a second `a` is named
        // twice, and so is a second region `r`.
        let text = r#"{"regions": [
  {"name": "r", "capacity": -1},
  {"name": "r"}
], "buffers": [
  {"name": "a", "size": -1, "first": 0, "last": 0},
  {"name": "b", "size": 1, "first": 0, "last": 0, "region": "r"},
  {"name": "c", "size": 1, "first": 0, "last": 0, "in_place_of": "a"},
  {"name": "a", "size": 1, "first": 0, "last": 0}
]}"#;
        assert_eq!(
            parse_json(text, "p.json").unwrap_err().lines(),
            [
                "p.json:2:30: invalid value: integer `-1`, expected u64",
                "p.json:3:3: region `r` is declared twice",
                "p.json:5:26: invalid value: integer `-1`, expected u64",
                "p.json:8:3: `a` is named twice (first on line 5)",
            ]
        );
    }

    #[test]
    fn version_2_reads_element_types_and_in_place_sources() {
        let text = r#"{"version": 2, "buffers": [
  {"name": "y", "size": 48, "first": 2, "last": 3, "in_place_of": "x", "dtype": "float32"},
  {"name": "x", "size": 48, "first": 0, "last": 2, "dtype": "f32"},
  {"name": "z", "size": 5, "first": 0, "last": 0}
]}"#;
        let p = parse_json(text, "p.json").unwrap();
        assert_eq!(p.buffers[0].in_place_of, Some(1));
        assert_eq!(p.buffers[0].element, Some(Primitive::F32));
        assert_eq!(p.buffers[1].element, Some(Primitive::F32));
        assert_eq!(
            (p.buffers[2].element, p.buffers[2].in_place_of),
            (None, None)
        );
        let problem = p.problem(&Default::default()).unwrap();
        assert_eq!(problem.buffers[0].in_place_of, Some(1));
        // Without a version the new fields read too; version 1 says they are not its own.
        assert!(parse_json(&text.replace("\"version\": 2, ", ""), "p.json").is_ok());
        let e =
            parse_json(&text.replace("\"version\": 2", "\"version\": 1"), "p.json").unwrap_err();
        assert_eq!(
            e.lines(),
            [
                "p.json:2:3: `y`: `dtype` is a field of version 2, and the file says `\"version\": 1`",
                "p.json:3:3: `x`: `dtype` is a field of version 2, and the file says `\"version\": 1`"
            ]
        );
        let e = parse_json(
            &text.replace("\"x\", \"dtype\": \"float32\"", "\"w\""),
            "p.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json:2:3: `y` is in place of `w`, which `buffers` does not declare"
        );
        let e = parse_json(&text.replace("\"f32\"", "\"bool\""), "p.json").unwrap_err();
        assert!(
            e.message.contains("`dtype` `bool` is not a Rust primitive"),
            "{e}"
        );
        let e = parse_json(
            &text.replace("\"size\": 5,", "\"size\": 5, \"dtype\": \"i16\","),
            "p.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json:4:3: `z`: 5 bytes are not a whole number of `i16` elements (2 bytes each)"
        );
        // An in-place buffer's offset is its source's.
        let pinned = text
            .replace(
                "\"in_place_of\": \"x\",",
                "\"in_place_of\": \"x\", \"offset\": 64,",
            )
            .replace("\"dtype\": \"f32\"", "\"dtype\": \"f32\", \"offset\": 0");
        let e = parse_json(&pinned, "p.json").unwrap_err();
        assert!(
            e.message.contains("give both the same offset, or neither"),
            "{e}"
        );
        let agreeing = pinned.replace("\"offset\": 64", "\"offset\": 0");
        let problem = parse_json(&agreeing, "p.json")
            .unwrap()
            .problem(&Default::default())
            .unwrap();
        assert_eq!(
            (problem.buffers[0].pin, problem.buffers[1].pin),
            (None, Some(0))
        );
        assert_eq!(
            parse_json(r#"{"version": 3, "buffers": []}"#, "p.json")
                .unwrap_err()
                .message,
            "`version` is 3: this reader knows versions 1 and 2"
        );
    }
}
