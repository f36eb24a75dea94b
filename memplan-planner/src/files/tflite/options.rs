//! An operator's builtin options as [`Options`]: typed for the operators a generated loop
//! supports first, named for the others.

use memplan_flatbuffers::tflite::{
    ActivationFunctionType, BuiltinOperator, BuiltinOptions, FullyConnectedOptionsWeightsFormat,
    Operator, Padding as TfPadding,
};

use crate::files::model::{Activation, Options, Padding};

fn activation(a: ActivationFunctionType) -> Result<Activation, Options> {
    Ok(match a {
        ActivationFunctionType::NONE => Activation::None,
        ActivationFunctionType::RELU => Activation::Relu,
        ActivationFunctionType::RELU_N1_TO_1 => Activation::ReluN1To1,
        ActivationFunctionType::RELU6 => Activation::Relu6,
        ActivationFunctionType::TANH => Activation::Tanh,
        ActivationFunctionType::SIGN_BIT => Activation::SignBit,
        _ => {
            return Err(Options::Unknown {
                field: "fused_activation_function",
                value: i64::from(a.0),
            });
        }
    })
}

fn padding(p: TfPadding) -> Result<Padding, Options> {
    match p {
        TfPadding::SAME => Ok(Padding::Same),
        TfPadding::VALID => Ok(Padding::Valid),
        _ => Err(Options::Unknown {
            field: "padding",
            value: i64::from(p.0),
        }),
    }
}

/// The options of `op`, whose builtin code is `code`: typed for `CONV_2D`,
/// `DEPTHWISE_CONV_2D`, the 2-D pools, `RESHAPE`, `SOFTMAX`, `FULLY_CONNECTED`, `ADD` and
/// the control-flow operators; [`Options::Other`] with the options table's name (or
/// `custom` and the bytes of a custom operator's options) for the rest.
pub(super) fn options(op: &Operator<'_>, code: BuiltinOperator) -> Options {
    typed(op, code).unwrap_or_else(|o| o)
}

fn typed(op: &Operator<'_>, code: BuiltinOperator) -> Result<Options, Options> {
    if let Some(o) = op.builtin_options_as_conv_2_doptions() {
        return Ok(Options::Conv2D {
            padding: padding(o.padding())?,
            stride_w: o.stride_w(),
            stride_h: o.stride_h(),
            dilation_w: o.dilation_w_factor(),
            dilation_h: o.dilation_h_factor(),
            activation: activation(o.fused_activation_function())?,
        });
    }
    if let Some(o) = op.builtin_options_as_depthwise_conv_2_doptions() {
        return Ok(Options::DepthwiseConv2D {
            padding: padding(o.padding())?,
            stride_w: o.stride_w(),
            stride_h: o.stride_h(),
            depth_multiplier: o.depth_multiplier(),
            dilation_w: o.dilation_w_factor(),
            dilation_h: o.dilation_h_factor(),
            activation: activation(o.fused_activation_function())?,
        });
    }
    if let Some(o) = op.builtin_options_as_pool_2_doptions() {
        return Ok(Options::Pool2D {
            padding: padding(o.padding())?,
            stride_w: o.stride_w(),
            stride_h: o.stride_h(),
            filter_w: o.filter_width(),
            filter_h: o.filter_height(),
            activation: activation(o.fused_activation_function())?,
        });
    }
    if let Some(o) = op.builtin_options_as_reshape_options() {
        return Ok(Options::Reshape {
            new_shape: o
                .new_shape()
                .map(|v| v.iter().collect())
                .unwrap_or_default(),
        });
    }
    if let Some(o) = op.builtin_options_as_softmax_options() {
        return Ok(Options::Softmax { beta: o.beta() });
    }
    if let Some(o) = op.builtin_options_as_fully_connected_options() {
        return Ok(Options::FullyConnected {
            activation: activation(o.fused_activation_function())?,
            keep_num_dims: o.keep_num_dims(),
            shuffled_weights: o.weights_format()
                == FullyConnectedOptionsWeightsFormat::SHUFFLED4x16INT8,
            asymmetric_quantize_inputs: o.asymmetric_quantize_inputs(),
        });
    }
    if let Some(o) = op.builtin_options_as_add_options() {
        return Ok(Options::Add {
            activation: activation(o.fused_activation_function())?,
            pot_scale_int16: o.pot_scale_int16(),
        });
    }
    let calls = subgraph_calls(op, code);
    if !calls.is_empty() {
        return Ok(Options::Subgraphs(
            calls.into_iter().map(|c| c as u32).collect(),
        ));
    }
    if code == BuiltinOperator::CUSTOM {
        return Ok(Options::Other {
            kind: "custom".to_string(),
            custom: op
                .custom_options()
                .map(|v| v.bytes().to_vec())
                .unwrap_or_default(),
        });
    }
    let t = op.builtin_options_type();
    if t == BuiltinOptions::NONE {
        return Ok(Options::None);
    }
    Ok(Options::Other {
        kind: t
            .variant_name()
            .map_or_else(|| format!("options type {}", t.0), str::to_string),
        custom: Vec::new(),
    })
}

/// The subgraphs a control-flow operator runs, in the order TensorFlow Lite Micro enters
/// them (`MarkSubgraphLifetimesIfNecessary`): `IF` then and else, `WHILE` cond and body,
/// `CALL_ONCE` init. A negative index (absent) is skipped, as TensorFlow Lite Micro skips
/// -1; an operator without its options runs nothing. `code` is the operator code's
/// `builtin_code` field, which TensorFlow Lite Micro reads here.
pub(super) fn subgraph_calls(op: &Operator<'_>, code: BuiltinOperator) -> Vec<i32> {
    let calls = match code {
        BuiltinOperator::IF => op
            .builtin_options_as_if_options()
            .map(|o| vec![o.then_subgraph_index(), o.else_subgraph_index()]),
        BuiltinOperator::WHILE => op
            .builtin_options_as_while_options()
            .map(|o| vec![o.cond_subgraph_index(), o.body_subgraph_index()]),
        BuiltinOperator::CALL_ONCE => op
            .builtin_options_as_call_once_options()
            .map(|o| vec![o.init_subgraph_index()]),
        _ => None,
    };
    calls
        .unwrap_or_default()
        .into_iter()
        .filter(|&c| c != -1)
        .collect()
}
