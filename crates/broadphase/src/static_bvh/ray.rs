//! Ray queries: one ray ([`StaticBvh::cast_ray_closest`], `visit_ray`, and
//! [`StaticBvh::visit_ray_leaves`] for visitors that test a whole leaf at
//! once); `ray/batch.rs` has the batches with several rays in flight
//! ([`StaticBvh::visit_rays`], [`StaticBvh::visit_rays_leaves`]).
//!
//! Ordered depth-first traversal: one kernel call gives the entry `toi` of
//! every lane of a node; the nearest hit lane is visited next and the others
//! are pushed farthest first, so they pop nearest first; an entry whose
//! `toi` exceeds the current (possibly clipped) `max_toi` is skipped. The
//! kernel is chosen once per query and inlined into a traversal compiled for
//! it (AVX, SSE2 or portable). Every node a ray will visit is prefetched
//! when it is pushed. One ray keeps its current entry in registers and
//! descends without touching the stack; a leaf is handed to a leaf handler
//! (the per-box visitor of `visit_ray`, or a whole-leaf visitor).
//!
//! Several rays at once: `batch.rs` interleaves independent traversals
//! (incoherent rays on large trees), `packet.rs` traverses up to eight
//! coherent rays as one ([`StaticBvh::visit_packet_leaves`]).

mod batch;
mod packet;

pub use packet::PACKET_SIZE;

use super::wide::WideNode;
use super::StaticBvh;
use crate::broadphase::RayControl;
use core::ops::Range;
use proxima_narrowphase::kernels::{ray_aabb_interval, AabbX8, PrecomputedRay, RayInterval, RayLaneHits, SimdLevel};
use proxima_narrowphase::{Aabb, Ray, Real};
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

