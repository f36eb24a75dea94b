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

    // The steps in order, each a view of the buffers live at that step, as references,
    // checked by the compiler: `s.input` does not exist at step 2 (it is dead there), step 2
    // comes only after step 1, and each view ends before the next step is opened.
    let mut step = manager.walk(); // step 0
    let (s, _) = step.view();
    s.input[0] = 3; // input: &mut [i8; 490]
    let mut step = step.next(); // step 1
    let (s, _) = step.view();
    s.conv1[0] = s.input[0] as u8; // conv1: &mut [u8; 8000]
    let mut step = step.next(); // step 2
    let (s, temp) = step.view();
    // Kernel scratch from the temp pool, reset when the closure returns.
    let sum = temp.scoped(|temp| {
        let acc = temp.allocate_value([0i32; 64]).expect("fits the 1 KiB pool");
        acc[0] = i32::from(s.conv1[0]);
        acc.iter().sum::<i32>()
    });
    s.conv2[0] = sum as i8; // conv2: &mut [i8; 8000]
    let mut step = step.next(); // step 3
    let (s, _) = step.view();
    s.logits[0] = f32::from(s.conv2[0]); // logits: &mut [f32; 12]

    // The data-driven path, bounds-checked at run time, as ExecuTorch's: the memory id
    // comes from the buffer's own region, so it follows the buffer if it moves.
    type Conv1Region = <kws::Conv1 as PlannedBuffer>::Region;
    let conv1 = manager
        .planned()
        .get_offset_address(<Conv1Region as MemoryId>::ID, <kws::Conv1 as PlannedBuffer>::OFFSET, 8000)
        .expect("inside the region");
    let _ = conv1;
}
