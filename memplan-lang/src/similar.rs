//! "Did you mean" hints: the closest known name to a misspelt one (a region, a bank, a
//! buffer, a statement or clause keyword), by the rule rustc's suggestions use.

/// ` (did you mean `x`?)` for the [`closest`] of `known` to `wanted`, or nothing. Each
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
    closest(wanted, known).map_or(String::new(), |k| format!(" (did you mean `{k}`?)"))
}

/// The closest of `known` to `wanted`, as rustc's suggestions: at most a third of its
/// length apart in edits (at least one), the first of those equally close; only names of
/// a similar length are compared, and none for a name of over 64 bytes.
pub(crate) fn closest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if wanted.len() > 64 {
        return None;
    }
    let most = wanted.chars().count().max(3) / 3;
    let mut best: Option<(usize, &str)> = None;
    for k in known.filter(|k| k.len().abs_diff(wanted.len()) <= most) {
        let d = edit_distance(k, wanted);
        if d <= most && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// How many unknown names of one invocation get a "did you mean" search.
pub(crate) const HINTS: usize = 16;

/// Edit distance with adjacent transpositions (`sarm` is one edit from `sram`, as in
/// rustc's suggestions), for "did you mean" hints: the optimal string alignment distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: the one two back (for transpositions), the last, the current.
    let mut two: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(cur[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut two, &mut last);
        std::mem::swap(&mut last, &mut cur);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, edit_distance};

    #[test]
    fn edit_distance_counts_a_transposition_once() {
        assert_eq!(edit_distance("sarm", "sram"), 1);
        assert_eq!(edit_distance("SRAM9", "SRAM3"), 1);
        assert_eq!(edit_distance("SRAM9", "RAM"), 2);
        assert_eq!(edit_distance("conv11", "conv1"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_hint_is_the_closest_name_within_a_third_of_its_length() {
        let hint = |wanted: &str, known: &[&str]| {
            let mut left = 16;
            did_you_mean(&mut left, wanted, known.iter().copied())
        };
        // `RAM` comes first but is two edits away, `SRAM3` one.
        assert_eq!(hint("SRAM9", &["RAM", "SRAM3"]), " (did you mean `SRAM3`?)");
        assert_eq!(hint("sarm", &["sram", "dtcm"]), " (did you mean `sram`?)");
        // Two edits on a name of two letters is no likeness.
        assert_eq!(hint("zz", &["a", "b"]), "");
        // Equally close: the first.
        assert_eq!(hint("bufx", &["bufa", "bufb"]), " (did you mean `bufa`?)");
    }
}
