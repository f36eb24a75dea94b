//! Prints the generated plans' reports and walks the keyword spotter's steps.

use memplan_example_generated::{encoder, kws};

fn main() {
    print!("{}{}", kws::REPORT, encoder::REPORT);
    let manager = kws::take().expect("taken once");
    for step in 0..=5 {
        let live: Vec<&str> = manager.live_at(step).map(|live| live.info.name).collect();
        println!("step {step}: {}", live.join(", "));
    }
}
