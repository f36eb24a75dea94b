//! ExecuTorch's scalar types (`schema/scalar_type.fbs`) with the sizes its runtime gives
//! them (`elementSize`, `runtime/core/exec_aten/util/scalar_type_util.h`).

use memplan_flatbuffers::executorch::ScalarType;

use crate::files::model::{ElementType, Primitive};

/// The element type of `t`, or `None` for a value the schema does not declare.
pub(super) fn element_type(t: ScalarType) -> Option<ElementType> {
    let (size, primitive) = match t {
        ScalarType::BYTE => (1, Some(Primitive::U8)),
        ScalarType::CHAR => (1, Some(Primitive::I8)),
        ScalarType::SHORT => (2, Some(Primitive::I16)),
        ScalarType::INT => (4, Some(Primitive::I32)),
        ScalarType::LONG => (8, Some(Primitive::I64)),
        ScalarType::HALF | ScalarType::BFLOAT16 | ScalarType::BITS16 => (2, None),
        ScalarType::FLOAT => (4, Some(Primitive::F32)),
        ScalarType::DOUBLE => (8, Some(Primitive::F64)),
        ScalarType::BOOL
        | ScalarType::QINT8
        | ScalarType::QUINT8
        | ScalarType::QUINT4X2
        | ScalarType::QUINT2X4
        | ScalarType::FLOAT8E5M2
        | ScalarType::FLOAT8E4M3FN
        | ScalarType::FLOAT8E5M2FNUZ
        | ScalarType::FLOAT8E4M3FNUZ => (1, None),
        ScalarType::QINT32 => (4, None),
        ScalarType::UINT16 => (2, Some(Primitive::U16)),
        ScalarType::UINT32 => (4, Some(Primitive::U32)),
        ScalarType::UINT64 => (8, Some(Primitive::U64)),
        _ => return None,
    };
    Some(ElementType {
        name: t.variant_name()?,
        code: t.0,
        size,
        primitive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_executorchs() {
        let f = element_type(ScalarType::FLOAT).unwrap();
        assert_eq!(
            (f.name, f.size, f.primitive),
            ("FLOAT", 4, Some(Primitive::F32))
        );
        assert_eq!(element_type(ScalarType::QUINT4X2).unwrap().size, 1);
        assert!(element_type(ScalarType(8)).is_none());
    }
}