/// A node or leaf waiting on a ray's stack, with the `toi` where the ray
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
        self.visit_ray_impl(ray, |id, toi| closer(&mut best, id, toi));
        best
    }

    /// Calls `visitor(slots, entry_toi)` for every leaf whose box the ray
    /// enters at `entry_toi <= max_toi` (the current, possibly clipped
    /// `max_toi`), in the order `visit_ray` visits boxes: `slots` is the
    /// leaf's range in the leaf order, `leaf_ids()[slots]` its primitives'
    /// ids. The primitives' own boxes are not tested: a visitor with a cheap
    /// exact test (triangles) tests the leaf's primitives itself, as a block.
    /// [`RayControl::Clip`] shortens the ray, `Stop` ends the traversal.
    pub fn visit_ray_leaves<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(Range<u32>, Real) -> RayControl,
    {
        let leaf = |_: usize, _: &PrecomputedRay, max_toi: &mut Real, entry: RayEntry| {
            apply(visitor(entry.child..entry.child + entry.count, entry.toi), max_toi)
        };
        self.visit_ray_dispatch(ray, leaf);
    }

    /// The primitive ids in leaf order: a leaf holds consecutive slots (see
    /// [`StaticBvh::visit_ray_leaves`]), and
    /// `leaf_ids()[slot]` is the id (build input index) of the primitive there.
    pub fn leaf_ids(&self) -> &[u32] {
        &self.prim_ids
    }

    /// The leaves' slot ranges, in leaf order: they partition
    /// `0..self.len()` (empty for an empty tree).
    pub fn leaf_ranges(&self) -> Vec<Range<u32>> {
        let mut out: Vec<Range<u32>> = self
            .nodes
            .iter()
            .flat_map(|node| (0..usize::from(node.len)).map(move |lane| node.lane(lane)))
            .filter_map(|lane| match lane {
                super::wide::Lane::Leaf { first, count } => Some(first..first + count),
                super::wide::Lane::Node(_) => None,
            })
            .collect();
        out.sort_unstable_by_key(|r| r.start);
        out
    }

    /// The boxes in leaf order: `leaf_boxes()[slot]` is the box of
    /// primitive `leaf_ids()[slot]` (as refitted), for a leaf visitor that
    /// tests its primitives' boxes itself.
    pub fn leaf_boxes(&self) -> &[Aabb] {
        &self.prim_boxes
    }

    pub(super) fn visit_ray_impl<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(u32, Real) -> RayControl,
    {
        let mut visitor = |_: usize, id: u32, toi: Real| visitor(id, toi);
        self.visit_ray_dispatch(ray, |i: usize, pre: &PrecomputedRay, max_toi: &mut Real, entry: RayEntry| {
            self.ray_leaf(i, pre, max_toi, entry, &mut visitor)
        });
    }

    /// One ray with the kernel of `self.simd`; `leaf` handles each leaf
    /// entered and returns true to stop.
    #[inline(always)]
    fn visit_ray_dispatch<L>(&self, ray: &Ray, leaf: L)
    where
        L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
    {
        // The stored level is a request, checked against the CPU at every
        // dispatch (`detect` is cached): a tree built or restored elsewhere
        // never runs a kernel this CPU lacks.
        match self.simd.min(SimdLevel::detect()) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            SimdLevel::Avx => unsafe { visit_ray_avx(self, ray, leaf) },
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Sse2 => self.visit_ray_with(ray, proxima_narrowphase::kernels::cast_ray_aabb_x8_sse2, leaf),
            _ => self.visit_ray_with(ray, proxima_narrowphase::kernels::cast_ray_aabb_x8_scalar, leaf),
        }
    }

    /// One ray, with a given kernel; always inlined so that the kernel
    /// inlines too, in a caller compiled with the kernel's target features.
    ///
    /// `cur` is the entry being visited; the loop descends from a node into
    /// its nearest hit lane without touching the stack, and pops only after
    /// a leaf or a node with no hit lane.
    #[inline(always)]
    fn visit_ray_with<K, L>(&self, ray: &Ray, kernel: K, mut leaf: L)
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
    {
        if self.nodes.is_empty() {
            return;
        }
        let pre = PrecomputedRay::new(ray);
        let mut max_toi = ray.max_toi();
        let mut stack: SmallVec<[RayEntry; STACK]> = SmallVec::new();
        let mut cur = RayEntry { child: 0, count: 0, toi: 0.0 };
        loop {
            if cur.count == 0 {
                let node = &self.nodes[cur.child as usize];
                let hits = kernel(&pre, &node.bounds, max_toi);
                if let Some(next) = self.push_hits(node, &hits, &mut stack) {
                    cur = next;
                    continue;
                }
            } else if leaf(0, &pre, &mut max_toi, cur) {
                return;
            }
            // The nearest pending entry still within the (clipped) max_toi.
            // The entry toi does not depend on max_toi, so `toi <= max_toi`
            // is exactly "the box is still hit with the clipped max_toi".
            loop {
                let Some(entry) = stack.pop() else { return };
                if entry.toi <= max_toi {
                    cur = entry;
                    break;
                }
            }
        }
    }

    /// The hit lanes of `node` in order of entry `toi` (ties: lower lane
    /// first): the nearest is returned, to be visited next, and the others
    /// are pushed farthest first, so they pop nearest first. Each pushed node
    /// is prefetched.
    #[inline(always)]
    fn push_hits(
        &self,
        node: &WideNode,
        hits: &RayLaneHits<8>,
        stack: &mut SmallVec<[RayEntry; STACK]>,
    ) -> Option<RayEntry> {
        let lane_entry = |lane: usize| {
            if node.count[lane] == 0 {
                prefetch_node(&self.nodes, node.child[lane]);
            }
            RayEntry { child: node.child[lane], count: u32::from(node.count[lane]), toi: hits.toi[lane] }
        };
        let mask = hits.mask;
        if mask == 0 {
            return None;
        }
        let first = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        if rest == 0 {
            return Some(lane_entry(first));
        }
        if rest & (rest - 1) == 0 {
            // Two lanes, the common case: one comparison.
            let (a, b) = (lane_entry(first), lane_entry(rest.trailing_zeros() as usize));
            let (near, far) = if b.toi < a.toi { (b, a) } else { (a, b) };
            stack.push(far);
            return Some(near);
        }
        // Three or more.
        let (order, n) = lanes_by_toi(mask, |lane| hits.toi[lane]);
        for &(_, lane) in order[1..n].iter().rev() {
            stack.push(lane_entry(usize::from(lane)));
        }
        Some(lane_entry(usize::from(order[0].1)))
    }

    /// Visits the boxes of a leaf for ray `index`; true when the visitor stops.
    #[inline(always)]
    fn ray_leaf<F>(
        &self,
        index: usize,
        pre: &PrecomputedRay,
        max_toi: &mut Real,
        entry: RayEntry,
        visitor: &mut F,
    ) -> bool
    where
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        let first = entry.child as usize;
        for slot in first..first + entry.count as usize {
            let toi = if entry.count == 1 {
                // The lane's box is this box: the kernel's toi is its entry.
                entry.toi
            } else {
                let clipped = PrecomputedRay { max_toi: *max_toi, ..*pre };
                match ray_aabb_interval(&clipped, &self.prim_boxes[slot]) {
                    Some(RayInterval { toi_enter: t_enter, .. }) => t_enter,
                    None => continue,
                }
            };
            if toi > *max_toi {
                continue;
            }
            match visitor(index, self.prim_ids[slot], toi) {
                RayControl::Continue => {}
                RayControl::Clip(t) => *max_toi = max_toi.min(t),
                RayControl::Stop => return true,
            }
        }
        false
    }
}

