//! Batches of rays with several traversals in flight:
//! [`StaticBvh::visit_rays`], [`StaticBvh::visit_rays_leaves`],
//! [`StaticBvh::cast_rays_closest`].
//!
//! The traversal is memory-latency bound (each node is a dependent load). A
//! batch interleaves the traversals of `IN_FLIGHT` rays, one node each in
//! turn, so a ray's next node (prefetched when chosen) has arrived in cache
//! by the time it is its turn again. Each ray still visits its boxes in the
//! order `visit_ray` would: the step below expands a node with the same
//! `push_hits` as the one-ray loop.

use super::{apply, closer, BoxHit, RayEntry, STACK};
use crate::broadphase::RayControl;
use crate::static_bvh::StaticBvh;
use core::ops::Range;
use proxima_narrowphase::kernels::{AabbX8, PrecomputedRay, RayLaneHits, SimdLevel};
use proxima_narrowphase::{Ray, Real};
use smallvec::SmallVec;

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
    pub fn visit_rays<F>(&self, rays: &[Ray], mut visitor: F)
    where
        F: FnMut(usize, u32, Real) -> RayControl,
    {
        self.visit_rays_dispatch(rays, |i: usize, pre: &PrecomputedRay, max_toi: &mut Real, entry: RayEntry| {
            self.ray_leaf(i, pre, max_toi, entry, &mut visitor)
        });
    }

    /// A batch with the kernel of `self.simd`; `leaf` handles each leaf
    /// entered by ray `i` and returns true to stop that ray.
    #[inline(always)]
    fn visit_rays_dispatch<L>(&self, rays: &[Ray], leaf: L)
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
            SimdLevel::Avx => unsafe { visit_rays_avx(self, rays, leaf) },
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Sse2 => self.visit_rays_with(rays, proxima_narrowphase::kernels::cast_ray_aabb_x8_sse2, leaf),
            _ => self.visit_rays_with(rays, proxima_narrowphase::kernels::cast_ray_aabb_x8_scalar, leaf),
        }
    }

    /// [`StaticBvh::visit_ray_leaves`] for every ray of `rays`, several in
    /// flight as in [`StaticBvh::visit_rays`]: `visitor(i, slots, entry_toi)`
    /// for the leaves `rays[i]` enters, its [`RayControl`] acting on ray `i`
    /// only. The calls for one ray come in the order `visit_ray_leaves`
    /// makes them.
    pub fn visit_rays_leaves<F>(&self, rays: &[Ray], mut visitor: F)
    where
        F: FnMut(usize, Range<u32>, Real) -> RayControl,
    {
        let leaf = |i: usize, _: &PrecomputedRay, max_toi: &mut Real, entry: RayEntry| {
            apply(visitor(i, entry.child..entry.child + entry.count, entry.toi), max_toi)
        };
        self.visit_rays_dispatch(rays, leaf);
    }

    /// Several rays, `IN_FLIGHT` at a time, one step each in turn.
    #[inline(always)]
    fn visit_rays_with<K, L>(&self, rays: &[Ray], kernel: K, mut leaf: L)
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
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
                    if !self.ray_step(state, &kernel, &mut leaf) {
                        *slot = None;
                    }
                }
            }
            if !active {
                return;
            }
        }
    }

    /// Visits one entry of a ray: a leaf (handed to `leaf`, which returns
    /// true to stop), or a node's lanes. Returns false when the ray is done
    /// (stack empty, or `leaf` stopped it).
    #[inline(always)]
    fn ray_step<K, L>(&self, st: &mut RayState, kernel: &K, leaf: &mut L) -> bool
    where
        K: Fn(&PrecomputedRay, &AabbX8, Real) -> RayLaneHits<8>,
        L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
    {
        let Some(entry) = st.next.take().or_else(|| st.stack.pop()) else { return false };
        // The entry toi does not depend on max_toi, so this is exactly "the
        // box is still hit with the clipped max_toi".
        if entry.toi > st.max_toi {
            return true;
        }
        if entry.count > 0 {
            return !leaf(st.index, &st.pre, &mut st.max_toi, entry);
        }
        let node = &self.nodes[entry.child as usize];
        let hits = kernel(&st.pre, &node.bounds, st.max_toi);
        st.next = self.push_hits(node, &hits, &mut st.stack);
        true
    }
}

/// The AVX instance of the batch traversal.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_rays_avx<L>(bvh: &StaticBvh, rays: &[Ray], leaf: L)
where
    L: FnMut(usize, &PrecomputedRay, &mut Real, RayEntry) -> bool,
{
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel = |r: &PrecomputedRay, b: &AabbX8, t: Real| unsafe {
        proxima_narrowphase::kernels::cast_ray_aabb_x8_avx(r, b, t)
    };
    bvh.visit_rays_with(rays, kernel, leaf)
}
