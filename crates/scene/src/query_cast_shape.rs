//! A convex collider shape moving linearly through the scene: the first
//! collider it touches.

use core::ops::ControlFlow;
use std::sync::Arc;

use proxima_narrowphase::{cast_obb_obb, cast_shape_convex, intersects_aabb_aabb, Isometry, Real, SweepHit, Vector};

use crate::compound::Compound;
use crate::error::SceneError;
use crate::filter::QueryFilter;
use crate::hull::ConvexRef;
use crate::local_convex::{swept_aabb, LocalConvex};
use crate::query_shape::SceneSweepHit;
use crate::scene::Scene;
use crate::shape::{validated_pose, ColliderShape, WorldShape};

impl Scene {
    /// The first hit of the convex or compound `shape`, placed by `pose`, moving by
    /// `motion` (a translation; `toi` in `[0, 1]`, the shape then placed at
    /// `pose` moved by `toi * motion`), on a collider the filter accepts.
    ///
    /// The candidates are culled by the swept box (the shape's start and end
    /// boxes merged), clipped to the best hit found so far, static colliders
    /// first; each is confirmed by the exact sweep. A sphere takes the
    /// closed-form sweeps of [`Scene::cast_sphere`], a box against a box
    /// the closed form [`cast_obb_obb`]; the other shapes conservative
    /// advancement ([`cast_shape_convex`]) against convex colliders and
    /// against each triangle of a mesh that the swept box reaches (in the
    /// mesh's frame). Every cast runs relative to a point
    /// near the moving shape, so `toi` keeps its accuracy far from the
    /// world origin. The result is read as for [`Scene::cast_sphere`]:
    /// `point` on the collider's surface, `normal` out of it towards the
    /// moving shape; ties keep the first found.
    ///
    /// A compound moves as its children: each child is cast alone, as this
    /// function casts that convex shape placed at `pose * child_pose` (the
    /// same hit, bit for bit), each child's search skipping the colliders out
    /// of its reach up to the best hit so far; the earliest child hit is
    /// returned, the lowest child index on a tie, and
    /// [`SceneSweepHit::moving_child`] names that child.
    ///
    /// Degenerate cases: a collider the shape overlaps or touches at the
    /// start is hit at `toi = 0`
    /// ([`SweepStatus::Penetrating`](proxima_narrowphase::SweepStatus)),
    /// whichever way it moves; a zero motion is the static overlap test (a
    /// start contact, or `None`); a motion that grazes a face stops where the
    /// shapes come within the touching band of the narrowphase.
    ///
    /// # Errors
    /// - [`SceneError::InvalidMotion`]: a motion component is NaN or
    ///   infinite, or the shape's end box is not finite.
    /// - [`SceneError::ShapeNotConvex`]: `shape` is a triangle mesh or a
    ///   heightfield (a mesh collider is hit triangle by triangle).
    /// - [`SceneError::InvalidPose`] (with `handle: None`): the pose fails the
    ///   rule of every collider's pose ([`PoseError`](crate::PoseError)).
    /// - [`SceneError::InvalidShape`]: the shape itself (a negative or NaN
    ///   size), as [`ColliderShape::placed`] checks it; for a compound, a
    ///   child placed by `pose`.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 5.0, 5.0) };
    /// let h = scene.insert(ColliderDesc::new(wall, Isometry::translation(10.0, 0.0, 0.0)).fixed()).unwrap();
    /// // A capsule of radius 0.5 standing at the origin, moving 20 along x,
    /// // touches the face x = 9.5 when its axis reaches x = 9.
    /// let capsule = ColliderShape::Capsule { half_height: 1.0, radius: 0.5 };
    /// let motion = Vector::new(20.0, 0.0, 0.0);
    /// let hit = scene.cast_shape(&capsule, &Isometry::identity(), &motion, &QueryFilter::default()).unwrap().unwrap();
    /// assert_eq!(hit.collider, h);
    /// assert!((hit.hit.toi - 9.0 / 20.0).abs() < 1e-5);
    /// // The same cast without the wall misses.
    /// let filter = QueryFilter::default().exclude_collider(h);
    /// assert_eq!(scene.cast_shape(&capsule, &Isometry::identity(), &motion, &filter), Ok(None));
    /// // A dumbbell along x: its leading ball (child 1, radius 0.5 at x = 1)
    /// // touches the face when its centre reaches x = 9.
    /// let dumbbell = ColliderShape::Compound(std::sync::Arc::new(Compound::try_new(vec![
    ///     (Isometry::translation(-1.0, 0.0, 0.0), ColliderShape::Sphere { radius: 0.5 }),
    ///     (Isometry::translation(1.0, 0.0, 0.0), ColliderShape::Sphere { radius: 0.5 }),
    /// ]).unwrap()));
    /// let hit = scene.cast_shape(&dumbbell, &Isometry::identity(), &motion, &QueryFilter::default()).unwrap().unwrap();
    /// assert_eq!((hit.collider, hit.moving_child), (h, Some(1)));
    /// assert!((hit.hit.toi - 8.0 / 20.0).abs() < 1e-6);
    /// // A triangle mesh cannot be swept.
    /// let mesh = ColliderShape::TriMesh(std::sync::Arc::new(TriMesh::new(
    ///     vec![[0.0, 0.0, 0.0].into(), [1.0, 0.0, 0.0].into(), [0.0, 1.0, 0.0].into()],
    ///     vec![[0, 1, 2]],
    /// ).unwrap()));
    /// let err = scene.cast_shape(&mesh, &Isometry::identity(), &motion, &QueryFilter::default());
    /// assert_eq!(err, Err(SceneError::ShapeNotConvex));
    /// ```
    pub fn cast_shape(
        &self,
        shape: &ColliderShape,
        pose: &Isometry,
        motion: &Vector,
        filter: &QueryFilter,
    ) -> Result<Option<SceneSweepHit>, SceneError> {
        if !motion.iter().all(|x| x.is_finite()) {
            return Err(SceneError::InvalidMotion);
        }
        if let ColliderShape::Compound(compound) = shape {
            return self.cast_compound(compound, pose, motion, filter);
        }
        if !shape.is_convex() {
            return Err(SceneError::ShapeNotConvex);
        }
        self.cast_convex(shape, pose, motion, filter, None)
    }

