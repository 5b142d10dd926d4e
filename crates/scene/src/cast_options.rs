//! Options of the swept-shape queries, and the sweep of one placed shape
//! under them.

use core::ops::ControlFlow;

use proxima_narrowphase::{cast_sphere_triangle, Isometry, Sphere, SweepHit, SweepStatus, Vector};

use crate::mesh_frame::sphere_in;
use crate::shape::WorldShape;
use crate::trimesh::TriMesh;

/// The knobs of a swept-shape query ([`Scene::cast_sphere_with`](crate::Scene::cast_sphere_with)).
/// `Default` gives [`Scene::cast_sphere`](crate::Scene::cast_sphere)'s behaviour.
///
/// # Start overlaps
///
/// With `m` the motion and `n` a start overlap's normal (out of the collider,
/// towards the moving sphere's centre `c`, see [`SweepHit::normal`]), the
/// overlap is left alone by the motion when `m . n >= 0`. The reason, for a
/// convex target: the signed distance `phi` from a point to the target is
/// convex and `n` is a (sub)gradient of it at `c`, so
/// `phi(c + t m) >= phi(c) + t (m . n) >= phi(c)` for every `t >= 0`: the
/// depth `r - phi` never grows along the motion. And as `{t : phi(c + t m) <= r}`
/// is an interval that holds 0, a sphere that leaves the target never comes
/// back: ignoring the start overlap loses no later hit on that collider. This
/// is the test of parry's `ShapeCastOptions::stop_at_penetration` (parry3d
/// `query/shape_cast/shape_cast_ball_ball.rs`: `normal1 . vel12 >= 0`).
///
/// A mesh is not convex: it is swept triangle by triangle (each convex), each
/// triangle's start overlap judged on its own, so a wall of a mesh ahead of a
/// character still stops it while the mesh floor it stands in does not. A
/// compound is swept child by child in the same way.
///
/// Degenerate cases: a tangential motion (`m . n = 0`: sliding along a floor)
/// and a zero motion leave every overlap (a zero motion then hits nothing); a
/// centre exactly at a sphere's centre, or on a capsule's segment or a
/// triangle, has no direction out, and the narrowphase turns the normal
/// against the motion (`m . n < 0`), so that overlap stops the cast.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{Isometry, Point, Sphere, Vector};
/// let mut scene = Scene::new();
/// let floor = ColliderShape::Cuboid { half_extents: Vector::new(10.0, 0.5, 10.0) };
/// scene.insert(ColliderDesc::new(floor, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
/// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 2.0, 10.0) };
/// let wall = scene.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 2.0, 0.0)).fixed()).unwrap();
/// // A character sunk 0.01 into the floor walks along x towards the wall.
/// let body = Sphere::new(Point::new(0.0, 0.49, 0.0), 0.5);
/// let walk = Vector::new(8.0, 0.0, 0.0);
/// let any = QueryFilter::default();
/// // By default the floor stops it where it stands.
/// assert_eq!(scene.cast_sphere(&body, &walk, &any).unwrap().hit.toi, 0.0);
/// // Without stopping at a start overlap the motion leaves, the wall does, at x = 4.
/// let hit = scene.cast_sphere_with(&body, &walk, &any, &CastOptions::no_stop_at_penetration()).unwrap();
/// assert_eq!(hit.collider, wall);
/// assert!((hit.hit.toi - 4.0 / 8.0).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CastOptions {
    /// `true` (the default): a collider the shape already overlaps or touches
    /// at the start stops the cast there, a
    /// [`SweepStatus::Penetrating`] hit at `toi = 0`. `false`: such a start
    /// overlap stops it only when the motion goes into it
    /// (`motion . normal < 0`, see above); one the motion leaves is ignored,
    /// and the cast goes on to the later hits on the other colliders.
    pub stop_at_penetration: bool,
}

impl Default for CastOptions {
    fn default() -> Self {
        Self { stop_at_penetration: true }
    }
}

impl CastOptions {
    /// The options of a character's move: `stop_at_penetration: false`, so
    /// the start overlaps the motion leaves do not stop it.
    #[must_use]
    pub const fn no_stop_at_penetration() -> Self {
        Self { stop_at_penetration: false }
    }
}

/// The first hit of `sphere` moving by `motion` on `shape` under `options`:
/// [`WorldShape::cast_sphere`] itself when start overlaps stop the cast.
#[inline]
pub(crate) fn cast_sphere_on(
    shape: &WorldShape,
    sphere: &Sphere,
    motion: &Vector,
    options: &CastOptions,
) -> Option<SweepHit> {
    if options.stop_at_penetration {
        return shape.cast_sphere(sphere, motion);
    }
    match shape {
        WorldShape::TriMesh(mesh, pose) => cast_sphere_mesh_leaving(mesh, pose, sphere, motion),
        WorldShape::Compound(compound, pose) => {
            // Each child is convex: its start overlap is judged on its own.
            let swept = crate::local_convex::swept_aabb(&sphere.aabb(), motion)?;
            let mut best: Option<SweepHit> = None;
            let _ = compound.visit_overlapping(pose, &swept, |i| {
                let hit =
                    compound.child_world(i, pose).and_then(|child| cast_sphere_on(&child, sphere, motion, options));
                if let Some(hit) = hit.filter(|h| best.is_none_or(|b| h.toi < b.toi)) {
                    best = Some(hit);
                }
                ControlFlow::Continue(())
            });
            best
        }
        // A convex shape: a start overlap the motion leaves is its only
        // contact (see `CastOptions`).
        _ => shape.cast_sphere(sphere, motion).filter(|hit| !leaves(hit, motion)),
    }
}

/// True when `hit` is a start overlap that `motion` does not go into:
/// `motion . normal >= 0`.
#[inline]
fn leaves(hit: &SweepHit, motion: &Vector) -> bool {
    hit.status == SweepStatus::Penetrating && motion.dot(&hit.normal) >= 0.0
}

/// [`TriMesh::cast_sphere_posed`] skipping each triangle's start overlap
/// that the motion leaves: the earliest hit among the other triangles. The
/// sweep and the test run in the mesh frame (the pose's rotation keeps dot
/// products), so a hit no triangle's skip changed is the posed cast's own.
fn cast_sphere_mesh_leaving(mesh: &TriMesh, pose: &Isometry, sphere: &Sphere, motion: &Vector) -> Option<SweepHit> {
    let local = sphere_in(pose, sphere)?;
    let local_motion = pose.inverse_transform_vector(motion);
    let swept = local.swept_aabb(&local_motion)?;
    let mut best: Option<SweepHit> = None;
    let _ = mesh.visit_candidates(&swept, |_, t| {
        if let Some(hit) = cast_sphere_triangle(&local, &local_motion, t) {
            if !leaves(&hit, &local_motion) && best.is_none_or(|b| hit.toi < b.toi) {
                best = Some(hit);
            }
        }
        ControlFlow::Continue(())
    });
    let hit = best?;
    Some(SweepHit { point: pose.transform_point(&hit.point), normal: pose.rotation * hit.normal, ..hit })
}
