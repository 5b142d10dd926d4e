//! The static colliders: a flat list plus an SAH-built wide BVH over it,
//! rebuilt lazily at the first query after a change.

use core::ops::ControlFlow;
use std::sync::OnceLock;

use proxima_broadphase::{BroadPhase, CollisionGroups, RayControl, StaticBvh, TreeStats, ValidationError};
use proxima_narrowphase::{Aabb, Ray, Real};

/// Static colliders by position: `slots[i]` is the collider slot whose box is
/// `aabbs[i]`, and leaf `i` of the BVH.
///
/// Invariant: `bvh` and `leaves`, when set, were built from the current
/// `aabbs` and colliders. Every mutation resets them, so a query never sees
/// a stale tree; static colliders that move pay one rebuild (binned SAH,
/// parallel) at the next query.
#[derive(Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct StaticSet {
    slots: Vec<u32>,
    aabbs: Vec<Aabb>,
    #[cfg_attr(feature = "serde", serde(skip))]
    bvh: OnceLock<StaticBvh>,
    #[cfg_attr(feature = "serde", serde(skip))]
    leaves: OnceLock<Vec<StaticLeaf>>,
}

/// What a ray query needs of a static collider without loading the collider
/// itself, stored in the BVH's leaf order (`leaves[s]` for leaf slot `s`),
/// so a leaf's entries are contiguous.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StaticLeaf {
    /// The collider's slot.
    pub(crate) slot: u32,
    /// Its collision groups (the table is dropped when they change).
    pub(crate) groups: CollisionGroups,
    /// True when its shape is its box (an axis-aligned box collider): the
    /// BVH's box test is then its exact ray test.
    pub(crate) is_box: bool,
}

impl Clone for StaticSet {
    fn clone(&self) -> Self {
        Self { slots: self.slots.clone(), aabbs: self.aabbs.clone(), bvh: OnceLock::new(), leaves: OnceLock::new() }
    }
}

impl StaticSet {
    /// Adds a box for `slot`; returns its position.
    pub(crate) fn insert(&mut self, aabb: Aabb, slot: u32) -> u32 {
        self.slots.push(slot);
        self.aabbs.push(aabb);
        self.invalidate();
        (self.slots.len() - 1) as u32
    }

    /// Removes the box at `pos` by swapping the last one into its place;
    /// returns the slot that moved to `pos`, if any, so its owner can update
    /// its position.
    pub(crate) fn remove(&mut self, pos: u32) -> Option<u32> {
        let pos = pos as usize;
        self.slots.swap_remove(pos);
        self.aabbs.swap_remove(pos);
        self.invalidate();
        self.slots.get(pos).copied()
    }

    /// The collider slot and box at `pos`; `None` out of range.
    pub(crate) fn entry(&self, pos: u32) -> Option<(u32, Aabb)> {
        Some((*self.slots.get(pos as usize)?, *self.aabbs.get(pos as usize)?))
    }

    /// Replaces the box at `pos` (the collider's shape or pose changed).
    pub(crate) fn update(&mut self, pos: u32, aabb: Aabb) {
        self.aabbs[pos as usize] = aabb;
        self.invalidate();
    }

    /// A collider's groups changed: the leaf table, which caches them, is
    /// rebuilt at the next ray query (the tree stays).
    pub(crate) fn groups_changed(&mut self) {
        self.leaves = OnceLock::new();
    }

    fn invalidate(&mut self) {
        self.bvh = OnceLock::new();
        self.leaves = OnceLock::new();
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The tree, built now if a mutation invalidated it.
    fn tree(&self) -> &StaticBvh {
        self.bvh.get_or_init(|| StaticBvh::build(&self.aabbs))
    }

    /// The box in leaf slot `slot` of the tree (built by the query that
    /// found the slot).
    pub(crate) fn leaf_box(&self, slot: u32) -> Aabb {
        self.tree().leaf_boxes()[slot as usize]
    }

    /// Builds the tree now (it is otherwise built by the first query).
    pub(crate) fn prepare(&self) {
        self.tree();
    }

    pub(crate) fn visit_overlaps(&self, aabb: &Aabb, mut f: impl FnMut(u32) -> ControlFlow<()>) -> ControlFlow<()> {
        if self.slots.is_empty() {
            return ControlFlow::Continue(());
        }
        self.tree().visit_overlaps(aabb, |leaf| f(self.slots[leaf as usize]))
    }

    pub(crate) fn visit_ray(&self, ray: &Ray, mut f: impl FnMut(u32, Real) -> RayControl) {
        if !self.slots.is_empty() {
            self.tree().visit_ray(ray, |leaf, toi| f(self.slots[leaf as usize], toi));
        }
    }

    /// The tree and its leaf table, built now if needed; `info(slot)` gives
    /// a collider's groups and whether its shape is its box. `None` when the
    /// set is empty.
    pub(crate) fn ray_leaves(
        &self,
        info: impl Fn(u32) -> (CollisionGroups, bool),
    ) -> Option<(&StaticBvh, &[StaticLeaf])> {
        if self.slots.is_empty() {
            return None;
        }
        let tree = self.tree();
        let leaves = self.leaves.get_or_init(|| {
            tree.leaf_ids()
                .iter()
                .map(|&pos| {
                    let slot = self.slots[pos as usize];
                    let (groups, is_box) = info(slot);
                    StaticLeaf { slot, groups, is_box }
                })
                .collect()
        });
        Some((tree, leaves))
    }

    /// Checks the BVH (built now if needed) and that it covers every box.
    pub(crate) fn validate(&self) -> Result<TreeStats, ValidationError> {
        if self.slots.is_empty() {
            return Ok(TreeStats::default());
        }
        let stats = self.tree().validate()?;
        if stats.leaves != self.slots.len() {
            return Err(ValidationError(format!(
                "static BVH has {} leaves for {} colliders",
                stats.leaves,
                self.slots.len()
            )));
        }
        Ok(stats)
    }
}
