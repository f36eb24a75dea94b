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
//! | `version` | integer, optional | the schema's version: `1` (the only one) |
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
//!
//! Numbers are JSON integers (no fractions, no exponents, not negative). Unknown fields are
//! errors, so a misspelt field is never silently ignored. Every error names the file, the
//! line and the column: serde_json's own for malformed JSON and wrong types, the start of
//! the offending region or buffer object for the rules above.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::error::FileError;
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
}

/// The same document, read again for where each region and buffer object starts.
#[derive(Deserialize)]
struct Places<'a> {
    #[serde(borrow, default)]
    regions: Vec<&'a RawValue>,
    #[serde(borrow)]
    buffers: Vec<&'a RawValue>,
}

/// Parses a JSON plan file's text. `file` names it in errors.
///
/// # Errors
///
/// A [`FileError`] with the file, line and column: malformed JSON, a missing or unknown
/// field, a value of the wrong type or out of range (serde_json's message, at its place);
/// `version` other than 1; an empty or repeated name; a region named by a buffer that is
/// not declared; an alignment that is not a power of two at most 65536; `last < first`.
pub fn parse_json(text: &str, file: &str) -> Result<PlanFile, FileError> {
    let serde_error = |e: serde_json::Error| {
        let text = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        FileError {
            file: file.to_string(),
            line: Some(e.line() as u64),
            column: Some(e.column() as u64),
            message: text.strip_suffix(&suffix).unwrap_or(&text).to_string(),
        }
    };
    let doc: JsonPlan = serde_json::from_str(text).map_err(serde_error)?;
    let places: Places<'_> = serde_json::from_str(text).map_err(serde_error)?;
    let positions = std::cell::RefCell::new(Positions::new(text));
    let at = |raw: Option<&&RawValue>, message: String| {
        let offset = raw.map_or(0, |r| r.get().as_ptr() as usize - text.as_ptr() as usize);
        let (line, column) = positions.borrow_mut().at(offset);
        FileError {
            file: file.to_string(),
            line: Some(line),
            column: Some(column),
            message,
        }
    };
    if let Some(v) = doc.version.filter(|&v| v != 1) {
        return Err(at(
            None,
            format!("`version` is {v}: this reader knows version 1"),
        ));
    }
    let valid_align = |a: u64| a.is_power_of_two() && a <= MAX_ALIGN;
    let mut regions = Vec::with_capacity(doc.regions.len());
    let mut region_index = std::collections::HashMap::new();
    for (i, r) in doc.regions.into_iter().enumerate() {
        let raw = places.regions.get(i);
        if r.name.is_empty() {
            return Err(at(raw, "a region has an empty name".to_string()));
        }
        if let Some(a) = r.align.filter(|&a| !valid_align(a)) {
            return Err(at(
                raw,
                format!(
                    "region `{}`: alignment {a} is not a power of two at most {MAX_ALIGN}",
                    r.name
                ),
            ));
        }
        if region_index.insert(r.name.clone(), i).is_some() {
            return Err(at(raw, format!("region `{}` is declared twice", r.name)));
        }
        regions.push(FileRegion {
            name: r.name,
            capacity: r.capacity,
            align: r.align,
        });
    }
    let mut buffers = Vec::with_capacity(doc.buffers.len());
    let mut seen = std::collections::HashMap::new();
    for (i, b) in doc.buffers.into_iter().enumerate() {
        let raw = places.buffers.get(i);
        let (line, column) = raw.map_or((1, 1), |r| {
            positions
                .borrow_mut()
                .at(r.get().as_ptr() as usize - text.as_ptr() as usize)
        });
        if b.name.is_empty() {
            return Err(at(raw, "a buffer has an empty name".to_string()));
        }
        let Some(lifetime) = Lifetime::new(b.first, b.last) else {
            return Err(at(
                raw,
                format!(
                    "`{}` has an empty lifetime: last {} < first {}",
                    b.name, b.last, b.first
                ),
            ));
        };
        if let Some(a) = b.align.filter(|&a| !valid_align(a)) {
            return Err(at(
                raw,
                format!(
                    "`{}`: alignment {a} is not a power of two at most {MAX_ALIGN}",
                    b.name
                ),
            ));
        }
        let region = match &b.region {
            None => None,
            Some(name) => match region_index.get(name) {
                Some(&r) => Some(r),
                None => {
                    return Err(at(
                        raw,
                        format!(
                            "`{}` names region `{name}`, which `regions` does not declare",
                            b.name
                        ),
                    ));
                }
            },
        };
        if let Some(prev) = seen.insert(b.name.clone(), line) {
            return Err(at(
                raw,
                format!("`{}` is named twice (first on line {prev})", b.name),
            ));
        }
        buffers.push(FileBuffer {
            name: b.name,
            size: b.size,
            region,
            mem_id: None,
            align: b.align,
            offset: b.offset,
            column,
            ..FileBuffer::new(String::new(), 0, lifetime, line)
        });
    }
    Ok(PlanFile {
        file: file.to_string(),
        format: Format::Json,
        name: doc.name,
        regions,
        buffers,
    })
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
}
