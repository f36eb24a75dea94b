//! A plan's description for tools: its regions (capacity, planned bytes, lower bound, peak
//! step, alignment, whether proven optimal, search nodes, memory) and its buffers (region,
//! offset, size, lifetime), with the strategy. The same data gives the `REPORT` text
//! ([`PlanInfo::report`]) and travels with the firmware: on bare-metal targets the macro
//! embeds [`PlanInfo::encode`]'s bytes in a section, `.memplan.info`, that the generated
//! linker fragment marks non-allocated (`INFO`), so it costs no flash and no RAM on the
//! device, and `memplan inspect` reads it back ([`PlanInfo::decode_all`]), as defmt keeps
//! its interned strings in a non-loaded section.
//!
//! # Encoding (version 4)
//!
//! Text, one record per plan, fields separated by single spaces, names percent-encoded
//! (every byte outside `[A-Za-z0-9_.-]` as `%XX`):
//!
//! ```text
//! memplan-plan 4
//! plan NAME PACKAGE
//! strategy NAME NODES|-
//! source NAME BYTES SHA256
//! region NAME CAPACITY PLANNED LOWER_BOUND PEAK|- ALIGN OPTIMAL(0|1) NODES MEMORY|-
//! pool NAME BYTES ALIGN MEMORY|-
//! buffer NAME REGION OFFSET SIZE FIRST LAST
//! note TEXT
//! end
//! ```
//!
//! A `source` line per plan file or model the plan was read from (its length in bytes
//! and its SHA-256), a `pool` line per bump pool of the manager (`constant`, `runtime`,
//! `temp`), a `note` line per line the `REPORT` ends with (a `debug-canary` build's guard
//! bytes, how the lock file was used,
//! [`crate::Checked::report`]). Records follow each other in the section, perhaps with NUL
//! bytes between them (the statics' alignment). A reader also takes version 3 (the same
//! without `note` lines), version 2 (without `pool` lines either) and version 1 (without
//! `source` lines either), and refuses any other.

use memplan_planner::{Plan, Strategy};

pub use crate::lower::SourceFile;
use crate::lower::{ArenaPlace, Model};

/// The version of the encoding this crate writes and reads.
pub(crate) const VERSION: u32 = 4;

/// The name of the link section that holds the descriptions.
pub const SECTION: &str = ".memplan.info";

/// One plan's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanInfo {
    /// The plan's module path in its crate (`a::kws`; its module's name alone when the
    /// path is not known).
    pub plan: String,
    /// The package it is in (`crate` when unknown).
    pub package: String,
    /// The strategy that made it.
    pub strategy: Strategy,
    /// The plan files and models it was read from.
    pub sources: Vec<SourceFile>,
    /// Its regions, by memory id.
    pub regions: Vec<RegionSummary>,
    /// The manager's bump pools (`constant`, `runtime`, `temp`); empty in a description
    /// of version 1 or 2.
    pub pools: Vec<PoolSummary>,
    /// Its buffers, in declaration order.
    pub buffers: Vec<BufferSummary>,
    /// The lines the report ends with (guard bytes of a `debug-canary` build, how the lock
    /// file was used); empty in a description of version 1 to 3.
    pub notes: Vec<String>,
}

/// One bump pool of a [`PlanInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSummary {
    /// `constant`, `runtime` or `temp`.
    pub name: String,
    /// Its size, in bytes.
    pub bytes: u64,
    /// The alignment of its base, in bytes.
    pub align: u64,
    /// The MEMORY region it is placed in (`memory M`).
    pub memory: Option<String>,
}

/// One region of a [`PlanInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionSummary {
    /// The region's name.
    pub name: String,
    /// Its capacity, in bytes.
    pub capacity: u64,
    /// Its planned bytes.
    pub planned: u64,
    /// The most bytes live at one step.
    pub lower_bound: u64,
    /// The step where they are live.
    pub peak_step: Option<u32>,
    /// The arena's alignment, in bytes.
    pub align: u64,
    /// Whether the planned bytes are proven the fewest possible.
    pub proven_optimal: bool,
    /// Search nodes used.
    pub nodes: u64,
    /// The MEMORY region it is placed in (`memory M`).
    pub memory: Option<String>,
}

