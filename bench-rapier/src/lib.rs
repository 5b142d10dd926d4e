//! The rapier replay benchmark: a rapier3d 0.36 simulation's collider boxes
//! and poses, recorded after every step, replayed through each of proxima's
//! broadphase structures and through parry3d 0.31's `Bvh`, and the whole
//! collision step replayed through proxima's contact pipeline and through
//! parry3d's `Bvh` with `contact_manifolds`.
//!
//! - [`record`]: runs the simulation ([`SceneOptions`], over the [`Floor`]
//!   it names: the flat ground box or a bumpy triangle mesh) and keeps every
//!   collider's shape, and its world AABB and pose per step (converted with
//!   proxima's `glam` feature), and rapier's own broad-phase and
//!   collision-detection times per step;
//! - [`exact_pairs`] and [`PairDigest`]: the independent oracle, a
//!   sort-and-sweep over the recorded boxes, and an order-independent digest
//!   of a pair set;
//! - [`Replay`] and [`all_replays`]: one driver per structure; each step
//!   moves every box to its recorded place and produces the exact overlap
//!   set (fat-box structures filter their pairs by the tight boxes);
//! - [`check_replay`]: compares a structure with the oracle at every step;
//! - [`StepReplay`] and [`all_steps`]: the collision step (poses in, pairs
//!   and manifolds out) of proxima's `ContactPipeline` and of parry3d;
//!   [`compare_touching`] compares two contenders' touching pairs;
//! - [`PairsStep`] and [`all_pairs_steps`]: the pair search alone (poses in,
//!   overlapping box pairs out), proxima's broadphase-only pipeline against
//!   parry3d's `Bvh` at margin 0.
//!
//! This package is its own workspace (outside the root's), so the root's
//! `cargo test --workspace` never compiles rapier.
#![deny(missing_docs)]

mod args;
mod floor;
mod pairs_step;
mod record;
mod reference;
mod replay;
mod step;
mod step_parry;
mod step_proxima;

pub use args::{parse, parse_seed, scene_args};
pub use floor::{bump_height, floor_mesh, Floor, BUMP_AMPLITUDE, FLOOR_MARGIN, FLOOR_QUADS};
pub use pairs_step::{all_pairs_steps, PairsStep, ParryPairs, ProximaPairs};
pub use record::{
    record, Frame, RecordedShape, Recording, SceneOptions, BALL_RADIUS, CAPSULE_HALF_HEIGHT, CAPSULE_RADIUS,
    CUBOID_HALF_EXTENT,
};
pub use reference::{check_replay, exact_pairs, reference_digests, PairDigest};
pub use replay::{all_replays, Replay, MARGIN};
pub use step::{
    all_steps, compare_touching, print_thirds, Agreement, Disagreement, PairDepth, StepCounts, StepPhases, StepReplay,
    PREDICTION,
};
pub use step_parry::{one_shot_depth, parry_shape, ParryStep};
pub use step_proxima::{proxima_shape, ProximaStep};
