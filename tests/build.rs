//! Writes, into OUT_DIR, what the tests read as an ML compiler's build step would produce:
//! a plan file for `buffers ... from out_dir "..."`, and a few dozen random `memory_plan!`
//! invocations (from a fixed seed) that `tests/random_plans.rs` walks through the generic
//! safe path.

use std::fmt::Write as _;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let out = std::path::Path::new(&out);
    // A chain of eight 1 KiB buffers, each live two steps: at most two at once.
    let mut csv = String::from("name,mem_id,offset,size,first,last,dtype,shape\n");
    for i in 0..8 {
        writeln!(csv, "layer{i}.out,1,0,1024,{i},{},int8,1024", i + 1).unwrap();
    }
    std::fs::write(out.join("generated_plan.csv"), csv).unwrap();
    std::fs::write(out.join("random_plans.rs"), random_plans(32, 0x5EED)).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}

/// SplitMix64: a small, fixed generator, so the plans are the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `count` invocations `mod rp0 { ... }` ... and `fn walk_all()`, which walks each.
fn random_plans(count: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut src = String::new();
    let mut walks = String::new();
    for p in 0..count {
        let regions = 1 + rng.below(2) as usize;
        let n = 4 + rng.below(21) as usize;
        // (name, size, first, last, region, in place of)
        let mut buffers: Vec<(String, u64, u64, u64, usize, Option<usize>)> = Vec::new();
        let mut has_child = vec![false; n];
        let mut total = 0u64;
        for i in 0..n {
            let first = rng.below(12);
            let last = first + rng.below(5);
            let size = 4 * rng.below(25);
            // Sometimes in place of an earlier buffer without a child, as the rules allow:
            // no larger, starting at or after its source's last step.
            let source = (0..i)
                .filter(|&s| !has_child[s] && buffers[s].5.is_none())
                .nth(rng.below(8) as usize)
                .filter(|_| rng.below(3) == 0);
            match source {
                Some(s) => {
                    has_child[s] = true;
                    let (_, ssize, _, slast, sregion, _) = buffers[s].clone();
                    let first = slast + rng.below(2);
                    let last = first + rng.below(4);
                    let size = 4 * (ssize / 4).min(rng.below(ssize / 4 + 1));
                    buffers.push((format!("b{i}"), size, first, last, sregion, Some(s)));
                }
                None => {
                    let region = rng.below(regions as u64) as usize;
                    buffers.push((format!("b{i}"), size, first, last, region, None));
                    total += size;
                }
            }
        }
        writeln!(src, "memory_plan! {{\n    mod rp{p} {{").unwrap();
        for r in 0..regions {
            writeln!(src, "        region r{r}: {} bytes, align 4;", total + 64).unwrap();
        }
        for (name, size, first, last, region, source) in &buffers {
            let elem = if size % 8 == 0 && rng.below(2) == 0 {
                format!("[i32; {}]", size / 4)
            } else {
                format!("{size} bytes")
            };
            match source {
                Some(s) => writeln!(
                    src,
                    "        buffer {name}: {elem} in place of b{s}, live {first}..={last};"
                ),
                None => writeln!(
                    src,
                    "        buffer {name}: {elem} in r{region}, live {first}..={last};"
                ),
            }
            .unwrap();
        }
        writeln!(src, "    }}\n}}").unwrap();
        writeln!(
            walks,
            "    walk(\"rp{p}\", rp{p}::take().expect(\"taken once\"));"
        )
        .unwrap();
    }
    writeln!(
        src,
        "\n/// Walks every generated plan.\nfn walk_all() {{\n{walks}}}"
    )
    .unwrap();
    src
}
