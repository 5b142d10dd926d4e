//! The pair search alone, as an engine with its own exact tests runs it:
//! every body's pose in, the pairs of colliders whose world boxes overlap
//! out. parry3d's side is its fastest exact configuration: a `Bvh` over the
//! boxes its shapes compute at their poses, every leaf set to its new box
//! with no change-detection margin (`update_partially_if_present(aabb, i,
//! 0.0)`), `refit`, `optimize_incremental` and the self-traversal.
//! proxima's is `Scene::set_pose` for every body and a
//! `ContactPipeline::with_broadphase_only(0.0)` update, whose candidate
//! pairs carry the documented slack (boxes within `1e-5` of their
//! coordinates' magnitudes count), so they may hold a few pairs more.

use crate::step_parry::parry_shape;
use crate::step_proxima::recorded_scene;
use crate::{Frame, Recording};
use parry3d::bounding_volume::Aabb;
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::shape::SharedShape;
use proxima::scene::{ColliderHandle, ContactPipeline, PairSearch, Scene};

/// A contender of the pair-search replay.
pub trait PairsStep {
    /// Its name in the printed tables.
    fn name(&self) -> &'static str;

    /// Builds it over the recording's first frame.
    fn start(&mut self, recording: &Recording);

    /// Moves every body to its pose in `frame` and finds the pairs.
    fn step(&mut self, frame: &Frame);

    /// The last step's pairs, `(i, j)` with `i < j` collider indices, sorted.
    fn pairs(&self, out: &mut Vec<(u32, u32)>);
}

/// parry3d's `Bvh` at margin 0 (leaf `i` is collider `i`).
#[derive(Default)]
pub struct ParryPairs {
    shapes: Vec<SharedShape>,
    bvh: Bvh,
    workspace: BvhWorkspace,
    pairs: Vec<(u32, u32)>,
}

impl ParryPairs {
    fn traverse(&mut self) {
        let pairs = &mut self.pairs;
        pairs.clear();
        self.bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |i, j| pairs.push((i.min(j), i.max(j))));
    }
}

impl PairsStep for ParryPairs {
    fn name(&self) -> &'static str {
        "parry3d"
    }

    fn start(&mut self, recording: &Recording) {
        *self = Self::default();
        self.shapes = recording.shapes.iter().map(parry_shape).collect();
        let frame = &recording.frames[0];
        let leaves: Vec<Aabb> = self.shapes.iter().zip(&frame.poses).map(|(s, p)| s.compute_aabb(p)).collect();
        self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        self.traverse();
    }

    fn step(&mut self, frame: &Frame) {
        for (i, (shape, pose)) in self.shapes.iter().zip(&frame.poses).enumerate().skip(1) {
            self.bvh.update_partially_if_present(shape.compute_aabb(pose), i as u32, 0.0).expect("a leaf per collider");
        }
        self.bvh.refit(&mut self.workspace);
        self.bvh.optimize_incremental(&mut self.workspace);
        self.traverse();
    }

    fn pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.extend_from_slice(&self.pairs);
        out.sort_unstable();
    }
}

/// proxima's broadphase-only contact pipeline over a `Scene` whose collider
/// `i` is the recording's collider `i` (collider 0 fixed).
pub struct ProximaPairs {
    search: PairSearch,
    scene: Scene,
    pipeline: ContactPipeline,
    handles: Vec<ColliderHandle>,
}

impl ProximaPairs {
    /// A contender whose pipeline finds its pairs with `search`.
    pub fn new(search: PairSearch) -> Self {
        Self { search, scene: Scene::new(), pipeline: ContactPipeline::new(), handles: Vec::new() }
    }
}

impl PairsStep for ProximaPairs {
    fn name(&self) -> &'static str {
        match self.search {
            PairSearch::Auto => "proxima",
            PairSearch::Tracker => "proxima_tracker",
            PairSearch::Grid => "proxima_grid",
        }
    }

    fn start(&mut self, recording: &Recording) {
        (self.scene, self.handles) = recorded_scene(recording);
        self.pipeline =
            ContactPipeline::new().with_broadphase_only(0.0).expect("a valid distance").with_pair_search(self.search);
        self.pipeline.update(&mut self.scene);
    }

    fn step(&mut self, frame: &Frame) {
        for (handle, pose) in self.handles.iter().zip(&frame.isometries).skip(1) {
            self.scene.set_pose(*handle, *pose).expect("a live handle and a valid recorded pose");
        }
        self.pipeline.update(&mut self.scene);
    }

    fn pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.extend(self.pipeline.candidate_pairs().iter().map(|(a, b)| (a.index(), b.index())));
    }
}

/// Every contender, parry3d first (the reference of the speed-ups).
pub fn all_pairs_steps() -> Vec<Box<dyn PairsStep>> {
    vec![
        Box::new(ParryPairs::default()),
        Box::new(ProximaPairs::new(PairSearch::Auto)),
        Box::new(ProximaPairs::new(PairSearch::Tracker)),
        Box::new(ProximaPairs::new(PairSearch::Grid)),
    ]
}
