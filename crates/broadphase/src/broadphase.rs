//! The one small trait every broadphase structure implements.

use core::ops::ControlFlow;
use proxima_narrowphase::{Aabb, Ray, Real};

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
/// per use and tests compare each against [`BruteForce`](crate::BruteForce).
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
