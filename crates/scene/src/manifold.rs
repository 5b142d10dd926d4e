//! Contact manifolds between any two placed shapes: the dispatch a solver
//! uses.

use core::ops::ControlFlow;

use proxima_narrowphase::{
    contact_manifold_capsule_capsule, contact_manifold_capsule_hull, contact_manifold_capsule_obb,
    contact_manifold_obb_obb, contact_manifold_sphere_capsule, contact_manifold_sphere_hull,
    contact_manifold_sphere_obb, contact_manifold_sphere_sphere, ContactManifold, Isometry, ManifoldPoint, Point, Real,
};

use crate::compound::Compound;
use crate::contact::as_obb;
use crate::hull::PosedHull;
use crate::hull_manifold::{as_polytope, manifold_polytopes};
use crate::mesh_frame::{capsule_in, obb_in, sphere_in};
use crate::shape::WorldShape;
use crate::trimesh::{mesh_mesh_manifolds, Convex, MeshScratch};

/// Appends to `out` the contact manifolds of A and B (normals from A to B)
/// for shapes that touch or are at most `prediction` apart (speculative
/// points, negative depth). A pair of convex shapes gets at most one
/// manifold; a mesh gets one per group of triangle contacts sharing a
/// normal; a compound one per touching child (and per group of the child's
/// contacts with a mesh), each point's id naming the child
/// ([`Compound::child_of_point_id`](crate::Compound::child_of_point_id)).
/// With `prediction = 0`, something is appended exactly when
/// [`contact`](crate::contact) returns a contact. `out` is not cleared.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{Obb, Point, Rotation, Vector};
/// let floor = WorldShape::Obb(Obb::new(Point::new(0.0, 0.0, -0.5), Rotation::identity(), Vector::new(5.0, 5.0, 0.5)));
/// let crate_ = WorldShape::Obb(Obb::new(Point::new(0.0, 0.0, 0.49), Rotation::identity(), Vector::repeat(0.5)));
/// let mut out = Vec::new();
/// contact_manifolds(&floor, &crate_, 0.02, &mut out);
/// assert_eq!(out.len(), 1);
/// assert_eq!(out[0].len(), 4);
/// ```
pub fn contact_manifolds(a: &WorldShape, b: &WorldShape, prediction: Real, out: &mut Vec<ContactManifold>) {
    contact_manifolds_with(a, b, prediction, &mut MeshScratch::default(), out);
}

/// [`contact_manifolds`] with the mesh manifolds' working lists kept by the
/// caller (the pipeline keeps one across frames, so that its frames
/// allocate nothing once the lists have grown).
pub(crate) fn contact_manifolds_with(
    a: &WorldShape,
    b: &WorldShape,
    prediction: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) {
    let single = manifolds_split(a, b, prediction, scratch, out);
    out.extend(single);
}

/// [`contact_manifolds`] split by kind of pair: the one manifold of two
/// convex shapes is returned (not copied through `out`, since the pipeline
/// moves it straight to its own list); a mesh pair's manifolds are appended
/// to `out` and `None` returned.
#[inline]
pub(crate) fn manifolds_split(
    a: &WorldShape,
    b: &WorldShape,
    prediction: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) -> Option<ContactManifold> {
    split(a, b, prediction.max(0.0), scratch, out)
}

/// [`manifolds_split`]; `None` (and nothing appended) too when a shape
/// brought into a mesh's frame fails validation (a pose at the edge of the
/// coordinate bound).
#[inline]
fn split(
    a: &WorldShape,
    b: &WorldShape,
    p: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) -> Option<ContactManifold> {
    use WorldShape as S;
    // The pairs of a pile (boxes and balls) here, the boxes by reference;
    // the others in a function of their own, whose frame (it inlines the
    // mesh, hull and compound paths) this one does not pay for.
    match (a, b) {
        (S::Obb(x), S::Obb(y)) => contact_manifold_obb_obb(x, y, p),
        (S::Sphere(s), S::Obb(t)) => contact_manifold_sphere_obb(s, t, p),
        (S::Obb(t), S::Sphere(s)) => contact_manifold_sphere_obb(s, t, p).map(flipped),
        (S::Sphere(s), S::Sphere(t)) => contact_manifold_sphere_sphere(s, t, p),
        _ => split_other(a, b, p, scratch, out),
    }
}

/// The manifold flipped (A and B swapped).
#[inline]
fn flipped(mut m: ContactManifold) -> ContactManifold {
    m.flip();
    m
}

