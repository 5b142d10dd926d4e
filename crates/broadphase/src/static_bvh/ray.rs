//! Ray queries: one ray ([`StaticBvh::cast_ray_closest`], `visit_ray`) or a
//! batch with several rays in flight ([`StaticBvh::visit_rays`]).
//!
//! Ordered depth-first traversal: one kernel call gives the entry `toi` of
//! every lane of a node; the nearest hit lane is visited next and the others
//! are pushed farthest first, so they pop nearest first; an entry whose
//! `toi` exceeds the current (possibly clipped) `max_toi` is skipped. The
//! kernel is chosen once per query and inlined into a traversal compiled for
//! it (AVX, SSE2 or portable). Every node a ray will visit is prefetched
//! when it is pushed.
//!
//! The traversal is memory-latency bound (each node is a dependent load). A
//! batch interleaves the traversals of `IN_FLIGHT` rays, one node each in
//! turn, so a ray's next node has arrived in cache by the time it is its turn
//! again. Each ray still visits its boxes in the order `visit_ray` would.

use super::wide::WideNode;
use super::StaticBvh;
use crate::broadphase::RayControl;
use proxima_narrowphase::{ray_aabb_interval, AabbX8, PrecomputedRay, Ray, RayLaneHits, Real, SimdLevel};
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

/// Rays traversed together by [`StaticBvh::visit_rays`].
const IN_FLIGHT: usize = 8;

/// One ray's traversal state.
struct RayState {
    index: usize,
    pre: PrecomputedRay,
    max_toi: Real,
    /// The entry to visit next: the nearest hit child of the last node, kept
    /// out of the stack; otherwise the top of the stack.
    next: Option<RayEntry>,
    stack: SmallVec<[RayEntry; STACK]>,
}

impl RayState {
    fn new(index: usize, ray: &Ray) -> Self {
        Self {
            index,
            pre: PrecomputedRay::new(ray),
            max_toi: ray.max_toi(),
            next: Some(RayEntry { child: 0, count: 0, toi: 0.0 }),
            stack: SmallVec::new(),
        }
    }
}

impl StaticBvh {
    /// The box the ray enters first (smallest entry `toi`, then smallest id),
    /// the boxes themselves being the geometry.
    #[must_use]
    pub fn cast_ray_closest(&self, ray: &Ray) -> Option<BoxHit> {
        let mut best: Option<BoxHit> = None;
        self.visit_ray_impl(ray, |id, toi| closer(&mut best, id, toi));
        best
    }

    /// [`StaticBvh::cast_ray_closest`] for every ray of `rays`, into `out`
    /// (cleared first; `out[i]` for `rays[i]`), several rays in flight.
    pub fn cast_rays_closest(&self, rays: &[Ray], out: &mut Vec<Option<BoxHit>>) {
        out.clear();
        out.resize(rays.len(), None);
        self.visit_rays(rays, |i, id, toi| closer(&mut out[i], id, toi));
    }

