//! A linker script's MEMORY command (`memory.x`, which the macro reads for every `memory M`)
//! on arbitrary text: the reader never panics nor overflows the stack, and every bank it
//! finds answers whether it is writable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_lang::memory_x;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for bank in memory_x::parse(text) {
        let _ = bank.writable();
    }
});
