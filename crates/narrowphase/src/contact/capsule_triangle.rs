//! Contact between a capsule and a triangle.

use super::feature::{segment_support, triangle_support_down};
use super::near_band::{from_closest_pair, Near, NEAR};
use super::Contact;
use crate::cast::{cast_ray_triangle, Ray};
use crate::closest::{
    closest_points_segment_triangle, closest_points_segment_triangle_boundary, closest_points_segment_triangle_f64,
    ClosestPoints, V64,
};
use crate::distance::{from_cores, ShapeDistance};
use crate::math::{within_distance, Point, Real, UnitVector, Vector};
use crate::shape::{Capsule, Triangle};

/// The contact between capsule A and triangle B (a two-sided surface),
/// `None` when they are apart.
///
/// All in coordinates relative to the segment's first endpoint, so that the
/// rounding is relative to the shapes' size and distance, not to their
/// position (a pair at `1e5` rounds as the same pair at the origin).
///
/// - Core segment clear of the triangle: the closest pair `(s, t)` between
///   segment and triangle is the best of the segment's endpoints projected
///   onto the triangle and the segment against each triangle edge (the
///   minimum of a convex distance lies on one of those features); then as
///   for spheres, `normal = (t - s) / |t - s|`, `depth = r - |t - s|`.
/// - Within `1e-4` of the shapes' size, where the direction of
///   the f32 `t - s` is unreliable: the same pair in f64 (differences and
///   products of f32 inputs exact, the pair within ~`1e-16` of the size),
///   with the same normal and depth, or `None` when it is farther apart
///   than `r`.
/// - Segment crossing the triangle (the watertight ray test, or the f64
///   one above), or touching it (within `1e-9` of the size): the capsule's
///   penetration is the segment's plus `r`; the segment's is the least
///   overlap over the axes of a segment against a triangle (the triangle
///   normal and the crosses of the segment with each triangle edge: the
///   face normals of their Minkowski difference, so the least overlap is
///   the penetration of crossing cores).
///
/// Invariant: apart cores take the closest pair, never the axes. For apart
/// cores the best axis separates them by at most their gap, and by exactly
/// the gap only for an endpoint over the face or the segment across an
/// edge; for the segment passing a vertex, or an endpoint beside an edge
/// or vertex, the closest direction is none of the axes and each separates
/// by less (at most the gap times the cosine of its angle to that
/// direction), which as a depth is too deep by up to the gap. The axes are used only when that gap is
/// below `1e-9` of the size.
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
    contact_or_distance(capsule, tri).ok()
}

/// [`contact_capsule_triangle`], or when the shapes are apart, their
/// distance where the contact test found it: for clear cores farther apart
/// than the radius, the closest pair it took is the one
/// [`distance_capsule_triangle`](crate::distance_capsule_triangle) finds
/// (the same boundary features, in the same frame relative to `a`), so
/// `Err(Some(d))` is that function's answer, bit for bit. `Err(None)` when
/// the near band found them apart (the caller computes the distance).
pub(super) fn contact_or_distance(capsule: &Capsule, tri: &Triangle) -> Result<Contact, Option<ShapeDistance>> {
    let (o, r) = (*capsule.a(), capsule.radius());
    let (p, q) = (Point::origin(), Point::from(capsule.b() - o));
    let local = Triangle { a: Point::from(tri.a - o), b: Point::from(tri.b - o), c: Point::from(tri.c - o) };
    // A crossing segment's closest points are the crossing, which the
    // feature pairs below do not list: test it first.
    let crossing = crosses(&p, &q, &local);
    let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_triangle_boundary(&p, &q, &local);
    let gap = t - s;
    let dist2 = gap.norm_squared();
    if !crossing && !within_distance(&gap, r) {
        let d = from_cores(s, r, t, 0.0);
        return Err(Some(ShapeDistance { point_a: o + d.point_a.coords, point_b: o + d.point_b.coords, ..d }));
    }
    let [a, b, c] = local.vertices();
    let scale = (q - p).norm() + (b - a).norm() + (c - a).norm();
    if !crossing {
        if dist2 > (NEAR * scale) * (NEAR * scale) {
            let dist = dist2.sqrt();
            let normal = UnitVector::new_unchecked(gap / dist);
            let point_a = o + (s.coords + normal.into_inner() * r);
            return Ok(Contact { point_a, point_b: o + t.coords, normal, depth: r - dist });
        }
        match near_contact_f64(capsule, tri, scale) {
            Near::Apart => return Err(None),
            Near::Contact(c) => return Ok(c),
            Near::Touching => {}
        }
    }
    let (n, overlap) = min_overlap_axis(&p, &q, &local).ok_or(None)?;
    let normal = UnitVector::new_unchecked(n);
    let depth = (overlap + r).max(0.0);
    let (p1, q1) = segment_support(&p.coords, &q.coords, &n);
    let ([f0, f1, f2], _) = triangle_support_down(&[a.coords, b.coords, c.coords], &n);
    let feature = Triangle { a: Point::from(f0), b: Point::from(f1), c: Point::from(f2) };
    let ClosestPoints { point_a: s, point_b: t } =
        closest_points_segment_triangle(&Point::from(p1), &Point::from(q1), &feature);
    Ok(Contact { point_a: o + (s.coords + n * r), point_b: o + t.coords, normal, depth })
}

/// The near-band contact (see [`contact_capsule_triangle`]): the closest
/// pair `(s, t)` of the segment and the triangle in f64, relative to the
/// segment's first endpoint `o` (exact differences of the f32 inputs), then
/// `normal = (t - s) / |t - s|`, `depth = r - |t - s|`, `point_b = o + t`,
/// `point_a = o + s + r normal`, each rounded once to f32.
#[cold]
#[inline(never)]
fn near_contact_f64(capsule: &Capsule, tri: &Triangle, scale: Real) -> Near {
    let o = capsule.a().coords.cast::<f64>();
    let local = |x: &Point| x.coords.cast::<f64>() - o;
    let v = tri.vertices().map(|x| local(&x));
    let pair = closest_points_segment_triangle_f64(&V64::zeros(), &local(capsule.b()), &v);
    from_closest_pair(pair, f64::from(capsule.radius()), scale, |x| o + x, |n| n)
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
