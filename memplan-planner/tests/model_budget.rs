//! Small model files that describe huge amounts of work: each kind is an error that names the
//! tensor, operator or instruction and the budget, quickly, in memory in proportion to the
//! file (`files::read_budget`: 64 bytes per byte of the file, at least 16 MiB, at most
//! 1 GiB), never gigabytes and minutes.
//!
//! - nested control flow: a `CALL_ONCE` in each of 20 subgraphs runs the next one twice, so
//!   TensorFlow Lite Micro's walk visits the last one's operators 2^20 times (12.6 million
//!   operator records from a file of 4 KB);
//! - one operator table listed thousands of times in a subgraph's operator list, each copy
//!   with 100,000 inputs;
//! - ExecuTorch instructions that share one argument list of 70,000 values;
//! - a buffer table listed many times over, which writing the model back would copy at
//!   each reference.
//!
//! The inputs are made here with the flatbuffers builder (raw tables where the kind needs
//! one table referenced many times, which the object API cannot write).
//! `MEMPLAN_HOSTILE_DIR=DIR cargo test -p memplan-planner --test model_budget -- --ignored`
//! writes them to DIR, to run the commands on them.
#![cfg(feature = "write")]

use std::time::{Duration, Instant};

use memplan_flatbuffers::executorch as et;
use memplan_flatbuffers::flatbuffers::{FlatBufferBuilder, WIPOffset};
use memplan_flatbuffers::tflite::{
    self as tf, BufferT, BuiltinOperator, BuiltinOptionsT, CallOnceOptionsT, ModelT, OperatorCodeT,
    OperatorT, SubGraphT, TensorT, TensorType,
};
use memplan_planner::files::{pte, tflite};

/// An operator code of `op`.
fn code(op: BuiltinOperator) -> OperatorCodeT {
    let mut c = OperatorCodeT::default();
    c.builtin_code = op;
    // 127: PLACEHOLDER_FOR_GREATER_OP_CODES, as the converter writes codes above 127.
    c.deprecated_builtin_code = op.0.min(127) as i8;
    c.version = 1;
    c
}

/// An int8 tensor of one element without data.
fn tensor(name: &str) -> TensorT {
    let mut t = TensorT::default();
    t.type_ = TensorType::INT8;
    t.shape = Some(vec![1]);
    t.name = Some(name.to_string());
    t
}

/// `depth` subgraphs, each with two `CALL_ONCE` operators that run the next one, and a last
/// subgraph of `leaf_ops` `ADD` operators: TensorFlow Lite Micro's walk enters the last
/// subgraph 2^depth times.
pub fn nested_calls(depth: usize, leaf_ops: usize) -> Vec<u8> {
    let mut m = ModelT::default();
    m.version = 3;
    m.operator_codes = Some(vec![
        code(BuiltinOperator::CALL_ONCE),
        code(BuiltinOperator::ADD),
    ]);
    m.buffers = Some(vec![BufferT::default()]);
    let mut subgraphs = Vec::new();
    for k in 0..depth {
        let call = || {
            let mut op = OperatorT::default();
            op.opcode_index = 0;
            op.inputs = Some(vec![]);
            op.outputs = Some(vec![]);
            let mut o = CallOnceOptionsT::default();
            o.init_subgraph_index = k as i32 + 1;
            op.builtin_options = BuiltinOptionsT::CallOnceOptions(Box::new(o));
            op
        };
        let mut g = SubGraphT::default();
        g.tensors = Some(vec![tensor("t")]);
        g.inputs = Some(vec![]);
        g.outputs = Some(vec![]);
        g.operators = Some(vec![call(), call()]);
        subgraphs.push(g);
    }
    let mut leaf = SubGraphT::default();
    leaf.tensors = Some(vec![tensor("a"), tensor("b")]);
    leaf.inputs = Some(vec![0]);
    leaf.outputs = Some(vec![1]);
    leaf.operators = Some(
        (0..leaf_ops)
            .map(|_| {
                let mut op = OperatorT::default();
                op.opcode_index = 1;
                op.inputs = Some(vec![0, 0]);
                op.outputs = Some(vec![1]);
                op
            })
            .collect(),
    );
    subgraphs.push(leaf);
    m.subgraphs = Some(subgraphs);
    memplan_flatbuffers::finish_tflite(&m)
}

