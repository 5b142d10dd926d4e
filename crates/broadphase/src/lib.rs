//! proxima's broadphase: the AABB-overlap cull in front of the exact tests.
//!
//! Overlap is inclusive everywhere: boxes that touch overlap (as in parry).
//!
//! For a physics engine's moving world, use [`PairTracker`]: persistent pairs
//! with begin/end events, at a per-frame cost that follows what moved. When
//! most bodies move every frame and are of similar size (a pile), finding
//! every pair again with [`GridPairs`] costs less.
#![deny(missing_docs)]

mod broadphase;
mod brute_force;
mod dynamic_tree;
mod error;
mod filter;
mod grid_pairs;
mod pair_tracker;
mod pairs;
mod prefetch;
mod proxy;
mod slot_map;
mod slots;
mod static_bvh;
mod sweep_and_prune;

pub use broadphase::{BroadPhase, BroadPhaseMut, RayControl, TreeStats, ValidationError};
pub use brute_force::BruteForce;
#[allow(deprecated)]
pub use dynamic_tree::DynamicTreeOptions;
pub use dynamic_tree::{DynamicTree, FatBoxOptions, Overlaps, ProxyRayHit};
pub use error::BroadPhaseError;
pub use filter::CollisionGroups;
pub use grid_pairs::GridPairs;
pub use pair_tracker::{PairEvent, PairTracker, ProxyOptions, UpdateStats};
pub use pairs::{canonical_pair, IndexPair, Pair};
pub use proxy::ProxyId;
pub use static_bvh::{
    BoxHit, BuildOptions, Collapse, InvalidMargin, LeafCost, OverlapCache, RefitError, StaticBvh, StaticBvhOverlaps,
    PACKET_SIZE,
};
pub use sweep_and_prune::{SapMode, SweepAndPrune};

/// What the other proxima crates and the tests use and a user of the
/// broadphase does not: the generational slot map under every handle, the
/// prefetch hint, the index-pair sort, and the grid search's limits.
#[doc(hidden)]
pub mod internal {
    pub use crate::grid_pairs::{GridShape, MAX_LARGE};
    pub use crate::pairs::sort_index_pairs;
    pub use crate::prefetch::{prefetch, prefetch_lines};
    pub use crate::slot_map::{SlotKey, SlotMap};
}
