//! Ray against sphere.

use super::ray::{Ray, RayHit};
use crate::math::{normalize_any, Real, UnitVector, Vector};
use crate::shape::Sphere;
use nalgebra::Vector3;

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

/// True when the f32 quadratics of a ray or sweep with direction `d`
/// (`dd = |d|^2`) against a sphere or capsule of squared size `size2`
/// (`|o - a|^2 + |b - a|^2 + r^2`, positions relative to the shape) stay in
/// the f32 range: every square, product and cross-product term of the kernels
/// is below `size2 dd <= 1e36` or `2 size2 <= 2e37`, and `dd` is not
/// subnormal (a ray with `|d| < 1e-15` or positions and radii beyond ~3e18
/// lose the root). Outside, the kernels solve the same quadratic in
/// f64, where the squares of any f32 values are in range (`1e-90` to `1e77`).
/// A zero `dd` is also accepted by the sweeps (see [`zero_motion_in_range`]).
#[inline]
pub(crate) fn quadratic_in_f32_range(dd: Real, size2: Real) -> bool {
    (size2 <= 1e37) & sphere_quadratic_in_f32_range(dd, size2)
}

/// [`quadratic_in_f32_range`] for a sphere (`size2 = |m|^2 + r^2`), whose
/// kernel has no term above `size2 dd` or `size2`: `size2 dd <= 1e36` and
/// `dd >= 1e-30` (an infinite or NaN `size2 dd` fails the first).
#[inline]
pub(crate) fn sphere_quadratic_in_f32_range(dd: Real, size2: Real) -> bool {
    (size2 * dd <= 1e36) & (dd >= 1e-30)
}

/// A zero (or underflowing) motion of a sweep, which the f32 kernels answer
/// exactly as the static test (`|motion|^2` below `f32::MIN_POSITIVE` is no
/// motion, see `cast::sweep`); only a ray's `dd = 0` means a lost direction.
#[inline]
pub(crate) fn zero_motion_in_range(dd: Real, size2: Real) -> bool {
    (dd == 0.0) & (size2 <= 1e37)
}

/// [`ray_sphere_toi`] in f64, for inputs outside
/// [`quadratic_in_f32_range`].
pub(crate) fn ray_sphere_toi_f64(m: &Vector3<f64>, d: &Vector3<f64>, r: f64) -> Option<f64> {
    let r2 = r * r;
    let c = m.norm_squared() - r2;
    if c <= 0.0 {
        return Some(0.0);
    }
    let b = m.dot(d);
    let disc = d.norm_squared() * r2 - m.cross(d).norm_squared();
    if b >= 0.0 || disc < 0.0 {
        return None;
    }
    Some(c / (disc.sqrt() - b))
}

/// `v / |v|` for an f64 vector, as an f32 unit vector (`None` for zero).
pub(crate) fn unit_f64(v: &Vector3<f64>) -> Option<UnitVector> {
    let n = v.norm();
    if n > 0.0 && n.is_finite() {
        normalize_any(&(v / n).cast::<Real>())
    } else {
        None
    }
}

/// The widened `b - a` of two f32 points (exact in f64).
#[inline]
pub(crate) fn wide_sub(b: &Vector, a: &Vector) -> Vector3<f64> {
    b.cast::<f64>() - a.cast::<f64>()
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

/// The distance from the centre, in radii, beyond which
/// [`cast_ray_sphere`] computes a hit's normal in f64: below it, the f32
/// normal's error `~eps |m| / r` stays under `1e-5`.
const FAR_HIT: Real = 8.0;

/// First hit of a ray on a solid sphere.
///
/// Returns the entry `toi` and the outward unit normal `(p - centre) / r` at
/// the hit point `p`. The root is the stable one of `ray_sphere_toi` (see
/// there: Lagrange-identity discriminant, `c / (sqrt(D) - b)`). A hit from
/// an origin more than 8 radii from the centre is recomputed in f64, where
/// `p - centre` does not cancel: the normal stays within `1e-5` of the exact
/// one from any distance. The kernel is
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
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_sphere, Point, Ray, Sphere, Vector};
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
    let mm = m.norm_squared();
    let c = mm - r2;
    if c <= 0.0 {
        return Some(RayHit { toi: 0.0, normal: ray.back_normal() }); // inside or on
    }
    let dd = d.norm_squared();
    // Checked here, branched on at the end: the f32 steps below are harmless
    // (at worst NaN) outside the range, and stay branch-free.
    let in_range = sphere_quadratic_in_f32_range(dd, mm + r2);
    let b = m.dot(d);
    let disc = dd * r2 - m.cross(d).norm_squared();
    let den = disc.max(0.0).sqrt() - b;
    // Hit: approaching (b < 0), the line meets the sphere (D >= 0), and
    // toi = c / den <= max_toi, tested without the division.
    let hit = (b < 0.0) & (disc >= 0.0) & (c <= ray.max_toi() * den);
    let toi = c / den;
    let p = m + d * toi;
    let (n, unit) = unit_by_radius(&p, 1.0 / r);
    // A hit from farther than `FAR_HIT` radii: `p` is the small difference
    // of `m` and `d toi`, both ~|m|, so its error `~eps |m|` (in `m` itself
    // and in the cancellation) tilts the normal by `~eps |m| / r`; in f64
    // (out of line) it is exact to rounding.
    let far = mm > (FAR_HIT * FAR_HIT) * r2;
    if !in_range | (hit & far) {
        return cast_ray_sphere_f64(ray, sphere);
    }
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

/// [`cast_ray_sphere`] in f64 for a direction, position or radius outside
/// [`quadratic_in_f32_range`]: the root of the same quadratic, rounded
/// once to f32.
#[cold]
#[inline(never)]
fn cast_ray_sphere_f64(ray: &Ray, sphere: &Sphere) -> Option<RayHit> {
    let m = wide_sub(&ray.origin().coords, &sphere.center().coords);
    let d = ray.dir().cast::<f64>();
    let r = f64::from(sphere.radius());
    let toi = ray_sphere_toi_f64(&m, &d, r)?;
    if toi > f64::from(ray.max_toi()) {
        return None;
    }
    // `m + d toi` carries the f64 rounding of `|m|` (~1e-16 |m|): a radius
    // below 1e-12 |m| is a point at that resolution (its residue's direction
    // means nothing, B24), and takes the zero-radius normal `-dir / |dir|`.
    let resolved = r > 1e-12 * m.norm();
    let normal = if toi > 0.0 && resolved { unit_f64(&(m + d * toi)) } else { None };
    Some(RayHit { toi: (toi as Real).min(ray.max_toi()), normal: normal.unwrap_or_else(|| ray.back_normal()) })
}
