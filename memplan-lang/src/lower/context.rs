//! The state of lowering one invocation: the model being built, the names declared so
//! far, and where plan-file paths resolve.

use std::collections::HashMap;
use std::path::PathBuf;

use proc_macro2::Span;

use super::model::Model;
use crate::diag::Diagnostics;

/// Where the invocation is: what relative plan-file paths and `from out_dir` resolve
/// against.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// The folder of the source file that holds the invocation (`include_str!`'s base).
    pub base_dir: Option<PathBuf>,
    /// The crate's `OUT_DIR` (a build script's output folder), if any.
    pub out_dir: Option<PathBuf>,
    /// The package the invocation is in (`CARGO_PKG_NAME`): part of the link-section names
    /// of arenas placed with `memory M`, so that two packages' plans never share one.
    /// `None` stands for `crate`.
    pub package: Option<String>,
    /// Plan a guard after every buffer, for the runtime's `debug-canary`.
    pub canary: bool,
    /// The module path around the invocation in its crate, outermost first (file modules,
    /// then inline ones): with the plan's own module, it
    /// names the plan's link sections and symbols, so that plans of one name in two
    /// modules stay apart. Empty when unknown.
    pub modules: Vec<String>,
    /// A strategy that replaces the invocation's own (the `memplan` command's
    /// `--strategy`).
    pub strategy: Option<memplan_planner::Strategy>,
    /// The package's root folder (`CARGO_MANIFEST_DIR`), where its `memory.x` is looked
    /// for (in it, then in `OUT_DIR`) when a region or pool names a memory.
    pub root: Option<PathBuf>,
}

/// Names the generated module uses itself.
const RESERVED: &[&str] = &["Plan", "BUFFERS", "STRATEGY", "REPORT", "take"];

/// The state of lowering one invocation.
pub(crate) struct Lowering<'a> {
    pub(crate) env: &'a Env,
    pub(crate) diags: &'a mut Diagnostics,
    pub(crate) model: Model,
    pub(crate) region_by_name: HashMap<String, usize>,
    pub(crate) buffer_by_name: HashMap<String, usize>,
    /// Type names in use, with a description of their first user.
    pub(crate) type_names: HashMap<String, String>,
    /// Statements that may be given once: `crate`, `strategy`, `lock`, and each pool.
    pub(crate) seen: Seen,
    /// "Did you mean" searches left ([`crate::similar::did_you_mean`]).
    pub(crate) hints_left: usize,
}

/// Which once-only statements were seen.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) krate: bool,
    pub(crate) strategy: bool,
    pub(crate) lock: bool,
    pub(crate) pools: [bool; 3],
}

impl Lowering<'_> {
    /// Claims the generated type name `tname` for `what` (a region or buffer, described
    /// for messages); reports and returns `false` when it is reserved or taken.
    pub(crate) fn claim(&mut self, tname: &str, span: Span, what: String) -> bool {
        if RESERVED.contains(&tname) {
            self.diags.at(
                span,
                format!("{what} would be named `{tname}`, which the generated module uses itself: rename it"),
            );
            return false;
        }
        if let Some(prev) = self.type_names.get(tname) {
            self.diags.at(
                span,
                format!("{prev} and {what} both get the Rust name `{tname}`: rename one"),
            );
            false
        } else {
            self.type_names.insert(tname.to_string(), what);
            true
        }
    }

    /// Whether the generated type name `tname` is neither reserved nor taken.
    pub(crate) fn type_name_free(&self, tname: &str) -> bool {
        !RESERVED.contains(&tname) && !self.type_names.contains_key(tname)
    }

    /// Who owns the generated type name `name`, if anyone.
    pub(crate) fn owner_of(&self, name: &str) -> Option<&str> {
        self.type_names.get(name).map(String::as_str)
    }
}
