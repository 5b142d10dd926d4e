//! Manifolds of pairs with a sphere, and of two capsules: one point, or two
//! for parallel capsules.

use super::capsule_capsule::contact_capsule_capsule_in_place;
use super::manifold::{single, ContactManifold, ManifoldPoint};
use super::manifold_face::segment_beyond_triangle;
use super::sphere_capsule::contact_sphere_capsule_in_place;
use super::{contact_sphere_obb, contact_sphere_sphere, sphere_triangle, Contact};
use crate::closest::closest_point_segment;
use crate::distance::{
    distance_capsule_capsule_in_place, distance_sphere_capsule_in_place, distance_sphere_obb_in_place,
    distance_sphere_sphere, distance_sphere_triangle_in_place, ShapeDistance,
};
use crate::math::{normalize_any, Point, Real, UnitVector, Vector};
use crate::relative::about;
use crate::shape::{Capsule, Obb, Sphere, Triangle};

/// `contact`, or for shapes at most `prediction` apart their speculative
/// contact: the closest points of `distance`, `depth = -distance`, and the
/// normal `normal(&closest)` (from A to B). Shapes that the contact test
/// finds apart by less than its rounding can have a computed distance of 0
/// (or a hair below): they touch, at depth 0, and keep their contact.
///
/// The normal is not taken along `point_b - point_a`: for shapes a hair
/// apart those points nearly coincide, and their rounding (~1e-7 of the
/// coordinates) would turn it by ~1e-7 / gap. Each pair passes a direction
/// that is as well conditioned as the shapes allow: [`core_normal`] for
/// round shapes, the best separating axis for a box and a triangle.
pub(super) fn contact_within(
    contact: Option<Contact>,
    prediction: Real,
    distance: impl FnOnce() -> ShapeDistance,
    normal: impl FnOnce(&ShapeDistance) -> Option<UnitVector>,
) -> Option<Contact> {
    if contact.is_some() || prediction.is_nan() || prediction <= 0.0 {
        return contact;
    }
    let d = distance();
    if d.distance.is_nan() || d.distance > prediction {
        return None;
    }
    let normal = normal(&d)?;
    Some(Contact { point_a: d.point_a, point_b: d.point_b, normal, depth: -d.distance.max(0.0) })
}

/// [`contact_within`] after a contact test that reports the distance of a
/// pair it found apart (`Err(Some(d))`: the closest points it had found,
/// so the distance is not searched again; `Err(None)` leaves it to
/// `distance`). A pair farther apart than `prediction` returns at once.
pub(super) fn contact_within_found(
    found: Result<Contact, Option<ShapeDistance>>,
    prediction: Real,
    distance: impl FnOnce() -> ShapeDistance,
    normal: impl FnOnce(&ShapeDistance) -> Option<UnitVector>,
) -> Option<Contact> {
    match found {
        Ok(c) => Some(c),
        Err(Some(d)) if d.distance > prediction => None,
        Err(apart) => contact_within(None, prediction, || apart.unwrap_or_else(distance), normal),
    }
}

/// The speculative normal of a round shape A (core segment `[a0, a1]`, a
/// point when equal) and a shape B found apart: from A's core point closest
/// to `core_b` towards `core_b`, a point of B's core (B's witness point for
/// a box or triangle, its core point behind it for a round shape).
///
/// Conditioning: the two core points lie `r_a + r_b + gap` apart and each
/// carries a rounding of ~1e-7 of the coordinates, so the normal is turned
/// by ~1e-7 / (r_a + r_b + gap), bounded by the radii however small the gap
/// (the witness points themselves are only `gap` apart).
pub(super) fn core_normal(a0: &Point, a1: &Point, core_b: &Point) -> Option<UnitVector> {
    normalize_any(&(core_b - closest_point_segment(core_b, a0, a1)))
}

/// The one-point manifold of `contact_within` (id 0).
fn one_point(c: Option<Contact>) -> Option<ContactManifold> {
    c.map(|c| single(c.normal, c.point_a, c.point_b, c.depth, 0))
}

/// The manifold of two spheres within `prediction` (negative or NaN counts
/// as 0): the one point of [`contact_sphere_sphere`], or the speculative
/// point of [`distance_sphere_sphere`] (negative depth). Id 0.
#[must_use]
pub fn contact_manifold_sphere_sphere(a: &Sphere, b: &Sphere, prediction: Real) -> Option<ContactManifold> {
    let normal = |_: &ShapeDistance| core_normal(a.center(), a.center(), b.center());
    one_point(contact_within(contact_sphere_sphere(a, b), prediction, || distance_sphere_sphere(a, b), normal))
}

