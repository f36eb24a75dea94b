//! The `.tflite` reader on arbitrary bytes: an error naming the file, or a model whose
//! planned tensors have lifetimes within its steps; a model that reads is written back with
//! an offline plan and read again, to the same tensors; TensorFlow Lite Micro's head is
//! worked out for it (its kernels' scratch requests too). Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_planner::files::tflite;

fuzz_target!(|data: &[u8]| {
    match tflite::read(data, "fuzz.tflite") {
        Err(e) => assert_eq!(e.file, "fuzz.tflite"),
        Ok(m) => {
            for t in &m.tensors {
                assert!(t.lifetime.first <= t.lifetime.last && t.lifetime.last <= m.last_step);
            }
            for r in &m.scratch.requests {
                assert!(r.lifetime.first <= r.lifetime.last && r.lifetime.last <= m.last_step);
            }
            let _ = tflite::tflm_head(&m, None);
            let offsets: Vec<_> = m
                .tensors
                .iter()
                .enumerate()
                .map(|(k, t)| (t.id, 16 * k as u64))
                .collect();
            if let Ok(written) = tflite::write_offline_plan(data, "fuzz.tflite", &offsets) {
                let again = tflite::read(&written, "fuzz.tflite").expect("a written model reads");
                assert_eq!(again.tensors.len(), m.tensors.len());
                // Compared as printed: an option read as NaN (a softmax beta) is the same
                // option written back, though NaN != NaN.
                assert_eq!(
                    format!("{:?}", again.operators),
                    format!("{:?}", m.operators)
                );
            }
        }
    }
});