/// One buffer of a [`PlanInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSummary {
    /// The buffer's name.
    pub name: String,
    /// Its region (memory id).
    pub region: usize,
    /// Its offset in the region, in bytes.
    pub offset: u64,
    /// Its size, in bytes.
    pub size: u64,
    /// Its first live step.
    pub first: u32,
    /// Its last live step (inclusive).
    pub last: u32,
}

/// The bump pools of `model`, named, in the order `constant`, `runtime`, `temp`.
pub(crate) fn pools(model: &Model) -> Vec<PoolSummary> {
    model
        .pools
        .named()
        .into_iter()
        .map(|(name, p)| PoolSummary {
            name: name.to_string(),
            bytes: p.bytes,
            align: p.align,
            memory: p.memory.as_ref().map(ToString::to_string),
        })
        .collect()
}

impl PlanInfo {
    /// The description of `model` planned as `plan`.
    pub(crate) fn new(model: &Model, plan: &Plan) -> PlanInfo {
        PlanInfo {
            plan: crate::key::PlanKey::of(model).display().to_string(),
            package: model.package.clone(),
            strategy: plan.strategy,
            sources: model.sources.clone(),
            regions: model
                .regions
                .iter()
                .zip(&plan.regions)
                .map(|(r, rp)| RegionSummary {
                    name: r.region.name.clone(),
                    capacity: rp.capacity,
                    planned: rp.planned_bytes,
                    lower_bound: rp.lower_bound,
                    peak_step: rp.peak_step,
                    align: rp.align,
                    proven_optimal: rp.proven_optimal,
                    nodes: rp.search_nodes,
                    memory: match &r.place {
                        ArenaPlace::Memory(m) => Some(m.to_string()),
                        ArenaPlace::Bss | ArenaPlace::Section { .. } => None,
                    },
                })
                .collect(),
            pools: pools(model),
            buffers: model
                .buffers
                .iter()
                .zip(&plan.buffers)
                .map(|(b, pb)| BufferSummary {
                    name: b.buffer.name.clone(),
                    region: pb.region,
                    offset: pb.offset,
                    size: b.buffer.size,
                    first: b.buffer.lifetime.first,
                    last: b.buffer.lifetime.last,
                })
                .collect(),
            notes: model
                .canary
                .then(|| {
                    format!(
                        "debug-canary: {} guard bytes follow every buffer, counted in the planned bytes (a build without the feature plans without them)",
                        Model::CANARY
                    )
                })
                .into_iter()
                .chain(model.lock_note.iter().flat_map(|n| n.lines()).map(str::to_string))
                .collect(),
        }
    }

    /// The plan's `REPORT`: a table per region of capacity, planned bytes, lower bound,
    /// peak step, buffers, whether proven optimal, and search nodes, under a title with the
    /// strategy (and the node budget).
    pub fn report(&self) -> String {
        let strategy = match self.strategy.nodes() {
            Some(nodes) => format!("{}, budget {nodes} nodes", self.strategy.name()),
            None => self.strategy.name().to_string(),
        };
        let mut out = format!("memory plan `{}` (strategy {strategy})\n", self.plan);
        for f in &self.sources {
            out.push_str(&format!(
                "read from {} ({} bytes, sha256 {})\n",
                f.name, f.bytes, f.sha256
            ));
        }
        out.push_str(&format!(
            "{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
            "region",
            "id",
            "capacity",
            "planned",
            "lower bound",
            "peak step",
            "buffers",
            "optimal",
            "nodes"
        ));
        let mut count = vec![0usize; self.regions.len()];
        for b in &self.buffers {
            if let Some(c) = count.get_mut(b.region) {
                *c += 1;
            }
        }
        for (r, rp) in self.regions.iter().enumerate() {
            let n = count[r];
            let peak = rp.peak_step.map_or("-".to_string(), |s| s.to_string());
            out.push_str(&format!(
                "{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
                rp.name,
                r,
                rp.capacity,
                rp.planned,
                rp.lower_bound,
                peak,
                n,
                if rp.proven_optimal { "yes" } else { "no" },
                rp.nodes
            ));
        }
        for note in &self.notes {
            out.push_str(note);
            out.push('\n');
        }
        out
    }

