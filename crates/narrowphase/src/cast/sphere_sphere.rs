//! Swept sphere against sphere.

use super::ray_sphere::{unit_f64, wide_sub};
use super::sweep::{motion_is_finite, normal_or_against_motion, SweepHit};
use crate::math::{Real, UnitVector, Vector};
use crate::shape::Sphere;
use nalgebra::Vector3;

/// First contact of a sphere moving by `motion` with a static sphere.
///
/// Two spheres touch when their centres are `r1 + r2` apart, so the sweep is
/// the ray `c1 + toi * motion` against the sphere of radius `r1 + r2` around
/// `c2`, solved with the stable quadratic of
/// [`cast_ray_sphere`](crate::cast_ray_sphere) on `toi` in `[0, 1]` (Ericson,
/// Real-Time Collision Detection, 5.5.5), branch-free past the start test,
/// in f64 (see `sweep_spheres`): `toi` is exact to its f32 rounding for any
/// radius, offset and motion length.
///
/// The normal is `(c1(toi) - c2) / |...|` and the point `c2 + r2 * normal`.
/// Degenerate cases: overlapping or touching at the start gives
/// [`Penetrating`](crate::SweepStatus::Penetrating) at `toi = 0`, with the
/// normal from `c2` to `c1` (against the motion, or `+z` without motion,
/// when the centres coincide); zero motion is the static overlap test; zero
/// radii make it a ray cast against a sphere (or a point); a tangent graze
/// hits. See [the sweep conventions](crate::SweepHit).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_sphere, Point, Sphere, SweepStatus, Vector};
/// let a = Sphere::new(Point::origin(), 1.0);
/// let b = Sphere::new(Point::new(10.0, 0.0, 0.0), 1.0);
/// let hit = cast_sphere_sphere(&a, &Vector::new(16.0, 0.0, 0.0), &b).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::new(9.0, 0.0, 0.0));
/// assert_eq!(hit.status, SweepStatus::Hit);
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_sphere(moving: &Sphere, motion: &Vector, target: &Sphere) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let (toi, normal) = sweep_spheres(moving, &motion.cast::<f64>(), target)?;
    Some(SweepHit::new(toi, target.center() + normal.into_inner() * target.radius(), normal))
}

/// The toi and normal of [`cast_sphere_sphere`] for the relative motion `d`
/// (f64, so that [`cast_sphere_moving_sphere`] passes the exact difference
/// of its two motions).
///
/// In f64: `m = c1 - c2` is then exact, and the cancelling terms (`|m|^2 -
/// r^2` when the sphere starts near contact, the discriminant for a grazing
/// motion) keep ~1e-16 of the coordinates, so the contact is exact to far
/// below the motion's length for any radius, offset and motion (in f32
/// their error is `~eps (|m| + r)`: 1e-3 at radius 5000, a tenth of a 0.01
/// motion). Squares and products of f32 values are all in the f64 range,
/// so no range check is needed. One f64 square root, the cost of the f32
/// kernel's.
#[inline]
fn sweep_spheres(moving: &Sphere, d: &Vector3<f64>, target: &Sphere) -> Option<(Real, UnitVector)> {
    let m = wide_sub(&moving.center().coords, &target.center().coords);
    let r = f64::from(moving.radius()) + f64::from(target.radius());
    let r2 = r * r;
    let c = m.norm_squared() - r2;
    if c <= 0.0 {
        return Some((0.0, start_normal(&m, d)));
    }
    let dd = d.norm_squared();
    // The stable root of `ray_sphere_toi` (see `cast_ray_sphere`), computed
    // branch-free and selected at the end; toi <= 1 is `c <= den`. A motion
    // whose f32 square underflows is no motion (see `cast::sweep`).
    let b = m.dot(d);
    let disc = dd * r2 - m.cross(d).norm_squared();
    let den = disc.max(0.0).sqrt() - b;
    let hit = (b < 0.0) & (disc >= 0.0) & (c <= den) & (dd >= f64::from(Real::MIN_POSITIVE));
    let toi = c / den;
    // `|m + d toi| = r` up to the rounding of `m + d toi`, ~1e-16 |m|: then
    // dividing by `r` makes it unit.
    let n = (m + d * toi) / r;
    if !hit {
        return None;
    }
    if (n.norm_squared() - 1.0).abs() <= 1e-6 {
        Some((toi as Real, UnitVector::new_unchecked(n.cast::<Real>())))
    } else {
        Some((toi as Real, exact_normal(&(m + d * toi), r, d)))
    }
}

/// The normal at a hit whose offset `rel = m + d toi` is not within rounding
/// of unit after division by `r`: a start ~1e14 radii away (then `rel` is
/// normalised exactly), or `r = 0`, two points, where only a motion through
/// the target's centre hits and the geometry gives no direction (against
/// the motion).
#[cold]
#[inline(never)]
fn exact_normal(rel: &Vector3<f64>, r: f64, d: &Vector3<f64>) -> UnitVector {
    let unit = if r > 0.0 { unit_f64(rel) } else { None };
    unit.unwrap_or_else(|| normal_or_against_motion(&Vector::zeros(), &d.cast::<Real>()))
}

/// The normal of spheres overlapping or touching at the start,
/// `m` = moving centre - target centre. Out of line: rare, and keeping it out
/// lets the hot path inline.
#[cold]
#[inline(never)]
fn start_normal(m: &Vector3<f64>, d: &Vector3<f64>) -> UnitVector {
    unit_f64(m).unwrap_or_else(|| normal_or_against_motion(&Vector::zeros(), &d.cast::<Real>()))
}

/// First contact of two moving spheres: `a` moves by `motion_a` and `b` by
/// `motion_b` over the same `toi` in `[0, 1]`.
///
/// Seen from `b`, `a` moves by `motion_a - motion_b`, which reduces the
/// query to [`cast_sphere_sphere`]; the contact point, found in `b`'s
/// frame, is then moved with `b` to time `toi`:
/// `point = point_rel + toi * motion_b`. The normal points out of `b`
/// towards `a`. Equal motions are the static overlap test. Named like
/// every `cast_*`: the cast shape first, then the target, here a moving
/// sphere.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_moving_sphere, Point, Sphere, Vector};
/// let a = Sphere::new(Point::origin(), 1.0);
/// let b = Sphere::new(Point::new(10.0, 0.0, 0.0), 1.0);
/// let hit = cast_sphere_moving_sphere(&a, &Vector::new(8.0, 0.0, 0.0), &b, &Vector::new(-8.0, 0.0, 0.0)).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::new(5.0, 0.0, 0.0));
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_moving_sphere(a: &Sphere, motion_a: &Vector, b: &Sphere, motion_b: &Vector) -> Option<SweepHit> {
    if !(motion_is_finite(motion_a) && motion_is_finite(motion_b)) {
        return None;
    }
    // The relative motion, exact in f64: a short relative motion of two
    // long ones keeps its direction.
    let relative = wide_sub(motion_a, motion_b);
    let (toi, normal) = sweep_spheres(a, &relative, b)?;
    let point = b.center() + motion_b * toi + normal.into_inner() * b.radius();
    Some(SweepHit::new(toi, point, normal))
}

/// The former name of [`cast_sphere_moving_sphere`].
#[deprecated(since = "0.2.0", note = "renamed to `cast_sphere_moving_sphere`")]
#[inline]
#[must_use]
pub fn cast_sphere_sphere_moving(a: &Sphere, motion_a: &Vector, b: &Sphere, motion_b: &Vector) -> Option<SweepHit> {
    cast_sphere_moving_sphere(a, motion_a, b, motion_b)
}
