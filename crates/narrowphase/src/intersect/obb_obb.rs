//! Oriented box against oriented box: the 15-axis separating-axis test.

use crate::math::{rotation_matrix_f64, Matrix, Real, Vector};
use crate::shape::{Aabb, Obb};
use nalgebra::{Matrix3, Vector3};

/// Added to every `|R_ij|` of the SAT. When an edge of A is parallel to an
/// edge of B their cross product is (near) zero and both sides of the
/// `A_i x B_j` test round to noise; the epsilon makes the projected radii
/// strictly positive there, so noise never declares a false separation
/// (Ericson, Real-Time Collision Detection 4.4.1). Its cost: boxes separated by
/// less than `1e-6 * (sum of half-extents)` on a face axis may report a touch.
/// On an edge axis `A_i x B_j` of length `s` (the sine between the edges) the
/// band is divided by `s`, so edge pairs with `|R_ij| > `
/// [`NEARLY_PARALLEL_COS`] that the f32 test leaves overlapping are decided
/// again in f64 (see [`separated_on_edges_f64`]).
pub(crate) const SAT_ABS_EPSILON: Real = 1e-6;

/// Edge pairs whose f32 `|R_ij|` (the cosine between the edges) exceeds this,
/// `sin < 0.14`, get the exact f64 test: elsewhere the epsilon band on an edge
/// axis is below `SAT_ABS_EPSILON / 0.14 ~ 7e-6` times its four half-extents.
/// On uniformly random rotations 3% of the overlapping pairs take that second
/// look; boxes with equal rotations (`|R_ii| = 1`) always do, and skip it at
/// once (their edges are parallel, see [`PARALLEL_SIN2`]).
const NEARLY_PARALLEL_COS: Real = 0.99;

/// Below this `|L|^2 = sin^2` (from `R`), an edge pair is parallel for the
/// SAT and its cross axis is skipped. Exactly parallel edges need no cross
/// axis (the face axes span the 2-D problem across their common direction);
/// rotating B by the angle `s` makes them so and moves B's points by at most
/// `s` times its circumradius, so skipping misses at most a separation of
/// `~2e-6` times the boxes' size.
const PARALLEL_SIN2: Real = 1e-12;

/// The padding of `|R_ij|` under which a separation found by the f32 SAT is
/// sure. The test's rounding: `R = A^T B` and `t = A^T (c_b - c_a)` carry a
/// few `eps` each, and the f32 axes are within `~6e-8` of the rotation, so
/// every side of a test is within `~1e-6 (|t|_1 + sum h)` of its exact
/// value; a padding of `1e-6` leaves noise of that order uncovered, one of
/// `1e-4` (times half-extents, and `|t| <= sum of circumradii` for boxes that
/// this padding still separates only by a hair) does not. Pairs separated
/// with the small padding but not the large one go to `separated_exact`.
const SAT_SURE_EPSILON: Real = 1e-4;

/// True when the solid boxes share a point (touching boxes intersect).
///
/// Works in A's frame: `R = A^T B` (rotation of B in A), `t = A^T (c_b - c_a)`.
/// The boxes are disjoint iff one of 15 axes separates them: A's 3 face
/// normals, B's 3, and the 9 cross products of an edge of each. On axis `L`
/// the boxes project to radii `r_a`, `r_b` and are separated iff
/// `|t . L| > r_a + r_b`.
///
/// Tolerances: boxes apart by less than `1e-6` times the sum of their
/// half-extents on a face axis, or about `7e-6` times four half-extents on
/// an edge axis, may report a touch (see `SAT_ABS_EPSILON`); nearly parallel
/// edges (sine below 0.14) are tested in f64. Boxes that overlap are never
/// reported apart: when the f32 test separates them by less than its
/// rounding can explain (`SAT_SURE_EPSILON`), the f64 test of
/// `separated_exact` decides, on the rotations built in f64 from the
/// quaternions, exact to `~1e-8` of `|c_b - c_a|_1` plus the half-extents.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{intersects_obb_obb, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
/// let rot = Rotation::from_euler_angles(0.3, 0.2, 0.1);
/// // B contains the unit ball around its centre, so at distance 2 it reaches A.
/// let b = Obb::new(Point::new(2.0, 0.0, 0.0), rot, Vector::repeat(1.0));
/// assert!(intersects_obb_obb(&a, &b));
/// // Beyond 1 + sqrt(3) (B's circumradius) it cannot.
/// let far = Obb::new(Point::new(2.8, 0.0, 0.0), rot, Vector::repeat(1.0));
/// assert!(!intersects_obb_obb(&a, &far));
/// ```
#[inline]
#[must_use]
pub fn intersects_obb_obb(a: &Obb, b: &Obb) -> bool {
    let r = a.axes().tr_mul(b.axes());
    let t = a.axes().tr_mul(&(b.center() - a.center()));
    let (ha, hb) = (a.half_extents(), b.half_extents());
    if separated(ha, hb, &r, &t, SAT_ABS_EPSILON) {
        // Apart by more than the f32 rounding: sure. Otherwise the f64 test.
        return !(separated(ha, hb, &r, &t, SAT_SURE_EPSILON) || separated_exact(&Box64::exact(a), &Box64::exact(b)));
    }
    !(has_nearly_parallel_edges(&r) && obb_obb_separated_on_parallel_edges(a, b, &r, &t))
}

