//! Hostile and malformed model files: every one an error naming the file and what is wrong,
//! never a panic, never quadratic. Malformed files are made from the real ones by editing
//! their unpacked tables (memplan-flatbuffers' object types) and packing them again.
#![cfg(feature = "write")]

use std::path::PathBuf;
use std::time::Instant;

use memplan_flatbuffers::executorch::{self as et, KernelTypesT};
use memplan_flatbuffers::tflite::{
    self as tf, BuiltinOperator, BuiltinOptionsT, IfOptionsT, OperatorCodeT, OperatorT, TensorT,
    TensorType,
};
use memplan_planner::files::{pte, tflite};

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

const HELLO: &str = "../examples/data/tflite/hello_world_int8.tflite";
const ADD: &str = "../examples/data/pte/add.pte";

fn model(path: &str) -> tf::ModelT {
    tf::root_as_model(&bytes(path)).unwrap().unpack()
}

fn pack(m: &tf::ModelT) -> Vec<u8> {
    memplan_flatbuffers::finish_tflite(m)
}

fn tflite_error(m: &tf::ModelT) -> String {
    tflite::read(&pack(m), "m.tflite").unwrap_err().to_string()
}

fn tensor0(m: &mut tf::ModelT) -> &mut TensorT {
    &mut m.subgraphs.as_mut().unwrap()[0].tensors.as_mut().unwrap()[0]
}

#[test]
fn truncated_and_corrupt_files_are_errors_not_panics() {
    for path in [
        HELLO,
        "../examples/data/tflite/simple_add_model.tflite",
        "../examples/data/tflite/person_detect_vela.tflite",
    ] {
        let b = bytes(path);
        for len in (0..b.len()).step_by(7) {
            let e = tflite::read(&b[..len], "cut.tflite").unwrap_err();
            assert_eq!(e.file, "cut.tflite");
        }
        // Bytes overwritten at positions of a fixed sequence: an error or a model, whatever
        // the verifier lets through, never a panic.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..300 {
            let mut c = b.clone();
            for _ in 0..4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x % c.len() as u64) as usize;
                c[at] = (x >> 32) as u8;
            }
            let _ = tflite::read(&c, "bad.tflite");
        }
    }
    for path in [
        ADD,
        "../examples/data/pte/arduino_add_model.pte",
        "tests/data/pte/views.pte",
    ] {
        let b = bytes(path);
        for len in 0..b.len() {
            assert!(pte::read(&b[..len], "cut.pte", None).is_err());
        }
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..300 {
            let mut c = b.clone();
            for _ in 0..4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x % c.len() as u64) as usize;
                c[at] = (x >> 32) as u8;
            }
            let _ = pte::read(&c, "bad.pte", None);
        }
    }
}

#[test]
fn the_identifier_found_is_named() {
    let e = pte::read(&bytes(HELLO), "m.pte", None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.pte: not a .pte file: its file identifier (bytes 4..8) is `TFL3` (a .tflite file), expected `ET12`"
    );
    let mut b = bytes(ADD);
    b[4..8].copy_from_slice(b"ET13");
    let e = pte::read(&b, "m.pte", None).unwrap_err();
    assert!(e.message.ends_with("is `ET13`, expected `ET12` (another version of ExecuTorch's schema: memplan reads ET12)"), "{e}");
}

#[test]
fn an_unknown_schema_version_is_an_error() {
    let mut m = model(HELLO);
    m.version = 4;
    assert_eq!(
        tflite_error(&m),
        "m.tflite: schema version 4: memplan reads TFLite schema version 3"
    );
}

