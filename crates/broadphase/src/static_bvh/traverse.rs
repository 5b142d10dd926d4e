//! Ray and box-overlap queries.
//!
//! Rays: ordered depth-first traversal. One kernel call gives the entry `toi`
//! of every lane of a node; the hit lanes are pushed farthest first, so the
//! nearest is visited next, and a popped entry whose `toi` exceeds the
//! current (possibly clipped) `max_toi` is skipped. The kernel is chosen
//! once per query and inlined into a traversal compiled for it (AVX, SSE2 or
//! portable).

use super::wide::{Lane, WideNode};
use super::StaticBvh;
use crate::broadphase::RayControl;
use core::ops::ControlFlow;
use proxima_narrowphase::{
    intersects_aabb_aabb, ray_aabb_interval, Aabb, AabbX8, PrecomputedRay, Ray, RayLaneHits, Real, SimdLevel,
};
use smallvec::SmallVec;

/// The closest box a ray enters: its id and the entry `toi`
/// (`point = origin + toi * dir`, `0 <= toi <= max_toi`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxHit {
    /// The box's id (its index in the build input).
    pub id: u32,
    /// The ray parameter where the ray enters the box (0 when the origin is inside).
    pub toi: Real,
}

/// A node or leaf waiting on the ray stack, with the `toi` where the ray
/// enters its box.
#[derive(Clone, Copy, Debug)]
struct RayEntry {
    child: u32,
    count: u32,
    toi: Real,
}

/// Traversal stack size before spilling to the heap: enough for a tree of
/// depth 9 with every lane hit, far more than a typical ray needs.
const STACK: usize = 64;

impl StaticBvh {
    /// The box the ray enters first (smallest entry `toi`, then smallest id),
    /// the boxes themselves being the geometry.
    #[must_use]
    pub fn cast_ray_closest(&self, ray: &Ray) -> Option<BoxHit> {
        let mut best: Option<BoxHit> = None;
        self.visit_ray_impl(ray, |id, toi| {
            if best.map_or(true, |b| toi < b.toi || (toi == b.toi && id < b.id)) {
                best = Some(BoxHit { id, toi });
            }
            RayControl::Clip(toi)
        });
        best
    }

    pub(super) fn visit_ray_impl<F>(&self, ray: &Ray, visitor: F)
    where
        F: FnMut(u32, Real) -> RayControl,
    {
        match self.simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `self.simd` never exceeds `SimdLevel::detect()` (see
            // `set_simd_level`), so this CPU has AVX.
            SimdLevel::Avx => unsafe { visit_ray_avx(self, ray, visitor) },
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Sse2 => self.visit_ray_with(ray, proxima_narrowphase::cast_ray_aabb_x8_sse2, visitor),
            _ => self.visit_ray_with(ray, proxima_narrowphase::cast_ray_aabb_x8_scalar, visitor),
        }
    }

