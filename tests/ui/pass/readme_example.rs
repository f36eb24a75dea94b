// The minimal example of the README, kept compiling and running.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    /// Activation memory of a keyword spotter.
    pub mod kws {
        // Memory ids of the hierarchical allocator, in declaration order: 0, 1, ...
        region sram: 64 KiB, align 16;
        region dtcm: 16 KiB, align 32, kind tightly_coupled;

        // The manager's bump pools, in bytes (absent = 0).
        constant: 0;
        runtime: 2 KiB;
        temp: 1 KiB;

        // Planned buffers: size, region, lifetime in steps (inclusive `a..=b` or exclusive `a..b`).
        buffer input:  [i8; 490] in dtcm, live 0..=1;
        buffer conv1:  8000 bytes in sram, live 1..=2, align 64;
        buffer conv2:  [i8; 8000] in sram, live 2..=3;
        buffer logits: [f32; 12] in dtcm, live 3..=4;
    }
}

// Planned at compile time, checked at compile time: conv1 and conv2 share step 2, so they
// cannot share bytes.
const _: () = assert!(<kws::Sram as MemoryId>::SIZE == 16000);

fn main() {
    print!("{}", kws::REPORT);

    let manager = kws::take().expect("the first take gets the manager");
    assert!(kws::take().is_none()); // and there is only one

    // Typed access: base + constant, checked at compile time.
    let logits = manager.planned().buffer::<kws::Logits>(); // NonNull<f32>
    // The data-driven path, bounds-checked at run time; the memory id comes from the
    // buffer's own region, so it follows the buffer if it moves.
    type Conv1Region = <kws::Conv1 as PlannedBuffer>::Region;
    let conv1 = manager
        .planned()
        .get_offset_address(<Conv1Region as MemoryId>::ID, <kws::Conv1 as PlannedBuffer>::OFFSET, 8000)
        .expect("inside the region");
    // Kernel scratch, reset when the closure returns.
    manager
        .with_temp(|temp| temp.allocate_list::<i32>(64).map(|scratch| scratch.len()))
        .expect("fits the 1 KiB pool");
    let _ = (logits, conv1);
}
