//! The crate's `memory.x`: the MEMORY regions of its linker script (name, attributes,
//! origin, length), so that a region or pool placed with `memory M` is checked against its
//! bank when the crate is compiled, not only when it is linked: `M` exists, is writable
//! RAM, and its `LENGTH` holds the capacity and the planned bytes of every arena placed in
//! it.
//!
//! The grammar read is the MEMORY command of GNU ld's and LLVM lld's linker scripts
//! (`NAME [(ATTR)] : ORIGIN = EXPR, LENGTH = EXPR`, with `org`, `o`, `len`, `l`), comments
//! `/* ... */`; an `EXPR` of numbers (decimal, `0x` hex, `K` and `M` suffixes) with `+ - *
//! /` and parentheses. A length it cannot evaluate (a symbol, a function) is unknown: the
//! bank is then not checked at compile time, only by the fragment's link-time `ASSERT`.

use std::path::{Path, PathBuf};

/// One MEMORY region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bank {
    /// Its name.
    pub name: String,
    /// Its attributes as written (`rwx`, `rx`, `!w`), empty when none are.
    pub attributes: String,
    /// Its length in bytes, when the expression is numbers.
    pub length: Option<u64>,
}

impl Bank {
    /// Whether the bank holds writable RAM. With attributes, as the linker reads them
    /// (before `!` the sections it takes, after `!` those it refuses): `w` among the first,
    /// or none taken and `w` not refused (`(!x)` takes data). Without attributes the linker
    /// would place anything there, so the name decides: one that says flash or ROM
    /// (`FLASH`, `ROM`, `EEPROM`, `OTP`, any case) is not RAM.
    pub fn writable(&self) -> bool {
        if self.attributes.is_empty() {
            let n = self.name.to_ascii_uppercase();
            return !["FLASH", "ROM", "OTP"].iter().any(|k| n.contains(k));
        }
        let (taken, refused) = match self.attributes.split_once('!') {
            Some((t, r)) => (t, r),
            None => (self.attributes.as_str(), ""),
        };
        let has_w = |s: &str| s.chars().any(|c| c == 'w' || c == 'W');
        has_w(taken) || (taken.trim().is_empty() && !has_w(refused))
    }
}

/// A `memory.x` read, or where it was looked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MemoryX {
    /// The file, when one was found.
    pub path: Option<PathBuf>,
    /// Its MEMORY regions.
    pub banks: Vec<Bank>,
    /// Where it was looked for, in order.
    pub searched: Vec<PathBuf>,
    /// Why the file found could not be read, if it could not.
    pub error: Option<String>,
}

impl MemoryX {
    /// The `memory.x` of a crate: `memory.x` in its package root, else in its `OUT_DIR`
    /// (where cortex-m-rt's build-script convention copies it).
    pub fn find(root: Option<&Path>, out_dir: Option<&Path>) -> MemoryX {
        let mut out = MemoryX::default();
        for dir in [root, out_dir].into_iter().flatten() {
            let path = dir.join("memory.x");
            out.searched.push(path.clone());
            // A path that names nothing is looked past; one that names a folder, a FIFO or
            // a device is found, and refused without being opened.
            if std::fs::metadata(&path).is_err() {
                continue;
            }
            match memplan_planner::files::read_text(&path) {
                Ok(text) => out.banks = parse(&text),
                Err(e) => out.error = Some(e),
            }
            out.path = Some(path);
            break;
        }
        out
    }

    /// The bank named `name`.
    pub fn bank(&self, name: &str) -> Option<&Bank> {
        self.banks.iter().find(|b| b.name == name)
    }
}

