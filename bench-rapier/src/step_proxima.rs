//! proxima's collision step: a [`Scene`] of the recording's colliders,
//! `Scene::set_pose` for every body, then
//! `ContactPipeline::new().with_manifolds(PREDICTION)` and its `update`.

use crate::step::{PairDepth, StepCounts, StepPhases, StepReplay, PREDICTION};
use crate::{Frame, RecordedShape, Recording};
use proxima::narrowphase::{Point, Vector};
use proxima::scene::{
    ColliderDesc, ColliderHandle, ColliderShape, ContactPipeline, ManifoldReuse, PairSearch, Scene, TriMesh,
};
use std::sync::Arc;
use std::time::Instant;

/// The recorded shape as a proxima collider shape. A cuboid is a
/// [`ColliderShape::Cuboid`]: an axis-aligned box under the identity rotation
/// (the ground) and exactly the rotated box ([`ColliderShape::Cuboid`]) under
/// any other. A mesh is a [`ColliderShape::TriMesh`] built by
/// `TriMesh::new` (its default block build, no edge flags: the automatic
/// internal-edge rule).
pub fn proxima_shape(shape: &RecordedShape) -> ColliderShape {
    match shape {
        &RecordedShape::Ball { radius } => ColliderShape::Sphere { radius },
        &RecordedShape::Cuboid { half_extents: [x, y, z] } => {
            ColliderShape::Cuboid { half_extents: Vector::new(x, y, z) }
        }
        &RecordedShape::Capsule { half_height, radius } => ColliderShape::Capsule { half_height, radius },
        RecordedShape::TriMesh { vertices, indices } => {
            let points = vertices.iter().map(|&[x, y, z]| Point::new(x, y, z)).collect();
            ColliderShape::TriMesh(Arc::new(TriMesh::new(points, indices.to_vec()).expect("a valid recorded mesh")))
        }
    }
}

/// A `Scene` of the recording's colliders at its first frame: collider `i`
/// (fixed for `i = 0`, the floor) at slot `i`, and their handles.
pub(crate) fn recorded_scene(recording: &Recording) -> (Scene, Vec<ColliderHandle>) {
    let frame = &recording.frames[0];
    let mut scene = Scene::new();
    let handles = recording
        .shapes
        .iter()
        .zip(&frame.isometries)
        .enumerate()
        .map(|(i, (shape, pose))| {
            let desc = ColliderDesc::new(proxima_shape(shape), *pose);
            let desc = if i == 0 { desc.fixed() } else { desc };
            let handle = scene.insert(desc).expect("a valid recorded collider");
            assert_eq!(handle.index() as usize, i, "a fresh scene hands out slots in order");
            handle
        })
        .collect();
    (scene, handles)
}

/// proxima's `ContactPipeline` with manifolds, over a `Scene` whose
/// collider `i` is the recording's collider `i` (collider 0 fixed).
pub struct ProximaStep {
    search: PairSearch,
    /// With a pool: `update_parallel` on it (a row of its own, never the
    /// one-thread comparison).
    pool: Option<rayon::ThreadPool>,
    /// With manifold reuse (an opt-in, not exact: a row of its own).
    reuse: Option<ManifoldReuse>,
    /// The largest bounding radius of the recording's shapes (the ground's
    /// excepted: it is fixed, and first in every pair).
    radius: f32,
    scene: Scene,
    pipeline: ContactPipeline,
    handles: Vec<ColliderHandle>,
    phases: StepPhases,
}

impl ProximaStep {
    /// A contender whose pipeline finds its candidates with `search`.
    pub fn new(search: PairSearch) -> Self {
        Self {
            search,
            pool: None,
            reuse: None,
            radius: 0.0,
            scene: Scene::new(),
            pipeline: ContactPipeline::new(),
            handles: Vec::new(),
            phases: StepPhases::default(),
        }
    }

