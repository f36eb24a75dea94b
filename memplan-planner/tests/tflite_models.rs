//! The `.tflite` reader on the real models in `examples/data/tflite`, against facts obtained
//! independently of memplan:
//!
//! - TFLM: `tflite-micro==0.dev20261023182759` (TensorFlow Lite Micro's own Python runtime,
//!   PyPI), `tflite_micro.runtime.Interpreter.from_file(path, arena_size=4 MiB)
//!   .print_allocations()`: "Arena allocation head N bytes", the non-persistent section
//!   TensorFlow Lite Micro's greedy planner laid out on its own lifetimes and sizes.
//! - tflite: the Python `tflite==2.18.0` package (flatc-generated Python of the same schema),
//!   walked by a 40-line script written for this (tensor and operator counts, planned tensors
//!   by TensorFlow Lite Micro's rule, lifetimes by its allocation scopes, the most bytes live
//!   at one step, operator options, buffer positions, the offline plan's words).
//!
//! Both with Python 3.11.7.

use std::path::PathBuf;

use memplan_planner::files::{Activation, ModelFormat, Options, Padding, detect_model, tflite};
use memplan_planner::{Buffer, Lifetime, Problem, Region, Strategy, align_up, plan};

fn bytes(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/tflite")
        .join(name);
    std::fs::read(path).unwrap()
}

fn read(name: &str) -> memplan_planner::files::ModelFile {
    tflite::read(&bytes(name), name).unwrap()
}

