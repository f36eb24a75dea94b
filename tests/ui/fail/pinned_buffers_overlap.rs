// Pinned buffers overlap: `q` pinned at 640 lies inside `p`'s bytes [512, 768) at steps 2..=3.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer p: 256 bytes in act, live 0..=4, at 512;
        buffer q: 128 bytes in act, live 2..=3, at 640;
    }
}

fn main() {}
