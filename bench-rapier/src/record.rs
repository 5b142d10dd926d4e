//! The recorder: a rapier3d 0.36 scene stepped at 60 Hz, every collider's
//! world AABB and pose kept after every step, and its shape once.

use crate::floor::{floor_mesh, Floor};
use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::math::Pose;
use proxima_narrowphase::glam_convert::isometry_from_glam;
use proxima_narrowphase::{Aabb, Isometry};
use rapier3d::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Radius of the balls.
pub const BALL_RADIUS: f32 = 0.5;
/// Half-extent of the cuboids (the same along each axis).
pub const CUBOID_HALF_EXTENT: f32 = 0.4;
/// Half-height of the capsules' core segment (along their local y axis).
pub const CAPSULE_HALF_HEIGHT: f32 = 0.35;
/// Radius of the capsules: a capsule reaches `0.35 + 0.3 = 0.65` m from its
/// centre, less than a rotated cuboid's `0.4 * sqrt(3) = 0.69` m.
pub const CAPSULE_RADIUS: f32 = 0.3;

/// The recorded scene: `bodies` dynamic bodies (balls of radius 0.5,
/// cuboids of half-extent 0.4 and, if asked, capsules, all with random
/// rotations) in a grid of `columns x columns` per layer, `spacing` apart,
/// the lowest centres 1 m above a fixed ground box (top face at `y = 0`,
/// 400 m x 400 m), or, with [`Floor::TriMesh`], `1 + BUMP_AMPLITUDE` m above
/// `y = 0` over a bumpy triangle-mesh floor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneOptions {
    /// Number of dynamic bodies.
    pub bodies: usize,
    /// Bodies per row and per column of one layer.
    pub columns: usize,
    /// Distance between neighbouring centres in the grid, in metres. At
    /// least 1.4 so no two shapes start interpenetrating (a rotated cuboid
    /// reaches `0.4 * sqrt(3) = 0.69` m from its centre).
    pub spacing: f32,
    /// Number of 1/60 s steps recorded.
    pub steps: usize,
    /// Seed of the rotations and of the jitter of the grid positions.
    pub seed: u64,
    /// Fraction of the bodies that are capsules (half-height 0.35, radius
    /// 0.3), in `[0, 1]`: body `k` is a capsule when `floor((k + 1) f)`
    /// exceeds `floor(k f)`, so they are spread evenly through the grid.
    /// The other bodies alternate balls and cuboids, starting with a ball.
    /// At 0 (the default) the scene is balls and cuboids only.
    pub capsules: f32,
    /// The fixed collider under the pile: the flat ground box (the default)
    /// or the bumpy triangle mesh.
    pub floor: Floor,
}

impl Default for SceneOptions {
    /// 8,000 bodies in 5 layers of 40 x 40, 1.5 m apart, 300 steps (5 s).
    fn default() -> Self {
        Self { bodies: 8000, columns: 40, spacing: 1.5, steps: 300, seed: 0x5eed, capsules: 0.0, floor: Floor::Cuboid }
    }
}

impl SceneOptions {
    /// A tall drop: 8,000 bodies in 20 layers of 20 x 20, 1.5 m apart (30 m
    /// high), 300 steps. The upper layers fall for longer and land on the
    /// pile below, so many more proxies leave their fat box per step than in
    /// the default wide, shallow scene.
    pub fn tall_drop() -> Self {
        Self { bodies: 8000, columns: 20, ..Self::default() }
    }

    /// Whether body `k` (0-based, collider `k + 1`) is a capsule: the
    /// `floor((k + 1) f)`-th capsule starts at `k` (see [`SceneOptions::capsules`]).
    pub fn is_capsule(&self, k: usize) -> bool {
        let f = f64::from(self.capsules.clamp(0.0, 1.0));
        ((k + 1) as f64 * f).floor() > (k as f64 * f).floor()
    }

    /// The distance from the origin to the outermost body centres of a
    /// layer along x and z (before the jitter), in metres.
    pub fn half_width(&self) -> f32 {
        0.5 * self.spacing * (self.columns as f32 - 1.0)
    }
}

/// A collider's shape in its own frame, as recorded (the same at every step).
#[derive(Clone, Debug, PartialEq)]
pub enum RecordedShape {
    /// A ball centred on the pose's origin.
    Ball {
        /// Radius, in metres.
        radius: f32,
    },
    /// A cuboid centred on the pose's origin, its edges along the pose's axes.
    Cuboid {
        /// Half-extents along the local x, y and z axes, in metres.
        half_extents: [f32; 3],
    },
    /// A capsule whose core segment runs along the local y axis from
    /// `-half_height` to `+half_height`.
    Capsule {
        /// Half the length of the core segment, in metres.
        half_height: f32,
        /// Radius, in metres.
        radius: f32,
    },
    /// A triangle mesh (the [`Floor::TriMesh`] floor), shared by the
    /// recording's clones.
    TriMesh {
        /// The vertices, in the collider's frame, in metres.
        vertices: Arc<[[f32; 3]]>,
        /// The triangles, three indices into `vertices` each.
        indices: Arc<[[u32; 3]]>,
    },
}

