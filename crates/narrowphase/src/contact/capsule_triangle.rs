//! Contact between a capsule and a triangle.

use super::feature::{segment_support, triangle_support_down};
use super::Contact;
use crate::cast::{cast_ray_triangle, Ray};
use crate::closest::{closest_points_segment_triangle, closest_points_segment_triangle_boundary, ClosestPoints};
use crate::math::{within_distance, Point, Real, UnitVector, Vector};
use crate::shape::{Capsule, Triangle};

/// The contact between capsule A and triangle B (a two-sided surface),
/// `None` when they are apart.
///
/// - Core segment clear of the triangle: the closest pair between segment and
///   triangle is the best of the segment's endpoints projected onto the
///   triangle and the segment against each triangle edge (the minimum of a
///   convex distance lies on one of those features); then as for spheres,
///   `normal = (t - s) / |t - s|`, `depth = r - |t - s|`.
/// - Segment crossing the triangle, or within `1e-4` of its size (where the
///   direction of `t - s` is rounding noise): the capsule's penetration is the
///   segment's plus `r`; the segment's is the least overlap over the axes of a
///   segment against a triangle (the triangle normal and the crosses of the
///   segment with each triangle edge), negative by the gap when they are apart.
///
/// `normal` points from the capsule to the triangle. Witness points: `point_b`
/// on the triangle and `point_a = s + r normal`, `s` on the core segment,
/// with `point_a - point_b = depth * normal`: the closest pair `(s, t)`
/// when clear; on a separating axis, a closest pair of the segment's
/// support feature along the normal (an endpoint, or the segment lying
/// normal to it) and the triangle's against it (a vertex, an edge or the
/// face), which lie `overlap` apart along the normal (see `feature.rs`).
#[must_use]
pub fn contact_capsule_triangle(capsule: &Capsule, tri: &Triangle) -> Option<Contact> {
    let (p, q, r) = (*capsule.a(), *capsule.b(), capsule.radius());
    // A crossing segment's closest points are the crossing, which the
    // feature pairs below do not list: test it first.
    let crossing = crosses(&p, &q, tri);
    let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_triangle_boundary(&p, &q, tri);
    let gap = t - s;
    let dist2 = gap.norm_squared();
    if !crossing && !within_distance(&gap, r) {
        return None;
    }
    // Below this distance the direction of `t - s` is rounding noise: decide
    // by the separating axes instead, whose overlap is then the signed gap.
    let [a, b, c] = tri.vertices();
    let scale = (q - p).norm() + (b - a).norm() + (c - a).norm();
    let near = dist2 <= (1e-4 * scale) * (1e-4 * scale);
    if crossing || near {
        let (n, overlap) = min_overlap_axis(&p, &q, tri)?;
        let normal = UnitVector::new_unchecked(n);
        let depth = (overlap + r).max(0.0);
        let (p1, q1) = segment_support(&p.coords, &q.coords, &n);
        let ([f0, f1, f2], _) = triangle_support_down(&[a.coords, b.coords, c.coords], &n);
        let feature = Triangle { a: Point::from(f0), b: Point::from(f1), c: Point::from(f2) };
        let ClosestPoints { point_a: s, point_b: t } =
            closest_points_segment_triangle(&Point::from(p1), &Point::from(q1), &feature);
        return Some(Contact { point_a: s + n * r, point_b: t, normal, depth });
    }
    let dist = dist2.sqrt();
    let normal = UnitVector::new_unchecked(gap / dist);
    Some(Contact { point_a: s + normal.into_inner() * r, point_b: t, normal, depth: r - dist })
}

/// True when the segment `[p, q]` crosses the triangle (watertight ray test).
fn crosses(p: &Point, q: &Point, tri: &Triangle) -> bool {
    Ray::try_new(*p, q - p, 1.0).is_ok_and(|ray| cast_ray_triangle(&ray, tri).is_some())
}

/// The axis of least overlap between the segment `[p, q]` and the triangle
/// (oriented from the segment towards the triangle) and that overlap, negative
/// when the axis separates them: the triangle normal and the crosses of the
/// segment with each triangle edge.
fn min_overlap_axis(p: &Point, q: &Point, tri: &Triangle) -> Option<(Vector, Real)> {
    let d = q - p;
    let v = tri.vertices();
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let mut best: Option<(Vector, Real)> = None;
    let mut consider = |axis: Vector| {
        let len = axis.norm();
        if len <= Real::EPSILON * d.norm().max(1.0) {
            return;
        }
        let l = axis / len;
        let (sp, sq) = (p.coords.dot(&l), q.coords.dot(&l));
        let t = v.map(|x| x.coords.dot(&l));
        let (tlo, thi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        let (slo, shi) = (sp.min(sq), sp.max(sq));
        // Moving the triangle along +l by (shi - tlo) or along -l by
        // (thi - slo) separates the projections.
        let (n, overlap) = if shi - tlo <= thi - slo { (l, shi - tlo) } else { (-l, thi - slo) };
        if best.is_none_or(|(_, o)| overlap < o) {
            best = Some((n, overlap));
        }
    };
    consider(edges[0].cross(&edges[1]));
    for e in &edges {
        consider(d.cross(e));
    }
    best
}
