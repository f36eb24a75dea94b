// Per-step views: each step's view has exactly the buffers live at that step, borrowed
// from the manager; the temp pool is usable inside a step; an in-place pair at its
// handover step is one field, and so is a chain that hands over twice at one step. Each
// field has an accessor of the same name (`s.x()`) over the same bytes.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 256 bytes;
        temp: 64;
        buffer x: [i16; 8] in r, live 0..=1;
        buffer y: [i32; 4] in r, live 1..=2;
        buffer z: [i32; 4] in place of y, live 2..=3;
    }
}

memory_plan! {
    mod chain {
        region r: 64 bytes;
        buffer a: [u8; 8] in r, live 0..=1;
        buffer b: [u8; 8] in place of a, live 1..=1;
        buffer c: [u16; 4] in place of b, live 1..=2;
    }
}

fn main() {
    let manager = p::take().expect("taken once");
    let (s, _) = manager.step_any_order::<0>();
    s.x.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let (s, temp) = manager.step_any_order::<1>();
    let sum = temp.scoped(|temp| {
        let acc = temp.allocate_value([0i32; 4]).expect("fits the pool");
        for (i, v) in s.x.iter().enumerate() {
            acc[i % 4] += i32::from(*v);
        }
        s.y.copy_from_slice(acc);
        acc.iter().sum::<i32>()
    });
    assert_eq!(sum, 36);
    let (mut s, _) = manager.step_any_order::<2>();
    assert_eq!(*s.z.input(), [6, 8, 10, 12]);
    s.z.output().iter_mut().for_each(|v| *v *= 2);
    let (s, _) = manager.step_any_order::<3>();
    assert_eq!(*s.z, [12, 16, 20, 24]);
    // The generic path sees the same bytes.
    let live: Vec<_> = manager.live_at(3).map(|l| (l.info.name, l.bytes.len())).collect();
    assert_eq!(live, [("z", 16)]);
    // `b` in place of `a` and `c` in place of `b`, all live at step 1: one field, named
    // after `c`, whose input is `a`'s bytes.
    let m = chain::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    s.a.copy_from_slice(&[1, 0, 2, 0, 3, 0, 4, 0]);
    let (mut s, _) = m.step_any_order::<1>();
    assert_eq!(*s.c.input(), [1, 0, 2, 0, 3, 0, 4, 0]);
    s.c.output().copy_from_slice(&[9, 8, 7, 6]);
    let (s, _) = m.step_any_order::<2>();
    assert_eq!(*s.c, [9, 8, 7, 6]);
    // The accessors borrow the fields: what one writes, the field reads, and the next
    // step's view (through the other path) sees.
    let (mut s, _) = manager.step_any_order::<1>();
    s.x()[0] = 100;
    s.y()[3] = -5;
    assert_eq!((s.x[0], s.y[3]), (100, -5));
    let (mut s, _) = manager.step_any_order::<2>();
    assert_eq!(s.z().input()[3], -5);
    let (mut s, _) = m.step_any_order::<1>();
    s.c().output()[0] = 42;
    let (mut s, _) = m.step_any_order::<2>();
    assert_eq!(*s.c(), [42, 8, 7, 6]);
}
