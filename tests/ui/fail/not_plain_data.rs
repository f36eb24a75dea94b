// Bytes are reused across buffers, so an element type must be plain data: `bool` has
// invalid bit patterns, and `Padded` has padding.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Padded {
    pub a: u8,
    pub b: u32,
}

memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffer flags: [bool; 16] as 16 bytes in sram, live 0..=1, align 1;
        buffer pairs: [Padded; 4] as 32 bytes in sram, live 0..=1, align 4;
    }
}

fn main() {}