/// True when the axis-aligned box and the oriented box share a point: the
/// same SAT with A's axes the world axes, so `R` is B's rotation matrix.
#[inline]
#[must_use]
pub fn intersects_aabb_obb(a: &Aabb, b: &Obb) -> bool {
    let t = b.center() - a.center();
    let (ha, hb) = (a.half_extents(), b.half_extents());
    if separated(&ha, hb, b.axes(), &t, SAT_ABS_EPSILON) {
        return !(separated(&ha, hb, b.axes(), &t, SAT_SURE_EPSILON)
            || separated_exact(&Box64::aabb(a), &Box64::exact(b)));
    }
    !(has_nearly_parallel_edges(b.axes()) && aabb_obb_separated_on_parallel_edges(a, b, &t))
}

/// The second look of [`intersects_obb_obb`] at its nearly parallel edge
/// pairs: the f32 filter, then the f64 test of the pairs it keeps.
#[cold]
#[inline(never)]
fn obb_obb_separated_on_parallel_edges(a: &Obb, b: &Obb, r: &Matrix, t: &Vector) -> bool {
    let near = near_separating_parallel_edges(a.half_extents(), b.half_extents(), r, t);
    near != 0 && separated_on_edges_f64(&Box64::exact(a), &Box64::exact(b), near)
}

/// The same for [`intersects_aabb_obb`] (A's axes are the world axes).
#[cold]
#[inline(never)]
fn aabb_obb_separated_on_parallel_edges(a: &Aabb, b: &Obb, t: &Vector) -> bool {
    let near = near_separating_parallel_edges(&a.half_extents(), b.half_extents(), b.axes(), t);
    near != 0 && separated_on_edges_f64(&Box64::aabb(a), &Box64::exact(b), near)
}

/// True when some `|R_ij| > NEARLY_PARALLEL_COS`. Compared as integers: the
/// bits of a non-negative float order as its value, and the nine compares
/// fold into a few vector instructions (`f32::max` is a NaN-aware chain).
#[inline]
fn has_nearly_parallel_edges(r: &Matrix) -> bool {
    let cos = NEARLY_PARALLEL_COS.to_bits();
    r.iter().fold(false, |acc, x| acc | (x.to_bits() & 0x7fff_ffff > cos))
}

/// A box widened exactly to f64: centre, axes (columns), half-extents.
struct Box64 {
    center: Vector3<f64>,
    axes: Matrix3<f64>,
    half: Vector3<f64>,
}

impl Box64 {
    /// The box its rotation defines: the axes built in f64 from the
    /// quaternion (see `rotation_matrix_f64`), not the f32 axes.
    fn exact(o: &Obb) -> Self {
        Self {
            center: o.center().coords.cast(),
            axes: rotation_matrix_f64(o.rotation()),
            half: o.half_extents().cast(),
        }
    }

    /// The centre and half-extents of `[min, max]` are exact in f64.
    fn aabb(a: &Aabb) -> Self {
        let (min, max) = (a.min().coords.cast::<f64>(), a.max().coords.cast::<f64>());
        Self { center: (min + max) * 0.5, axes: Matrix3::identity(), half: (max - min) * 0.5 }
    }
}

