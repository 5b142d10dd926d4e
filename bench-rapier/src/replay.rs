//! One driver per broadphase structure: each moves every box to its recorded
//! place and produces the exact overlap set of the frame.
//!
//! Structures that keep fat boxes (the dynamic tree, the pair tracker,
//! parry's `Bvh`) report pairs of fat boxes, a superset; their drivers keep
//! the pairs whose tight boxes overlap, as a physics pipeline does before
//! the narrow phase. That filter is part of the timed step.

use crate::Frame;
use parry3d::bounding_volume::{Aabb as ParryAabb, BoundingVolume};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima_broadphase::{
    BroadPhase, BruteForce, DynamicTree, FatBoxOptions, GridPairs, Pair, PairTracker, ProxyId, ProxyOptions, SapMode,
    StaticBvh, SweepAndPrune,
};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Vector};

/// The fat-box margin of the dynamic tree, the pair tracker and parry's
/// `Bvh` (change-detection margin): [`FatBoxOptions::default`]'s 0.1 m.
pub const MARGIN: f32 = 0.1;

/// A broadphase structure driven by recorded frames.
pub trait Replay {
    /// The structure's name, used in benchmark ids.
    fn name(&self) -> &'static str;

    /// Builds the structure over `frame`'s boxes (box `i` is proxy `i`) and
    /// finds its pairs.
    fn start(&mut self, frame: &Frame);

    /// Moves every box from `prev` (the frame of the last call) to `frame`
    /// and finds the new pair set.
    fn step(&mut self, prev: &Frame, frame: &Frame);

    /// The exact overlap set after the last `start` or `step`: `(i, j)` with
    /// `i < j` collider indices, each overlapping pair once, in any order.
    fn pairs(&self) -> &[(u32, u32)];
}

/// Every driver: the dynamic tree, the pair tracker, the grid, sweep-and-prune
/// (persistent), the static BVH refitted and rebuilt each step, brute force
/// and parry3d's `Bvh`.
pub fn all_replays() -> Vec<Box<dyn Replay>> {
    vec![
        Box::new(DynamicTreeReplay::default()),
        Box::new(PairTrackerReplay::default()),
        Box::new(PairTrackerReplay { parallel: true, ..Default::default() }),
        Box::new(GridReplay::default()),
        Box::new(GridReplay { parallel: true, ..Default::default() }),
        Box::new(SapReplay::default()),
        Box::new(StaticBvhReplay { rebuild: false, ..Default::default() }),
        Box::new(StaticBvhReplay { rebuild: true, ..Default::default() }),
        Box::new(BruteForceReplay::default()),
        Box::new(ParryReplay::default()),
    ]
}

/// Checks that proxy ids were handed out as `0..n` in insertion order, so a
/// slot index is a collider index.
fn assert_sequential(ids: &[ProxyId]) {
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(id.index() as usize, i, "a fresh structure hands out slots in order");
    }
}

/// Keeps the pairs of `fat` whose tight boxes overlap, as collider indices.
fn keep_tight<'a>(fat: impl Iterator<Item = &'a Pair>, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
    out.clear();
    for (a, b) in fat {
        let (i, j) = (a.index(), b.index());
        if intersects_aabb_aabb(&boxes[i as usize], &boxes[j as usize]) {
            out.push((i.min(j), i.max(j)));
        }
    }
}

/// The box's displacement between two frames: the motion of its centre.
fn displacement(prev: &Aabb, next: &Aabb) -> Vector {
    next.center() - prev.center()
}

/// [`DynamicTree`]: `move_proxy` for every box (a box still inside its fat
/// box costs one containment test), then all fat pairs by the tree's
/// self-traversal, filtered by the tight boxes.
#[derive(Default)]
struct DynamicTreeReplay {
    tree: DynamicTree,
    ids: Vec<ProxyId>,
    fat: Vec<Pair>,
    out: Vec<(u32, u32)>,
}

