//! Shapes taken into a mesh's frame, where its triangles and BVH live, and
//! contacts taken back out: every mesh query, contact and manifold does it.

use proxima_narrowphase::{Capsule, Contact, Isometry, Obb, Sphere};

/// `s` in the frame placed by `pose`; `None` when the moved shape fails
/// validation (a pose at the edge of the coordinate bound).
pub(crate) fn sphere_in(pose: &Isometry, s: &Sphere) -> Option<Sphere> {
    Sphere::try_new(pose.inverse_transform_point(s.center()), s.radius()).ok()
}

/// `o` in the frame placed by `pose` (its rotation composed with the
/// pose's inverse); `None` as for [`sphere_in`].
pub(crate) fn obb_in(pose: &Isometry, o: &Obb) -> Option<Obb> {
    Obb::try_new(pose.inverse_transform_point(o.center()), pose.rotation.inverse() * o.rotation(), *o.half_extents())
        .ok()
}

/// `c` in the frame placed by `pose`; `None` as for [`sphere_in`].
pub(crate) fn capsule_in(pose: &Isometry, c: &Capsule) -> Option<Capsule> {
    Capsule::try_new(pose.inverse_transform_point(c.a()), pose.inverse_transform_point(c.b()), c.radius()).ok()
}

/// A contact computed in the frame placed by `pose`, taken to world space.
pub(crate) fn contact_to_world(c: &Contact, pose: &Isometry) -> Contact {
    Contact {
        point_a: pose.transform_point(&c.point_a),
        point_b: pose.transform_point(&c.point_b),
        normal: pose.rotation * c.normal,
        depth: c.depth,
    }
}
