//! `memplan svg FILE -o map.svg`: the memory map. One panel per region: steps on x (one
//! step axis for every panel, so that a step is at the same x in each), byte offsets on y
//! (0 at the bottom), one rectangle per buffer (`<rect id="buf-R-I">` with a `<title>`
//! tooltip: name, size, offset, lifetime) with its name drawn on it where the name fits
//! (`<text class="label">`, across, or upwards in a tall narrow rectangle, so that the
//! picture reads without tooltips), the lower bound and
//! the planned bytes (the peak of the plan) as horizontal lines labelled in exact bytes
//! (and the rounded KiB or MiB beside them), the peak step as a vertical one. Byte ticks
//! are whole multiples of their unit, never rounded, at most 20 of them whatever the byte
//! counts. Axes are scaled to the panel, so a plan of thousands of buffers stays readable
//! and the file's size follows the number of buffers and steps, never their bytes; every
//! rectangle is at least [`MIN_PX`] high and wide, so zero-size buffers can be seen and
//! counted.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use memplan_planner::Lifetime;

use crate::input;
use crate::options::{Offsets, ProblemArgs};
use crate::planned::Planned;
use crate::progress;

/// Draw FILE's plan as an SVG memory map: steps on x, bytes on y, a rectangle per buffer
/// (named where the name fits, and in a tooltip), the lower bound and the peak as lines
/// (in exact bytes), one panel per region, all on one step axis.
///
/// FILE: any plan input, as for `memplan plan` (planned first), or a plan with offsets
/// (a placed CSV, or --offsets file for ExecuTorch's own offsets or a JSON plan's).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The plan file, model (.tflite, .pte) or Rust source file.
    pub file: PathBuf,
    /// The SVG file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Where the offsets come from.
    #[arg(long, value_enum, default_value_t)]
    pub offsets: Offsets,
    /// Give every run of steps with the same live buffers the same width, instead of every
    /// step (for plans whose steps are mostly quiet: the ticks still name steps).
    #[arg(long)]
    pub compact: bool,
}

/// The plot area of a panel, in pixels.
const PLOT_W: f64 = 1000.0;
const PLOT_H: f64 = 480.0;
/// Margins around the plot area.
const LEFT: f64 = 100.0;
const RIGHT: f64 = 270.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 50.0;
/// The least height and width of a rectangle, in pixels.
pub const MIN_PX: f64 = 1.5;

/// Runs `memplan svg`.
pub fn run(args: Args) -> Result<bool, String> {
    let Some(loaded) =
        input::load(&args.file, &args.problem, args.offsets, progress::wanted(false))?
    else {
        return Ok(false);
    };
    crate::output::not_an_input("-o", &args.output, &loaded.read, &[])?;
    write(&loaded.plans, &args.output, args.compact)?;
    Ok(true)
}

/// Writes the memory map of `plans` (a panel per region of each) to `output` (in place of
/// what it holds: [`crate::output::write`]).
pub fn write(plans: &[Planned], output: &Path, compact: bool) -> Result<(), String> {
    let panels: Vec<(&Planned, usize)> = plans
        .iter()
        .flat_map(|p| (0..p.problem.regions.len()).map(move |r| (p, r)))
        .collect();
    let panel_h = TOP + PLOT_H + BOTTOM;
    // One step axis for every panel: the steps of every buffer of every plan.
    let time = TimeAxis::new(
        panels.iter().flat_map(|&(p, r)| {
            p.in_region(r)
                .into_iter()
                .map(move |i| p.problem.buffers[i].lifetime)
        }),
        compact,
    );
    let (width, height) = (LEFT + PLOT_W + RIGHT, panel_h * panels.len().max(1) as f64);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for (k, (p, r)) in panels.iter().enumerate() {
        panel(&mut s, p, *r, k as f64 * panel_h, &time);
    }
    s.push_str("</svg>\n");
    crate::output::write(output, s.as_bytes())
}

