//! Colliders and their handles.

use proxima_broadphase::{CollisionGroups, ProxyId};

/// Where a collider's box lives: its position in the static set, or its
/// proxy in the dynamic tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum TreeKey {
    Static(u32),
    Dynamic(ProxyId),
}
use proxima_narrowphase::{Aabb, Capsule, Isometry, Point, Real, Rotation, ShapeError, Vector};

use crate::shape::{ColliderShape, WorldShape};

/// A handle to a collider in a [`Scene`](crate::Scene): a slot, the slot's
/// generation and the id of the scene that made it. A handle kept after
/// `remove` is detected as stale, never silently aliased to the collider
/// that reuses the slot, and a handle from another scene is refused the same
/// way (a clone of a scene, or a scene restored from a snapshot, keeps the
/// original's id and accepts its handles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    pub(crate) scene: u32,
}

impl ColliderHandle {
    /// The slot index (dense, reused after removal).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Whether a collider moves, and what it pairs with in the contact
/// pipeline: a pair has at least one dynamic collider (fixed-fixed,
/// fixed-kinematic and kinematic-kinematic pairs are never tested).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BodyKind {
    /// Never moves (or rarely, through `set_pose`): kept in the static tree,
    /// never re-queried against other fixed colliders. Serialized as
    /// `"Static"`, its former name.
    #[cfg_attr(feature = "serde", serde(rename = "Static"))]
    Fixed,
    /// Moves every frame, by the simulation: kept in the dynamic tree with
    /// fat boxes; pairs with every kind.
    #[default]
    Dynamic,
    /// Moves by the user's code (a moving platform, a player's body): kept
    /// in the dynamic tree like a dynamic collider, but pairs with dynamic
    /// colliders only. A kinematic sphere with CCD is swept like a dynamic
    /// one.
    Kinematic,
}

impl BodyKind {
    /// The former name of [`BodyKind::Fixed`].
    #[deprecated(since = "0.2.0", note = "renamed to `BodyKind::Fixed`, as the builder `ColliderDesc::fixed`")]
    #[allow(non_upper_case_globals)]
    pub const Static: BodyKind = BodyKind::Fixed;

    /// Whether two colliders of these kinds form pairs in the contact
    /// pipeline: when at least one is dynamic.
    #[inline]
    pub fn pairs_with(self, other: BodyKind) -> bool {
        self == BodyKind::Dynamic || other == BodyKind::Dynamic
    }
}

/// What to insert: the shape, its pose, and how it takes part in queries.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderDesc {
    /// The geometry in its own frame.
    pub shape: ColliderShape,
    /// Where it is.
    pub pose: Isometry,
    /// Fixed, dynamic or kinematic.
    pub kind: BodyKind,
    /// Collision groups, for pair filtering and query filters.
    pub groups: CollisionGroups,
    /// Continuous collision: the collider is swept from its previous pose to
    /// its new one each frame, and its earliest impact reported (convex
    /// shapes: the translation is swept, at the new orientation).
    pub ccd: bool,
    /// Free for the user (an entity id, say).
    pub user_data: u64,
    /// A sensor (a trigger volume): it reports which colliders overlap it
    /// ([`ContactPipeline::sensor_events`](crate::ContactPipeline::sensor_events))
    /// and takes part in no contact or manifold. Two sensors never pair.
    #[cfg_attr(feature = "serde", serde(default))]
    pub sensor: bool,
    /// The rigid body the collider belongs to, if any: colliders of one body
    /// never pair with each other.
    #[cfg_attr(feature = "serde", serde(default))]
    pub body: Option<u64>,
}

impl ColliderDesc {
    /// A dynamic collider with default groups, no CCD, `user_data = 0`, not a
    /// sensor and of no body.
    pub fn new(shape: ColliderShape, pose: Isometry) -> Self {
        Self {
            shape,
            pose,
            kind: BodyKind::Dynamic,
            groups: CollisionGroups::default(),
            ccd: false,
            user_data: 0,
            sensor: false,
            body: None,
        }
    }

    /// A dynamic capsule whose core segment runs from `a` to `b` (world
    /// frame): a [`ColliderShape::Capsule`] of half-height `|b - a| / 2`
    /// placed at the midpoint, its local y axis turned onto `b - a` (the
    /// shortest rotation; a half turn about x when `b - a` points along -y,
    /// none when `a == b`). Rejects what [`Capsule::try_new`] rejects
    /// (non-finite points, a negative radius, coordinates beyond
    /// [`MAX_COORDINATE`](proxima_narrowphase::MAX_COORDINATE)). The placed
    /// end points equal `a` and `b` up to rounding (a few ulps of their size).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Point;
    /// let desc = ColliderDesc::capsule(Point::new(0.0, 0.0, 0.0), Point::new(4.0, 0.0, 0.0), 0.5).unwrap();
    /// let mut scene = Scene::new();
    /// let h = scene.insert(desc).unwrap();
    /// let WorldShape::Capsule(c) = scene.get(h).unwrap().world_shape() else { unreachable!() };
    /// assert!((c.a() - Point::new(0.0, 0.0, 0.0)).norm() < 1e-6);
    /// assert!((c.b() - Point::new(4.0, 0.0, 0.0)).norm() < 1e-6);
    /// ```
    pub fn capsule(a: Point, b: Point, radius: Real) -> Result<Self, ShapeError> {
        Capsule::try_new(a, b, radius)?;
        let d: Vector = b - a;
        let length = d.norm();
        let center = Point::from(a.coords + d * 0.5);
        let rotation = if length == 0.0 {
            Rotation::identity()
        } else {
            // `rotation_between` has no answer for opposite vectors.
            Rotation::rotation_between(&Vector::y(), &d)
                .unwrap_or_else(|| Rotation::from_axis_angle(&Vector::x_axis(), core::f32::consts::PI))
        };
        let shape = ColliderShape::Capsule { half_height: length * 0.5, radius };
        Ok(Self::new(shape, Isometry::from_parts(center.coords.into(), rotation)))
    }