    /// What is inconsistent in the description (empty for one the macro wrote): each
    /// region named once, with its planned bytes within its capacity and its lower bound
    /// within its planned bytes, a power-of-two alignment, and every buffer in a region of
    /// the plan, inside its planned bytes, with a lifetime whose last step is not before
    /// its first. A description read from a file may have been made by anything: tools
    /// check it before they draw it.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut names = std::collections::HashSet::new();
        for r in &self.regions {
            if !names.insert(r.name.as_str()) {
                out.push(format!("region `{}` is described twice", r.name));
            }
            if r.planned > r.capacity {
                out.push(format!(
                    "region `{}` plans {} bytes, more than its capacity of {}",
                    r.name, r.planned, r.capacity
                ));
            }
            if r.lower_bound > r.planned {
                out.push(format!(
                    "region `{}` has a lower bound of {} bytes, above its {} planned bytes",
                    r.name, r.lower_bound, r.planned
                ));
            }
            if !r.align.is_power_of_two() {
                out.push(format!(
                    "region `{}` has an alignment of {}, not a power of two",
                    r.name, r.align
                ));
            }
        }
        for b in &self.buffers {
            let Some(r) = self.regions.get(b.region) else {
                out.push(format!(
                    "buffer `{}` is in region {}, but the plan has {} regions",
                    b.name,
                    b.region,
                    self.regions.len()
                ));
                continue;
            };
            if b.offset
                .checked_add(b.size)
                .is_none_or(|end| end > r.planned)
            {
                out.push(format!(
                    "buffer `{}` ({} bytes at {}) ends past the {} planned bytes of region `{}`",
                    b.name, b.size, b.offset, r.planned, r.name
                ));
            }
            if b.last < b.first {
                out.push(format!(
                    "buffer `{}` has a lifetime whose last step {} is before its first {}",
                    b.name, b.last, b.first
                ));
            }
        }
        out
    }

    /// The description in the encoding above.
    pub fn encode(&self) -> String {
        let mut out = format!(
            "memplan-plan {VERSION}\nplan {} {}\nstrategy {} {}\n",
            escape(&self.plan),
            escape(&self.package),
            self.strategy.name(),
            self.strategy
                .nodes()
                .map_or("-".to_string(), |n| n.to_string())
        );
        for f in &self.sources {
            out.push_str(&format!(
                "source {} {} {}\n",
                escape(&f.name),
                f.bytes,
                escape(&f.sha256)
            ));
        }
        for r in &self.regions {
            out.push_str(&format!(
                "region {} {} {} {} {} {} {} {} {}\n",
                escape(&r.name),
                r.capacity,
                r.planned,
                r.lower_bound,
                r.peak_step.map_or("-".to_string(), |s| s.to_string()),
                r.align,
                u8::from(r.proven_optimal),
                r.nodes,
                r.memory.as_deref().map_or("-".to_string(), escape)
            ));
        }
        for p in &self.pools {
            out.push_str(&format!(
                "pool {} {} {} {}\n",
                escape(&p.name),
                p.bytes,
                p.align,
                p.memory.as_deref().map_or("-".to_string(), escape)
            ));
        }
        for b in &self.buffers {
            out.push_str(&format!(
                "buffer {} {} {} {} {} {}\n",
                escape(&b.name),
                b.region,
                b.offset,
                b.size,
                b.first,
                b.last
            ));
        }
        for note in &self.notes {
            out.push_str(&format!("note {}\n", escape(note)));
        }
        out.push_str("end\n");
        out
    }

    /// Every description in `bytes` (a `.memplan.info` section's contents), in order.
    ///
    /// # Errors
    ///
    /// A message naming the line (1-based, counted over the whole section) when a record is
    /// malformed, truncated, or of another version.
    pub fn decode_all(bytes: &[u8]) -> Result<Vec<PlanInfo>, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("not text: {e}"))?;
        let mut out = Vec::new();
        let mut lines = text
            .split('\n')
            .enumerate()
            .map(|(n, l)| (n + 1, l.trim_matches('\0')))
            .filter(|(_, l)| !l.is_empty());
        while let Some((n, header)) = lines.next() {
            match header.split(' ').collect::<Vec<_>>()[..] {
                ["memplan-plan", "1" | "2" | "3" | "4"] => {}
                ["memplan-plan", v] => {
                    return Err(format!(
                        "line {n}: a plan description of version {v}; this memplan reads versions 1 to {VERSION}"
                    ));
                }
                _ => return Err(format!("line {n}: expected `memplan-plan {VERSION}`")),
            }
            out.push(decode_record(&mut lines)?);
        }
        Ok(out)
    }
}