    /// The default pipeline updated by `update_parallel` on a pool of
    /// `threads` threads, the calling thread one of them
    /// (`use_current_thread`: it works beside the others instead of waiting
    /// for them).
    pub fn parallel(threads: usize) -> Self {
        // A thread joins one such pool for good: a second contender made on
        // the same thread (the memory example makes several) gets a pool of
        // its own threads instead.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .use_current_thread()
            .build()
            .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(threads).build())
            .expect("a thread pool");
        Self { pool: Some(pool), ..Self::new(PairSearch::Auto) }
    }

    /// The default pipeline with manifold reuse at Jolt's default tolerance
    /// (1 mm, 2 degrees): its own row, as it is not exact.
    pub fn reusing() -> Self {
        let reuse = ManifoldReuse::new(1e-3, 2f32.to_radians()).expect("a valid tolerance");
        Self { reuse: Some(reuse), ..Self::new(PairSearch::Auto) }
    }

    /// The pipeline, for its manifolds and statistics.
    pub fn pipeline(&self) -> &ContactPipeline {
        &self.pipeline
    }
}

impl StepReplay for ProximaStep {
    fn name(&self) -> &'static str {
        if let Some(pool) = &self.pool {
            return match pool.current_num_threads() {
                2 => "proxima_2_threads",
                4 => "proxima_4_threads",
                _ => "proxima_n_threads",
            };
        }
        if self.reuse.is_some() {
            return "proxima_reuse";
        }
        match self.search {
            PairSearch::Auto => "proxima",
            PairSearch::Tracker => "proxima_tracker",
            PairSearch::Grid => "proxima_grid",
        }
    }

    fn start(&mut self, recording: &Recording) {
        self.radius = recording.shapes.iter().skip(1).map(bounding_radius).fold(0.0, f32::max);
        (self.scene, self.handles) = recorded_scene(recording);
        self.pipeline = ContactPipeline::new()
            .with_manifolds(PREDICTION)
            .expect("a valid prediction")
            .with_pair_search(self.search);
        if let Some(reuse) = self.reuse {
            self.pipeline = core::mem::take(&mut self.pipeline).with_manifold_reuse(reuse);
        }
        self.pipeline.update(&mut self.scene);
    }

    fn step(&mut self, frame: &Frame) {
        let t0 = Instant::now();
        for (handle, pose) in self.handles.iter().zip(&frame.isometries).skip(1) {
            self.scene.set_pose(*handle, *pose).expect("a live handle and a valid recorded pose");
        }
        let t1 = Instant::now();
        match &self.pool {
            None => {
                self.pipeline.update(&mut self.scene);
            }
            Some(pool) => {
                let (pipeline, scene) = (&mut self.pipeline, &mut self.scene);
                pool.install(|| {
                    pipeline.update_parallel(scene);
                });
            }
        }
        let t2 = Instant::now();
        let pair_search = self.pipeline.stats().broadphase;
        self.phases = StepPhases { poses: t1 - t0, pair_search, manifolds: (t2 - t1).saturating_sub(pair_search) };
    }

    fn deepest_points(&self, out: &mut Vec<PairDepth>) {
        out.clear();
        // Sorted by (a, b); a pair with several manifolds comes as a run.
        for pair in self.pipeline.manifolds() {
            let Some(depth) = pair.manifold.points().iter().map(|p| p.depth).reduce(f32::max) else {
                continue;
            };
            let (a, b) = (pair.a.index(), pair.b.index());
            match out.last_mut() {
                Some(last) if (last.a, last.b) == (a, b) => last.depth = last.depth.max(depth),
                _ => out.push(PairDepth { a, b, depth }),
            }
        }
    }

    fn counts(&self) -> StepCounts {
        let manifolds = self.pipeline.manifolds();
        StepCounts {
            candidates: self.pipeline.stats().candidate_pairs,
            manifolds: manifolds.iter().filter(|m| !m.manifold.is_empty()).count(),
            points: manifolds.iter().map(|m| m.manifold.len()).sum(),
        }
    }

    fn phases(&self) -> StepPhases {
        self.phases
    }

    /// `ManifoldReuse`'s bound: `2 (max_translation + max_rotation r)`.
    fn approximate_within(&self) -> Option<f32> {
        self.reuse.map(|r| 2.0 * (r.max_translation() + r.max_rotation() * self.radius))
    }
}

/// The largest distance of a recorded body shape's points from its origin
/// (0 for a mesh: the floor is fixed).
fn bounding_radius(shape: &RecordedShape) -> f32 {
    match shape {
        &RecordedShape::Ball { radius } => radius,
        &RecordedShape::Cuboid { half_extents: [x, y, z] } => (x * x + y * y + z * z).sqrt(),
        &RecordedShape::Capsule { half_height, radius } => half_height + radius,
        RecordedShape::TriMesh { .. } => 0.0,
    }
}
