//! Ray against capsule.

use super::ray::{Ray, RayHit};
use super::ray_sphere::{
    quadratic_in_f32_range, ray_sphere_toi, ray_sphere_toi_f64, unit_f64, wide_sub, zero_motion_in_range,
};
use crate::math::{normalize_any, Real, Vector};
use crate::shape::Capsule;
use nalgebra::Vector3;

/// The first `toi >= 0` at which `o + toi * d` lies in the solid capsule of
/// radius `r` around the segment `[a, b]` (all positions as vectors in one
/// frame), with the unnormalised outward normal there: the hit point minus
/// its closest point on the segment. Inside or on the capsule at `toi = 0`:
/// `Some((0.0, zero))`. No upper bound on `toi` is applied.
///
/// Method (Ericson, Real-Time Collision Detection, 5.3.7, with the caps as
/// spheres): the capsule is the infinite cylinder of radius `r` around the
/// axis, cut at the planes through `a` and `b`, plus the balls at `a` and
/// `b`. Remove the axial components (`m_perp`, `d_perp`) and solve
/// `|m_perp + t d_perp|^2 = r^2` with the stable quadratic of
/// [`ray_sphere_toi`]. If the cylinder entry lies between the planes, it is
/// the answer. Otherwise the ray enters the cylinder beyond `a` (or `b`); the
/// part of the capsule there is the ball at `a` (or `b`), and a ray that
/// stays in the cylinder until the plane through `a` is inside that ball
/// when it reaches it, so the first hit is the first hit on that ball (or
/// none). A ray parallel to the axis and outside the cylinder misses; a
/// zero-length segment is a sphere.
#[inline]
pub(crate) fn ray_capsule_toi(o: &Vector, d: &Vector, a: &Vector, b: &Vector, r: Real) -> Option<(Real, Vector)> {
    let ab = b - a;
    let m = o - a;
    let ll = ab.norm_squared();
    let r2 = r * r;
    let (dd, size2) = (d.norm_squared(), m.norm_squared() + ll + r2);
    let zero_motion = || zero_motion_in_range(dd, size2) && *d == Vector::zeros();
    if !(quadratic_in_f32_range(dd, size2) || zero_motion()) {
        return ray_capsule_toi_f64(o, d, a, b, r);
    }
    if ll < Real::MIN_POSITIVE {
        let toi = ray_sphere_toi(&m, d, r)?;
        let n = if toi == 0.0 { Vector::zeros() } else { m + d * toi };
        return Some((toi, n));
    }
    let md = m.dot(&ab);
    // Inside or on the capsule: distance to the clamped projection <= r.
    let s = (md / ll).clamp(0.0, 1.0);
    if (m - ab * s).norm_squared() <= r2 {
        return Some((0.0, Vector::zeros()));
    }
    let dd = d.dot(&ab);
    let m_perp = m - ab * (md / ll);
    let d_perp = d - ab * (dd / ll);
    let c = m_perp.norm_squared() - r2;
    let t_cyl = if c <= 0.0 {
        0.0 // inside the infinite cylinder, beyond an end: a cap decides
    } else {
        let bq = m_perp.dot(&d_perp);
        let aq = d_perp.norm_squared();
        if bq >= 0.0 || aq < Real::MIN_POSITIVE {
            return None; // moving away from the axis, or parallel to it outside
        }
        let q = m_perp - d_perp * (bq / aq);
        let disc = r2 - q.norm_squared();
        if disc < 0.0 {
            return None;
        }
        c / ((aq * disc).sqrt() - bq)
    };
    // Axial coordinate of the cylinder entry, as a fraction of [a, b].
    let y = (md + t_cyl * dd) / ll;
    if (0.0..=1.0).contains(&y) {
        return Some((t_cyl, m_perp + d_perp * t_cyl));
    }
    let cap = if y < 0.0 { m } else { o - b };
    let toi = ray_sphere_toi(&cap, d, r)?;
    Some((toi, cap + d * toi))
}

/// [`ray_capsule_toi`] in f64 (the same steps), for a direction, position or
/// radius outside [`quadratic_in_f32_range`] (where the f32 squares would overflow or lose the root): the toi is rounded
/// once to f32 and the normal returned unit.
#[cold]
#[inline(never)]
fn ray_capsule_toi_f64(o: &Vector, d: &Vector, a: &Vector, b: &Vector, r: Real) -> Option<(Real, Vector)> {
    let (toi, n) = ray_capsule_toi_wide(&wide_sub(o, a), &d.cast::<f64>(), &wide_sub(b, a), f64::from(r))?;
    Some((toi as Real, unit_f64(&n).map_or(Vector::zeros(), |u| u.into_inner())))
}

