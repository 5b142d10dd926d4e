//! Box-triangle manifolds of one box against eight triangles at once: the
//! triangles' vertices in the box frame, the rejection by the box's and the
//! triangle's planes, and the 13-axis test run in SSE2 lanes, four triangles
//! a register; then each kept triangle's manifold as the per-pair function
//! builds it from the test's answer.
//!
//! Every lane repeats the per-pair code's floating-point operations in the
//! same order (`obb_triangle.rs`: [`local_vertices`], [`Scan`], and
//! `separated_beyond`), and SSE2's `min`, `max`, `sqrt` and division round
//! as the scalar ones do, so the manifolds are
//! [`contact_manifold_obb_triangle`](super::contact_manifold_obb_triangle)'s
//! bit for bit.

use super::manifold::ContactManifold;
use super::manifold_face::manifold_obb_triangle_from;
#[cfg(not(target_arch = "x86_64"))]
use super::manifold_face::separated_beyond;
#[cfg(not(target_arch = "x86_64"))]
use super::obb_triangle::{contact_or_gap, local_vertices};
#[cfg(target_arch = "x86_64")]
use super::obb_triangle::{Scan, NO_AXIS};
#[cfg(target_arch = "x86_64")]
use crate::math::Vector;
use crate::math::{Point, Real};
use crate::shape::{Obb, Triangle};

/// Triangles per call of [`contact_manifolds_obb_triangle_x8`].
pub const TRIANGLE_LANES: usize = 8;

/// Eight triangles, structure of arrays: `[vertex][axis][lane]`.
pub type TriangleLanes = [[[Real; TRIANGLE_LANES]; 3]; 3];

