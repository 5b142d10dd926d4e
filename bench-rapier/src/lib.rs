//! The rapier replay benchmark: a rapier3d 0.36 simulation's collider boxes,
//! recorded after every step, replayed through each of proxima's broadphase
//! structures and through parry3d 0.31's `Bvh`.
//!
//! - [`record`]: runs the simulation ([`SceneOptions`]) and keeps every
//!   collider's world AABB per step (converted with proxima's `glam`
//!   feature) and rapier's own broad-phase time per step;
//! - [`exact_pairs`] and [`PairDigest`]: the independent oracle, a
//!   sort-and-sweep over the recorded boxes, and an order-independent digest
//!   of a pair set;
//! - [`Replay`] and [`all_replays`]: one driver per structure; each step
//!   moves every box to its recorded place and produces the exact overlap
//!   set (fat-box structures filter their pairs by the tight boxes);
//! - [`check_replay`]: compares a structure with the oracle at every step.
//!
//! This package is its own workspace (outside the root's), so the root's
//! `cargo test --workspace` never compiles rapier.
#![deny(missing_docs)]

mod record;
mod reference;
mod replay;

pub use record::{record, Frame, Recording, SceneOptions};
pub use reference::{check_replay, exact_pairs, reference_digests, PairDigest};
pub use replay::{all_replays, Replay, MARGIN};
