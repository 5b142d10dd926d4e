//! Ray against triangle: Moller-Trumbore.

use super::ray::{Ray, RayHit};
use crate::math::{Real, UnitVector};
use crate::shape::Triangle;

/// First hit of a ray on a triangle, seen from either side.
///
/// Moller and Trumbore, "Fast, Minimum Storage Ray/Triangle Intersection"
/// (1997): with `e1 = b - a`, `e2 = c - a`, `s = o - a`, `p = d x e2`,
/// `q = s x e1` and `det = e1 . p`, the hit is
/// `o + t d = a + u e1 + v e2` with `u = s.p / det`, `v = d.q / det`,
/// `t = e2.q / det` (Cramer's rule on the 3x3 system). The barycentric
/// `u`, `v` are taken from there; `t` itself is computed as
/// `-(s.n) / (d.n)` with `n = e1 x e2`, the same value in exact arithmetic
/// but more accurate for thin triangles hit from afar (see the code).
///
/// Conventions:
/// - two-sided: back faces are hit too; the normal is the face normal
///   `±(e1 x e2) / |e1 x e2|` on the side the ray comes from (`normal . dir < 0`);
/// - edge rule: the triangle is closed, `u >= 0`, `v >= 0`, `u + v <= 1`,
///   so a ray through an edge or vertex hits, and a ray through an edge
///   shared by two triangles of a mesh hits both (no gap by the rule itself;
///   rounding of `u`, `v` can still open or close hairline gaps, which a
///   watertight test would rule out);
/// - a ray parallel to the triangle's plane (`det = 0`), including one lying
///   in it, misses: the triangle is a surface with no thickness;
/// - a degenerate triangle misses: one whose `|e1 x e2| <= eps |e1| |e2|`
///   (`eps = f32::EPSILON`), i.e. whose edges are parallel to within the
///   rounding of the cross product;
/// - an origin on the triangle hits at `toi = 0`; `toi` must lie in
///   `[0, max_toi]`.
///
/// ```
/// use proxima_narrowphase::{cast_ray_triangle, Point, Ray, Triangle, Vector};
/// let t = Triangle::new(Point::new(-1.0, -1.0, 2.0), Point::new(1.0, -1.0, 2.0), Point::new(0.0, 1.0, 2.0));
/// let hit = cast_ray_triangle(&Ray::new(Point::origin(), Vector::z(), 10.0), &t).unwrap();
/// assert_eq!(hit.toi, 2.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::z()); // faces the ray's origin
/// ```
#[inline]
#[must_use]
pub fn cast_ray_triangle(ray: &Ray, tri: &Triangle) -> Option<RayHit> {
    let (o, d) = (ray.origin(), ray.dir());
    let e1 = tri.b - tri.a;
    let e2 = tri.c - tri.a;
    let p = d.cross(&e2);
    let det = e1.dot(&p);
    if det == 0.0 {
        return None; // parallel to the plane, or a degenerate triangle
    }
    let inv_det = 1.0 / det;
    let s = o - tri.a;
    let u = s.dot(&p) * inv_det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(&e1);
    let v = d.dot(&q) * inv_det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let n = e1.cross(&e2);
    let n2 = n.norm_squared();
    if n2 <= Real::EPSILON * Real::EPSILON * e1.norm_squared() * e2.norm_squared() {
        return None; // degenerate: edges parallel within rounding
    }
    // toi from the plane equation with the one rounded normal n, rather than
    // Moller-Trumbore's e2.q / det: numerator and denominator then describe
    // the same (slightly rotated) plane through a, so the error does not grow
    // with the origin's distance for thin triangles.
    let dn = d.dot(&n);
    if dn == 0.0 {
        return None;
    }
    let toi = -s.dot(&n) / dn;
    if !(0.0..=ray.max_toi()).contains(&toi) {
        return None;
    }
    let n = n / n2.sqrt();
    let normal = if dn > 0.0 { -n } else { n };
    Some(RayHit { toi, normal: UnitVector::new_unchecked(normal) })
}
