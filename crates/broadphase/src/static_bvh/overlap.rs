//! Box-overlap queries: a visitor (`visit_overlaps`) and a lazy iterator
//! ([`StaticBvh::overlaps`]). One SIMD-friendly test per node gives the mask
//! of the lanes whose box overlaps the query (closed boxes: touching counts).

use super::wide::Lane;
use super::StaticBvh;
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};
use smallvec::SmallVec;

/// Traversal stack size before spilling to the heap.
const STACK: usize = 64;

impl StaticBvh {
    pub(super) fn visit_overlaps_impl<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32) -> ControlFlow<()>,
    {
        self.visit_overlap_slots(aabb, |slot| visitor(self.prim_ids[slot as usize]))
    }

    /// The leaf slots of the boxes overlapping `aabb`: the traversal behind
    /// [`visit_overlaps`](crate::BroadPhase::visit_overlaps) and the
    /// [`OverlapCache`](super::OverlapCache)'s refill.
    pub(crate) fn visit_overlap_slots<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32) -> ControlFlow<()>,
    {
        if self.nodes.is_empty() {
            return ControlFlow::Continue(());
        }
        let mut stack: SmallVec<[u32; STACK]> = SmallVec::new();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            let mut mask = node.bounds.overlap_mask(aabb);
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match node.lane(lane) {
                    Lane::Node(child) => {
                        // The pushed nodes load while this one's lanes are
                        // visited (a query is a chain of cache misses otherwise).
                        super::ray::prefetch_node(&self.nodes, child);
                        stack.push(child);
                    }
                    Lane::Leaf { first, count } => {
                        for slot in first..first + count {
                            // A one-box leaf's lane is the box: already tested.
                            if count == 1 || intersects_aabb_aabb(&self.prim_boxes[slot as usize], aabb) {
                                visitor(slot)?;
                            }
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The ids of the boxes overlapping `aabb` (touching counts), lazily.
    pub fn overlaps<'a>(&'a self, aabb: &Aabb) -> StaticBvhOverlaps<'a> {
        let mut stack = SmallVec::new();
        if !self.nodes.is_empty() {
            stack.push(0);
        }
        StaticBvhOverlaps { bvh: self, query: *aabb, stack, node: 0, mask: 0, leaf: 0..0, leaf_len: 0 }
    }
}

/// Iterator over the ids of the boxes overlapping a query box
/// (from [`StaticBvh::overlaps`]).
#[derive(Clone, Debug)]
pub struct StaticBvhOverlaps<'a> {
    bvh: &'a StaticBvh,
    query: Aabb,
    stack: SmallVec<[u32; STACK]>,
    /// The node whose lanes in `mask` are still to visit.
    node: u32,
    mask: u32,
    /// Leaf slots still to test, and the leaf's size.
    leaf: core::ops::Range<u32>,
    leaf_len: u32,
}

impl Iterator for StaticBvhOverlaps<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            if let Some(slot) = self.leaf.next() {
                let slot = slot as usize;
                if self.leaf_len == 1 || intersects_aabb_aabb(&self.bvh.prim_boxes[slot], &self.query) {
                    return Some(self.bvh.prim_ids[slot]);
                }
                continue;
            }
            if self.mask != 0 {
                let lane = self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                match self.bvh.nodes[self.node as usize].lane(lane) {
                    Lane::Node(child) => self.stack.push(child),
                    Lane::Leaf { first, count } => {
                        self.leaf = first..first + count;
                        self.leaf_len = count;
                    }
                }
                continue;
            }
            let node = self.stack.pop()?;
            self.node = node;
            self.mask = self.bvh.nodes[node as usize].bounds.overlap_mask(&self.query);
        }
    }
}
