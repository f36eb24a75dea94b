//! `memplan check FILE.rs`: every `memory_plan!` invocation of a Rust source file, through
//! the macro's front end: its errors as the compiler would print them, or its report.

use std::path::Path;

use memplan_lang::{Diagnostic, Env, check, source};

/// Checks `file`; `Ok(true)` when every invocation plans, `Ok(false)` when any has errors
/// (printed on stderr), `Err` when the file cannot be read.
pub fn run(file: &Path, out_dir: Option<&Path>) -> Result<bool, String> {
    if file.extension().and_then(|e| e.to_str()) != Some("rs") {
        return Err(format!(
            "{}: `memplan check` reads a Rust source file (.rs) and checks its memory_plan! invocations",
            file.display()
        ));
    }
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let invocations = source::invocations(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    if invocations.is_empty() {
        return Err(format!("{}: no memory_plan! invocation", file.display()));
    }
    let env = Env {
        base_dir: file
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .map(Path::to_path_buf),
        out_dir: out_dir.map(Path::to_path_buf),
        package: None,
        canary: false,
    };
    let mut ok = true;
    for invocation in invocations {
        let checked = check(invocation.tokens, &env);
        for d in checked.diagnostics.iter() {
            eprintln!("{}", render(file, d));
            ok = false;
        }
        if let Some(report) = checked.report() {
            print!("{report}");
        }
    }
    Ok(ok)
}

/// A diagnostic as rustc prints one: `error: MESSAGE` (later lines of the message
/// indented under the first), then ` --> FILE:LINE:COLUMN` (1-based, as rustc counts).
fn render(file: &Path, d: &Diagnostic) -> String {
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
