//! The support scan of a small hull: every vertex's `v . dir`, four at a
//! time over the hull's coordinate blocks, and the first vertex of the
//! greatest (the vertex a scan in order with `>` keeps).

use crate::math::{Real, Vector};

/// The index of the first vertex of greatest `v . dir` over `lanes`
/// (blocks of four vertices as `[xs, ys, zs]`, the last padded with copies
/// of vertex 0, which tie with vertex 0 and come after it): the vertex a
/// scan in order with `>` keeps (so a NaN product never wins; all NaN gives
/// vertex 0).
///
/// Two passes: the greatest product `m` over all lanes, then the first
/// vertex whose product equals `m` (float equality, as the scan's `>`
/// treats `-0` and `0` as equal). The products are summed in the scalar
/// order (`x dx + y dy + z dz`), so each is the scalar scan's, bit for bit.
#[inline]
pub(super) fn support_index(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> usize {
    first_of_greatest(lanes, dir)
}

/// The least and greatest `v . dir` over `lanes` (the padding copies of
/// vertex 0 change neither), each product in the scalar order
/// (`x dx + y dy + z dz`), as [`support_index`]'s; with `out` (at least four
/// per block), the products themselves, vertex `v` at `out[v]`.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn extent(lanes: &[[[Real; 4]; 3]], dir: &Vector, mut out: Option<&mut [Real]>) -> (Real, Real) {
    use core::arch::x86_64::*;
    if let Some(out) = &out {
        assert!(out.len() >= 4 * lanes.len());
    }
    // SAFETY: SSE2 is enabled on every x86_64 target. The loads read one
    // `[f32; 4]` row each (unaligned loads); the stores write four floats at
    // `out[4 k..4 k + 4]`, in bounds by the assertion above, or into the
    // local arrays.
    unsafe {
        let (dx, dy, dz) = (_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
        let (mut lo, mut hi) = (_mm_set1_ps(Real::INFINITY), _mm_set1_ps(Real::NEG_INFINITY));
        for (k, [xs, ys, zs]) in lanes.iter().enumerate() {
            let x = _mm_mul_ps(_mm_loadu_ps(xs.as_ptr()), dx);
            let y = _mm_mul_ps(_mm_loadu_ps(ys.as_ptr()), dy);
            let z = _mm_mul_ps(_mm_loadu_ps(zs.as_ptr()), dz);
            let d = _mm_add_ps(_mm_add_ps(x, y), z);
            if let Some(out) = out.as_deref_mut() {
                _mm_storeu_ps(out.as_mut_ptr().add(4 * k), d);
            }
            lo = _mm_min_ps(lo, d);
            hi = _mm_max_ps(hi, d);
        }
        let (mut l, mut h) = ([0.0; 4], [0.0; 4]);
        _mm_storeu_ps(l.as_mut_ptr(), lo);
        _mm_storeu_ps(h.as_mut_ptr(), hi);
        (l[0].min(l[1]).min(l[2].min(l[3])), h[0].max(h[1]).max(h[2].max(h[3])))
    }
}

/// The scalar meaning of the lanes' extent.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn extent(lanes: &[[[Real; 4]; 3]], dir: &Vector, mut out: Option<&mut [Real]>) -> (Real, Real) {
    let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
    for (k, [xs, ys, zs]) in lanes.iter().enumerate() {
        for l in 0..4 {
            let d = xs[l] * dir.x + ys[l] * dir.y + zs[l] * dir.z;
            if let Some(out) = out.as_deref_mut() {
                out[4 * k + l] = d;
            }
            (lo, hi) = (lo.min(d), hi.max(d));
        }
    }
    (lo, hi)
}

/// Blocks a hull scanned here has at most (32 vertices).
pub(super) const MAX_BLOCKS: usize = 8;