#[test]
fn shapes_memplan_cannot_plan_are_errors_naming_the_tensor() {
    let mut m = model(HELLO);
    tensor0(&mut m).shape = Some(vec![-1, 1]);
    assert_eq!(
        tflite_error(&m),
        "m.tflite: tensor 0 (`serving_default_dense_input:0`) of subgraph 0: dim -1 is negative: a dynamic shape, which memplan cannot plan"
    );
    let mut m = model(HELLO);
    tensor0(&mut m).shape_signature = Some(vec![-1]);
    assert!(
        tflite_error(&m).ends_with("a dynamic shape: shape_signature [-1] has 1 dims, shape has 2")
    );
    let mut m = model(HELLO);
    tensor0(&mut m).type_ = TensorType::STRING;
    assert!(tflite_error(&m).ends_with("element type STRING has no size in TensorFlow Lite Micro"));
    let mut m = model(HELLO);
    let t = tensor0(&mut m);
    t.type_ = TensorType::INT64;
    t.shape = Some(vec![i32::MAX, i32::MAX, i32::MAX]);
    t.shape_signature = None;
    let e = tflite_error(&m);
    assert!(e.ends_with("its byte size (2147483647 x 2147483647 x 2147483647 elements of 8 bytes) overflows 64 bits"), "{e}");
    let mut m = model(HELLO);
    tensor0(&mut m).shape = Some(vec![1; 17]);
    tensor0(&mut m).shape_signature = None;
    assert!(tflite_error(&m).ends_with("17 dims, more than 16"));
}

#[test]
fn a_subgraph_that_runs_itself_is_refused() {
    let mut m = model(HELLO);
    let mut code = OperatorCodeT::default();
    code.builtin_code = BuiltinOperator::IF;
    code.deprecated_builtin_code = 118;
    m.operator_codes.as_mut().unwrap().push(code);
    let mut op = OperatorT::default();
    op.opcode_index = m.operator_codes.as_ref().unwrap().len() as u32 - 1;
    op.inputs = Some(vec![0]);
    op.outputs = Some(vec![7]);
    op.builtin_options = BuiltinOptionsT::IfOptions(Box::new({
        let mut o = IfOptionsT::default();
        o.then_subgraph_index = 0;
        o.else_subgraph_index = 0;
        o
    }));
    m.subgraphs.as_mut().unwrap()[0]
        .operators
        .as_mut()
        .unwrap()
        .push(op);
    assert_eq!(
        tflite_error(&m),
        "m.tflite: operator 3 of subgraph 0 runs subgraph 0 while subgraph 0 is running: recursive subgraphs are refused (TensorFlow Lite Micro's planner would not terminate)"
    );
}

#[test]
fn an_offline_plan_with_the_wrong_count_or_offset_is_an_error() {
    let b = bytes(HELLO);
    let written = tflite::write_offline_plan(&b, "m.tflite", &[]).unwrap();
    let mut m = tf::root_as_model(&written).unwrap().unpack();
    let md = m
        .metadata
        .as_ref()
        .unwrap()
        .iter()
        .find(|d| d.name.as_deref() == Some(tflite::METADATA_NAME))
        .unwrap()
        .buffer as usize;
    let data = m.buffers.as_mut().unwrap()[md].data.as_mut().unwrap();
    data[8..12].copy_from_slice(&5i32.to_le_bytes());
    assert!(tflite_error(&m).ends_with("has 5 offsets; the model has 10 tensors (all subgraphs), and TensorFlow Lite Micro needs one offset per tensor"), "{}", tflite_error(&m));
    let data = m.buffers.as_mut().unwrap()[md].data.as_mut().unwrap();
    data[8..12].copy_from_slice(&10i32.to_le_bytes());
    data[12..16].copy_from_slice(&(-5i32).to_le_bytes());
    assert!(tflite_error(&m).ends_with("the offset of tensor entry 0 is -5: negative, and not -1"));
    let e = tflite::write_offline_plan(
        &b,
        "m.tflite",
        &[(
            memplan_planner::files::TensorId {
                subgraph: 0,
                index: 0,
            },
            1 << 31,
        )],
    )
    .unwrap_err();
    assert!(
        e.message
            .ends_with("does not fit the offline plan's 32-bit entry (at most 2147483647)")
    );
}

