//! Ray against sphere.

use super::ray::{Ray, RayHit};
use crate::math::{normalize_any, Real, UnitVector, Vector};
use crate::shape::Sphere;

/// The first `toi >= 0` at which `m + toi * d` lies in the solid ball of
/// radius `r` around the origin, where `m` is the ray origin relative to the
/// centre; `Some(0.0)` when `m` is already inside or on the ball. No upper
/// bound is applied: the caller compares with its own `max_toi`.
///
/// Solves `|m + t d|^2 = r^2`, i.e. `a t^2 + 2 b t + c = 0` with `a = d.d`,
/// `b = m.d`, `c = m.m - r^2`, in the numerically stable form (Haines et
/// al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing
/// Gems, ch. 7; Ericson, Real-Time Collision Detection, 5.3.2):
/// - the discriminant `D = b^2 - a c` is computed as `a r^2 - |m x d|^2`
///   (Lagrange's identity `|m|^2 |d|^2 - (m.d)^2 = |m x d|^2`): no
///   catastrophic cancellation between `b^2` and `a c` for a far origin;
/// - the near root `(-b - sqrt(D)) / a` is computed as `c / (sqrt(D) - b)`
///   (both terms of the denominator are `>= 0` since `b < 0`), so it keeps
///   full relative precision when the origin is close to the surface.
///
/// A zero direction only reports the inside case.
#[inline]
pub(crate) fn ray_sphere_toi(m: &Vector, d: &Vector, r: Real) -> Option<Real> {
    let r2 = r * r;
    let c = m.norm_squared() - r2;
    if c <= 0.0 {
        return Some(0.0); // origin inside or on the sphere
    }
    let b = m.dot(d);
    let disc = d.norm_squared() * r2 - m.cross(d).norm_squared();
    if b >= 0.0 || disc < 0.0 {
        return None; // moving away (or not moving), or the line passes farther than r
    }
    Some(c / (disc.sqrt() - b))
}

/// `v / r`, made unit: `v` is a hit point relative to a sphere's centre, so
/// `|v| = r` up to rounding (`~eps |origin - centre| / r` relative) and one
/// Newton step of `1 / sqrt(x)` at `x = |v / r|^2` leaves an error of order
/// that squared, below `f32` rounding. Returns `None` when `|v / r|^2` is
/// not within `1e-4` of 1 (a far origin relative to `r`, or `r = 0`): the
/// caller then normalises exactly.
#[inline]
pub(crate) fn unit_by_radius(v: &Vector, inv_r: Real) -> (Vector, bool) {
    let n = v * inv_r;
    let l2 = n.norm_squared();
    (n * (1.5 - 0.5 * l2), (l2 - 1.0).abs() <= 1e-4)
}

/// First hit of a ray on a solid sphere.
///
/// Returns the entry `toi` and the outward unit normal `(p - centre) / r` at
/// the hit point `p`. The root is the stable one of `ray_sphere_toi` (see
/// there: Lagrange-identity discriminant, `c / (sqrt(D) - b)`). The kernel is
/// branch-free from the discriminant on: `toi`, the normal and the hit flag
/// are all computed and the answer is selected at the end, since on random
/// rays a hit/miss branch is mispredicted about half the time.
///
/// Degenerate cases:
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
    let d = ray.dir();
    let m = ray.origin() - sphere.center();
    let r = sphere.radius();
    let r2 = r * r;
    let c = m.norm_squared() - r2;
    if c <= 0.0 {
        return Some(RayHit { toi: 0.0, normal: ray.back_normal() }); // inside or on
    }
    let b = m.dot(d);
    let disc = d.norm_squared() * r2 - m.cross(d).norm_squared();
    let den = disc.max(0.0).sqrt() - b;
    // Hit: approaching (b < 0), the line meets the sphere (D >= 0), and
    // toi = c / den <= max_toi, tested without the division.
    let hit = (b < 0.0) & (disc >= 0.0) & (c <= ray.max_toi() * den);
    let toi = c / den;
    let p = m + d * toi;
    let (n, unit) = unit_by_radius(&p, 1.0 / r);
    if hit & !unit {
        // A zero-radius sphere is a point: `p` is only the rounding residue
        // of `m + d toi`, whose direction means nothing (B15); the documented
        // normal is `-dir / |dir|`.
        let normal = if r > 0.0 { normalize_any(&p) } else { None };
        return Some(RayHit { toi, normal: normal.unwrap_or_else(|| ray.back_normal()) });
    }
    let h = RayHit { toi, normal: UnitVector::new_unchecked(n) };
    if hit {
        Some(h)
    } else {
        None
    }
}
