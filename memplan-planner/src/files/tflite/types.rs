//! TFLite's tensor types as TensorFlow Lite Micro sizes them (`TfLiteTypeSizeOf`,
//! `tensorflow/lite/micro/memory_helpers.cc`): the types it has no size for are refused,
//! as TensorFlow Lite Micro refuses them when it allocates.

use memplan_flatbuffers::tflite::TensorType;

use crate::files::model::{ElementType, Primitive};

/// The element type of TFLite type `t`, or `None` when TensorFlow Lite Micro has no size
/// for it (`STRING`, `VARIANT`, `INT2`, `UINT4`, the 8-bit floats, unknown values).
pub(super) fn element_type(t: TensorType) -> Option<ElementType> {
    let (size, primitive) = match t {
        TensorType::FLOAT32 => (4, Some(Primitive::F32)),
        TensorType::FLOAT16 | TensorType::BFLOAT16 => (2, None),
        TensorType::FLOAT64 => (8, Some(Primitive::F64)),
        TensorType::INT16 => (2, Some(Primitive::I16)),
        TensorType::UINT16 => (2, Some(Primitive::U16)),
        TensorType::INT32 => (4, Some(Primitive::I32)),
        TensorType::UINT32 => (4, Some(Primitive::U32)),
        TensorType::UINT8 => (1, Some(Primitive::U8)),
        TensorType::INT8 => (1, Some(Primitive::I8)),
        TensorType::INT64 => (8, Some(Primitive::I64)),
        TensorType::UINT64 => (8, Some(Primitive::U64)),
        TensorType::BOOL => (1, None),
        TensorType::RESOURCE => (4, None),
        TensorType::COMPLEX64 => (8, None),
        TensorType::COMPLEX128 => (16, None),
        // One byte per element in TensorFlow Lite Micro's arena (`sizeof(int8_t)`).
        TensorType::INT4 => (1, None),
        _ => return None,
    };
    Some(ElementType {
        name: t.variant_name()?,
        code: t.0,
        size,
        primitive,
    })
}

/// The name of type `t` in messages: the schema's, or `type N` for a value it does not
/// know.
pub(super) fn type_name(t: TensorType) -> String {
    t.variant_name()
        .map_or_else(|| format!("type {}", t.0), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_tflite_micros() {
        let int8 = element_type(TensorType::INT8).unwrap();
        assert_eq!(
            (int8.name, int8.size, int8.primitive),
            ("INT8", 1, Some(Primitive::I8))
        );
        assert_eq!(element_type(TensorType::COMPLEX128).unwrap().size, 16);
        assert_eq!(element_type(TensorType::INT4).unwrap().size, 1);
        assert_eq!(element_type(TensorType::BOOL).unwrap().primitive, None);
        assert!(element_type(TensorType::STRING).is_none());
        assert!(element_type(TensorType(99)).is_none());
        assert_eq!(type_name(TensorType(99)), "type 99");
    }
}