/// The lanes of `mask` (at most 8) in order of `toi(lane)`, ties by lane
/// (an insertion sort, stable), and their number: the visiting order of a
/// node's hit children.
#[inline(always)]
pub(super) fn lanes_by_toi(mut mask: u32, toi: impl Fn(usize) -> Real) -> ([(Real, u8); 8], usize) {
    let mut order: [(Real, u8); 8] = [(0.0, 0); 8];
    let mut n = 0;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let t = toi(lane);
        let mut k = n;
        while k > 0 && order[k - 1].0 > t {
            order[k] = order[k - 1];
            k -= 1;
        }
        order[k] = (t, lane as u8);
        n += 1;
    }
    (order, n)
}

/// Applies a leaf visitor's answer to a ray's `max_toi`; true for `Stop`.
#[inline(always)]
fn apply(control: RayControl, max_toi: &mut Real) -> bool {
    match control {
        RayControl::Continue => false,
        RayControl::Clip(t) => {
            *max_toi = max_toi.min(t);
            false
        }
        RayControl::Stop => true,
    }
}

/// Keeps the closer of `best` and `(id, toi)` (smaller toi, then smaller id);
/// the visitor of the closest-hit queries.
fn closer(best: &mut Option<BoxHit>, id: u32, toi: Real) -> RayControl {
    if best.is_none_or(|b| toi < b.toi || (toi == b.toi && id < b.id)) {
        *best = Some(BoxHit { id, toi });
    }
    RayControl::Clip(toi)
}

/// The AVX instance of the one-ray traversal.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_ray_avx<L>(bvh: &StaticBvh, ray: &Ray, leaf: L)
where
    L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
{
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel = |r: &PrecomputedRay, b: &AabbX8, t: Real| unsafe {
        proxima_narrowphase::kernels::cast_ray_aabb_x8_avx(r, b, t)
    };
    bvh.visit_ray_with(ray, kernel, leaf)
}

/// Asks the CPU to start loading a node's cache lines. Most hit children of
/// a node are visited, so their loads overlap instead of forming one
/// dependent chain of cache misses.
#[inline(always)]
pub(super) fn prefetch_node(nodes: &[WideNode], index: u32) {
    // The four prefetched lines must lie inside one node.
    const _: () = assert!(core::mem::size_of::<WideNode>() >= 256);
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