/// [`split`] of the pairs it does not take itself (its first arms repeat
/// `split`'s, unreachable from there, to keep the match exhaustive).
#[inline(never)]
fn split_other(
    a: &WorldShape,
    b: &WorldShape,
    p: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) -> Option<ContactManifold> {
    use WorldShape as S;
    match (a, b) {
        (S::Obb(x), S::Obb(y)) => contact_manifold_obb_obb(x, y, p),
        (S::Sphere(s), S::Obb(t)) => contact_manifold_sphere_obb(s, t, p),
        (S::Obb(t), S::Sphere(s)) => contact_manifold_sphere_obb(s, t, p).map(flipped),
        (S::Sphere(s), S::Sphere(t)) => contact_manifold_sphere_sphere(s, t, p),
        (S::Compound(compound, pose), _) => {
            compound_manifolds(compound, pose, b, true, p, scratch, out);
            None
        }
        (_, S::Compound(compound, pose)) => {
            compound_manifolds(compound, pose, a, false, p, scratch, out);
            None
        }
        (S::ConvexHull(hull, pose), S::TriMesh(mesh, mesh_pose)) => {
            let start = out.len();
            let local = mesh_pose.inverse() * pose;
            mesh.manifolds(Convex::Hull(PosedHull::new(hull, &local)), p, scratch, out);
            for m in &mut out[start..] {
                *m = m.transformed(mesh_pose);
            }
            None
        }
        (S::TriMesh(..), S::ConvexHull(..)) => flip_split(b, a, p, scratch, out),
        (S::Sphere(s), S::ConvexHull(hull, pose)) => contact_manifold_sphere_hull(s, hull, pose, p),
        (S::Capsule(c), S::ConvexHull(hull, pose)) => contact_manifold_capsule_hull(c, hull, pose, p),
        (S::ConvexHull(..), S::Sphere(_) | S::Capsule(_)) => flip_split(b, a, p, scratch, out),
        (S::ConvexHull(..), S::ConvexHull(..) | S::Aabb(_) | S::Obb(_))
        | (S::Aabb(_) | S::Obb(_), S::ConvexHull(..)) => manifold_polytopes(&as_polytope(a)?, &as_polytope(b)?, p),
        (S::Sphere(s), S::Aabb(_)) => contact_manifold_sphere_obb(s, &as_obb(b)?, p),
        (S::Sphere(s), S::Capsule(c)) => contact_manifold_sphere_capsule(s, c, p),
        (S::Aabb(_) | S::Obb(_), S::Aabb(_) | S::Obb(_)) => contact_manifold_obb_obb(&as_obb(a)?, &as_obb(b)?, p),
        (S::Capsule(c), S::Capsule(d)) => contact_manifold_capsule_capsule(c, d, p),
        (S::Capsule(c), S::Aabb(_) | S::Obb(_)) => contact_manifold_capsule_obb(c, &as_obb(b)?, p),
        (S::Sphere(_) | S::Aabb(_) | S::Obb(_) | S::Capsule(_), S::TriMesh(mesh, pose)) => {
            let start = out.len();
            match a {
                S::Sphere(s) => mesh.manifolds(Convex::Sphere(&sphere_in(pose, s)?), p, scratch, out),
                S::Capsule(c) => mesh.manifolds(Convex::Capsule(&capsule_in(pose, c)?), p, scratch, out),
                _ => mesh.manifolds(Convex::Obb(&obb_in(pose, &as_obb(a)?)?), p, scratch, out),
            }
            for m in &mut out[start..] {
                *m = m.transformed(pose);
            }
            None
        }
        (S::TriMesh(mesh_a, pose_a), S::TriMesh(mesh_b, pose_b)) => {
            mesh_mesh_manifolds(mesh_a, pose_a, mesh_b, pose_b, scratch, out);
            None
        }
        // The mirrored pairs: computed the other way round, then flipped.
        (S::Aabb(_) | S::Capsule(_) | S::TriMesh(..), S::Sphere(_))
        | (S::Aabb(_) | S::Obb(_), S::Capsule(_))
        | (S::TriMesh(..), S::Aabb(_) | S::Obb(_) | S::Capsule(_)) => flip_split(b, a, p, scratch, out),
    }
}

/// The manifolds of the compound placed by `pose` and `other` (the compound
/// is shape A when `compound_is_a`, else B), appended to `out`: those of
/// each child whose box, in the compound's frame, overlaps the other
/// shape's box grown by the prediction `p`, in the order the children are
/// visited, each computed in the pair's order (A, B) as for the child alone,
/// and each point's id tagged with the child's index.
fn compound_manifolds(
    compound: &Compound,
    pose: &Isometry,
    other: &WorldShape,
    compound_is_a: bool,
    p: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) {
    let cull = other.aabb().loosened(p);
    let _ = compound.visit_overlapping(pose, &cull, |i| {
        let Some(child) = compound.child_world(i, pose) else { return ControlFlow::Continue(()) };
        let start = out.len();
        let single =
            if compound_is_a { split(&child, other, p, scratch, out) } else { split(other, &child, p, scratch, out) };
        out.extend(single);
        for m in &mut out[start..] {
            let mut points =
                [ManifoldPoint { point_a: Point::origin(), point_b: Point::origin(), depth: 0.0, id: 0 }; 4];
            for (q, src) in points.iter_mut().zip(m.points()) {
                *q = ManifoldPoint { id: Compound::tagged_point_id(i, src.id), ..*src };
            }
            // At most four points: `new` keeps them as they are.
            if let Some(tagged) = ContactManifold::new(m.normal, &points[..m.len()]) {
                *m = tagged;
            }
        }
        ControlFlow::Continue(())
    });
}

/// [`split`] of `(b, a)` seen from A: every manifold flipped.
fn flip_split(
    b: &WorldShape,
    a: &WorldShape,
    p: Real,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) -> Option<ContactManifold> {
    let start = out.len();
    let single = split(b, a, p, scratch, out);
    for m in &mut out[start..] {
        m.flip();
    }
    single.map(|mut m| {
        m.flip();
        m
    })
}
