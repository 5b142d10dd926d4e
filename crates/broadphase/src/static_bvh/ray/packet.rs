//! Packets of up to eight rays traversing the tree together
//! ([`StaticBvh::visit_packet_leaves`]): for coherent rays, such as a
//! camera's neighbouring pixels.
//!
//! The one-ray traversal tests a node's children against its ray with one
//! SIMD call, then decides alone which children to visit and in which
//! order: branches, stack pushes and a sort per ray and node, which is most
//! of its time on a mesh. A packet holds its rays in the SIMD lanes, tests
//! each child against all of them (one call per child: the same arithmetic
//! per ray as alone), and makes those decisions once for the packet: the
//! children that any ray enters, their order (by the entry `toi` of the
//! first ray that enters each), and one stack whose entries carry the rays
//! that entered them and their entry `toi`s. A packet whose rays share
//! their direction signs (a directional light's shadow rays, most camera
//! tiles) shares each box's near and far planes too, which are then
//! broadcast instead of selected per ray; if they also share their origin
//! (a pinhole camera's), each plane's offset from it is computed once for
//! the node's 8 children.
//!
//! Exactness: lane `r` of a child's test is the one-ray kernel's arithmetic
//! for ray `r` (near and far planes chosen by the ray's direction signs,
//! running values second, the ray's current clip value as `max_toi`), so a
//! ray enters a box exactly when it would alone with the same clip value. An
//! entry popped from the stack keeps only the rays whose entry `toi` is still
//! within their clip value. What differs from one ray alone is the order of
//! the leaves, so a visitor whose answer must not depend on it (a closest
//! hit) breaks ties in a fixed order of its own.

use super::super::wide::WideNode;
use super::{lanes_by_toi, prefetch_node, STACK};
use crate::static_bvh::StaticBvh;
use core::ops::Range;
use proxima_narrowphase::kernels::{PrecomputedRay, SimdLevel};
use proxima_narrowphase::{Ray, Real};
use smallvec::SmallVec;

/// The most rays in a packet: one per lane of an AVX register.
pub const PACKET_SIZE: usize = 8;

/// A stack entry: a node (`count == 0`) or a leaf's slots, the rays of the
/// packet that entered it (`mask`) and their entry `toi`s.
#[derive(Clone, Copy)]
struct PacketEntry {
    child: u32,
    count: u32,
    mask: u32,
    toi: [Real; PACKET_SIZE],
}

impl StaticBvh {
    /// Visits, for a packet of up to [`PACKET_SIZE`] rays, every leaf that one of
    /// them enters within its clip value: `visitor(mask, slots, clip)` gets
    /// the rays that entered the leaf (bit `r` for `rays[r]`), its slots in
    /// leaf order (as [`StaticBvh::visit_ray_leaves`] gives them) and the
    /// rays' clip values, initially their `max_toi`. The visitor may lower
    /// `clip[r]`: boxes entered beyond it are skipped for ray `r` from then
    /// on, and a negative value retires the ray.
    ///
    /// A ray is handed every leaf it would be handed alone with the same clip
    /// values, but in another order: the packet's (see the module). Worth it
    /// for coherent rays (a camera's pixels in 4 x 2 tiles), whose packet
    /// shares its node visits; incoherent rays gain nothing.
    ///
    /// # Panics
    /// When `rays` holds more than [`PACKET_SIZE`] rays.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::StaticBvh;
    /// use proxima::narrowphase::{Aabb, Point, Ray, Vector};
    /// let boxes: Vec<Aabb> =
    ///     (0..20).map(|i| Aabb::new(Point::new(i as f32, 0.0, 0.0), Point::new(i as f32 + 0.5, 1.0, 1.0))).collect();
    /// let bvh = StaticBvh::build(&boxes);
    /// // Four parallel rays along x; each stops at the first box it enters.
    /// let rays: Vec<Ray> =
    ///     (0..4).map(|k| Ray::new(Point::new(-1.0, 0.1 + 0.2 * k as f32, 0.5), Vector::x(), 100.0)).collect();
    /// let mut first = [f32::INFINITY; 4];
    /// bvh.visit_packet_leaves(&rays, |mask, slots, clip| {
    ///     for r in (0..4).filter(|r| mask & 1 << r != 0) {
    ///         for s in slots.clone() {
    ///             let entry = bvh.leaf_boxes()[s as usize].min().x - rays[r].origin().x;
    ///             first[r] = first[r].min(entry);
    ///             clip[r] = clip[r].min(entry);
    ///         }
    ///     }
    /// });
    /// assert_eq!(first, [1.0; 4]);
    /// ```
    pub fn visit_packet_leaves<F>(&self, rays: &[Ray], mut visitor: F)
    where
        F: FnMut(u32, Range<u32>, &mut [Real; PACKET_SIZE]),
    {
        assert!(rays.len() <= PACKET_SIZE, "a packet holds at most {PACKET_SIZE} rays, not {}", rays.len());
        if rays.is_empty() || self.nodes.is_empty() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { visit_packet_avx(self, rays, &mut visitor) };
        }
        // Without AVX: each ray alone, with the same visitor contract.
        let mut clip = [0.0; PACKET_SIZE];
        for (r, ray) in rays.iter().enumerate() {
            clip[r] = ray.max_toi();
        }
        for (r, ray) in rays.iter().enumerate() {
            self.visit_ray_leaves(&ray.with_max_toi(clip[r]), |slots, _entry| {
                visitor(1 << r, slots, &mut clip);
                if clip[r] < 0.0 {
                    crate::RayControl::Stop
                } else {
                    crate::RayControl::Clip(clip[r])
                }
            });
        }
    }
}

