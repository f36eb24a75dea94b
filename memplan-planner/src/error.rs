//! What can be wrong with a problem or a plan. Every error names the buffers and regions by
//! index (into [`crate::Problem`]) so that a front end can point at the offending
//! declaration, and carries the exact byte counts. [`PlanError::display`] words it: the
//! one wording of every planner error, which the macro, the CLI and the benchmark print.

use std::fmt;

use crate::problem::{Placement, Problem, Step};
use crate::strategy::Strategy;

/// One reason a problem has no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A region's alignment is not a power of two, or above [`crate::MAX_ALIGN`].
    RegionAlign {
        /// The region.
        region: usize,
        /// The alignment given, in bytes.
        align: u64,
    },
    /// A buffer's alignment is not a power of two, or above [`crate::MAX_ALIGN`].
    BufferAlign {
        /// The buffer.
        buffer: usize,
        /// The alignment given, in bytes.
        align: u64,
    },
    /// A buffer names a region that does not exist.
    UnknownRegion {
        /// The buffer.
        buffer: usize,
    },
    /// Buffer `buffer` is in place of `source`, but is larger.
    InPlaceLarger {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
        /// Bytes of the in-place buffer.
        size: u64,
        /// Bytes of the source.
        source_size: u64,
    },
    /// Buffer `buffer` is in place of `source`, but `source` is still live after `buffer`'s
    /// first step.
    InPlaceSourceLive {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
        /// The source's last step.
        source_last: Step,
        /// The in-place buffer's first step.
        first: Step,
    },
    /// Two buffers in place of the same source (neither in place of the other) are live at
    /// a common step, so they would share bytes.
    InPlaceOverlap {
        /// One buffer.
        a: usize,
        /// The other.
        b: usize,
        /// The common steps, inclusive.
        steps: (Step, Step),
    },
    /// In-place links form a cycle through `buffer`, or point at a missing buffer.
    InPlaceCycle {
        /// A buffer on the cycle.
        buffer: usize,
    },
    /// An in-place buffer names a region other than its source's.
    InPlaceRegion {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
    },
    /// An in-place buffer is also pinned: it takes its source's offset, so it cannot.
    InPlacePinned {
        /// The in-place buffer.
        buffer: usize,
    },
    /// A pinned buffer has no region to be pinned in.
    PinWithoutRegion {
        /// The buffer.
        buffer: usize,
    },
    /// A pinned offset is not a multiple of the buffer's alignment.
    PinMisaligned {
        /// The buffer.
        buffer: usize,
        /// The pinned offset.
        offset: u64,
        /// The alignment it must be a multiple of.
        align: u64,
    },
    /// A pinned buffer ends past its region's capacity.
    PinOutOfBounds {
        /// The buffer.
        buffer: usize,
        /// The pinned offset.
        offset: u64,
        /// The buffer's bytes.
        size: u64,
        /// The region's capacity.
        capacity: u64,
    },
    /// Two pinned buffers share bytes at steps when both are live.
    PinOverlap {
        /// The first buffer (declared first).
        a: usize,
        /// The second buffer.
        b: usize,
        /// The shared bytes, `[start, end)`.
        bytes: (u64, u64),
        /// The shared steps, inclusive.
        steps: (Step, Step),
    },
    /// A buffer is larger than the region it is placed in.
    BufferTooLarge {
        /// The buffer.
        buffer: usize,
        /// The region.
        region: usize,
        /// The buffer's bytes.
        needed: u64,
        /// The region's capacity.
        available: u64,
    },
    /// A buffer that may go anywhere is larger than every region.
    LargerThanEveryRegion {
        /// The buffer.
        buffer: usize,
        /// The buffer's bytes.
        size: u64,
    },
    /// A buffer that may go anywhere fits no region alongside the buffers already there.
    FitsNoRegion {
        /// The buffer.
        buffer: usize,
        /// The buffer's bytes.
        size: u64,
    },
    /// A region's plan needs more bytes than the region has.
    Overflow(Overflow),
    /// Size arithmetic (an offset plus a size, a size rounded up) overflowed 64 bits.
    SizeOverflow {
        /// The buffers involved.
        buffers: Vec<usize>,
        /// The region, when known.
        region: Option<usize>,
    },
}

