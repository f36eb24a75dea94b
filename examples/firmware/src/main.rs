//! The firmware: classifies the held-out digits with the planned memory and prints
//! `result: <correct>/<total> correct, matches reference: <yes|no>` over semihosting;
//! exits 0 only when every prediction matches the reference.

#![no_std]
#![no_main]

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use memplan_firmware::{digits, run};
use memplan_runtime::MemoryId;

#[entry]
fn main() -> ! {
    let mut core = cortex_m::Peripherals::take().expect("the core peripherals, once");
    core.SYST.set_clock_source(SystClkSource::Core);
    core.SYST.set_reload(0x00FF_FFFF);
    core.SYST.clear_current();
    core.SYST.enable_counter();
    let before = SYST::get_current();
    let manager = digits::take().expect("the plan's manager, once");
    let ticks = before.wrapping_sub(SYST::get_current()) & 0x00FF_FFFF;
    hprintln!(
        "take(): zeroed {} bytes of region act in SRAM3 in {} SysTick ticks",
        <digits::Act as MemoryId>::SIZE,
        ticks
    );
    #[cfg(feature = "planted-overrun")]
    overrun(manager);
    let (correct, total, matches) = run(manager, |i, predicted, reference| {
        hprintln!(
            "image {}: predicted {}, reference {}",
            i,
            predicted,
            reference
        );
    });
    hprintln!(
        "result: {}/{} correct, matches reference: {}",
        correct,
        total,
        if matches { "yes" } else { "no" }
    );
    debug::exit(if matches {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

/// The planted bug of the feature `planted-overrun`: at step 0, one byte written just past
/// the end of buffer `pixels` (live 0..=0), as a kernel that gets its loop bound wrong by
/// one would. The canary after `pixels` must catch it when the walk leaves step 0.
#[cfg(feature = "planted-overrun")]
fn overrun(manager: &mut memplan_firmware::Manager) {
    use memplan_runtime::PlannedBuffer;
    manager.begin_step(0);
    let pixels = manager.checked_buffer::<digits::Pixels>();
    // SAFETY: the byte after `pixels` is in bounds and nothing else refers to it: it is
    // the first of the guard bytes the plan leaves after every buffer with `debug-canary`
    // (inside region `io`'s arena), and no view is open. Writing it breaks no memory rule,
    // only the plan's: the planted bug the canary reports.
    unsafe {
        pixels
            .as_ptr()
            .add(<digits::Pixels as PlannedBuffer>::SIZE)
            .write(0);
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    hprintln!("panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