/// The AVX packet traversal (see the module).
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_packet_avx<F>(bvh: &StaticBvh, rays: &[Ray], visitor: &mut F)
where
    F: FnMut(u32, Range<u32>, &mut [Real; PACKET_SIZE]),
{
    // Rays that share their direction signs on every axis (as the kernel
    // takes them: `PrecomputedRay::sign`) share their near and far planes,
    // which the traversal then broadcasts instead of blending them per ray:
    // a directional light's shadow rays, most camera tiles. Rays from one
    // point too (a pinhole camera's) share each plane's offset from it,
    // computed for a node's 8 children at once.
    let sign = |r: &Ray| PrecomputedRay::new(r).sign;
    let first = sign(&rays[0]);
    let origin = |r: &Ray| r.origin().coords.map(Real::to_bits);
    if !rays.iter().all(|r| sign(r) == first) {
        // SAFETY: the caller's guarantee (AVX) holds.
        unsafe { visit_packet_avx_signs::<F, false, false>(bvh, rays, visitor) }
    } else if rays.iter().all(|r| origin(r) == origin(&rays[0])) {
        // SAFETY: as above.
        unsafe { visit_packet_avx_signs::<F, true, true>(bvh, rays, visitor) }
    } else {
        // SAFETY: as above.
        unsafe { visit_packet_avx_signs::<F, true, false>(bvh, rays, visitor) }
    }
}

