//! Query filters.

use proxima_broadphase::CollisionGroups;

use crate::collider::{Collider, ColliderHandle};

/// A user test on a candidate collider: report it only when this returns true.
pub type ColliderPredicate<'a> = &'a (dyn Fn(ColliderHandle, &Collider) -> bool + Sync);

/// Which colliders a query may report. `Default` accepts everything.
#[derive(Clone, Copy, Default)]
pub struct QueryFilter<'a> {
    /// The query's own groups: a collider is seen when the groups interact.
    pub groups: CollisionGroups,
    /// Colliders never reported (the caster itself, say).
    pub exclude: &'a [ColliderHandle],
    /// A last word: a collider is reported only when this returns true.
    pub predicate: Option<ColliderPredicate<'a>>,
}

impl<'a> QueryFilter<'a> {
    /// A filter that skips the given colliders.
    pub fn excluding(exclude: &'a [ColliderHandle]) -> Self {
        Self { exclude, ..Self::default() }
    }

    /// True when `collider` passes: groups interact, not excluded, predicate holds.
    #[inline]
    pub fn accepts(&self, handle: ColliderHandle, collider: &Collider) -> bool {
        groups_interact(&self.groups, &collider.desc.groups)
            && !self.exclude.contains(&handle)
            && self.predicate.is_none_or(|p| p(handle, collider))
    }
}

impl core::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("groups", &self.groups)
            .field("exclude", &self.exclude)
            .field("predicate", &self.predicate.is_some())
            .finish()
    }
}

/// Two group sets interact when each one's memberships meet the other's filter.
#[inline]
pub(crate) fn groups_interact(a: &CollisionGroups, b: &CollisionGroups) -> bool {
    (a.memberships & b.filter) != 0 && (b.memberships & a.filter) != 0
}
