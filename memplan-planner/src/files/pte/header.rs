//! ExecuTorch's extended header (`schema/extended_header.h`, `exir/_serialize/_program.py`
//! `_ExtendedHeader`): inserted right after the flatbuffer's file identifier when the
//! program has segments, it says how many bytes the flatbuffer part has and where the
//! segments start.
//!
//! Layout, little-endian, at byte 8 of the file: `eh00`, the header's length (u32, at
//! least 24), the program size (u64: the flatbuffer with the header inserted), the segment
//! base offset (u64: where the first segment starts, 0 without segments), and, when the
//! length is at least 32, the size of the segment data (u64).

/// The header's magic.
pub(super) const MAGIC: &[u8; 4] = b"eh00";

/// The length ExecuTorch writes: 32 bytes.
#[cfg_attr(not(feature = "write"), allow(dead_code))]
pub(super) const LENGTH: u32 = 32;

/// An extended header, as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// Its length in bytes, as the file gives it.
    pub length: u32,
    /// The flatbuffer's bytes, header included.
    pub program_size: u64,
    /// Where the first segment starts (0: no segments).
    pub segment_base_offset: u64,
    /// The segments' bytes (0 when the header is shorter than 32 bytes).
    pub segment_data_size: u64,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The extended header of `bytes`, if there is one (`eh00` at byte 8 and a length of at
/// least 24, as ExecuTorch's `ExtendedHeader::Parse` requires).
pub(super) fn read(bytes: &[u8]) -> Option<Header> {
    if bytes.get(8..12)? != MAGIC {
        return None;
    }
    let length = u32_at(bytes, 12)?;
    if length < 24 {
        return None;
    }
    Some(Header {
        length,
        program_size: u64_at(bytes, 16)?,
        segment_base_offset: u64_at(bytes, 24)?,
        segment_data_size: if length >= 32 { u64_at(bytes, 32)? } else { 0 },
    })
}

impl Header {
    /// The 32 bytes ExecuTorch writes.
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    pub(super) fn to_bytes(self) -> [u8; LENGTH as usize] {
        let mut out = [0u8; LENGTH as usize];
        out[0..4].copy_from_slice(MAGIC);
        out[4..8].copy_from_slice(&LENGTH.to_le_bytes());
        out[8..16].copy_from_slice(&self.program_size.to_le_bytes());
        out[16..24].copy_from_slice(&self.segment_base_offset.to_le_bytes());
        out[24..32].copy_from_slice(&self.segment_data_size.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let h = Header {
            length: LENGTH,
            program_size: 1040,
            segment_base_offset: 1152,
            segment_data_size: 4,
        };
        let mut file = vec![0u8; 8];
        file.extend_from_slice(&h.to_bytes());
        assert_eq!(read(&file), Some(h));
        file[8] = b'x';
        assert_eq!(read(&file), None);
        assert_eq!(read(&file[..20]), None);
    }
}
