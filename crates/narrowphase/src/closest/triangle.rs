//! Closest point on a triangle.

use crate::math::{Point, Real};
use crate::shape::Triangle;

/// The point of triangle `abc` closest to `p`.
///
/// Finds the Voronoi region of `p` (three vertices, three edges, the face)
/// from the barycentric signs of Ericson, Real-Time Collision Detection,
/// 5.1.5, and projects onto that feature. Degenerate triangles fall into a
/// vertex or edge region, which is the segment or point they collapse to.
#[must_use]
pub fn closest_point_triangle(p: &Point, tri: &Triangle) -> Point {
    let (a, b, c) = (tri.a, tri.b, tri.c);
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return a; // vertex region A
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return b; // vertex region B
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return a + ab * v; // edge region AB
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return c; // vertex region C
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return a + ac * w; // edge region AC
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return b + (c - b) * w; // edge region BC
    }
    // Face region. Ericson returns the barycentric combination
    // (u, v, w) = (va, vb, vc) / (va + vb + vc), but each of va, vb, vc is a
    // difference of products of dot products that cancels on slivers (it was
    // off by ~1e-5 on unit-sized thin triangles). The orthogonal projection
    // onto the plane, p - n (n . ap) / |n|^2 with n = ab x ac, is the same
    // point and only inherits the direction error of n (~eps / sin(angle)).
    let n = ab.cross(&ac);
    let n2 = n.norm_squared();
    if n2.is_nan() || n2 <= 0.0 || va + vb + vc <= 0.0 {
        // Degenerate triangle that slipped past the region tests (rounding):
        // fall back to the closest of the three edges.
        return closest_on_edges(p, tri);
    }
    p - n * (n.dot(&ap) / n2)
}

fn closest_on_edges(p: &Point, tri: &Triangle) -> Point {
    use super::segment::closest_point_segment;
    let candidates = [
        closest_point_segment(p, &tri.a, &tri.b),
        closest_point_segment(p, &tri.b, &tri.c),
        closest_point_segment(p, &tri.c, &tri.a),
    ];
    let mut best = candidates[0];
    let mut best_d = Real::INFINITY;
    for q in candidates {
        let d = (p - q).norm_squared();
        if d < best_d {
            best_d = d;
            best = q;
        }
    }
    best
}

/// Distance from `p` to the triangle.
#[inline]
#[must_use]
pub fn distance_triangle(p: &Point, tri: &Triangle) -> Real {
    (p - closest_point_triangle(p, tri)).norm()
}