/// One subgraph whose operator list names one `ADD` operator table `listed` times, the
/// operator reading tensor 0 `inputs` times.
pub fn shared_operator(listed: usize, inputs: usize) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let ins = fbb.create_vector(&vec![0i32; inputs]);
    let outs = fbb.create_vector(&[1i32]);
    let op = tf::Operator::create(
        &mut fbb,
        &tf::OperatorArgs {
            opcode_index: 0,
            inputs: Some(ins),
            outputs: Some(outs),
            ..Default::default()
        },
    );
    let ops = fbb.create_vector(&vec![op; listed]);
    let tensors: Vec<WIPOffset<tf::Tensor>> = ["a", "b"]
        .iter()
        .map(|n| {
            let name = fbb.create_string(n);
            let shape = fbb.create_vector(&[1i32]);
            tf::Tensor::create(
                &mut fbb,
                &tf::TensorArgs {
                    shape: Some(shape),
                    type_: TensorType::INT8,
                    name: Some(name),
                    ..Default::default()
                },
            )
        })
        .collect();
    let tensors = fbb.create_vector(&tensors);
    let (gi, go) = (fbb.create_vector(&[0i32]), fbb.create_vector(&[1i32]));
    let sg = tf::SubGraph::create(
        &mut fbb,
        &tf::SubGraphArgs {
            tensors: Some(tensors),
            inputs: Some(gi),
            outputs: Some(go),
            operators: Some(ops),
            ..Default::default()
        },
    );
    let sgs = fbb.create_vector(&[sg]);
    let add = tf::OperatorCode::create(
        &mut fbb,
        &tf::OperatorCodeArgs {
            deprecated_builtin_code: 0,
            builtin_code: BuiltinOperator::ADD,
            version: 1,
            ..Default::default()
        },
    );
    let codes = fbb.create_vector(&[add]);
    let empty = tf::Buffer::create(&mut fbb, &tf::BufferArgs::default());
    let buffers = fbb.create_vector(&[empty]);
    let model = tf::Model::create(
        &mut fbb,
        &tf::ModelArgs {
            version: 3,
            operator_codes: Some(codes),
            subgraphs: Some(sgs),
            buffers: Some(buffers),
            ..Default::default()
        },
    );
    fbb.finish(model, Some(tf::MODEL_IDENTIFIER));
    fbb.finished_data().to_vec()
}

/// hello_world_int8 with `listed` more entries in its buffer list, each the one table of a
/// buffer of `bytes` bytes: the reader keeps no copy of a buffer's data, but writing the
/// model back unpacks every entry.
pub fn shared_buffer(listed: usize, bytes: usize) -> Vec<u8> {
    let hello = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/data/tflite/hello_world_int8.tflite"
    ))
    .unwrap();
    let m: ModelT = tf::root_as_model(&hello).unwrap().unpack();
    let mut fbb = FlatBufferBuilder::new();
    // The model's own buffers, then the shared one.
    let mut buffers: Vec<WIPOffset<tf::Buffer>> = m
        .buffers
        .iter()
        .flatten()
        .map(|b| b.pack(&mut fbb))
        .collect();
    let data = fbb.create_vector(&vec![7u8; bytes]);
    let big = tf::Buffer::create(
        &mut fbb,
        &tf::BufferArgs {
            data: Some(data),
            ..Default::default()
        },
    );
    buffers.extend(std::iter::repeat_n(big, listed));
    let buffers = fbb.create_vector(&buffers);
    let subgraphs: Vec<_> = m
        .subgraphs
        .iter()
        .flatten()
        .map(|g| g.pack(&mut fbb))
        .collect();
    let subgraphs = fbb.create_vector(&subgraphs);
    let codes: Vec<_> = m
        .operator_codes
        .iter()
        .flatten()
        .map(|c| c.pack(&mut fbb))
        .collect();
    let codes = fbb.create_vector(&codes);
    let model = tf::Model::create(
        &mut fbb,
        &tf::ModelArgs {
            version: 3,
            operator_codes: Some(codes),
            subgraphs: Some(subgraphs),
            buffers: Some(buffers),
            ..Default::default()
        },
    );
    fbb.finish(model, Some(tf::MODEL_IDENTIFIER));
    fbb.finished_data().to_vec()
}

