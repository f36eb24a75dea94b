//! `memplan svg` draws one rectangle per buffer (with its tooltip), at least 1.5 pixels
//! high so that zero-size buffers show, one panel per region, the lower bound and the
//! planned bytes as lines; `memplan trace` writes ExecuTorch's layout: one complete event
//! per buffer per step it is live, `ts` its offset, `dur` its size, `pid` its memory id,
//! `tid` the step's row among the steps at which anything is live. The rendering itself
//! is checked with resvg in `tests/svg-render` (a CI stage).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::stdout as memplan;

fn tmp(name: &str) -> String {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .display()
        .to_string()
}

fn data(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/executorch")
        .join(name);
    p.display().to_string()
}

/// The value of attribute `name` in the tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
    let end = tag[start..].find('"').unwrap();
    &tag[start..start + end]
}

/// The contents of every `<text>` element of an SVG.
fn texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(&t[start..end])
        })
        .collect()
}

/// Every `<rect class="buffer" ...>...</rect>` of an SVG.
fn buffer_rects(svg: &str) -> Vec<&str> {
    svg.lines()
        .filter(|l| l.contains("class=\"buffer\""))
        .collect()
}

#[test]
fn the_map_has_a_rectangle_and_a_tooltip_per_buffer() {
    let out = tmp("mobilenet.svg");
    memplan(&["svg", &data("mobilenet_v2_greedy.csv"), "-o", &out]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let rects = buffer_rects(&svg);
    assert_eq!(rects.len(), 257);
    let ids: BTreeSet<&str> = rects.iter().map(|r| attr(r, "id")).collect();
    assert_eq!(ids.len(), 257);
    assert!(
        rects
            .iter()
            .all(|r| r.contains("<title>") && r.ends_with("</title></rect>"))
    );
    // The first row of the file: `x`, 602112 bytes, live 0..=316.
    assert!(
        rects
            .iter()
            .any(|r| r.contains("<title>x: 602112 bytes at offset ")
                && r.contains(", live 0..=316</title>"))
    );
    // Zero-size buffers (ExecuTorch's unused `.out1` outputs) are drawn 1.5 pixels high.
    let zero: Vec<&&str> = rects
        .iter()
        .filter(|r| r.contains(": 0 bytes at offset"))
        .collect();
    assert!(!zero.is_empty());
    assert!(zero.iter().all(|r| attr(r, "height") == "1.50"));
    // Exact bytes, with the rounded MiB beside them (9633792 / 2^20 = 9.1875).
    assert!(
        svg.contains(">lower bound 9633792 bytes (9.2 MiB)</text>"),
        "the bound"
    );
    assert!(svg.contains(">planned 9633792 bytes (9.2 MiB)</text>"));
    // No rounded figure alone: every text with a unit is a whole number of it (a tick),
    // or follows the exact bytes.
    for text in texts(&svg) {
        for unit in [" KiB", " MiB", " GiB"] {
            if let Some(at) = text.find(unit) {
                let before = text[..at].rsplit(['(', ' ']).next().unwrap();
                assert!(
                    before.bytes().all(|c| c.is_ascii_digit()) || text.contains(" bytes ("),
                    "{text}"
                );
            }
        }
    }
    // `x` (602112 bytes, live 0..=316) is a large rectangle: its name is drawn on it.
    assert!(svg.contains("<text class=\"label\""), "no labels");
    let x = rects
        .iter()
        .find(|r| r.contains("<title>x: 602112 bytes"))
        .unwrap();
    let label = svg
        .lines()
        .find(|l| l.starts_with("<text class=\"label\"") && l.ends_with(">x</text>"))
        .expect("a label for `x`");
    let (lx, ly): (f64, f64) = (
        attr(label, "x").parse().unwrap(),
        attr(label, "y").parse().unwrap(),
    );
    let num = |k: &str| attr(x, k).parse::<f64>().unwrap();
    assert!(lx > num("x") && lx < num("x") + num("width"), "{label} {x}");
    assert!(
        ly > num("y") && ly < num("y") + num("height"),
        "{label} {x}"
    );
    assert!(svg.contains(">peak step "));
}

#[test]
fn a_thousand_buffers_stay_inside_their_panel_and_regions_get_panels_of_their_own() {
    // 1000 buffers, one in seven of them empty, in MiniMalloc's format.
    let file = common::thousand_buffers("thousand.csv")
        .display()
        .to_string();
    let out = tmp("thousand.svg");
    memplan(&["svg", &file, "-o", &out, "--strategy", "best_of"]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let rects = buffer_rects(&svg);
    assert_eq!(rects.len(), 1000);
    let (top, bottom) = (50.0, 50.0 + 480.0);
    for r in &rects {
        let y: f64 = attr(r, "y").parse().unwrap();
        let h: f64 = attr(r, "height").parse().unwrap();
        let w: f64 = attr(r, "width").parse().unwrap();
        assert!(h >= 1.5 && w >= 1.5, "{r}");
        assert!(y >= top - 0.01 && y + h <= bottom + 0.01, "{r}");
    }
    let out = tmp("two.svg");
    let two = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/two_regions.json");
    memplan(&["svg", &two.display().to_string(), "-o", &out]);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_eq!(svg.matches("<g id=\"region-").count(), 2);
    assert_eq!(buffer_rects(&svg).len(), 6);
    // One step axis for both panels: `tcm`'s buffers live over steps 0..=5, `sram`'s over
    // 1..=3 only, yet each panel ticks the same steps at the same x.
    let panels: Vec<&str> = svg.split("<g id=\"region-").skip(1).collect();
    let step_ticks = |panel: &str| -> Vec<(String, String)> {
        panel
            .lines()
            .filter(|l| {
                l.starts_with("<line")
                    && l.contains("stroke=\"#888\"")
                    && l.contains("text-anchor=\"middle\">")
            })
            .map(|l| {
                let text = &l[l.find("<text").unwrap()..];
                let value = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
                (attr(text, "x").to_string(), value.to_string())
            })
            .collect()
    };
    let (a, b) = (step_ticks(panels[0]), step_ticks(panels[1]));
    let values: Vec<&str> = a.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(values, ["0", "1", "2", "3", "4", "5", "6"], "{a:?}");
    assert_eq!(a, b);
    // Names are drawn where they fit: `conv-1` (1000 bytes of sram's 2008) does.
    assert!(svg.contains(">conv-1</text>"), "{svg}");
}

#[test]
fn the_trace_is_laid_out_as_executorch_lays_it_out() {
    let file = data("resnet18_greedy.csv");
    let out = tmp("resnet18.json");
    memplan(&["trace", &file, "-o", &out]);
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let events: Vec<&serde_json::Value> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    // The rows of the file: (name, size, first, last).
    let rows: Vec<(String, u64, u64, u64)> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            )
        })
        .collect();
    let total: u64 = rows.iter().map(|r| r.3 - r.2 + 1).sum();
    assert_eq!(events.len() as u64, total);
    // The steps at which something is live, in order: row `tid` is the `tid`-th of them.
    let steps: Vec<u64> = rows
        .iter()
        .flat_map(|r| r.2..=r.3)
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    // memplan's offsets, from `memplan plan --format json`.
    let report: serde_json::Value =
        serde_json::from_str(&memplan(&["plan", &file, "--format", "json"])).unwrap();
    let offsets: Vec<u64> = report["plans"][0]["plan"]["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_u64().unwrap())
        .collect();
    for e in &events {
        let i = rows.iter().position(|r| e["name"] == r.0.as_str()).unwrap();
        let step = steps[e["tid"].as_u64().unwrap() as usize];
        assert!(rows[i].2 <= step && step <= rows[i].3, "{e}");
        assert_eq!(e["cat"], "memory_allocation");
        assert_eq!(e["ts"], offsets[i]);
        assert_eq!(e["dur"], rows[i].1);
        assert_eq!(e["pid"], 0);
        assert_eq!(e["args"]["Memory ID"], 0);
        assert_eq!(e["args"]["bytes"], rows[i].1);
    }
    // ExecuTorch's own offsets, by its memory id (1), with --offsets file.
    memplan(&["trace", &file, "-o", &out, "--offsets", "file"]);
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let first = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ph"] == "X")
        .unwrap();
    assert_eq!(
        (
            first["name"].as_str(),
            first["pid"].as_u64(),
            first["ts"].as_u64()
        ),
        (Some("x"), Some(1), Some(3211264))
    );
}