/// The manifold of a sphere and an oriented box within `prediction`: one
/// point, as [`contact_manifold_sphere_sphere`].
#[must_use]
pub fn contact_manifold_sphere_obb(a: &Sphere, b: &Obb, prediction: Real) -> Option<ContactManifold> {
    if sphere_obb_beyond(a, b, prediction.max(0.0)) {
        return None;
    }
    about(a, b, &a.center().coords, |a, b| sphere_obb_manifold(a, b, prediction))
}

/// [`contact_manifold_sphere_obb`] with the sphere's centre at the origin (see the
/// `relative` module).
#[inline(always)]
fn sphere_obb_manifold(a: &Sphere, b: &Obb, prediction: Real) -> Option<ContactManifold> {
    let normal = |d: &ShapeDistance| core_normal(a.center(), a.center(), &d.point_b);
    one_point(contact_within(contact_sphere_obb(a, b), prediction, || distance_sphere_obb_in_place(a, b), normal))
}

/// True when the sphere's centre lies farther than `r + prediction` from
/// the box by more than `tol = 1e-5` of the coordinates' and sizes'
/// magnitudes: the pair has no contact and no speculative point, and the
/// contact test and the distance (which would both run and find it apart)
/// are spared. The distance here is taken in the box frame (the centre
/// clamped to the box), that of
/// [`distance_sphere_obb`](crate::distance_sphere_obb) about the sphere's
/// centre; the two differ by the rounding of the frame changes, a few `eps`
/// of those magnitudes, far inside `tol`.
#[inline]
fn sphere_obb_beyond(a: &Sphere, b: &Obb, prediction: Real) -> bool {
    let h = b.half_extents();
    let x = b.to_local(a.center());
    let gap = x.zip_map(h, |x, h| x.clamp(-h, h)) - x;
    let tol = 1e-5 * (x.abs().sum() + h.sum() + b.center().coords.abs().sum() + a.radius());
    let reach = a.radius() + prediction + tol;
    // A square below `f32::MIN_POSITIVE` may round up past a subnormal
    // `reach^2` (the contact test takes such gaps in f64): not rejected here.
    let gap2 = gap.norm_squared();
    gap2 >= Real::MIN_POSITIVE && gap2 > reach * reach
}

/// The manifold of a sphere and a capsule within `prediction`: one point, as
/// [`contact_manifold_sphere_sphere`].
#[must_use]
pub fn contact_manifold_sphere_capsule(a: &Sphere, b: &Capsule, prediction: Real) -> Option<ContactManifold> {
    about(a, b, &a.center().coords, |a, b| sphere_capsule_manifold(a, b, prediction))
}

/// [`contact_manifold_sphere_capsule`] with the sphere's centre at the origin (see the
/// `relative` module).
#[inline(always)]
fn sphere_capsule_manifold(a: &Sphere, b: &Capsule, prediction: Real) -> Option<ContactManifold> {
    let normal =
        |_: &ShapeDistance| core_normal(a.center(), a.center(), &closest_point_segment(a.center(), b.a(), b.b()));
    one_point(contact_within(
        contact_sphere_capsule_in_place(a, b),
        prediction,
        || distance_sphere_capsule_in_place(a, b),
        normal,
    ))
}

/// The manifold of a sphere and a triangle within `prediction`: one point,
/// as [`contact_manifold_sphere_sphere`].
#[must_use]
pub fn contact_manifold_sphere_triangle(a: &Sphere, b: &Triangle, prediction: Real) -> Option<ContactManifold> {
    if sphere_separated_beyond(a, b, prediction.max(0.0)) {
        return None;
    }
    about(a, b, &a.center().coords, |a, b| sphere_triangle_manifold(a, b, prediction))
}

/// [`contact_manifold_sphere_triangle`] with the sphere's centre at the origin (see the
/// `relative` module).
#[inline(always)]
fn sphere_triangle_manifold(a: &Sphere, b: &Triangle, prediction: Real) -> Option<ContactManifold> {
    let normal = |d: &ShapeDistance| core_normal(a.center(), a.center(), &d.point_b);
    let found = sphere_triangle::contact_or_distance(a, b).map_err(Some);
    one_point(contact_within_found(found, prediction, || distance_sphere_triangle_in_place(a, b), normal))
}

