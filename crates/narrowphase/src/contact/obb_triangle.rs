//! Contact between an oriented box and a triangle.

use super::Contact;
use crate::math::{Real, UnitVector, Vector};
use crate::shape::{Obb, Triangle};

/// An edge-edge axis must beat the best face axis by this fraction to be
/// chosen, so that near-ties resolve to the more stable face normal.
const EDGE_REL_TOL: Real = 1e-3;

/// The contact between box A and triangle B (a two-sided surface), `None`
/// when they are apart.
///
/// In the box frame, the least-overlap axis of the 13-axis separating-axis
/// test (Akenine-Möller's triangle-box axes, Ericson 5.2.9): the 3 box
/// normals, the triangle normal, and the 9 crosses of a box axis with a
/// triangle edge (near-zero crosses skipped). On axis `L` the box projects to
/// `±sum h_i |L_i|` and the triangle to `[lo, hi]`; the overlap towards `+L` is
/// `r_box - lo`, towards `-L` it is `hi + r_box`, and the smaller picks the
/// normal's direction. `normal` points from the box to the triangle.
///
/// Witness points: on the triangle-normal axis, `point_a` is the box's
/// deepest vertex; otherwise `point_b` is the triangle's deepest vertex. The
/// other point is offset by `depth * normal`.
#[must_use]
pub fn contact_obb_triangle(obb: &Obb, tri: &Triangle) -> Option<Contact> {
    let h = obb.half_extents();
    let v = tri.vertices().map(|p| obb.to_local(&p));
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let mut best: Option<(Vector, Real, bool)> = None; // (normal, depth, is_triangle_normal)
    let mut consider = |axis: Vector, is_edge: bool, is_tri_normal: bool| -> bool {
        let len = axis.norm();
        if len <= Real::EPSILON {
            return true;
        }
        let l = axis / len;
        let r = h.x * l.x.abs() + h.y * l.y.abs() + h.z * l.z.abs();
        let p = v.map(|x| x.dot(&l));
        let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        let (up, down) = (r - lo, hi + r);
        if up < 0.0 || down < 0.0 {
            return false;
        }
        let (n, depth) = if up <= down { (l, up) } else { (-l, down) };
        let better = match best {
            None => true,
            Some((_, d, _)) if is_edge => depth < d * (1.0 - EDGE_REL_TOL),
            Some((_, d, _)) => depth < d,
        };
        if better {
            best = Some((n, depth, is_tri_normal));
        }
        true
    };
    for i in 0..3 {
        if !consider(Vector::ith(i, 1.0), false, false) {
            return None;
        }
    }
    if !consider(edges[0].cross(&edges[1]), false, true) {
        return None;
    }
    for e in &edges {
        for i in 0..3 {
            if !consider(Vector::ith(i, 1.0).cross(e), true, false) {
                return None;
            }
        }
    }
    let (n_local, depth, on_tri_normal) = best?;
    let normal = UnitVector::new_normalize(obb.axes() * n_local);
    let offset = normal.into_inner() * depth;
    if on_tri_normal {
        // The box's vertex furthest along n is the deepest into the triangle's plane.
        let corner = h.zip_map(&n_local, |h, n| if n >= 0.0 { h } else { -h });
        let point_a = obb.to_world(&corner);
        Some(Contact { point_a, point_b: point_a - offset, normal, depth })
    } else {
        let deepest = v.iter().copied().min_by(|a, b| a.dot(&n_local).total_cmp(&b.dot(&n_local))).unwrap_or(v[0]);
        let point_b = obb.to_world(&deepest);
        Some(Contact { point_a: point_b + offset, point_b, normal, depth })
    }
}
