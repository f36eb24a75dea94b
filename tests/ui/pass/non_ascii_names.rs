// Non-ASCII buffer names keep distinct type and field names (they all mangled to `B`).
use memplan_runtime::{PlannedBuffer, memory_plan};

memory_plan! {
    mod m {
        region r: 64 bytes;
        buffer größe: 16 bytes in r, live 0..=0;
        buffer ä: 16 bytes in r, live 0..=0;
        buffer ö: 16 bytes in r, live 0..=0;
    }
}

fn main() {
    assert_eq!(<m::GrUf6UdfE as PlannedBuffer>::NAME, "größe");
    assert_eq!(<m::Ue4 as PlannedBuffer>::NAME, "ä");
    assert_eq!(<m::Uf6 as PlannedBuffer>::NAME, "ö");
    let manager = m::take().expect("taken once");
    let (s, _) = manager.step_any_order::<0>();
    s.größe[0] = 1;
    s.ä[0] = 2;
    s.ö[0] = 3;
}
