//! Ray against sphere.

use super::ray::{Ray, RayHit};
use crate::math::{Real, UnitVector, Vector};
use crate::shape::Sphere;

/// The first `toi >= 0` at which `m + toi * d` lies in the solid ball of
/// radius `r` around the origin, where `m` is the ray origin relative to the
/// centre; `Some(0.0)` when `m` is already inside or on the ball. No upper
/// bound is applied: the caller compares with its own `max_toi`.
///
/// Solves `|m + t d|^2 = r^2`, i.e. `a t^2 + 2 b t + c = 0` with `a = d.d`,
/// `b = m.d`, `c = m.m - r^2`, in the numerically stable form:
/// - the discriminant `b^2 - a c` is computed as `a (r^2 - |q|^2)`, where
///   `q = m - (b / a) d` is the offset of the closest approach: no
///   catastrophic cancellation between `b^2` and `a c` for a far origin;
/// - the near root `(-b - sqrt(D)) / a` is computed as `c / (-b + sqrt(D))`
///   (both terms of the denominator are `>= 0` since `b < 0`), so it keeps
///   full relative precision when the origin is close to the surface
///   (Ericson, Real-Time Collision Detection, 5.3.2; Haines et al., "Precision
///   Improvements for Ray/Sphere Intersection", Ray Tracing Gems, ch. 7).
///
/// A direction with `d.d < f32::MIN_POSITIVE` (zero, or so short that its
/// square underflows) only reports the inside case.
#[inline]
pub(crate) fn ray_sphere_toi(m: &Vector, d: &Vector, r: Real) -> Option<Real> {
    let r2 = r * r;
    let c = m.norm_squared() - r2;
    if c <= 0.0 {
        return Some(0.0); // origin inside or on the sphere
    }
    let b = m.dot(d);
    if b >= 0.0 {
        return None; // outside and moving away (or not moving)
    }
    let a = d.norm_squared();
    if a < Real::MIN_POSITIVE {
        return None; // direction underflows: the origin never moves
    }
    let q = m - d * (b / a);
    let disc = r2 - q.norm_squared();
    if disc < 0.0 {
        return None; // the line passes farther than r from the centre
    }
    Some(c / ((a * disc).sqrt() - b))
}

/// First hit of a ray on a solid sphere.
///
/// Returns the entry `toi` and the outward unit normal `(p - centre) / r` at
/// the hit point `p`. Degenerate cases:
/// - origin inside or on the sphere: `toi = 0`, normal `-dir / |dir|`;
/// - tangent ray (the line touches the sphere at one point): a hit;
/// - zero radius: the sphere is a point, hit only by a ray through it
///   exactly, with normal `-dir / |dir|`;
/// - `max_toi = 0`: hits only when the origin is inside.
///
/// ```
/// use proxima_narrowphase::{cast_ray_sphere, Point, Ray, Sphere, Vector};
/// let s = Sphere::new(Point::new(5.0, 0.0, 0.0), 1.0);
/// let hit = cast_ray_sphere(&Ray::new(Point::origin(), Vector::x(), 10.0), &s).unwrap();
/// assert_eq!(hit.toi, 4.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::x());
/// ```
#[inline]
#[must_use]
pub fn cast_ray_sphere(ray: &Ray, sphere: &Sphere) -> Option<RayHit> {
    let m = ray.origin() - sphere.center();
    let toi = ray_sphere_toi(&m, ray.dir(), sphere.radius())?;
    if toi > ray.max_toi() {
        return None;
    }
    if toi == 0.0 {
        return Some(RayHit { toi, normal: ray.back_normal() });
    }
    // The hit point relative to the centre; zero only for a zero radius.
    let normal = UnitVector::try_new(m + ray.dir() * toi, 0.0).unwrap_or_else(|| ray.back_normal());
    Some(RayHit { toi, normal })
}
