//! The edits between two updates: insert, remove, move and re-filter a
//! proxy, and rebuild the trees.
//!
//! Each edit updates the proxy's records and its tree at once (so queries
//! see the current fat boxes) and records the change in this frame's change
//! log, which the next update reads: a proxy has at most one entry per
//! frame, `Fresh` or `Removed` overriding `Moved`, a move keeping its first
//! `old_fat`. A move that stays inside the fat box records only the tight
//! box (and its `touched` bit).

use super::tree::{self, KindTree};
use super::{Change, ChangeEntry, Entry, PairTracker, ProxyOptions, Record, TightRecord};
use crate::{BroadPhaseError, ProxyId};
use proxima_narrowphase::{Aabb, Vector};

impl<T> PairTracker<T> {
    /// The tree holding the proxies of `options`' kind.
    #[inline]
    pub(super) fn tree_mut(&mut self, options: &ProxyOptions) -> &mut KindTree {
        if options.is_static {
            &mut self.fixed
        } else {
            &mut self.dynamic
        }
    }

    /// Records a change of proxy `id` this frame (see
    /// [`record_entry`](Self::record_entry)); an insert, removal or re-filter
    /// also sets the slot's bit in `renewed` (its pairs are derived again).
    pub(super) fn record(&mut self, id: ProxyId, change: Change) {
        if !matches!(change, Change::Moved { .. }) {
            let slot = id.index() as usize;
            self.renewed[slot / 64] |= 1 << (slot % 64);
        }
        self.record_entry(id, change);
    }

    /// The change entry of [`record`](Self::record), without the `renewed`
    /// bit: what `move_proxy` calls (a move renews nothing), inlined there.
    /// A proxy changed twice keeps its first `old_fat`, and `Fresh` or
    /// `Removed` override `Moved`. A slot's first change this frame names the
    /// proxy it held at the last update (a proxy inserted into a slot that
    /// was free then has no old pair, so what it names is never read).
    #[inline(always)]
    fn record_entry(&mut self, id: ProxyId, change: Change) {
        let slot = id.index() as usize;
        let mut before = id;
        if self.tights[slot].stamp == self.epoch {
            let entry = &mut self.changes[self.tights[slot].change as usize];
            if entry.id == id {
                if !matches!(change, Change::Moved { .. }) {
                    entry.change = change;
                }
                return;
            }
            before = entry.before; // the slot was freed and is reused
        }
        self.tights[slot].stamp = self.epoch;
        self.tights[slot].change = self.changes.len() as u32;
        self.changed[slot / 64] |= 1 << (slot % 64);
        self.touch(slot);
        self.changes.push(ChangeEntry { id, change, before });
    }

    /// Sets slot `slot`'s bit in `touched`.
    #[inline]
    fn touch(&mut self, slot: usize) {
        self.touched[slot / 64] |= 1 << (slot % 64);
    }

    /// Adds a proxy with tight box `aabb`; its pairs appear as `Started`
    /// events at the next update.
    ///
    /// # Panics
    /// With more than 2^31 proxies at once.
    pub fn insert(&mut self, aabb: Aabb, user_data: T, options: ProxyOptions) -> ProxyId {
        let id = self.proxies.insert(Entry { data: user_data, options }, i32::MAX as u32);
        let slot = id.index() as usize;
        let record = Record { fat: aabb.loosened(self.options.margin), leaf: tree::NONE, is_static: options.is_static };
        if self.records.len() <= slot {
            self.records.resize(slot + 1, record);
            self.tights.resize(slot + 1, TightRecord { tight: aabb, stamp: 0, change: 0 });
            self.changed.resize(self.records.len().div_ceil(64), 0);
            self.renewed.resize(self.records.len().div_ceil(64), 0);
            self.touched.resize(self.records.len().div_ceil(64), 0);
        }
        self.records[slot] = record;
        // A slot freed this frame keeps its stamp (`record` finds the old
        // proxy's change by it).
        self.tights[slot].tight = aabb;
        self.tree_mut(&options).add(id.index());
        self.record(id, Change::Fresh);
        id
    }

