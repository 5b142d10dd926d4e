//! The support scan of a small hull: every vertex's `v . dir`, four at a
//! time over the hull's coordinate blocks, and the first vertex of the
//! greatest (the vertex a scan in order with `>` keeps).

use crate::math::{Real, Vector};

/// The index of the first vertex of greatest `v . dir` over `lanes`
/// (blocks of four vertices as `[xs, ys, zs]`, the last padded with copies
/// of vertex 0, which tie with vertex 0 and come after it).
///
/// Each of the four lanes keeps its first maximum (`>`, so a NaN product
/// never wins), then the lanes' greatest wins, the least index among
/// equals. The products are summed in the scalar order
/// (`x dx + y dy + z dz`), so the answer is the scalar scan's.
#[inline]
pub(super) fn support_index(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> usize {
    let (best, at) = lane_maxima(lanes, dir);
    let mut m = 0;
    for l in 1..4 {
        if best[l] > best[m] || (best[l] == best[m] && at[l] < at[m]) {
            m = l;
        }
    }
    at[m] as usize
}

/// Each lane's greatest product and the index of its first occurrence
/// (SSE2: part of the x86_64 baseline).
#[cfg(target_arch = "x86_64")]
#[inline]
fn lane_maxima(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> ([Real; 4], [u32; 4]) {
    use core::arch::x86_64::*;
    let (mut best, mut at) = ([0.0; 4], [0u32; 4]);
    // Scalar meaning: `lane_maxima` below, on the four lanes at once.
    // SAFETY: SSE2 is enabled on every x86_64 target. The loads read one
    // `[f32; 4]` row each (unaligned loads); the stores write four lanes
    // into the local arrays (unaligned stores).
    unsafe {
        let (dx, dy, dz) = (_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
        let mut top = _mm_set1_ps(Real::MIN);
        let mut top_at = _mm_setzero_si128();
        let mut index = _mm_set_epi32(3, 2, 1, 0);
        let four = _mm_set1_epi32(4);
        for [xs, ys, zs] in lanes {
            let x = _mm_mul_ps(_mm_loadu_ps(xs.as_ptr()), dx);
            let y = _mm_mul_ps(_mm_loadu_ps(ys.as_ptr()), dy);
            let z = _mm_mul_ps(_mm_loadu_ps(zs.as_ptr()), dz);
            let d = _mm_add_ps(_mm_add_ps(x, y), z);
            let gt = _mm_cmpgt_ps(d, top);
            top = _mm_or_ps(_mm_and_ps(gt, d), _mm_andnot_ps(gt, top));
            let gt = _mm_castps_si128(gt);
            top_at = _mm_or_si128(_mm_and_si128(gt, index), _mm_andnot_si128(gt, top_at));
            index = _mm_add_epi32(index, four);
        }
        _mm_storeu_ps(best.as_mut_ptr(), top);
        _mm_storeu_si128(at.as_mut_ptr().cast(), top_at);
    }
    (best, at)
}

/// Each lane's greatest product and the index of its first occurrence.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn lane_maxima(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> ([Real; 4], [u32; 4]) {
    let (mut best, mut at) = ([Real::MIN; 4], [0u32; 4]);
    for (k, [xs, ys, zs]) in lanes.iter().enumerate() {
        for l in 0..4 {
            let d = xs[l] * dir.x + ys[l] * dir.y + zs[l] * dir.z;
            if d > best[l] {
                (best[l], at[l]) = (d, (4 * k + l) as u32);
            }
        }
    }
    (best, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan in order that the lanes must match.
    fn scalar(points: &[[Real; 3]], dir: &Vector) -> usize {
        let (mut best, mut best_dot) = (0, Real::MIN);
        for (i, v) in points.iter().enumerate() {
            let d = v[0] * dir.x + v[1] * dir.y + v[2] * dir.z;
            if d > best_dot {
                (best, best_dot) = (i, d);
            }
        }
        best
    }

    #[test]
    fn the_lanes_find_the_scalar_scans_vertex() {
        // Ties on purpose: a coarse grid of coordinates and of directions.
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((seed >> 24) % 5) as Real - 2.0
        };
        for n in 1..=32 {
            for _ in 0..200 {
                let points: Vec<[Real; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
                let lanes: Vec<[[Real; 4]; 3]> = points
                    .chunks(4)
                    .map(|b| core::array::from_fn(|a| core::array::from_fn(|l| b.get(l).unwrap_or(&points[0])[a])))
                    .collect();
                let dir = Vector::new(next(), next(), next());
                assert_eq!(support_index(&lanes, &dir), scalar(&points, &dir), "{points:?} {dir:?}");
            }
        }
    }
}
