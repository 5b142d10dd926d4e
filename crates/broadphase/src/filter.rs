//! Collision groups: which proxies may pair.

/// Bit masks deciding whether two proxies may form a pair (the Box2D /
/// Rapier convention): `a` and `b` interact iff
/// `a.memberships & b.filter != 0 && b.memberships & a.filter != 0`.
///
/// The test is symmetric. `Default` (every bit set in both masks) accepts
/// every pair.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::CollisionGroups;
/// let player = CollisionGroups::new(0b01, 0b10);
/// let enemy = CollisionGroups::new(0b10, 0b01);
/// assert!(player.interacts_with(enemy));
/// assert!(!player.interacts_with(player));
/// assert!(CollisionGroups::default().interacts_with(player));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CollisionGroups {
    /// The groups this proxy belongs to, one bit per group.
    pub memberships: u32,
    /// The groups this proxy may pair with, one bit per group.
    pub filter: u32,
}

impl CollisionGroups {
    /// Member of every group, pairs with every group.
    pub const ALL: Self = Self { memberships: u32::MAX, filter: u32::MAX };
    /// Member of no group: pairs with nothing.
    pub const NONE: Self = Self { memberships: 0, filter: 0 };

    /// Groups from their two masks.
    #[inline]
    pub const fn new(memberships: u32, filter: u32) -> Self {
        Self { memberships, filter }
    }

    /// True when the two proxies may pair (symmetric).
    #[inline]
    #[must_use]
    pub const fn interacts_with(self, other: Self) -> bool {
        (self.memberships & other.filter) != 0 && (other.memberships & self.filter) != 0
    }
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}