    /// Removes a proxy and returns its user data; its pairs end with `Stopped`
    /// events at the next update. A stale id is rejected and nothing changes.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        let options = self.proxies.try_get(id)?.options;
        let leaf = self.records[id.index() as usize].leaf;
        self.tree_mut(&options).remove(id.index(), leaf);
        self.record(id, Change::Removed);
        self.proxies.remove(id).map(|entry| entry.data)
    }

    /// Tells the tracker that proxy `id` now has tight box `aabb` after moving
    /// by `displacement` this step.
    ///
    /// Returns `Ok(false)` when `aabb` is still inside the fat box (only the
    /// tight box is recorded), `Ok(true)` when the proxy got a new fat box
    /// (`aabb` grown by the margin, stretched by `prediction * displacement`)
    /// and will be queried at the next update. A stale id or a NaN/infinite
    /// displacement is rejected and nothing changes.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        if !self.proxies.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        if !displacement.iter().all(|d| d.is_finite()) {
            return Err(BroadPhaseError::InvalidDisplacement);
        }
        Ok(self.move_live(id, aabb, &displacement))
    }

    /// [`move_proxy`](Self::move_proxy) with the displacement taken as the
    /// move of the tight box's centre since the proxy's last tight box (zero
    /// where that is not finite: a box whose centre overflows), for a caller
    /// that does not track it: one lookup of the proxy instead of a
    /// [`tight_aabb`](Self::tight_aabb) and a `move_proxy`. A stale id is
    /// rejected and nothing changes.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::{PairTracker, ProxyOptions};
    /// use proxima::narrowphase::{Aabb, Point, Vector};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let mut twin = tracker.clone();
    /// // Moved by 3 along x: the fat box is stretched along +x, as with the
    /// // displacement given.
    /// assert!(tracker.move_proxy_to(a, unit(3.0)).unwrap());
    /// twin.move_proxy(a, unit(3.0), Vector::new(3.0, 0.0, 0.0)).unwrap();
    /// assert_eq!(tracker.fat_aabb(a), twin.fat_aabb(a));
    /// ```
    pub fn move_proxy_to(&mut self, id: ProxyId, aabb: Aabb) -> Result<bool, BroadPhaseError> {
        if !self.proxies.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        let old = &self.tights[id.index() as usize].tight;
        let displacement: Vector = aabb.center() - old.center();
        let displacement = if displacement.iter().all(|d| d.is_finite()) { displacement } else { Vector::zeros() };
        Ok(self.move_live(id, aabb, &displacement))
    }

    /// The move of live proxy `id` (checked by the caller) with a finite
    /// displacement: [`move_proxy`](Self::move_proxy)'s answer.
    #[inline]
    fn move_live(&mut self, id: ProxyId, aabb: Aabb, displacement: &Vector) -> bool {
        let slot = id.index() as usize;
        let tight = &mut self.tights[slot].tight;
        if *tight != aabb {
            *tight = aabb;
            self.tights_moved = true;
            self.touch(slot);
        }
        let record = &mut self.records[id.index() as usize];
        let old_fat = record.fat;
        if old_fat.contains_aabb(&aabb) {
            return false;
        }
        let fat = crate::dynamic_tree::fat_box(&self.options, &aabb, displacement);
        record.fat = fat;
        let (leaf, is_static) = (record.leaf, record.is_static);
        let tree = if is_static { &mut self.fixed } else { &mut self.dynamic };
        tree.set_box(leaf, &fat);
        self.record_entry(id, Change::Moved { old_fat });
        true
    }

    /// Changes a proxy's groups and static flag; its pairs are re-evaluated at
    /// the next update. A stale id is rejected.
    pub fn set_options(&mut self, id: ProxyId, options: ProxyOptions) -> Result<(), BroadPhaseError> {
        let entry = self.proxies.try_get_mut(id)?;
        let old = core::mem::replace(&mut entry.options, options);
        if old.is_static != options.is_static {
            let record = &mut self.records[id.index() as usize];
            let leaf = core::mem::replace(&mut record.leaf, tree::NONE);
            record.is_static = options.is_static;
            self.tree_mut(&old).remove(id.index(), leaf);
            self.tree_mut(&options).add(id.index());
        }
        self.record(id, Change::Fresh);
        Ok(())
    }

    /// Builds both trees again by binned SAH over the current fat boxes (the
    /// update does it by itself when they degrade); the pair set is unchanged.
    pub fn rebuild(&mut self) {
        self.dynamic.maintain(&mut self.records, true);
        self.fixed.maintain(&mut self.records, true);
    }
}