/// The MEMORY regions of a linker script's text (none when it has no MEMORY command).
pub fn parse(text: &str) -> Vec<Bank> {
    let text = strip_comments(text);
    let Some(start) = find_word(&text, "MEMORY") else {
        return Vec::new();
    };
    let rest = &text[start + "MEMORY".len()..];
    let Some(open) = rest.find('{') else {
        return Vec::new();
    };
    let body = &rest[open + 1..];
    let body = &body[..body.find('}').unwrap_or(body.len())];
    let mut banks = Vec::new();
    // Each entry ends where the next name starts: split at the `:` of each entry.
    let mut entries: Vec<&str> = Vec::new();
    let mut last = 0;
    // Just after the last `,`, newline or `;` seen.
    let mut after_separator = 0;
    for (i, c) in body.char_indices() {
        if matches!(c, ',' | '\n' | ';') {
            after_separator = i + 1;
        }
        if c == ':' {
            // The entry's head is the last word (and attributes) before the colon.
            let head_start = after_separator.max(last);
            if last < head_start {
                entries.push(&body[last..head_start]);
            }
            last = head_start;
        }
    }
    entries.push(&body[last..]);
    for entry in entries {
        let Some((head, fields)) = entry.split_once(':') else {
            continue;
        };
        let head = head.trim();
        let (name, attributes) = match head.split_once('(') {
            Some((n, a)) => (n.trim(), a.trim_end_matches(')').trim()),
            None => (head, ""),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            continue;
        }
        let mut length = None;
        for field in fields.split(',') {
            let Some((key, value)) = field.split_once('=') else {
                continue;
            };
            if matches!(key.trim(), "LENGTH" | "len" | "l") {
                length = eval(value.trim());
            }
        }
        banks.push(Bank {
            name: name.to_string(),
            attributes: attributes.to_string(),
            length,
        });
    }
    banks
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        match rest[i + 2..].find("*/") {
            Some(j) => rest = &rest[i + 2 + j + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The byte position of `word` as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident(before) && !ident(after) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The value of an expression of numbers, `+ - * /` and parentheses; `None` for anything
/// else, or on overflow.
fn eval(expr: &str) -> Option<u64> {
    let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pos = 0;
    let v = sum(&tokens, &mut pos, 0)?;
    (pos == tokens.len()).then_some(v)
}

/// Parentheses nested deeper than this make a length unknown (each level is a recursion of
/// the evaluator, so an unbounded depth could overflow rustc's stack).
const MAX_DEPTH: usize = 32;

fn sum(t: &[char], pos: &mut usize, depth: usize) -> Option<u64> {
    let mut v = product(t, pos, depth)?;
    while let Some(&op) = t.get(*pos) {
        match op {
            '+' => {
                *pos += 1;
                v = v.checked_add(product(t, pos, depth)?)?;
            }
            '-' => {
                *pos += 1;
                v = v.checked_sub(product(t, pos, depth)?)?;
            }
            _ => break,
        }
    }
    Some(v)
}

fn product(t: &[char], pos: &mut usize, depth: usize) -> Option<u64> {
    let mut v = atom(t, pos, depth)?;
    while let Some(&op) = t.get(*pos) {
        match op {
            '*' => {
                *pos += 1;
                v = v.checked_mul(atom(t, pos, depth)?)?;
            }
            '/' => {
                *pos += 1;
                v = v.checked_div(atom(t, pos, depth)?)?;
            }
            _ => break,
        }
    }
    Some(v)
}

fn atom(t: &[char], pos: &mut usize, depth: usize) -> Option<u64> {
    if t.get(*pos) == Some(&'(') {
        if depth == MAX_DEPTH {
            return None;
        }
        *pos += 1;
        let v = sum(t, pos, depth + 1)?;
        (t.get(*pos) == Some(&')')).then(|| *pos += 1)?;
        return Some(v);
    }
    let start = *pos;
    while t.get(*pos).is_some_and(|c| c.is_ascii_alphanumeric()) {
        *pos += 1;
    }
    let word: String = t[start..*pos].iter().collect();
    let (digits, scale) = match word.chars().last()? {
        'K' | 'k' => (&word[..word.len() - 1], 1024),
        'M' | 'm' => (&word[..word.len() - 1], 1024 * 1024),
        _ => (&word[..], 1),
    };
    let n = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u64>().ok()?,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_memory_command_of_a_cortex_m_memory_x() {
        // This repository's examples/firmware/memory.x, and the attribute and expression
        // forms of GNU ld's manual (3.7 "MEMORY Command").
        let text = "/* QEMU's mps2-an386 */\nMEMORY\n{\n  FLASH : ORIGIN = 0x00000000, LENGTH = 4M\n  RAM   : ORIGIN = 0x20000000, LENGTH = 2M\n  SRAM3 (rwx) : ORIGIN = 0x20200000, len = 64K - 0x10\n  ROM (rx) : org = 0, l = 0x8000\n  CCM (!x) : ORIGIN = 0x10000000, LENGTH = (2 * 32) * 1K\n  ODD : ORIGIN = 0, LENGTH = _stack_size\n}\n";
        let banks = parse(text);
        let got: Vec<(&str, &str, Option<u64>, bool)> = banks
            .iter()
            .map(|b| {
                (
                    b.name.as_str(),
                    b.attributes.as_str(),
                    b.length,
                    b.writable(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("FLASH", "", Some(4 << 20), false),
                ("RAM", "", Some(2 << 20), true),
                ("SRAM3", "rwx", Some(65536 - 16), true),
                ("ROM", "rx", Some(0x8000), false),
                ("CCM", "!x", Some(65536), true),
                ("ODD", "", None, true),
            ]
        );
    }

    #[test]
    fn no_memory_command_is_no_bank() {
        assert_eq!(parse("SECTIONS { .text : { *(.text) } }"), []);
    }

    #[test]
    fn parentheses_nested_a_million_deep_are_an_unknown_length_not_a_stack_overflow() {
        let deep = |n: usize| {
            format!(
                "MEMORY {{ RAM : ORIGIN = 0, LENGTH = {}4K{} }}",
                "(".repeat(n),
                ")".repeat(n)
            )
        };
        assert_eq!(parse(&deep(MAX_DEPTH))[0].length, Some(4096));
        assert_eq!(parse(&deep(MAX_DEPTH + 1))[0].length, None);
        assert_eq!(parse(&deep(1_000_000))[0].length, None);
    }

    #[test]
    fn a_megabyte_of_colons_is_read_in_linear_time() {
        // Each colon once searched back to the start of the MEMORY command: 10^12 steps.
        let text = format!(
            "MEMORY {{ RAM : ORIGIN = 0, LENGTH = 4K{} }}",
            ":".repeat(1 << 20)
        );
        let banks = parse(&text);
        assert_eq!(banks[0].name, "RAM");
    }
}
