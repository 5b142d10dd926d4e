//! Swept sphere against sphere.

use super::ray_sphere::{
    ray_sphere_toi_f64, sphere_quadratic_in_f32_range, unit_by_radius, unit_f64, wide_sub, zero_motion_in_range,
};
use super::sweep::{motion_is_finite, normal_or_against_motion, SweepHit};
use crate::math::Vector;
use crate::math::{Real, UnitVector};
use crate::shape::Sphere;

/// First contact of a sphere moving by `motion` with a static sphere.
///
/// Two spheres touch when their centres are `r1 + r2` apart, so the sweep is
/// the ray `c1 + toi * motion` against the sphere of radius `r1 + r2` around
/// `c2`, solved with the stable quadratic of
/// [`cast_ray_sphere`](crate::cast_ray_sphere) on `toi` in `[0, 1]` (Ericson,
/// Real-Time Collision Detection, 5.5.5), branch-free past the start test.
///
/// The normal is `(c1(toi) - c2) / |...|` and the point `c2 + r2 * normal`.
/// Degenerate cases: overlapping or touching at the start gives
/// [`Penetrating`](crate::SweepStatus::Penetrating) at `toi = 0`, with the
/// normal from `c2` to `c1` (against the motion, or `+z` without motion,
/// when the centres coincide); zero motion is the static overlap test; zero
/// radii make it a ray cast against a sphere (or a point); a tangent graze
/// hits. See [the sweep conventions](crate::cast::SweepHit).
///
/// ```
/// use proxima_narrowphase::{cast_sphere_sphere, Point, Sphere, SweepStatus, Vector};
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
    let m = moving.center() - target.center();
    let r = moving.radius() + target.radius();
    let r2 = r * r;
    let mm = m.norm_squared();
    let c = mm - r2;
    if c <= 0.0 {
        return Some(start_contact(&m, motion, target));
    }
    let dd = motion.norm_squared();
    if !(sphere_quadratic_in_f32_range(dd, mm + r2) | zero_motion_in_range(dd, mm + r2)) {
        return sweep_f64(moving, motion, target);
    }
    // The stable root of `ray_sphere_toi`, computed branch-free and selected
    // at the end (see `cast_ray_sphere`); toi <= 1 is `c <= den`.
    let b = m.dot(motion);
    let disc = dd * r2 - m.cross(motion).norm_squared();
    let den = disc.max(0.0).sqrt() - b;
    let hit = (b < 0.0) & (disc >= 0.0) & (c <= den);
    let toi = c / den;
    let rel = m + motion * toi;
    let (n, unit) = unit_by_radius(&rel, 1.0 / r);
    let normal = if hit & !unit { exact_normal(&rel, motion) } else { UnitVector::new_unchecked(n) };
    let h = SweepHit::new(toi, target.center() + normal.into_inner() * target.radius(), normal);
    if hit {
        Some(h)
    } else {
        None
    }
}

/// The Penetrating answer for spheres overlapping or touching at the start,
/// `m` = moving centre - target centre. Out of line: rare, and keeping it out
/// lets the hot path inline.
#[cold]
#[inline(never)]
fn start_contact(m: &Vector, motion: &Vector, target: &Sphere) -> SweepHit {
    let normal = normal_or_against_motion(m, motion);
    SweepHit::new(0.0, target.center() + normal.into_inner() * target.radius(), normal)
}

/// [`cast_sphere_sphere`] in f64 for a motion, position or radius outside
/// [`quadratic_in_f32_range`] (B10: a motion of 1e20 gave a NaN toi with
/// status `Hit`): the root of the same quadratic, rounded once to f32.
#[cold]
#[inline(never)]
fn sweep_f64(moving: &Sphere, motion: &Vector, target: &Sphere) -> Option<SweepHit> {
    let m = wide_sub(&moving.center().coords, &target.center().coords);
    let d = motion.cast::<f64>();
    let toi = ray_sphere_toi_f64(&m, &d, f64::from(moving.radius()) + f64::from(target.radius()))?;
    if toi > 1.0 {
        return None;
    }
    let normal = unit_f64(&(m + d * toi)).unwrap_or_else(|| normal_or_against_motion(&Vector::zeros(), motion));
    Some(SweepHit::new(toi as Real, target.center() + normal.into_inner() * target.radius(), normal))
}

/// The exactly normalised contact normal, for the rare hit whose offset is
/// too far from unit after scaling by `1 / r` (see `unit_by_radius`).
#[cold]
#[inline(never)]
fn exact_normal(rel: &Vector, motion: &Vector) -> UnitVector {
    normal_or_against_motion(rel, motion)
}

/// First contact of two moving spheres: `a` moves by `motion_a` and `b` by
/// `motion_b` over the same `toi` in `[0, 1]`.
///
/// Seen from `b`, `a` moves by `motion_a - motion_b`, which reduces the
/// query to [`cast_sphere_sphere`]; the contact point, found in `b`'s
/// frame, is then moved with `b` to time `toi`:
/// `point = point_rel + toi * motion_b`. The normal points out of `b`
/// towards `a`. Equal motions are the static overlap test.
///
/// ```
/// use proxima_narrowphase::{cast_sphere_sphere_moving, Point, Sphere, Vector};
/// let a = Sphere::new(Point::origin(), 1.0);
/// let b = Sphere::new(Point::new(10.0, 0.0, 0.0), 1.0);
/// let hit = cast_sphere_sphere_moving(&a, &Vector::new(8.0, 0.0, 0.0), &b, &Vector::new(-8.0, 0.0, 0.0)).unwrap();
/// assert_eq!(hit.toi, 0.5);
/// assert_eq!(hit.point, Point::new(5.0, 0.0, 0.0));
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_sphere_moving(a: &Sphere, motion_a: &Vector, b: &Sphere, motion_b: &Vector) -> Option<SweepHit> {
    let relative = motion_a - motion_b;
    let hit = cast_sphere_sphere(a, &relative, b)?;
    Some(SweepHit { point: hit.point + motion_b * hit.toi, ..hit })
}
