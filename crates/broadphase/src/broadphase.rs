//! The two small traits of the broadphase structures: [`BroadPhase`], the
//! queries every structure answers, and [`BroadPhaseMut`], the per-proxy
//! changes of the structures that can change one proxy at a time.

use crate::{BroadPhaseError, BruteForce, DynamicTree, PairTracker, ProxyId, ProxyOptions, SweepAndPrune};
use core::ops::ControlFlow;
use proxima_narrowphase::{Aabb, Ray, Real, Vector};

/// What a ray visitor tells the traversal after seeing a leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RayControl {
    /// Keep going with the same `max_toi`.
    Continue,
    /// Keep going, but only leaves entered before this `toi` matter now
    /// (closest-hit queries clip to the best hit so far).
    Clip(Real),
    /// Stop the traversal (any-hit queries).
    Stop,
}

/// Shape statistics returned by `validate()`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TreeStats {
    /// Number of proxies (leaves, or items for flat structures).
    pub leaves: usize,
    /// Number of nodes (0 for flat structures).
    pub nodes: usize,
    /// Longest root-to-leaf path, in edges (0 for flat structures).
    pub height: usize,
    /// Surface-area-heuristic cost with `C_trav = C_isect = 1`, areas taken
    /// relative to the root's: `sum(internal area) + sum(leaf area)` over the
    /// root area (0 for flat structures).
    pub sah_cost: f64,
}

/// A broken invariant found by `validate()`: the message says which and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError(pub String);

impl core::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "broadphase invariant broken: {}", self.0)
    }
}

impl std::error::Error for ValidationError {}

/// The queries every broadphase structure answers, so users pick a structure
/// per use and tests compare each against [`BruteForce`].
///
/// Implemented by [`BruteForce`], [`DynamicTree`], [`SweepAndPrune`] and
/// [`StaticBvh`](crate::StaticBvh). [`PairTracker`] answers the same box and
/// ray queries with inherent methods, but its pairs come from
/// [`PairTracker::update`] (events, groups, static flags), not from a
/// `pairs_into` over the current boxes, so it implements only
/// [`BroadPhaseMut`].
///
/// Overlap is inclusive: boxes that touch overlap.
pub trait BroadPhase {
    /// The handle of a proxy.
    type Id: Copy + Ord + core::hash::Hash + core::fmt::Debug;

    /// Number of proxies.
    fn len(&self) -> usize;

    /// True when there are no proxies.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visitor` with every proxy whose box overlaps `aabb`, until it breaks.
    fn visit_overlaps<F>(&self, aabb: &Aabb, visitor: F) -> ControlFlow<()>
    where
        F: FnMut(Self::Id) -> ControlFlow<()>;

    /// Calls `visitor(id, entry_toi)` for proxies whose box the ray enters at
    /// `entry_toi <= max_toi` (the current, possibly clipped `max_toi`).
    fn visit_ray<F>(&self, ray: &Ray, visitor: F)
    where
        F: FnMut(Self::Id, Real) -> RayControl;

    /// Every overlapping pair once, as `(min, max)`, sorted ascending, into `out`
    /// (cleared first).
    fn pairs_into(&self, out: &mut Vec<(Self::Id, Self::Id)>);

    /// Walks the whole structure and checks its invariants.
    fn validate(&self) -> Result<TreeStats, ValidationError>;
}

/// The per-proxy changes of a broadphase structure, so the mutable structures
/// are interchangeable behind one interface (and each is driven like
/// [`BruteForce`], the oracle of the tests).
///
/// Implemented by [`BruteForce`], [`DynamicTree`], [`SweepAndPrune`] and
/// [`PairTracker`] (which inserts with [`ProxyOptions::default`]); each method
/// forwards to the structure's inherent method of the same name, whose
/// documentation gives the details. [`StaticBvh`](crate::StaticBvh) is
/// immutable (it is built, refitted or rebuilt from a whole box list) and
/// implements only [`BroadPhase`].
///
/// The structures that keep exact boxes ([`BruteForce`], [`SweepAndPrune`])
/// store `aabb` on every move and only check `displacement`; the fat-box
/// structures ([`DynamicTree`], [`PairTracker`]) use it to predict the motion
/// and return `Ok(false)` when `aabb` is still inside the fat box.
pub trait BroadPhaseMut {
    /// The user data stored with each proxy.
    type Data;

    /// Adds a proxy with box `aabb` and returns its id.
    fn insert(&mut self, aabb: Aabb, data: Self::Data) -> ProxyId;

    /// Removes a proxy and returns its data. A stale id is rejected with
    /// [`BroadPhaseError::StaleId`] and nothing changes.
    fn remove(&mut self, id: ProxyId) -> Result<Self::Data, BroadPhaseError>;

    /// Tells the structure that proxy `id` now has box `aabb` after moving by
    /// `displacement` this step. `Ok(true)` when the structure's stored box
    /// changed, `Ok(false)` when a fat box still contains `aabb`. A stale id
    /// ([`BroadPhaseError::StaleId`]) or a NaN or infinite displacement
    /// ([`BroadPhaseError::InvalidDisplacement`]) is rejected and nothing changes.
    fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError>;
}

impl<T> BroadPhaseMut for BruteForce<T> {
    type Data = T;

    fn insert(&mut self, aabb: Aabb, data: T) -> ProxyId {
        BruteForce::insert(self, aabb, data)
    }

    fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        BruteForce::remove(self, id)
    }

    fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        BruteForce::move_proxy(self, id, aabb, displacement)
    }
}

impl<T> BroadPhaseMut for DynamicTree<T> {
    type Data = T;

    fn insert(&mut self, aabb: Aabb, data: T) -> ProxyId {
        DynamicTree::insert(self, aabb, data)
    }

    fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        DynamicTree::remove(self, id)
    }

    fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        DynamicTree::move_proxy(self, id, aabb, displacement)
    }
}

impl<T> BroadPhaseMut for SweepAndPrune<T> {
    type Data = T;

    fn insert(&mut self, aabb: Aabb, data: T) -> ProxyId {
        SweepAndPrune::insert(self, aabb, data)
    }

    fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        SweepAndPrune::remove(self, id)
    }

    fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        SweepAndPrune::move_proxy(self, id, aabb, displacement)
    }
}

impl<T> BroadPhaseMut for PairTracker<T> {
    type Data = T;

    /// Inserts with [`ProxyOptions::default`] (dynamic, every group); use
    /// [`PairTracker::insert`] to pass options.
    fn insert(&mut self, aabb: Aabb, data: T) -> ProxyId {
        PairTracker::insert(self, aabb, data, ProxyOptions::default())
    }

    fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        PairTracker::remove(self, id)
    }

    fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        PairTracker::move_proxy(self, id, aabb, displacement)
    }
}