/// The most bytes live at one step, each tensor rounded up to 16 as TFLM plans it.
fn peak_live(m: &memplan_planner::files::ModelFile) -> u64 {
    (0..=m.last_step)
        .map(|s| {
            m.tensors
                .iter()
                .filter(|t| !t.persistent && t.lifetime.contains(s))
                .map(|t| align_up(t.size, 16).unwrap())
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

/// memplan's greedy plan of the planned tensors, sizes rounded up to 16 as TFLM's
/// `CreatePlan` does, in the order TFLM adds them (file order).
fn greedy_bytes(m: &memplan_planner::files::ModelFile) -> u64 {
    let buffers = m
        .tensors
        .iter()
        .filter(|t| !t.persistent)
        .map(|t| {
            Buffer::new(
                format!("t{}_{}", t.id.subgraph, t.id.index),
                align_up(t.size, 16).unwrap(),
                0,
                t.lifetime.first,
                t.lifetime.last,
            )
        })
        .collect();
    let problem = Problem {
        regions: vec![Region {
            name: "head".into(),
            capacity: u64::MAX / 4,
            align: 16,
        }],
        buffers,
    };
    plan(&problem, Strategy::Greedy).unwrap().regions[0].planned_bytes
}

/// `(file, tensors in the file, operators, planned tensors, most bytes live at one step
/// (tflite script), TFLM's head bytes (TFLM runtime))`.
const MODELS: &[(&str, usize, usize, usize, u64, u64)] = &[
    ("hello_world_int8.tflite", 10, 3, 4, 32, 32),
    ("micro_speech_quantized.tflite", 10, 4, 5, 5968, 5968),
    ("person_detect.tflite", 89, 31, 32, 55_296, 55_296),
    ("simple_add_model.tflite", 3, 1, 3, 49_152, 49_152),
];

#[test]
fn counts_and_the_peak_are_tflms() {
    for &(name, tensors, operators, planned, peak, _) in MODELS {
        let m = read(name);
        assert_eq!(m.format, ModelFormat::Tflite);
        assert_eq!(m.align, 16);
        assert_eq!(m.subgraphs.len(), 1, "{name}");
        assert_eq!(m.subgraphs[0].values.len(), tensors, "{name}");
        assert_eq!(m.operators.len(), operators, "{name}");
        assert_eq!(m.tensors.len(), planned, "{name}");
        assert_eq!(peak_live(&m), peak, "{name}");
        assert_eq!(m.last_step as usize, operators, "{name}");
    }
}

#[test]
fn greedy_on_these_lifetimes_is_tflms_arena_head() {
    for &(name, .., head) in MODELS {
        assert_eq!(greedy_bytes(&read(name)), head, "{name}");
    }
}

#[test]
fn hello_world_tensor_by_tensor() {
    // The tflite script's planned tensors: (index, name, bytes, first, last).
    let m = read("hello_world_int8.tflite");
    let got: Vec<(u32, &str, u64, u32, u32)> = m
        .tensors
        .iter()
        .map(|t| {
            (
                t.id.index,
                t.name.as_str(),
                t.size,
                t.lifetime.first,
                t.lifetime.last,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0, "serving_default_dense_input:0", 1, 0, 1),
            (
                7,
                "sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd",
                16,
                1,
                2
            ),
            (
                8,
                "sequential/dense_1/MatMul;sequential/dense_1/Relu;sequential/dense_1/BiasAdd",
                16,
                2,
                3
            ),
            (9, "StatefulPartitionedCall:0", 1, 3, 3),
        ]
    );
    let t = &m.tensors[1];
    assert_eq!((t.element.name, t.element.size), ("INT8", 1));
    assert_eq!(t.element.primitive.map(|p| p.rust_name()), Some("i8"));
    assert_eq!(t.shape, vec![1, 16]);
    assert!(!t.persistent && t.file_offset.is_none() && t.memory_id.is_none());
    // Operator 0: FULLY_CONNECTED, RELU (1), keep_num_dims false, DEFAULT weights, inputs
    // [0, 6, 5], outputs [7].
    let op = &m.operators[0];
    assert_eq!((op.step, op.name.as_str()), (1, "FULLY_CONNECTED"));
    assert_eq!(
        (op.inputs.clone(), op.outputs.clone()),
        (vec![0, 6, 5], vec![7])
    );
    assert_eq!(
        op.options,
        Options::FullyConnected {
            activation: Activation::Relu,
            keep_num_dims: false,
            shuffled_weights: false,
            asymmetric_quantize_inputs: false
        }
    );
    // Its weights, tensor 6: [16, 1], data at bytes 512..528 of the file, one scale.
    let memplan_planner::files::Value::Tensor(w) = &m.subgraphs[0].values[6] else {
        panic!()
    };
    assert_eq!(w.name, "sequential/dense/MatMul");
    assert_eq!(w.shape, vec![16, 1]);
    assert_eq!(w.data, Some(512..528));
    assert_eq!(
        w.quantization
            .as_ref()
            .map(|q| (q.scale.len(), q.quantized_dimension)),
        Some((1, 0))
    );
    assert_eq!(w.planned, None);
}

#[test]
fn person_detect_operators_and_constants() {
    let m = read("person_detect.tflite");
    let f = bytes("person_detect.tflite");
    // Operator 0: DEPTHWISE_CONV_2D, SAME, stride 2x2, depth multiplier 8, dilation 1x1,
    // RELU6 (3); inputs [88, 0, 33], outputs [34].
    let op = &m.operators[0];
    assert_eq!(op.name, "DEPTHWISE_CONV_2D");
    assert_eq!(
        op.options,
        Options::DepthwiseConv2D {
            padding: Padding::Same,
            stride_w: 2,
            stride_h: 2,
            depth_multiplier: 8,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::Relu6
        }
    );
    assert_eq!(
        (op.inputs.clone(), op.outputs.clone()),
        (vec![88, 0, 33], vec![34])
    );
    assert_eq!(m.operators[2].name, "CONV_2D");
    // Operator 27: AVERAGE_POOL_2D, VALID, stride 2x2, filter 3x3, no activation; its input
    // is INT8 [1, 3, 3, 256], scale 0.01860933, zero point -128.
    let op = &m.operators[27];
    assert_eq!(op.name, "AVERAGE_POOL_2D");
    assert_eq!(
        op.options,
        Options::Pool2D {
            padding: Padding::Valid,
            stride_w: 2,
            stride_h: 2,
            filter_w: 3,
            filter_h: 3,
            activation: Activation::None
        }
    );
    let memplan_planner::files::Value::Tensor(t) = &m.subgraphs[0].values[op.inputs[0] as usize]
    else {
        panic!()
    };
    assert_eq!(t.shape, vec![1, 3, 3, 256]);
    let q = t.quantization.as_ref().unwrap();
    assert_eq!(
        (q.scale.clone(), q.zero_point.clone()),
        (vec![0.018_609_33_f32], vec![-128])
    );
    assert_eq!(m.operators[29].name, "RESHAPE");
    assert_eq!(
        m.operators[29].options,
        Options::Reshape {
            new_shape: vec![1, 2]
        }
    );
    assert_eq!(m.operators[30].name, "SOFTMAX");
    assert_eq!(m.operators[30].options, Options::Softmax { beta: 1.0 });
    // Operator 0's filter, tensor 0: [1, 3, 3, 8], data at bytes 39480..39552, 8 scales
    // along dim 3.
    let memplan_planner::files::Value::Tensor(w) = &m.subgraphs[0].values[0] else {
        panic!()
    };
    assert_eq!(w.name, "MobilenetV1/Conv2d_0/weights/read");
    assert_eq!(w.data, Some(39480..39552));
    assert_eq!(
        w.quantization
            .as_ref()
            .map(|q| (q.scale.len(), q.quantized_dimension)),
        Some((8, 3))
    );
    assert_eq!(&f[39480..39552].len(), &72);
    assert_eq!(
        (
            m.subgraphs[0].inputs.clone(),
            m.subgraphs[0].outputs.clone()
        ),
        (vec![88], vec![87])
    );
}

#[test]
fn vela_offline_plan_is_read() {
    // person_detect_vela.tflite: 6 tensors, one ethos-u custom operator; its
    // `OfflineMemoryAllocation` (buffer 4, 36 bytes) is [version 0, 1 subgraph, 6 offsets:
    // 0, -1, -1, 0, 0, 0] (tflite script). Tensors 1 and 2 are constants; 0, 3, 4 and 5 are
    // planned, all at offset 0 (Vela overlaps them knowingly). The scratch tensors 3 and 4
    // are read by the operator and written by none: TFLM's first scope -1, memplan's 0.
    let m = read("person_detect_vela.tflite");
    let got: Vec<(u32, &str, u64, Option<u64>, Lifetime)> = m
        .tensors
        .iter()
        .map(|t| {
            (
                t.id.index,
                t.name.as_str(),
                t.size,
                t.file_offset,
                t.lifetime,
            )
        })
        .collect();
    let lt = |first, last| Lifetime { first, last };
    assert_eq!(
        got,
        vec![
            (0, "MobilenetV1/Predictions/Reshape_1", 2, Some(0), lt(1, 1)),
            (3, "_split_1_scratch", 74464, Some(0), lt(0, 1)),
            (4, "_split_1_scratch_fast", 74464, Some(0), lt(0, 1)),
            (5, "input", 9216, Some(0), lt(0, 1)),
        ]
    );
    assert_eq!(m.operators[0].name, "ethos-u");
    // Its custom options: 3 bytes, 01 04 01 (tflite script).
    assert_eq!(
        m.operators[0].options,
        Options::Other {
            kind: "custom".into(),
            custom: vec![1, 4, 1]
        }
    );
}

#[test]
fn formats_are_told_apart_by_identifier() {
    assert_eq!(
        detect_model(&bytes("person_detect.tflite")),
        Some(ModelFormat::Tflite)
    );
    assert_eq!(detect_model(b"name,mem_id,offset,size,first,last\n"), None);
    let e = tflite::read(b"name,mem_id,offset,size,first,last\n", "plan.csv").unwrap_err();
    assert!(e.to_string().starts_with("plan.csv: not a .tflite file: its file identifier (bytes 4..8) is `,mem`, expected `TFL3`"), "{e}");
}

#[test]
#[cfg(feature = "write")]
fn write_back_keeps_everything_but_the_plan() {
    use memplan_planner::files::TensorId;
    for &(name, ..) in MODELS
        .iter()
        .chain(&[("person_detect_vela.tflite", 0, 0, 0, 0, 0)])
    {
        let original = bytes(name);
        let m = read(name);
        // Offsets of memplan's own greedy-like choice: tensor k at 16 * k.
        let offsets: Vec<(TensorId, u64)> = m
            .tensors
            .iter()
            .enumerate()
            .map(|(k, t)| (t.id, 16 * k as u64))
            .collect();
        let written = tflite::write_offline_plan(&original, name, &offsets).unwrap();
        let again = tflite::read(&written, name).unwrap();
        // Every field of the description is the same, but the offsets (and the groups of
        // tensors the plan puts on the same bytes, which follow them) and the constants'
        // positions in the (re-serialized) file.
        assert_eq!(again.tensors.len(), m.tensors.len());
        for (k, (a, b)) in m.tensors.iter().zip(&again.tensors).enumerate() {
            assert_eq!(b.file_offset, Some(16 * k as u64));
            let mut a = a.clone();
            a.file_offset = b.file_offset;
            a.alias_group = b.alias_group;
            assert_eq!(&a, b);
        }
        assert_eq!(again.operators, m.operators);
        assert_eq!(again.last_step, m.last_step);
        assert_eq!(again.description, m.description);
        for (ga, gb) in m.subgraphs.iter().zip(&again.subgraphs) {
            assert_eq!(
                (&ga.name, &ga.inputs, &ga.outputs),
                (&gb.name, &gb.inputs, &gb.outputs)
            );
            for (va, vb) in ga.values.iter().zip(&gb.values) {
                let (
                    memplan_planner::files::Value::Tensor(ta),
                    memplan_planner::files::Value::Tensor(tb),
                ) = (va, vb)
                else {
                    panic!()
                };
                let mut ta = ta.clone();
                // The constants' bytes are the same, 16-byte aligned in the new file.
                if let (Some(ra), Some(rb)) = (&ta.data, &tb.data) {
                    assert_eq!(
                        original[ra.start as usize..ra.end as usize],
                        written[rb.start as usize..rb.end as usize]
                    );
                    assert_eq!(rb.start % 16, 0, "{name}: {}", tb.name);
                    ta.data = tb.data.clone();
                }
                assert_eq!(&ta, tb);
            }
        }
    }
}

#[test]
#[cfg(feature = "write")]
fn write_back_changes_no_field_but_the_plan() {
    // Every field of every table, compared through the generated owned types: the written
    // model is the original plus one buffer and one `OfflineMemoryAllocation` entry (or,
    // for the Vela model, which has one, the original with that buffer's bytes replaced).
    use memplan_flatbuffers::tflite::root_as_model;
    for name in [
        "hello_world_int8.tflite",
        "person_detect.tflite",
        "person_detect_vela.tflite",
    ] {
        let original = bytes(name);
        let m = read(name);
        let offsets: Vec<_> = m.tensors.iter().map(|t| (t.id, 0)).collect();
        let written = tflite::write_offline_plan(&original, name, &offsets).unwrap();
        let before = root_as_model(&original).unwrap().unpack();
        let mut after = root_as_model(&written).unwrap().unpack();
        let plan_entry = after
            .metadata
            .as_ref()
            .unwrap()
            .iter()
            .rposition(|md| md.name.as_deref() == Some(tflite::METADATA_NAME))
            .unwrap();
        let plan_buffer = after.metadata.as_ref().unwrap()[plan_entry].buffer as usize;
        let had_plan = before
            .metadata
            .iter()
            .flatten()
            .any(|md| md.name.as_deref() == Some(tflite::METADATA_NAME));
        if had_plan {
            let b = &mut after.buffers.as_mut().unwrap()[plan_buffer];
            b.data = before.buffers.as_ref().unwrap()[plan_buffer].data.clone();
        } else {
            assert_eq!(plan_buffer + 1, after.buffers.as_ref().unwrap().len());
            after.metadata.as_mut().unwrap().pop();
            after.buffers.as_mut().unwrap().pop();
            // A model without metadata gains the vector (person_detect.tflite has none).
            if before.metadata.is_none() && after.metadata.as_ref().is_some_and(Vec::is_empty) {
                after.metadata = None;
            }
        }
        assert!(before == after, "{name}: a field changed");
    }
}
