//! Swept sphere against capsule.

use super::ray_capsule::ray_capsule_toi_wide;
use super::ray_sphere::{unit_f64, wide_sub};
use super::sweep::{is_moving, motion_is_finite, normal_or_against_motion, SweepHit};
use crate::math::{Point, Real, Vector};
use crate::shape::{Capsule, Sphere};
use nalgebra::Vector3;

/// First contact of a sphere moving by `motion` with a static capsule.
///
/// A sphere of radius `r` touches a capsule of radius `rc` around `[a, b]`
/// when its centre is `r + rc` from the segment, so the sweep is the centre's
/// ray `c + toi * motion`, `toi` in `[0, 1]`, against the capsule of radius
/// `r + rc` (the ray-capsule kernel of
/// [`cast_ray_capsule`](crate::cast_ray_capsule): cylinder, then the cap
/// ball on the side of the entry; Ericson, Real-Time Collision Detection,
/// 5.3.7 and 5.5.7), solved in f64 relative to the segment's start, so `toi`
/// is exact to the f32 rounding of its value for any size, offset and
/// motion length.
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
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_capsule, Capsule, Point, Sphere, Vector};
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
    // In f64, relative to `a`: the differences of nearby large coordinates
    // are exact and the quadratic's cancelling terms keep ~1e-16 of them, so
    // the contact is exact to far below a short motion at any size or
    // offset (in f32 both cost `~eps |c - a|`, 1e-3 at 1e4).
    let a = capsule.a().coords;
    let m = wide_sub(&sphere.center().coords, &a);
    let ab = wide_sub(&capsule.b().coords, &a);
    let d = if is_moving(motion) { motion.cast::<f64>() } else { Vector3::zeros() };
    let r = f64::from(sphere.radius()) + f64::from(capsule.radius());
    let (toi, n) = ray_capsule_toi_wide(&m, &d, &ab, r)?;
    if toi > 1.0 {
        return None;
    }
    // The centre at `toi` minus its closest segment point; at a start in
    // contact the kernel gives no direction, so take it from the start.
    let centre = m + d * toi;
    let n = if toi == 0.0 { centre - closest_on_segment(&centre, &ab) } else { n };
    let normal = unit_f64(&n).unwrap_or_else(|| normal_or_against_motion(&Vector::zeros(), motion));
    // `n` is the centre minus its closest segment point `s`: the contact is
    // `s + rc normal`.
    let point = centre - n + normal.into_inner().cast::<f64>() * f64::from(capsule.radius());
    Some(SweepHit::new(toi as Real, Point::from((point + a.cast::<f64>()).cast::<Real>()), normal))
}

/// The point of the segment `[0, ab]` closest to `p`, in f64.
fn closest_on_segment(p: &Vector3<f64>, ab: &Vector3<f64>) -> Vector3<f64> {
    let ll = ab.norm_squared();
    if ll == 0.0 {
        return Vector3::zeros();
    }
    ab * (p.dot(ab) / ll).clamp(0.0, 1.0)
}