/// SSE2 (part of the x86_64 baseline): the scalar meaning is the fallback
/// below, four lanes at once.
#[cfg(target_arch = "x86_64")]
#[inline]
fn first_of_greatest(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> usize {
    use core::arch::x86_64::*;
    debug_assert!(lanes.len() <= MAX_BLOCKS);
    let blocks = lanes.len().min(MAX_BLOCKS);
    // SAFETY: SSE2 is enabled on every x86_64 target. The loads read one
    // `[f32; 4]` row each (unaligned loads).
    unsafe {
        let (dx, dy, dz) = (_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
        let mut dots = [_mm_setzero_ps(); MAX_BLOCKS];
        // `max(d, top)` returns `top` when `d` is NaN or equal: NaN never
        // enters the maximum, which starts below every finite product.
        let mut top = _mm_set1_ps(Real::MIN);
        for (out, [xs, ys, zs]) in dots.iter_mut().zip(lanes) {
            let x = _mm_mul_ps(_mm_loadu_ps(xs.as_ptr()), dx);
            let y = _mm_mul_ps(_mm_loadu_ps(ys.as_ptr()), dy);
            let z = _mm_mul_ps(_mm_loadu_ps(zs.as_ptr()), dz);
            let d = _mm_add_ps(_mm_add_ps(x, y), z);
            *out = d;
            top = _mm_max_ps(d, top);
        }
        // The greatest of the four lanes, in every lane.
        top = _mm_max_ps(top, _mm_shuffle_ps::<0b10_11_00_01>(top, top));
        top = _mm_max_ps(top, _mm_shuffle_ps::<0b01_00_11_10>(top, top));
        // No product above `Real::MIN`: the scan keeps vertex 0.
        if _mm_cvtss_f32(top) == Real::MIN {
            return 0;
        }
        for (k, d) in dots[..blocks].iter().enumerate() {
            let hit = _mm_movemask_ps(_mm_cmpeq_ps(*d, top));
            if hit != 0 {
                return 4 * k + hit.trailing_zeros() as usize;
            }
        }
    }
    0
}

/// The scalar meaning of the lanes: each product in the scalar order, the
/// first of the greatest.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn first_of_greatest(lanes: &[[[Real; 4]; 3]], dir: &Vector) -> usize {
    let (mut best, mut best_dot) = (0, Real::MIN);
    for (k, [xs, ys, zs]) in lanes.iter().enumerate() {
        for l in 0..4 {
            let d = xs[l] * dir.x + ys[l] * dir.y + zs[l] * dir.z;
            if d > best_dot {
                (best, best_dot) = (4 * k + l, d);
            }
        }
    }
    best
}

/// The index of the first face of greatest `n . dir` over the face planes
/// `planes` (blocks of four as `[nxs, nys, nzs, offsets]`, the last padded
/// with zero normals), products in the scalar order: the face a scan in
/// order with `>` from `-inf` keeps (a NaN product never wins; all NaN, or a
/// zero `dir`, gives face 0). Padding never wins: a closed hull has a face
/// of positive `n . dir` for any nonzero `dir`. Two passes, the second
/// recomputing the products, so any number of faces is scanned on the
/// stack.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn first_face_of_greatest(planes: &[[[Real; 4]; 4]], dir: &Vector) -> usize {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is enabled on every x86_64 target. The loads read one
    // `[f32; 4]` row each (unaligned loads).
    unsafe {
        let (dx, dy, dz) = (_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
        let dot = |[xs, ys, zs, _]: &[[Real; 4]; 4]| {
            let x = _mm_mul_ps(_mm_loadu_ps(xs.as_ptr()), dx);
            let y = _mm_mul_ps(_mm_loadu_ps(ys.as_ptr()), dy);
            let z = _mm_mul_ps(_mm_loadu_ps(zs.as_ptr()), dz);
            _mm_add_ps(_mm_add_ps(x, y), z)
        };
        let mut top = _mm_set1_ps(Real::NEG_INFINITY);
        for block in planes {
            top = _mm_max_ps(dot(block), top);
        }
        top = _mm_max_ps(top, _mm_shuffle_ps::<0b10_11_00_01>(top, top));
        top = _mm_max_ps(top, _mm_shuffle_ps::<0b01_00_11_10>(top, top));
        if _mm_cvtss_f32(top) == Real::NEG_INFINITY {
            return 0;
        }
        for (k, block) in planes.iter().enumerate() {
            let hit = _mm_movemask_ps(_mm_cmpeq_ps(dot(block), top));
            if hit != 0 {
                return 4 * k + hit.trailing_zeros() as usize;
            }
        }
    }
    0
}

/// The scalar meaning of the face scan.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn first_face_of_greatest(planes: &[[[Real; 4]; 4]], dir: &Vector) -> usize {
    let (mut best, mut best_dot) = (0, Real::NEG_INFINITY);
    for (k, [xs, ys, zs, _]) in planes.iter().enumerate() {
        for l in 0..4 {
            let d = xs[l] * dir.x + ys[l] * dir.y + zs[l] * dir.z;
            if d > best_dot {
                (best, best_dot) = (4 * k + l, d);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `points` in blocks of four, `[xs, ys, zs]`, the last padded with
    /// copies of point 0 (the hull's layout).
    fn lanes_of(points: &[[Real; 3]]) -> Vec<[[Real; 4]; 3]> {
        points
            .chunks(4)
            .map(|b| core::array::from_fn(|a| core::array::from_fn(|l| b.get(l).unwrap_or(&points[0])[a])))
            .collect()
    }

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
                let lanes = lanes_of(&points);
                let dir = Vector::new(next(), next(), next());
                assert_eq!(support_index(&lanes, &dir), scalar(&points, &dir), "{points:?} {dir:?}");
            }
        }
    }

    #[test]
    fn the_lanes_extent_is_the_scalar_least_and_greatest() {
        let mut seed = 5u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((seed >> 20) % 97) as Real * 0.03 - 1.4
        };
        for n in 1..=32 {
            let points: Vec<[Real; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
            let lanes = lanes_of(&points);
            let dir = Vector::new(next(), next(), next());
            let dots = points.iter().map(|v| v[0] * dir.x + v[1] * dir.y + v[2] * dir.z);
            let want = dots.fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), d| (lo.min(d), hi.max(d)));
            assert_eq!(extent(&lanes, &dir, None), want, "{points:?} {dir:?}");
            let mut out = vec![Real::NAN; 4 * lanes.len()];
            assert_eq!(extent(&lanes, &dir, Some(&mut out)), want);
            for (v, p) in points.iter().enumerate() {
                assert_eq!(out[v].to_bits(), (p[0] * dir.x + p[1] * dir.y + p[2] * dir.z).to_bits());
            }
        }
    }

    #[test]
    fn non_finite_products_keep_the_scalar_scans_vertex() {
        // NaN and infinite products, and products at `Real::MIN`: the scan
        // never keeps a NaN, keeps vertex 0 when nothing exceeds `MIN`.
        let big = Real::MAX;
        let points: Vec<[Real; 3]> =
            vec![[1.0, 0.0, 0.0], [-big, 0.0, 0.0], [0.0, 2.0, 0.0], [big, -big, 0.0], [-1.0, 0.0, 3.0]];
        let lanes = lanes_of(&points);
        let dirs = [
            Vector::new(Real::NAN, 1.0, 0.0),
            Vector::new(2.0, 0.0, 0.0),
            Vector::new(-2.0, 0.0, 0.0),
            Vector::new(1.0, 1.0, 0.0),
            Vector::new(0.0, 0.0, -1.0),
            Vector::new(Real::INFINITY, 0.0, 0.0),
            Vector::new(1.0, 0.0, 0.0),
            Vector::new(-1.0, 0.0, 0.0),
        ];
        for dir in &dirs {
            assert_eq!(support_index(&lanes, dir), scalar(&points, dir), "{dir:?}");
        }
    }

    #[test]
    fn the_face_scan_keeps_the_scalar_scans_face() {
        // Random normals (with ties, zeros, NaN and infinite directions) in
        // blocks padded with zero normals, 1 to 40 faces: the first of the
        // greatest product, as a scan in order with `>` from `-inf`.
        let mut seed = 9u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((seed >> 24) % 5) as Real - 2.0
        };
        let scalar = |normals: &[[Real; 3]], dir: &Vector| {
            let (mut best, mut best_dot) = (0, Real::NEG_INFINITY);
            for (k, n) in normals.iter().enumerate() {
                let d = n[0] * dir.x + n[1] * dir.y + n[2] * dir.z;
                if d > best_dot {
                    (best, best_dot) = (k, d);
                }
            }
            best
        };
        for n in 1..=40 {
            for case in 0..200 {
                let normals: Vec<[Real; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
                let planes: Vec<[[Real; 4]; 4]> = normals
                    .chunks(4)
                    .map(|b| {
                        core::array::from_fn(|a| {
                            core::array::from_fn(|l| if a < 3 { b.get(l).map_or(0.0, |v| v[a]) } else { 1.0 })
                        })
                    })
                    .collect();
                let dir = match case {
                    0 => Vector::zeros(),
                    1 => Vector::new(Real::NAN, 1.0, 0.0),
                    2 => Vector::new(Real::INFINITY, 0.0, 1.0),
                    _ => Vector::new(next(), next(), next()),
                };
                let got = first_face_of_greatest(&planes, &dir);
                // Only a padding lane past the faces may differ (a product of
                // zero beating every real face's, which no closed hull has).
                if got < n {
                    assert_eq!(got, scalar(&normals, &dir), "{normals:?} {dir:?}");
                } else {
                    assert!(normals.iter().all(|v| v[0] * dir.x + v[1] * dir.y + v[2] * dir.z < 0.0));
                }
            }
        }
    }
}
