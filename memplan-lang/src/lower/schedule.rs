//! A `model` statement's schedule, lowered: each operator of the model in order, with its
//! kind (one of [`KINDS`]), options and tensors, each tensor a planned buffer (a field of
//! the step's view) or constant data, copied from the file into the schedule's constants
//! (each range once, at a multiple of 16: [`Schedule::constants`]). Everything the
//! generated `run` could get wrong is refused here, spanned on the statement's path: an
//! operator kind memplan has no kernel trait for, control flow, operators of one kind with
//! different element types, a tensor neither planned nor constant, constant data outside
//! the file, not a whole number of its elements or packed (`INT4`), a plan too long for
//! step views. (The reader refuses a constant whose data is not what its shape says.)

use std::collections::HashMap;

use memplan_planner::files::{ModelFile, Options, Primitive, Quantization, TensorInfo, Value};

use super::context::Lowering;

/// An operator kind the schedule runs: the TFLite operator, the kernel trait the plan's
/// module declares for it and its method, the options type in the runtime's `ops`, and
/// the roles of its inputs (the name of the method's parameter, and whether the model may
/// leave it out: TFLite's -1).
pub struct Kind {
    /// TFLite's name of the operator (`BuiltinOperator`).
    pub op: &'static str,
    /// The kernel trait's name.
    pub trait_name: &'static str,
    /// The trait's method.
    pub method: &'static str,
    /// The options type in `memplan_runtime::ops`.
    pub options: &'static str,
    /// The inputs the kernel gets, in the operator's order: `(name, optional)`. Inputs past
    /// them (`RESHAPE`'s shape tensor) are not passed.
    pub inputs: &'static [(&'static str, bool)],
}

/// The operator kinds a schedule runs.
pub const KINDS: &[Kind] = &[
    Kind {
        op: "CONV_2D",
        trait_name: "Conv2d",
        method: "conv_2d",
        options: "Conv2d",
        inputs: &[("input", false), ("filter", false), ("bias", true)],
    },
    Kind {
        op: "DEPTHWISE_CONV_2D",
        trait_name: "DepthwiseConv2d",
        method: "depthwise_conv_2d",
        options: "DepthwiseConv2d",
        inputs: &[("input", false), ("filter", false), ("bias", true)],
    },
    Kind {
        op: "AVERAGE_POOL_2D",
        trait_name: "AveragePool2d",
        method: "average_pool_2d",
        options: "Pool2d",
        inputs: &[("input", false)],
    },
    Kind {
        op: "MAX_POOL_2D",
        trait_name: "MaxPool2d",
        method: "max_pool_2d",
        options: "Pool2d",
        inputs: &[("input", false)],
    },
    Kind {
        op: "RESHAPE",
        trait_name: "Reshape",
        method: "reshape",
        options: "Reshape",
        inputs: &[("input", false)],
    },
    Kind {
        op: "SOFTMAX",
        trait_name: "Softmax",
        method: "softmax",
        options: "Softmax",
        inputs: &[("input", false)],
    },
    Kind {
        op: "FULLY_CONNECTED",
        trait_name: "FullyConnected",
        method: "fully_connected",
        options: "FullyConnected",
        inputs: &[("input", false), ("weights", false), ("bias", true)],
    },
    Kind {
        op: "ADD",
        trait_name: "Add",
        method: "add",
        options: "Add",
        inputs: &[("a", false), ("b", false)],
    },
];

/// Where a tensor's elements are.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A planned buffer: its index in [`super::Model::buffers`] (its field in the step's
    /// view).
    Buffer(usize),
    /// Constant data: `count` elements from byte `start` of the schedule's constants
    /// ([`Schedule::constants`]).
    Constant {
        /// The first byte, from the start of [`Schedule::constants`] (a multiple of
        /// [`CONSTANT_ALIGN`]).
        start: u64,
        /// The elements.
        count: u64,
    },
}

/// A tensor an operator reads or writes.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorRef {
    /// Its index in the subgraph.
    pub index: usize,
    /// Its name in the model.
    pub name: String,
    /// Where its elements are.
    pub source: Source,
    /// Its element type (`None`: bytes).
    pub elem: Option<Primitive>,
    /// Its dims.
    pub shape: Vec<u64>,
    /// Its quantization.
    pub quantization: Option<Quantization>,
}

