//! The scratch buffers TensorFlow Lite Micro's kernels request when they are prepared
//! (`RequestScratchBufferInArena`), worked out from each operator's tensors and options, as
//! its reference kernels work them out (tflite-micro `90b983c2`,
//! `tensorflow/lite/micro/kernels/` and `signal/micro/kernels/`):
//!
//! | operator | requests, in order (bytes) | source |
//! |---|---|---|
//! | `SVDF`, int8 input | `batch * filters * 4`, then `batch * (filters / rank) * 4` | `svdf_common.cc`, `PrepareSvdf` |
//! | `SVDF`, float input | `batch * filters * 4` | same |
//! | `UNIDIRECTIONAL_SEQUENCE_LSTM` | four of `batch * state * size(cell state type)` | `unidirectional_sequence_lstm.cc` |
//! | `TRANSPOSE_CONV`, int8 input | `elements(output) * 4` | `transpose_conv.cc`, `TransposeConvPrepare` |
//! | `TRANSPOSE_CONV`, int16 input | `elements(output) * 8`, then `elements(bias) * 8` for an int16 bias | same, `CalculateOpData` |
//! | `MEAN`, `SUM` | `elements(output) * 4` for an int8 or int16 input; then `rank(input) * 4`, `elements(axis) * 4` | `reduce_common.cc`, `PrepareMeanOrSumHelper` |
//! | `REDUCE_MAX`, `REDUCE_MIN` | `rank(input) * 4`, `elements(axis) * 4` | `PrepareMinMaxHelper` |
//! | `MIRROR_PAD` | two of `rank(input) * 4` | `mirror_pad.cc` |
//! | `CONV_2D`, `DEPTHWISE_CONV_2D`, `FULLY_CONNECTED` | `elements(filter)` for an int4 filter, else none | `conv_common.cc`, `depthwise_conv_common.cc`, `fully_connected.cc` |
//! | custom `SignalRfft` | `fft_length * size(input type)`; `fft_length` is the output's last dim less 2 (the output holds `fft_length / 2 + 1` complex values) | `signal/micro/kernels/rfft.cc` |
//!
//! Every other builtin operator requests none, but `ADD_N` (one pointer per input: its size
//! is the target's) and the custom operators other than the signal library's; those are
//! listed as not modelled ([`Scratch::unmodelled`]). TensorFlow Lite Micro's compression
//! build (`USE_TFLM_COMPRESSION`) requests more, for compressed tensors only; memplan reads
//! no compressed model.
//!
//! TensorFlow Lite Micro lists the requests as it prepares the operators: subgraph by
//! subgraph, each in operator order, each kernel's in the order above; it plans each one
//! over the allocation scopes of its operator (`MarkAllocationLifetimes`: from the scope the
//! operator runs in to the last scope of that visit, over every visit of a subgraph entered
//! more than once), rounded up to 16 bytes like a tensor. A request of an operator the walk
//! never reaches has no scope in TensorFlow Lite Micro (-1): it is left out here.

use memplan_flatbuffers::tflite::{self as fb, BuiltinOperator};

use super::Tensors;
use crate::problem::Lifetime;

/// One scratch buffer a kernel requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchRequest {
    /// The subgraph of the operator that requests it.
    pub subgraph: u32,
    /// The operator's index in its subgraph.
    pub operator: u32,
    /// The operator's name (`SVDF`, `SignalRfft`).
    pub kind: String,
    /// Bytes requested (TensorFlow Lite Micro plans them rounded up to 16).
    pub bytes: u64,
    /// The steps it is live at: those of its operator.
    pub lifetime: Lifetime,
}

/// The kernels' scratch requests of a model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scratch {
    /// Every request worked out, in TensorFlow Lite Micro's order.
    pub requests: Vec<ScratchRequest>,
    /// The operators whose kernels may request scratch that memplan does not work out:
    /// `operator 3 of subgraph 0 (ADD_N)`, one per operator kind, its first use.
    pub unmodelled: Vec<String>,
}

/// An operator as the rules read it.
pub(super) struct Op<'a, 'b> {
    pub code: BuiltinOperator,
    pub name: &'b str,
    pub op: &'b fb::Operator<'a>,
    /// Its subgraph's tensors.
    pub tensors: &'b Tensors,
}

impl Op<'_, '_> {
    fn tensor(&self, inputs: bool, n: usize) -> Option<(&'static str, &[u64])> {
        let list = if inputs {
            self.op.inputs()
        } else {
            self.op.outputs()
        }?;
        if n >= list.len() {
            return None;
        }
        let t = usize::try_from(list.get(n)).ok()?;
        let info = self.tensors.infos.get(t)?;
        Some((info.element.name, &info.shape))
    }

    fn input(&self, n: usize) -> Option<(&'static str, &[u64])> {
        self.tensor(true, n)
    }

    fn output(&self, n: usize) -> Option<(&'static str, &[u64])> {
        self.tensor(false, n)
    }
}

fn elements(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
}

fn dim(shape: &[u64], i: usize) -> Option<u64> {
    shape.get(i).copied()
}

