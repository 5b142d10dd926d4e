//! Sphere-triangle contact.

use super::Contact;
use crate::closest::{closest_point_triangle, face_normal};
use crate::distance::{from_cores, ShapeDistance};
use crate::math::{normalize_any, within_distance, UnitVector, Vector};
use crate::relative::about;
use crate::shape::{Sphere, Triangle};

/// The contact between sphere A and triangle B (both sides of the triangle
/// are solid), or `None` when the centre is further than the radius from it.
///
/// `q` is the triangle point closest to the centre `c`, `d = |q - c|`: the
/// normal is `(q - c) / d` (from the sphere to the triangle), the depth
/// `r - d`, `point_a = c + r n` and `point_b = q`, so
/// `point_a - point_b = depth n`. A centre on the triangle (`d = 0`) takes
/// the face normal, towards the side `(b - a) x (c - a)` points away from
/// (a degenerate triangle: `-y`).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_triangle, Point, Sphere, Triangle};
/// let tri = Triangle::try_new(Point::new(-1.0, 0.0, -1.0), Point::new(1.0, 0.0, -1.0), Point::new(0.0, 0.0, 1.0)).unwrap();
/// let ball = Sphere::try_new(Point::new(0.0, 0.4, 0.0), 0.5).unwrap();
/// let c = contact_sphere_triangle(&ball, &tri).unwrap();
/// assert!((c.depth - 0.1).abs() < 1e-6 && (c.normal.y + 1.0).abs() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn contact_sphere_triangle(sphere: &Sphere, tri: &Triangle) -> Option<Contact> {
    about(sphere, tri, &sphere.center().coords, |sphere, tri| contact_or_distance(sphere, tri).ok())
}

/// [`contact_sphere_triangle`] in the shapes' own coordinates, or when the
/// shapes are apart, their distance from the same closest point: bit for
/// bit [`distance_sphere_triangle`](crate::distance_sphere_triangle) when
/// both are moved to the sphere's centre.
#[inline]
pub(super) fn contact_or_distance(sphere: &Sphere, tri: &Triangle) -> Result<Contact, ShapeDistance> {
    let (c, r) = (sphere.center(), sphere.radius());
    let q = closest_point_triangle(c, tri);
    let gap = q - c;
    let d2 = gap.norm_squared();
    if !within_distance(&gap, r) {
        return Err(from_cores(*c, r, q, 0.0));
    }
    let d = d2.sqrt();
    let normal = normalize_any(&gap).unwrap_or_else(|| {
        let face = face_normal(tri).map_or(Vector::y(), |(n, _, _)| n);
        normalize_any(&-face).unwrap_or(UnitVector::new_unchecked(-Vector::y()))
    });
    let depth = (r - d).max(0.0);
    Ok(Contact { point_a: c + normal.into_inner() * r, point_b: q, normal, depth })
}
