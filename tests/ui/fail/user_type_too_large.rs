// `[Sample; 16]` is 64 bytes on every target, above the declared 48.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Sample {
    pub left: i16,
    pub right: i16,
}

memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffer s: [Sample; 16] as 48 bytes in sram, live 0..=1, align 2;
    }
}

fn main() {}