    /// The first hit of the compound placed by `pose` moving by `motion`:
    /// each child cast alone at `pose * child_pose` (the pose as given, so a
    /// child's hit is bit for bit the one [`Scene::cast_shape`] gives for
    /// it), the smallest `toi` kept, the lowest child index on a tie. A
    /// child's search skips the colliders out of its reach up to the best
    /// hit so far: they hold no earlier hit.
    fn cast_compound(
        &self,
        compound: &Arc<Compound>,
        pose: &Isometry,
        motion: &Vector,
        filter: &QueryFilter,
    ) -> Result<Option<SceneSweepHit>, SceneError> {
        let checked = validated_pose(pose).map_err(|error| SceneError::InvalidPose { handle: None, error })?;
        compound.placed(&checked)?;
        let mut best: Option<SceneSweepHit> = None;
        for (i, (local, child)) in compound.children().iter().enumerate() {
            let bound = best.map(|b| b.hit.toi);
            if let Some(hit) = self.cast_convex(child, &(pose * local), motion, filter, bound)? {
                if best.is_none_or(|b| hit.hit.toi < b.hit.toi) {
                    best = Some(SceneSweepHit { moving_child: Some(i as u32), ..hit });
                }
            }
        }
        Ok(best)
    }

    /// [`Scene::cast_shape`] of the convex `shape` (motion checked finite);
    /// with `bound`, only a hit with `toi < bound` is returned, and the
    /// colliders out of the shape's reach up to `bound` are not tested.
    fn cast_convex(
        &self,
        shape: &ColliderShape,
        pose: &Isometry,
        motion: &Vector,
        filter: &QueryFilter,
        bound: Option<Real>,
    ) -> Result<Option<SceneSweepHit>, SceneError> {
        let pose = validated_pose(pose).map_err(|error| SceneError::InvalidPose { handle: None, error })?;
        let world = shape.placed(&pose)?;
        if let WorldShape::Sphere(sphere) = &world {
            let hit = self.cast_sphere(sphere, motion, filter);
            return Ok(hit.filter(|h| bound.is_none_or(|b| h.hit.toi < b)));
        }
        let moving = LocalConvex::of(&world).ok_or(SceneError::ShapeNotConvex)?;
        let start = moving.aabb();
        let swept = swept_aabb(&start, motion).ok_or(SceneError::InvalidMotion)?;
        // The local origin of every convex cast (see `LocalConvex::shifted`).
        let origin = start.center().coords;
        let local = moving.shifted(&origin).ok_or(SceneError::InvalidMotion)?;
        let mut best: Option<SceneSweepHit> = None;
        let _ = self.visit_accepted(&swept, filter, |handle, collider| {
            // The shape's reach up to the best hit: a collider outside it is
            // not hit first.
            if let Some(toi) = best.map(|b| b.hit.toi).or(bound) {
                let reach = swept_aabb(&start, &(motion * toi));
                if reach.is_some_and(|r| !intersects_aabb_aabb(&r, &collider.aabb)) {
                    return ControlFlow::Continue(());
                }
            }
            if let Some(hit) = cast_on(&collider.world, &moving, &local, &origin, motion) {
                let first = best.map(|b| b.hit.toi).or(bound).is_none_or(|t| hit.toi < t);
                if first {
                    best = Some(SceneSweepHit { collider: handle, hit, moving_child: None });
                }
            }
            ControlFlow::Continue(())
        });
        Ok(best)
    }
}

