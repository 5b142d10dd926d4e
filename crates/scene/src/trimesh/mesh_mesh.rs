//! Contact between two triangle meshes: the deepest triangle-triangle
//! contact, over the pairs that the meshes' BVHs cannot rule out.

use core::ops::ControlFlow;

use proxima_narrowphase::{contact_triangle_triangle, Aabb, Contact, Isometry, Point, Real, Triangle};

use super::TriMesh;
use crate::mesh_frame::contact_to_world;

/// Query boxes grow by this fraction of the largest coordinate in A's frame:
/// more than the triangle test's touching band (`1e-6` of a pair's extent,
/// measured from a vertex, so at most twice the largest coordinate), so no
/// pair it calls touching is culled by the boxes.
const CULL_MARGIN_REL: Real = 1e-5;

/// The contact between mesh A placed by `pose_a` and mesh B placed by
/// `pose_b` (normal from A to B, world frame): the deepest
/// [`contact_triangle_triangle`] over the triangle pairs, `None` when no
/// pair touches. Meshes are surfaces, so this is where their triangles cross,
/// not a volume's penetration.
///
/// In A's frame, with B brought in by the relative pose `pose_a^-1 pose_b`:
/// 1. the region `R`, the overlap of A's box and B's (B's local box
///    transformed, conservative); none means no contact;
/// 2. each mesh's triangles whose boxes overlap `R` (counted with one BVH
///    query each, B's with the box of `R` in B's frame);
/// 3. each candidate of the smaller side queries the other mesh's BVH with
///    its box clipped to `R` (a crossing point lies in both triangles, so in
///    `R` and in the candidate's box), and every pair found is tested.
///
/// Ties keep the first pair found (the traversal is deterministic).
pub(crate) fn contact_mesh_mesh(a: &TriMesh, pose_a: &Isometry, b: &TriMesh, pose_b: &Isometry) -> Option<Contact> {
    let mut best: Option<Contact> = None;
    visit_mesh_mesh_contacts(a, b, &pose_a.inv_mul(pose_b), |_, _, c| {
        if best.is_none_or(|b| c.depth > b.depth) {
            best = Some(c);
        }
    });
    best.map(|c| contact_to_world(&c, pose_a))
}

/// Calls `f(i, j, contact)` for every pair of A's triangle `i` and B's
/// triangle `j` that touch, with the contact in A's frame (`rel` = the pose
/// of B's frame in A's), in a deterministic order: the culling of
/// [`contact_mesh_mesh`].
pub(crate) fn visit_mesh_mesh_contacts(a: &TriMesh, b: &TriMesh, rel: &Isometry, mut f: impl FnMut(u32, u32, Contact)) {
    let to_b = rel.inverse();
    let b_box = b.world_aabb(rel);
    let margin = CULL_MARGIN_REL * largest_coordinate(a.local_aabb()).max(largest_coordinate(&b_box));
    let Some(region) = clip(&a.local_aabb().loosened(margin), &b_box.loosened(margin)) else { return };
    let region_in_b = box_under(&region, &to_b);
    let b_in_a = |id: u32| transformed(&b.triangle(id), rel);
    let count = |m: &TriMesh, r: &Aabb| {
        let mut n = 0usize;
        let _ = m.visit_triangles(r, |_| {
            n += 1;
            ControlFlow::Continue(())
        });
        n
    };
    if count(a, &region) <= count(b, &region_in_b) {
        let _ = a.visit_triangles(&region, |i| {
            let ta = &a.triangle(i);
            let Some(query) = clip(&ta.aabb().loosened(margin), &region) else { return ControlFlow::Continue(()) };
            b.visit_triangles(&box_under(&query, &to_b), |j| {
                if let Some(c) = b_in_a(j).and_then(|tb| contact_triangle_triangle(ta, &tb)) {
                    f(i, j, c);
                }
                ControlFlow::Continue(())
            })
        });
    } else {
        let _ = b.visit_triangles(&region_in_b, |j| {
            let Some(tb) = b_in_a(j) else { return ControlFlow::Continue(()) };
            let Some(query) = clip(&tb.aabb().loosened(margin), &region) else { return ControlFlow::Continue(()) };
            a.visit_triangles(&query, |i| {
                if let Some(c) = contact_triangle_triangle(&a.triangle(i), &tb) {
                    f(i, j, c);
                }
                ControlFlow::Continue(())
            })
        });
    }
}

/// The overlap of two boxes, `None` when they are apart.
fn clip(p: &Aabb, q: &Aabb) -> Option<Aabb> {
    Aabb::try_new(p.min().sup(q.min()), p.max().inf(q.max())).ok()
}

/// The box of `aabb`'s eight corners under `iso` (conservative).
fn box_under(aabb: &Aabb, iso: &Isometry) -> Aabb {
    let corners = aabb.corners().map(|c| iso.transform_point(&c));
    Aabb::from_points(corners.iter()).unwrap_or(*aabb)
}

/// The largest absolute coordinate of a box.
fn largest_coordinate(aabb: &Aabb) -> Real {
    aabb.min().coords.amax().max(aabb.max().coords.amax())
}

/// A triangle under `iso`; `None` if a vertex overflows.
fn transformed(t: &Triangle, iso: &Isometry) -> Option<Triangle> {
    let [p, q, r]: [Point; 3] = t.vertices().map(|v| iso.transform_point(&v));
    Triangle::try_new(p, q, r).ok()
}
