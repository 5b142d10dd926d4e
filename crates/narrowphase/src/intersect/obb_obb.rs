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
/// let b = Obb::new(Point::new(2.5, 0.0, 0.0), rot, Vector::repeat(1.0));
/// assert!(intersects_obb_obb(&a, &b));
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
#[inline]
pub(crate) fn separated(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector) -> bool {
    let abs_r = r.map(|x| x.abs() + SAT_ABS_EPSILON);

    // A's face axes: r_a = ha_i, r_b = sum_j hb_j |R_ij|.
    for i in 0..3 {
        let rb = hb.x * abs_r[(i, 0)] + hb.y * abs_r[(i, 1)] + hb.z * abs_r[(i, 2)];
        if t[i].abs() > ha[i] + rb {
            return true;
        }
    }
    // B's face axes: the offset along B_j is t . R_j.
    for j in 0..3 {
        let ra = ha.x * abs_r[(0, j)] + ha.y * abs_r[(1, j)] + ha.z * abs_r[(2, j)];
        let tj = t.x * r[(0, j)] + t.y * r[(1, j)] + t.z * r[(2, j)];
        if tj.abs() > ra + hb[j] {
            return true;
        }
    }
    // Edge axes A_i x B_j, with (i1, i2) and (j1, j2) the other two indices:
    // r_a = ha_i1 |R_i2j| + ha_i2 |R_i1j|, r_b = hb_j1 |R_ij2| + hb_j2 |R_ij1|,
    // offset = t_i2 R_i1j - t_i1 R_i2j.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ha[i1] * abs_r[(i2, j)] + ha[i2] * abs_r[(i1, j)];
            let rb = hb[j1] * abs_r[(i, j2)] + hb[j2] * abs_r[(i, j1)];
            let offset = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
            if offset.abs() > ra + rb {
                return true;
            }
        }
    }
    false
}
