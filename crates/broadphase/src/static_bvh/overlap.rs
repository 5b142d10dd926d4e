//! Box-overlap queries: a visitor (`visit_overlaps`) and a lazy iterator
//! ([`StaticBvh::overlaps`]). One SIMD-friendly test per node gives the mask
//! of the lanes whose box overlaps the query (closed boxes: touching counts).

use super::mask::{portable_mask, MaskKernel};
use super::stack::NodeStack;
use super::wide::Lane;
use super::StaticBvh;
use core::ops::ControlFlow;
use proxima_narrowphase::kernels::{AabbX8, SimdLevel};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Real};
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
    /// [`OverlapCache`](super::OverlapCache)'s refill. With AVX (and the
    /// tree's [`SimdLevel`] allowing it), each node's 8 lanes are tested in
    /// one 256-bit comparison per bound; the masks are the same.
    #[inline]
    pub(crate) fn visit_overlap_slots<F>(&self, aabb: &Aabb, visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32) -> ControlFlow<()>,
    {
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { visit_overlap_slots_avx(self, aabb, visitor) };
        }
        self.visit_overlap_slots_with(aabb, portable_mask, visitor)
    }

    /// [`visit_overlap_slots`](Self::visit_overlap_slots) with a given
    /// lane-mask kernel.
    #[inline(always)]
    fn visit_overlap_slots_with<K, F>(&self, aabb: &Aabb, kernel: K, mut visitor: F) -> ControlFlow<()>
    where
        K: MaskKernel,
        F: FnMut(u32) -> ControlFlow<()>,
    {
        if self.nodes.is_empty() {
            return ControlFlow::Continue(());
        }
        let (min, max) = (aabb.min(), aabb.max());
        let (min, max) = ([min.x, min.y, min.z], [max.x, max.y, max.z]);
        let mut stack = NodeStack::new(0);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            let mut mask = kernel(&node.bounds, &min, &max);
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
                    // A one-box leaf's lane is the box: already tested.
                    Lane::Leaf { first, count: 1 } => visitor(first)?,
                    Lane::Leaf { first, count } => {
                        // The leaf's boxes tested first, without a branch
                        // each (whether a box overlaps follows no pattern in
                        // a pile), then the overlapping ones visited: 32 at
                        // a time, a bit each (a leaf holds up to 255, B37).
                        let boxes = &self.prim_boxes[first as usize..(first + count) as usize];
                        for (chunk, group) in boxes.chunks(32).enumerate() {
                            let chunk = first + 32 * chunk as u32;
                            let mut hits = group
                                .iter()
                                .enumerate()
                                .fold(0u32, |m, (k, b)| m | u32::from(intersects_aabb_aabb(b, aabb)) << k);
                            while hits != 0 {
                                let k = hits.trailing_zeros();
                                hits &= hits - 1;
                                visitor(chunk + k)?;
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

/// The AVX instance of the overlap traversal.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_overlap_slots_avx<F>(bvh: &StaticBvh, aabb: &Aabb, visitor: F) -> ControlFlow<()>
where
    F: FnMut(u32) -> ControlFlow<()>,
{
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel = |lanes: &AabbX8, min: &[Real; 3], max: &[Real; 3]| unsafe {
        proxima_narrowphase::kernels::overlap_mask_x8_avx(lanes, min, max)
    };
    bvh.visit_overlap_slots_with(aabb, kernel, visitor)
}
