//! Every command's work and output follow its input, never a number in it: a small model
//! that describes millions of operator visits is refused at once by every command, a plan
//! whose bytes come near `u64::MAX` draws a map as small as any other, a buffer live over
//! ten million steps makes no ten-million-event trace; a model's constants are what their
//! shapes say; `--write` changes nothing but the plan.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memplan_flatbuffers::executorch::{self as et, BufferT as EtBufferT, KernelTypesT};
use memplan_flatbuffers::tflite::{
    self as tf, BufferT, BuiltinOperator, BuiltinOptionsT, CallOnceOptionsT, MetadataT, ModelT,
    OperatorCodeT, OperatorT, SubGraphT, TensorT, TensorType,
};

mod common;
use common::run;

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounded");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, bytes: &[u8]) -> String {
    let path = dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

/// `memplan ARGS`, which must fail with exit status 2 within `limit`: its standard error.
fn refused(args: &[&str], limit: Duration) -> String {
    let start = Instant::now();
    let o = run(args);
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(took < limit, "{args:?} took {took:?}");
    stderr
}

/// 20 subgraphs, each with two `CALL_ONCE`s of the next, and a last one of ten `ADD`s:
/// 12.6 million operator visits in TensorFlow Lite Micro's walk, from 4 KB.
fn nested_calls() -> Vec<u8> {
    let code = |op: BuiltinOperator| {
        let mut c = OperatorCodeT::default();
        c.builtin_code = op;
        c.deprecated_builtin_code = op.0.min(127) as i8;
        c
    };
    let tensor = || {
        let mut t = TensorT::default();
        t.type_ = TensorType::INT8;
        t.shape = Some(vec![1]);
        t.name = Some("t".into());
        t
    };
    let mut m = ModelT::default();
    m.version = 3;
    m.operator_codes = Some(vec![
        code(BuiltinOperator::CALL_ONCE),
        code(BuiltinOperator::ADD),
    ]);
    m.buffers = Some(vec![BufferT::default()]);
    let mut graphs: Vec<SubGraphT> = (0..20)
        .map(|k| {
            let call = || {
                let mut op = OperatorT::default();
                let mut o = CallOnceOptionsT::default();
                o.init_subgraph_index = k + 1;
                op.builtin_options = BuiltinOptionsT::CallOnceOptions(Box::new(o));
                op
            };
            let mut g = SubGraphT::default();
            g.tensors = Some(vec![tensor()]);
            g.operators = Some(vec![call(), call()]);
            g
        })
        .collect();
    let mut leaf = SubGraphT::default();
    leaf.tensors = Some(vec![tensor(), tensor()]);
    leaf.inputs = Some(vec![0]);
    leaf.outputs = Some(vec![1]);
    leaf.operators = Some(
        (0..10)
            .map(|_| {
                let mut op = OperatorT::default();
                op.opcode_index = 1;
                op.inputs = Some(vec![0, 0]);
                op.outputs = Some(vec![1]);
                op
            })
            .collect(),
    );
    graphs.push(leaf);
    m.subgraphs = Some(graphs);
    memplan_flatbuffers::finish_tflite(&m)
}

