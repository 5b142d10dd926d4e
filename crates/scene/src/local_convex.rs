//! A convex world shape taken by value and moved rigidly: to a local origin
//! near the query (so the generic convex casts compute small coordinates)
//! or into a mesh's frame (where its triangles live).
//!
//! Why a local origin: a support point computed at world coordinates near
//! `1e5` is rounded to the f32 spacing there (`2^-7 ≈ 0.008`), a large part
//! of a short motion. The difference of two nearby f32 coordinates is exact
//! (Sterbenz), so moving every shape by `-origin` first, with `origin` an
//! f32 point near them, loses nothing, and the supports computed afterwards
//! carry the rounding of the small local coordinates only.

use proxima_narrowphase::{Aabb, Capsule, ConvexHull, Isometry, Obb, Sphere, Vector};

use crate::hull::{world_aabb, ConvexRef, PosedHull};
use crate::shape::WorldShape;

/// A convex shape (world frame, or the frame it was moved into), owned so it
/// can be moved; a hull keeps its shared vertices and owns its pose.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LocalConvex<'a> {
    Sphere(Sphere),
    Aabb(Aabb),
    Obb(Obb),
    Capsule(Capsule),
    Hull(&'a ConvexHull, Isometry),
}

impl<'a> LocalConvex<'a> {
    /// A placed convex collider; `None` for a mesh or a compound. An axis-aligned box
    /// stays one until [`LocalConvex::convex`]: its centre `(min + max) / 2`
    /// is rounded where its corners are not, so it is formed after the move
    /// to small coordinates.
    pub(crate) fn of(shape: &'a WorldShape) -> Option<Self> {
        Some(match shape {
            WorldShape::Sphere(s) => Self::Sphere(*s),
            WorldShape::Aabb(a) => Self::Aabb(*a),
            WorldShape::Obb(o) => Self::Obb(*o),
            WorldShape::Capsule(c) => Self::Capsule(*c),
            WorldShape::ConvexHull(hull, pose) => Self::Hull(hull, *pose),
            WorldShape::TriMesh(..) | WorldShape::Compound(..) => return None,
        })
    }

    /// The shape moved by `-origin`: `x -> x - origin` on its centre, ends,
    /// corners or pose translation; exact when the shape's coordinates are
    /// within a factor 2 of `origin`'s (Sterbenz), and rounded to the small
    /// result otherwise. `None` when the moved shape fails validation (a
    /// difference beyond the coordinate bound, shapes `2e18` apart).
    pub(crate) fn shifted(&self, origin: &Vector) -> Option<Self> {
        Some(match self {
            Self::Sphere(s) => Self::Sphere(Sphere::try_new(s.center() - origin, s.radius()).ok()?),
            Self::Aabb(a) => Self::Aabb(Aabb::try_new(a.min() - origin, a.max() - origin).ok()?),
            Self::Obb(o) => Self::Obb(Obb::try_new(o.center() - origin, *o.rotation(), *o.half_extents()).ok()?),
            Self::Capsule(c) => Self::Capsule(Capsule::try_new(c.a() - origin, c.b() - origin, c.radius()).ok()?),
            Self::Hull(hull, pose) => {
                let mut pose = *pose;
                pose.translation.vector -= origin;
                Self::Hull(hull, pose)
            }
        })
    }

    /// The shape in the frame that `frame` places: `x -> R^T (x - t)`, the
    /// difference taken first so nearby large coordinates cancel exactly.
    /// `None` when the moved shape fails validation (a frame at the edge of
    /// the coordinate bound).
    pub(crate) fn in_frame(&self, frame: &Isometry) -> Option<Self> {
        use crate::mesh_frame::{capsule_in, obb_in, sphere_in};
        Some(match self {
            Self::Sphere(s) => Self::Sphere(sphere_in(frame, s)?),
            Self::Aabb(a) => {
                // The corners relative to the frame first (exact for nearby
                // coordinates), then the centre of that small box, rotated.
                let t = &frame.translation.vector;
                let near = Aabb::try_new(a.min() - t, a.max() - t).ok()?;
                let centre = frame.rotation.inverse_transform_point(&near.center());
                Self::Obb(Obb::try_new(centre, frame.rotation.inverse(), near.half_extents()).ok()?)
            }
            Self::Obb(o) => Self::Obb(obb_in(frame, o)?),
            Self::Capsule(c) => Self::Capsule(capsule_in(frame, c)?),
            Self::Hull(hull, pose) => {
                // frame^-1 * pose, its translation as R_f^T (t_p - t_f).
                let t = frame.rotation.inverse_transform_vector(&(pose.translation.vector - frame.translation.vector));
                let r = frame.rotation.inverse() * pose.rotation;
                Self::Hull(hull, Isometry::from_parts(t.into(), r))
            }
        })
    }

    /// The tight box around the shape.
    pub(crate) fn aabb(&self) -> Aabb {
        match self {
            Self::Sphere(s) => s.aabb(),
            Self::Aabb(a) => *a,
            Self::Obb(o) => o.aabb(),
            Self::Capsule(c) => c.aabb(),
            Self::Hull(hull, pose) => world_aabb(hull, pose),
        }
    }

    /// The shape as a support map for GJK.
    pub(crate) fn convex(&self) -> ConvexRef<'_> {
        match self {
            Self::Sphere(s) => ConvexRef::Sphere(s),
            Self::Aabb(a) => ConvexRef::Obb(Obb::from_aabb(a)),
            Self::Obb(o) => ConvexRef::Obb(*o),
            Self::Capsule(c) => ConvexRef::Capsule(c),
            Self::Hull(hull, pose) => ConvexRef::Hull(PosedHull::new(hull, pose)),
        }
    }
}

/// The box swept by `aabb` moving by `motion`: the start and end boxes
/// merged; `None` when the end box is not finite.
pub(crate) fn swept_aabb(aabb: &Aabb, motion: &Vector) -> Option<Aabb> {
    let end = Aabb::try_new(aabb.min() + motion, aabb.max() + motion).ok()?;
    Some(aabb.merged(&end))
}