/// [`ray_capsule_toi`] in f64, with positions relative to the segment's
/// start `a`: the ray `m + toi * d` against the capsule of radius `r` around
/// `[0, ab]`. Returns the toi and the unnormalised outward normal (the hit
/// point minus its closest point on the segment; zero for a start inside or
/// on). The same steps as the f32 kernel; with f32 inputs taken exactly
/// (`m = o - a` and `ab` are exact differences in f64), every square and
/// product is in range and the root keeps ~1e-16 of the coordinates, so a
/// sweep's contact is exact to far below its motion's length whatever the
/// sizes (the f32 kernel loses `~eps |o - a|`).
pub(crate) fn ray_capsule_toi_wide(
    m: &Vector3<f64>,
    d: &Vector3<f64>,
    ab: &Vector3<f64>,
    r: f64,
) -> Option<(f64, Vector3<f64>)> {
    let ll = ab.norm_squared();
    if ll < f64::from(Real::MIN_POSITIVE) {
        let toi = ray_sphere_toi_f64(m, d, r)?;
        return Some(if toi == 0.0 { (0.0, Vector3::zeros()) } else { (toi, m + d * toi) });
    }
    let r2 = r * r;
    let md = m.dot(ab);
    let s = (md / ll).clamp(0.0, 1.0);
    if (m - ab * s).norm_squared() <= r2 {
        return Some((0.0, Vector3::zeros()));
    }
    let dd = d.dot(ab);
    let m_perp = m - ab * (md / ll);
    let d_perp = d - ab * (dd / ll);
    let c = m_perp.norm_squared() - r2;
    let t_cyl = if c <= 0.0 {
        0.0
    } else {
        let bq = m_perp.dot(&d_perp);
        let aq = d_perp.norm_squared();
        if bq >= 0.0 || aq < f64::MIN_POSITIVE {
            return None;
        }
        let q = m_perp - d_perp * (bq / aq);
        let disc = r2 - q.norm_squared();
        if disc < 0.0 {
            return None;
        }
        c / ((aq * disc).sqrt() - bq)
    };
    let y = (md + t_cyl * dd) / ll;
    if (0.0..=1.0).contains(&y) {
        return Some((t_cyl, m_perp + d_perp * t_cyl));
    }
    let cap = if y < 0.0 { *m } else { m - ab };
    let toi = ray_sphere_toi_f64(&cap, d, r)?;
    Some((toi, cap + d * toi))
}

/// First hit of a ray on a solid capsule.
///
/// Returns the entry `toi` and the outward unit normal: from the hit point's
/// closest point on the core segment to the hit point. Degenerate cases: the
/// origin inside or on the capsule gives `toi = 0` with normal
/// `-dir / |dir|`; a zero-length segment is a sphere; a zero radius is a
/// segment, hit only by a ray through it exactly (normal `-dir / |dir|`); a
/// ray parallel to the axis can only hit a cap; a tangent ray hits.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_capsule, Capsule, Point, Ray, Vector};
/// let c = Capsule::new(Point::new(5.0, -1.0, 0.0), Point::new(5.0, 1.0, 0.0), 0.5);
/// let hit = cast_ray_capsule(&Ray::new(Point::origin(), Vector::x(), 10.0), &c).unwrap();
/// assert_eq!(hit.toi, 4.5);
/// assert_eq!(hit.normal.into_inner(), -Vector::x());
/// ```
#[inline]
#[must_use]
pub fn cast_ray_capsule(ray: &Ray, capsule: &Capsule) -> Option<RayHit> {
    let (toi, n) =
        ray_capsule_toi(&ray.origin().coords, ray.dir(), &capsule.a().coords, &capsule.b().coords, capsule.radius())?;
    if toi > ray.max_toi() {
        return None;
    }
    // `n` (hit point minus its closest axis point, `|n| = r`) is a
    // difference of positions of size `|o - a| + |b - a|` (taken as the
    // largest components, which cannot overflow), computed in f64
    // (rounding ~1e-16 of that) when the quadratic leaves f32's range, in
    // f32 otherwise. A radius below 1e-12 of that size (a zero radius
    // included) is a segment at that resolution: `n` is only the rounding
    // residue of the hit, whose direction means nothing (B15, B27); the
    // documented normal is `-dir / |dir|`. In f32, a radius below
    // 1e-5 of that size (where f32 rounding, ~1e-7 of it, would tilt the
    // normal by more than 1e-2) is recomputed in f64.
    let r = capsule.radius();
    let (o, a, b) = (&ray.origin().coords, &capsule.a().coords, &capsule.b().coords);
    let size = (o - a).amax() + (b - a).amax();
    let normal = if toi == 0.0 || r <= 1e-12 * size {
        None
    } else if r < 1e-5 * size {
        ray_capsule_toi_f64(o, ray.dir(), a, b, r).and_then(|(_, n)| normalize_any(&n))
    } else {
        normalize_any(&n)
    };
    Some(RayHit { toi, normal: normal.unwrap_or_else(|| ray.back_normal()) })
}