fn type_size(name: &str) -> Option<u64> {
    Some(match name {
        "INT8" | "UINT8" | "BOOL" | "INT4" => 1,
        "INT16" | "UINT16" | "FLOAT16" | "BFLOAT16" => 2,
        "INT32" | "UINT32" | "FLOAT32" => 4,
        "INT64" | "UINT64" | "FLOAT64" => 8,
        _ => return None,
    })
}

/// What the kernel of `op` requests, in bytes, in order: `Ok(vec![])` for none, `Err(())`
/// when it may request scratch that these rules do not work out (or the operator's tensors
/// are not what the kernel's `Prepare` accepts, which TensorFlow Lite Micro refuses).
pub(super) fn requests(op: &Op<'_, '_>) -> Result<Vec<u64>, ()> {
    let mul = |a: u64, b: u64| a.checked_mul(b).ok_or(());
    match op.code {
        BuiltinOperator::SVDF => {
            let (ty, input) = op.input(0).ok_or(())?;
            let (_, features) = op.input(1).ok_or(())?;
            let batch = dim(input, 0).ok_or(())?;
            let filters = dim(features, 0).ok_or(())?;
            let rank = u64::try_from(op.op.builtin_options_as_svdfoptions().ok_or(())?.rank())
                .map_err(|_| ())?;
            if rank == 0 || filters % rank != 0 {
                return Err(());
            }
            let scratch = mul(mul(batch, filters)?, 4)?;
            match ty {
                "INT8" => Ok(vec![scratch, mul(mul(batch, filters / rank)?, 4)?]),
                "FLOAT32" => Ok(vec![scratch]),
                _ => Err(()),
            }
        }
        BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM => {
            let time_major = op
                .op
                .builtin_options_as_unidirectional_sequence_lstmoptions()
                .ok_or(())?
                .time_major();
            let (_, input) = op.input(0).ok_or(())?;
            let (_, hidden) = op.input(18).ok_or(())?;
            let (cell, _) = op.input(19).ok_or(())?;
            let batch = dim(input, usize::from(time_major)).ok_or(())?;
            let state = dim(hidden, 1).ok_or(())?;
            let size = match cell {
                "FLOAT32" => 4,
                "INT16" => 2,
                _ => return Err(()),
            };
            Ok(vec![mul(mul(batch, state)?, size)?; 4])
        }
        BuiltinOperator::TRANSPOSE_CONV => {
            // Inputs: output shape, filter, input, bias (optional).
            let (ty, _) = op.input(2).ok_or(())?;
            let (_, output) = op.output(0).ok_or(())?;
            let out = elements(output).ok_or(())?;
            match ty {
                "INT8" => Ok(vec![mul(out, 4)?]),
                "INT16" => {
                    let mut v = vec![mul(out, 8)?];
                    if let Some(("INT16", bias)) = op.input(3) {
                        v.push(mul(elements(bias).ok_or(())?, 8)?);
                    }
                    Ok(v)
                }
                _ => Ok(Vec::new()),
            }
        }
        BuiltinOperator::MEAN | BuiltinOperator::SUM => {
            let (ty, input) = op.input(0).ok_or(())?;
            let (_, axis) = op.input(1).ok_or(())?;
            let (_, output) = op.output(0).ok_or(())?;
            let mut v = Vec::new();
            if matches!(ty, "INT8" | "INT16") {
                v.push(mul(elements(output).ok_or(())?, 4)?);
            }
            v.push(mul(input.len() as u64, 4)?);
            v.push(mul(elements(axis).ok_or(())?, 4)?);
            Ok(v)
        }
        BuiltinOperator::REDUCE_MAX | BuiltinOperator::REDUCE_MIN => {
            let (_, input) = op.input(0).ok_or(())?;
            let (_, axis) = op.input(1).ok_or(())?;
            Ok(vec![
                mul(input.len() as u64, 4)?,
                mul(elements(axis).ok_or(())?, 4)?,
            ])
        }
        BuiltinOperator::MIRROR_PAD => {
            let (_, input) = op.input(0).ok_or(())?;
            Ok(vec![mul(input.len() as u64, 4)?; 2])
        }
        BuiltinOperator::CONV_2D
        | BuiltinOperator::DEPTHWISE_CONV_2D
        | BuiltinOperator::FULLY_CONNECTED => match op.input(1) {
            Some(("INT4", filter)) => Ok(vec![elements(filter).ok_or(())?]),
            Some(_) => Ok(Vec::new()),
            None => Err(()),
        },
        BuiltinOperator::ADD_N => Err(()),
        BuiltinOperator::CUSTOM => match op.name {
            "SignalRfft" => {
                let (ty, _) = op.input(0).ok_or(())?;
                let (_, output) = op.output(0).ok_or(())?;
                let last = *output.last().ok_or(())?;
                let fft_length = last.checked_sub(2).ok_or(())?;
                Ok(vec![mul(fft_length, type_size(ty).ok_or(())?)?])
            }
            // The signal library's other kernels request none.
            n if n.starts_with("Signal") => Ok(Vec::new()),
            _ => Err(()),
        },
        _ => Ok(Vec::new()),
    }
}
