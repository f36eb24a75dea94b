//! Plan descriptions (`.memplan.info`, what `memplan inspect` reads out of a firmware's ELF)
//! on arbitrary bytes: decoding never panics; every description it accepts gives its
//! problems, and its report when it has none, without a panic; and it encodes to text that
//! decodes to the same description.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_lang::info::PlanInfo;

fuzz_target!(|data: &[u8]| {
    let Ok(infos) = PlanInfo::decode_all(data) else {
        return;
    };
    for info in &infos {
        if info.problems().is_empty() {
            let _ = info.report();
        }
        let again =
            PlanInfo::decode_all(info.encode().as_bytes()).expect("an encoded description decodes");
        assert_eq!(again, std::slice::from_ref(info));
    }
});
