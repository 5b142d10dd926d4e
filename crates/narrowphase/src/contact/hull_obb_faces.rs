//! The face scan of the hull-box separating-axis test, four hull faces at a
//! time: each face's separation from the box and the products `n . u_i`
//! with the box's axes, with their signs packed for the edge pairs.

use crate::math::{Point, Real, Vector};

/// Four faces' results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FaceBlock {
    /// `n . c - sum |n . u_i| h_i - offset`: the box's least `n . x` less the
    /// plane's offset (the padding planes give `-inf`).
    pub sep: [Real; 4],
    /// `n . u_i` by axis, then lane.
    pub along: [[Real; 4]; 3],
    /// Bit `4 i + l`: lane `l` has `n . u_i > 0`; bit `12 + 4 i + l`: it has
    /// `|n . u_i| <= arc_end` (or NaN).
    pub bits: u32,
}

/// The box of the test in the hull's frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct LocalBox {
    pub center: Point,
    pub axes: [Vector; 3],
    pub half: Vector,
}

/// The scan of one block of planes `[nxs, nys, nzs, offsets]`. Every
/// product and sum in the order of the scalar expressions
/// `nx * v.x + ny * v.y + nz * v.z` and
/// `(n . c - (|a0| h.x + |a1| h.y + |a2| h.z)) - offset`, so the lanes and
/// the scalar form agree bit for bit.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn face_block(planes: &[[Real; 4]; 4], b: &LocalBox, arc_end: Real) -> FaceBlock {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86_64 target. The loads and stores
    // read and write `[f32; 4]` arrays (unaligned forms).
    unsafe {
        let [nx, ny, nz, offset] = planes.map(|row| _mm_loadu_ps(row.as_ptr()));
        let dot = |v: &Vector| {
            let x = _mm_mul_ps(nx, _mm_set1_ps(v.x));
            let y = _mm_mul_ps(ny, _mm_set1_ps(v.y));
            let z = _mm_mul_ps(nz, _mm_set1_ps(v.z));
            _mm_add_ps(_mm_add_ps(x, y), z)
        };
        let along = [dot(&b.axes[0]), dot(&b.axes[1]), dot(&b.axes[2])];
        let abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFF_FFFF));
        let abs = along.map(|a| _mm_and_ps(a, abs_mask));
        let reach = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(abs[0], _mm_set1_ps(b.half.x)), _mm_mul_ps(abs[1], _mm_set1_ps(b.half.y))),
            _mm_mul_ps(abs[2], _mm_set1_ps(b.half.z)),
        );
        let sep = _mm_sub_ps(_mm_sub_ps(dot(&b.center.coords), reach), offset);
        let (zero, end) = (_mm_setzero_ps(), _mm_set1_ps(arc_end));
        let mut bits = 0u32;
        for (i, (a, a_abs)) in along.iter().zip(&abs).enumerate() {
            let positive = _mm_movemask_ps(_mm_cmpgt_ps(*a, zero)) as u32;
            // "Not greater": true for NaN, as `|a| > arc_end` is false then.
            let flat = _mm_movemask_ps(_mm_cmpngt_ps(*a_abs, end)) as u32;
            bits |= positive << (4 * i) | flat << (12 + 4 * i);
        }
        let mut out = FaceBlock { sep: [0.0; 4], along: [[0.0; 4]; 3], bits };
        _mm_storeu_ps(out.sep.as_mut_ptr(), sep);
        for (row, a) in out.along.iter_mut().zip(along) {
            _mm_storeu_ps(row.as_mut_ptr(), a);
        }
        out
    }
}

/// [`face_block_scalar`] off x86_64.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn face_block(planes: &[[Real; 4]; 4], b: &LocalBox, arc_end: Real) -> FaceBlock {
    face_block_scalar(planes, b, arc_end)
}

/// The scalar meaning of [`face_block`] (the form used off x86_64, and the
/// reference the lanes are tested against).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
pub(super) fn face_block_scalar(planes: &[[Real; 4]; 4], b: &LocalBox, arc_end: Real) -> FaceBlock {
    let [nx, ny, nz, offset] = planes;
    let mut out = FaceBlock { sep: [0.0; 4], along: [[0.0; 4]; 3], bits: 0 };
    for l in 0..4 {
        let dot = |v: &Vector| nx[l] * v.x + ny[l] * v.y + nz[l] * v.z;
        let a = [dot(&b.axes[0]), dot(&b.axes[1]), dot(&b.axes[2])];
        let reach = a[0].abs() * b.half.x + a[1].abs() * b.half.y + a[2].abs() * b.half.z;
        out.sep[l] = (dot(&b.center.coords) - reach) - offset[l];
        for (i, &x) in a.iter().enumerate() {
            out.along[i][l] = x;
            // On the circle: `|x| <= arc_end`, or NaN.
            let flat = x.abs().partial_cmp(&arc_end) != Some(core::cmp::Ordering::Greater);
            out.bits |= u32::from(x > 0.0) << (4 * i + l) | u32::from(flat) << (12 + 4 * i + l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lanes_match_the_scalar_form_bit_for_bit() {
        let mut seed = 11u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // Coarse values (ties, zeros, signs) and fine ones.
            let coarse = ((seed >> 24) % 5) as Real - 2.0;
            if seed & 1 == 0 {
                coarse
            } else {
                coarse * 0.37 + (seed >> 8) as Real * 1e-7
            }
        };
        for _ in 0..2000 {
            let mut planes = [[0.0; 4]; 4];
            planes.iter_mut().flatten().for_each(|x| *x = next());
            if next() > 1.0 {
                // A padding lane.
                (planes[0][3], planes[1][3], planes[2][3], planes[3][3]) = (0.0, 0.0, 0.0, Real::INFINITY);
            }
            let b = LocalBox {
                center: Point::new(next(), next(), next()),
                axes: [Vector::new(next(), next(), next()), Vector::new(next(), next(), next()), Vector::x()],
                half: Vector::new(next().abs(), next().abs(), next().abs()),
            };
            let end = if next() > 0.0 { 1e-6 } else { 0.5 };
            let (lanes, scalar) = (face_block(&planes, &b, end), face_block_scalar(&planes, &b, end));
            assert_eq!(lanes.bits, scalar.bits, "{planes:?} {b:?}");
            for l in 0..4 {
                assert_eq!(lanes.sep[l].to_bits(), scalar.sep[l].to_bits(), "{planes:?} {b:?}");
                for i in 0..3 {
                    assert_eq!(lanes.along[i][l].to_bits(), scalar.along[i][l].to_bits());
                }
            }
        }
    }
}