/// An ExecuTorch program of `instructions` kernel calls that all name one argument list of
/// `arguments` values (value 0, an Int), as one instruction table listed many times.
pub fn shared_arguments(instructions: usize, arguments: usize) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let args = fbb.create_vector(&vec![0i32; arguments]);
    let call = et::KernelCall::create(
        &mut fbb,
        &et::KernelCallArgs {
            op_index: 0,
            args: Some(args),
        },
    );
    let ins = et::Instruction::create(
        &mut fbb,
        &et::InstructionArgs {
            instr_args_type: et::InstructionArguments::KernelCall,
            instr_args: Some(call.as_union_value()),
        },
    );
    let list = fbb.create_vector(&vec![ins; instructions]);
    let chain = et::Chain::create(
        &mut fbb,
        &et::ChainArgs {
            instructions: Some(list),
            ..Default::default()
        },
    );
    let chains = fbb.create_vector(&[chain]);
    let int = et::Int::create(&mut fbb, &et::IntArgs { int_val: 1 });
    let value = et::EValue::create(
        &mut fbb,
        &et::EValueArgs {
            val_type: et::KernelTypes::Int,
            val: Some(int.as_union_value()),
        },
    );
    let values = fbb.create_vector(&[value]);
    let (name, overload) = (fbb.create_string("aten::add"), fbb.create_string("out"));
    let op = et::Operator::create(
        &mut fbb,
        &et::OperatorArgs {
            name: Some(name),
            overload: Some(overload),
        },
    );
    let ops = fbb.create_vector(&[op]);
    let sizes = fbb.create_vector(&[0i64]);
    let (inputs, outputs) = (fbb.create_vector::<i32>(&[]), fbb.create_vector::<i32>(&[]));
    let forward = fbb.create_string("forward");
    let plan = et::ExecutionPlan::create(
        &mut fbb,
        &et::ExecutionPlanArgs {
            name: Some(forward),
            values: Some(values),
            inputs: Some(inputs),
            outputs: Some(outputs),
            chains: Some(chains),
            operators: Some(ops),
            non_const_buffer_sizes: Some(sizes),
            ..Default::default()
        },
    );
    let plans = fbb.create_vector(&[plan]);
    let program = et::Program::create(
        &mut fbb,
        &et::ProgramArgs {
            version: 0,
            execution_plan: Some(plans),
            ..Default::default()
        },
    );
    fbb.finish(program, Some(et::PROGRAM_IDENTIFIER));
    fbb.finished_data().to_vec()
}

/// The hostile inputs, by file name, at the sizes the issue describes.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("nested_calls.tflite", nested_calls(20, 10)),
        ("shared_operator.tflite", shared_operator(2_500, 100_000)),
        ("shared_buffer.tflite", shared_buffer(900, 1 << 20)),
        ("shared_arguments.pte", shared_arguments(7_500, 70_000)),
    ]
}

/// Runs `f`, and checks that it took less than `limit`.
fn quickly<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < limit, "took {took:?}");
    out
}