impl PlanError {
    /// The buffers the error names (empty for region errors).
    pub fn buffers(&self) -> Vec<usize> {
        use PlanError::*;
        match self {
            RegionAlign { .. } | Overflow(_) => Vec::new(),
            BufferAlign { buffer, .. }
            | UnknownRegion { buffer }
            | InPlaceCycle { buffer }
            | InPlacePinned { buffer }
            | PinWithoutRegion { buffer }
            | PinMisaligned { buffer, .. }
            | PinOutOfBounds { buffer, .. }
            | BufferTooLarge { buffer, .. }
            | LargerThanEveryRegion { buffer, .. }
            | FitsNoRegion { buffer, .. } => vec![*buffer],
            InPlaceLarger { buffer, source, .. }
            | InPlaceSourceLive { buffer, source, .. }
            | InPlaceRegion { buffer, source } => vec![*buffer, *source],
            InPlaceOverlap { a, b, .. } | PinOverlap { a, b, .. } => vec![*a, *b],
            SizeOverflow { buffers, .. } => buffers.clone(),
        }
    }
}

/// A region whose plan does not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The region.
    pub region: usize,
    /// Bytes the plan needs.
    pub needed: u64,
    /// Bytes the region has.
    pub available: u64,
    /// The most bytes live at one step: no plan can do with fewer.
    pub lower_bound: u64,
    /// The step at which `lower_bound` bytes are live.
    pub peak_step: Option<Step>,
    /// Buffers live at the peak step, largest first, with the bytes each reserves: of an
    /// in-place chain, the member live there (the one taking over, at a handover step).
    pub live_at_peak: Vec<(usize, u64)>,
    /// Whether no plan of the region can use fewer than `needed` bytes (the strategy proved
    /// it, or `needed` meets the alignment-aware bound), so no strategy can make it fit.
    pub proven_optimal: bool,
    /// Whether no layout of the region fits in `available` bytes: more bytes are live at
    /// one step than that (`lower_bound` or `aligned` is over), `needed` is proven
    /// optimal, or the search explored every layout up to `available` and found none.
    /// When `false` (and the live bytes fit), a layout may exist that the strategy did not
    /// find within its budget.
    pub impossible: bool,
    /// The alignment-aware lower bound ([`crate::aligned_lower_bound`]): more than
    /// `lower_bound` when alignment padding alone costs bytes.
    pub aligned: crate::instance::AlignedBound,
    /// The strategy that made the plan.
    pub strategy: Strategy,
}

impl Overflow {
    /// By how many bytes the plan misses.
    pub fn excess(&self) -> u64 {
        self.needed - self.available
    }

    /// Whether the bytes live at every step fit, so only the packing (fragmentation) misses:
    /// a stronger strategy may find a plan.
    pub fn is_fragmentation(&self) -> bool {
        self.lower_bound <= self.available
    }
}

/// How messages name a problem's buffers. The defaults name a buffer by its name in
/// backquotes and its lifetime as `first..=last`; a front end can name buffers read from a
/// plan file with their file and line, and lifetimes as the user wrote them.
pub trait Names {
    /// How a message names buffer `i`: `` `conv1` `` by default.
    fn buffer(&self, problem: &Problem, i: usize) -> String {
        format!("`{}`", problem.buffers[i].name)
    }

    /// Buffer `i`'s lifetime as a message writes it (`0..=2` by default); `None` leaves it
    /// out.
    fn lifetime(&self, problem: &Problem, i: usize) -> Option<String> {
        let l = problem.buffers[i].lifetime;
        Some(format!("{}..={}", l.first, l.last))
    }
}

