//! "Did you mean" hints in the macro's errors: the closest known name to a misspelt one (a
//! region, a bank, a buffer, a statement or clause keyword), by the planner's rule
//! ([`memplan_planner::closest`]), a bounded number of searches per invocation.

/// ` (did you mean `x`?)` for the [`memplan_planner::closest`] of `known` to `wanted`, or nothing. Each
/// invocation searches for at most [`HINTS`] unknown names (`hints_left` counts down), so
/// that thousands of unknown names among thousands of known ones cost no more than a few
/// searches.
pub(crate) fn did_you_mean<'a>(
    hints_left: &mut usize,
    wanted: &str,
    known: impl Iterator<Item = &'a str>,
) -> String {
    if *hints_left == 0 {
        return String::new();
    }
    *hints_left -= 1;
    memplan_planner::closest(wanted, known)
        .map_or(String::new(), |k| format!(" (did you mean `{k}`?)"))
}

/// How many unknown names of one invocation get a "did you mean" search.
pub(crate) const HINTS: usize = 16;

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn the_hint_names_the_closest_while_searches_are_left() {
        let mut left = 2;
        let mut hint =
            |wanted: &str, known: &[&str]| did_you_mean(&mut left, wanted, known.iter().copied());
        assert_eq!(hint("SRAM9", &["RAM", "SRAM3"]), " (did you mean `SRAM3`?)");
        assert_eq!(hint("zz", &["a", "b"]), "");
        // Two searches made: no more.
        assert_eq!(hint("sarm", &["sram"]), "");
    }
}