#[test]
fn a_small_model_of_millions_of_operator_visits_is_refused_at_once_by_every_command() {
    let bytes = nested_calls();
    assert!(bytes.len() < 5_000);
    let file = write("nested_calls.tflite", &bytes);
    let out = dir().join("nested.out").display().to_string();
    let written = dir().join("nested_written.tflite").display().to_string();
    let commands: [Vec<&str>; 6] = [
        vec!["plan", &file],
        vec!["plan", &file, "--write", &written],
        vec!["check", &file],
        vec!["svg", &file, "-o", &out],
        vec!["trace", &file, "-o", &out],
        vec!["emit", &file, "--name", "m"],
    ];
    for args in commands {
        let stderr = refused(&args, Duration::from_secs(10));
        assert!(
            stderr.starts_with(&format!("error: {file}: operator "))
                && stderr.contains("(`ADD`): walking the subgraphs as TensorFlow Lite Micro's planner does")
                && stderr.contains("reading the model would take more than its budget of 16777216 bytes of memory and work"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!Path::new(&written).exists());
}

#[test]
fn a_map_of_a_plan_near_u64_max_bytes_is_as_small_as_any_other() {
    let file = write(
        "huge.csv",
        b"name,offset,size,first,last\na,0,18446744073709551000,0,0\nb,0,1,1,1\n",
    );
    let out = dir().join("huge.svg");
    let start = Instant::now();
    let o = run(&["svg", &file, "-o", &out.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(start.elapsed() < Duration::from_secs(10));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.len() < 20_000, "{} bytes", svg.len());
    // The byte ticks: 0 and whole multiples of one step, fewer than 21.
    let ticks = svg.matches("text-anchor=\"end\"").count();
    assert!((2..=21).contains(&ticks), "{ticks}");
    assert!(svg.contains("planned 18446744073709551000 bytes"), "{svg}");
}

#[test]
fn one_buffer_live_over_ten_million_steps_makes_no_ten_million_events() {
    let file = write(
        "long.csv",
        b"name,mem_id,offset,size,first,last\na,1,0,16,0,9999999\n",
    );
    let out = dir().join("long.json").display().to_string();
    let stderr = refused(&["trace", &file, "-o", &out], Duration::from_secs(10));
    assert_eq!(
        stderr,
        "error: `long` would make 10000000 events (one per buffer per step it is live), more than the 65536 a trace of 1 buffer is written with (1024 per buffer, at least 65536, at most 10000000): use --rows sections\n"
    );
    let o = run(&["trace", &file, "-o", &out, "--rows", "sections"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    assert_eq!(events.iter().filter(|e| e["ph"] == "X").count(), 1);
}

/// `memplan ARGS` for every command that reads FILE: each must fail with `message` after
/// `error: FILE: `.
fn every_command_refuses(file: &str, message: &str) {
    let out = dir().join("refused.out").display().to_string();
    let commands: [Vec<&str>; 5] = [
        vec!["plan", file],
        vec!["check", file],
        vec!["svg", file, "-o", &out],
        vec!["trace", file, "-o", &out],
        vec!["emit", file, "--name", "m"],
    ];
    for args in commands {
        let stderr = refused(&args, Duration::from_secs(10));
        assert_eq!(stderr, format!("error: {file}: {message}\n"), "{args:?}");
    }
}

#[test]
fn a_constant_shorter_than_its_shape_is_refused_by_every_command() {
    // hello_world with its first int32 bias one byte short (memplan-planner's
    // tests/model_hostile.rs makes it, for the macro's UI case too).
    every_command_refuses(
        &repo("tests/ui/hello_ragged_bias.tflite"),
        "tensor 1 (`sequential/dense_2/BiasAdd/ReadVariableOp`) of subgraph 0, read by operator 2 (`FULLY_CONNECTED`): its data (buffer 2) has 3 bytes, fewer than its shape [1] of INT32 says: 4 (1 element, 4 bytes each); a kernel reads as many as the shape says",
    );
    // add.pte with value 0 (a planned float tensor of 4 bytes) made a constant: its data in
    // `constant_buffer`, 3 bytes.
    let bytes = std::fs::read(repo("examples/data/pte/add.pte")).unwrap();
    let mut p = et::root_as_program(&bytes).unwrap().unpack();
    let mut short = EtBufferT::default();
    short.storage = Some(vec![1, 2, 3]);
    p.constant_buffer = Some(vec![EtBufferT::default(), short]);
    p.constant_segment = None;
    let plan = &mut p.execution_plan.as_mut().unwrap()[0];
    let KernelTypesT::Tensor(t) = &mut plan.values.as_mut().unwrap()[0].val else {
        panic!("value 0 of add.pte is a tensor");
    };
    t.allocation_info = None;
    t.data_buffer_idx = 1;
    let file = write(
        "short_constant.pte",
        &memplan_flatbuffers::finish_executorch(&p),
    );
    every_command_refuses(
        &file,
        "value 0 (a tensor) of execution plan 0, read by instruction 0 (`aten::add.out`): constant buffer 1 has 3 bytes, fewer than its shape [1] of FLOAT says: 4; a kernel reads as many as the shape says",
    );
}

#[test]
fn write_keeps_every_tensor_s_data_when_the_offline_plan_shares_its_buffer() {
    // hello_world with an offline plan (all -1) whose buffer is also the data of a constant
    // tensor added for it (int32 [14]: the plan's 3 header words and 11 entries).
    let bytes = std::fs::read(repo("examples/data/tflite/hello_world_int8.tflite")).unwrap();
    let mut m: ModelT = tf::root_as_model(&bytes).unwrap().unpack();
    let mut words = vec![0i32, 1, 11];
    words.extend([-1; 11]);
    let mut shared = BufferT::default();
    shared.data = Some(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    let buffers = m.buffers.as_mut().unwrap();
    let b = buffers.len() as u32;
    buffers.push(shared);
    let mut t = TensorT::default();
    t.type_ = TensorType::INT32;
    t.shape = Some(vec![14]);
    t.buffer = b;
    t.name = Some("plan_words".into());
    m.subgraphs.as_mut().unwrap()[0]
        .tensors
        .as_mut()
        .unwrap()
        .push(t);
    let mut md = MetadataT::default();
    md.name = Some("OfflineMemoryAllocation".into());
    md.buffer = b;
    m.metadata.get_or_insert_with(Vec::new).push(md);
    let file = write(
        "shared_plan_buffer.tflite",
        &memplan_flatbuffers::finish_tflite(&m),
    );
    let written = dir().join("shared_plan_buffer_written.tflite");
    let o = run(&["plan", &file, "--write", &written.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let original: ModelT = tf::root_as_model(&std::fs::read(&file).unwrap())
        .unwrap()
        .unpack();
    let after: ModelT = tf::root_as_model(&std::fs::read(&written).unwrap())
        .unwrap()
        .unpack();
    // Every tensor, field by field, and its data.
    let (before_buffers, after_buffers) = (
        original.buffers.as_ref().unwrap(),
        after.buffers.as_ref().unwrap(),
    );
    for (g, (sg, sg_after)) in original
        .subgraphs
        .iter()
        .flatten()
        .zip(after.subgraphs.iter().flatten())
        .enumerate()
    {
        let (ts, ts_after) = (
            sg.tensors.as_ref().unwrap(),
            sg_after.tensors.as_ref().unwrap(),
        );
        assert_eq!(ts.len(), ts_after.len());
        for (i, (t, ta)) in ts.iter().zip(ts_after).enumerate() {
            assert_eq!(t, ta, "tensor {i} of subgraph {g}");
            assert_eq!(
                before_buffers[t.buffer as usize], after_buffers[ta.buffer as usize],
                "the data of tensor {i} of subgraph {g}"
            );
        }
        assert_eq!(sg.operators, sg_after.operators);
    }
    // Every buffer as it was; the plan in a buffer of its own, at the end.
    assert_eq!(after_buffers[..before_buffers.len()], before_buffers[..]);
    let md = after.metadata.as_ref().unwrap();
    let plan = md
        .iter()
        .rfind(|d| d.name.as_deref() == Some("OfflineMemoryAllocation"))
        .unwrap();
    assert_eq!(plan.buffer as usize, before_buffers.len());
    assert_eq!(after_buffers.len(), before_buffers.len() + 1);
    // It reads back with memplan's offsets: the four planned tensors get one each.
    let model =
        memplan_planner::files::tflite::read(&std::fs::read(&written).unwrap(), "w").unwrap();
    assert_eq!(
        model
            .tensors
            .iter()
            .filter(|t| t.file_offset.is_some())
            .count(),
        4
    );
}

#[test]
fn a_check_of_millions_of_overlapping_pairs_lists_the_first_thousand_at_once() {
    // 20,000 buffers on the same 16 bytes at step 0: 200 million overlapping pairs in 309 KB.
    let mut csv = String::from("name,offset,size,first,last\n");
    for i in 0..20_000 {
        csv.push_str(&format!("x{i},0,16,0,0\n"));
    }
    let file = write("pairs.csv", csv.as_bytes());
    let start = Instant::now();
    let o = run(&["check", &file]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1001);
    assert!(
        stdout.ends_with(&format!(
            "{file}: 20000 buffers in 1 memory id: more than 1000 overlapping pairs (the first 1000 listed), no misaligned offset, no buffer out of bounds\n"
        )),
        "{}",
        &stdout[stdout.len() - 300..]
    );
}