/// XML text with `&`, `<`, `>` and quotes escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no way to write these: shown as Rust writes them.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A fill for buffer `i`: hues spread by the golden angle, so neighbours differ.
fn color(i: usize) -> String {
    let h = (i as f64 * 137.508) % 360.0;
    let (s, l) = (0.55, 0.62);
    let c = (1.0 - (2.0 * l - 1.0f64).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// A step between ticks: 1, 2 or 5 times a power of ten (times 1024^k for bytes), so that
/// about `count` ticks span `range`.
fn tick_step(range: f64, count: f64, binary: bool) -> f64 {
    let raw = (range / count).max(1.0);
    let unit = if binary && raw >= 1024.0 {
        1024f64.powi((raw.log2() / 10.0).floor() as i32)
    } else {
        1.0
    };
    let scaled = raw / unit;
    let pow = 10f64.powf(scaled.log10().floor());
    let m = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| m * pow >= scaled)
        .unwrap_or(10.0);
    m * pow * unit
}

/// The byte ticks of an axis up to `top` bytes: the multiples of [`tick_step`]'s whole
/// step, from 0, at most 20 of them (about 8), none past `u64::MAX`: the picture's size
/// depends on the number of buffers and steps, never on the byte counts.
fn byte_ticks(top: f64) -> Vec<u64> {
    let step = tick_step(top, 8.0, true).round().max(1.0) as u64;
    (0..=20u64)
        .map_while(|k| k.checked_mul(step))
        .take_while(|&b| b as f64 <= top)
        .collect()
}

/// The binary units, largest first.
const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];

/// A byte count for an axis tick, exactly: `512`, `64 KiB`, `1200 KiB` (in the largest unit
/// it is a whole number of, else in bytes).
fn tick_label(v: u64) -> String {
    for (size, name) in UNITS {
        if v >= size && v.is_multiple_of(size) {
            return format!("{} {name}", v / size);
        }
    }
    format!("{v}")
}

/// A byte count for a line's label: exact, with the rounded KiB, MiB or GiB beside it
/// where it is one or more of them: `1152 bytes (1.1 KiB)`, `65536 bytes (64 KiB)`.
fn bytes_label(v: u64) -> String {
    for (size, name) in UNITS {
        if v >= size {
            let x = v as f64 / size as f64;
            let rounded = if v.is_multiple_of(size) {
                format!("{} {name}", v / size)
            } else {
                format!("{x:.1} {name}")
            };
            return format!("{v} bytes ({rounded})");
        }
    }
    crate::words::bytes(v)
}

/// The font size of the buffers' names, and the width of one of its characters at most
/// (sans-serif digits and lower-case letters are narrower; capitals about this wide), in
/// pixels.
const LABEL_FONT: f64 = 10.0;
const LABEL_CHAR_W: f64 = 6.5;

/// Whether `name` fits in a `w` by `h` rectangle at [`LABEL_FONT`], with a margin.
fn label_fits(name: &str, w: f64, h: f64) -> bool {
    h >= LABEL_FONT + 2.0 && name.chars().count() as f64 * LABEL_CHAR_W + 4.0 <= w
}

/// Where steps go on x: linearly, or (compact) each run between two consecutive
/// boundaries (a step where some buffer starts, or one past where one ends) the same width.
struct TimeAxis {
    /// The boundaries, sorted: `0` and one past the last step included.
    bounds: Vec<f64>,
    compact: bool,
}

impl TimeAxis {
    /// The axis of the buffers live over `lifetimes`.
    fn new(lifetimes: impl Iterator<Item = Lifetime>, compact: bool) -> TimeAxis {
        let mut bounds = vec![0.0];
        for l in lifetimes {
            bounds.push(f64::from(l.first));
            bounds.push(f64::from(l.last) + 1.0);
        }
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        if bounds.len() == 1 {
            bounds.push(1.0);
        }
        TimeAxis { bounds, compact }
    }

    /// One past the last step.
    fn end(&self) -> f64 {
        self.bounds[self.bounds.len() - 1]
    }

