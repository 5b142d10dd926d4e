//! Swept sphere against capsule.

use super::ray_capsule::ray_capsule_toi;
use super::sweep::{motion_is_finite, normal_or_against_motion, SweepHit};
use crate::closest::closest_point_segment;
use crate::math::Vector;
use crate::shape::{Capsule, Sphere};

/// First contact of a sphere moving by `motion` with a static capsule.
///
/// A sphere of radius `r` touches a capsule of radius `rc` around `[a, b]`
/// when its centre is `r + rc` from the segment, so the sweep is the centre's
/// ray `c + toi * motion`, `toi` in `[0, 1]`, against the capsule of radius
/// `r + rc` (the ray-capsule kernel of
/// [`cast_ray_capsule`](crate::cast_ray_capsule): cylinder, then the cap
/// ball on the side of the entry; Ericson, Real-Time Collision Detection,
/// 5.3.7 and 5.5.7).
///
/// At the contact, with `s` the segment point closest to the centre, the
/// normal is `(centre - s) / |centre - s|` and the point `s + rc * normal`.
/// Degenerate cases: overlapping or touching at the start is
/// [`Penetrating`](crate::SweepStatus::Penetrating) with the same normal and
/// point taken at `toi = 0` (a centre exactly on the segment uses the
/// direction against the motion, or `+z` without motion); zero motion is
/// the static overlap test; a zero-length segment is a sphere; zero radii
/// make it a ray cast against a segment.
///
/// ```
/// use proxima_narrowphase::{cast_sphere_capsule, Capsule, Point, Sphere, Vector};
/// let c = Capsule::new(Point::new(5.0, -1.0, 0.0), Point::new(5.0, 1.0, 0.0), 0.5);
/// let s = Sphere::new(Point::origin(), 0.5);
/// let hit = cast_sphere_capsule(&s, &Vector::new(8.0, 0.0, 0.0), &c).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::new(4.5, 0.0, 0.0));
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_capsule(sphere: &Sphere, motion: &Vector, capsule: &Capsule) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let (a, b) = (capsule.a(), capsule.b());
    let (toi, _) =
        ray_capsule_toi(&sphere.center().coords, motion, &a.coords, &b.coords, sphere.radius() + capsule.radius())?;
    if toi > 1.0 {
        return None;
    }
    let centre = sphere.center() + motion * toi;
    let s = closest_point_segment(&centre, a, b);
    let normal = normal_or_against_motion(&(centre - s), motion);
    Some(SweepHit::new(toi, s + normal.into_inner() * capsule.radius(), normal))
}