    /// The same description, fixed ([`BodyKind::Fixed`]).
    pub fn fixed(mut self) -> Self {
        self.kind = BodyKind::Fixed;
        self
    }

    /// The same description, kinematic: moved by the user's code, paired
    /// with dynamic colliders only (see [`BodyKind::Kinematic`]).
    pub fn kinematic(mut self) -> Self {
        self.kind = BodyKind::Kinematic;
        self
    }

    /// The same description as a sensor: overlap events, no contacts.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let zone = ColliderShape::Cuboid { half_extents: Vector::repeat(2.0) };
    /// let door = scene.insert(ColliderDesc::new(zone, Isometry::identity()).fixed().sensor()).unwrap();
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(1.0, 0.0, 0.0));
    /// let b = scene.insert(ball).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// assert!(pipeline.update(&mut scene).is_empty()); // no contact event
    /// assert_eq!(pipeline.sensor_events(), &[SensorEvent::Entered { a: door, b }]);
    /// assert!(pipeline.contacts().is_empty());
    /// ```
    pub fn sensor(mut self) -> Self {
        self.sensor = true;
        self
    }

    /// The same description, part of rigid body `body`: colliders of one
    /// body never pair with each other.
    pub fn with_body(mut self, body: u64) -> Self {
        self.body = Some(body);
        self
    }

    /// The same description with continuous collision on: each pipeline
    /// update sweeps the collider from its previous position to its current
    /// one ([`Scene::cast_shape`](crate::Scene::cast_shape), at its current
    /// orientation: the rotation of the step is not swept) and reports the
    /// first collider in the way as a
    /// [`CcdImpact`](crate::CcdImpact). Every convex shape, and a compound
    /// (each child swept, the earliest kept:
    /// [`CcdImpact::collider_child`](crate::CcdImpact::collider_child)); a
    /// triangle mesh or a heightfield is refused with
    /// [`SceneError::ShapeNotConvex`](crate::SceneError::ShapeNotConvex).
    pub fn with_ccd(mut self) -> Self {
        self.ccd = true;
        self
    }

    /// The same description with these groups.
    pub fn with_groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = groups;
        self
    }

    /// The same description with this user data.
    pub fn with_user_data(mut self, user_data: u64) -> Self {
        self.user_data = user_data;
        self
    }
}

/// A collider as stored in the scene.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collider {
    pub(crate) desc: ColliderDesc,
    pub(crate) world: WorldShape,
    pub(crate) aabb: Aabb,
    pub(crate) key: TreeKey,
    /// The pose before the last `set_pose`; a CCD collider's is reset to its
    /// pose by each pipeline update (it is the CCD sweep's start, read for
    /// CCD colliders only).
    pub(crate) previous_pose: Isometry,
}

impl Collider {
    /// The shape in its own frame.
    pub fn shape(&self) -> &ColliderShape {
        &self.desc.shape
    }

    /// The shape placed in the world.
    pub fn world_shape(&self) -> &WorldShape {
        &self.world
    }

    /// The pose.
    pub fn pose(&self) -> &Isometry {
        &self.desc.pose
    }

    /// The tight world box.
    pub fn aabb(&self) -> &Aabb {
        &self.aabb
    }

    /// Fixed, dynamic or kinematic.
    pub fn kind(&self) -> BodyKind {
        self.desc.kind
    }

    /// Collision groups.
    pub fn groups(&self) -> CollisionGroups {
        self.desc.groups
    }

    /// Whether continuous collision is on.
    pub fn ccd(&self) -> bool {
        self.desc.ccd
    }

    /// The user's data.
    pub fn user_data(&self) -> u64 {
        self.desc.user_data
    }

    /// Whether it is a sensor.
    pub fn is_sensor(&self) -> bool {
        self.desc.sensor
    }

    /// The rigid body it belongs to.
    pub fn body(&self) -> Option<u64> {
        self.desc.body
    }

    /// Whether the contact pipeline tests this collider against `other`:
    /// one of them is dynamic ([`BodyKind::pairs_with`]), they are not both
    /// sensors, and they are not parts of one body. (Their groups are
    /// checked by the pair search.)
    #[inline]
    pub fn pairs_with(&self, other: &Collider) -> bool {
        self.desc.kind.pairs_with(other.desc.kind)
            && !(self.desc.sensor && other.desc.sensor)
            && (self.desc.body.is_none() || self.desc.body != other.desc.body)
    }
}