    /// `visit_ray` for every ray of `rays`: `visitor(i, id, entry_toi)` is
    /// called for the boxes `rays[i]` enters, and its [`RayControl`] acts on
    /// ray `i` only (`Stop` ends that ray). The calls for one ray come in the
    /// order `visit_ray` makes them; calls for different rays interleave.
    /// Throughput is higher than one `visit_ray` per ray, since several
    /// traversals overlap their memory accesses.
    pub fn visit_rays<F>(&self, rays: &[Ray], visitor: F)
    where
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        match self.simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `self.simd` never exceeds `SimdLevel::detect()` (see
            // `set_simd_level`), so this CPU has AVX.
            SimdLevel::Avx => unsafe { visit_rays_avx(self, rays, visitor) },
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Sse2 => self.visit_rays_with(rays, proxima_narrowphase::cast_ray_aabb_x8_sse2, visitor),
            _ => self.visit_rays_with(rays, proxima_narrowphase::cast_ray_aabb_x8_scalar, visitor),
        }
    }

    pub(super) fn visit_ray_impl<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(u32, Real) -> RayControl,
    {
        let rays = core::slice::from_ref(ray);
        let visitor = |_: usize, id: u32, toi: Real| visitor(id, toi);
        match self.simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `visit_rays`.
            SimdLevel::Avx => unsafe { visit_ray_avx(self, rays, visitor) },
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Sse2 => self.visit_ray_with(ray, proxima_narrowphase::cast_ray_aabb_x8_sse2, visitor),
            _ => self.visit_ray_with(ray, proxima_narrowphase::cast_ray_aabb_x8_scalar, visitor),
        }
    }

    /// One ray, with a given kernel; always inlined so that the kernel
    /// inlines too, in a caller compiled with the kernel's target features.
    #[inline(always)]
    fn visit_ray_with<K, F>(&self, ray: &Ray, kernel: K, mut visitor: F)
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        if self.nodes.is_empty() {
            return;
        }
        let mut state = RayState::new(0, ray);
        while self.ray_step(&mut state, &kernel, &mut visitor) {}
    }

    /// Several rays, `IN_FLIGHT` at a time, one step each in turn.
    #[inline(always)]
    fn visit_rays_with<K, F>(&self, rays: &[Ray], kernel: K, mut visitor: F)
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        if self.nodes.is_empty() {
            return;
        }
        let mut slots: [Option<RayState>; IN_FLIGHT] = core::array::from_fn(|_| None);
        let mut fed = 0;
        loop {
            let mut active = false;
            for slot in slots.iter_mut() {
                if slot.is_none() && fed < rays.len() {
                    *slot = Some(RayState::new(fed, &rays[fed]));
                    fed += 1;
                }
                if let Some(state) = slot {
                    active = true;
                    if !self.ray_step(state, &kernel, &mut visitor) {
                        *slot = None;
                    }
                }
            }
            if !active {
                return;
            }
        }
    }

    /// Visits one entry of a ray: a leaf's boxes, or a node's lanes. Returns
    /// false when the ray is done (stack empty, or the visitor stopped it).
    #[inline(always)]
    fn ray_step<K, F>(&self, st: &mut RayState, kernel: &K, visitor: &mut F) -> bool
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        let Some(entry) = st.next.take().or_else(|| st.stack.pop()) else { return false };
        // The entry toi does not depend on max_toi, so this is exactly "the
        // box is still hit with the clipped max_toi".
        if entry.toi > st.max_toi {
            return true;
        }
        if entry.count > 0 {
            return !self.ray_leaf(st, entry, visitor);
        }
        let node = &self.nodes[entry.child as usize];
        let hits = kernel(&st.pre, &node.bounds, st.max_toi);
        let lane_entry = |lane: usize, toi: Real| {
            if node.count[lane] == 0 {
                prefetch_node(&self.nodes, node.child[lane]);
            }
            RayEntry { child: node.child[lane], count: u32::from(node.count[lane]), toi }
        };
        if hits.mask.count_ones() <= 1 {
            if hits.mask != 0 {
                let lane = hits.mask.trailing_zeros() as usize;
                st.next = Some(lane_entry(lane, hits.toi[lane]));
            }
            return true;
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
            st.stack.push(lane_entry(usize::from(lane), toi));
        }
        st.next = Some(lane_entry(usize::from(order[0].1), order[0].0));
        true
    }

    /// Visits the boxes of a leaf; true when the visitor stops.
    #[inline(always)]
    fn ray_leaf<F>(&self, st: &mut RayState, entry: RayEntry, visitor: &mut F) -> bool
    where
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        let first = entry.child as usize;
        for slot in first..first + entry.count as usize {
            let toi = if entry.count == 1 {
                // The lane's box is this box: the kernel's toi is its entry.
                entry.toi
            } else {
                let clipped = PrecomputedRay { max_toi: st.max_toi, ..st.pre };
                match ray_aabb_interval(&clipped, &self.prim_boxes[slot]) {
                    Some((t_enter, _)) => t_enter,
                    None => continue,
                }
            };
            if toi > st.max_toi {
                continue;
            }
            match visitor(st.index, self.prim_ids[slot], toi) {
                RayControl::Continue => {}
                RayControl::Clip(t) => st.max_toi = st.max_toi.min(t),
                RayControl::Stop => return true,
            }
        }
        false
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

/// The AVX instance of the one-ray traversal (`rays` holds one ray).
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_ray_avx<F>(bvh: &StaticBvh, rays: &[Ray], visitor: F)
where
    F: FnMut(usize, u32, Real) -> RayControl,
{
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel =
        |r: &PrecomputedRay, b: &AabbX8, t: Real| unsafe { proxima_narrowphase::cast_ray_aabb_x8_avx(r, b, t) };
    bvh.visit_ray_with(&rays[0], kernel, visitor)
}

/// The AVX instance of the batch traversal.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_rays_avx<F>(bvh: &StaticBvh, rays: &[Ray], visitor: F)
where
    F: FnMut(usize, u32, Real) -> RayControl,
{
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel =
        |r: &PrecomputedRay, b: &AabbX8, t: Real| unsafe { proxima_narrowphase::cast_ray_aabb_x8_avx(r, b, t) };
    bvh.visit_rays_with(rays, kernel, visitor)
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
