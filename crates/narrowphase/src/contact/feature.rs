//! Support features (the vertex, edge or face of a shape furthest along a
//! direction) and the witness points of a separating-axis contact.
//!
//! On the axis `n` of least overlap `o` (from A to B), the witness points
//! are a pair of closest points between A's support feature along `n` and
//! B's along `-n`. Both features lie in planes normal to `n`, `o` apart, and
//! where `n` is the exact minimum-translation direction their projections
//! on such a plane overlap (the origin's projection lies in the face of the
//! Minkowski difference that they span), so the pair is `o n` apart: each
//! point on its shape's surface and `point_a - point_b = depth * n`.

use crate::closest::{closest_points_segment_box_local, closest_points_segment_triangle, ClosestPoints};
use crate::math::{Point, Real, Vector};
use crate::shape::Triangle;

/// A feature edge whose sine with the plane normal to the axis is at most
/// this lies in that plane: the support feature is the edge, not its end.
/// Counting a tilted edge in tilts the witness pair by at most this sine
/// times the edge's length (1e-5 of the shapes' size), while the face and
/// edge axes built from exact zeros (`e_k`, `d x e_k`) and normals turned
/// by rounding (~1e-7) are recognised as faces and edges.
pub(super) const FEATURE_SINE: Real = 1e-5;

/// The support feature of the segment `[p, q]` along `n`: the whole segment
/// when it is normal to `n` (within [`FEATURE_SINE`]), else the endpoint
/// further along `n` (twice).
pub(super) fn segment_support(p: &Vector, q: &Vector, n: &Vector) -> (Vector, Vector) {
    let d = q - p;
    let along = d.dot(n);
    if along.abs() <= FEATURE_SINE * d.norm() {
        (*p, *q)
    } else if along > 0.0 {
        (*q, *q)
    } else {
        (*p, *p)
    }
}

/// The support feature of the box `[-h, h]` along the unit `n` (box frame),
/// as a box `(centre, half_extents)`: on each axis with `|n_i|` at most
/// [`FEATURE_SINE`] the feature spans the box (`h_i` about 0), on the others
/// it is the face `sign(n_i) h_i` (extent 0). A vertex, an edge or a face.
pub(super) fn box_support(h: &Vector, n: &Vector) -> (Vector, Vector) {
    let mut centre = Vector::zeros();
    let mut half = Vector::zeros();
    for i in 0..3 {
        if n[i].abs() <= FEATURE_SINE {
            half[i] = h[i];
        } else {
            centre[i] = h[i].copysign(n[i]);
        }
    }
    (centre, half)
}

/// The support feature of the triangle `v` along `-n` (its vertices least
/// along `n`), as a possibly degenerate triangle: the vertex of least
/// projection, with each other vertex whose edge to it has a sine with the
/// plane normal to `n` of at most [`FEATURE_SINE`] (a vertex, edge or face),
/// and a flag telling a face.
pub(super) fn triangle_support_down(v: &[Vector; 3], n: &Vector) -> ([Vector; 3], bool) {
    let proj = v.map(|x| x.dot(n));
    let lo = if proj[0] <= proj[1] && proj[0] <= proj[2] {
        0
    } else if proj[1] <= proj[2] {
        1
    } else {
        2
    };
    let flat = |j: usize| proj[j] - proj[lo] <= FEATURE_SINE * (v[j] - v[lo]).norm();
    let (j, k) = ((lo + 1) % 3, (lo + 2) % 3);
    match (flat(j), flat(k)) {
        (true, true) => (*v, true),
        (true, false) => ([v[lo], v[j], v[j]], false),
        (false, true) => ([v[lo], v[k], v[k]], false),
        (false, false) => ([v[lo]; 3], false),
    }
}

/// The closest points `(on_box, on_triangle)` between the box support
/// feature `(centre, half)` (see [`box_support`]) and the triangle support
/// feature `tri` (see [`triangle_support_down`]; `face` when it is the whole
/// triangle), all in the box frame.
///
/// Each edge of the triangle's feature against the box feature
/// ([`closest_points_segment_box_local`] takes flat boxes and zero-length
/// segments); a face also against the box feature's centre line (a vertex,
/// the edge itself, or a face's centre), by
/// [`closest_points_segment_triangle`]. Two convex polygons in parallel
/// planes whose projections meet have an edge of one over the other, or
/// one inside the other (then its centre is over the other), so the least
/// of these pairs is a closest pair.
pub(super) fn closest_box_triangle_features(
    centre: &Vector,
    half: &Vector,
    tri: &[Vector; 3],
    face: bool,
) -> (Vector, Vector) {
    let mut best = (Vector::zeros(), Vector::zeros());
    let mut best_d2 = Real::INFINITY;
    let mut take = |on_box: Vector, on_tri: Vector| {
        let d2 = (on_tri - on_box).norm_squared();
        if d2 < best_d2 {
            best_d2 = d2;
            best = (on_box, on_tri);
        }
    };
    let edges: &[(usize, usize)] = if face { &[(0, 1), (1, 2), (2, 0)] } else { &[(0, 1)] };
    for &(i, j) in edges {
        let (on_tri, on_box) = closest_points_segment_box_local(&(tri[i] - centre), &(tri[j] - centre), half);
        take(on_box + centre, on_tri + centre);
    }
    if face {
        let free = half.iter().filter(|&&x| x > 0.0).count();
        let (e0, e1) = if free >= 2 { (*centre, *centre) } else { (centre - half, centre + half) };
        let t = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
        let ClosestPoints { point_a, point_b } =
            closest_points_segment_triangle(&Point::from(e0), &Point::from(e1), &t);
        take(point_a.coords, point_b.coords);
    }
    best
}
