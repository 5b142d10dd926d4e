//! proxima's broadphase: the AABB-overlap cull in front of the exact tests.
//!
//! Overlap is inclusive everywhere: boxes that touch overlap (as in parry).
#![deny(missing_docs)]

mod broadphase;
mod proxy;

pub use broadphase::{BroadPhase, RayControl, TreeStats, ValidationError};
pub use proxy::ProxyId;
