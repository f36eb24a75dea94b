//! A `no_std` library whose working memory is planned by `memory_plan!` at compile time.
//!
//! `.ci/runtime-checks.sh` builds it for `thumbv6m-none-eabi` (feature `critical-section`),
//! `thumbv7em-none-eabihf` and `riscv32imac-unknown-none-elf` (a library build: no linking),
//! and runs its tests on the host, under Miri too.

#![no_std]

use core::ptr::NonNull;

use memplan_runtime::{Error, HierarchicalAllocator, MemoryManager, memory_plan};

memory_plan! {
    /// A keyword spotter's activations, and a transformer encoder's from an ExecuTorch plan.
    pub mod kws {
        region sram: 64 KiB, align 16, memory SRAM1;
        region dtcm: 16 KiB, align 32, kind tightly_coupled;
        region psram: 1 MiB, kind external;

        constant: 0;
        runtime: 2 KiB;
        temp: 1 KiB;

        buffer input: [i8; 490] in dtcm, live 0..=1;
        buffer conv1: 8000 bytes in sram, live 1..=2, align 64;
        buffer conv2: [i8; 8000] in sram, live 2..=3;
        buffer relu1: in place of conv1, live 2..=2;
        buffer logits: [f32; 12] in dtcm, live 3..=4, at 256;

        buffers in psram from "../../../examples/data/executorch/transformer_encoder_constprop_greedy.csv";
    }
}

/// Typed access to `logits` (for reading the generated code: `--emit asm`).
#[inline(never)]
pub fn typed_logits(planned: &HierarchicalAllocator<'_, kws::Plan>) -> NonNull<f32> {
    planned.buffer::<kws::Logits>()
}

/// The same address by raw pointer arithmetic: region base + constant offset, unchecked.
#[inline(never)]
pub fn raw_logits(planned: &HierarchicalAllocator<'_, kws::Plan>) -> NonNull<f32> {
    // SAFETY: memory id 1 (`dtcm`) exists in this plan.
    let span = unsafe { planned.spans().get_unchecked(1) };
    // SAFETY: `logits` lies at offset 256 of `dtcm`.
    unsafe { span.as_ptr().add(256).cast() }
}

/// The plan's manager, once.
pub fn take() -> Option<&'static mut MemoryManager<'static, kws::Plan>> {
    kws::take()
}