/// A buffer one step wide of sixty and most of the bytes high: its name does not fit
/// across (1000 / 60 pixels) but fits upwards, so it is drawn rotated, inside its
/// rectangle; a 16-byte one beside it, 2 pixels high, gets no name at all.
#[test]
fn a_tall_narrow_buffer_is_named_upwards_and_a_flat_one_not_at_all() {
    let file = tmp("tall.csv");
    std::fs::write(
        &file,
        "name,offset,size,first,last\ntall_and_narrow,0,4096,30,30\nflat,4096,16,0,59\n",
    )
    .unwrap();
    let out = tmp("tall.svg");
    memplan(&["svg", &file, "-o", &out]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let label = svg
        .lines()
        .find(|l| l.ends_with(">tall_and_narrow</text>"))
        .expect("a label");
    assert!(label.contains(" transform=\"rotate(-90 "), "{label}");
    let rect = buffer_rects(&svg)
        .into_iter()
        .find(|r| r.contains("<title>tall_and_narrow:"))
        .unwrap();
    let num = |tag: &str, k: &str| attr(tag, k).parse::<f64>().unwrap();
    let (x, w) = (num(rect, "x"), num(rect, "width"));
    assert!(w < 15.0 * 6.5, "{rect}");
    assert!(
        num(label, "x") > x && num(label, "x") < x + w,
        "{label} {rect}"
    );
    assert!(!svg.contains(">flat</text>"), "{svg}");
}