    /// The traversal with a given kernel; always inlined so that the kernel
    /// inlines too, in a caller compiled with the kernel's target features.
    #[inline(always)]
    fn visit_ray_with<K, F>(&self, ray: &Ray, kernel: K, mut visitor: F)
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        F: FnMut(u32, Real) -> RayControl,
    {
        if self.nodes.is_empty() {
            return;
        }
        let pre = PrecomputedRay::new(ray);
        let mut max_toi = ray.max_toi();
        let mut stack: SmallVec<[RayEntry; STACK]> = SmallVec::new();
        // The entry to visit next: the nearest child of the last node, kept
        // out of the stack; otherwise the top of the stack.
        let mut next = Some(RayEntry { child: 0, count: 0, toi: 0.0 });
        while let Some(entry) = next.take().or_else(|| stack.pop()) {
            // The entry toi does not depend on max_toi, so this is exactly
            // "the box is still hit with the clipped max_toi".
            if entry.toi > max_toi {
                continue;
            }
            if entry.count > 0 {
                let stop = self.ray_leaf(&pre, entry, &mut max_toi, &mut visitor);
                if stop {
                    return;
                }
                continue;
            }
            let node = &self.nodes[entry.child as usize];
            let hits = kernel(&pre, &node.bounds, max_toi);
            let lane_entry = |lane: usize, toi: Real| {
                if node.count[lane] == 0 {
                    prefetch_node(&self.nodes, node.child[lane]);
                }
                RayEntry { child: node.child[lane], count: u32::from(node.count[lane]), toi }
            };
            if hits.mask.count_ones() <= 1 {
                if hits.mask != 0 {
                    let lane = hits.mask.trailing_zeros() as usize;
                    next = Some(lane_entry(lane, hits.toi[lane]));
                }
                continue;
            }
            // Hit lanes sorted by entry toi (insertion sort, at most 8).
            let mut order: [(Real, u8); 8] = [(0.0, 0); 8];
            let mut n = 0;
            let mut mask = hits.mask;
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let toi = hits.toi[lane];
                let mut k = n;
                while k > 0 && order[k - 1].0 > toi {
                    order[k] = order[k - 1];
                    k -= 1;
                }
                order[k] = (toi, lane as u8);
                n += 1;
            }
            // Farthest first onto the stack; the nearest is visited next.
            for &(toi, lane) in order[1..n].iter().rev() {
                stack.push(lane_entry(usize::from(lane), toi));
            }
            next = Some(lane_entry(usize::from(order[0].1), order[0].0));
        }
    }

    /// Visits the boxes of a leaf; true when the visitor stops.
    #[inline(always)]
    fn ray_leaf<F>(&self, pre: &PrecomputedRay, entry: RayEntry, max_toi: &mut Real, visitor: &mut F) -> bool
    where
        F: FnMut(u32, Real) -> RayControl,
    {
        let first = entry.child as usize;
        for slot in first..first + entry.count as usize {
            let toi = if entry.count == 1 {
                // The lane's box is this box: the kernel's toi is its entry.
                entry.toi
            } else {
                let clipped = PrecomputedRay { max_toi: *max_toi, ..*pre };
                match ray_aabb_interval(&clipped, &self.prim_boxes[slot]) {
                    Some((t_enter, _)) => t_enter,
                    None => continue,
                }
            };
            if toi > *max_toi {
                continue;
            }
            match visitor(self.prim_ids[slot], toi) {
                RayControl::Continue => {}
                RayControl::Clip(t) => *max_toi = max_toi.min(t),
                RayControl::Stop => return true,
            }
        }
        false
    }

    pub(super) fn visit_overlaps_impl<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
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
                    Lane::Node(child) => stack.push(child),
                    Lane::Leaf { first, count } => {
                        for slot in first as usize..(first + count) as usize {
                            // A one-box leaf's lane is the box: already tested.
                            if count == 1 || intersects_aabb_aabb(&self.prim_boxes[slot], aabb) {
                                visitor(self.prim_ids[slot])?;
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

/// The AVX instance of the traversal.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_ray_avx<F>(bvh: &StaticBvh, ray: &Ray, visitor: F)
where
    F: FnMut(u32, Real) -> RayControl,
{
    bvh.visit_ray_with(
        ray,
        // SAFETY: the caller guarantees AVX, and this closure only runs inside this call.
        |r: &PrecomputedRay, b: &AabbX8, t: Real| unsafe { proxima_narrowphase::cast_ray_aabb_x8_avx(r, b, t) },
        visitor,
    )
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

/// Asks the CPU to start loading a node's cache lines. Most hit children of
/// a node are visited, so their loads overlap instead of forming one
/// dependent chain of cache misses.
#[inline(always)]
fn prefetch_node(nodes: &[WideNode], index: u32) {
    #[cfg(target_arch = "x86_64")]
    if let Some(node) = nodes.get(index as usize) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (node as *const WideNode).cast::<i8>();
        // SAFETY: a prefetch is a hint without memory effects; the four
        // 64-byte lines lie inside `node` (256 bytes), a live element of `nodes`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.add(128));
            _mm_prefetch::<_MM_HINT_T0>(p.add(192));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (nodes, index);
}