#[test]
#[ignore = "writes the hostile inputs for the commands: set MEMPLAN_HOSTILE_DIR"]
fn write_the_hostile_inputs() {
    let dir = std::env::var_os("MEMPLAN_HOSTILE_DIR").expect("MEMPLAN_HOSTILE_DIR");
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in inputs() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

#[test]
fn nested_control_flow_stops_at_the_budget_naming_the_operator() {
    let b = nested_calls(20, 10);
    assert!(b.len() < 5_000, "{} bytes", b.len());
    let e = quickly(Duration::from_secs(5), || tflite::read(&b, "m.tflite")).unwrap_err();
    assert_eq!(e.lines().len(), 1, "{e}");
    let text = e.to_string();
    // Depth first: the last subgraph, entered for the n-th time.
    assert!(
        text.starts_with("m.tflite: operator ") && text.contains(" of subgraph 20 (`ADD`): walking the subgraphs as TensorFlow Lite Micro's planner does (a control-flow operator walks the subgraphs it runs at every call), subgraph 20 is entered for the "),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            " time: reading the model would take more than its budget of 16777216 bytes of memory and work (64 per byte of the file's {} bytes, at least 16 MiB, at most 1024 MiB)",
            b.len()
        )),
        "{text}"
    );
    // Within the budget, the same shape reads: 2^6 walks of the last subgraph.
    let small = tflite::read(&nested_calls(6, 10), "m.tflite").unwrap();
    assert_eq!(small.operators.len(), (1 << 7) - 2 + 10 * (1 << 6));
}

#[test]
fn one_operator_listed_many_times_stops_at_the_budget() {
    let b = shared_operator(2_500, 100_000);
    let e = quickly(Duration::from_secs(5), || tflite::read(&b, "m.tflite")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("m.tflite: operator ")
            && text
                .contains(" of subgraph 0: reading the model would take more than its budget of ")
            && text.contains(&format!(
                "bytes of memory and work (64 per byte of the file's {} bytes",
                b.len()
            )),
        "{text}"
    );
    // A few copies of it read.
    let few = tflite::read(&shared_operator(3, 100), "m.tflite").unwrap();
    assert_eq!(few.operators.len(), 3);
}

#[test]
fn instructions_sharing_one_argument_list_stop_at_the_budget() {
    let b = shared_arguments(7_500, 70_000);
    assert!(b.len() < 320_000, "{} bytes", b.len());
    let e = quickly(Duration::from_secs(5), || pte::read(&b, "m.pte", None)).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("m.pte: execution plan 0: instruction ")
            && text.contains(" of chain 0: reading the model would take more than its budget of "),
        "{text}"
    );
    let few = pte::read(&shared_arguments(3, 100), "m.pte", None).unwrap();
    assert_eq!(few.operators.len(), 3);
    assert_eq!(few.operators[2].name, "aten::add.out");
}

#[test]
fn writing_back_a_buffer_listed_many_times_is_refused() {
    // 900 entries of one 1 MiB buffer: read in a moment (no buffer's data is copied), but
    // unpacking to write it back would copy 900 MiB.
    let b = shared_buffer(900, 1 << 20);
    let m = quickly(Duration::from_secs(5), || tflite::read(&b, "m.tflite")).unwrap();
    assert_eq!(m.tensors.len(), 4);
    let e = quickly(Duration::from_secs(5), || {
        tflite::write_offline_plan(&b, "m.tflite", &[])
    })
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "m.tflite: its tables and vectors, counted each time the file references them, come to more than the {} bytes memplan visits (the file references its tables many times over)",
            memplan_planner::files::read_budget(b.len())
        )
    );
    // Listed twice, it writes back: both entries, each with its data.
    let two = shared_buffer(2, 64);
    let out = tflite::write_offline_plan(&two, "m.tflite", &[]).unwrap();
    let back: ModelT = tf::root_as_model(&out).unwrap().unpack();
    let buffers = back.buffers.unwrap();
    assert!(
        buffers
            .iter()
            .filter(|b| b.data.as_deref() == Some(&[7u8; 64][..]))
            .count()
            == 2
    );
}

#[test]
fn the_ui_suite_s_nested_calls_model_is_made_here() {
    // `tests/ui/nested_calls.tflite` (the macro's case `model_over_budget`): the nested
    // calls above. `MEMPLAN_WRITE_UI_MODEL=1` writes it anew.
    let made = nested_calls(20, 10);
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/nested_calls.tflite");
    if std::env::var_os("MEMPLAN_WRITE_UI_MODEL").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    assert!(
        std::fs::read(&path).unwrap() == made,
        "{} is not the model made here",
        path.display()
    );
}
