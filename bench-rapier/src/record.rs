//! The recorder: a rapier3d 0.36 scene stepped at 60 Hz, every collider's
//! world AABB kept after every step.

use parry3d::bounding_volume::Aabb as ParryAabb;
use proxima_narrowphase::Aabb;
use rapier3d::prelude::*;
use std::time::Instant;

/// The recorded scene: `bodies` dynamic bodies (balls of radius 0.5 and
/// cuboids of half-extent 0.4 with random rotations, alternating) in a grid
/// of `columns x columns` per layer, `spacing` apart, the lowest centres 1 m
/// above a fixed ground box (top face at `y = 0`, 400 m x 400 m).
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
}

impl Default for SceneOptions {
    /// 8,000 bodies in 5 layers of 40 x 40, 1.5 m apart, 300 steps (5 s).
    fn default() -> Self {
        Self { bodies: 8000, columns: 40, spacing: 1.5, steps: 300, seed: 0x5eed }
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
}

/// The boxes of one step, in collider order (collider 0 is the ground).
#[derive(Clone, Debug)]
pub struct Frame {
    /// Every collider's tight world AABB, as proxima boxes.
    pub boxes: Vec<Aabb>,
    /// The same boxes as rapier computed them (parry3d's type), for the
    /// parry3d replay.
    pub parry: Vec<ParryAabb>,
}

/// A recorded simulation.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The scene that was simulated.
    pub options: SceneOptions,
    /// One frame per step, after the step.
    pub frames: Vec<Frame>,
    /// rapier's broad-phase time of each step (its `counters.cd.broad_phase_time`:
    /// AABB updates of the moved colliders, BVH update and pair finding), in ms.
    pub rapier_broad_phase_ms: Vec<f64>,
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

/// Runs the scene and records every collider's box after every step.
///
/// # Panics
/// When rapier produces a NaN or inverted box (a broken simulation).
pub fn record(options: &SceneOptions) -> Recording {
    let start = Instant::now();
    let mut rng = SplitMix(options.seed);
    let mut bodies = RigidBodySet::new();
    let mut colliders = ColliderSet::new();
    let mut handles = Vec::with_capacity(options.bodies + 1);
    // The ground: a fixed box whose top face is y = 0.
    handles.push(colliders.insert(ColliderBuilder::cuboid(200.0, 0.5, 200.0).translation(Vector::new(0.0, -0.5, 0.0))));
    let per_layer = options.columns * options.columns;
    let half_width = 0.5 * options.spacing * (options.columns as f32 - 1.0);
    for k in 0..options.bodies {
        let (layer, cell) = (k / per_layer, k % per_layer);
        let jitter = Vector::new(rng.signed_unit(), 0.0, rng.signed_unit()) * 0.05;
        let center = Vector::new(
            (cell % options.columns) as f32 * options.spacing - half_width,
            1.0 + layer as f32 * options.spacing,
            (cell / options.columns) as f32 * options.spacing - half_width,
        ) + jitter;
        let body = RigidBodyBuilder::dynamic().pose(Pose::from_parts(center, rng.rotation()));
        let handle = bodies.insert(body);
        let shape = if k % 2 == 0 { ColliderBuilder::ball(0.5) } else { ColliderBuilder::cuboid(0.4, 0.4, 0.4) };
        handles.push(colliders.insert_with_parent(shape, handle, &mut bodies));
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
        frames: Vec::with_capacity(options.steps),
        rapier_broad_phase_ms: Vec::with_capacity(options.steps),
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
        recording.rapier_step_ms.push(pipeline.counters.step_time_ms());
        let parry: Vec<ParryAabb> = handles.iter().map(|&h| colliders[h].compute_aabb()).collect();
        let boxes = parry
            .iter()
            .map(|a| Aabb::try_from((a.mins, a.maxs)).expect("rapier produced a NaN or inverted box"))
            .collect();
        recording.frames.push(Frame { boxes, parry });
    }
    recording.record_seconds = start.elapsed().as_secs_f64();
    recording
}
