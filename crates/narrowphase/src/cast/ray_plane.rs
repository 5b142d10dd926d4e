//! Ray against plane.

use super::ray::{Ray, RayHit};
use crate::math::Real;
use crate::shape::Plane;

/// First hit of a ray on a plane, from either side.
///
/// With the signed distance of the origin `s = n.o - offset` and the rate
/// `v = n.d`, the ray meets the plane at `toi = -s / v` (Ericson,
/// Real-Time Collision Detection, 5.3.1). The normal is the plane normal on
/// the origin's side: `n` when `s > 0`, `-n` when `s < 0`. The rate `v` is
/// computed in f64, so grazing rays hit on the plane.
///
/// Degenerate cases:
/// - origin on the plane (`s = 0`), not parallel: `toi = 0`, normal on the
///   side the ray comes from (`normal . dir < 0`);
/// - ray lying in the plane (`s = 0` and `v = 0`): every point of the ray is
///   on the plane, so it hits at `toi = 0`, with the plane's own normal `n`;
/// - ray parallel to the plane and off it (`s != 0`, `v = 0`): a miss;
/// - ray moving away, or reaching the plane after `max_toi`: a miss.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_plane, Plane, Point, Ray, Vector};
/// let ground = Plane::try_new(Point::origin(), Vector::z()).unwrap();
/// let hit = cast_ray_plane(&Ray::new(Point::new(0.0, 0.0, -3.0), Vector::z(), 10.0), &ground).unwrap();
/// assert_eq!(hit.toi, 3.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::z()); // the side the ray came from
/// ```
#[inline]
#[must_use]
pub fn cast_ray_plane(ray: &Ray, plane: &Plane) -> Option<RayHit> {
    let n = plane.normal();
    let s = plane.signed_distance(ray.origin());
    // The rate `n . d` in f64, where the products of f32 values are exact:
    // for a grazing ray (`|n . d| << |d|`) the f32 sum cancels to a relative
    // error of `eps |d| / |n . d|`, which `toi = -s / v` carries into a hit
    // point off the plane by `|s|` times that (1.1e-2 for `|s| = 122` and
    // `|n . d| = 2e-4 |d|`); in f64 the toi is right to its f32 rounding.
    let v = n.into_inner().cast::<f64>().dot(&ray.dir().cast::<f64>());
    if s == 0.0 {
        let normal = if v > 0.0 { -*n } else { *n };
        return Some(RayHit { toi: 0.0, normal });
    }
    // Moving towards the plane means s and v have opposite signs.
    if v == 0.0 || (s > 0.0) == (v > 0.0) {
        return None;
    }
    let toi = (-(s as f64) / v) as Real;
    if toi > ray.max_toi() {
        return None;
    }
    let normal = if s > 0.0 { *n } else { -*n };
    Some(RayHit { toi, normal })
}
