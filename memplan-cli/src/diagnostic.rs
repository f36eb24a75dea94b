//! A front-end diagnostic printed as rustc prints the macro's: the same message at the
//! same line and column.

use std::path::Path;

use memplan_lang::Diagnostic;

/// A diagnostic as rustc prints one: `error: MESSAGE` (later lines of the message
/// indented under the first), then ` --> FILE:LINE:COLUMN` (1-based, as rustc counts).
pub fn render(file: &Path, d: &Diagnostic) -> String {
    let start = d.span.first.start();
    let mut lines = d.message.lines();
    let mut out = format!("error: {}", lines.next().unwrap_or(""));
    for line in lines {
        out.push_str("\n       ");
        out.push_str(line);
    }
    out.push_str(&format!(
        "\n --> {}:{}:{}\n",
        file.display(),
        start.line,
        start.column + 1
    ));
    out
}

/// A plan file's or a model's error as `main` prints it after `error: `: each fault (a
/// CSV's faulty rows, a JSON file's faulty entries, a model's faulty tensors and
/// operators, the first few, then how many more) on a line of its own, each after the
/// first prefixed `error: ` too.
pub fn file_error(e: &memplan_planner::files::FileError) -> String {
    e.lines().join("\nerror: ")
}
