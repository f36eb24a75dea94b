//! The whole pipeline on token streams (no compiler needed).

use std::fmt::Write as _;

use memplan_lang::{Checked, Env, check, expand};

fn run(tokens: proc_macro2::TokenStream, _: Option<()>) -> proc_macro2::TokenStream {
    expand(tokens, &Env::default())
}

/// A plan of `n` buffers, each 64 bytes live two steps, in one region.
fn plan_of(n: usize) -> proc_macro2::TokenStream {
    let mut src = String::from("pub mod p { region sram: 1 MiB; strategy = greedy;");
    for i in 0..n {
        write!(src, "buffer b{i}: 64 bytes in sram, live {i}..={};", i + 1).unwrap();
    }
    src.push('}');
    src.parse().unwrap()
}

fn expansion_tokens(n: usize) -> usize {
    run(plan_of(n), None).into_iter().map(count).sum()
}

fn count(tt: proc_macro2::TokenTree) -> usize {
    match tt {
        proc_macro2::TokenTree::Group(g) => 1 + g.stream().into_iter().map(count).sum::<usize>(),
        _ => 1,
    }
}

#[test]
fn expansion_grows_by_a_constant_per_buffer() {
    let (e0, e1, e2) = (
        expansion_tokens(101),
        expansion_tokens(201),
        expansion_tokens(301),
    );
    // Each buffer adds the same number of tokens: the expansion is linear in buffers. (Each
    // buffer here lives two steps, so it also adds a step, whose view holds two buffers.)
    assert_eq!(e2 - e1, e1 - e0);
    let per_buffer = (e1 - e0) / 100;
    // A type, a trait impl, a table row, a `live::NAME` mark trait (with its lifetime
    // message) and a bounded accessor per buffer; a view (its `Deref`, an accessor and a
    // mark impl per field), a step impl and the step's type for the walk per step: 680
    // tokens per buffer here.
    assert!(per_buffer < 700, "{per_buffer} tokens per buffer");
}

#[test]
fn a_plan_that_does_not_fit_is_a_compile_error_not_a_panic() {
    let src: proc_macro2::TokenStream =
        "mod m { region r: 16 bytes; buffer a: 32 bytes in r, live 0..=0; }"
            .parse()
            .unwrap();
    let out = run(src, None).to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("needed 32 bytes, available 16"), "{out}");
}

/// Parses, checks and plans `src`, which must have no error.
fn planned(src: &str) -> Checked {
    let checked = check(src.parse().unwrap(), &Env::default());
    assert!(checked.diagnostics().is_empty());
    assert!(checked.plan().is_some());
    checked
}

#[test]
fn the_report_shows_the_budget_and_the_nodes_the_search_used() {
    // Best of the first-fit orderings needs 15 bytes here; the search finds the lower
    // bound, 13 (steps 2 and 4), and proves it.
    let checked = planned(
        "mod m { region r: 64 bytes, align 1; strategy = optimal(nodes = 1000);
        buffer a: 4 bytes in r, live 1..=2; buffer b: 4 bytes in r, live 3..=4;
        buffer c: 2 bytes in r, live 2..=3; buffer d: 3 bytes in r, live 2..=4;
        buffer e: 2 bytes in r, live 3..=4; buffer f: 4 bytes in r, live 4..=6;
        buffer g: 4 bytes in r, live 0..=2; }",
    );
    let (problem, plan) = (checked.problem().unwrap(), checked.plan().unwrap());
    let best_of = memplan_planner::plan(&problem, memplan_planner::Strategy::BestOf).unwrap();
    assert_eq!(best_of.regions[0].planned_bytes, 15);
    let rp = &plan.regions[0];
    assert_eq!(
        (rp.planned_bytes, rp.lower_bound, rp.proven_optimal),
        (13, 13, true)
    );
    assert!(
        rp.search_nodes > 0 && rp.search_nodes <= 1000,
        "{}",
        rp.search_nodes
    );
    let report = checked.report().unwrap();
    assert!(
        report.starts_with("memory plan `m` (strategy optimal, budget 1000 nodes)\n"),
        "{report}"
    );
    let row: Vec<&str> = report.lines().nth(2).unwrap().split_whitespace().collect();
    // region, id, capacity, planned, lower bound, peak step, buffers, optimal, nodes
    assert_eq!(row[..8], ["r", "0", "64", "13", "13", "2", "7", "yes"]);
    assert_eq!(row[8], rp.search_nodes.to_string());
}

#[test]
fn input_nested_a_hundred_thousand_levels_deep_is_an_error_not_a_stack_overflow() {
    let n = 100_000;
    let src = format!(
        "mod m {{ region r: 64 bytes; buffer deep: [{}u8{}; 1] as 8 bytes in r, live 0..=0, align 1; }}",
        "[".repeat(n),
        "; 1]".repeat(n)
    );
    let checked = check(src.parse().unwrap(), &Env::default());
    let first = checked.diagnostics().iter().next().expect("an error");
    assert_eq!(
        first.message,
        "the input nests more than 64 levels of brackets deep here"
    );
}

/// A size of 200,000 digits is one error on the number, found before syn reads its value
/// (digit by digit into a decimal big integer: quadratic, 38 s in release builds).
#[test]
fn a_number_of_200_000_digits_is_one_error() {
    let src = format!(
        "mod m {{ region r: 64 bytes; buffer a: {} bytes in r, live 0..=0; }}",
        "9".repeat(200_000)
    );
    let checked = check(src.parse().unwrap(), &Env::default());
    let messages: Vec<&str> = checked
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "a number of 200000 characters (`99999999999999999999...`): sizes, offsets, alignments and steps fit 64 bits, at most 20 digits"
        ]
    );
}

#[test]
fn a_schedule_holds_the_constants_it_reads_and_tracks_the_file() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/tflite/person_detect.tflite")
        .canonicalize()
        .unwrap();
    let path = model.display().to_string();
    let src =
        format!("mod person {{ region act: 64 KiB; temp: 1 KiB; model in act from {path:?}; }}");
    let out = run(src.parse().unwrap(), None).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    // The 56 constant tensors its operators read (all 57 of the file's but RESHAPE's shape,
    // which no kernel gets) hold 218,920 bytes; each at a multiple of 16, they end at
    // 218,936 (summed from the file's buffers by a separate reader of the flatbuffer).
    assert!(out.contains("ModelBytes < 218936usize > = "));
    // The file (300,568 bytes) is only tracked: one `include_bytes!`, in an unnamed `const`
    // (nothing in flash), none in a `static`.
    assert_eq!(std::fs::metadata(&model).unwrap().len(), 300_568);
    assert_eq!(out.matches("include_bytes").count(), 1);
    let tracked = format!(
        "const _ : & [:: core :: primitive :: u8] = :: core :: include_bytes ! (\"{path}\") ;"
    );
    assert!(out.contains(&tracked), "{out}");
}
