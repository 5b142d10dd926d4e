//! Swept sphere against triangle.

use super::ray_capsule::ray_capsule_toi;
use super::sweep::{is_moving, motion_is_finite, normal_or_against_motion, SweepHit};
use crate::closest::{closest_point_triangle, face_normal};
use crate::math::{Point, Real, UnitVector, Vector};
use crate::shape::{Sphere, Triangle};

/// First contact of a sphere moving by `motion` with a static triangle
/// (two-sided, like [`cast_ray_triangle`](crate::cast_ray_triangle)).
///
/// The centre must reach the Minkowski sum of the triangle and the ball: two
/// flat faces at height `±r` over the triangle, the capsules of the three
/// edges (which include the vertices' balls). So (Ericson, Real-Time
/// Collision Detection, 5.5.6):
/// 1. face: if the centre starts farther than `r` from the plane and moves
///    towards it, it crosses the plane offset by `r` on its side at
///    `toi = (|h| - r) / -(n.motion)` (`h` the signed height, `n` the unit
///    normal on the centre's side); if the touching point `centre - r n`
///    lies on the triangle (inclusive edge test), that is the first contact;
/// 2. otherwise the first contact, if any, is on an edge: the earliest hit of
///    the centre's ray on the three edge capsules of radius `r`.
///
/// A ray that misses the flat face on its side cannot reach the other
/// side's face without passing through the slab `|h| < r` beside the
/// triangle, and it enters the triangle's prism there inside an edge
/// capsule, so step 2 is complete.
///
/// Degenerate cases: overlapping or touching at the start is
/// [`Penetrating`](crate::SweepStatus::Penetrating) with the triangle point
/// nearest the centre and the normal from it to the centre (a centre on the
/// triangle gets the face normal facing against the motion); zero motion is
/// the static overlap test; a degenerate triangle (see
/// [`cast_ray_triangle`](crate::cast_ray_triangle)) has no face and is swept
/// as its edges; motion parallel to the plane skips the face and finds the
/// edges; a zero radius is a ray cast (within rounding at the edges).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_triangle, Point, Sphere, Triangle, Vector};
/// let t = Triangle::new(Point::new(-1.0, -1.0, 5.0), Point::new(1.0, -1.0, 5.0), Point::new(0.0, 1.0, 5.0));
/// let s = Sphere::new(Point::origin(), 1.0);
/// let hit = cast_sphere_triangle(&s, &Vector::new(0.0, 0.0, 8.0), &t).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::new(0.0, 0.0, 5.0));
/// assert_eq!(hit.normal.into_inner(), -Vector::z());
/// ```
#[must_use]
pub fn cast_sphere_triangle(sphere: &Sphere, motion: &Vector, tri: &Triangle) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let (c, r) = (sphere.center(), sphere.radius());
    let face = unit_face_normal(tri);
    let n = face.map(|(n, _)| n);
    let q = closest_point_triangle(c, tri);
    let e = c - q;
    if e.norm_squared() <= r * r {
        let face = n.map(|n| if n.dot(motion) > 0.0 { -n } else { n }).unwrap_or_else(Vector::zeros);
        let normal = UnitVector::try_new(e, 0.0).unwrap_or_else(|| normal_or_against_motion(&face, motion));
        return Some(SweepHit::new(0.0, q, normal));
    }
    if !is_moving(motion) {
        return None;
    }
    if let Some(hit) = face.and_then(|(n, o)| face_hit(c, motion, r, tri, &n, &o)) {
        return Some(hit);
    }
    let edges = [(tri.a, tri.b), (tri.b, tri.c), (tri.c, tri.a)];
    let (toi, nvec) = edges
        .iter()
        .filter_map(|(a, b)| ray_capsule_toi(&c.coords, motion, &a.coords, &b.coords, r))
        .filter(|(toi, _)| *toi <= 1.0)
        .min_by(|x, y| x.0.total_cmp(&y.0))?;
    // The contact is the triangle point nearest the centre at toi, not the
    // winning capsule's own point: two edges and their shared vertex can tie
    // in f32 while the contact slides along an edge. With the centre too
    // close for a reliable direction (`r = 0`, rounding), the capsule's
    // normal is kept.
    let centre = c + motion * toi;
    let point = closest_point_triangle(&centre, tri);
    let e = centre - point;
    let normal = if e.norm() > 0.5 * r { UnitVector::try_new(e, 0.0) } else { None };
    let normal = normal.unwrap_or_else(|| normal_or_against_motion(&nvec, motion));
    Some(SweepHit::new(toi, point, normal))
}

/// The unit face normal `(b - a) x (c - a) / |...|` and the vertex it is
/// computed at, or `None` for a degenerate triangle (`|e1 x e2| <= eps |e1|
/// |e2|`, as in `cast_ray_triangle`).
///
/// On a needle or sliver (angle at `a` with `sin^2 < 1e-2`) the normal is
/// computed at the vertex opposite the longest edge ([`face_normal`]): the
/// direction error of `e1 x e2` is `eps / sin`, and the face test multiplies
/// it by the centre's distance from the vertex (a triangle with `sin = 1e-4`
/// at `a`, 20 units long, put the face 2.8e-3 off).
#[inline]
fn unit_face_normal(tri: &Triangle) -> Option<(Vector, Point)> {
    let (n, o, _) = face_normal(tri)?;
    Some((n / n.norm(), o))
}

/// Step 1: the centre's ray against the plane offset by `r` towards the
/// centre's side, accepted only if the touching point is on the triangle.
/// `n` is the unit face normal computed at the vertex `o`.
#[inline]
fn face_hit(c: &Point, motion: &Vector, r: Real, tri: &Triangle, n: &Vector, o: &Point) -> Option<SweepHit> {
    let h = n.dot(&(c - o));
    if h.abs() <= r {
        return None; // starts within the slab beside the triangle: edges decide
    }
    let side = if h > 0.0 { *n } else { -n };
    let rate = side.dot(motion);
    if rate >= 0.0 {
        return None; // moving away from (or parallel to) the plane
    }
    let toi = (h.abs() - r) / -rate;
    if toi > 1.0 {
        return None;
    }
    let point = c + motion * toi - side * r;
    // Inclusive inside test: the point is left of (or on) each edge, seen
    // along the unnormalised face normal.
    let inside =
        [(tri.a, tri.b), (tri.b, tri.c), (tri.c, tri.a)].iter().all(|(a, b)| (b - a).cross(&(point - a)).dot(n) >= 0.0);
    inside.then(|| SweepHit::new(toi, point, UnitVector::new_unchecked(side)))
}