#[test]
fn pte_offsets_out_of_range_are_errors() {
    let mut p = et::root_as_program(&bytes(ADD)).unwrap().unpack();
    let plan = &mut p.execution_plan.as_mut().unwrap()[0];
    if let KernelTypesT::Tensor(t) = &mut plan.values.as_mut().unwrap()[2].val {
        t.allocation_info.as_mut().unwrap().memory_offset_low = 46;
    }
    let e = pte::read(&memplan_flatbuffers::finish_executorch(&p), "m.pte", None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.pte: value 2 (a tensor) of execution plan 0: its 4 bytes at offset 46 of memory id 1 end past the buffer's 48 bytes (non_const_buffer_sizes[1])"
    );
}

#[test]
fn a_long_chain_reads_in_linear_time() {
    // 100,000 ADD operators in a chain: tensor k + 1 = tensor k + tensor k.
    let n = 100_000;
    let mut m = model("../examples/data/tflite/simple_add_model.tflite");
    let g = &mut m.subgraphs.as_mut().unwrap()[0];
    let proto = g.tensors.as_ref().unwrap()[0].clone();
    let op_proto = g.operators.as_ref().unwrap()[0].clone();
    g.tensors = Some((0..=n).map(|_| proto.clone()).collect());
    g.operators = Some(
        (0..n)
            .map(|k| {
                let mut op = op_proto.clone();
                op.inputs = Some(vec![k, k]);
                op.outputs = Some(vec![k + 1]);
                op
            })
            .collect(),
    );
    g.inputs = Some(vec![0]);
    g.outputs = Some(vec![n]);
    let b = pack(&m);
    let start = Instant::now();
    let r = tflite::read(&b, "chain.tflite").unwrap();
    let took = start.elapsed();
    assert_eq!(r.tensors.len(), n as usize + 1);
    assert_eq!(
        r.tensors[5].lifetime,
        memplan_planner::Lifetime { first: 5, last: 6 }
    );
    assert_eq!(
        r.tensors[n as usize].lifetime,
        memplan_planner::Lifetime {
            first: n as u32,
            last: n as u32
        }
    );
    assert!(took.as_secs() < 10, "{took:?}");
}

#[test]
fn a_variable_tensor_is_persistent_and_live_throughout() {
    // hello_world with its first hidden activation (tensor 7, 16 bytes) made variable: TFLM
    // gives it persistent memory (AllocateVariables), so it is yielded persistent, live at
    // every step, with its own size.
    let mut m = model(HELLO);
    m.subgraphs.as_mut().unwrap()[0].tensors.as_mut().unwrap()[7].is_variable = true;
    let r = tflite::read(&pack(&m), "v.tflite").unwrap();
    let t = r.tensors.iter().find(|t| t.id.index == 7).unwrap();
    assert!(t.persistent);
    assert_eq!(
        (t.size, t.lifetime),
        (16, memplan_planner::Lifetime { first: 0, last: 3 })
    );
    assert_eq!(r.tensors.iter().filter(|t| t.persistent).count(), 1);
}

/// Five faults of hello_world, each of its own tensor or operator.
const HELLO_FAULTS: [fn(&mut tf::ModelT); 5] = [
    |m| tensor0(m).shape = Some(vec![-1, 1]),
    |m| m.subgraphs.as_mut().unwrap()[0].tensors.as_mut().unwrap()[2].type_ = TensorType::STRING,
    |m| m.subgraphs.as_mut().unwrap()[0].tensors.as_mut().unwrap()[4].buffer = 999,
    |m| m.subgraphs.as_mut().unwrap()[0].operators.as_mut().unwrap()[0].opcode_index = 99,
    |m| m.subgraphs.as_mut().unwrap()[0].operators.as_mut().unwrap()[1].outputs = Some(vec![50]),
];