fn decode_record<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<PlanInfo, String> {
    let mut info = PlanInfo {
        plan: String::new(),
        package: String::new(),
        strategy: Strategy::default(),
        sources: Vec::new(),
        regions: Vec::new(),
        pools: Vec::new(),
        buffers: Vec::new(),
        notes: Vec::new(),
    };
    for (n, line) in lines.by_ref() {
        let f: Vec<&str> = line.split(' ').collect();
        let bad = || format!("line {n}: malformed `{}` line", f[0]);
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
        let step = |s: &str| s.parse::<u32>().map_err(|_| bad());
        match f[..] {
            ["end"] => return Ok(info),
            ["plan", name, package] => {
                info.plan = unescape(name).ok_or_else(bad)?;
                info.package = unescape(package).ok_or_else(bad)?;
            }
            ["strategy", name, nodes] => {
                let nodes = if nodes == "-" {
                    None
                } else {
                    Some(num(nodes)?)
                };
                info.strategy = Strategy::from_parts(name, nodes).map_err(|_| bad())?;
            }
            [
                "region",
                name,
                cap,
                planned,
                lb,
                peak,
                align,
                opt,
                nodes,
                memory,
            ] => {
                info.regions.push(RegionSummary {
                    name: unescape(name).ok_or_else(bad)?,
                    capacity: num(cap)?,
                    planned: num(planned)?,
                    lower_bound: num(lb)?,
                    peak_step: if peak == "-" { None } else { Some(step(peak)?) },
                    align: num(align)?,
                    proven_optimal: opt == "1",
                    nodes: num(nodes)?,
                    memory: if memory == "-" {
                        None
                    } else {
                        Some(unescape(memory).ok_or_else(bad)?)
                    },
                });
            }
            ["note", text] => info.notes.push(unescape(text).ok_or_else(bad)?),
            ["source", name, bytes, sha256] => {
                info.sources.push(SourceFile {
                    name: unescape(name).ok_or_else(bad)?,
                    bytes: num(bytes)?,
                    sha256: unescape(sha256).ok_or_else(bad)?,
                });
            }
            ["pool", name, bytes, align, memory] => {
                info.pools.push(PoolSummary {
                    name: unescape(name).ok_or_else(bad)?,
                    bytes: num(bytes)?,
                    align: num(align)?,
                    memory: if memory == "-" {
                        None
                    } else {
                        Some(unescape(memory).ok_or_else(bad)?)
                    },
                });
            }
            ["buffer", name, region, offset, size, first, last] => {
                info.buffers.push(BufferSummary {
                    name: unescape(name).ok_or_else(bad)?,
                    region: num(region)? as usize,
                    offset: num(offset)?,
                    size: num(size)?,
                    first: step(first)?,
                    last: step(last)?,
                });
            }
            _ => return Err(bad()),
        }
    }
    Err("the last plan description is truncated (no `end`)".to_string())
}

