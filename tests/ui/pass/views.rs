// Per-step views: each step's view has exactly the buffers live at that step, borrowed
// from the manager; the temp pool is usable inside a step; an in-place pair at its
// handover step is one field.
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

fn main() {
    let manager = p::take().expect("taken once");
    let (s, _) = manager.step::<0>();
    s.x.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let (s, temp) = manager.step::<1>();
    let sum = temp.scoped(|temp| {
        let acc = temp.allocate_value([0i32; 4]).expect("fits the pool");
        for (i, v) in s.x.iter().enumerate() {
            acc[i % 4] += i32::from(*v);
        }
        s.y.copy_from_slice(acc);
        acc.iter().sum::<i32>()
    });
    assert_eq!(sum, 36);
    let (mut s, _) = manager.step::<2>();
    assert_eq!(*s.z.input(), [6, 8, 10, 12]);
    s.z.output().iter_mut().for_each(|v| *v *= 2);
    let (s, _) = manager.step::<3>();
    assert_eq!(*s.z, [12, 16, 20, 24]);
    // The generic path sees the same bytes.
    let live: Vec<_> = manager.live_at(3).map(|l| (l.info.name, l.bytes.len())).collect();
    assert_eq!(live, [("z", 16)]);
}
