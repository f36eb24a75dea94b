// The buffer `sample` gets the Rust name `Sample`, which would hide the element type.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Sample {
    pub left: i16,
    pub right: i16,
}

memplan_runtime::memory_plan! {
    mod m {
        region r: 1 KiB;
        buffer sample: [Sample; 4] as 16 bytes in r, live 0..=1, align 2;
    }
}

fn main() {}
