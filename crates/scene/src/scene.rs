//! The collider collection: insert, remove, move, reshape.

use core::ops::ControlFlow;

use proxima_broadphase::{CollisionGroups, RayControl, TreeStats, ValidationError};
use proxima_narrowphase::{Aabb, Isometry, Ray, Real};

use crate::change_log::{ChangeLog, RemovedCollider};
use crate::collider::{BodyKind, Collider, ColliderDesc, ColliderHandle, TreeKey};
use crate::dynamic_set::DynamicSet;
use crate::error::SceneError;
use crate::shape::{validated_pose, ColliderShape, WorldShape};
use crate::slots::Slots;
use crate::static_set::StaticSet;

/// A collection of posed colliders answering scene queries, and the source of
/// a physics engine's contact pairs.
///
/// Dynamic colliders live in a [`DynamicTree`](proxima_broadphase::DynamicTree)
/// with fat boxes; static ones in a [`StaticBvh`](proxima_broadphase::StaticBvh)
/// (binned SAH, 8-wide SIMD nodes) rebuilt lazily at the first query after a
/// static collider changes. Queries visit both; the contact pipeline
/// re-queries only dynamic colliders, so static pairs are never tested.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
/// let mut scene = Scene::new();
/// let wall = scene
///     .insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::new(0.1, 5.0, 5.0) },
///         Isometry::translation(10.0, 0.0, 0.0)).fixed())
///     .unwrap();
/// let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
/// let hit = scene.cast_ray_closest(&ray, &QueryFilter::default()).unwrap();
/// assert_eq!(hit.collider, wall);
/// assert!((hit.toi - 9.9).abs() < 1e-5);
/// ```
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "StoredScene"))]
pub struct Scene {
    /// The colliders by slot, with a generation per slot (bumped on removal)
    /// and the free list's order, both part of a snapshot.
    pub(crate) colliders: Slots<Collider>,
    pub(crate) static_set: StaticSet,
    pub(crate) dynamic_set: DynamicSet,
    /// Dynamic inserts since the dynamic tree's last full rebuild.
    inserted_since_rebuild: usize,
    /// Dynamic colliders at that rebuild.
    dynamic_at_rebuild: usize,
    /// The colliders changed since the contact pipeline last read them (a
    /// restored scene starts empty: its first pipeline update reads all).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) changes: ChangeLog,
    /// The shapes [`set_poses`](Scene::set_poses)'s check placed, kept
    /// between calls so that a steady frame allocates nothing; empty
    /// between calls.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) checked_shapes: Vec<(WorldShape, Aabb)>,
}

/// A [`Scene`] as a payload holds it, before validation: accepted only if
/// [`Scene::validate`] passes (every collider in its kind's tree, named back
/// by it, its box and shape consistent with its description), so a corrupt
/// snapshot is an error, never a scene that answers wrongly.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct StoredScene {
    colliders: Slots<Collider>,
    static_set: StaticSet,
    dynamic_set: DynamicSet,
    inserted_since_rebuild: usize,
    dynamic_at_rebuild: usize,
}

#[cfg(feature = "serde")]
impl TryFrom<StoredScene> for Scene {
    type Error = String;

    fn try_from(s: StoredScene) -> Result<Self, String> {
        let scene = Self {
            colliders: s.colliders,
            static_set: s.static_set,
            dynamic_set: s.dynamic_set,
            inserted_since_rebuild: s.inserted_since_rebuild,
            dynamic_at_rebuild: s.dynamic_at_rebuild,
            changes: ChangeLog::default(),
            checked_shapes: Vec::new(),
        };
        scene.validate().map_err(|e| format!("invalid scene: {}", e.0))?;
        Ok(scene)
    }
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of colliders.
    pub fn len(&self) -> usize {
        self.colliders.len()
    }

    /// True when the scene holds no collider.
    pub fn is_empty(&self) -> bool {
        self.colliders.len() == 0
    }

