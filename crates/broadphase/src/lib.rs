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
pub use dynamic_tree::{DynamicTree, DynamicTreeOptions, Overlaps, ProxyRayHit};
pub use error::BroadPhaseError;
pub use filter::CollisionGroups;
pub use grid_pairs::{GridPairs, GridShape, MAX_LARGE};
pub use pair_tracker::{PairEvent, PairTracker, ProxyOptions, UpdateStats};
pub use pairs::{canonical_pair, sort_index_pairs, Pair};
pub use prefetch::prefetch;
pub use proxy::ProxyId;
pub use slot_map::{SlotKey, SlotMap};
pub use static_bvh::{
    BoxHit, BuildOptions, Collapse, InvalidMargin, LeafCost, OverlapCache, RefitError, StaticBvh, StaticBvhOverlaps,
    PACKET_SIZE,
};
pub use sweep_and_prune::{SapMode, SweepAndPrune};
