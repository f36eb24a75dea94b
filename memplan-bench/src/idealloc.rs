//! idealloc's inputs (github.com/cappadokes/idealloc, `coreba`'s readers): its benchmark
//! suites (`benchmarks/minimalloc`, `benchmarks/iopddl`, `benchmarks/somas_tensors`) are
//! MiniMalloc CSV (`id,lower,upper,size`, live on `[lower, upper)`, which [`crate::inputs`]
//! reads), and its own binary format, `.plc` (what its `adapt` tool writes), which this
//! module reads.
//!
//! A `.plc` file is a sequence of jobs of eight big-endian 64-bit words each: id, birth,
//! death, size, two words idealloc does not read, alignment (0: none) and requested size.
//! A job is live on `[birth, death)`: idealloc's jobs overlap when
//! `birth < other.death && other.birth < death`, as MiniMalloc's buffers do, so a job is a
//! buffer live `birth..=death - 1`, of `size` bytes, aligned to `alignment` when given.

use memplan_planner::Buffer;

/// The words of one job.
pub const WORDS: usize = 8;

/// The jobs of a `.plc` file's bytes as buffers; `file` names it in errors.
///
/// # Errors
///
/// A length that is not a whole number of jobs, a job that dies before it is born (or at
/// birth), a step past `u32::MAX`, or an alignment that is not a power of two.
pub fn parse_plc(bytes: &[u8], file: &str) -> Result<Vec<Buffer>, String> {
    let job = 8 * WORDS;
    if !bytes.len().is_multiple_of(job) {
        return Err(format!(
            "{file}: {} bytes is not a whole number of {job}-byte jobs",
            bytes.len()
        ));
    }
    bytes
        .chunks_exact(job)
        .enumerate()
        .map(|(k, chunk)| {
            let word = |w: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&chunk[8 * w..8 * w + 8]);
                u64::from_be_bytes(b)
            };
            let (id, birth, death, size, align) = (word(0), word(1), word(2), word(3), word(6));
            let at = || format!("{file}: job {k} (id {id})");
            if death <= birth {
                return Err(format!(
                    "{}: dies at {death}, not after its birth at {birth}",
                    at()
                ));
            }
            let step =
                |t: u64| u32::try_from(t).map_err(|_| format!("{}: step {t} past u32", at()));
            let buffer = Buffer::new(id.to_string(), size, 0, step(birth)?, step(death - 1)?);
            match align {
                0 => Ok(buffer),
                a if a.is_power_of_two() => Ok(buffer.with_align(a)),
                a => Err(format!("{}: alignment {a} is not a power of two", at())),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(words: [u64; WORDS]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn jobs_are_buffers_live_until_the_step_before_death() {
        let mut bytes = job([7, 2, 5, 100, 0, 0, 0, 100]);
        bytes.extend(job([8, 5, 6, 64, 0, 0, 16, 60]));
        let b = parse_plc(&bytes, "t.plc").unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].name.as_str(), b[0].size), ("7", 100));
        assert_eq!((b[0].lifetime.first, b[0].lifetime.last), (2, 4));
        assert_eq!(b[0].align, None);
        // Born when the first dies: they do not overlap, in idealloc as here.
        assert_eq!((b[1].lifetime.first, b[1].lifetime.last), (5, 5));
        assert_eq!(b[1].align, Some(16));
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(
            parse_plc(&[0; 63], "t.plc")
                .unwrap_err()
                .contains("whole number")
        );
        let e = parse_plc(&job([1, 5, 5, 8, 0, 0, 0, 8]), "t.plc").unwrap_err();
        assert!(e.contains("job 0 (id 1)"), "{e}");
        let e = parse_plc(&job([1, 0, 5, 8, 0, 0, 24, 8]), "t.plc").unwrap_err();
        assert!(e.contains("power of two"), "{e}");
    }
}
