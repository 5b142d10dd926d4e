//! Oriented box against oriented box: the 15-axis separating-axis test.

use crate::math::{Matrix, Real, Vector};
use crate::shape::{Aabb, Obb};

/// Added to every `|R_ij|` of the SAT. When an edge of A is parallel to an
/// edge of B their cross product is (near) zero and both sides of the
/// `A_i x B_j` test round to noise; the epsilon makes the projected radii
/// strictly positive there, so noise never declares a false separation
/// (Ericson, Real-Time Collision Detection 4.4.1). Its cost: boxes separated by
/// less than `1e-6 * (sum of half-extents)` on an axis may report a touch.
pub(crate) const SAT_ABS_EPSILON: Real = 1e-6;

/// True when the solid boxes share a point (touching boxes intersect).
///
/// Works in A's frame: `R = A^T B` (rotation of B in A), `t = A^T (c_b - c_a)`.
/// The boxes are disjoint iff one of 15 axes separates them: A's 3 face
/// normals, B's 3, and the 9 cross products of an edge of each. On axis `L`
/// the boxes project to radii `r_a`, `r_b` and are separated iff
/// `|t . L| > r_a + r_b`.
///
/// ```
/// use proxima_narrowphase::{intersects_obb_obb, Obb, Point, Rotation, Vector};
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
    !separated(a.half_extents(), b.half_extents(), &r, &t)
}

/// True when the axis-aligned box and the oriented box share a point: the
/// same SAT with A's axes the world axes, so `R` is B's rotation matrix.
#[inline]
#[must_use]
pub fn intersects_aabb_obb(a: &Aabb, b: &Obb) -> bool {
    let t = b.center() - a.center();
    !separated(&a.half_extents(), b.half_extents(), b.axes(), &t)
}

/// The SAT core: `ha`, `hb` half-extents, `r` rotation of B in A's frame,
/// `t` centre offset in A's frame. Returns true when an axis separates.
///
/// Explicit scalar code, fully unrolled (no index arithmetic, no bounds
/// checks). The 15 tests are grouped by kind and each group is folded with a
/// non-short-circuit `|` into one branch: on random input the axis that
/// separates is unpredictable, and three well-predicted group branches cost
/// less than up to fifteen mispredicted ones. A's face axes come first (the
/// most frequent separators, and they need only `t` and the rows of `|R|`),
/// then B's, then the nine edge axes.
#[inline]
pub(crate) fn separated(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector) -> bool {
    let (r00, r01, r02) = (r[(0, 0)], r[(0, 1)], r[(0, 2)]);
    let (r10, r11, r12) = (r[(1, 0)], r[(1, 1)], r[(1, 2)]);
    let (r20, r21, r22) = (r[(2, 0)], r[(2, 1)], r[(2, 2)]);
    let e = SAT_ABS_EPSILON;
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
