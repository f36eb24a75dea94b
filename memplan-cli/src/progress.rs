//! A spinner on stderr while a plan takes longer than a moment: started by a timer thread
//! after [`DELAY`], only when asked to (never for `--format json`, never when stderr is
//! not a terminal), and cleared when the work ends.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the spinner appears.
pub const DELAY: Duration = Duration::from_millis(250);

/// Whether a spinner may be shown: stderr is a terminal and the output is not JSON.
pub fn wanted(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// Runs `work`, with a spinner saying `label` if `show` and it takes longer than
/// [`DELAY`].
pub fn spin<T>(label: &str, show: bool, work: impl FnOnce() -> T) -> T {
    if !show {
        return work();
    }
    let (done, wait) = mpsc::channel::<()>();
    let label = label.to_string();
    let timer = std::thread::spawn(move || {
        if wait.recv_timeout(DELAY) != Err(RecvTimeoutError::Timeout) {
            return;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(label);
        bar.enable_steady_tick(Duration::from_millis(100));
        let _ = wait.recv();
        bar.finish_and_clear();
    });
    let out = work();
    drop(done);
    let _ = timer.join();
    out
}
