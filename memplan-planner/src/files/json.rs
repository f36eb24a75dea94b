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
//! the offending region or buffer object for the rules above.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::error::FileError;
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
        FileError::at(
            file,
            e.line() as u64,
            e.column() as u64,
            text.strip_suffix(&suffix).unwrap_or(&text),
        )
    };
    let doc: JsonPlan = serde_json::from_str(text).map_err(serde_error)?;
    let places: Places<'_> = serde_json::from_str(text).map_err(serde_error)?;
    let positions = std::cell::RefCell::new(Positions::new(text));
    let at = |raw: Option<&&RawValue>, message: String| {
        let offset = raw.map_or(0, |r| r.get().as_ptr() as usize - text.as_ptr() as usize);
        let (line, column) = positions.borrow_mut().at(offset);
        FileError::at(file, line, column, message)
    };
    if let Some(v) = doc.version.filter(|&v| v != 1 && v != 2) {
        return Err(at(
            None,
            format!("`version` is {v}: this reader knows versions 1 and 2"),
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
    let mut sources = Vec::with_capacity(doc.buffers.len());
    let mut index_of = std::collections::HashMap::new();
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
        if doc.version == Some(1) && b.needs_version_2() {
            let field = if b.dtype.is_some() {
                "dtype"
            } else {
                "in_place_of"
            };
            return Err(at(
                raw,
                format!(
                    "`{}`: `{field}` is a field of version 2, and the file says `\"version\": 1`",
                    b.name
                ),
            ));
        }
        let element = match &b.dtype {
            None => None,
            Some(name) => match primitive(name) {
                Some(p) if b.size.is_multiple_of(p.size()) => Some(p),
                Some(p) => {
                    return Err(at(
                        raw,
                        format!(
                            "`{}`: {} bytes are not a whole number of `{name}` elements ({} bytes each)",
                            b.name,
                            b.size,
                            p.size()
                        ),
                    ));
                }
                None => {
                    return Err(at(
                        raw,
                        format!(
                            "`{}`: `dtype` `{name}` is not a Rust primitive (i8, u8, i16, u16, i32, u32, i64, u64, f32, f64); leave it out for bytes",
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
    }
    // `in_place_of` names any buffer of the file, before or after it.
    for (i, source) in sources.into_iter().enumerate() {
        let Some(source) = source else { continue };
        match index_of.get(&source) {
            Some(&s) if buffers[i].offset.is_some() && buffers[i].offset != buffers[s].offset => {
                return Err(at(
                    places.buffers.get(i),
                    format!(
                        "`{}` is in place of `{source}`, so its `offset` is `{source}`'s: give both the same offset, or neither",
                        buffers[i].name
                    ),
                ));
            }
            Some(&s) => buffers[i].in_place_of = Some(s),
            None => {
                return Err(at(
                    places.buffers.get(i),
                    format!(
                        "`{}` is in place of `{source}`, which `buffers` does not declare",
                        buffers[i].name
                    ),
                ));
            }
        }
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
            e.to_string(),
            "p.json:2:3: `y`: `dtype` is a field of version 2, and the file says `\"version\": 1`"
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