/// The boxes and poses of one step, in collider order (collider 0 is the
/// ground, fixed; the others are the bodies').
#[derive(Clone, Debug)]
pub struct Frame {
    /// Every collider's tight world AABB, as proxima boxes.
    pub boxes: Vec<Aabb>,
    /// The same boxes as rapier computed them (parry3d's type), for the
    /// parry3d replay.
    pub parry: Vec<ParryAabb>,
    /// Every collider's world pose as rapier holds it (`Collider::position`:
    /// local point `p` is at `rotation * p + translation`).
    pub poses: Vec<Pose>,
    /// The same poses as proxima isometries (`isometry_from_glam`: the same
    /// translation, the quaternion renormalised).
    pub isometries: Vec<Isometry>,
}

/// A recorded simulation.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The scene that was simulated.
    pub options: SceneOptions,
    /// Every collider's shape, in collider order (collider 0 is the floor:
    /// a cuboid of half-extents `(200, 0.5, 200)`, or the triangle mesh of
    /// [`Floor::TriMesh`]).
    pub shapes: Vec<RecordedShape>,
    /// One frame per step, after the step.
    pub frames: Vec<Frame>,
    /// rapier's broad-phase time of each step (its `counters.cd.broad_phase_time`:
    /// AABB updates of the moved colliders, BVH update and pair finding), in ms.
    pub rapier_broad_phase_ms: Vec<f64>,
    /// rapier's collision detection of each step (its broad phase plus its
    /// narrow phase, `counters.cd.narrow_phase_time`: the contact pairs'
    /// manifolds with its default prediction of 0.02 and its contact
    /// recycling), in ms.
    pub rapier_collision_ms: Vec<f64>,
    /// rapier's whole step time of each step, in ms.
    pub rapier_step_ms: Vec<f64>,
    /// Wall time of the whole recording (simulation plus box copies), in s.
    pub record_seconds: f64,
}

impl Recording {
    /// Number of colliders (bodies plus the ground).
    pub fn colliders(&self) -> usize {
        self.frames.first().map_or(0, |f| f.boxes.len())
    }

    /// rapier's mean broad-phase time per step, in ms.
    pub fn mean_rapier_broad_phase_ms(&self) -> f64 {
        mean(&self.rapier_broad_phase_ms)
    }

    /// rapier's mean collision-detection time (broad plus narrow phase) per step, in ms.
    pub fn mean_rapier_collision_ms(&self) -> f64 {
        mean(&self.rapier_collision_ms)
    }

    /// rapier's mean step time, in ms.
    pub fn mean_rapier_step_ms(&self) -> f64 {
        mean(&self.rapier_step_ms)
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): the seeded stream of the scene.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    fn signed_unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// A rotation uniform over SO(3): a point uniform in the 4-ball
    /// (rejection), normalised (Shoemake, Graphics Gems III, 1992).
    fn rotation(&mut self) -> Rotation {
        loop {
            let q = Rotation::from_xyzw(self.signed_unit(), self.signed_unit(), self.signed_unit(), self.signed_unit());
            let n2 = q.length_squared();
            if n2 > 1e-2 && n2 <= 1.0 {
                return q.normalize();
            }
        }
    }
}

/// The fixed floor's rapier collider and its recorded shape. The ground box
/// is a fixed box whose top face is `y = 0`. The mesh floor is
/// `ColliderBuilder::trimesh`, rapier's plain constructor: parry's
/// `TriMesh::new` with no `TriMeshFlags` (no `FIX_INTERNAL_EDGES`, no
/// vertex merging or topology), under the identity pose.
fn floor_collider(options: &SceneOptions) -> (ColliderBuilder, RecordedShape) {
    match options.floor {
        Floor::Cuboid => (
            ColliderBuilder::cuboid(200.0, 0.5, 200.0).translation(Vector::new(0.0, -0.5, 0.0)),
            RecordedShape::Cuboid { half_extents: [200.0, 0.5, 200.0] },
        ),
        Floor::TriMesh => {
            let (vertices, indices) = floor_mesh(options.half_width());
            let points = vertices.iter().map(|&[x, y, z]| Vector::new(x, y, z)).collect();
            let builder = ColliderBuilder::trimesh(points, indices.clone()).expect("a valid floor mesh");
            (builder, RecordedShape::TriMesh { vertices: vertices.into(), indices: indices.into() })
        }
    }
}

