// `lock = required;` in a package without a memplan.lock: the plan may not be searched in
// the build, so this is an error naming the plan, spanned on `required`.
memplan_runtime::memory_plan! {
    mod kws {
        region sram: 1024 bytes;
        lock = required;
        buffer a: 512 bytes in sram, live 0..=1;
        buffer b: 256 bytes in sram, live 1..=2;
    }
}

fn main() {}
