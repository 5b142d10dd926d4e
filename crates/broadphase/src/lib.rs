//! proxima's broadphase: the AABB-overlap cull in front of the exact tests.
//!
//! Overlap is inclusive everywhere: boxes that touch overlap (as in parry).
#![deny(missing_docs)]
