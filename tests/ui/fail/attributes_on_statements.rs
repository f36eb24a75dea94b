// Only doc comments may annotate a region or buffer: the generated type and its trait impl
// must exist together.
memplan_runtime::memory_plan! {
    mod m {
        #[cfg(any())]
        region r: 1 KiB;
        /// Fine: a doc comment.
        #[derive(Debug)]
        buffer a: 64 bytes in r, live 0..=1;
    }
}

fn main() {}
