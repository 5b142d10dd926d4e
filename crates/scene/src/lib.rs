//! proxima's scene layer: posed colliders (spheres, boxes, capsules, triangle
//! meshes, heightfields), the queries a game or renderer asks (rays, swept spheres,
//! overlaps, points) and the per-frame contact pipeline of a physics engine,
//! with continuous collision for fast spheres.
//!
//! Every query culls with the broadphase trees (box overlap, ray/box) and
//! confirms with the exact narrowphase test.
#![deny(missing_docs)]

mod cast_options;
mod change_log;
mod collider;
mod compound;
mod contact;
mod dynamic_set;
mod error;
mod filter;
mod grid_search;
mod heightfield;
mod hull;
mod hull_manifold;
mod local_convex;
mod manifold;
mod mesh_frame;
mod pair_rules;
mod pipeline;
mod query_cast_shape;
mod query_overlap;
mod query_ray;
mod query_shape;
mod scene;
mod scene_poses;
mod shape;
mod slots;
mod static_set;
mod trimesh;

pub use cast_options::CastOptions;
pub use change_log::RemovedCollider;
pub use collider::{BodyKind, Collider, ColliderDesc, ColliderHandle};
pub use compound::{Compound, CompoundError};
pub use contact::contact;
pub use error::{HeightFieldError, MeshError, PoseError, SceneError, POSE_ROTATION_TOLERANCE};
pub use filter::{ColliderPredicate, QueryFilter};
pub use grid_search::PairSearch;
pub use heightfield::{HeightField, HeightFieldRayHit};
pub use manifold::contact_manifolds;
pub use pair_rules::{PairHooks, SensorEvent, TouchRule};
pub use pipeline::{
    CandidateEvent, CcdImpact, ContactEvent, ContactPair, ContactPipeline, FrameStats, ManifoldPair, ManifoldReuse,
};
// The documented path is `proxima_broadphase::CollisionGroups`; this one
// saves the scene's users a second import.
#[doc(hidden)]
pub use proxima_broadphase::CollisionGroups;
pub use query_overlap::OverlapShape;
pub use query_ray::SceneRayHit;
pub use query_shape::{SceneClosestPoint, SceneSweepHit};
pub use scene::{Scene, SceneTreeStats, TreeSizes};
pub use shape::{ColliderShape, WorldShape};
pub use trimesh::{EdgeFlags, EdgeMode, MeshBuild, MeshClosestPoint, MeshRayHit, TriMesh, TriangleHit};
