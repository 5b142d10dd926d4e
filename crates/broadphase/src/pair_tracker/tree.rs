//! One kind of proxy (dynamic or static) in a refitted 8-wide BVH.
//!
//! A moved proxy's new fat box is written into its leaf and the tree is
//! refitted once per update (no per-proxy re-insertion), in the lanes above
//! the moved leaves only. Proxies inserted
//! since the last build wait on a short pending list that queries scan
//! linearly; removed ones stay in their leaf, marked dead. The tree is built
//! again (binned SAH, parallel) when the pending and dead proxies grow past
//! an eighth of it, or when refits have let its area ratio (the sum of the
//! lane boxes' areas over the root's) grow by half since the build.

use super::Record;
#[cfg(feature = "parallel")]
use crate::static_bvh::MarkedTask;
use crate::static_bvh::{AreaSum, MarkedScratch};
use crate::{BuildOptions, StaticBvh};
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};

/// A build id or leaf whose proxy was removed since the build.
const DEAD: u32 = u32::MAX;
/// [`Record::leaf`] of a proxy that is not in a BVH (pending).
pub(crate) const NONE: u32 = u32::MAX;
/// Rebuild when refits made the area ratio this much worse than at the build.
const MAX_RATIO_GROWTH: f64 = 1.5;
/// A refit recomputes only the nodes above the moved leaves while at most
/// one leaf in this many moved (`StaticBvh::refit_marked`), the whole tree
/// in one streaming pass otherwise: the measured crossover is near 4% of
/// the leaves for random movers (clustered ones favour the climb longer).
const MARKED_REFIT_SHARE: usize = 32;

/// The proxies of one kind. Each proxy's leaf slot is kept in its
/// [`Record::leaf`], so a move writes its leaf box without a lookup here.
#[derive(Clone, Debug, Default)]
pub(crate) struct KindTree {
    bvh: Option<StaticBvh>,
    /// Per build id: the proxy slot, or [`DEAD`] (what ray queries read).
    members: Vec<u32>,
    /// Per leaf slot: the proxy slot, or [`DEAD`] (what box queries read).
    slot_of_leaf: Vec<u32>,
    /// Proxies of this kind not in the BVH yet.
    pending: Vec<u32>,
    /// Leaves marked [`DEAD`].
    dead: usize,
    /// A leaf box changed since the last refit.
    dirty: bool,
    /// Per leaf slot, one bit: its box changed since the last refit; and the
    /// number of bits set.
    moved: Vec<u64>,
    moved_count: usize,
    /// Per node its parent, per leaf slot its node (`StaticBvh::upward_links`).
    parents: Vec<u32>,
    leaf_nodes: Vec<u32>,
    /// The refit's scratch (a bit per node).
    stale: Vec<u64>,
    /// The sum of the BVH's lane box areas, kept up to date by the refits.
    area_sum: AreaSum,
    /// The area ratio right after the build, and now.
    built_ratio: f64,
    ratio: f64,
    /// Per leaf slot, one bit: the proxy there changed this frame (set by
    /// [`mark`](Self::mark) when the frame takes the marked self-descent).
    marked: Vec<u64>,
    /// Per node, the lanes over a marked leaf (see `StaticBvh::marked_lanes`).
    masks: Vec<u8>,
}

impl KindTree {
    /// Adds proxy `slot`, whose record says `leaf == NONE`.
    pub(crate) fn add(&mut self, slot: u32) {
        self.pending.push(slot);
    }

    /// Removes proxy `slot`, of this kind, whose record holds `leaf`.
    pub(crate) fn remove(&mut self, slot: u32, leaf: u32) {
        match (leaf, &self.bvh) {
            (NONE, _) | (_, None) => {
                let at = self.pending.iter().position(|&s| s == slot).expect("a proxy of this kind is pending");
                self.pending.swap_remove(at);
            }
            (leaf, Some(bvh)) => {
                self.members[bvh.leaf_ids()[leaf as usize] as usize] = DEAD;
                self.slot_of_leaf[leaf as usize] = DEAD;
                self.dead += 1;
            }
        }
    }

    /// The proxy in `leaf` ([`NONE`] for a pending one) has the new fat box `fat`.
    #[inline]
    pub(crate) fn set_box(&mut self, leaf: u32, fat: &Aabb) {
        if let (true, Some(bvh)) = (leaf != NONE, self.bvh.as_mut()) {
            *bvh.leaf_box_mut(leaf) = *fat;
            let word = &mut self.moved[leaf as usize / 64];
            self.moved_count += usize::from(*word & (1 << (leaf % 64)) == 0);
            *word |= 1 << (leaf % 64);
            self.dirty = true;
        }
    }

