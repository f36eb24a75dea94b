//! The closest known name to a misspelt one, for "did you mean" hints in every message
//! that names an unknown thing (a region, a bank, a buffer, a keyword, a strategy).

/// The closest of `known` to `wanted`, as rustc's suggestions: one that differs only in
/// case, else one at most a third of its length apart in edits (at least one), the first
/// of those equally close; only names of a similar length are compared, and none for a
/// name of over 64 bytes.
pub fn closest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if wanted.len() > 64 {
        return None;
    }
    let known: Vec<&'a str> = known.collect();
    // As rustc: a name that differs only in case is the one meant.
    if let Some(k) = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(wanted) && **k != wanted)
    {
        return Some(k);
    }
    let most = wanted.chars().count().max(3) / 3;
    let mut best: Option<(usize, &str)> = None;
    for k in known
        .into_iter()
        .filter(|k| k.len().abs_diff(wanted.len()) <= most)
    {
        let d = edit_distance(k, wanted);
        if d <= most && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

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
    use super::{closest, edit_distance};

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
    fn the_closest_name_is_within_a_third_of_its_length() {
        let of = |wanted: &str, known: &[&'static str]| closest(wanted, known.iter().copied());
        // `RAM` comes first but is two edits away, `SRAM3` one.
        assert_eq!(of("SRAM9", &["RAM", "SRAM3"]), Some("SRAM3"));
        assert_eq!(of("sarm", &["sram", "dtcm"]), Some("sram"));
        // Two edits on a name of two letters is no likeness.
        assert_eq!(of("zz", &["a", "b"]), None);
        // Equally close: the first.
        assert_eq!(of("bufx", &["bufa", "bufb"]), Some("bufa"));
        assert_eq!(of(&"x".repeat(65), &["x"]), None);
        // Case alone: the one meant, however long.
        assert_eq!(of("DMA", &["tightly_coupled", "dma"]), Some("dma"));
        assert_eq!(
            of("Tightly_Coupled", &["dma", "tightly_coupled"]),
            Some("tightly_coupled")
        );
    }
}
