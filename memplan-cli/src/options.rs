//! Options shared by the commands that plan: how a file becomes a problem and how it is
//! planned, and how sizes are written on the command line.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use memplan_planner::{DEFAULT_REGION_ALIGN, MAX_ALIGN, Region, Strategy};

/// How a plan file becomes a planning problem, and how it is planned.
#[derive(Args, Debug, Clone, Default)]
pub struct ProblemArgs {
    /// The strategy: greedy, best_of, optimal or optimal(nodes = N). Default: the
    /// invocation's own for a .rs file, else optimal(nodes = 38000).
    #[arg(long, value_name = "S", value_parser = parse_strategy)]
    pub strategy: Option<Strategy>,
    /// The capacity of the one region of a CSV file (or of a JSON file without regions),
    /// in bytes (`65536`, `64KiB`, `1MiB`). Default: unbounded.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub capacity: Option<u64>,
    /// The alignment, in bytes, of the one region of a CSV file (or of a JSON file without
    /// regions). Default: 16 for ExecuTorch and placed CSV, 1 for MiniMalloc CSV.
    #[arg(long, value_name = "N", value_parser = parse_align)]
    pub align: Option<u64>,
    /// Plan into these regions instead, in memory-id order: NAME:SIZE or NAME:SIZE:ALIGN
    /// (default alignment 16). Repeat for several; with more than one, buffers that name
    /// no region are spilled to the first that can take them, as memory_plan! spills a
    /// buffer without `in`.
    #[arg(long = "region", value_name = "NAME:SIZE", value_parser = parse_region)]
    pub regions: Vec<Region>,
    /// Where `buffers ... from out_dir "..."` files are, for a .rs FILE (the crate's
    /// OUT_DIR); default: the OUT_DIR environment variable.
    #[arg(long, value_name = "DIR", env = "OUT_DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Where the offsets come from.
#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Offsets {
    /// The file's own for a placed CSV (`name,offset,size,first,last`), planned for every
    /// other input.
    #[default]
    Auto,
    /// Planned by memplan (an ExecuTorch file's offsets are ignored, as memory_plan!
    /// ignores them; JSON offsets are pins).
    Plan,
    /// The file's own: ExecuTorch's offsets (by memory id), a placed CSV's, or JSON's
    /// `offset` (every buffer needs one).
    File,
}

/// Output format of `memplan plan`.
#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// A report for people.
    #[default]
    Text,
    /// One JSON object (documented in memplan-cli/JSON.md).
    Json,
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse::<Strategy>().map_err(|e| e.to_string())
}

/// A byte count: `N`, `N bytes`, `N KiB`, `N MiB` or `N GiB` (spaces optional).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count: write N, N KiB, N MiB or N GiB"))?;
    let scale: u64 = match unit.trim() {
        "" | "bytes" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}`: use KiB, MiB or GiB"
            ));
        }
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is more than 2^64 - 1 bytes"))
}

/// An alignment: a power of two, at most [`MAX_ALIGN`] bytes.
pub fn parse_align(text: &str) -> Result<u64, String> {
    let a = parse_size(text)?;
    if a.is_power_of_two() && a <= MAX_ALIGN {
        Ok(a)
    } else {
        Err(format!(
            "alignment {a} is not a power of two at most {MAX_ALIGN}"
        ))
    }
}

/// `NAME:SIZE` or `NAME:SIZE:ALIGN`.
fn parse_region(text: &str) -> Result<Region, String> {
    let mut parts = text.split(':');
    let name = parts.next().unwrap_or("").trim();
    let (Some(size), align) = (parts.next(), parts.next()) else {
        return Err(format!(
            "`{text}`: write a region as NAME:SIZE or NAME:SIZE:ALIGN"
        ));
    };
    if name.is_empty() || parts.next().is_some() {
        return Err(format!(
            "`{text}`: write a region as NAME:SIZE or NAME:SIZE:ALIGN"
        ));
    }
    Ok(Region {
        name: name.to_string(),
        capacity: parse_size(size)?,
        align: match align {
            Some(a) => parse_align(a)?,
            None => DEFAULT_REGION_ALIGN,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_regions_read_as_the_language_writes_them() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1 MiB"), Ok(1 << 20));
        assert!(parse_size("1.5MiB").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("17179869184 GiB").is_err());
        assert_eq!(
            parse_region("sram:64KiB:32"),
            Ok(Region {
                name: "sram".into(),
                capacity: 65536,
                align: 32
            })
        );
        assert_eq!(parse_region("tcm:16").map(|r| r.align), Ok(16));
        assert!(parse_region("tcm").is_err());
        assert!(parse_region(":16").is_err());
        assert!(parse_region("tcm:16:24").is_err());
        assert_eq!(parse_align("64"), Ok(64));
        assert!(parse_align("0").is_err());
        assert!(parse_align("131072").is_err());
    }
}