    /// Brings the tree up to date with the records' fat boxes: rebuilds it
    /// when it has too many pending or dead proxies or lost too much quality
    /// (or when `force`), otherwise refits it if a box changed. Returns
    /// whether it rebuilt.
    pub(crate) fn maintain(&mut self, records: &mut [Record], force: bool) -> bool {
        let stale = self.pending.len() + self.dead;
        let degraded = self.ratio > self.built_ratio * MAX_RATIO_GROWTH;
        if force || degraded || stale > 16 + self.members.len() / 8 {
            self.build(records);
            return true;
        }
        if self.dirty {
            if let Some(bvh) = self.bvh.as_mut() {
                if self.moved_count <= self.slot_of_leaf.len() / MARKED_REFIT_SHARE {
                    let links = (self.parents.as_slice(), self.leaf_nodes.as_slice());
                    bvh.refit_marked(&self.moved, links, &mut self.stale, &mut self.area_sum);
                } else {
                    self.area_sum = AreaSum::exact(bvh.refit_in_place());
                }
                self.ratio = bvh.area_ratio_of(self.area_sum.sum);
                self.moved.fill(0);
                self.moved_count = 0;
            }
            self.dirty = false;
        }
        false
    }

    /// Builds the BVH over every proxy of this kind, in slot order (the same
    /// proxies and boxes give the same tree).
    fn build(&mut self, records: &mut [Record]) {
        let mut members: Vec<u32> = self.members.iter().copied().filter(|&s| s != DEAD).collect();
        members.extend_from_slice(&self.pending);
        members.sort_unstable();
        if members.is_empty() {
            *self = Self::default();
            return;
        }
        let boxes: Vec<Aabb> = members.iter().map(|&s| records[s as usize].fat).collect();
        let bvh = StaticBvh::build_with(&boxes, BuildOptions::PAIRS);
        let mut slot_of_leaf = vec![0; members.len()];
        for (leaf, &id) in bvh.leaf_ids().iter().enumerate() {
            let slot = members[id as usize];
            slot_of_leaf[leaf] = slot;
            records[slot as usize].leaf = leaf as u32;
        }
        let (ratio, area_sum) = (bvh.area_ratio(), AreaSum::exact(bvh.lane_area_sum()));
        let leaves = members.len();
        *self = Self {
            bvh: Some(bvh),
            members,
            slot_of_leaf,
            pending: core::mem::take(&mut self.pending),
            dead: 0,
            dirty: false,
            moved: core::mem::take(&mut self.moved),
            moved_count: 0,
            parents: core::mem::take(&mut self.parents),
            leaf_nodes: core::mem::take(&mut self.leaf_nodes),
            stale: core::mem::take(&mut self.stale),
            area_sum,
            built_ratio: ratio,
            ratio,
            marked: core::mem::take(&mut self.marked),
            masks: core::mem::take(&mut self.masks),
        };
        self.pending.clear();
        self.marked.clear();
        self.marked.resize(leaves.div_ceil(64), 0);
        self.moved.clear();
        self.moved.resize(leaves.div_ceil(64), 0);
        self.moved_count = 0;
        if let Some(bvh) = &self.bvh {
            bvh.upward_links(&mut self.parents, &mut self.leaf_nodes);
        }
    }

    /// The number of proxies in the BVH (live or dead leaves).
    pub(crate) fn built_len(&self) -> usize {
        self.slot_of_leaf.len()
    }

