//! Contact manifolds between any two placed shapes: the dispatch a solver
//! uses.

use proxima_narrowphase::{contact_manifold_obb_obb, ContactManifold, ManifoldPoint, Obb, Real};

use crate::contact::contact;
use crate::shape::WorldShape;

/// Appends to `out` the contact manifolds of A and B (normals from A to B)
/// for shapes that touch or are at most `prediction` apart (speculative
/// points, negative depth). A pair of convex shapes gets at most one
/// manifold; a mesh gets one per group of triangle contacts sharing a
/// normal. With `prediction = 0`, something is appended exactly when
/// [`contact`] returns a contact. `out` is not cleared.
///
/// ```
/// use proxima_scene::*;
/// use proxima_narrowphase::{Obb, Point, Rotation, Vector};
/// let floor = WorldShape::Obb(Obb::new(Point::new(0.0, 0.0, -0.5), Rotation::identity(), Vector::new(5.0, 5.0, 0.5)));
/// let crate_ = WorldShape::Obb(Obb::new(Point::new(0.0, 0.0, 0.49), Rotation::identity(), Vector::repeat(0.5)));
/// let mut out = Vec::new();
/// contact_manifolds(&floor, &crate_, 0.02, &mut out);
/// assert_eq!(out.len(), 1);
/// assert_eq!(out[0].len(), 4);
/// ```
pub fn contact_manifolds(a: &WorldShape, b: &WorldShape, prediction: Real, out: &mut Vec<ContactManifold>) {
    use WorldShape as S;
    match (a, b) {
        (S::Aabb(_) | S::Obb(_), S::Aabb(_) | S::Obb(_)) => {
            if let (Some(a), Some(b)) = (as_obb(a), as_obb(b)) {
                out.extend(contact_manifold_obb_obb(&a, &b, prediction));
            }
        }
        _ => out.extend(contact(a, b).map(|c| single_point(&c))),
    }
}

fn single_point(c: &proxima_narrowphase::Contact) -> ContactManifold {
    let p = ManifoldPoint { point_a: c.point_a, point_b: c.point_b, depth: c.depth, id: 0 };
    ContactManifold::new(c.normal, &[p]).expect("one point")
}

fn as_obb(shape: &WorldShape) -> Option<Obb> {
    match shape {
        WorldShape::Obb(o) => Some(*o),
        WorldShape::Aabb(a) => Some(Obb::from_aabb(a)),
        _ => None,
    }
}
