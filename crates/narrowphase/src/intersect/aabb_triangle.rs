//! Axis-aligned box against triangle: the 13-axis separating-axis test.

use crate::math::{Real, Vector};
use crate::shape::{Aabb, Triangle};

/// True when the triangle and the solid box share a point.
///
/// Akenine-Möller's test (Ericson 5.2.9) with the box centred at the origin:
/// separated iff one of 13 axes separates the projections: the 3 box normals,
/// the triangle normal, and the 9 cross products of a box axis with a
/// triangle edge. Zero axes (degenerate triangles, or an edge parallel to a box
/// axis) project everything to 0 and cannot separate, so they are harmless;
/// a degenerate triangle is tested as the segment it collapses to by the
/// remaining axes plus the box normals.
#[must_use]
pub fn intersects_aabb_triangle(aabb: &Aabb, tri: &Triangle) -> bool {
    let c = aabb.center();
    let h = aabb.half_extents();
    let v = [tri.a - c, tri.b - c, tri.c - c];

    // Box normals: the triangle's own box against the box.
    for i in 0..3 {
        let (lo, hi) = min_max3(v[0][i], v[1][i], v[2][i]);
        if lo > h[i] || hi < -h[i] {
            return false;
        }
    }
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    // Nine axes e_k x u_i (u_i the box axes).
    for edge in &e {
        for i in 0..3 {
            let mut axis = Vector::zeros();
            axis[i] = 1.0;
            let axis = axis.cross(edge);
            if separates(&axis, &v, &h) {
                return false;
            }
        }
    }
    // Triangle normal.
    let n = e[0].cross(&e[1]);
    !separates(&n, &v, &h)
}

#[inline]
fn separates(axis: &Vector, v: &[Vector; 3], h: &Vector) -> bool {
    let (lo, hi) = min_max3(axis.dot(&v[0]), axis.dot(&v[1]), axis.dot(&v[2]));
    let r = h.x * axis.x.abs() + h.y * axis.y.abs() + h.z * axis.z.abs();
    lo > r || hi < -r
}

#[inline]
fn min_max3(a: Real, b: Real, c: Real) -> (Real, Real) {
    (a.min(b).min(c), a.max(b).max(c))
}
