//! The O(n^2) reference broadphase: the oracle of every broadphase test.

use crate::slots::Slots;
use crate::{BroadPhase, BroadPhaseError, ProxyId, RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Ray, Real, Vector};

/// Every query answered by testing every proxy: O(n) per box or ray query,
/// O(n^2) for all pairs. Too slow for real scenes, simple enough to trust,
/// which makes it the oracle the other structures are tested against (Jolt's
/// `BroadPhaseBruteForce`).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::{BroadPhase, BruteForce};
/// use proxima::narrowphase::{Aabb, Point};
/// let mut bf = BruteForce::new();
/// let a = bf.insert(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0)), ());
/// let b = bf.insert(Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(2.0, 1.0, 1.0)), ());
/// let mut pairs = Vec::new();
/// bf.pairs_into(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]); // touching boxes overlap
/// ```
#[derive(Clone, Debug)]
pub struct BruteForce<T = ()> {
    proxies: Slots<(Aabb, T)>,
}

impl<T> Default for BruteForce<T> {
    fn default() -> Self {
        Self { proxies: Slots::default() }
    }
}

impl<T> BruteForce<T> {
    /// An empty structure.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a proxy with box `aabb` and returns its id.
    ///
    /// # Panics
    /// With more than 2^32 proxies at once.
    pub fn insert(&mut self, aabb: Aabb, user_data: T) -> ProxyId {
        self.proxies.insert((aabb, user_data), u32::MAX)
    }

    /// Removes a proxy and returns its user data; a stale id is rejected.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        self.proxies.remove(id).map(|(_, data)| data)
    }

    /// Tells the structure that proxy `id` now has box `aabb` after moving by
    /// `displacement` this step: the box is replaced. The signature is
    /// [`DynamicTree::move_proxy`](crate::DynamicTree::move_proxy)'s; the
    /// displacement is only checked (this structure keeps exact boxes, so it
    /// predicts no motion) and the result is always `Ok(true)` (the stored box
    /// changed). A stale id or a NaN/infinite displacement is rejected and
    /// nothing changes.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        let proxy = self.proxies.try_get_mut(id)?;
        if !displacement.iter().all(|d| d.is_finite()) {
            return Err(BroadPhaseError::InvalidDisplacement);
        }
        proxy.0 = aabb;
        Ok(true)
    }

    /// A proxy's box; `None` for a stale id.
    pub fn aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.proxies.get(id).map(|(aabb, _)| *aabb)
    }

    /// A proxy's user data; `None` for a stale id.
    pub fn get(&self, id: ProxyId) -> Option<&T> {
        self.proxies.get(id).map(|(_, data)| data)
    }

    /// A proxy's user data, mutably; `None` for a stale id.
    pub fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.proxies.get_mut(id).map(|(_, data)| data)
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.proxies.contains(id)
    }

    /// Every proxy as `(id, box, user data)`, in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = (ProxyId, &Aabb, &T)> + '_ {
        self.proxies.iter().map(|(id, (aabb, data))| (id, aabb, data))
    }
}

impl<T> BroadPhase for BruteForce<T> {
    type Id = ProxyId;

    fn len(&self) -> usize {
        self.proxies.len()
    }

    fn visit_overlaps<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        for (id, (b, _)) in self.proxies.iter() {
            if intersects_aabb_aabb(aabb, b) {
                visitor(id)?;
            }
        }
        ControlFlow::Continue(())
    }

    fn visit_ray<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        let mut pre = PrecomputedRay::new(ray);
        for (id, (b, _)) in self.proxies.iter() {
            if let Some(RayInterval { toi_enter: t_enter, .. }) = ray_aabb_interval(&pre, b) {
                match visitor(id, t_enter) {
                    RayControl::Continue => {}
                    RayControl::Clip(t) => {
                        // NaN compares false: it clips nothing.
                        if t < pre.max_toi {
                            pre.max_toi = t.max(0.0);
                        }
                    }
                    RayControl::Stop => return,
                }
            }
        }
    }

    fn pairs_into(&self, out: &mut Vec<(ProxyId, ProxyId)>) {
        out.clear();
        // Slots iterate in ascending order, so `(a, b)` with `a` before `b` is
        // canonical and the output comes out sorted.
        let all: Vec<(ProxyId, &Aabb)> = self.proxies.iter().map(|(id, (b, _))| (id, b)).collect();
        for (i, &(a, box_a)) in all.iter().enumerate() {
            for &(b, box_b) in &all[i + 1..] {
                if intersects_aabb_aabb(box_a, box_b) {
                    out.push((a, b));
                }
            }
        }
    }

    fn validate(&self) -> Result<TreeStats, ValidationError> {
        for (id, (b, _)) in self.proxies.iter() {
            if !b.is_valid() {
                return Err(ValidationError(format!("proxy {id:?} holds an invalid box")));
            }
        }
        Ok(TreeStats { leaves: self.proxies.len(), ..TreeStats::default() })
    }
}
