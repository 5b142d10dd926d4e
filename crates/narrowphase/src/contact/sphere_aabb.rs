//! Contact between a sphere and an axis-aligned box.

use super::Contact;
use crate::math::{within_distance, Real, UnitVector, Vector};
use crate::shape::{Aabb, Sphere};

/// A sphere-box contact in the box's frame (world axes for an [`Aabb`], the
/// box axes for an [`Obb`](crate::Obb)).
pub(crate) struct BoxContactLocal {
    /// The witness point on the box surface, in the box frame.
    pub point_on_box: Vector,
    /// Unit normal from the sphere to the box, in the box frame.
    pub normal: Vector,
    /// Penetration depth, `>= 0`.
    pub depth: Real,
}

/// The contact between a sphere (centre `c`, radius `r`) and the box
/// `[min, max]`, all in the box's frame; `None` when disjoint.
///
/// - Centre outside the box: `q = clamp(c, min, max)` is the box point
///   closest to the centre (Ericson, Real-Time Collision Detection, 5.1.3);
///   they touch iff `|q - c| <= r`, with normal `(q - c) / |q - c|` and depth
///   `r - |q - c|`.
/// - Centre inside (or within `sqrt(f32::MIN_POSITIVE)` of the surface, where
///   `q - c` has no direction): the face of least penetration. The distance
///   to the faces of axis `i` is `c_i - min_i` and `max_i - c_i`; the smallest,
///   `s`, gives depth `r + s`, the witness point `c` moved onto that face and the
///   normal pointing from that face into the box (the sphere leaves through
///   the face, so B moves inwards). Ties keep the first face in the order
///   `-x, +x, -y, +y, -z, +z`.
#[inline]
pub(crate) fn sphere_box_local(c: &Vector, r: Real, min: &Vector, max: &Vector) -> Option<BoxContactLocal> {
    let q = c.sup(min).inf(max);
    let d = q - c;
    let dist2 = d.norm_squared();
    if !within_distance(&d, r) {
        return None;
    }
    if dist2 >= Real::MIN_POSITIVE {
        let dist = dist2.sqrt();
        return Some(BoxContactLocal { point_on_box: q, normal: d / dist, depth: (r - dist).max(0.0) });
    }
    // Centre inside: find the nearest face. `best_sign` is the normal's sign
    // along `best_axis`: +1 for a min face, -1 for a max face.
    let mut best = Real::INFINITY;
    let mut best_axis = 0;
    let mut best_sign: Real = 1.0;
    for i in 0..3 {
        let lo = c[i] - min[i];
        let hi = max[i] - c[i];
        if lo < best {
            (best, best_axis, best_sign) = (lo, i, 1.0);
        }
        if hi < best {
            (best, best_axis, best_sign) = (hi, i, -1.0);
        }
    }
    // `best >= 0` for a centre inside; a centre a subnormal distance outside
    // rounds to the face itself.
    let best = best.max(0.0);
    let mut point_on_box = *c;
    point_on_box[best_axis] = if best_sign > 0.0 { min[best_axis] } else { max[best_axis] };
    let mut normal = Vector::zeros();
    normal[best_axis] = best_sign;
    Some(BoxContactLocal { point_on_box, normal, depth: r + best })
}

/// The contact between a solid sphere (A) and a solid axis-aligned box (B);
/// `None` when they are disjoint. Touching gives `Some` with `depth == 0`.
///
/// Centre outside the box: the box point closest to the centre (the centre
/// clamped to `[min, max]`, Ericson, Real-Time Collision Detection, 5.1.3)
/// is `point_b`, the normal runs from the centre to it and the depth is
/// `r - |point_b - c|`. Centre inside the box: the face of least
/// penetration, at distance `s`, gives depth `r + s`, `point_b` the centre
/// projected onto that face, and a normal pointing from that face into the
/// box (moving the box that way pushes the sphere out through the face).
/// Ties between faces keep the first of `-x, +x, -y, +y, -z, +z`.
/// In both cases `point_a = c + r * normal`, the sphere's deepest point.
///
/// Degenerate cases: a zero-size box is a point and works as above; a centre
/// exactly on the surface is "inside" with `s = 0`, so depth `r`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_aabb, Aabb, Point, Sphere};
/// let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(2.0, 2.0, 2.0));
/// let s = Sphere::new(Point::new(-0.5, 1.0, 1.0), 1.0);
/// let c = contact_sphere_aabb(&s, &b).unwrap();
/// assert!((c.depth - 0.5).abs() < 1e-6 && (c.normal.x - 1.0).abs() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn contact_sphere_aabb(sphere: &Sphere, aabb: &Aabb) -> Option<Contact> {
    let c = sphere.center().coords;
    let local = sphere_box_local(&c, sphere.radius(), &aabb.min().coords, &aabb.max().coords)?;
    Some(Contact {
        point_a: sphere.center() + local.normal * sphere.radius(),
        point_b: local.point_on_box.into(),
        normal: UnitVector::new_unchecked(local.normal),
        depth: local.depth,
    })
}