/// One operator of the schedule.
#[derive(Clone, Debug)]
pub struct Op {
    /// Its index among the model's operators.
    pub index: usize,
    /// The step it runs at.
    pub step: u32,
    /// Its kind, an index in [`KINDS`].
    pub kind: usize,
    /// Its options, as the reader gives them.
    pub options: Options,
    /// Its inputs, one per role of its kind (`None`: left out, for an optional role).
    pub inputs: Vec<Option<TensorRef>>,
    /// Its output.
    pub output: TensorRef,
}

/// A model's schedule, lowered.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The file as written, for docs.
    pub shown: String,
    /// The data of the constant tensors the operators read, copied from the file: each
    /// once (however many operators read it), in the order first read, each starting at a
    /// multiple of [`CONSTANT_ALIGN`] (zeros between them). Nothing else of the file.
    pub constants: Vec<u8>,
    /// The operators, in order.
    pub ops: Vec<Op>,
    /// The model's inputs (planned buffers), filled before its first operator.
    pub inputs: Vec<TensorRef>,
    /// Its outputs, read after its last operator.
    pub outputs: Vec<TensorRef>,
    /// The last step.
    pub last_step: u32,
}

/// The element types of an operator's roles, then its output's: the operators of one kind
/// must agree, as one trait method takes them.
fn signature(op: &Op) -> (Vec<Option<Option<Primitive>>>, Option<Primitive>) {
    (
        op.inputs
            .iter()
            .map(|t| t.as_ref().map(|t| t.elem))
            .collect(),
        op.output.elem,
    )
}

/// Lowers the `model` statement's schedule, if any, into `cx.model.schedule_ir`; reports
/// (on the statement's path) what it cannot run.
pub(super) fn lower(cx: &mut Lowering<'_>) {
    let Some(s) = &cx.model.schedule else {
        return;
    };
    let span = s.span;
    let model = &s.model;
    let first_buffer = s.first_buffer;
    if u64::from(model.last_step) >= crate::limits::MAX_STEPS {
        let shown = s.shown.clone();
        cx.diags.at(
            span,
            format!(
                "model `{shown}`: {} steps, more than the {} a plan's step views (which the schedule runs) are generated for",
                u64::from(model.last_step) + 1,
                crate::limits::MAX_STEPS
            ),
        );
        return;
    }
    let result = build(model, first_buffer).and_then(|(mut ops, inputs, outputs)| {
        let constants = pack(&mut ops, &s.bytes)?;
        Ok(Schedule {
            shown: s.shown.clone(),
            constants,
            ops,
            inputs,
            outputs,
            last_step: model.last_step,
        })
    });
    match result {
        Ok(schedule) => {
            let uninit = schedule
                .ops
                .iter()
                .flat_map(|op| op.inputs.iter().flatten().chain([&op.output]))
                .filter_map(|t| match t.source {
                    Source::Buffer(b) => Some(b),
                    Source::Constant { .. } => None,
                })
                .find_map(|b| match cx.model.buffers[b].buffer.placement {
                    memplan_planner::Placement::In(r) => {
                        cx.model.regions.get(r).filter(|reg| reg.uninit)
                    }
                    memplan_planner::Placement::Anywhere => None,
                })
                .map(|r| r.region.name.clone());
            if let Some(r) = uninit {
                cx.diags.at(
                    span,
                    format!(
                        "model `{}`: its tensors are in region `{r}`, which says `uninit`; a schedule passes them to kernels as their element type, so their region must be zeroed (drop `uninit`)",
                        s.shown
                    ),
                );
                return;
            }
            // Operators of one kind share one method: one signature.
            let mut seen: Vec<Option<&Op>> = vec![None; KINDS.len()];
            let mut errors = Vec::new();
            for op in &schedule.ops {
                match seen[op.kind] {
                    None => seen[op.kind] = Some(op),
                    Some(first) if signature(first) != signature(op) => errors.push(format!(
                        "model `{}`: operators {} and {} are both {} with different element types; a schedule's kernel trait takes one",
                        schedule.shown, first.index, op.index, KINDS[op.kind].op
                    )),
                    Some(_) => {}
                }
            }
            for e in errors {
                cx.diags.at(span, e);
            }
            cx.model.schedule_ir = Some(schedule);
        }
        Err(e) => {
            let shown = s.shown.clone();
            cx.diags.at(span, format!("model `{shown}`: {e}"));
        }
    }
}