/// The nearly parallel edge pairs (`|R_ij| > NEARLY_PARALLEL_COS`,
/// `|L|^2 >= PARALLEL_SIN2`) whose f32 edge test, without the epsilon, comes
/// within its rounding `N = 32 eps (|t|_1 + sum h)` of separating, as a bit
/// mask (bit `3 i + j`); only those can separate the boxes. A pair apart by
/// `g > 0` along the unit axis has the computed `|t . L| - r_a - r_b` above
/// `g |L| - N > -N`, so it is never dropped.
fn near_separating_parallel_edges(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector) -> u16 {
    let noise = 32.0 * Real::EPSILON * (t.abs().sum() + ha.sum() + hb.sum());
    let mut mask = 0;
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let len2 = r[(i1, j)] * r[(i1, j)] + r[(i2, j)] * r[(i2, j)];
            if r[(i, j)].abs() <= NEARLY_PARALLEL_COS || len2 < PARALLEL_SIN2 {
                continue;
            }
            let offset = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
            let ra = ha[i1] * r[(i2, j)].abs() + ha[i2] * r[(i1, j)].abs();
            let rb = hb[j1] * r[(i, j2)].abs() + hb[j2] * r[(i, j1)].abs();
            if offset.abs() + noise > ra + rb {
                mask |= 1 << (3 * i + j);
            }
        }
    }
    mask
}

/// The edge axes `L = A_i x B_j` of the pairs in `mask` (bit `3 i + j`),
/// tested in f64 on the boxes' own axes. True when one separates the boxes.
///
/// In f32 on `R = A^T B` this test cannot be decided: the offset
/// `t_i2 R_i1j - t_i1 R_i2j` and the radii carry an absolute rounding of
/// `~eps (|t| + h)`, which is divided by `|L| = sin` (edges 0.002 rad apart
/// on boxes of size 1e5 leave a 24-unit gap inside the noise). Here `L` is the
/// cross product of the boxes' axes built in f64 from their rotations (the
/// f32 axes are off by ~6e-8, enough to separate boxes that overlap by that
/// much of their size) and every projection is a direct dot product,
/// `|d . L| > sum_k ha_k |A_k . L| + sum_k hb_k |B_k . L|`
/// with `d = c_b - c_a`: a rounded `L` is still an axis, whose projections
/// are computed with relative error `~1e-15`, so no orthonormality of the
/// axes is assumed. The margin `1e-13 (|d|_1 + sum h) |L|_1` covers that
/// rounding, so the test never separates touching boxes.
fn separated_on_edges_f64(a: &Box64, b: &Box64, mask: u16) -> bool {
    let d = b.center - a.center;
    let size = d.abs().sum() + a.half.sum() + b.half.sum();
    let project = |axes: &Matrix3<f64>, half: &Vector3<f64>, l: &Vector3<f64>| {
        (0..3).map(|k| half[k] * axes.column(k).dot(l).abs()).sum::<f64>()
    };
    (0..9).filter(|k| mask & (1 << k) != 0).any(|k| {
        let l = a.axes.column(k / 3).cross(&b.axes.column(k % 3));
        let (ra, rb) = (project(&a.axes, &a.half, &l), project(&b.axes, &b.half, &l));
        d.dot(&l).abs() > ra + rb + 1e-13 * size * l.abs().sum()
    })
}
/// Below this `|A_i x B_j|` (the sine between the edges) `separated_exact`
/// skips an edge axis: skipping misses a separation of at most the sine
/// times the boxes' size, and a shorter axis's projections carry f64
/// rounding of `~1e-16 / sine` of it; `1e-8` balances the two.
const EXACT_MIN_SINE: f64 = 1e-8;

/// The 15-axis SAT in f64: true when an axis separates the boxes. The axes
/// are the boxes' own (orthonormal to `~1e-16`), the edge axes their cross
/// products (unnormalised: each test compares projections on the same `L`),
/// and every projection a direct dot product of `d = c_b - c_a`, exact in
/// f64 from the f32 centres. Exact to `~1e-8` of `|d|_1 + sum h` (the
/// skipped near-parallel edge axes, see `EXACT_MIN_SINE`).
#[cold]
#[inline(never)]
fn separated_exact(a: &Box64, b: &Box64) -> bool {
    let d = b.center - a.center;
    let project = |x: &Box64, l: &Vector3<f64>| (0..3).map(|k| x.half[k] * x.axes.column(k).dot(l).abs()).sum::<f64>();
    let apart = |l: &Vector3<f64>| d.dot(l).abs() > project(a, l) + project(b, l);
    (0..3).any(|k| apart(&a.axes.column(k).into_owned()) || apart(&b.axes.column(k).into_owned()))
        || (0..9).any(|k| {
            let l = a.axes.column(k / 3).cross(&b.axes.column(k % 3));
            l.norm_squared() >= EXACT_MIN_SINE * EXACT_MIN_SINE && apart(&l)
        })
}

