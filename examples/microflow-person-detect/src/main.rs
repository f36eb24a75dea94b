//! For comparison with examples/person-detect: the same model
//! (`examples/data/tflite/person_detect.tflite`) run by MicroFlow (`microflow` 0.1.3 from
//! crates.io, its `#[model]` macro and `predict_quantized`) on the same board
//! (QEMU's mps2-an386), the same two int8 inputs, measured the same way: the instructions
//! per inference (SysTick under `-icount shift=0`) and the peak stack (painted). MicroFlow
//! keeps every activation on the stack. Prints each image's scores and whether they equal
//! LiteRT's bytes; the exit code says only whether it ran (0), not whether they match.

#![no_std]
#![no_main]

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use microflow::buffer::Buffer2D;
use microflow::model;

#[model("../data/tflite/person_detect.tflite")]
struct PersonDetect;

/// The inputs and LiteRT's outputs examples/person-detect checks (its data/, written by its
/// tools/expected_outputs.py).
const IMAGES: [(&str, &[u8], &[u8]); 2] = [
    (
        "person",
        include_bytes!("../../person-detect/data/person.input.bin"),
        include_bytes!("../../person-detect/data/person.expected.bin"),
    ),
    (
        "no_person",
        include_bytes!("../../person-detect/data/no_person.input.bin"),
        include_bytes!("../../person-detect/data/no_person.expected.bin"),
    ),
];

const PAINT: u32 = 0xC0FF_EE11;
const MARGIN: usize = 256;
const WRAP: u32 = 0x00FF_FFFF;
const INSTRUCTIONS_PER_TICK: u64 = 40;
const CALIBRATION: u32 = 4_000_000;

unsafe extern "C" {
    static __sheap: u32;
    static _stack_start: u32;
}

/// `(bottom, top)` of the stack: only the symbols' addresses, never their values.
fn stack_bounds() -> (usize, usize) {
    (
        core::ptr::addr_of!(__sheap) as usize,
        core::ptr::addr_of!(_stack_start) as usize,
    )
}

#[inline(never)]
fn paint_stack() {
    let (bottom, _) = stack_bounds();
    let sp = cortex_m::register::msp::read() as usize;
    let mut p = bottom;
    while p + 4 <= sp - MARGIN {
        // SAFETY: `p` is a word in `__sheap..sp - MARGIN`: RAM above every static and below
        // the live stack (which grows down from `_stack_start`; this frame is above `sp`),
        // so no Rust object lives there; volatile so the write is not elided.
        unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

fn peak_stack() -> usize {
    let (bottom, top) = stack_bounds();
    let mut p = bottom;
    // SAFETY: `p` stays in `__sheap.._stack_start`, RAM the stack owns, word aligned;
    // a volatile read only observes what the stack left there.
    while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    top - p
}

/// MicroFlow's dequantized output back to the int8 bytes (scale 1/256, zero point -128,
/// so `x * 256 - 128` is an exact integer).
fn requantize(x: f32) -> u8 {
    ((x * 256.0) as i32 - 128) as i8 as u8
}

#[inline(never)]
fn infer(input: &[u8]) -> [u8; 2] {
    let image = [Buffer2D::from_fn(|row, col| [input[row * 96 + col] as i8])];
    let out = PersonDetect::predict_quantized(image);
    [requantize(out[0]), requantize(out[1])]
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
    let mut all = true;
    for (name, input, expected) in IMAGES {
        core.SYST.clear_current();
        let before = SYST::get_current();
        let out = infer(input);
        let after = SYST::get_current();
        let ticks = if core.SYST.has_wrapped() {
            u32::MAX
        } else {
            before.wrapping_sub(after) & WRAP
        };
        let same = out[..] == expected[..];
        all &= same;
        hprintln!(
            "{}: no person {} person {}, LiteRT's bytes: {}; {} SysTick ticks (about {} instructions)",
            name,
            out[0] as i8,
            out[1] as i8,
            if same { "yes" } else { "NO" },
            ticks,
            u64::from(ticks) * INSTRUCTIONS_PER_TICK
        );
    }
    let (bottom, top) = stack_bounds();
    hprintln!(
        "peak stack: {} bytes (painted; {} bytes between .bss and the top of RAM)",
        peak_stack(),
        top - bottom
    );
    hprintln!("matches LiteRT: {}", if all { "yes" } else { "no" });
    debug::exit(debug::EXIT_SUCCESS);
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
