// Generated code names every type and trait it uses by its full path: the crate shadows
// every primitive type and the prelude's traits and types, and the plan still means what
// it says (a `u64` buffer holds `u64`s, a byte buffer bytes), with views, an in-place pair,
// a plan-file row typed by its `dtype`, a user element type and a pin.
#![allow(non_camel_case_types, dead_code)]

pub type u8 = &'static ::core::primitive::u8;
pub type u16 = bool;
pub type u32 = ::core::primitive::u64;
pub type u64 = &'static ::core::primitive::u8;
pub type u128 = ();
pub type usize = ::core::primitive::u8;
pub type i8 = bool;
pub type i16 = ();
pub type i32 = bool;
pub type i64 = &'static ::core::primitive::u8;
pub type isize = ();
pub type f32 = bool;
pub type f64 = ();
pub type bool = ::core::primitive::u8;
pub type char = ();
pub type str = [::core::primitive::u8];
pub struct Option;
pub struct Some;
pub struct None;
pub struct Result;
pub struct Ok;
pub struct Err;
pub struct Vec;
pub trait Clone {}
pub trait Copy {}
pub trait Debug {}
pub trait PartialEq {}
pub trait Eq {}
pub trait Sized {}

#[repr(C)]
#[derive(::core::clone::Clone, ::core::marker::Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Pair {
    pub lo: ::core::primitive::u16,
    pub hi: ::core::primitive::u16,
}

memplan_runtime::memory_plan! {
    mod shadowed {
        region r: 256 bytes;
        region u: 64 bytes, uninit;
        buffer words: [u64; 2] in r, live 0..=1;
        buffer bytes: 16 bytes in r, live 0..=2;
        buffer small: [i8; 16] in r, live 1..=2;
        buffer same: in place of small, live 2..=3;
        buffer pairs: [Pair; 4] as 16 bytes, align 2, in r, live 0..=0;
        buffer flags: [u16; 8] in u, live 0..=1;
        buffer fixed: [f32; 4] in r, live 3..=3, at 128;
        buffers in r from "../plans_small.csv";
    }
}

fn main() {
    let m = shadowed::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    let words: &mut [::core::primitive::u64; 2] = s.words;
    assert_eq!(words[1], 0);
    words[0] = ::core::primitive::u64::MAX;
    let bytes: &mut [::core::primitive::u8; 16] = s.bytes;
    bytes[0] = 2;
    let pairs: &mut [Pair; 4] = s.pairs;
    pairs[0].hi = 9;
    let flags: &mut [::core::mem::MaybeUninit<::core::primitive::u16>; 8] = s.flags;
    flags[0].write(1);
    let conv: &mut [::core::primitive::f32; 16] = s.conv; // a plan-file row, `float32`
    conv[0] = 0.25;
    let (s, _) = m.step_any_order::<1>();
    assert_eq!(s.words[0], ::core::primitive::u64::MAX);
    let small: &mut [::core::primitive::i8; 16] = s.small;
    small[0] = -1;
    let (mut s, _) = m.step_any_order::<2>();
    let input: &mut [::core::primitive::i8; 16] = s.same.input();
    assert_eq!(input[0], -1);
    let (s, _) = m.step_any_order::<3>();
    let fixed: &mut [::core::primitive::f32; 4] = s.fixed;
    fixed[0] = 0.5;
    assert_eq!(<shadowed::Plan as memplan_runtime::Plan>::REGIONS, 2);
}