impl Replay for DynamicTreeReplay {
    fn name(&self) -> &'static str {
        "dynamic_tree"
    }

    fn start(&mut self, frame: &Frame) {
        let options = FatBoxOptions { margin: MARGIN, ..Default::default() };
        self.tree = DynamicTree::new_with(options).expect("valid options");
        self.ids = frame.boxes.iter().map(|b| self.tree.insert(*b, ())).collect();
        assert_sequential(&self.ids);
        self.tree.rebuild();
        self.tree.pairs_into(&mut self.fat);
        keep_tight(self.fat.iter(), &frame.boxes, &mut self.out);
    }

    fn step(&mut self, prev: &Frame, frame: &Frame) {
        for (i, (old, new)) in prev.boxes.iter().zip(&frame.boxes).enumerate() {
            self.tree.move_proxy(self.ids[i], *new, displacement(old, new)).expect("live id, finite motion");
        }
        self.tree.pairs_into(&mut self.fat);
        keep_tight(self.fat.iter(), &frame.boxes, &mut self.out);
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// [`PairTracker`]: `move_proxy` for every box, `update` (queries only the
/// proxies that left their fat box, keeps the persistent pairs), then
/// `exact_pairs` (the pair set filtered by the tight boxes it keeps).
#[derive(Default)]
struct PairTrackerReplay {
    /// `update_parallel` (rayon's pool) instead of `update`.
    parallel: bool,
    tracker: PairTracker,
    ids: Vec<ProxyId>,
    out: Vec<(u32, u32)>,
}

impl PairTrackerReplay {
    /// The exact pairs: the tracker's fat pairs whose tight boxes overlap,
    /// as proxy indices (`exact_pair_indices`: a sequential read of the
    /// stored list; `exact_pairs` would name each pair's ids first).
    fn collect(&mut self) {
        self.out.clear();
        self.out.extend(self.tracker.exact_pair_indices());
    }
}

impl Replay for PairTrackerReplay {
    fn name(&self) -> &'static str {
        if self.parallel {
            "pair_tracker_par"
        } else {
            "pair_tracker"
        }
    }

    fn start(&mut self, frame: &Frame) {
        let options = FatBoxOptions { margin: MARGIN, ..Default::default() };
        self.tracker = PairTracker::new_with(options).expect("valid options");
        self.ids = frame.boxes.iter().map(|b| self.tracker.insert(*b, (), ProxyOptions::default())).collect();
        assert_sequential(&self.ids);
        self.tracker.update();
        self.collect();
    }

    fn step(&mut self, prev: &Frame, frame: &Frame) {
        for (i, (old, new)) in prev.boxes.iter().zip(&frame.boxes).enumerate() {
            self.tracker.move_proxy(self.ids[i], *new, displacement(old, new)).expect("live id, finite motion");
        }
        if self.parallel {
            self.tracker.update_parallel();
        } else {
            self.tracker.update();
        }
        self.collect();
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// [`GridPairs`]: the exact pairs found again from the tight boxes at every
/// step (a uniform grid, no state kept but its buffers).
#[derive(Default)]
struct GridReplay {
    /// `pairs_unsorted_into_parallel` (rayon's pool) instead of the sequential call.
    parallel: bool,
    grid: GridPairs,
    out: Vec<(u32, u32)>,
}

impl GridReplay {
    fn find(&mut self, frame: &Frame) {
        if self.parallel {
            self.grid.pairs_unsorted_into_parallel(&frame.boxes, &mut self.out);
        } else {
            self.grid.pairs_unsorted_into(&frame.boxes, &mut self.out);
        }
    }
}

impl Replay for GridReplay {
    fn name(&self) -> &'static str {
        if self.parallel {
            "grid_pairs_par"
        } else {
            "grid_pairs"
        }
    }

    fn start(&mut self, frame: &Frame) {
        self.find(frame);
    }

    fn step(&mut self, _prev: &Frame, frame: &Frame) {
        self.find(frame);
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// [`SweepAndPrune`] in persistent mode on the tight boxes: `move_proxy` for
/// every box, `update` (insertion sort of the kept order), then the sweep.
/// Its pairs are exact already.
#[derive(Default)]
struct SapReplay {
    sap: SweepAndPrune,
    ids: Vec<ProxyId>,
    found: Vec<Pair>,
    out: Vec<(u32, u32)>,
}

impl SapReplay {
    fn collect(&mut self) {
        self.sap.pairs_into(&mut self.found);
        self.out.clear();
        self.out.extend(self.found.iter().map(|(a, b)| (a.index(), b.index())));
    }
}

impl Replay for SapReplay {
    fn name(&self) -> &'static str {
        "sweep_and_prune"
    }

    fn start(&mut self, frame: &Frame) {
        self.sap = SweepAndPrune::new(SapMode::Persistent);
        self.ids = frame.boxes.iter().map(|b| self.sap.insert(*b, ())).collect();
        assert_sequential(&self.ids);
        self.sap.update();
        self.collect();
    }

    fn step(&mut self, _prev: &Frame, frame: &Frame) {
        for (id, b) in self.ids.iter().zip(&frame.boxes) {
            self.sap.move_proxy(*id, *b, Vector::zeros()).expect("live id");
        }
        self.sap.update();
        self.collect();
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// [`StaticBvh`] on the tight boxes: refitted (`rebuild: false`, the
/// topology of frame 0 kept) or built again (`rebuild: true`) every step,
/// then its self-pairs, which are exact.
#[derive(Default)]
struct StaticBvhReplay {
    rebuild: bool,
    bvh: Option<StaticBvh>,
    out: Vec<(u32, u32)>,
}

impl Replay for StaticBvhReplay {
    fn name(&self) -> &'static str {
        if self.rebuild {
            "static_bvh_rebuild"
        } else {
            "static_bvh_refit"
        }
    }

    fn start(&mut self, frame: &Frame) {
        let bvh = self.bvh.insert(StaticBvh::build(&frame.boxes));
        bvh.pairs_into(&mut self.out);
    }

    fn step(&mut self, _prev: &Frame, frame: &Frame) {
        let bvh = match (self.rebuild, self.bvh.as_mut()) {
            (false, Some(bvh)) => {
                bvh.refit(&frame.boxes).expect("same number of boxes");
                bvh
            }
            _ => self.bvh.insert(StaticBvh::build(&frame.boxes)),
        };
        bvh.pairs_into(&mut self.out);
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// [`BruteForce`]: `move_proxy` for every box, then all `n (n - 1) / 2` tests.
#[derive(Default)]
struct BruteForceReplay {
    bf: BruteForce,
    ids: Vec<ProxyId>,
    found: Vec<Pair>,
    out: Vec<(u32, u32)>,
}

impl BruteForceReplay {
    fn collect(&mut self) {
        self.bf.pairs_into(&mut self.found);
        self.out.clear();
        self.out.extend(self.found.iter().map(|(a, b)| (a.index(), b.index())));
    }
}

impl Replay for BruteForceReplay {
    fn name(&self) -> &'static str {
        "brute_force"
    }

    fn start(&mut self, frame: &Frame) {
        self.bf = BruteForce::new();
        self.ids = frame.boxes.iter().map(|b| self.bf.insert(*b, ())).collect();
        assert_sequential(&self.ids);
        self.collect();
    }

    fn step(&mut self, _prev: &Frame, frame: &Frame) {
        for (id, b) in self.ids.iter().zip(&frame.boxes) {
            self.bf.move_proxy(*id, *b, Vector::zeros()).expect("live id");
        }
        self.collect();
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// parry3d 0.31's `Bvh`, used as rapier's broad phase uses it: every leaf
/// updated with a change-detection margin (`insert_or_update_partially`: a
/// leaf is enlarged by [`MARGIN`] only when its box leaves the old fat box),
/// `refit`, `optimize_incremental`, then the self-traversal of the tree
/// (`traverse_bvtt_single_tree`), filtered by the tight boxes.
#[derive(Default)]
struct ParryReplay {
    bvh: Bvh,
    workspace: BvhWorkspace,
    out: Vec<(u32, u32)>,
}

impl ParryReplay {
    fn collect(&mut self, boxes: &[ParryAabb]) {
        let Self { bvh, workspace, out } = self;
        out.clear();
        bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |i, j| {
            if boxes[i as usize].intersects(&boxes[j as usize]) {
                out.push((i.min(j), i.max(j)));
            }
        });
    }
}

impl Replay for ParryReplay {
    fn name(&self) -> &'static str {
        "parry3d"
    }

    fn start(&mut self, frame: &Frame) {
        let fat: Vec<ParryAabb> = frame.parry.iter().map(|b| b.loosened(MARGIN)).collect();
        self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &fat);
        self.workspace = BvhWorkspace::default();
        self.collect(&frame.parry);
    }

    fn step(&mut self, _prev: &Frame, frame: &Frame) {
        for (i, b) in frame.parry.iter().enumerate() {
            self.bvh.insert_or_update_partially(*b, i as u32, MARGIN);
        }
        self.bvh.refit(&mut self.workspace);
        self.bvh.optimize_incremental(&mut self.workspace);
        self.collect(&frame.parry);
    }

    fn pairs(&self) -> &[(u32, u32)] {
        &self.out
    }
}