/// [`visit_packet_avx`] for rays that share their direction signs
/// (`SHARED`) or not, and, sharing them, their origin (`ORIGIN`, bit for
/// bit) or not.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn visit_packet_avx_signs<F, const SHARED: bool, const ORIGIN: bool>(
    bvh: &StaticBvh,
    rays: &[Ray],
    visitor: &mut F,
) where
    F: FnMut(u32, Range<u32>, &mut [Real; PACKET_SIZE]),
{
    use core::arch::x86_64::*;
    let live = (1u32 << rays.len()) - 1;
    // The rays structure of arrays; lanes past `rays.len()` repeat ray 0
    // (finite values) and are never in a mask.
    let mut clip = [-1.0; PACKET_SIZE];
    let (mut origin, mut inv, mut sign) =
        ([[0.0; PACKET_SIZE]; 3], [[0.0; PACKET_SIZE]; 3], [[0.0 as Real; PACKET_SIZE]; 3]);
    for r in 0..PACKET_SIZE {
        let ray = &rays[if r < rays.len() { r } else { 0 }];
        let pre = PrecomputedRay::new(ray);
        for a in 0..3 {
            origin[a][r] = pre.origin[a];
            inv[a][r] = pre.inv_dir[a];
            // All bits set where the near plane is the max (blend selector).
            sign[a][r] = if pre.sign[a] == 1 { Real::from_bits(u32::MAX) } else { 0.0 };
        }
        if r < rays.len() {
            clip[r] = ray.max_toi();
        }
    }
    // The intrinsics below: AVX is enabled for this function and the caller
    // guarantees the CPU has it; loads and stores are unaligned ones of
    // `[f32; 8]` locals.
    // SAFETY: as just said.
    let (o, iv, sg) = unsafe {
        let v = |x: &[Real; PACKET_SIZE]| _mm256_loadu_ps(x.as_ptr());
        ([0, 1, 2].map(|a| v(&origin[a])), [0, 1, 2].map(|a| v(&inv[a])), [0, 1, 2].map(|a| v(&sign[a])))
    };
    // Per axis, whether ray 0's near plane is the box's max (with `SHARED`,
    // every ray's).
    let near_max = PrecomputedRay::new(&rays[0]).sign;
    let mut stack: SmallVec<[PacketEntry; STACK]> = SmallVec::new();
    let mut cur = PacketEntry { child: 0, count: 0, mask: live, toi: [0.0; PACKET_SIZE] };
    loop {
        if cur.count == 0 {
            let node = &bvh.nodes[cur.child as usize];
            let rows = node.bounds.rows();
            let mut masks = [0u32; 8];
            let mut tois = [[0.0; PACKET_SIZE]; 8];
            let mut hit = 0u32;
            // SAFETY: as above; the loads and stores are of `[f32; 8]` locals.
            unsafe {
                let clipv = _mm256_loadu_ps(clip.as_ptr());
                // With one origin, every ray's `near - o` and `far - o` (the
                // same subtraction in each lane) for the 8 children at once.
                let mut offsets = [[[0.0; 8]; 2]; 3];
                if ORIGIN {
                    for a in 0..3 {
                        let o0 = _mm256_set1_ps(origin[a][0]);
                        let s = near_max[a];
                        let near = _mm256_sub_ps(_mm256_loadu_ps(rows[a][s].as_ptr()), o0);
                        let far = _mm256_sub_ps(_mm256_loadu_ps(rows[a][1 - s].as_ptr()), o0);
                        _mm256_storeu_ps(offsets[a][0].as_mut_ptr(), near);
                        _mm256_storeu_ps(offsets[a][1].as_mut_ptr(), far);
                    }
                }
                for c in 0..usize::from(node.len) {
                    let mut t_enter = _mm256_setzero_ps();
                    let mut t_exit = clipv;
                    for a in 0..3 {
                        let (tn, tf) = if ORIGIN {
                            let (near, far) = (offsets[a][0][c], offsets[a][1][c]);
                            (_mm256_mul_ps(_mm256_set1_ps(near), iv[a]), _mm256_mul_ps(_mm256_set1_ps(far), iv[a]))
                        } else {
                            let (near, far) = if SHARED {
                                // Every ray's near plane is ray 0's.
                                let s = near_max[a];
                                (_mm256_set1_ps(rows[a][s][c]), _mm256_set1_ps(rows[a][1 - s][c]))
                            } else {
                                let lo = _mm256_set1_ps(rows[a][0][c]);
                                let hi = _mm256_set1_ps(rows[a][1][c]);
                                (_mm256_blendv_ps(lo, hi, sg[a]), _mm256_blendv_ps(hi, lo, sg[a]))
                            };
                            (
                                _mm256_mul_ps(_mm256_sub_ps(near, o[a]), iv[a]),
                                _mm256_mul_ps(_mm256_sub_ps(far, o[a]), iv[a]),
                            )
                        };
                        // Running value second, as in the one-ray kernel.
                        t_enter = _mm256_max_ps(tn, t_enter);
                        t_exit = _mm256_min_ps(tf, t_exit);
                    }
                    let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(t_enter, t_exit)) as u32 & cur.mask;
                    masks[c] = m;
                    _mm256_storeu_ps(tois[c].as_mut_ptr(), t_enter);
                    hit |= u32::from(m != 0) << c;
                }
            }
            if hit != 0 {
                cur = push_children(bvh, node, hit, &masks, &tois, &mut stack);
                continue;
            }
        } else {
            visitor(cur.mask, cur.child..cur.child + cur.count, &mut clip);
        }
        // The next entry that a ray still enters within its clip value.
        loop {
            let Some(mut entry) = stack.pop() else { return };
            // SAFETY: AVX as above; unaligned loads of `[f32; 8]`s.
            let beyond = unsafe {
                let toi = _mm256_loadu_ps(entry.toi.as_ptr());
                _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(toi, _mm256_loadu_ps(clip.as_ptr()))) as u32
            };
            let mask = entry.mask & !beyond;
            if mask != 0 {
                entry.mask = mask;
                cur = entry;
                break;
            }
        }
    }
}

/// The hit children of `node` (`hit`: a bit per lane) ordered by the entry
/// `toi` of each one's first ray (ties: lower lane first): the nearest is
/// returned, to be visited next, the others pushed farthest first. Each
/// pushed node is prefetched.
#[inline(always)]
fn push_children(
    bvh: &StaticBvh,
    node: &WideNode,
    hit: u32,
    masks: &[u32; 8],
    tois: &[[Real; PACKET_SIZE]; 8],
    stack: &mut SmallVec<[PacketEntry; STACK]>,
) -> PacketEntry {
    let entry = |lane: usize| {
        if node.count[lane] == 0 {
            prefetch_node(&bvh.nodes, node.child[lane]);
        }
        PacketEntry { child: node.child[lane], count: u32::from(node.count[lane]), mask: masks[lane], toi: tois[lane] }
    };
    let (order, n) = lanes_by_toi(hit, |lane| tois[lane][masks[lane].trailing_zeros() as usize]);
    for &(_, lane) in order[1..n].iter().rev() {
        stack.push(entry(usize::from(lane)));
    }
    entry(usize::from(order[0].1))
}