/// The default [`Names`].
struct ByName;

impl Names for ByName {}

/// A [`PlanError`] in words: what [`PlanError::display`] returns.
pub struct PlanErrorDisplay<'a> {
    error: &'a PlanError,
    problem: &'a Problem,
    names: &'a dyn Names,
}

impl PlanError {
    /// The error in words, naming buffers and regions of `problem` (the problem it was
    /// found in), as `Path::display` does for paths: `error.display(&problem).to_string()`.
    /// Byte counts are plain integers. A message may have `note:` and `help:` lines after
    /// its first.
    pub fn display<'a>(&'a self, problem: &'a Problem) -> PlanErrorDisplay<'a> {
        self.display_with(problem, &ByName)
    }

    /// [`PlanError::display`] with buffers named by `names`.
    pub fn display_with<'a>(
        &'a self,
        problem: &'a Problem,
        names: &'a dyn Names,
    ) -> PlanErrorDisplay<'a> {
        PlanErrorDisplay {
            error: self,
            problem,
            names,
        }
    }
}

impl PlanErrorDisplay<'_> {
    fn b(&self, i: usize) -> String {
        self.names.buffer(self.problem, i)
    }

    fn r(&self, r: usize) -> String {
        format!("`{}`", self.problem.regions[r].name)
    }

    fn capacities(&self) -> String {
        listed(&self.problem.regions, |r| {
            format!("`{}` has {} bytes", r.name, r.capacity)
        })
    }

    fn overflow(&self, f: &mut fmt::Formatter<'_>, o: &Overflow) -> fmt::Result {
        write!(
            f,
            "region {} overflows: needed {} bytes, available {} (over by {})",
            self.r(o.region),
            o.needed,
            o.available,
            o.excess()
        )?;
        if let Some(step) = o.peak_step {
            let live: Vec<String> = o
                .live_at_peak
                .iter()
                .take(5)
                .map(|&(i, size)| match self.names.lifetime(self.problem, i) {
                    Some(live) => format!("{} ({size} bytes, live {live})", self.b(i)),
                    None => format!("{} ({size} bytes)", self.b(i)),
                })
                .collect();
            let more = o.live_at_peak.len().saturating_sub(5);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            write!(
                f,
                "\nnote: peak: {} bytes live at step {step} (lifetimes are inclusive): {}{more}",
                o.lower_bound,
                live.join(", ")
            )?;
        }
        if !o.is_fragmentation() {
            // Over even at the peak; say what of `needed` is alignment padding.
            if o.aligned.bytes > o.lower_bound && o.needed > o.lower_bound {
                let at = o
                    .aligned
                    .step
                    .map_or(String::new(), |s| format!(" at step {s}"));
                write!(
                    f,
                    "
note: alignment padding: every buffer{at} starts on a multiple of {} bytes, so each is rounded up to one: they need at least {} bytes, {} more than the peak",
                    o.aligned.align,
                    o.aligned.bytes,
                    o.aligned.bytes - o.lower_bound
                )?;
            }
            return Ok(());
        }
        if o.aligned.bytes > o.lower_bound && o.proven_optimal {
            let at = o
                .aligned
                .step
                .map_or(String::new(), |s| format!(" at step {s}"));
            write!(
                f,
                "\nnote: alignment padding: every buffer{at} starts on a multiple of {} bytes, so each is rounded up to one: they need at least {} bytes, more than the {} available; give the region {} bytes, or the buffers smaller alignments or sizes that are multiples of it",
                o.aligned.align, o.aligned.bytes, o.available, o.needed
            )
        } else if o.proven_optimal {
            write!(
                f,
                "\nnote: no layout of these buffers fits in fewer than {} bytes, although at most {} are live at once: give the region {} bytes",
                o.needed, o.lower_bound, o.needed
            )
        } else if o.impossible {
            write!(
                f,
                "\nnote: proven impossible: at most {} bytes are live at once, but the `{}` strategy's search explored every layout up to {} bytes and none fits (the buffers' lifetimes leave gaps no layout can fill)",
                o.lower_bound,
                o.strategy.name(),
                o.available
            )
        } else {
            write!(
                f,
                "\nnote: at most {} bytes are live at once, which fits, but ",
                o.lower_bound
            )?;
            match o.strategy {
                Strategy::Greedy | Strategy::BestOf => write!(
                    f,
                    "the `{}` strategy's layout leaves gaps between buffers (fragmentation)\nhelp: the default strategy searches for a layout that fits: remove the `strategy` statement (or write `strategy = {};`)",
                    o.strategy.name(),
                    Strategy::default()
                ),
                Strategy::Optimal { nodes } => {
                    write!(
                        f,
                        "no layout within {} bytes was found within the search's budget of {nodes} nodes (none is proven impossible either)",
                        o.available
                    )?;
                    match nodes.checked_mul(50) {
                        Some(nodes) => write!(
                            f,
                            "\nhelp: a longer search may find a layout that fits: `strategy = {};`",
                            Strategy::Optimal { nodes }
                        ),
                        None => Ok(()),
                    }
                }
            }
        }
    }
}

