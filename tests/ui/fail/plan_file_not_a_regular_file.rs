// A path that names a device (or a folder, or a pipe) is refused before anything is read:
// `/dev/zero` would otherwise be read until memory runs out.
memplan_runtime::memory_plan! {
    mod m {
        region r: 64 bytes;
        buffers in r from "/dev/zero";
        buffer a: 16 bytes in r, live 0..=0;
    }
}

fn main() {}