/// Runs the keyword spotter's four steps over its planned buffers: step 0 writes the
/// input, step 1 a "convolution" into `conv1`, step 2 `conv2` from `conv1` (read at the
/// step `relu1` reuses its bytes), step 3 the logits. Returns the sum of the logits.
///
/// # Errors
///
/// If the kernel-temporary pool cannot hold a step's scratch.
pub fn run(
    manager: &mut MemoryManager<'static, kws::Plan>,
    samples: &[i8; 490],
) -> Result<f32, Error> {
    let planned = manager.planned();
    let input = planned.buffer::<kws::Input>();
    let conv1 = planned.buffer::<kws::Conv1>();
    let conv2 = planned.buffer::<kws::Conv2>();
    let logits = planned.buffer::<kws::Logits>();

    // Step 0: `input` is live 0..=1 and nothing else shares its bytes then.
    for (i, s) in samples.iter().enumerate() {
        // SAFETY: `i < 490`, inside `input` ([i8; 490]), which no live buffer overlaps.
        unsafe { input.add(i).write(*s) };
    }
    // Step 1: conv1 (8000 bytes) from the input.
    for i in 0..8000 {
        // SAFETY: `i < 490` is inside `input`, alive at step 1.
        let x = unsafe { input.add(i % 490).read() };
        // SAFETY: `i < 8000`, inside `conv1`, alive at step 1.
        unsafe { conv1.add(i).write(x.wrapping_mul(3) as u8) };
    }
    // Step 2: conv2 from conv1, with scratch from the kernel-temporary pool.
    manager.with_temp(|temp| -> Result<(), Error> {
        let acc = temp.allocate_list::<i32>(250)?;
        for (j, a) in acc.iter_mut().enumerate() {
            let mut s = 0i32;
            for k in 0..32 {
                // SAFETY: `j * 32 + k < 8000`, inside `conv1`, alive at step 2.
                s += i32::from(unsafe { conv1.add(j * 32 + k).read() } as i8);
            }
            a.write(s);
        }
        for i in 0..8000 {
            // SAFETY: every element of `acc` was written above.
            let v = unsafe { acc[i / 32].assume_init() };
            // SAFETY: `i < 8000`, inside `conv2`, alive at step 2 and disjoint from `conv1`.
            unsafe { conv2.add(i).write((v >> 4) as i8) };
        }
        Ok(())
    })?;
    // Step 3: the logits from conv2.
    let mut total = 0.0f32;
    for l in 0..12 {
        let mut s = 0i32;
        for k in 0..64 {
            // SAFETY: `l * 64 + k < 8000`, inside `conv2`, alive at step 3.
            s += i32::from(unsafe { conv2.add(l * 64 + k).read() });
        }
        let v = s as f32 / 64.0;
        // SAFETY: `l < 12`, inside `logits`, alive at step 3.
        unsafe { logits.add(l).write(v) };
        total += v;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use memplan_runtime::{MemoryId, PlannedBuffer};

    /// The whole generated path: taken once, typed addresses at base + offset, the temp
    /// pool empty before the first kernel (BL-10), and the plan's arithmetic end to end.
    #[test]
    fn generated_manager_end_to_end() {
        let manager = take().expect("first take");
        assert!(take().is_none(), "BL-11: a second take must fail");

        let planned = manager.planned();
        assert_eq!(planned.len(), 3);
        let dtcm = planned.spans()[1].as_ptr().as_ptr().addr();
        assert_eq!(dtcm % 32, 0);
        assert_eq!(planned.buffer::<kws::Logits>().as_ptr().addr(), dtcm + 256);
        assert_eq!(<kws::Logits as PlannedBuffer>::OFFSET, 256);
        assert_eq!(typed_logits(planned), raw_logits(planned));
        assert_eq!(
            <kws::Relu1 as PlannedBuffer>::OFFSET,
            <kws::Conv1 as PlannedBuffer>::OFFSET
        );
        assert_eq!(<kws::Dtcm as MemoryId>::ID, 1);
        assert!(kws::BUFFERS.len() > 5);
        // Every buffer of the table lies inside its region's span.
        for b in kws::BUFFERS {
            let span = &planned.spans()[b.memory_id as usize];
            assert!(b.end().unwrap() <= span.len(), "{}", b.name);
            assert!(
                planned
                    .get_offset_address(b.memory_id, b.offset, b.size)
                    .is_ok()
            );
        }

        assert_eq!(manager.temp().used(), 0);
        let temp_base = manager.temp().base_address();
        assert_eq!(manager.temp().allocate(1024, 8).unwrap(), temp_base);
        manager.temp_mut().reset();

        let samples: [i8; 490] = core::array::from_fn(|i| (i % 7) as i8 - 3);
        let total = run(manager, &samples).unwrap();
        // The same computation on plain arrays.
        let conv1: std::vec::Vec<u8> = (0..8000)
            .map(|i| samples[i % 490].wrapping_mul(3) as u8)
            .collect();
        let acc: std::vec::Vec<i32> = (0..250)
            .map(|j| (0..32).map(|k| i32::from(conv1[j * 32 + k] as i8)).sum())
            .collect();
        let conv2: std::vec::Vec<i8> = (0..8000).map(|i| (acc[i / 32] >> 4) as i8).collect();
        let expected: f32 = (0..12)
            .map(|l| (0..64).map(|k| i32::from(conv2[l * 64 + k])).sum::<i32>() as f32 / 64.0)
            .sum();
        assert_eq!(total, expected);
        assert_eq!(manager.temp().used(), 0);
        assert_eq!(manager.temp().high_water(), 1024);
    }
}