/// The contact manifolds of box `a` against the triangles of `lanes` whose
/// bit is set in `mask` (bit `l` for lane `l`), each passed to `each` with
/// its lane, in lane order. For every such lane the manifold is
/// [`contact_manifold_obb_triangle`](super::contact_manifold_obb_triangle)
/// of `a` and the lane's triangle, bit for bit (`None`: `each` is not
/// called).
///
/// The vertices of the lanes in `mask` must be valid triangle vertices:
/// finite and within [`MAX_COORDINATE`](crate::MAX_COORDINATE), as
/// [`Triangle::try_new`] requires (a mesh's are; degenerate triangles are
/// allowed). Lanes outside `mask` may hold anything, NaN included. A mesh
/// runs this for a box over the triangles its tree query returns.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::kernels::{contact_manifolds_obb_triangle_x8, TriangleLanes};
/// use proxima::narrowphase::{contact_manifold_obb_triangle, Obb, Point, Rotation, Triangle, Vector};
/// let tris = [
///     Triangle::new(Point::new(-5.0, 0.0, -5.0), Point::new(5.0, 0.0, -5.0), Point::new(0.0, 0.0, 5.0)),
///     Triangle::new(Point::new(-5.0, 3.0, -5.0), Point::new(5.0, 3.0, -5.0), Point::new(0.0, 3.0, 5.0)),
/// ];
/// let mut lanes: TriangleLanes = [[[f32::NAN; 8]; 3]; 3];
/// for (l, t) in tris.iter().enumerate() {
///     for (k, p) in t.vertices().iter().enumerate() {
///         for axis in 0..3 {
///             lanes[k][axis][l] = p[axis];
///         }
///     }
/// }
/// let cube = Obb::new(Point::new(0.0, 0.49, 0.0), Rotation::identity(), Vector::repeat(0.5));
/// let mut found = Vec::new();
/// contact_manifolds_obb_triangle_x8(&cube, &lanes, 0b11, 0.1, |lane, m| found.push((lane, m)));
/// assert_eq!(found.len(), 1); // the floor, not the triangle 3 m up
/// assert_eq!(found[0].1, contact_manifold_obb_triangle(&cube, &tris[0], 0.1).unwrap());
/// ```
pub fn contact_manifolds_obb_triangle_x8(
    a: &Obb,
    lanes: &TriangleLanes,
    mask: u32,
    prediction: Real,
    mut each: impl FnMut(usize, ContactManifold),
) {
    let prediction = prediction.max(0.0);
    let triangle = |lane: usize| {
        let p = |k: usize| Point::new(lanes[k][0][lane], lanes[k][1][lane], lanes[k][2][lane]);
        Triangle::new_unchecked(p(0), p(1), p(2))
    };
    #[cfg(target_arch = "x86_64")]
    for half in 0..2 {
        let lanes_mask = (mask >> (4 * half)) & 0xf;
        if lanes_mask == 0 {
            continue;
        }
        let quad = sse2::scan_x4(a, lanes, half, prediction);
        let mut near = lanes_mask & quad.near;
        while near != 0 {
            let l = near.trailing_zeros() as usize;
            near &= near - 1;
            let found = quad.scans[l].result(a.half_extents(), &quad.v[l]);
            if let Some(m) = manifold_obb_triangle_from(a, &triangle(4 * half + l), found, prediction) {
                each(4 * half + l, m);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut bits = mask & 0xff;
        while bits != 0 {
            let lane = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let tri = triangle(lane);
            let v = local_vertices(a, &tri);
            if separated_beyond(a.half_extents(), &v, prediction) {
                continue;
            }
            if let Some(m) = manifold_obb_triangle_from(a, &tri, contact_or_gap(a, &v, true), prediction) {
                each(lane, m);
            }
        }
    }
}

/// Four lanes of the test: the vertices in the box frame, the lanes not
/// rejected (bit `l`), and the 13-axis scans.
#[cfg(target_arch = "x86_64")]
struct Quad {
    v: [[Vector; 3]; 4],
    near: u32,
    scans: [Scan; 4],
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::*;

    use super::{Quad, Scan, TriangleLanes, NO_AXIS};
    use crate::math::{Real, Vector};
    use crate::shape::Obb;

    /// Three lanes-wide coordinates.
    #[derive(Clone, Copy)]
    struct V4 {
        x: __m128,
        y: __m128,
        z: __m128,
    }

    #[inline(always)]
    fn splat(x: Real) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_set1_ps(x) }
    }

    #[inline(always)]
    fn splat3(v: &Vector) -> V4 {
        V4 { x: splat(v.x), y: splat(v.y), z: splat(v.z) }
    }

    #[inline(always)]
    fn sub(a: V4, b: V4) -> V4 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { V4 { x: _mm_sub_ps(a.x, b.x), y: _mm_sub_ps(a.y, b.y), z: _mm_sub_ps(a.z, b.z) } }
    }

    /// `(a_x b_x + a_y b_y) + a_z b_z`, as `dot3`.
    #[inline(always)]
    fn dot(a: V4, b: V4) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.x, b.x), _mm_mul_ps(a.y, b.y)), _mm_mul_ps(a.z, b.z)) }
    }

    /// As `cross3`.
    #[inline(always)]
    fn cross(a: V4, b: V4) -> V4 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe {
            V4 {
                x: _mm_sub_ps(_mm_mul_ps(a.y, b.z), _mm_mul_ps(a.z, b.y)),
                y: _mm_sub_ps(_mm_mul_ps(a.z, b.x), _mm_mul_ps(a.x, b.z)),
                z: _mm_sub_ps(_mm_mul_ps(a.x, b.y), _mm_mul_ps(a.y, b.x)),
            }
        }
    }

    /// Clears the sign bits.
    #[inline(always)]
    fn abs(a: __m128) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), a) }
    }

    /// Flips the sign bits, as the scalar `-x`.
    #[inline(always)]
    fn neg(a: __m128) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_xor_ps(_mm_set1_ps(-0.0), a) }
    }

    #[inline(always)]
    fn abs3(a: V4) -> V4 {
        V4 { x: abs(a.x), y: abs(a.y), z: abs(a.z) }
    }

    /// As `min3` and `max3`: `_mm_min_ps(a, b)` is `a < b ? a : b`.
    #[inline(always)]
    fn min3(a: __m128, b: __m128, c: __m128) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_min_ps(_mm_min_ps(a, b), c) }
    }

    #[inline(always)]
    fn max3(a: __m128, b: __m128, c: __m128) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_max_ps(_mm_max_ps(a, b), c) }
    }

    /// `mask ? a : b`, lane by lane.
    #[inline(always)]
    fn select(mask: __m128, a: __m128, b: __m128) -> __m128 {
        // SAFETY: SSE2 is in the x86_64 baseline; registers only.
        unsafe { _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)) }
    }

    /// The running [`Scan`] of four lanes, field by field (the axis
    /// indices as integer bits in float registers).
    struct Scan4 {
        /// The least face-axis overlap and its axis.
        face: __m128,
        face_axis: __m128,
        /// The least edge-axis overlap and its axis.
        edge: __m128,
        edge_axis: __m128,
        /// The widest gap and its axis.
        gap: __m128,
        gap_axis: __m128,
    }

    impl Scan4 {
        /// As `Scan::add`, on the lanes where `valid` is set; axis indices
        /// ride as integer bits in float registers.
        #[inline(always)]
        fn add(&mut self, index: u32, depth: __m128, valid: __m128) {
            let face = index < 4;
            // SAFETY: SSE2 is in the x86_64 baseline; registers only.
            unsafe {
                let index = _mm_castsi128_ps(_mm_set1_epi32(index as i32));
                let gap = neg(depth);
                let wider =
                    _mm_and_ps(valid, _mm_and_ps(_mm_cmplt_ps(depth, _mm_setzero_ps()), _mm_cmpgt_ps(gap, self.gap)));
                self.gap = select(wider, gap, self.gap);
                self.gap_axis = select(wider, index, self.gap_axis);
                let (best, axis) =
                    if face { (&mut self.face, &mut self.face_axis) } else { (&mut self.edge, &mut self.edge_axis) };
                let less = _mm_and_ps(valid, _mm_cmplt_ps(depth, *best));
                *best = select(less, depth, *best);
                *axis = select(less, index, *axis);
            }
        }

        /// The four lanes' scans.
        fn lanes(&self) -> [Scan; 4] {
            let f = |x: __m128| {
                let mut out = [0.0; 4];
                // SAFETY: SSE2 is in the x86_64 baseline; the store writes the four
                // elements of `out` (unaligned store).
                unsafe { _mm_storeu_ps(out.as_mut_ptr(), x) };
                out
            };
            let u = |x: __m128| {
                let mut out = [0u32; 4];
                // SAFETY: SSE2 is in the x86_64 baseline; the store writes the four
                // elements of `out` (unaligned store).
                unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_castps_si128(x)) };
                out
            };
            let (face, face_axis, edge, edge_axis, gap, gap_axis) =
                (f(self.face), u(self.face_axis), f(self.edge), u(self.edge_axis), f(self.gap), u(self.gap_axis));
            core::array::from_fn(|l| Scan {
                face: face[l],
                face_axis: face_axis[l],
                edge: edge[l],
                edge_axis: edge_axis[l],
                gap: gap[l],
                gap_axis: gap_axis[l],
            })
        }
    }

    /// Lanes `4 half .. 4 half + 4` of `lanes` against box `a`: the scalar
    /// per-pair steps, four at a time.
    #[inline]
    pub(super) fn scan_x4(a: &Obb, lanes: &TriangleLanes, half: usize, prediction: Real) -> Quad {
        let h = a.half_extents();
        let r = a.axes();
        let c = splat3(&a.center().coords);
        let axis = |i: usize| splat3(&Vector::new(r[(0, i)], r[(1, i)], r[(2, i)]));
        let (ax, ay, az) = (axis(0), axis(1), axis(2));
        // SAFETY: SSE2 is in the x86_64 baseline; the load reads the four floats of
        // the checked slice `lanes[k][j][4 * half..][..4]` (unaligned load).
        let row = |k: usize, j: usize| unsafe { _mm_loadu_ps(lanes[k][j][4 * half..][..4].as_ptr()) };
        // `local_vertices`: coordinate i of vertex k is `axis_i . (p_k - c)`.
        let v: [V4; 3] = core::array::from_fn(|k| {
            let d = sub(V4 { x: row(k, 0), y: row(k, 1), z: row(k, 2) }, c);
            V4 { x: dot(ax, d), y: dot(ay, d), z: dot(az, d) }
        });
        let coord = |p: &V4, k: usize| [p.x, p.y, p.z][k];
        let hs = splat3(h);
        // SAFETY: SSE2 is in the x86_64 baseline; registers only, but for the
        // stores of `store`, which write the four floats of its `out`.
        unsafe {
            // `separated_beyond`.
            let mut far = _mm_setzero_ps();
            for k in 0..3 {
                let (x0, x1, x2) = (coord(&v[0], k), coord(&v[1], k), coord(&v[2], k));
                let (lo, hi) = (min3(x0, x1, x2), max3(x0, x1, x2));
                let beyond =
                    _mm_or_ps(_mm_cmpgt_ps(lo, splat(h[k] + prediction)), _mm_cmplt_ps(hi, splat(-h[k] - prediction)));
                far = _mm_or_ps(far, beyond);
            }
            let n = cross(sub(v[1], v[0]), sub(v[2], v[0]));
            let len = _mm_sqrt_ps(dot(n, n));
            let reach = dot(hs, abs3(n));
            let plane = _mm_cmpgt_ps(abs(dot(n, v[0])), _mm_add_ps(reach, _mm_mul_ps(splat(prediction), len)));
            far = _mm_or_ps(far, _mm_and_ps(plane, _mm_cmpgt_ps(len, _mm_setzero_ps())));
            let near = !(_mm_movemask_ps(far) as u32) & 0xf;

            // `Scan` over the 13 axes, in order.
            let none = _mm_castsi128_ps(_mm_set1_epi32(NO_AXIS as i32));
            let mut scan = Scan4 {
                face: splat(Real::INFINITY),
                face_axis: none,
                edge: splat(Real::INFINITY),
                edge_axis: none,
                gap: _mm_setzero_ps(),
                gap_axis: none,
            };
            let all = _mm_castsi128_ps(_mm_set1_epi32(-1));
            for k in 0..3 {
                let (x0, x1, x2) = (coord(&v[0], k), coord(&v[1], k), coord(&v[2], k));
                let (lo, hi) = (min3(x0, x1, x2), max3(x0, x1, x2));
                let (up, down) = (_mm_sub_ps(splat(h[k]), lo), _mm_add_ps(hi, splat(h[k])));
                scan.add(k as u32, select(_mm_cmple_ps(up, down), up, down), all);
            }
            let e = [sub(v[1], v[0]), sub(v[2], v[1]), sub(v[0], v[2])];
            let along = |scan: &mut Scan4, index: u32, axis: V4| {
                let len = _mm_sqrt_ps(dot(axis, axis));
                let valid = _mm_cmpgt_ps(len, splat(Real::EPSILON));
                let inv = _mm_div_ps(splat(1.0), len);
                let l = V4 { x: _mm_mul_ps(axis.x, inv), y: _mm_mul_ps(axis.y, inv), z: _mm_mul_ps(axis.z, inv) };
                let r = dot(hs, abs3(l));
                let (p0, p1, p2) = (dot(v[0], l), dot(v[1], l), dot(v[2], l));
                let (lo, hi) = (min3(p0, p1, p2), max3(p0, p1, p2));
                let (up, down) = (_mm_sub_ps(r, lo), _mm_add_ps(hi, r));
                scan.add(index, select(_mm_cmple_ps(up, down), up, down), valid);
            };
            along(&mut scan, 3, cross(e[0], e[1]));
            let zero = _mm_setzero_ps();
            for (k, e) in e.iter().enumerate() {
                let base = 4 + 3 * k as u32;
                // `basis_cross`: e_i x e.
                along(&mut scan, base, V4 { x: zero, y: neg(e.z), z: e.y });
                along(&mut scan, base + 1, V4 { x: e.z, y: zero, z: neg(e.x) });
                along(&mut scan, base + 2, V4 { x: neg(e.y), y: e.x, z: zero });
            }

            let store = |x: __m128| {
                let mut out = [0.0; 4];
                _mm_storeu_ps(out.as_mut_ptr(), x);
                out
            };
            let coords: [[[Real; 4]; 3]; 3] = core::array::from_fn(|k| [store(v[k].x), store(v[k].y), store(v[k].z)]);
            let v = core::array::from_fn(|l| {
                core::array::from_fn(|k| Vector::new(coords[k][0][l], coords[k][1][l], coords[k][2][l]))
            });
            Quad { v, near, scans: scan.lanes() }
        }
    }
}