#[test]
fn every_faulty_tensor_and_operator_is_an_error_of_its_own() {
    // Each fault alone, then all at once: the model with all of them reports each, in
    // order (subgraph 0's tensors, then its operators), as it does alone.
    let faults = HELLO_FAULTS;
    let alone: Vec<String> = faults
        .iter()
        .map(|f| {
            let mut m = model(HELLO);
            f(&mut m);
            tflite_error(&m)
        })
        .collect();
    assert_eq!(
        alone,
        [
            "m.tflite: tensor 0 (`serving_default_dense_input:0`) of subgraph 0: dim -1 is negative: a dynamic shape, which memplan cannot plan",
            "m.tflite: tensor 2 (`sequential/dense_2/MatMul`) of subgraph 0: element type STRING has no size in TensorFlow Lite Micro",
            "m.tflite: tensor 4 (`sequential/dense_1/MatMul`) of subgraph 0: buffer 999 is not among the model's 13",
            "m.tflite: operator 0 of subgraph 0: operator code 99 is not among the model's 1",
            "m.tflite: operator 1 of subgraph 0: output tensor 50 is not a tensor of the subgraph",
        ]
    );
    let mut m = model(HELLO);
    for f in &faults {
        f(&mut m);
    }
    let e = tflite::read(&pack(&m), "m.tflite").unwrap_err();
    assert_eq!(e.lines(), alone);
    assert_eq!((e.more.len(), e.unlisted), (4, 0));
    // Operator 0 reads tensor 0, faulty: no fault of its own for it. Past LISTED faults,
    // how many more, counted as tensors or operators.
    let mut m = model(HELLO);
    for t in m.subgraphs.as_mut().unwrap()[0].tensors.as_mut().unwrap() {
        t.type_ = TensorType::STRING;
    }
    let e = tflite::read(&pack(&m), "m.tflite").unwrap_err();
    let lines = e.lines();
    assert_eq!(lines.len(), memplan_planner::LISTED + 1);
    assert_eq!(
        lines[memplan_planner::LISTED],
        "m.tflite: and 2 more faulty tensors or operators"
    );
    // A structural fault stays alone.
    let mut b = pack(&model(HELLO));
    b[4..8].copy_from_slice(b"XXXX");
    assert_eq!(tflite::read(&b, "m.tflite").unwrap_err().lines().len(), 1);
}

#[test]
fn every_faulty_pte_value_and_instruction_is_an_error_of_its_own() {
    // Each fault alone, then all at once: values first, then instructions.
    fn tensor(p: &mut et::ProgramT, v: usize) -> &mut et::TensorT {
        match &mut p.execution_plan.as_mut().unwrap()[0]
            .values
            .as_mut()
            .unwrap()[v]
            .val
        {
            KernelTypesT::Tensor(t) => t,
            _ => panic!("value {v} of add.pte is a tensor"),
        }
    }
    type Fault = fn(&mut et::ProgramT);
    let faults: [Fault; 3] = [
        |p| tensor(p, 0).scalar_type = et::ScalarType(99),
        |p| {
            tensor(p, 2)
                .allocation_info
                .as_mut()
                .unwrap()
                .memory_offset_low = 46
        },
        |p| {
            let chain = &mut p.execution_plan.as_mut().unwrap()[0]
                .chains
                .as_mut()
                .unwrap()[0];
            let ins = &mut chain.instructions.as_mut().unwrap()[0];
            if let et::InstructionArgumentsT::KernelCall(k) = &mut ins.instr_args {
                k.args.as_mut().unwrap()[0] = 1000;
            }
        },
    ];
    let read = |p: &et::ProgramT| {
        pte::read(&memplan_flatbuffers::finish_executorch(p), "m.pte", None).unwrap_err()
    };
    let program = || et::root_as_program(&bytes(ADD)).unwrap().unpack();
    let alone: Vec<String> = faults
        .iter()
        .map(|f| {
            let mut p = program();
            f(&mut p);
            read(&p).to_string()
        })
        .collect();
    assert_eq!(
        alone,
        [
            "m.pte: value 0 (a tensor) of execution plan 0: scalar type 99, which the schema does not declare",
            "m.pte: value 2 (a tensor) of execution plan 0: its 4 bytes at offset 46 of memory id 1 end past the buffer's 48 bytes (non_const_buffer_sizes[1])",
            "m.pte: execution plan 0: instruction 0: argument 0 is value 1000, which the plan does not have (4 values)",
        ]
    );
    let mut p = program();
    for f in &faults {
        f(&mut p);
    }
    let e = read(&p);
    assert_eq!(e.lines(), alone);
    // The faulty values alone: no instruction is faulted for reading them.
    let mut p = program();
    faults[0](&mut p);
    faults[1](&mut p);
    assert_eq!(read(&p).lines(), alone[..2]);
}

