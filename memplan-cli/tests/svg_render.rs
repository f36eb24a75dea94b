//! `memplan svg`'s maps render (resvg) to pixels that are not blank, and the parsed tree
//! has one buffer rectangle per buffer: mobilenet_v2's plan (257 buffers) and a
//! synthetic plan of 1,000 buffers, one in seven of them empty.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

mod common;

use resvg::{tiny_skia, usvg};

fn map(file: &Path, name: &str) -> String {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let status = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("svg")
        .arg(file)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("memplan runs");
    assert!(status.success());
    std::fs::read_to_string(out).unwrap()
}

/// The ids of every node of `group` and its descendants that start with `prefix`.
fn ids_with_prefix(group: &usvg::Group, prefix: &str, out: &mut Vec<String>) {
    for node in group.children() {
        if node.id().starts_with(prefix) {
            out.push(node.id().to_string());
        }
        if let usvg::Node::Group(g) = node {
            ids_with_prefix(g, prefix, out);
        }
    }
}

/// Parses and renders `svg`, and checks it: as many `buf-` rectangles as `buffers`, and
/// pixels that are neither mostly white nor few colours.
fn check(svg: &str, buffers: usize) {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).unwrap();
    let mut ids = Vec::new();
    ids_with_prefix(tree.root(), "buf-", &mut ids);
    assert_eq!(ids.len(), buffers);
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), buffers);
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let pixels = pixmap.pixels();
    let not_white = pixels
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) != (255, 255, 255))
        .count();
    // The plot area (1000 x 480 pixels of a 1370 x 580 panel) is drawn over.
    assert!(
        not_white * 2 > pixels.len(),
        "{not_white} of {} pixels",
        pixels.len()
    );
    let colours: BTreeSet<(u8, u8, u8)> = pixels
        .iter()
        .map(|p| (p.red(), p.green(), p.blue()))
        .collect();
    assert!(colours.len() > 50, "{} colours", colours.len());
}

#[test]
fn maps_render_and_have_a_rectangle_per_buffer() {
    let mobilenet = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/executorch/mobilenet_v2_greedy.csv");
    check(&map(&mobilenet, "render_mobilenet.svg"), 257);
    let file = common::thousand_buffers("render_thousand.csv");
    check(&map(&file, "render_thousand.svg"), 1000);
}
