//! Query filters.

use proxima_broadphase::CollisionGroups;

use crate::collider::{BodyKind, Collider, ColliderHandle};

/// A user test on a candidate collider: report it only when this returns true.
pub type ColliderPredicate<'a> = &'a (dyn Fn(ColliderHandle, &Collider) -> bool + Sync);

/// Which colliders a query may report. `Default` accepts everything; the
/// builders narrow it, each test adding to the others (a collider is reported
/// only when it passes them all).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{Isometry, Point, Sphere};
/// let mut scene = Scene::new();
/// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
/// let me = scene.insert(ball(0.0).kinematic()).unwrap();
/// let ground = scene.insert(ball(1.0).fixed()).unwrap();
/// let crate_ = scene.insert(ball(-1.0)).unwrap();
/// let around = Sphere::new(Point::origin(), 2.0);
/// let all = scene.overlaps_sphere(&around, &QueryFilter::default());
/// assert_eq!(all.len(), 3);
/// // Everything but the caster itself and the static world.
/// let others = QueryFilter::default().exclude_collider(me).exclude_fixed();
/// assert_eq!(scene.overlaps_sphere(&around, &others), vec![crate_]);
/// // Only the static world.
/// let world = QueryFilter::default().exclude_dynamic().exclude_kinematic();
/// assert_eq!(scene.overlaps_sphere(&around, &world), vec![ground]);
/// ```
#[derive(Clone, Copy, Default)]
pub struct QueryFilter<'a> {
    /// The query's own groups: a collider is seen when the groups interact.
    pub groups: CollisionGroups,
    /// Colliders never reported (the caster itself, say).
    pub exclude: &'a [ColliderHandle],
    /// One more collider never reported, held by value (no slice to keep alive).
    pub exclude_collider: Option<ColliderHandle>,
    /// Fixed colliders ([`BodyKind::Fixed`]) are never reported. A query
    /// with it does not traverse the static tree at all.
    pub exclude_fixed: bool,
    /// Dynamic colliders ([`BodyKind::Dynamic`]) are never reported.
    pub exclude_dynamic: bool,
    /// Kinematic colliders ([`BodyKind::Kinematic`]) are never reported.
    pub exclude_kinematic: bool,
    /// Sensors ([`ColliderDesc::sensor`](crate::ColliderDesc::sensor)) are
    /// never reported: a trigger volume is not in the way of a ray or a cast.
    pub exclude_sensors: bool,
    /// A last word: a collider is reported only when this returns true.
    pub predicate: Option<ColliderPredicate<'a>>,
}

impl<'a> QueryFilter<'a> {
    /// A filter that skips the given colliders.
    pub fn excluding(exclude: &'a [ColliderHandle]) -> Self {
        Self { exclude, ..Self::default() }
    }

    /// The same filter with the query's groups set to `groups`.
    #[must_use]
    pub fn groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = groups;
        self
    }

    /// The same filter, also skipping static colliders.
    #[must_use]
    pub fn exclude_fixed(mut self) -> Self {
        self.exclude_fixed = true;
        self
    }

    /// The same filter, also skipping dynamic colliders.
    #[must_use]
    pub fn exclude_dynamic(mut self) -> Self {
        self.exclude_dynamic = true;
        self
    }

    /// The same filter, also skipping kinematic colliders.
    #[must_use]
    pub fn exclude_kinematic(mut self) -> Self {
        self.exclude_kinematic = true;
        self
    }

    /// The same filter, also skipping sensors.
    #[must_use]
    pub fn exclude_sensors(mut self) -> Self {
        self.exclude_sensors = true;
        self
    }

    /// The same filter, also skipping `handle` (a character's own collider,
    /// say); it replaces an `exclude_collider` set before. Colliders in
    /// [`QueryFilter::exclude`] stay skipped.
    #[must_use]
    pub fn exclude_collider(mut self, handle: ColliderHandle) -> Self {
        self.exclude_collider = Some(handle);
        self
    }

    /// The same filter with `predicate` as its last word (it replaces one set before).
    #[must_use]
    pub fn predicate(mut self, predicate: ColliderPredicate<'a>) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// True when `collider` passes: groups interact, its kind is not
    /// excluded, it is not an excluded sensor, it is not excluded by handle,
    /// and the predicate holds.
    #[inline]
    pub fn accepts(&self, handle: ColliderHandle, collider: &Collider) -> bool {
        groups_interact(&self.groups, &collider.desc.groups)
            && self.accepts_kind(collider.desc.kind)
            && !(self.exclude_sensors && collider.desc.sensor)
            && !self.excludes_handle(handle)
            && self.predicate.is_none_or(|p| p(handle, collider))
    }

    /// True when colliders of `kind` may be reported.
    #[inline]
    fn accepts_kind(&self, kind: BodyKind) -> bool {
        match kind {
            BodyKind::Fixed => !self.exclude_fixed,
            BodyKind::Dynamic => !self.exclude_dynamic,
            BodyKind::Kinematic => !self.exclude_kinematic,
        }
    }

    /// True when `handle` is excluded by name.
    #[inline]
    fn excludes_handle(&self, handle: ColliderHandle) -> bool {
        self.exclude_collider == Some(handle) || self.exclude.contains(&handle)
    }

    /// True when a static collider passes exactly when its groups interact:
    /// no exclusion by handle and no predicate (static colliders are never
    /// rejected by kind when the static tree is traversed, see
    /// [`QueryFilter::skips_statics`]).
    #[inline]
    pub(crate) fn groups_decide_statics(&self) -> bool {
        self.exclude.is_empty() && self.exclude_collider.is_none() && self.predicate.is_none() && !self.exclude_sensors
    }

    /// True when no static collider can pass, so the static tree (which
    /// holds only [`BodyKind::Fixed`] colliders, as `Scene::validate`
    /// checks) need not be traversed.
    #[inline]
    pub(crate) fn skips_statics(&self) -> bool {
        self.exclude_fixed
    }
}

impl core::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("groups", &self.groups)
            .field("exclude", &self.exclude)
            .field("exclude_collider", &self.exclude_collider)
            .field("exclude_fixed", &self.exclude_fixed)
            .field("exclude_dynamic", &self.exclude_dynamic)
            .field("exclude_kinematic", &self.exclude_kinematic)
            .field("exclude_sensors", &self.exclude_sensors)
            .field("predicate", &self.predicate.is_some())
            .finish()
    }
}

/// Two group sets interact when each one's memberships meet the other's filter.
#[inline]
pub(crate) fn groups_interact(a: &CollisionGroups, b: &CollisionGroups) -> bool {
    (a.memberships & b.filter) != 0 && (b.memberships & a.filter) != 0
}