#[test]
fn the_ui_suite_s_faulty_model_is_hello_world_with_the_five_faults() {
    // `tests/ui/hello_faults.tflite` (the macro's case `model_file_faults`) is made here:
    // `MEMPLAN_WRITE_UI_MODEL=1` writes it anew.
    let mut m = model(HELLO);
    for f in &HELLO_FAULTS {
        f(&mut m);
    }
    ui_model("hello_faults.tflite", &pack(&m));
}

/// Checks that the UI suite's model `name` (in `tests/ui`) is `made`, byte for byte; with
/// `MEMPLAN_WRITE_UI_MODEL=1` in the environment, writes it first.
fn ui_model(name: &str, made: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/ui")
        .join(name);
    if std::env::var_os("MEMPLAN_WRITE_UI_MODEL").is_some() {
        std::fs::write(&path, made).unwrap();
    }
    assert!(
        std::fs::read(&path).unwrap() == made,
        "{} is not the model made here",
        path.display()
    );
}

#[test]
fn the_ui_suite_s_ragged_constant_model_is_hello_world_with_a_short_bias() {
    // `tests/ui/hello_ragged_bias.tflite` (the macro's case `model_constant_ragged`) is
    // hello_world with the data of its first int32 constant one byte short: a kernel that
    // trusts the shape would read past it, so the reader refuses it, naming the tensor and
    // the operator that reads it. `MEMPLAN_WRITE_UI_MODEL=1` writes it anew.
    let mut m = model(HELLO);
    let tensors = m.subgraphs.as_ref().unwrap()[0].tensors.as_ref().unwrap();
    let buffers = m.buffers.as_ref().unwrap();
    let b = tensors
        .iter()
        .map(|t| (t.type_, t.buffer as usize))
        .find(|&(ty, b)| {
            ty == TensorType::INT32 && buffers[b].data.as_ref().is_some_and(|d| !d.is_empty())
        })
        .map(|(_, b)| b)
        .unwrap();
    let data = m.buffers.as_mut().unwrap()[b].data.as_mut().unwrap();
    assert_eq!(data.len() % 4, 0);
    data.pop();
    let made = pack(&m);
    assert_eq!(
        tflite::read(&made, "m.tflite").unwrap_err().to_string(),
        "m.tflite: tensor 1 (`sequential/dense_2/BiasAdd/ReadVariableOp`) of subgraph 0, read by operator 2 (`FULLY_CONNECTED`): its data (buffer 2) has 3 bytes, fewer than its shape [1] of INT32 says: 4 (1 element, 4 bytes each); a kernel reads as many as the shape says"
    );
    ui_model("hello_ragged_bias.tflite", &made);
}