/// Every byte outside `[A-Za-z0-9_.-]` as `%XX`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`escape`]; `None` for a malformed escape or non-UTF-8 bytes.
fn unescape(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PlanInfo {
        PlanInfo {
            plan: "digits".into(),
            package: "memplan-firmware".into(),
            strategy: Strategy::Optimal { nodes: 10000 },
            sources: vec![SourceFile::of("model dir/person_detect.tflite", b"TFL3")],
            regions: vec![RegionSummary {
                name: "act".into(),
                capacity: 256,
                planned: 96,
                lower_bound: 96,
                peak_step: Some(3),
                align: 16,
                proven_optimal: true,
                nodes: 0,
                memory: Some("SRAM3".into()),
            }],
            pools: vec![
                PoolSummary {
                    name: "constant".into(),
                    bytes: 0,
                    align: 16,
                    memory: None,
                },
                PoolSummary {
                    name: "temp".into(),
                    bytes: 1024,
                    align: 32,
                    memory: Some("SRAM 2".into()),
                },
            ],
            buffers: vec![BufferSummary {
                name: "aten_conv.out 0%".into(),
                region: 0,
                offset: 32,
                size: 64,
                first: 1,
                last: 2,
            }],
            notes: vec!["lock: the offsets are the entry of `digits` in memplan.lock".into()],
        }
    }

    #[test]
    fn a_debug_canary_report_says_its_guard_bytes_are_planned() {
        let src = "mod m { region r: 1 KiB; buffer a: 64 bytes in r, live 0..=1; buffer b: 64 bytes in r, live 1..=2; }";
        let report = |canary: bool| {
            let env = crate::Env {
                canary,
                ..crate::Env::default()
            };
            crate::check(src.parse().unwrap(), &env).report().unwrap()
        };
        // Two buffers live together, each with 16 guard bytes after it: 160, not 128.
        let guarded = report(true);
        assert!(guarded.contains(" 160 "), "{guarded}");
        assert!(
            guarded.ends_with("debug-canary: 16 guard bytes follow every buffer, counted in the planned bytes (a build without the feature plans without them)\n"),
            "{guarded}"
        );
        let plain = report(false);
        assert!(
            plain.contains(" 128 ") && !plain.contains("debug-canary"),
            "{plain}"
        );
    }

    #[test]
    fn descriptions_round_trip_through_the_encoding() {
        let a = sample();
        let mut b = sample();
        b.plan = "second".into();
        b.strategy = Strategy::Greedy;
        b.regions[0].peak_step = None;
        b.regions[0].memory = None;
        let mut section = a.encode().into_bytes();
        section.extend([0u8; 5]); // alignment padding between two statics
        section.extend(b.encode().into_bytes());
        assert_eq!(PlanInfo::decode_all(&section).unwrap(), vec![a, b]);
        assert!(
            sample()
                .encode()
                .contains("buffer aten_conv.out%200%25 0 32 64 1 2\n")
        );
        assert!(
            sample()
                .encode()
                .contains("pool constant 0 16 -\npool temp 1024 32 SRAM%202\n")
        );
        // The SHA-256 of "TFL3", as `printf TFL3 | sha256sum` prints it.
        assert!(sample().encode().contains(
            "source model%20dir%2Fperson_detect.tflite 4 a7dde3997f7e2a851fdbd1691bd8d19d07719e365be8016f136ff8ef6a847665\n"
        ));
    }

    #[test]
    fn another_version_or_a_truncated_record_is_refused() {
        let e = PlanInfo::decode_all(b"memplan-plan 5\nend\n").unwrap_err();
        assert_eq!(
            e,
            "line 1: a plan description of version 5; this memplan reads versions 1 to 4"
        );
        // Version 2, before `pool` lines, and version 1, before `source` lines, still read.
        let older = |version: &str, dropped: &[&str]| -> String {
            sample()
                .encode()
                .replace("memplan-plan 4", &format!("memplan-plan {version}"))
                .lines()
                .filter(|l| !dropped.iter().any(|d| l.starts_with(d)))
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let read = PlanInfo::decode_all(older("3", &["note "]).as_bytes()).unwrap();
        assert_eq!(read[0].notes, Vec::<String>::new());
        assert_eq!(read[0].pools, sample().pools);
        let read = PlanInfo::decode_all(older("2", &["pool ", "note "]).as_bytes()).unwrap();
        assert_eq!(read[0].pools, []);
        assert_eq!(read[0].sources, sample().sources);
        assert_eq!(read[0].buffers, sample().buffers);
        let read =
            PlanInfo::decode_all(older("1", &["pool ", "source ", "note "]).as_bytes()).unwrap();
        assert_eq!(read[0].sources, []);
        assert_eq!(read[0].regions, sample().regions);
        let text = sample().encode();
        let cut = &text[..text.len() - 4];
        assert!(
            PlanInfo::decode_all(cut.as_bytes())
                .unwrap_err()
                .contains("truncated")
        );
        let e = PlanInfo::decode_all(b"memplan-plan 1\nregion x y\n").unwrap_err();
        assert_eq!(e, "line 2: malformed `region` line");
    }
}