    /// The x of step `t` (its left edge), from 0 to [`PLOT_W`].
    fn x(&self, t: f64) -> f64 {
        if !self.compact {
            return t * PLOT_W / self.end();
        }
        let k = self.bounds.partition_point(|&b| b <= t).clamp(1, self.bounds.len() - 1);
        let (lo, hi) = (self.bounds[k - 1], self.bounds[k]);
        let sections = (self.bounds.len() - 1) as f64;
        ((k - 1) as f64 + ((t - lo) / (hi - lo)).clamp(0.0, 1.0)) * PLOT_W / sections
    }

    /// The steps to tick: multiples of a round step, or (compact) about ten boundaries.
    fn ticks(&self) -> Vec<f64> {
        if self.compact {
            let n = self.bounds.len();
            let every = n.div_ceil(10).max(1);
            return (0..n).step_by(every).map(|k| self.bounds[k]).collect();
        }
        let step = tick_step(self.end(), 10.0, false);
        (0..)
            .map(|k| f64::from(k) * step)
            .take_while(|&t| t <= self.end())
            .collect()
    }
}

/// Draws region `r` of `p` with its top at `y0`, on the step axis `time`.
fn panel(s: &mut String, p: &Planned, r: usize, y0: f64, time: &TimeAxis) {
    let rp = &p.plan.regions[r];
    let members = p.in_region(r);
    let buffers = &p.problem.buffers;
    let top = rp.planned_bytes.max(rp.lower_bound).max(1) as f64 * 1.05;
    let sy = PLOT_H / top;
    let (px, py) = (LEFT, y0 + TOP);
    let y_of = |bytes: f64| py + PLOT_H - bytes * sy;
    let name = &p.problem.regions[r].name;
    let _ = writeln!(
        s,
        "<g id=\"region-{r}\"><text x=\"{px}\" y=\"{}\" font-size=\"15\">{}</text>",
        y0 + 28.0,
        escape(&format!(
            "memory plan `{}`, region `{name}` (memory id {}): {}, planned {}, lower bound {}",
            p.title, p.ids[r], crate::words::count(members.len(), "buffer"), crate::words::bytes(rp.planned_bytes), crate::words::bytes(rp.lower_bound)
        ))
    );
    let _ = writeln!(s, "<rect x=\"{px}\" y=\"{py}\" width=\"{PLOT_W}\" height=\"{PLOT_H}\" fill=\"#f7f7f7\" stroke=\"#888\"/>");
    axes(s, (px, py), time, top, sy);
    let mut labels = String::new();
    for &i in &members {
        let b = &buffers[i];
        let off = p.plan.buffers[i].offset as f64;
        let (first, end) = (f64::from(b.lifetime.first), f64::from(b.lifetime.last) + 1.0);
        let x = px + time.x(first);
        let w = (time.x(end) - time.x(first)).max(MIN_PX);
        let h = (b.size as f64 * sy).max(MIN_PX);
        let y = y_of(off + b.size as f64).min(y_of(off) - MIN_PX);
        let (fill, stroke) = if b.size == 0 { ("#000000".to_string(), "#000") } else { (color(i), "#fff") };
        let _ = writeln!(
            s,
            "<rect id=\"buf-{r}-{i}\" class=\"buffer\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"0.3\"><title>{}</title></rect>",
            escape(&format!(
                "{}: {} at offset {}, live {}..={}",
                b.name, crate::words::bytes(b.size), p.plan.buffers[i].offset, b.lifetime.first, b.lifetime.last
            ))
        );
        if b.size > 0 && label_fits(&b.name, w, h) {
            let _ = writeln!(
                labels,
                "<text class=\"label\" x=\"{:.2}\" y=\"{:.2}\" font-size=\"{LABEL_FONT}\" pointer-events=\"none\">{}</text>",
                x + 2.0,
                y + h / 2.0 + LABEL_FONT * 0.35,
                escape(&b.name)
            );
        } else if b.size > 0 && label_fits(&b.name, h, w) {
            // A tall, narrow rectangle: the name upwards, from its bottom.
            let (lx, ly) = (x + w / 2.0 + LABEL_FONT * 0.35, y + h - 2.0);
            let _ = writeln!(
                labels,
                "<text class=\"label\" x=\"{lx:.2}\" y=\"{ly:.2}\" transform=\"rotate(-90 {lx:.2} {ly:.2})\" font-size=\"{LABEL_FONT}\" pointer-events=\"none\">{}</text>",
                escape(&b.name)
            );
        }
    }
    // Over every rectangle, so that no neighbour hides a name.
    s.push_str(&labels);
    let line = |s: &mut String, bytes: u64, color: &str, dash: &str, label: String, dy: f64| {
        let y = y_of(bytes as f64);
        let _ = writeln!(
            s,
            "<line x1=\"{px}\" y1=\"{y:.2}\" x2=\"{}\" y2=\"{y:.2}\" stroke=\"{color}\" stroke-width=\"1.5\" stroke-dasharray=\"{dash}\"/><text x=\"{}\" y=\"{:.2}\" fill=\"{color}\">{}</text>",
            px + PLOT_W,
            px + PLOT_W + 6.0,
            y + dy,
            escape(&label)
        );
    };
    line(s, rp.planned_bytes, "#c00000", "none", format!("planned {}", bytes_label(rp.planned_bytes)), -4.0);
    line(s, rp.lower_bound, "#0050c0", "6 3", format!("lower bound {}", bytes_label(rp.lower_bound)), 14.0);
    if let Some(t) = rp.peak_step {
        let x = px + (time.x(f64::from(t)) + time.x(f64::from(t) + 1.0)) / 2.0;
        let _ = writeln!(
            s,
            "<line x1=\"{x:.2}\" y1=\"{py}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#0050c0\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/><text x=\"{x:.2}\" y=\"{}\" fill=\"#0050c0\" text-anchor=\"middle\">peak step {t}</text>",
            py + PLOT_H,
            py - 6.0
        );
    }
    s.push_str("</g>\n");
}

