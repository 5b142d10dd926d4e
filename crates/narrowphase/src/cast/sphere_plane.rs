//! Swept sphere against plane.

use super::sweep::{motion_is_finite, SweepHit};
use crate::math::Vector;
use crate::shape::{Plane, Sphere};

/// First contact of a sphere moving by `motion` with a static plane, from
/// either side (the plane is a two-sided surface, as in
/// [`cast_ray_plane`](crate::cast_ray_plane), not a half-space).
///
/// With the signed height of the centre `h = n.c - offset` and the side
/// normal `s = sign(h) n`, the sphere touches the plane when `|h(toi)| = r`:
/// `toi = (|h| - r) / -(s.motion)` when it moves towards the plane (Ericson,
/// Real-Time Collision Detection, 5.5.3). The normal is `s` (out of the
/// plane towards the sphere) and the point the centre's projection,
/// `c(toi) - r s`.
///
/// Degenerate cases: `|h| <= r` at the start is
/// [`Penetrating`](crate::SweepStatus::Penetrating) with the projection of
/// the centre as the point and `s` as the normal (a centre exactly on the
/// plane takes the side facing against the motion, or `+n` without motion);
/// zero motion is the static overlap test; motion parallel to the plane or
/// away from it misses; a zero radius is [`cast_ray_plane`](crate::cast_ray_plane).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_plane, Plane, Point, Sphere, Vector};
/// let ground = Plane::try_new(Point::origin(), Vector::z()).unwrap();
/// let s = Sphere::new(Point::new(0.0, 0.0, 5.0), 1.0);
/// let hit = cast_sphere_plane(&s, &Vector::new(0.0, 0.0, -8.0), &ground).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::origin());
/// assert_eq!(hit.normal.into_inner(), Vector::z());
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_plane(sphere: &Sphere, motion: &Vector, plane: &Plane) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let n = plane.normal();
    let c = sphere.center();
    let r = sphere.radius();
    let h = plane.signed_distance(c);
    let rate = n.dot(motion);
    // The side of the centre; on the plane, the side the motion comes from.
    let side = if h > 0.0 || (h == 0.0 && rate <= 0.0) { *n } else { -*n };
    if h.abs() <= r {
        return Some(SweepHit::new(0.0, c - side.into_inner() * h.abs(), side));
    }
    let approach = -side.dot(motion); // > 0 when moving towards the plane
    if approach <= 0.0 {
        return None;
    }
    let toi = (h.abs() - r) / approach;
    if toi > 1.0 {
        return None;
    }
    Some(SweepHit::new(toi, c + motion * toi - side.into_inner() * r, side))
}
