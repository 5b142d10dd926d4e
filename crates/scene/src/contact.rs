//! Contact between any two placed shapes: the narrowphase dispatch.

use proxima_narrowphase::{
    contact_capsule_capsule, contact_capsule_hull, contact_capsule_obb, contact_obb_obb, contact_sphere_aabb,
    contact_sphere_capsule, contact_sphere_hull, contact_sphere_obb, contact_sphere_sphere, Contact, Obb,
};

use crate::compound::contact_compound;
use crate::hull::{as_convex, PosedHull};
use crate::mesh_frame::{capsule_in, contact_to_world, obb_in, sphere_in};
use crate::shape::WorldShape;
use crate::trimesh::contact_mesh_mesh;

/// The contact between A and B (normal from A to B, `depth >= 0`), `None`
/// when they do not touch.
///
/// Every pair of solid shapes is supported exactly; an axis-aligned box is
/// treated as an oriented box with identity rotation. Meshes are two-sided
/// surfaces: a sphere, box or capsule against a mesh gets the deepest of its
/// triangle contacts; two meshes get their deepest triangle-triangle contact
/// (`contact_triangle_triangle`, over the pairs their BVHs leave). A
/// compound gets the deepest of its children's contacts (children whose box
/// overlaps the other shape's), with any shape, a compound or a mesh too.
#[inline]
pub fn contact(a: &WorldShape, b: &WorldShape) -> Option<Contact> {
    use WorldShape as S;
    // The pairs of a pile (boxes and balls) here, the boxes by reference;
    // the others in a function of their own, whose frame (it inlines the
    // mesh, hull and compound paths) this one does not pay for.
    match (a, b) {
        (S::Obb(x), S::Obb(y)) => contact_obb_obb(x, y),
        (S::Sphere(s), S::Obb(t)) => contact_sphere_obb(s, t),
        (S::Obb(t), S::Sphere(s)) => contact_sphere_obb(s, t).map(|c| c.flipped()),
        (S::Sphere(s), S::Sphere(t)) => contact_sphere_sphere(s, t),
        _ => contact_other(a, b),
    }
}

/// [`contact`] of the pairs it does not take itself (its first arms repeat
/// `contact`'s, unreachable from there, to keep the match exhaustive).
#[inline(never)]
fn contact_other(a: &WorldShape, b: &WorldShape) -> Option<Contact> {
    use WorldShape as S;
    match (a, b) {
        (S::Obb(x), S::Obb(y)) => contact_obb_obb(x, y),
        (S::Sphere(s), S::Obb(t)) => contact_sphere_obb(s, t),
        (S::Obb(t), S::Sphere(s)) => contact_sphere_obb(s, t).map(|c| c.flipped()),
        (S::Sphere(s), S::Sphere(t)) => contact_sphere_sphere(s, t),
        (S::Compound(compound, pose), _) => contact_compound(compound, pose, b, true),
        (_, S::Compound(compound, pose)) => contact_compound(compound, pose, a, false),
        (S::ConvexHull(hull, pose), S::TriMesh(mesh, mesh_pose)) => {
            let local = mesh_pose.inverse() * pose;
            mesh.contact_hull(&PosedHull::new(hull, &local)).map(|c| contact_to_world(&c, mesh_pose))
        }
        (S::TriMesh(..), S::ConvexHull(..)) => contact(b, a).map(|c| c.flipped()),
        (S::Sphere(s), S::ConvexHull(hull, pose)) => contact_sphere_hull(s, hull, pose),
        (S::Capsule(c), S::ConvexHull(hull, pose)) => contact_capsule_hull(c, hull, pose),
        (S::ConvexHull(..), S::Sphere(_) | S::Capsule(_)) => contact(b, a).map(|c| c.flipped()),
        (S::ConvexHull(hull, pose), S::Aabb(_) | S::Obb(_)) => {
            proxima_narrowphase::contact_hull_obb(hull, pose, &as_obb(b)?, 0.0)
        }
        (S::Aabb(_) | S::Obb(_), S::ConvexHull(..)) => contact(b, a).map(|c| c.flipped()),
        (S::ConvexHull(..), _) => proxima_narrowphase::contact_convex(&as_convex(a)?, &as_convex(b)?, 0.0),
        (S::Sphere(s), S::Aabb(t)) => contact_sphere_aabb(s, t),
        (S::Sphere(s), S::Capsule(t)) => contact_sphere_capsule(s, t),
        (S::Sphere(s), S::TriMesh(mesh, pose)) => {
            mesh.contact_sphere(&sphere_in(pose, s)?).map(|c| contact_to_world(&c, pose))
        }
        (S::Aabb(_) | S::Obb(_), S::Aabb(_) | S::Obb(_)) => contact_obb_obb(&as_obb(a)?, &as_obb(b)?),
        (S::Aabb(_) | S::Obb(_), S::TriMesh(mesh, pose)) => {
            mesh.contact_obb(&obb_in(pose, &as_obb(a)?)?).map(|c| contact_to_world(&c, pose))
        }
        (S::Capsule(c), S::Capsule(d)) => contact_capsule_capsule(c, d),
        (S::Capsule(c), S::Aabb(_) | S::Obb(_)) => contact_capsule_obb(c, &as_obb(b)?),
        (S::Capsule(c), S::TriMesh(mesh, pose)) => {
            mesh.contact_capsule(&capsule_in(pose, c)?).map(|c| contact_to_world(&c, pose))
        }
        (S::Aabb(_) | S::Capsule(_) | S::TriMesh(..), S::Sphere(_))
        | (S::Aabb(_) | S::Obb(_), S::Capsule(_))
        | (S::TriMesh(..), S::Aabb(_) | S::Obb(_) | S::Capsule(_)) => contact(b, a).map(|c| c.flipped()),
        (S::TriMesh(mesh_a, pose_a), S::TriMesh(mesh_b, pose_b)) => contact_mesh_mesh(mesh_a, pose_a, mesh_b, pose_b),
    }
}

/// A box shape as an oriented box (an axis-aligned box with identity rotation).
pub(crate) fn as_obb(shape: &WorldShape) -> Option<Obb> {
    match shape {
        WorldShape::Obb(o) => Some(*o),
        WorldShape::Aabb(a) => Some(Obb::from_aabb(a)),
        _ => None,
    }
}
