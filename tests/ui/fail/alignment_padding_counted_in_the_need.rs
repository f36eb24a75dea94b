// Padding counts: twenty 10-byte buffers at 4-byte alignment need 19 * 12 + 10 = 238 bytes,
// not 20 * 10 = 200. Both the 237-byte and the 200-byte pool fail; neither says 200 is needed.
memplan_runtime::memory_plan! {
    mod at_237 {
        region pool: 237 bytes, align 4;
        buffer b0: 10 bytes in pool, live 0..=0;
        buffer b1: 10 bytes in pool, live 0..=0;
        buffer b2: 10 bytes in pool, live 0..=0;
        buffer b3: 10 bytes in pool, live 0..=0;
        buffer b4: 10 bytes in pool, live 0..=0;
        buffer b5: 10 bytes in pool, live 0..=0;
        buffer b6: 10 bytes in pool, live 0..=0;
        buffer b7: 10 bytes in pool, live 0..=0;
        buffer b8: 10 bytes in pool, live 0..=0;
        buffer b9: 10 bytes in pool, live 0..=0;
        buffer b10: 10 bytes in pool, live 0..=0;
        buffer b11: 10 bytes in pool, live 0..=0;
        buffer b12: 10 bytes in pool, live 0..=0;
        buffer b13: 10 bytes in pool, live 0..=0;
        buffer b14: 10 bytes in pool, live 0..=0;
        buffer b15: 10 bytes in pool, live 0..=0;
        buffer b16: 10 bytes in pool, live 0..=0;
        buffer b17: 10 bytes in pool, live 0..=0;
        buffer b18: 10 bytes in pool, live 0..=0;
        buffer b19: 10 bytes in pool, live 0..=0;
    }
}

memplan_runtime::memory_plan! {
    mod at_200 {
        region pool: 200 bytes, align 4;
        buffer b0: 10 bytes in pool, live 0..=0;
        buffer b1: 10 bytes in pool, live 0..=0;
        buffer b2: 10 bytes in pool, live 0..=0;
        buffer b3: 10 bytes in pool, live 0..=0;
        buffer b4: 10 bytes in pool, live 0..=0;
        buffer b5: 10 bytes in pool, live 0..=0;
        buffer b6: 10 bytes in pool, live 0..=0;
        buffer b7: 10 bytes in pool, live 0..=0;
        buffer b8: 10 bytes in pool, live 0..=0;
        buffer b9: 10 bytes in pool, live 0..=0;
        buffer b10: 10 bytes in pool, live 0..=0;
        buffer b11: 10 bytes in pool, live 0..=0;
        buffer b12: 10 bytes in pool, live 0..=0;
        buffer b13: 10 bytes in pool, live 0..=0;
        buffer b14: 10 bytes in pool, live 0..=0;
        buffer b15: 10 bytes in pool, live 0..=0;
        buffer b16: 10 bytes in pool, live 0..=0;
        buffer b17: 10 bytes in pool, live 0..=0;
        buffer b18: 10 bytes in pool, live 0..=0;
        buffer b19: 10 bytes in pool, live 0..=0;
    }
}

fn main() {}