    /// Adds a collider. Rejects an invalid shape (NaN, infinity, negative
    /// size), an invalid pose ([`SceneError::InvalidPose`], the rule of
    /// [`Scene::set_pose`], whatever the shape) and CCD on a non-sphere; the
    /// scene is unchanged then.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, ShapeError};
    /// let mut scene = Scene::new();
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(0.0, 2.0, 0.0));
    /// let h = scene.insert(ball).unwrap();
    /// assert_eq!(scene.get(h).unwrap().kind(), BodyKind::Dynamic);
    /// let bad = ColliderDesc::new(ColliderShape::Sphere { radius: -1.0 }, Isometry::identity());
    /// assert_eq!(scene.insert(bad).err(), Some(SceneError::InvalidShape(ShapeError::NegativeRadius)));
    /// assert_eq!(scene.len(), 1);
    /// ```
    pub fn insert(&mut self, desc: ColliderDesc) -> Result<ColliderHandle, SceneError> {
        if desc.ccd && !desc.shape.is_sweepable() {
            return Err(SceneError::ShapeNotConvex);
        }
        let pose = validated_pose(&desc.pose).map_err(|error| SceneError::InvalidPose { handle: None, error })?;
        let desc = ColliderDesc { pose, ..desc };
        let world = desc.shape.placed(&desc.pose)?;
        let aabb = world.aabb();
        let slot = self.colliders.next_slot();
        let key = match desc.kind {
            BodyKind::Fixed => TreeKey::Static(self.static_set.insert(aabb, slot)),
            BodyKind::Dynamic | BodyKind::Kinematic => {
                self.inserted_since_rebuild += 1;
                TreeKey::Dynamic(self.dynamic_set.insert(aabb, slot))
            }
        };
        let previous_pose = desc.pose;
        let handle = self.colliders.insert(Collider { desc, world, aabb, key, previous_pose });
        debug_assert_eq!(handle.index, slot);
        self.changes.log(slot);
        Ok(handle)
    }

    /// Removes a collider and returns it; a stale handle is an error.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// assert!(scene.remove(h).is_ok());
    /// assert_eq!(scene.remove(h).err(), Some(SceneError::StaleHandle));
    /// // The slot is reused, but the old handle stays stale.
    /// let desc = ColliderDesc::new(ColliderShape::Sphere { radius: 2.0 }, Isometry::identity());
    /// let again = scene.insert(desc).unwrap();
    /// assert_eq!(again.index(), h.index());
    /// assert!(scene.get(h).is_none() && scene.get(again).is_some());
    /// ```
    pub fn remove(&mut self, handle: ColliderHandle) -> Result<Collider, SceneError> {
        let collider = self.colliders.remove(handle).ok_or(SceneError::StaleHandle)?;
        self.changes.log_removal(RemovedCollider { handle, user_data: collider.desc.user_data });
        match collider.key {
            TreeKey::Static(pos) => {
                if let Some(moved) = self.static_set.remove(pos) {
                    self.colliders[moved].key = TreeKey::Static(pos);
                }
            }
            TreeKey::Dynamic(proxy) => self.dynamic_set.remove(proxy),
        }
        Ok(collider)
    }

    /// The collider behind a handle, `None` when stale.
    pub fn get(&self, handle: ColliderHandle) -> Option<&Collider> {
        self.colliders.get(handle)
    }

    /// Every live collider with its handle, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (ColliderHandle, &Collider)> {
        self.colliders.iter().map(|(slot, c)| (self.handle_of(slot), c))
    }

    /// Moves a collider. The previous pose is kept as the start of this
    /// frame's CCD sweep. Rejects a stale handle, or a pose that breaks the
    /// rule of every pose ([`PoseError`](crate::PoseError): a finite translation, a quaternion
    /// within [`POSE_ROTATION_TOLERANCE`](crate::POSE_ROTATION_TOLERANCE) of unit length, which is
    /// renormalised) with [`SceneError::InvalidPose`] naming the handle,
    /// leaving the scene unchanged.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// scene.set_pose(h, Isometry::translation(5.0, 0.0, 0.0)).unwrap();
    /// let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    /// assert_eq!(scene.cast_ray_closest(&ray, &QueryFilter::default()).unwrap().toi, 4.0);
    /// ```
    pub fn set_pose(&mut self, handle: ColliderHandle, pose: Isometry) -> Result<(), SceneError> {
        let collider = self.colliders.get_mut(handle).ok_or(SceneError::StaleHandle)?;
        let pose = validated_pose(&pose).map_err(|error| SceneError::InvalidPose { handle: Some(handle), error })?;
        // Nothing has changed yet: a shape that fails to place (a capsule
        // whose end leaves the bounds) leaves the collider as it was.
        let aabb = collider.desc.shape.place_validated(&pose, &mut collider.world)?;
        let (key, previous) = moved_to(collider, pose, aabb);
        self.moved(handle.index, key, aabb, &previous);
        Ok(())
    }

    /// Moves a collider without a CCD sweep: the previous pose becomes the new
    /// pose too (respawns, or placing a CCD collider at its time of impact).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.1, 5.0, 5.0) };
    /// scene.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 0.0, 0.0)).fixed()).unwrap();
    /// let bullet = ColliderDesc::new(ColliderShape::Sphere { radius: 0.1 }, Isometry::identity()).with_ccd();
    /// let h = scene.insert(bullet).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// pipeline.update(&mut scene);
    /// // Teleported through the wall: no sweep, no CCD impact.
    /// scene.teleport(h, Isometry::translation(10.0, 0.0, 0.0)).unwrap();
    /// pipeline.update(&mut scene);
    /// assert!(pipeline.ccd_impacts().is_empty());
    /// ```
    pub fn teleport(&mut self, handle: ColliderHandle, pose: Isometry) -> Result<(), SceneError> {
        self.set_pose(handle, pose)?;
        let collider = &mut self.colliders[handle.index];
        collider.previous_pose = collider.desc.pose;
        Ok(())
    }

    /// Changes a collider's shape (a CCD collider's must stay convex).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// let probe = Sphere::new(Point::new(3.0, 0.0, 0.0), 0.5);
    /// assert!(scene.overlaps_sphere(&probe, &QueryFilter::default()).is_empty());
    /// scene.set_shape(h, ColliderShape::Cuboid { half_extents: Vector::new(3.0, 1.0, 1.0) }).unwrap();
    /// assert_eq!(scene.overlaps_sphere(&probe, &QueryFilter::default()), vec![h]);
    /// ```
    pub fn set_shape(&mut self, handle: ColliderHandle, shape: ColliderShape) -> Result<(), SceneError> {
        self.check(handle)?;
        let collider = &self.colliders[handle.index];
        if collider.desc.ccd && !shape.is_sweepable() {
            return Err(SceneError::ShapeNotConvex);
        }
        let world = shape.placed(&collider.desc.pose)?;
        let aabb = world.aabb();
        self.colliders[handle.index].desc.shape = shape;
        self.install(handle.index, world, aabb);
        self.changes.log_reshape();
        Ok(())
    }

    /// Changes a collider's collision groups. Queries see the new groups at
    /// once; the contact pipeline re-reads them at its next `update`, so a pair
    /// that no longer interacts gets its `Stopped` event then (and `Started`
    /// when it interacts again). Rejects a stale handle.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// scene.set_groups(h, CollisionGroups::new(0b10, 0b01)).unwrap();
    /// assert_eq!(scene.get(h).unwrap().groups(), CollisionGroups::new(0b10, 0b01));
    /// ```
    pub fn set_groups(&mut self, handle: ColliderHandle, groups: CollisionGroups) -> Result<(), SceneError> {
        self.check(handle)?;
        self.changes.log(handle.index);
        let collider = &mut self.colliders[handle.index];
        collider.desc.groups = groups;
        if let TreeKey::Static(_) = collider.key {
            // The static set's ray table caches each collider's groups.
            self.static_set.groups_changed();
        }
        Ok(())
    }

    /// Changes a collider's user data. Rejects a stale handle.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// scene.set_user_data(h, 42).unwrap();
    /// assert_eq!(scene.get(h).unwrap().user_data(), 42);
    /// ```
    pub fn set_user_data(&mut self, handle: ColliderHandle, user_data: u64) -> Result<(), SceneError> {
        self.check(handle)?;
        self.colliders[handle.index].desc.user_data = user_data;
        Ok(())
    }

    /// Installs validated new geometry (`world`, with its box `aabb`) in the
    /// live collider of `slot`, logs the change and moves its box in its tree.
    fn install(&mut self, slot: u32, world: WorldShape, aabb: Aabb) {
        let collider = &mut self.colliders[slot];
        let previous = core::mem::replace(&mut collider.aabb, aabb);
        collider.world = world;
        let key = collider.key;
        self.moved(slot, key, aabb, &previous);
    }

    /// Logs the change of the collider in `slot`, whose box went from
    /// `previous` to `aabb`, and moves its box in the tree `key` names.
    #[inline(always)]
    pub(crate) fn moved(&mut self, slot: u32, key: TreeKey, aabb: Aabb, previous: &Aabb) {
        self.changes.log(slot);
        match key {
            TreeKey::Static(pos) => self.static_set.update(pos, aabb),
            TreeKey::Dynamic(proxy) => self.dynamic_set.update(proxy, aabb, previous),
        }
    }

    pub(crate) fn check(&self, handle: ColliderHandle) -> Result<(), SceneError> {
        if self.colliders.contains(handle) {
            Ok(())
        } else {
            Err(SceneError::StaleHandle)
        }
    }

    pub(crate) fn handle_of(&self, slot: u32) -> ColliderHandle {
        self.colliders.handle_of(slot)
    }

    /// Brings both trees to full quality: builds the static BVH if a change
    /// invalidated it (otherwise the first query does); tightens the dynamic
    /// tree's boxes that moves grew in place (a move that leaves its fat box
    /// only grows the boxes above it), rebuilding the tree when its SAH cost
    /// has grown by half since its last rebuild; and rebuilds the
    /// dynamic tree with a binned SAH build when more colliders were inserted
    /// since its last rebuild than it held then (incremental insertion of a
    /// bulk load, in spawn order, makes a deep tree). The contact pipeline
    /// calls it each frame; call it yourself after loading a level if you
    /// query before the first pipeline update.
    pub fn prepare(&mut self) {
        self.static_set.prepare();
        self.dynamic_set.tidy();
        if self.inserted_since_rebuild > self.dynamic_at_rebuild.max(16) {
            self.dynamic_set.rebuild();
            self.inserted_since_rebuild = 0;
            self.dynamic_at_rebuild = self.dynamic_set.len();
        }
    }

    /// Visits the colliders whose box overlaps `aabb`: static ones, then dynamic ones.
    pub(crate) fn visit_candidates(&self, aabb: &Aabb, mut f: impl FnMut(u32) -> ControlFlow<()>) {
        if self.static_set.visit_overlaps(aabb, &mut f).is_continue() {
            let _ = self.dynamic_set.visit_overlaps(aabb, f);
        }
    }

    /// Visits the colliders whose box the ray enters (static, then dynamic).
    /// The visitor's `RayControl` clips or stops the traversal; a clip in the
    /// static pass also shortens the ray of the dynamic pass, and `Stop` skips it.
    pub(crate) fn visit_ray_candidates(&self, ray: &Ray, mut f: impl FnMut(u32, Real) -> RayControl) {
        let mut stopped = false;
        let mut max_toi = ray.max_toi();
        self.static_set.visit_ray(ray, |slot, toi| {
            let c = f(slot, toi);
            match c {
                RayControl::Stop => stopped = true,
                RayControl::Clip(t) => max_toi = max_toi.min(t),
                RayControl::Continue => {}
            }
            c
        });
        if !stopped {
            self.dynamic_set.visit_ray(&ray.with_max_toi(max_toi), f);
        }
    }

    /// Walks both trees and checks them against the collider list: every
    /// collider's box is in the tree of its kind at the recorded place, and each
    /// tree's own invariants hold. Returns both trees' stats.
    pub fn validate(&self) -> Result<SceneTreeStats, ValidationError> {
        let statics = self.static_set.validate()?;
        let dynamics = self.dynamic_set.validate()?;
        let TreeSizes { statics: s, dynamics: d } = self.tree_sizes();
        let kinds = self.colliders.iter().fold((0, 0), |(s, d), (_, c)| match c.key {
            TreeKey::Static(_) => (s + 1, d),
            TreeKey::Dynamic(_) => (s, d + 1),
        });
        if kinds != (s, d) {
            return Err(ValidationError(format!("trees hold {s} + {d} proxies for {kinds:?} colliders")));
        }
        // Each collider: its tree entry names it back and holds its box; its
        // placed shape is its description at its pose.
        for (slot, c) in self.colliders.iter() {
            let fail = |what: &str| Err(ValidationError(format!("collider {slot}: {what}")));
            let (back, stored) = match c.key {
                TreeKey::Static(pos) => self.static_set.entry(pos),
                TreeKey::Dynamic(id) => self.dynamic_set.entry(id),
            }
            .map_or((u32::MAX, c.aabb), |e| e);
            if back != slot {
                return fail("its tree entry names another collider or none");
            }
            if !stored.contains_aabb(&c.aabb) {
                return fail("its tree box does not contain its box");
            }
            let kind_matches = matches!(
                (c.key, c.desc.kind),
                (TreeKey::Static(_), BodyKind::Fixed) | (TreeKey::Dynamic(_), BodyKind::Dynamic | BodyKind::Kinematic)
            );
            if !kind_matches {
                return fail("it is in the other kind's tree");
            }
            match c.desc.shape.placed(&c.desc.pose) {
                Ok(world) if world.aabb() == c.aabb => {}
                _ => return fail("its shape and box disagree with its description and pose"),
            }
        }
        Ok(SceneTreeStats { statics, dynamics })
    }

    /// Number of proxies in the static and the dynamic tree; equal to the
    /// numbers of static and dynamic colliders.
    pub fn tree_sizes(&self) -> TreeSizes {
        TreeSizes { statics: self.static_set.len(), dynamics: self.dynamic_set.len() }
    }
}

/// Gives `collider`, whose shape was just placed at `pose` with box `aabb`,
/// its new pose (the old one becoming its sweep start) and box; returns its
/// tree key and its previous box.
#[inline(always)]
pub(crate) fn moved_to(collider: &mut Collider, pose: Isometry, aabb: Aabb) -> (TreeKey, Aabb) {
    collider.previous_pose = core::mem::replace(&mut collider.desc.pose, pose);
    (collider.key, core::mem::replace(&mut collider.aabb, aabb))
}

/// The stats of a scene's two trees (see [`Scene::validate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SceneTreeStats {
    /// The static colliders' BVH (all zero when there is none).
    pub statics: TreeStats,
    /// The dynamic colliders' tree.
    pub dynamics: TreeStats,
}

/// The numbers of proxies in a scene's two trees (see [`Scene::tree_sizes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeSizes {
    /// Proxies in the static tree: the static colliders.
    pub statics: usize,
    /// Proxies in the dynamic tree: the dynamic colliders.
    pub dynamics: usize,
}