#[test]
fn the_ui_suite_s_repeated_names_models_are_hello_world_renamed_and_three_subgraphs() {
    // `tests/ui/hello_names_repeat.tflite` (the macro's pass case `model_names_repeat`):
    // hello_world with its planned tensors named `plan` (the generated module's own `Plan`),
    // `x`, `x` and `x_7` (whose Rust name is `x#7`'s), every constant `x` too.
    let mut m = model(HELLO);
    let names = ["plan", "x", "x", "x", "x", "x", "x", "x", "x", "x_7"];
    for (t, name) in m.subgraphs.as_mut().unwrap()[0]
        .tensors
        .as_mut()
        .unwrap()
        .iter_mut()
        .zip(names)
    {
        t.name = Some(name.to_string());
    }
    let made = pack(&m);
    let buffers = buffer_names(&made);
    assert_eq!(buffers, ["plan", "x#7", "x#8", "x_7"]);
    ui_model("hello_names_repeat.tflite", &made);

    // `tests/ui/subgraph_names_repeat.tflite` (the pass case `model_names_repeat` too):
    // subgraph 0 calls subgraphs 1 and 2 (a `CALL_ONCE` each); every subgraph has tensors
    // `t`, `t` (an `ADD` of the first into the second), and subgraph 0 also `at_step_1`
    // (a step view's name) and `x.y`, `x_y` (one Rust name).
    let mut m = model("../examples/data/tflite/simple_add_model.tflite");
    let mut call_once = OperatorCodeT::default();
    call_once.builtin_code = BuiltinOperator::CALL_ONCE;
    call_once.deprecated_builtin_code = 127;
    m.operator_codes.as_mut().unwrap().push(call_once);
    let add = m.subgraphs.as_ref().unwrap()[0].operators.as_ref().unwrap()[0].clone();
    let proto = m.subgraphs.as_ref().unwrap()[0].tensors.as_ref().unwrap()[0].clone();
    let tensor = |name: &str| {
        let mut t = proto.clone();
        t.name = Some(name.to_string());
        t
    };
    let graph = |names: &[&str], calls: &[i32]| {
        let mut g = m.subgraphs.as_ref().unwrap()[0].clone();
        g.tensors = Some(names.iter().map(|n| tensor(n)).collect());
        let mut ops = Vec::new();
        for k in 1..names.len() as i32 {
            let mut op = add.clone();
            op.inputs = Some(vec![k - 1, k - 1]);
            op.outputs = Some(vec![k]);
            ops.push(op);
        }
        for &c in calls {
            let mut op = OperatorT::default();
            op.opcode_index = 1;
            let mut o = memplan_flatbuffers::tflite::CallOnceOptionsT::default();
            o.init_subgraph_index = c;
            op.builtin_options = BuiltinOptionsT::CallOnceOptions(Box::new(o));
            ops.push(op);
        }
        g.operators = Some(ops);
        g.inputs = Some(vec![0]);
        g.outputs = Some(vec![names.len() as i32 - 1]);
        g
    };
    m.subgraphs = Some(vec![
        graph(&["t", "t", "at_step_1", "x.y", "x_y"], &[1, 2]),
        graph(&["t", "t"], &[]),
        graph(&["t", "t"], &[]),
    ]);
    let made = pack(&m);
    let buffers = buffer_names(&made);
    assert_eq!(
        buffers,
        [
            "t#0",
            "t#1",
            "at_step_1",
            "x.y",
            "x_y",
            "t#1.0",
            "t#1.1",
            "t#2.0",
            "t#2.1"
        ]
    );
    ui_model("subgraph_names_repeat.tflite", &made);
}

