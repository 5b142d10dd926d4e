//! The tracker's state as one update's searches and merge read it: a
//! shared borrow of the tables, lent by `PairTracker::parts` while the
//! buffers they write are borrowed apart, and the per-slot questions both
//! ask (which bits a slot has this frame, which proxy a slot held at the
//! last update, what its fat box was then).
//!
//! Invariant: a view lives within one update, after `prepare`: the trees
//! are refitted, the changed dynamic leaves marked when `descent` is set,
//! and the change log is this frame's.

use super::tree::KindTree;
use super::{Change, ChangeEntry, Entry, Record, TightRecord};
use crate::slots::Slots;
use crate::ProxyId;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};

/// The tracker's state as the queries and the merge read it.
pub(super) struct View<'a, T> {
    /// This frame's dynamic pairs come from the marked self-descent.
    pub(super) descent: bool,
    pub(super) proxies: &'a Slots<Entry<T>>,
    pub(super) records: &'a [Record],
    pub(super) tights: &'a [TightRecord],
    pub(super) changed: &'a [u64],
    pub(super) renewed: &'a [u64],
    pub(super) touched: &'a [u64],
    /// Whether the merge takes untouched pairs' exactness from the old
    /// exact pairs (most slots untouched) or tests every pair's tight boxes.
    pub(super) join_exact: bool,
    pub(super) changes: &'a [ChangeEntry],
    pub(super) dynamic: &'a KindTree,
    pub(super) fixed: &'a KindTree,
}

impl<T> View<'_, T> {
    /// Whether the tight boxes of slots `a` and `b` overlap.
    #[inline(always)]
    pub(super) fn tights_overlap(&self, a: u32, b: u32) -> bool {
        intersects_aabb_aabb(&self.tights[a as usize].tight, &self.tights[b as usize].tight)
    }

    /// Whether slot `slot`'s tight box moved or it has a change since the
    /// last update (its bit in `touched`).
    #[inline(always)]
    pub(super) fn is_touched(&self, slot: u32) -> bool {
        self.touched[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// Whether slot `slot` has a change this frame (its bit in `changed`).
    #[inline(always)]
    pub(super) fn is_changed(&self, slot: u32) -> bool {
        self.changed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// Whether slot `slot` has a change this frame that re-derives its pairs
    /// (its bit in `renewed`).
    #[inline(always)]
    fn is_renewed(&self, slot: u32) -> bool {
        self.renewed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// The proxy slot `slot` held at the last update.
    #[inline]
    pub(super) fn held(&self, slot: u32) -> ProxyId {
        super::held(self.proxies, self.changed, self.tights, self.changes, slot)
    }

    /// The fat box proxy `slot` had at the last update, given its box now:
    /// the same box when it did not change, its old box when it moved,
    /// `None` when it is fresh (every pair it has is new).
    #[inline]
    pub(super) fn old_fat(&self, slot: u32, fat: &Aabb) -> Option<Aabb> {
        if !self.is_changed(slot) {
            return Some(*fat);
        }
        // The slot of a live proxy (a tree's hit): its latest change entry
        // is its own (`PairTracker::record` starts a new one when a slot is
        // reused), so its id need not be read to tell it from a removed one.
        let entry = &self.changes[self.tights[slot as usize].change as usize];
        debug_assert_eq!(entry.id, self.proxies.id_of(slot as usize), "a tree hit is the slot's live proxy");
        match entry.change {
            Change::Moved { old_fat } => Some(old_fat),
            Change::Fresh | Change::Removed => None,
        }
    }

    /// Whether the old pair of slots `a`, `b` (not found again this frame)
    /// stays in the set.
    ///
    /// A renewed slot's proxy was inserted, re-filtered or removed (or the
    /// slot reused): its pairs are re-derived, so an old one not found again
    /// ends. Two slots that only moved (or did not change) keep it while
    /// their fat boxes overlap (an unchanged pair's still do).
    #[inline]
    pub(super) fn keeps(&self, a: u32, b: u32) -> bool {
        !self.is_renewed(a)
            && !self.is_renewed(b)
            && intersects_aabb_aabb(&self.records[a as usize].fat, &self.records[b as usize].fat)
    }
}