impl PlanErrorDisplay<'_> {
    /// The in-place rules' errors.
    fn in_place(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error {
            PlanError::InPlaceLarger {
                buffer,
                source,
                size,
                source_size,
            } => write!(
                f,
                "buffer {} cannot be in place of {}: it is larger ({size} > {source_size} bytes); an in-place buffer must be no larger than its source",
                self.b(*buffer),
                self.b(*source)
            ),
            PlanError::InPlaceSourceLive {
                buffer,
                source,
                source_last,
                first,
            } => {
                let (b, s) = (self.b(*buffer), self.b(*source));
                write!(
                    f,
                    "buffer {b} cannot be in place of {s}: {s} is still live at step {source_last}, after {b} is first written at step {first}; end {s} by step {first}, or start {b} at step {source_last}"
                )
            }
            PlanError::InPlaceOverlap { a, b, steps } => write!(
                f,
                "buffers {} and {} both take the bytes of the same source and are both live at steps {}..={}: only a chain (one in place of the other) may share bytes at a step",
                self.b(*a),
                self.b(*b),
                steps.0,
                steps.1
            ),
            PlanError::InPlaceCycle { buffer } => write!(
                f,
                "`in place of` links form a cycle through buffer {}",
                self.b(*buffer)
            ),
            PlanError::InPlaceRegion { buffer, source } => write!(
                f,
                "buffer {} is in place of {}, which is in another region",
                self.b(*buffer),
                self.b(*source)
            ),
            PlanError::InPlacePinned { buffer } => write!(
                f,
                "buffer {} is in place of another buffer and takes its offset: remove `at`",
                self.b(*buffer)
            ),
            _ => Ok(()),
        }
    }

    /// The pins' errors.
    fn pin(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.problem;
        match self.error {
            PlanError::PinWithoutRegion { buffer } => write!(
                f,
                "buffer {} is pinned but has no region: add `in REGION`",
                self.b(*buffer)
            ),
            PlanError::PinMisaligned {
                buffer,
                offset,
                align,
            } => {
                let b = &p.buffers[*buffer];
                let source = match (b.align, b.placement) {
                    (None, Placement::In(r)) => format!(" (the default of region {})", self.r(r)),
                    _ => String::new(),
                };
                write!(
                    f,
                    "buffer {} is pinned at offset {offset}, which is not a multiple of its alignment, {align} bytes{source}",
                    self.b(*buffer)
                )
            }
            PlanError::PinOutOfBounds {
                buffer,
                offset,
                size,
                capacity,
            } => {
                let region = match p.buffers[*buffer].placement {
                    Placement::In(r) => self.r(r),
                    Placement::Anywhere => "its region".to_string(),
                };
                let end = u128::from(*offset) + u128::from(*size);
                write!(
                    f,
                    "buffer {} pinned at offset {offset} ends at byte {end}, past the end of region {region}: needed {end} bytes, available {capacity} (over by {})",
                    self.b(*buffer),
                    end - u128::from(*capacity)
                )
            }
            PlanError::PinOverlap { a, b, bytes, steps } => write!(
                f,
                "pinned buffers {} and {} overlap: bytes {}..{} are used by both at steps {}..={}",
                self.b(*a),
                self.b(*b),
                bytes.0,
                bytes.1,
                steps.0,
                steps.1
            ),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for PlanErrorDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.problem;
        match self.error {
            PlanError::InPlaceLarger { .. }
            | PlanError::InPlaceSourceLive { .. }
            | PlanError::InPlaceOverlap { .. }
            | PlanError::InPlaceCycle { .. }
            | PlanError::InPlaceRegion { .. }
            | PlanError::InPlacePinned { .. } => self.in_place(f),
            PlanError::PinWithoutRegion { .. }
            | PlanError::PinMisaligned { .. }
            | PlanError::PinOutOfBounds { .. }
            | PlanError::PinOverlap { .. } => self.pin(f),
            PlanError::RegionAlign { region, align } => {
                write!(
                    f,
                    "alignment {align} of region {} is invalid",
                    self.r(*region)
                )
            }
            PlanError::BufferAlign { buffer, align } => {
                write!(
                    f,
                    "alignment {align} of buffer {} is invalid",
                    self.b(*buffer)
                )
            }
            PlanError::UnknownRegion { buffer } => {
                write!(f, "buffer {} names an unknown region", self.b(*buffer))
            }
            PlanError::BufferTooLarge {
                buffer,
                region,
                needed,
                available,
            } => {
                let larger: Vec<&crate::Region> =
                    p.regions.iter().filter(|r| r.capacity >= *needed).collect();
                let named = matches!(p.buffers[*buffer].placement, Placement::In(_));
                let hint = if named && !larger.is_empty() {
                    format!(
                        "; a buffer placed with `in` never moves to another region: {} would fit it",
                        listed(&larger, |r| format!("`{}` ({} bytes)", r.name, r.capacity))
                    )
                } else {
                    String::new()
                };
                write!(
                    f,
                    "buffer {} overflows region {}: needed {needed} bytes, available {available} (over by {}){hint}",
                    self.b(*buffer),
                    self.r(*region),
                    needed - available
                )
            }
            PlanError::LargerThanEveryRegion { buffer, size } => write!(
                f,
                "buffer {} ({size} bytes) exceeds every region: {}",
                self.b(*buffer),
                self.capacities()
            ),
            PlanError::FitsNoRegion { buffer, size } => write!(
                f,
                "buffer {} ({size} bytes) fits no region alongside the buffers already planned there: {}",
                self.b(*buffer),
                self.capacities()
            ),
            PlanError::SizeOverflow { buffers, region } => {
                let region = region.map_or(String::new(), |r| format!(" in region {}", self.r(r)));
                write!(
                    f,
                    "size arithmetic overflows 64 bits placing {}{region}: the sizes are too large for any address space",
                    listed(buffers, |&i| self.b(i))
                )
            }
            PlanError::Overflow(o) => self.overflow(f, o),
        }
    }
}

/// The most items a message lists; the rest are counted: `and 19992 more`.
pub const LISTED: usize = 8;

/// `items` as a comma-separated list for a message, each written by `show`: at most
/// [`LISTED`] of them, then `and N more`, so that a message about thousands of regions or
/// buffers stays a line (and costs no more than that to write).
pub fn listed<T>(items: &[T], show: impl Fn(&T) -> String) -> String {
    let mut out: Vec<String> = items.iter().take(LISTED).map(show).collect();
    if items.len() > LISTED {
        out.push(format!("and {} more", items.len() - LISTED));
    }
    out.join(", ")
}
