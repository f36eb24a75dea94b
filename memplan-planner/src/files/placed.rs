//! A plan with its offsets: `name,offset,size,first,last` (inclusive lifetimes, bytes), the
//! CSV that `memplan-bench --write-plans` writes, one row per buffer of one region.

use super::error::FileError;
use super::rows::{named, parse_rows};
use crate::problem::{Lifetime, Step};

/// One buffer of a placed plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedRow {
    /// The buffer's name, unique in the file.
    pub name: String,
    /// Its offset in the region, in bytes.
    pub offset: u64,
    /// Its size, in bytes.
    pub size: u64,
    /// First step live, inclusive.
    pub first: Step,
    /// Last step live, inclusive.
    pub last: Step,
}

impl PlacedRow {
    /// The row's lifetime.
    pub fn lifetime(&self) -> Lifetime {
        Lifetime {
            first: self.first,
            last: self.last,
        }
    }
}

/// The columns a placed plan's header has (at least).
pub const HEADER: [&str; 5] = ["name", "offset", "size", "first", "last"];

/// Parses a placed plan's text. `file` names it in errors. Each row comes with its 1-based
/// line.
///
/// # Errors
///
/// As [`parse_executorch`](super::parse_executorch): a missing column (alone), else every
/// faulty row (a malformed row, a non-integer field, `last < first`, an empty name, a name
/// used twice), in file order.
pub fn parse_placed(text: &str, file: &str) -> Result<Vec<(u64, PlacedRow)>, FileError> {
    parse_rows(
        text,
        file,
        &HEADER,
        |f| {
            Ok(PlacedRow {
                name: f.text("name"),
                offset: f.number("offset")?,
                size: f.number("size")?,
                first: f.number("first")?,
                last: f.number("last")?,
            })
        },
        named(|r: &PlacedRow| (r.name.as_str(), r.first, r.last)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_offsets_and_names_the_line_of_a_bad_field() {
        let rows = parse_placed("name,offset,size,first,last\na,16,32,0,2\n", "p.csv").unwrap();
        assert_eq!(rows[0].0, 2);
        assert_eq!(rows[0].1.offset, 16);
        assert_eq!(rows[0].1.lifetime(), Lifetime { first: 0, last: 2 });
        let e = parse_placed(
            "name,offset,size,first,last\na,16,32,0,2\nb,x,1,0,0\n",
            "p.csv",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:3: column 2 (`offset`): `x` is not a whole number in range"
        );
    }
}
