//! The culling of a compound's children for a ray: the ray brought into the
//! compound's frame, then the children whose box it enters, front to back
//! up to [`LINEAR_RAY_CHILDREN`] children, in the tree's order past it.

use proxima_broadphase::RayControl;
use proxima_narrowphase::kernels::{cast_ray_aabb_x8_loosened, ray_aabb_interval, AabbX8, PrecomputedRay, RayLaneHits};
use proxima_narrowphase::{Isometry, Ray, Real};

use super::{box_margin, Compound, LINEAR_RAY_CHILDREN};

/// A ray brought into a compound's frame, prepared for the tests of the
/// children's boxes.
pub(crate) struct CompoundRay {
    /// The ray in the compound's frame: `R^T (o - t)`, `R^T d`. A rotation
    /// keeps lengths, so its `toi` is the world one.
    pub(crate) local: Ray,
    /// `local` with its inverse direction, for the slab tests.
    pre: PrecomputedRay,
    /// The rounding allowance `m` of the change of frame: a child's box is
    /// loosened by `m + m * extent` (its largest half-extent).
    margin: Real,
}

/// The children whose loosened box a ray enters, up to
/// [`LINEAR_RAY_CHILDREN`]: bit `i` of `entered` marks child `i`, whose
/// entry parameter is `toi[i]`.
pub(crate) struct RayEntries {
    toi: [Real; LINEAR_RAY_CHILDREN],
    entered: u32,
}

impl RayEntries {
    /// The entered child with the smallest entry left (the lowest index on
    /// a tie), taken out, when that entry is at most `max_toi`; else `None`,
    /// and so are the rest. Taking them in turn gives the order of a stable
    /// sort of the entries, without sorting those never reached.
    #[inline(always)]
    pub(crate) fn next_before(&mut self, max_toi: Real) -> Option<usize> {
        if self.entered == 0 {
            return None;
        }
        let mut next = self.entered.trailing_zeros() as usize;
        let mut rest = self.entered & (self.entered - 1);
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if self.toi[i] < self.toi[next] {
                next = i;
            }
        }
        if self.toi[next] > max_toi {
            return None;
        }
        self.entered &= !(1 << next);
        Some(next)
    }
}

impl Compound {
    /// `ray` (world frame) brought into the frame of the compound placed by
    /// `pose`; `None` when it cannot be (a direction whose rotated
    /// components all round to subnormals).
    #[inline(always)]
    pub(crate) fn ray_in_frame(&self, pose: &Isometry, ray: &Ray) -> Option<CompoundRay> {
        let origin = pose.inverse_transform_point(ray.origin());
        let dir = pose.inverse_transform_vector(ray.dir());
        let local = Ray::try_new(origin, dir, ray.max_toi()).ok()?;
        let margin = box_margin(pose, &origin.coords);
        // `PrecomputedRay::new(&local)`, from the values at hand.
        let inv_dir = dir.map(|d| 1.0 / d);
        let sign = [0, 1, 2].map(|i| usize::from(inv_dir[i].is_sign_negative()));
        let pre = PrecomputedRay { origin, inv_dir, sign, max_toi: local.max_toi() };
        Some(CompoundRay { local, pre, margin })
    }

    /// Up to [`LINEAR_RAY_CHILDREN`] children, the children whose loosened
    /// box `ray` enters, to be taken front to back
    /// ([`RayEntries::next_before`]); `None` past it (see
    /// [`visit_ray_tree`](Self::visit_ray_tree)). Each block of eight boxes
    /// takes one wide slab test.
    #[inline(always)]
    pub(crate) fn ray_entries(&self, ray: &CompoundRay) -> Option<RayEntries> {
        const _: () = assert!(LINEAR_RAY_CHILDREN <= u32::BITS as usize);
        let mut entries = RayEntries { toi: [0.0; LINEAR_RAY_CHILDREN], entered: 0 };
        if let [lanes] = self.lanes.as_slice() {
            let hits = block_hits(ray, lanes, &self.lane_extents[0]);
            entries.toi[..8].copy_from_slice(&hits.toi);
            entries.entered = hits.mask;
            return Some(entries);
        }
        if self.lanes.is_empty() {
            return None;
        }
        for (block, (lanes, extents)) in self.lanes.iter().zip(&self.lane_extents).enumerate() {
            let hits = block_hits(ray, lanes, extents);
            entries.toi[8 * block..8 * block + 8].copy_from_slice(&hits.toi);
            entries.entered |= hits.mask << (8 * block);
        }
        Some(entries)
    }

    /// Past [`LINEAR_RAY_CHILDREN`] children: calls `f(child)` with each
    /// child whose loosened box `ray` enters no later than the current
    /// `max_toi`, in the tree's order; `f` returns the new `max_toi`
    /// (clipping the rest), or `None` to stop.
    pub(crate) fn visit_ray_tree(&self, ray: &CompoundRay, mut f: impl FnMut(usize) -> Option<Real>) {
        let Some(bvh) = &self.bvh else { return };
        let ids = bvh.leaf_ids();
        let mut max_toi = ray.local.max_toi();
        let mut enter = |i: usize, max_toi: &mut Real| -> bool {
            let b = self.boxes[i].loosened(ray.margin + ray.margin * self.boxes[i].half_extents().amax());
            // The slab test of `cast_ray_aabb` (the same planes, products
            // and selects), up to the current `max_toi`.
            if ray_aabb_interval(&PrecomputedRay { max_toi: *max_toi, ..ray.pre }, &b).is_none() {
                return true;
            }
            match f(i) {
                Some(t) => {
                    *max_toi = max_toi.min(t);
                    true
                }
                None => false,
            }
        };
        bvh.visit_ray_leaves(&ray.local, |slots, _| {
            for slot in slots {
                if !enter(ids[slot as usize] as usize, &mut max_toi) {
                    return RayControl::Stop;
                }
            }
            RayControl::Clip(max_toi)
        });
    }
}

/// The ray's entries into one block of boxes, each loosened by its
/// allowance `margin + margin * extents[lane]`.
#[inline(always)]
fn block_hits(ray: &CompoundRay, lanes: &AabbX8, extents: &[Real; 8]) -> RayLaneHits<8> {
    let m = ray.margin;
    let by: [Real; 8] = core::array::from_fn(|lane| m + m * extents[lane]);
    cast_ray_aabb_x8_loosened(&ray.pre, lanes, &by, ray.local.max_toi())
}