    /// True when some proxies wait outside the BVH.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// True when the tree holds no proxy (built or pending).
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty() && self.members.len() == self.dead
    }

    /// Marks the proxy in `leaf` (not [`NONE`]) as changed this frame.
    #[inline]
    pub(crate) fn mark(&mut self, leaf: u32) {
        self.marked[leaf as usize / 64] |= 1 << (leaf % 64);
    }

    /// Computes the lane masks of the marked leaves, for
    /// [`visit_marked_pairs`](Self::visit_marked_pairs).
    pub(crate) fn mark_lanes(&mut self) {
        if let Some(bvh) = &self.bvh {
            bvh.marked_lanes(&self.marked, &mut self.masks);
        }
    }

    /// Clears every mark (after the frame's pairs are found).
    pub(crate) fn clear_marks(&mut self) {
        self.marked.fill(0);
    }

    /// Calls `visit(a, fat_a, b, fat_b)` once for every pair of proxies in the
    /// BVH whose fat boxes overlap (inclusive) and of which at least one is
    /// marked: the marked proxies' new neighbours in one pruned self-descent
    /// (see `StaticBvh::visit_marked_pairs`), after
    /// [`mark_lanes`](Self::mark_lanes). Pending proxies are not seen.
    pub(crate) fn visit_marked_pairs<F>(&self, scratch: &mut MarkedScratch, mut visit: F)
    where
        F: FnMut(u32, &Aabb, u32, &Aabb),
    {
        let Some(bvh) = &self.bvh else { return };
        bvh.visit_marked_pairs(&self.marked, &self.masks, scratch, |s, t| self.named(bvh, s, t, &mut visit));
    }

    /// [`visit_marked_pairs`](Self::visit_marked_pairs) cut for threads: the
    /// top of the descent is opened into `scratch.open` (up to four levels
    /// down, until it holds `min_tasks` tasks; the pairs found on the way are
    /// visited), then [`visit_marked_tasks`](Self::visit_marked_tasks) finds
    /// each remaining pair in exactly one of those tasks.
    #[cfg(feature = "parallel")]
    pub(crate) fn open_marked_pairs<F>(&self, scratch: &mut MarkedScratch, min_tasks: usize, mut visit: F)
    where
        F: FnMut(u32, &Aabb, u32, &Aabb),
    {
        let Some(bvh) = &self.bvh else {
            scratch.open.clear();
            return;
        };
        bvh.open_marked_pairs(&self.marked, &self.masks, scratch, min_tasks, |s, t| self.named(bvh, s, t, &mut visit));
    }

    /// Finds the pairs of the marked descent below `tasks` (see
    /// [`open_marked_pairs`](Self::open_marked_pairs)).
    #[cfg(feature = "parallel")]
    pub(crate) fn visit_marked_tasks<F>(
        &self,
        tasks: impl Iterator<Item = MarkedTask>,
        scratch: &mut MarkedScratch,
        mut visit: F,
    ) where
        F: FnMut(u32, &Aabb, u32, &Aabb),
    {
        let Some(bvh) = &self.bvh else { return };
        bvh.visit_marked_tasks(&self.marked, &self.masks, tasks, scratch, |s, t| self.named(bvh, s, t, &mut visit));
    }

    /// A pair of leaf slots of the BVH passed on as live proxies' slots with
    /// their leaf boxes (a dead leaf's pairs are dropped).
    #[inline(always)]
    fn named<F>(&self, bvh: &StaticBvh, s: u32, t: u32, visit: &mut F)
    where
        F: FnMut(u32, &Aabb, u32, &Aabb),
    {
        let (a, b) = (self.slot_of_leaf[s as usize], self.slot_of_leaf[t as usize]);
        if a != DEAD && b != DEAD {
            let boxes = bvh.leaf_boxes();
            visit(a, &boxes[s as usize], b, &boxes[t as usize]);
        }
    }

    /// The proxies in the BVH whose fat box overlaps `query`, as
    /// [`visit_overlaps`](Self::visit_overlaps) without the pending ones.
    #[inline]
    pub(crate) fn visit_built_overlaps<F>(&self, query: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Aabb) -> ControlFlow<()>,
    {
        let Some(bvh) = &self.bvh else { return ControlFlow::Continue(()) };
        let boxes = bvh.leaf_boxes();
        if self.dirty {
            return self.visit_dirty_overlaps(query, visitor);
        }
        bvh.visit_overlap_slots(query, |leaf| match self.slot_of_leaf[leaf as usize] {
            DEAD => ControlFlow::Continue(()),
            slot => visitor(slot, &boxes[leaf as usize]),
        })
    }

    /// [`visit_built_overlaps`](Self::visit_built_overlaps) between a move
    /// and the next refit (a user's query before `update`): the lanes above a
    /// moved leaf may still hold its old box (which a one-box leaf's lane
    /// test would even take for its box), so the traversal skips the moved
    /// leaves and they are tested one by one with their new box. Every
    /// other leaf's box is inside the lanes above it, as at the last refit.
    #[cold]
    fn visit_dirty_overlaps<F>(&self, query: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Aabb) -> ControlFlow<()>,
    {
        let Some(bvh) = &self.bvh else { return ControlFlow::Continue(()) };
        let boxes = bvh.leaf_boxes();
        bvh.visit_overlap_slots(query, |leaf| match self.slot_of_leaf[leaf as usize] {
            DEAD => ControlFlow::Continue(()),
            _ if self.is_moved(leaf) => ControlFlow::Continue(()),
            slot => visitor(slot, &boxes[leaf as usize]),
        })?;
        self.visit_moved(
            |slot, fat| if intersects_aabb_aabb(fat, query) { visitor(slot, fat) } else { ControlFlow::Continue(()) },
        )
    }

    /// Whether the box of leaf `leaf` changed since the last refit (the
    /// lanes above it may still hold its old box).
    #[inline]
    pub(crate) fn is_moved(&self, leaf: u32) -> bool {
        self.dirty && self.moved[leaf as usize / 64] & (1 << (leaf % 64)) != 0
    }

    /// The live proxies whose leaf box changed since the last refit, with
    /// that box, in leaf order.
    pub(crate) fn visit_moved<F>(&self, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Aabb) -> ControlFlow<()>,
    {
        let (Some(bvh), true) = (&self.bvh, self.dirty) else { return ControlFlow::Continue(()) };
        let boxes = bvh.leaf_boxes();
        for (w, &word) in self.moved.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let leaf = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.slot_of_leaf[leaf] != DEAD {
                    visitor(self.slot_of_leaf[leaf], &boxes[leaf])?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The pending proxies whose fat box overlaps `query`.
    #[inline]
    pub(crate) fn visit_pending_overlaps<F>(&self, query: &Aabb, records: &[Record], mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Aabb) -> ControlFlow<()>,
    {
        for &slot in &self.pending {
            let fat = &records[slot as usize].fat;
            if intersects_aabb_aabb(fat, query) {
                visitor(slot, fat)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The slots of the proxies of this kind whose fat box overlaps `query`
    /// (inclusive), each with that fat box: the BVH's leaf box (a node's
    /// leaves lie together, so reading it is cheaper than the proxy's
    /// record) or a pending proxy's record. Stops when `visitor` breaks.
    #[inline]
    pub(crate) fn visit_overlaps<F>(&self, query: &Aabb, records: &[Record], mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Aabb) -> ControlFlow<()>,
    {
        self.visit_built_overlaps(query, &mut visitor)?;
        self.visit_pending_overlaps(query, records, visitor)
    }

    /// The BVH and the slot of each build id ([`DEAD`] = `u32::MAX`), and the
    /// pending slots: what a ray query walks.
    pub(crate) fn parts(&self) -> (Option<&StaticBvh>, &[u32], &[u32]) {
        (self.bvh.as_ref(), &self.members, &self.pending)
    }

    /// Checks that this tree holds exactly the live proxies `expected` (slots,
    /// any order) with their fat boxes and leaves, and that its BVH is valid.
    pub(crate) fn check(&self, expected: &mut Vec<u32>, records: &[Record]) -> Result<(), String> {
        if let Some(bvh) = &self.bvh {
            crate::BroadPhase::validate(bvh).map_err(|e| e.0)?;
            if self.dirty {
                return Err("a leaf box changed after the last refit".into());
            }
            if !bvh.lanes_are_unions() {
                return Err("a lane box is not the union of what is below it (a refit missed it)".into());
            }
            // The refits keep the sum by differences: equal to a fresh sum
            // within rounding (f64 sums' error stays below 1e-9 of the terms'
            // magnitudes up to millions of terms; 2^-52 each).
            let fresh = bvh.lane_area_sum();
            if (self.area_sum.sum - fresh).abs() > 1e-9 * (self.area_sum.scale + fresh) {
                return Err(format!("kept lane area sum {} differs from {fresh}", self.area_sum.sum));
            }
            let (boxes, ids) = (bvh.leaf_boxes(), bvh.leaf_ids());
            for (leaf, &slot) in self.slot_of_leaf.iter().enumerate() {
                if slot == DEAD {
                    continue;
                }
                let record = &records[slot as usize];
                if record.leaf != leaf as u32 || self.members[ids[leaf] as usize] != slot {
                    return Err(format!("slot {slot}: its record, leaf {leaf} and build id disagree"));
                }
                if boxes[leaf] != record.fat {
                    return Err(format!("slot {slot}: leaf box differs from its fat box"));
                }
            }
        }
        for &slot in &self.pending {
            if records[slot as usize].leaf != NONE {
                return Err(format!("pending slot {slot} has a leaf"));
            }
        }
        let mut held: Vec<u32> = self.slot_of_leaf.iter().copied().filter(|&s| s != DEAD).collect();
        held.extend_from_slice(&self.pending);
        held.sort_unstable();
        expected.sort_unstable();
        if held != *expected {
            return Err(format!("holds {} proxies, {} expected (or different ones)", held.len(), expected.len()));
        }
        Ok(())
    }

    /// The BVH's stats (`None` before the first build).
    pub(crate) fn stats(&self) -> Option<crate::TreeStats> {
        self.bvh.as_ref().and_then(|bvh| crate::BroadPhase::validate(bvh).ok())
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bvh.as_ref().map_or(0, StaticBvh::memory_bytes)
            + (self.members.capacity() + self.slot_of_leaf.capacity() + self.pending.capacity()) * 4
            + (self.marked.capacity() + self.moved.capacity()) * 8
            + self.masks.capacity()
            + (self.parents.capacity() + self.leaf_nodes.capacity()) * 4
            + self.stale.capacity() * 8
    }
}
