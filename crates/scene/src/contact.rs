//! Contact between any two placed shapes: the narrowphase dispatch.

use proxima_narrowphase::{
    contact_capsule_capsule, contact_capsule_obb, contact_obb_obb, contact_sphere_aabb, contact_sphere_capsule,
    contact_sphere_obb, contact_sphere_sphere, Capsule, Contact, Isometry, Obb, Sphere,
};

use crate::shape::WorldShape;
use crate::trimesh::contact_mesh_mesh;

/// The contact between A and B (normal from A to B, `depth >= 0`), `None`
/// when they do not touch.
///
/// Every pair of solid shapes is supported exactly; an axis-aligned box is
/// treated as an oriented box with identity rotation. Meshes are two-sided
/// surfaces: a sphere, box or capsule against a mesh gets the deepest of its
/// triangle contacts; two meshes get their deepest triangle-triangle contact
/// (`contact_triangle_triangle`, over the pairs their BVHs leave).
pub fn contact(a: &WorldShape, b: &WorldShape) -> Option<Contact> {
    use WorldShape as S;
    match (a, b) {
        (S::Sphere(s), S::Sphere(t)) => contact_sphere_sphere(s, t),
        (S::Sphere(s), S::Aabb(t)) => contact_sphere_aabb(s, t),
        (S::Sphere(s), S::Obb(t)) => contact_sphere_obb(s, t),
        (S::Sphere(s), S::Capsule(t)) => contact_sphere_capsule(s, t),
        (S::Sphere(s), S::TriMesh(mesh, pose)) => {
            let local = Sphere::try_new(pose.inverse_transform_point(s.center()), s.radius()).ok()?;
            mesh.contact_sphere(&local).map(|c| to_world(&c, pose))
        }
        (S::Aabb(_) | S::Obb(_), S::Aabb(_) | S::Obb(_)) => contact_obb_obb(&as_obb(a)?, &as_obb(b)?),
        (S::Aabb(_) | S::Obb(_), S::TriMesh(mesh, pose)) => {
            let o = as_obb(a)?;
            let local = Obb::try_new(
                pose.inverse_transform_point(o.center()),
                pose.rotation.inverse() * o.rotation(),
                *o.half_extents(),
            )
            .ok()?;
            mesh.contact_obb(&local).map(|c| to_world(&c, pose))
        }
        (S::Capsule(c), S::Capsule(d)) => contact_capsule_capsule(c, d),
        (S::Capsule(c), S::Aabb(_) | S::Obb(_)) => contact_capsule_obb(c, &as_obb(b)?),
        (S::Capsule(c), S::TriMesh(mesh, pose)) => {
            let local =
                Capsule::try_new(pose.inverse_transform_point(c.a()), pose.inverse_transform_point(c.b()), c.radius())
                    .ok()?;
            mesh.contact_capsule(&local).map(|c| to_world(&c, pose))
        }
        (S::Aabb(_) | S::Obb(_) | S::Capsule(_) | S::TriMesh(..), S::Sphere(_))
        | (S::Aabb(_) | S::Obb(_), S::Capsule(_))
        | (S::TriMesh(..), S::Aabb(_) | S::Obb(_) | S::Capsule(_)) => contact(b, a).map(|c| c.flipped()),
        (S::TriMesh(mesh_a, pose_a), S::TriMesh(mesh_b, pose_b)) => contact_mesh_mesh(mesh_a, pose_a, mesh_b, pose_b),
    }
}

/// A contact computed in a frame placed by `pose` (a mesh's), taken to world space.
pub(crate) fn to_world(c: &Contact, pose: &Isometry) -> Contact {
    Contact {
        point_a: pose.transform_point(&c.point_a),
        point_b: pose.transform_point(&c.point_b),
        normal: pose.rotation * c.normal,
        depth: c.depth,
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