/// Ticks and labels: steps below the plot, bytes left of it.
fn axes(s: &mut String, (px, py): (f64, f64), time: &TimeAxis, top: f64, sy: f64) {
    for t in time.ticks() {
        let x = px + time.x(t);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.2}\" y1=\"{}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#888\"/><text x=\"{x:.2}\" y=\"{}\" text-anchor=\"middle\">{t}</text>",
            py + PLOT_H,
            py + PLOT_H + 5.0,
            py + PLOT_H + 18.0
        );
    }
    let label = if time.compact {
        "step (each run of steps with the same live buffers the same width)"
    } else {
        "step"
    };
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
        px + PLOT_W / 2.0,
        py + PLOT_H + 36.0
    );
    // A whole number of bytes: 1, 2 or 5 times a power of ten times 1024^k; the ticks are
    // its multiples up to the top, about 8 of them whatever the byte counts (no tick past
    // `u64::MAX`).
    for b in byte_ticks(top) {
        let y = py + PLOT_H - b as f64 * sy;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{y:.2}\" x2=\"{px}\" y2=\"{y:.2}\" stroke=\"#888\"/><text x=\"{}\" y=\"{:.2}\" text-anchor=\"end\">{}</text>",
            px - 5.0,
            px - 8.0,
            y + 4.0,
            tick_label(b)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"20\" y=\"{}\" transform=\"rotate(-90 20 {})\" text-anchor=\"middle\">offset (bytes)</text>",
        py + PLOT_H / 2.0,
        py + PLOT_H / 2.0
    );
}

#[cfg(test)]
mod tests {
    use super::byte_ticks;

    #[test]
    fn byte_ticks_are_few_whole_multiples_whatever_the_bytes() {
        assert_eq!(byte_ticks(1.05), [0, 1]);
        assert_eq!(byte_ticks(1100.0), [0, 200, 400, 600, 800, 1000]);
        for top in [1e3, 1e9, 1.7e19, u64::MAX as f64 * 1.05, f64::MAX] {
            let ticks = byte_ticks(top);
            assert!((2..=21).contains(&ticks.len()), "{top}: {ticks:?}");
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{top}: {ticks:?}");
        }
    }
}