#[test]
fn the_ui_suite_s_short_pte_constant_is_add_with_a_three_byte_input() {
    // `tests/ui/add_short_constant.pte` (the macro's case `model_pte_constant_short`):
    // add.pte with value 0, a float [1], made a constant of 3 bytes in `constant_buffer`.
    let mut p = et::root_as_program(&bytes(ADD)).unwrap().unpack();
    let mut short = et::BufferT::default();
    short.storage = Some(vec![1, 2, 3]);
    p.constant_buffer = Some(vec![et::BufferT::default(), short]);
    p.constant_segment = None;
    let plan = &mut p.execution_plan.as_mut().unwrap()[0];
    let KernelTypesT::Tensor(t) = &mut plan.values.as_mut().unwrap()[0].val else {
        panic!("value 0 of add.pte is a tensor");
    };
    t.allocation_info = None;
    t.data_buffer_idx = 1;
    let made = memplan_flatbuffers::finish_executorch(&p);
    assert_eq!(
        pte::read(&made, "m.pte", None).unwrap_err().to_string(),
        "m.pte: value 0 (a tensor) of execution plan 0, read by instruction 0 (`aten::add.out`): constant buffer 1 has 3 bytes, fewer than its shape [1] of FLOAT says: 4; a kernel reads as many as the shape says"
    );
    // Four bytes read; five do not.
    let tensor = |p: &mut et::ProgramT| match &mut p.execution_plan.as_mut().unwrap()[0]
        .values
        .as_mut()
        .unwrap()[0]
        .val
    {
        KernelTypesT::Tensor(t) => t.data_buffer_idx,
        _ => 0,
    };
    assert_eq!(tensor(&mut p), 1);
    for (len, ok) in [(4, true), (5, false)] {
        let mut q = p.clone();
        q.constant_buffer.as_mut().unwrap()[1].storage = Some(vec![0; len]);
        let r = pte::read(&memplan_flatbuffers::finish_executorch(&q), "m.pte", None);
        assert_eq!(r.is_ok(), ok, "{len}: {r:?}");
        if !ok {
            assert!(r.unwrap_err().to_string().ends_with("constant buffer 1 has 5 bytes, more than its shape [1] of FLOAT says: 4 (ExecuTorch refuses it)"));
        }
    }
    ui_model("add_short_constant.pte", &made);
}

#[test]
fn a_constant_is_what_its_shape_says_in_the_constant_segment_too() {
    // kws_dscnn.pte keeps its 65 constants in a segment: each reads (its bytes up to the next
    // constant are its own and the padding to 16). A dim of one made 1 (too few bytes used)
    // or twice as large (too many) is refused, naming the value and the instruction.
    let b = bytes("../examples/data/pte/kws_dscnn.pte");
    let m = pte::read(&b, "k.pte", None).unwrap();
    let (v, t) = m.subgraphs[0]
        .values
        .iter()
        .enumerate()
        .find_map(|(v, x)| match x {
            memplan_planner::files::Value::Tensor(t)
                if t.data.as_ref().is_some_and(|d| d.end - d.start >= 1024)
                    && t.shape.first().is_some_and(|&d| d > 1) =>
            {
                Some((v, t.clone()))
            }
            _ => None,
        })
        .unwrap();
    // The tensor's `sizes` vector, patched in place (the file keeps its segments).
    let p = et::root_as_program(&b).unwrap();
    let plan = p.execution_plan().unwrap().get(0);
    let sizes = plan
        .values()
        .unwrap()
        .get(v)
        .val_as_tensor()
        .unwrap()
        .sizes()
        .unwrap();
    let at = sizes.bytes().as_ptr() as usize - b.as_ptr() as usize;
    let first = t.shape[0] as i32;
    for (dim, word) in [(1, "more"), (first * 2, "fewer")] {
        let mut c = b.clone();
        c[at..at + 4].copy_from_slice(&dim.to_le_bytes());
        let e = pte::read(&c, "k.pte", None).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "k.pte: value {v} (a tensor) of execution plan 0, read by instruction 0 (`aten::convolution.out`): constant buffer "
            )) && e.contains(" bytes in the constant segment (offset ")
                && e.contains(&format!("), {word} than its shape [")),
            "{e}"
        );
    }
}

/// The names of the buffers memplan plans for the `.tflite` model `bytes`.
fn buffer_names(bytes: &[u8]) -> Vec<String> {
    tflite::read(bytes, "m.tflite")
        .unwrap()
        .plan_file()
        .buffers
        .into_iter()
        .map(|b| b.name)
        .collect()
}