type Built = (Vec<Op>, Vec<TensorRef>, Vec<TensorRef>);

/// The alignment of each constant in [`Schedule::constants`], whose `static` is aligned to
/// it too: TensorFlow Lite's alignment of a buffer's data in the file, more than any
/// element type needs.
pub const CONSTANT_ALIGN: usize = 16;

/// Copies the data of the constants `ops` read from the model's bytes `file` into one
/// block, each range once (in the order first read, each at a multiple of
/// [`CONSTANT_ALIGN`]), and points each constant's `start` at its copy.
fn pack(ops: &mut [Op], file: &[u8]) -> Result<Vec<u8>, String> {
    let mut packed: Vec<u8> = Vec::new();
    // (first byte in the file, bytes) -> first byte in `packed`.
    let mut placed: HashMap<(u64, u64), u64> = HashMap::new();
    for t in ops.iter_mut().flat_map(|op| op.inputs.iter_mut().flatten()) {
        let size = t.elem.map_or(1, Primitive::size);
        let Source::Constant { start, count } = &mut t.source else {
            continue;
        };
        let data = count
            .checked_mul(size)
            .and_then(|len| Some((*start, start.checked_add(len)?)))
            .and_then(|(from, to)| {
                file.get(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
            });
        let Some(data) = data else {
            return Err(format!(
                "the data of tensor {} (`{}`) lies outside the file",
                t.index, t.name
            ));
        };
        *start = *placed
            .entry((*start, data.len() as u64))
            .or_insert_with(|| {
                packed.resize(packed.len().next_multiple_of(CONSTANT_ALIGN), 0);
                let at = packed.len() as u64;
                packed.extend_from_slice(data);
                at
            });
    }
    Ok(packed)
}

fn build(model: &ModelFile, first_buffer: usize) -> Result<Built, String> {
    if model.subgraphs.len() != 1 {
        return Err(format!(
            "{} subgraphs: a schedule runs a model of one subgraph (no control flow)",
            model.subgraphs.len()
        ));
    }
    let sg = &model.subgraphs[0];
    // The buffer of each planned tensor: its index in `plan_file()`'s buffers.
    let mut buffer_of = vec![None; model.tensors.len()];
    for (b, members) in model.buffer_tensors().iter().enumerate() {
        for &m in members {
            buffer_of[m] = Some(first_buffer + b);
        }
    }
    let tensor = |index: i32, op: &str| -> Result<TensorRef, String> {
        let info: &TensorInfo = usize::try_from(index)
            .ok()
            .and_then(|i| sg.values.get(i))
            .and_then(|v| match v {
                Value::Tensor(t) => Some(t),
                _ => None,
            })
            .ok_or_else(|| {
                format!("{op} names tensor {index}, which the subgraph does not have")
            })?;
        let i = index as usize;
        let elem = info.element.primitive;
        let source = match (
            info.planned
                .and_then(|k| buffer_of.get(k).copied().flatten()),
            &info.data,
        ) {
            (Some(b), _) => Source::Buffer(b),
            (None, Some(range)) => {
                // The reader has checked the data against the shape; `INT4` data is packed
                // two elements to a byte, which a kernel given the shape's count would read
                // past.
                if info.element.name == "INT4" {
                    return Err(format!(
                        "{op}: tensor {i} (`{}`) is INT4 constant data, packed two elements to a byte: a schedule passes a kernel as many elements as the shape says",
                        info.name
                    ));
                }
                let size = elem.map_or(info.element.size.max(1), |p| p.size());
                // Where the data starts in the file does not matter: `pack` copies it to a
                // multiple of `CONSTANT_ALIGN`.
                let len = range.end - range.start;
                if len % size != 0 {
                    return Err(format!(
                        "{op}: the data of tensor {i} (`{}`) is {len} bytes, not a whole number of its {} elements ({size} bytes each)",
                        info.name, info.element.name
                    ));
                }
                Source::Constant {
                    start: range.start,
                    count: (range.end - range.start) / size,
                }
            }
            (None, None) => {
                return Err(format!(
                    "{op}: tensor {i} (`{}`) is neither planned nor constant data (a variable or zero-size tensor): a schedule cannot pass it to a kernel",
                    info.name
                ));
            }
        };
        if elem.is_none() && info.element.size != 1 {
            return Err(format!(
                "{op}: tensor {i} (`{}`) has elements of type {}, which has no Rust primitive",
                info.name, info.element.name
            ));
        }
        Ok(TensorRef {
            index: i,
            name: info.name.clone(),
            source,
            elem,
            shape: info.shape.clone(),
            quantization: info.quantization.clone(),
        })
    };
    let mut ops = Vec::with_capacity(model.operators.len());
    for (index, op) in model.operators.iter().enumerate() {
        let what = format!("operator {index} (`{}`)", op.name);
        let Some(kind) = KINDS.iter().position(|k| k.op == op.name) else {
            return Err(format!(
                "{what}: memplan runs no schedule with it; the operators it runs are {} (plan the model's tensors with `buffers from` and write the steps)",
                KINDS.iter().map(|k| k.op).collect::<Vec<_>>().join(", ")
            ));
        };
        let fits = matches!(
            (KINDS[kind].options, &op.options),
            ("Conv2d", Options::Conv2D { .. })
                | ("DepthwiseConv2d", Options::DepthwiseConv2D { .. })
                | ("Pool2d", Options::Pool2D { .. })
                | ("Reshape", Options::Reshape { .. } | Options::None)
                | ("Softmax", Options::Softmax { .. })
                | ("FullyConnected", Options::FullyConnected { .. })
                | ("Add", Options::Add { .. })
        );
        if !fits {
            return Err(format!(
                "{what}: its options ({:?}) are not those of {}",
                op.options, KINDS[kind].op
            ));
        }
        let mut inputs = Vec::new();
        for (pos, &(role, optional)) in KINDS[kind].inputs.iter().enumerate() {
            match op.inputs.get(pos) {
                Some(&t) if t >= 0 => inputs.push(Some(tensor(t, &what)?)),
                _ if optional => inputs.push(None),
                _ => return Err(format!("{what}: its `{role}` input is missing")),
            }
        }
        let [out] = op.outputs[..] else {
            return Err(format!(
                "{what}: {} outputs; a kernel writes one",
                op.outputs.len()
            ));
        };
        let output = tensor(out, &what)?;
        if !matches!(output.source, Source::Buffer(_)) {
            return Err(format!("{what}: its output is not a planned tensor"));
        }
        if inputs.iter().flatten().any(|t| t.index == output.index) {
            return Err(format!("{what}: it reads and writes the same tensor"));
        }
        ops.push(Op {
            index,
            step: op.step,
            kind,
            options: op.options.clone(),
            inputs,
            output,
        });
    }
    let planned = |list: &[i32], what: &str| -> Result<Vec<TensorRef>, String> {
        list.iter()
            .map(|&t| tensor(t, what))
            .filter(|t| {
                !matches!(
                    t,
                    Ok(TensorRef {
                        source: Source::Constant { .. },
                        ..
                    })
                )
            })
            .collect()
    };
    let inputs = planned(&sg.inputs, "the model's inputs")?;
    let outputs = planned(&sg.outputs, "the model's outputs")?;
    Ok((ops, inputs, outputs))
}

/// For an overflow whose peak is at `peak_step`, in a plan that runs a model: a `note:`
/// line naming the model's operators at that step, ``step 3: operator 2 (`CONV_2D`)``
/// (empty otherwise), so that the message says which layer needs the bytes.
pub(crate) fn peak_operators(model: &super::Model, peak_step: Option<u32>) -> String {
    let (Some(s), Some(step)) = (&model.schedule, peak_step) else {
        return String::new();
    };
    let ops: Vec<String> = s
        .model
        .operators
        .iter()
        .filter(|op| op.step == step)
        .take(4)
        .map(|op| {
            if op.subgraph == 0 {
                format!("operator {} (`{}`)", op.index, op.name)
            } else {
                format!(
                    "operator {} of subgraph {} (`{}`)",
                    op.index, op.subgraph, op.name
                )
            }
        })
        .collect();
    if ops.is_empty() {
        return String::new();
    }
    format!(
        "\nnote: at the peak, model `{}` runs step {step}: {}",
        s.shown,
        ops.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constant(index: usize, elem: Primitive, start: u64, count: u64) -> Option<TensorRef> {
        Some(TensorRef {
            index,
            name: format!("t{index}"),
            source: Source::Constant { start, count },
            elem: Some(elem),
            shape: vec![count],
            quantization: None,
        })
    }

    fn op(index: usize, inputs: Vec<Option<TensorRef>>) -> Op {
        Op {
            index,
            step: index as u32,
            kind: 0,
            options: Options::None,
            inputs,
            output: TensorRef {
                index: 99,
                name: "out".into(),
                source: Source::Buffer(0),
                elem: Some(Primitive::I8),
                shape: vec![1],
                quantization: None,
            },
        }
    }

    fn starts(ops: &[Op]) -> Vec<u64> {
        ops.iter()
            .flat_map(|op| op.inputs.iter().flatten())
            .filter_map(|t| match t.source {
                Source::Constant { start, .. } => Some(start),
                Source::Buffer(_) => None,
            })
            .collect()
    }

    #[test]
    fn constants_are_packed_once_each_at_multiples_of_16() {
        let file: Vec<u8> = (0..=255).collect();
        let mut ops = vec![
            // 4 bytes at 200, then 8 at 48 (two i32s).
            op(
                0,
                vec![
                    constant(1, Primitive::I8, 200, 4),
                    None,
                    constant(2, Primitive::I32, 48, 2),
                ],
            ),
            // The first again (stored once), then 2 bytes at 64 (one i16).
            op(
                1,
                vec![
                    constant(1, Primitive::I8, 200, 4),
                    constant(3, Primitive::I16, 64, 1),
                ],
            ),
        ];
        let packed = pack(&mut ops, &file).unwrap();
        let mut want = vec![200, 201, 202, 203];
        want.extend([0; 12]);
        want.extend(48..56);
        want.extend([0; 8]);
        want.extend([64, 65]);
        assert_eq!(packed, want);
        assert_eq!(starts(&ops), [0, 16, 0, 32]);
        // The element counts are left as they were.
        assert_eq!(
            ops[0].inputs[2].as_ref().unwrap().source,
            Source::Constant {
                start: 16,
                count: 2
            }
        );
    }

    #[test]
    fn a_constant_past_the_end_of_the_file_is_an_error() {
        let file = [0u8; 32];
        let mut ops = vec![op(0, vec![constant(5, Primitive::I32, 16, 5)])];
        assert_eq!(
            pack(&mut ops, &file),
            Err("the data of tensor 5 (`t5`) lies outside the file".to_string())
        );
        let mut ops = vec![op(0, vec![constant(5, Primitive::I32, 16, 4)])];
        assert_eq!(pack(&mut ops, &file).unwrap(), [0u8; 16]);
    }

    #[test]
    fn int4_constant_data_is_refused() {
        // hello_world's first weights (tensor 6, int8 [16, 1]) said to be INT4: packed two
        // to a byte in a file, they cannot be handed to a kernel as the shape's elements.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/tflite/hello_world_int8.tflite");
        let bytes = std::fs::read(path).unwrap();
        let mut model = memplan_planner::files::tflite::read(&bytes, "hello").unwrap();
        assert!(build(&model, 0).is_ok());
        let Value::Tensor(t) = &mut model.subgraphs[0].values[6] else {
            panic!("tensor 6 is a tensor")
        };
        t.element = memplan_planner::files::ElementType {
            name: "INT4",
            code: 17,
            size: 1,
            primitive: None,
        };
        assert_eq!(
            build(&model, 0).err().unwrap(),
            "operator 0 (`FULLY_CONNECTED`): tensor 6 (`sequential/dense/MatMul`) is INT4 constant data, packed two elements to a byte: a schedule passes a kernel as many elements as the shape says"
        );
    }

    #[test]
    fn the_readme_lists_every_kind_a_schedule_runs() {
        let readme = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
        )
        .unwrap();
        // The table's rows: after its header and separator, up to the blank line.
        let rows = readme
            .lines()
            .skip_while(|l| !l.starts_with("| TFLite operator |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .count();
        assert_eq!(rows, super::KINDS.len());
        for k in super::KINDS {
            let tensors: Vec<String> = k
                .inputs
                .iter()
                .map(|&(name, optional)| {
                    if optional {
                        format!("`{name}` (an `Option`)")
                    } else {
                        format!("`{name}`")
                    }
                })
                .collect();
            let row = format!(
                "| `{}` | `{}` | `{}` | `{}` | {} |",
                k.op,
                k.trait_name,
                k.method,
                k.options,
                tensors.join(", ")
            );
            assert!(readme.contains(&row), "README lacks: {row}");
        }
    }
}
