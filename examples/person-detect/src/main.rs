//! The firmware: runs TFLM's person detection model on both test images with the planned
//! memory, prints each image's scores and whether the output tensor equals LiteRT's byte for
//! byte, and exits 0 (over semihosting) only when both do. Also prints the instructions
//! each inference takes (SysTick under QEMU's `-icount shift=0`) and the peak stack
//! (measured by painting the stack before the first inference).
//!
//! On the host (`cargo run --release --target host-tuple`) the same inference runs as a
//! plain program.

#![cfg_attr(target_os = "none", no_std, no_main)]

use memplan_person_detect::model::{infer, person};
use memplan_person_detect::testdata::IMAGES;

/// Runs both images; `measure(f)` runs `f` (one inference) and returns what to print
/// after its scores. Returns whether both outputs match.
fn run_all(
    mut measure: impl FnMut(&mut dyn FnMut()) -> u32,
    print: impl Fn(&str, [i8; 2], bool, u32),
) -> bool {
    let manager = person::take().expect("the plan's manager, once");
    let mut all = true;
    for (name, input, expected) in IMAGES {
        let mut scores = [0i8; 2];
        let spent = measure(&mut || infer(manager, input, &mut scores));
        let same = scores.iter().zip(expected).all(|(&s, &e)| s as u8 == e) && expected.len() == 2;
        all &= same;
        print(name, scores, same, spent);
    }
    all
}

#[cfg(target_os = "none")]
mod firmware {
    use cortex_m::peripheral::SYST;
    use cortex_m::peripheral::syst::SystClkSource;
    use cortex_m_rt::entry;
    use cortex_m_semihosting::{debug, hprintln};

    /// The pattern the unused stack is painted with.
    const PAINT: u32 = 0xC0FF_EE11;
    /// Bytes below the current stack pointer left unpainted when painting (the painting
    /// function's own calls).
    const MARGIN: usize = 256;
    /// SysTick's counter is 24 bits wide.
    const WRAP: u32 = 0x00FF_FFFF;
    /// Under `-icount shift=0`, QEMU's MPS2 SysTick (25 MHz) ticks once per 40 instructions.
    const INSTRUCTIONS_PER_TICK: u64 = 40;
    /// Instructions of the calibration loop.
    const CALIBRATION: u32 = 4_000_000;

    unsafe extern "C" {
        /// cortex-m-rt: the first byte after `.bss` and `.uninit` (where a heap would start);
        /// the stack grows down toward it.
        static __sheap: u32;
        /// cortex-m-rt: the initial stack pointer, the top of `RAM`.
        static _stack_start: u32;
    }

    /// `(bottom, top)` of the stack: only the symbols' addresses, never their values.
    fn stack_bounds() -> (usize, usize) {
        (
            core::ptr::addr_of!(__sheap) as usize,
            core::ptr::addr_of!(_stack_start) as usize,
        )
    }

    /// Paints the free stack, from `__sheap` to `MARGIN` bytes below the stack pointer.
    #[inline(never)]
    fn paint_stack() {
        let (bottom, _) = stack_bounds();
        let sp = cortex_m::register::msp::read() as usize;
        let mut p = bottom;
        while p + 4 <= sp - MARGIN {
            // SAFETY: `p` is a word in `__sheap..sp - MARGIN`: RAM above every static and
            // below the live stack (the stack grows down from `_stack_start` and this
            // function's frame is above `sp`), so no Rust object lives there; the write is
            // volatile so it is not elided.
            unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
            p += 4;
        }
    }

    /// The most stack bytes used since painting: from the top to the lowest word that no
    /// longer holds the paint.
    fn peak_stack() -> usize {
        let (bottom, top) = stack_bounds();
        let mut p = bottom;
        // SAFETY: `p` stays in `__sheap.._stack_start`, RAM the stack owns, word aligned;
        // reading it volatile only observes what the stack left there.
        while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
            p += 4;
        }
        top - p
    }

    #[entry]
    fn main() -> ! {
        paint_stack();
        let mut core = cortex_m::Peripherals::take().expect("the core peripherals, once");
        core.SYST.set_clock_source(SystClkSource::Core);
        core.SYST.set_reload(WRAP);
        core.SYST.clear_current();
        core.SYST.enable_counter();
        // The instructions per tick, checked: `delay(n)` runs `subs; bne` n + 1 times.
        core.SYST.clear_current();
        let before = SYST::get_current();
        cortex_m::asm::delay(CALIBRATION / 2 - 1);
        let ticks = before.wrapping_sub(SYST::get_current()) & WRAP;
        hprintln!(
            "calibration: a loop of {} instructions (cortex_m::asm::delay) takes {} SysTick ticks",
            CALIBRATION,
            ticks
        );
        let ok = super::run_all(
            |f| {
                core.SYST.clear_current();
                let before = SYST::get_current();
                f();
                let after = SYST::get_current();
                // Counts up to 2^24 ticks (671 M instructions); if the counter wrapped
                // (COUNTFLAG), u32::MAX is printed instead.
                if core.SYST.has_wrapped() {
                    u32::MAX
                } else {
                    before.wrapping_sub(after) & WRAP
                }
            },
            |name, s, same, ticks| {
                hprintln!(
                    "{}: no person {} person {}, LiteRT's bytes: {}; {} SysTick ticks (about {} instructions)",
                    name,
                    s[0],
                    s[1],
                    if same { "yes" } else { "NO" },
                    ticks,
                    u64::from(ticks) * INSTRUCTIONS_PER_TICK
                );
            },
        );
        let (bottom, top) = stack_bounds();
        hprintln!(
            "peak stack: {} bytes (painted; {} bytes between .bss and the top of RAM)",
            peak_stack(),
            top - bottom
        );
        hprintln!("matches LiteRT: {}", if ok { "yes" } else { "no" });
        debug::exit(if ok {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        });
        loop {
            cortex_m::asm::wfi();
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
}

#[cfg(not(target_os = "none"))]
fn main() {
    let ok = run_all(
        |f| {
            f();
            0
        },
        |name, s, same, _| {
            println!(
                "{name}: no person {} person {}, LiteRT's bytes: {}",
                s[0],
                s[1],
                if same { "yes" } else { "NO" }
            );
        },
    );
    println!("matches LiteRT: {}", if ok { "yes" } else { "no" });
    std::process::exit(if ok { 0 } else { 1 });
}
