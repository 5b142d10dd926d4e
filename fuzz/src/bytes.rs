//! The fuzz input decoder shared by the fuzz targets and the proptest suites
//! (`crates/*/tests/fuzz_properties.rs` include this file by path).
//!
//! Every value is read from the input bytes; a short input reads as zeros, so
//! every byte string is a valid input. Floats are drawn from a tagged mix:
//! special values (NaN, ±inf, ±0, ±f32::MAX, ±1e30, tiny and subnormal),
//! raw bit patterns, and, most often, ordinary values on a few scales, so
//! that both the rejection paths and the geometry are exercised.

/// A cursor over fuzz bytes.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// True when every byte was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The next byte, 0 past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// True with probability about `n / 256`.
    pub fn chance(&mut self, n: u8) -> bool {
        self.byte() < n
    }

    /// Any `f32`, special values included (see the module docs).
    pub fn any_f32(&mut self) -> f32 {
        match self.byte() {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => f32::MAX,
            6 => -f32::MAX,
            7 => 1e30,
            8 => -1e30,
            9 => f32::MIN_POSITIVE,
            10 => 1e-40, // subnormal
            11 => -1e-30,
            12 => f32::from_bits(self.u32()),
            13..=20 => self.ordinary() * 1e6,
            _ => self.ordinary(),
        }
    }

    /// A finite `f32` in `[-16, 16)`, on a grid of 1/2048: ties and exact
    /// touching happen often.
    pub fn ordinary(&mut self) -> f32 {
        (self.u16() as i16) as f32 / 2048.0
    }

    /// A finite `f32` in `[0, 8)`, most often small (sizes and radii).
    pub fn size(&mut self) -> f32 {
        match self.byte() {
            0..=15 => 0.0,
            16..=31 => self.ordinary().abs() * 1e-3,
            _ => self.ordinary().abs() * 0.5,
        }
    }

    /// [`ordinary`](Self::ordinary), or when `wild`, a quarter of the time
    /// [`any_f32`](Self::any_f32): special values among ordinary ones, so a
    /// shape with one extreme coordinate is still often valid.
    pub fn f32_or_wild(&mut self, wild: bool) -> f32 {
        if wild && self.chance(64) {
            self.any_f32()
        } else {
            self.ordinary()
        }
    }
}