/// True when the triangle's plane and side planes together put sphere A
/// more than `prediction` from triangle B (a lower bound of their distance,
/// see [`segment_beyond_triangle`] with the centre for the segment),
/// relative to the centre: the rejection before the closest point, for a
/// sphere over a mesh's triangles. A pair within `1e-5` of the shapes' size
/// beyond `prediction` goes on to the exact test.
fn sphere_separated_beyond(a: &Sphere, b: &Triangle, prediction: Real) -> bool {
    let c = a.center().coords;
    let v = b.vertices().map(|x| x.coords - c);
    let slack = 1e-5 * ((v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum() + a.radius());
    segment_beyond_triangle(&Vector::zeros(), &v, a.radius() + prediction + slack)
}

/// Segments whose directions' sine is below this are parallel for
/// [`contact_manifold_capsule_capsule`] (about 1.1 degrees).
pub const CAPSULE_PARALLEL_SINE: Real = 0.02;

/// The manifold of two capsules within `prediction` (negative or NaN counts
/// as 0).
///
/// The normal is that of [`contact_capsule_capsule`](crate::contact_capsule_capsule) (or of the closest
/// points when apart). Parallel core segments (sine below 0.02) that
/// overlap along their length get two points, at the two ends of the
/// overlap of B's projection on A's segment: for each end `s_a` on A's
/// axis, `s_b` its closest point on B's axis, `depth = r_a + r_b - (s_b -
/// s_a) . normal`, points `s_a + r_a normal` and `s_b - r_b normal` (ids 1
/// and 2); the ends lying more than `prediction` apart are dropped. Other
/// configurations get the one closest-point contact (id 0).
///
/// Each of the two points is on its capsule's surface and its depth is
/// `(point_a - point_b) . normal`, but `point_a - point_b` follows the
/// normal only where the segments are exactly parallel: tilted by a sine
/// `s`, the closest point `s_b` leans off the normal line through `s_a` by
/// at most `s` times the length of the overlap. The two points keep a
/// capsule lying on another from rocking about the crossing of their axes
/// while the tilt lasts; a solver that measures the separation along the
/// normal, as it should, sees the depth exactly.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_capsule_capsule, Capsule, Point};
/// let log = Capsule::new(Point::new(-1.0, 0.0, 0.0), Point::new(1.0, 0.0, 0.0), 0.5);
/// let on_top = Capsule::new(Point::new(0.0, 0.9, 0.0), Point::new(3.0, 0.9, 0.0), 0.5);
/// let m = contact_manifold_capsule_capsule(&log, &on_top, 0.0).unwrap();
/// assert_eq!(m.len(), 2); // x = 0 and x = 1: the overlap of the two logs
/// assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_capsule_capsule(a: &Capsule, b: &Capsule, prediction: Real) -> Option<ContactManifold> {
    about(a, b, &a.a().coords, |a, b| capsule_capsule_manifold(a, b, prediction))
}

/// [`contact_manifold_capsule_capsule`] with A's first endpoint at the origin (see the
/// `relative` module).
#[inline(always)]
fn capsule_capsule_manifold(a: &Capsule, b: &Capsule, prediction: Real) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    // B's core point behind its witness point, then A's core point closest to it.
    let normal = |d: &ShapeDistance| core_normal(a.a(), a.b(), &closest_point_segment(&d.point_b, b.a(), b.b()));
    let c = contact_within(
        contact_capsule_capsule_in_place(a, b),
        prediction,
        || distance_capsule_capsule_in_place(a, b),
        normal,
    )?;
    let (ua, ub) = (a.b() - a.a(), b.b() - b.a());
    let (la2, lb2) = (ua.norm_squared(), ub.norm_squared());
    let parallel = ua.cross(&ub).norm_squared() <= CAPSULE_PARALLEL_SINE * CAPSULE_PARALLEL_SINE * la2 * lb2;
    if la2 > 0.0 && lb2 > 0.0 && parallel {
        let s0 = (b.a() - a.a()).dot(&ua) / la2;
        let s1 = (b.b() - a.a()).dot(&ua) / la2;
        let (lo, hi) = (s0.min(s1).max(0.0), s0.max(s1).min(1.0));
        if hi - lo > 1e-4 {
            let n = c.normal.into_inner();
            let (ra, rb) = (a.radius(), b.radius());
            let mut pts = [super::manifold::NO_POINT; 2];
            let mut len = 0;
            for (id, s) in [(1, lo), (2, hi)] {
                let sa = a.a() + ua * s;
                let sb = closest_point_segment(&sa, b.a(), b.b());
                let depth = ra + rb - (sb - sa).dot(&n);
                if depth >= -prediction {
                    pts[len] = ManifoldPoint { point_a: sa + n * ra, point_b: sb - n * rb, depth, id };
                    len += 1;
                }
            }
            // Touching capsules keep a point of depth >= 0 (see `finish` in
            // manifold_face.rs): slightly crossed axes touch between the ends.
            let touch_kept = c.depth < 0.0 || pts[..len].iter().any(|p| p.depth >= 0.0);
            if len > 0 && touch_kept {
                return ContactManifold::new(c.normal, &pts[..len]);
            }
        }
    }
    one_point(Some(c))
}