/// The SAT core: `ha`, `hb` half-extents, `r` rotation of B in A's frame,
/// `t` centre offset in A's frame, `e` the padding of every `|R_ij|` (see
/// [`SAT_ABS_EPSILON`]). Returns true when an axis separates.
///
/// Explicit scalar code, fully unrolled (no index arithmetic, no bounds
/// checks). The 15 tests are grouped by kind and each group is folded with a
/// non-short-circuit `|` into one branch: on random input the axis that
/// separates is unpredictable, and three well-predicted group branches cost
/// less than up to fifteen mispredicted ones. A's face axes come first (the
/// most frequent separators, and they need only `t` and the rows of `|R|`),
/// then B's, then the nine edge axes.
#[inline]
pub(crate) fn separated(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector, e: Real) -> bool {
    let (r00, r01, r02) = (r[(0, 0)], r[(0, 1)], r[(0, 2)]);
    let (r10, r11, r12) = (r[(1, 0)], r[(1, 1)], r[(1, 2)]);
    let (r20, r21, r22) = (r[(2, 0)], r[(2, 1)], r[(2, 2)]);
    let (a00, a01, a02) = (r00.abs() + e, r01.abs() + e, r02.abs() + e);
    let (a10, a11, a12) = (r10.abs() + e, r11.abs() + e, r12.abs() + e);
    let (a20, a21, a22) = (r20.abs() + e, r21.abs() + e, r22.abs() + e);
    let (ha0, ha1, ha2) = (ha.x, ha.y, ha.z);
    let (hb0, hb1, hb2) = (hb.x, hb.y, hb.z);
    let (t0, t1, t2) = (t.x, t.y, t.z);

    // A's face axes e_i: r_a = ha_i, r_b = sum_j hb_j |R_ij|, offset t_i.
    let face_a = (t0.abs() > ha0 + hb0 * a00 + hb1 * a01 + hb2 * a02)
        | (t1.abs() > ha1 + hb0 * a10 + hb1 * a11 + hb2 * a12)
        | (t2.abs() > ha2 + hb0 * a20 + hb1 * a21 + hb2 * a22);
    if face_a {
        return true;
    }
    // B's face axes R_j: r_a = sum_i ha_i |R_ij|, r_b = hb_j, offset t . R_j.
    let face_b = ((t0 * r00 + t1 * r10 + t2 * r20).abs() > ha0 * a00 + ha1 * a10 + ha2 * a20 + hb0)
        | ((t0 * r01 + t1 * r11 + t2 * r21).abs() > ha0 * a01 + ha1 * a11 + ha2 * a21 + hb1)
        | ((t0 * r02 + t1 * r12 + t2 * r22).abs() > ha0 * a02 + ha1 * a12 + ha2 * a22 + hb2);
    if face_b {
        return true;
    }
    // Edge axes A_i x B_j, with (i1, i2) and (j1, j2) the other two indices
    // in cyclic order: r_a = ha_i1 |R_i2j| + ha_i2 |R_i1j|,
    // r_b = hb_j1 |R_ij2| + hb_j2 |R_ij1|, offset t_i2 R_i1j - t_i1 R_i2j.
    // i = 0: (i1, i2) = (1, 2).
    ((t2 * r10 - t1 * r20).abs() > ha1 * a20 + ha2 * a10 + hb1 * a02 + hb2 * a01)
        | ((t2 * r11 - t1 * r21).abs() > ha1 * a21 + ha2 * a11 + hb0 * a02 + hb2 * a00)
        | ((t2 * r12 - t1 * r22).abs() > ha1 * a22 + ha2 * a12 + hb0 * a01 + hb1 * a00)
        // i = 1: (i1, i2) = (2, 0).
        | ((t0 * r20 - t2 * r00).abs() > ha2 * a00 + ha0 * a20 + hb1 * a12 + hb2 * a11)
        | ((t0 * r21 - t2 * r01).abs() > ha2 * a01 + ha0 * a21 + hb0 * a12 + hb2 * a10)
        | ((t0 * r22 - t2 * r02).abs() > ha2 * a02 + ha0 * a22 + hb0 * a11 + hb1 * a10)
        // i = 2: (i1, i2) = (0, 1).
        | ((t1 * r00 - t0 * r10).abs() > ha0 * a10 + ha1 * a00 + hb1 * a22 + hb2 * a21)
        | ((t1 * r01 - t0 * r11).abs() > ha0 * a11 + ha1 * a01 + hb0 * a22 + hb2 * a20)
        | ((t1 * r02 - t0 * r12).abs() > ha0 * a12 + ha1 * a02 + hb0 * a21 + hb1 * a20)
}