/// The first hit of `moving` (world frame; `local` is it moved by `-origin`)
/// moving by `motion` on the placed collider `target` (world frame).
fn cast_on(
    target: &WorldShape,
    moving: &LocalConvex<'_>,
    local: &LocalConvex<'_>,
    origin: &Vector,
    motion: &Vector,
) -> Option<SweepHit> {
    if let WorldShape::Compound(compound, pose) = target {
        // The first hit on the children that the swept box reaches.
        let swept = swept_aabb(&moving.aabb(), motion)?;
        let mut best: Option<SweepHit> = None;
        let _ = compound.visit_overlapping(pose, &swept, |i| {
            let hit = compound.child_world(i, pose).and_then(|child| cast_on(&child, moving, local, origin, motion));
            if let Some(hit) = hit {
                if best.is_none_or(|b| hit.toi < b.toi) {
                    best = Some(hit);
                }
            }
            ControlFlow::Continue(())
        });
        return best;
    }
    if let WorldShape::TriMesh(mesh, frame) = target {
        // In the mesh frame, where its BVH and triangles are; a rotation
        // keeps lengths, so `toi` is the world one.
        let hit = mesh.cast_convex(&moving.in_frame(frame)?, &frame.inverse_transform_vector(motion))?;
        return Some(SweepHit { point: frame.transform_point(&hit.point), normal: frame.rotation * hit.normal, ..hit });
    }
    let near = LocalConvex::of(target)?.shifted(origin)?;
    // Two boxes have a closed form (their separating axes over time).
    let hit = match (local.convex(), near.convex()) {
        (ConvexRef::Obb(a), ConvexRef::Obb(b)) => cast_obb_obb(&a, motion, &b)?,
        (a, b) => cast_shape_convex(&a, motion, &b)?,
    };
    Some(SweepHit { point: hit.point + origin, ..hit })
}
