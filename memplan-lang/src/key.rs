//! Where a plan is: its package and module path, made safe for link-section and symbol
//! names ([`PlanKey`]), the key of its lock file entry and its description too.

use crate::lower::Model;
use crate::{names, source};

/// An identifier-safe form of a package name: characters outside `[A-Za-z0-9_]` become `_`.
fn ident_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where a plan is, for its link-section and symbol names: its package and module path
/// (its own module last), each part in ASCII (`[A-Za-z0-9_]`, a non-ASCII character as
/// `_u{hex}_`, a raw identifier without its `r#`), so that the names are valid on every
/// target (an `extern` block takes no non-ASCII name on bare metal) and two plans of one
/// name in two modules never share a section.
pub struct PlanKey {
    pub(crate) package: String,
    pub(crate) path: Vec<String>,
    /// The module path as written, for messages.
    shown: String,
}

impl PlanKey {
    /// The key of `model`.
    pub(crate) fn of(model: &Model) -> PlanKey {
        PlanKey::new(&model.package, &model.path)
    }

    /// The key of a plan at module `path` (its own module last) in package `package`.
    pub fn new(package: &str, path: &[String]) -> PlanKey {
        PlanKey {
            package: ident_part(package),
            path: path
                .iter()
                .map(|p| names::ascii(&source::unraw(p)))
                .collect(),
            shown: path
                .iter()
                .map(|p| source::unraw(p))
                .collect::<Vec<_>>()
                .join("::"),
        }
    }

    /// The module path as written, `::`-separated, for messages: `a::kws`.
    pub fn display(&self) -> &str {
        &self.shown
    }
}
