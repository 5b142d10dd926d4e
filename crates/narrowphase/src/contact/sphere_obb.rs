//! Contact between a sphere and an oriented box.

use super::sphere_aabb::sphere_box_local;
use super::Contact;
use crate::math::UnitVector;
use crate::shape::{Obb, Sphere};

/// The contact between a solid sphere (A) and a solid oriented box (B);
/// `None` when they are disjoint. Touching gives `Some` with `depth == 0`.
///
/// The centre is taken into the box frame, `x = R^T (c - c_box)`, and the
/// box is then the axis-aligned `[-h, h]` (Ericson, Real-Time Collision
/// Detection, 5.1.4). There, as in [`contact_sphere_aabb`](crate::contact_sphere_aabb):
/// centre outside, the clamped point `clamp(x, -h, h)` is `point_b` and the
/// normal runs from the centre to it; centre inside, the face of least
/// penetration `s` gives depth `r + s` and a normal pointing from that face
/// into the box (ties keep the first of `-x, +x, -y, +y, -z, +z` in the box
/// frame). The normal and `point_b` are mapped back by `R` and `c_box`;
/// `point_a = c + r * normal`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_obb, Obb, Point, Rotation, Sphere, Vector};
/// let rot = Rotation::from_euler_angles(0.0, 0.0, std::f32::consts::FRAC_PI_2);
/// let b = Obb::new(Point::origin(), rot, Vector::new(2.0, 1.0, 1.0));
/// let s = Sphere::new(Point::new(0.0, 2.5, 0.0), 1.0); // beyond the box's local +x face
/// let c = contact_sphere_obb(&s, &b).unwrap();
/// assert!((c.depth - 0.5).abs() < 1e-5 && (c.normal.y + 1.0).abs() < 1e-5);
/// ```
#[inline]
#[must_use]
pub fn contact_sphere_obb(sphere: &Sphere, obb: &Obb) -> Option<Contact> {
    let h = obb.half_extents();
    let x = obb.to_local(sphere.center());
    let local = sphere_box_local(&x, sphere.radius(), &(-h), h)?;
    // Renormalised: the rotation matrix is orthonormal only up to rounding.
    let normal = UnitVector::new_normalize(obb.axes() * local.normal);
    Some(Contact {
        point_a: sphere.center() + normal.into_inner() * sphere.radius(),
        point_b: obb.to_world(&local.point_on_box),
        normal,
        depth: local.depth,
    })
}
