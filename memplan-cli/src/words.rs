//! Counts in words: `1 buffer`, `2 buffers`, with the plural every message uses.

/// `n` and the noun, singular for exactly one: `count(1, "buffer")` is `1 buffer`,
/// `count(0, "buffer")` is `0 buffers`. The plural adds `s`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A byte count: `1 byte`, `64 bytes`.
pub fn bytes(n: impl Into<u128>) -> String {
    let n = n.into();
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::{bytes, count};

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(0, "buffer"), "0 buffers");
        assert_eq!(count(1, "buffer"), "1 buffer");
        assert_eq!(count(2, "tensor"), "2 tensors");
        assert_eq!(bytes(1u64), "1 byte");
        assert_eq!(bytes(0u64), "0 bytes");
        assert_eq!(bytes(16u64), "16 bytes");
        assert_eq!(count(usize::MAX, "plan"), format!("{} plans", usize::MAX));
    }
}