/// Runs the scene and records every collider's box and pose after every step.
///
/// # Panics
/// When rapier produces a NaN or inverted box, or a NaN or non-unit rotation
/// (a broken simulation).
pub fn record(options: &SceneOptions) -> Recording {
    let start = Instant::now();
    let mut rng = SplitMix(options.seed);
    let mut bodies = RigidBodySet::new();
    let mut colliders = ColliderSet::new();
    let mut handles = Vec::with_capacity(options.bodies + 1);
    let mut shapes = Vec::with_capacity(options.bodies + 1);
    let (ground, shape) = floor_collider(options);
    handles.push(colliders.insert(ground));
    shapes.push(shape);
    let mut others = 0; // bodies that are not capsules, which alternate balls and cuboids
    let per_layer = options.columns * options.columns;
    let half_width = options.half_width();
    let lowest = 1.0 + options.floor.lift();
    for k in 0..options.bodies {
        let (layer, cell) = (k / per_layer, k % per_layer);
        let jitter = Vector::new(rng.signed_unit(), 0.0, rng.signed_unit()) * 0.05;
        let center = Vector::new(
            (cell % options.columns) as f32 * options.spacing - half_width,
            lowest + layer as f32 * options.spacing,
            (cell / options.columns) as f32 * options.spacing - half_width,
        ) + jitter;
        let body = RigidBodyBuilder::dynamic().pose(Pose::from_parts(center, rng.rotation()));
        let handle = bodies.insert(body);
        let shape = if options.is_capsule(k) {
            RecordedShape::Capsule { half_height: CAPSULE_HALF_HEIGHT, radius: CAPSULE_RADIUS }
        } else {
            others += 1;
            if others % 2 == 1 {
                RecordedShape::Ball { radius: BALL_RADIUS }
            } else {
                RecordedShape::Cuboid { half_extents: [CUBOID_HALF_EXTENT; 3] }
            }
        };
        let builder = match shape {
            RecordedShape::Ball { radius } => ColliderBuilder::ball(radius),
            RecordedShape::Cuboid { half_extents: [x, y, z] } => ColliderBuilder::cuboid(x, y, z),
            RecordedShape::Capsule { half_height, radius } => ColliderBuilder::capsule_y(half_height, radius),
            RecordedShape::TriMesh { .. } => unreachable!("bodies are balls, cuboids and capsules"),
        };
        shapes.push(shape);
        handles.push(colliders.insert_with_parent(builder, handle, &mut bodies));
    }

    let mut pipeline = PhysicsPipeline::new();
    pipeline.counters.enable();
    let parameters = IntegrationParameters::default(); // dt = 1/60
    let mut islands = IslandManager::new();
    let mut broad_phase = BroadPhaseBvh::new();
    let mut narrow_phase = NarrowPhase::new();
    let mut impulse_joints = ImpulseJointSet::new();
    let mut multibody_joints = MultibodyJointSet::new();
    let mut soft_bodies = SoftBodySet::new();
    let mut ccd = CCDSolver::new();
    let gravity = Vector::new(0.0, -9.81, 0.0);

    let mut recording = Recording {
        options: *options,
        shapes,
        frames: Vec::with_capacity(options.steps),
        rapier_broad_phase_ms: Vec::with_capacity(options.steps),
        rapier_collision_ms: Vec::with_capacity(options.steps),
        rapier_step_ms: Vec::with_capacity(options.steps),
        record_seconds: 0.0,
    };
    for _ in 0..options.steps {
        pipeline.step(
            gravity,
            &parameters,
            &mut islands,
            &mut broad_phase,
            &mut narrow_phase,
            &mut bodies,
            &mut colliders,
            &mut impulse_joints,
            &mut multibody_joints,
            &mut soft_bodies,
            &mut ccd,
            &(),
            &(),
        );
        recording.rapier_broad_phase_ms.push(pipeline.counters.broad_phase_time_ms());
        recording
            .rapier_collision_ms
            .push(pipeline.counters.broad_phase_time_ms() + pipeline.counters.narrow_phase_time_ms());
        recording.rapier_step_ms.push(pipeline.counters.step_time_ms());
        let parry: Vec<ParryAabb> = handles.iter().map(|&h| colliders[h].compute_aabb()).collect();
        let boxes = parry
            .iter()
            .map(|a| Aabb::try_from((a.mins, a.maxs)).expect("rapier produced a NaN or inverted box"))
            .collect();
        let poses: Vec<Pose> = handles.iter().map(|&h| *colliders[h].position()).collect();
        let isometries = poses
            .iter()
            .map(|p| isometry_from_glam(p.translation, p.rotation).expect("rapier produced a NaN or non-unit pose"))
            .collect();
        recording.frames.push(Frame { boxes, parry, poses, isometries });
    }
    recording.record_seconds = start.elapsed().as_secs_f64();
    recording
}
