//! The mutable structures driven through `BroadPhaseMut` and queried through
//! `BroadPhase` by one generic function each, against `BruteForce` driven the
//! same way: the traits are enough to swap one structure for another.
//!
//! Proxies are compared by their user data (a label), so the check does not
//! depend on two structures handing out the same ids.

mod common_bp;

use common_bp::{random_box, random_step, translated};
use core::ops::ControlFlow;
use proxima_broadphase::{
    BroadPhase, BroadPhaseError, BroadPhaseMut, BruteForce, DynamicTree, FatBoxOptions, PairTracker, ProxyId, SapMode,
    SweepAndPrune,
};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Vector};
use proxima_test_support::{rng, Rng};
use std::collections::BTreeMap;

/// One change, by label (the index of the proxy's insertion).
#[derive(Clone, Copy, Debug)]
enum Op {
    Insert(Aabb),
    Remove(usize),
    Move(usize, Aabb, Vector),
}

/// A seeded sequence of changes: inserts, moves of live labels (some shrink
/// inside the old box), and removes of random labels, live or already gone.
fn ops(seed: u64, count: usize) -> Vec<Op> {
    let mut r = rng(seed);
    let mut live: Vec<Option<Aabb>> = Vec::new();
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let alive: Vec<usize> = (0..live.len()).filter(|&l| live[l].is_some()).collect();
        let roll: f64 = r.random();
        let op = if alive.len() < 8 || (roll < 0.25 && alive.len() < 120) {
            Op::Insert(random_box(&mut r, 20.0, 0.1, 1.5))
        } else if roll < 0.35 {
            // Sometimes a label that is already gone: a stale id for every structure.
            Op::Remove(r.random_range(0..live.len()))
        } else {
            let l = alive[r.random_range(0..alive.len())];
            let old = live[l].expect("alive");
            if r.random_bool(0.2) {
                // A shrink inside the old box: a fat box keeps it.
                let c = old.center();
                let h = old.half_extents() * 0.5;
                Op::Move(l, Aabb::try_from_center(c, h).expect("finite"), Vector::zeros())
            } else {
                let d = random_step(&mut r, 1.0);
                Op::Move(l, translated(&old, &d), d)
            }
        };
        match op {
            Op::Insert(b) => live.push(Some(b)),
            Op::Remove(l) => live[l] = None,
            Op::Move(l, b, _) if live[l].is_some() => live[l] = Some(b),
            Op::Move(..) => {}
        }
        out.push(op);
    }
    out
}

/// A structure, the id of each label in it, and the current box of each label.
struct World<B> {
    structure: B,
    ids: Vec<Option<ProxyId>>,
    boxes: Vec<Option<Aabb>>,
}

impl<B: BroadPhaseMut<Data = usize>> World<B> {
    fn new(structure: B) -> Self {
        Self { structure, ids: Vec::new(), boxes: Vec::new() }
    }

    /// Applies `op` through the trait; the verdict: `Ok`, or the error's kind.
    fn apply(&mut self, op: &Op) -> Result<bool, &'static str> {
        let kind = |e: BroadPhaseError| match e {
            BroadPhaseError::StaleId(_) => "stale",
            BroadPhaseError::InvalidDisplacement => "displacement",
            _ => "other",
        };
        match *op {
            Op::Insert(b) => {
                let label = self.ids.len();
                self.ids.push(Some(self.structure.insert(b, label)));
                self.boxes.push(Some(b));
                Ok(true)
            }
            Op::Remove(l) => {
                // A removed label keeps its old id: removing it again is stale.
                let id = self.ids[l].expect("every label has had an id");
                let data = self.structure.remove(id).map_err(kind)?;
                assert_eq!(data, l, "remove returned another proxy's data");
                self.boxes[l] = None;
                Ok(true)
            }
            Op::Move(l, b, d) => {
                let id = self.ids[l].expect("every label has had an id");
                let moved = self.structure.move_proxy(id, b, d).map_err(kind)?;
                self.boxes[l] = Some(b);
                Ok(moved)
            }
        }
    }

    fn label_of(&self) -> BTreeMap<ProxyId, usize> {
        (0..self.ids.len()).filter(|&l| self.boxes[l].is_some()).map(|l| (self.ids[l].expect("live"), l)).collect()
    }
}

/// Every overlapping pair of labels, through the query trait.
fn label_pairs<B: BroadPhase<Id = ProxyId> + BroadPhaseMut<Data = usize>>(w: &World<B>) -> Vec<(usize, usize)> {
    let labels = w.label_of();
    let mut pairs = Vec::new();
    w.structure.pairs_into(&mut pairs);
    let mut out: Vec<_> = pairs.iter().map(|(a, b)| (labels[a].min(labels[b]), labels[a].max(labels[b]))).collect();
    out.sort_unstable();
    out
}

/// The labels whose boxes overlap `query`, through the query trait.
fn label_overlaps<B: BroadPhase<Id = ProxyId> + BroadPhaseMut<Data = usize>>(w: &World<B>, query: &Aabb) -> Vec<usize> {
    let labels = w.label_of();
    let mut out = Vec::new();
    let _ = w.structure.visit_overlaps(query, |id| {
        out.push(labels[&id]);
        ControlFlow::Continue(())
    });
    out.sort_unstable();
    out
}

/// Keeps the candidates whose current (tight) boxes overlap: the exact answer
/// of a structure that answers for fat boxes.
fn exact<B>(w: &World<B>, pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = |l: usize| w.boxes[l].expect("live");
    pairs.iter().copied().filter(|&(x, y)| intersects_aabb_aabb(&b(x), &b(y))).collect()
}

/// Drives `structure` and a `BruteForce` through the same changes and
/// compares their pairs and box queries every few changes. `exact` says the
/// structure keeps exact boxes (its answers equal brute force's); otherwise its
/// answers must contain brute force's and equal them once filtered by the
/// current boxes. `settle` runs before each comparison (a sweep's sort).
fn compare_with_brute_force<B>(structure: B, seed: u64, exact_boxes: bool, settle: impl Fn(&mut B))
where
    B: BroadPhase<Id = ProxyId> + BroadPhaseMut<Data = usize>,
{
    let mut oracle = World::new(BruteForce::new());
    let mut world = World::new(structure);
    let mut r = rng(seed ^ 0x5eed);
    let (mut stale, mut kept, mut compared) = (0, 0, 0);
    for (step, op) in ops(seed, 1500).iter().enumerate() {
        let (want, got) = (oracle.apply(op), world.apply(op));
        assert_eq!(want.is_ok(), got.is_ok(), "step {step}: {op:?} gave {want:?} and {got:?}");
        stale += usize::from(got == Err("stale"));
        kept += usize::from(got == Ok(false));
        if step % 25 != 24 {
            continue;
        }
        settle(&mut world.structure);
        world.structure.validate().expect("valid after the changes");
        assert_eq!(world.structure.len(), oracle.structure.len());
        let (want, got) = (label_pairs(&oracle), label_pairs(&world));
        let query = random_box(&mut r, 20.0, 0.5, 4.0);
        let (want_q, got_q) = (label_overlaps(&oracle, &query), label_overlaps(&world, &query));
        if exact_boxes {
            assert_eq!(got, want, "step {step}: pairs differ");
            assert_eq!(got_q, want_q, "step {step}: box query differs");
        } else {
            assert!(want.iter().all(|p| got.binary_search(p).is_ok()), "step {step}: a pair is missing");
            assert_eq!(exact(&world, &got), want, "step {step}: filtered pairs differ");
            assert!(want_q.iter().all(|l| got_q.binary_search(l).is_ok()), "step {step}: a box hit is missing");
        }
        compared += want.len();
    }
    assert!(stale > 10, "only {stale} stale removes: the sequence should exercise them");
    assert!(compared > 100, "only {compared} pairs compared");
    if !exact_boxes {
        assert!(kept > 10, "only {kept} moves kept in the fat box");
    }
}

#[test]
fn dynamic_tree_through_the_traits_matches_brute_force() {
    compare_with_brute_force(DynamicTree::new(), 1, false, |_| {});
    let tight = DynamicTree::new_with(FatBoxOptions::TIGHT).expect("valid options");
    compare_with_brute_force(tight, 2, false, |_| {});
}

#[test]
fn sweep_and_prune_through_the_traits_matches_brute_force() {
    compare_with_brute_force(SweepAndPrune::new(SapMode::Persistent), 3, true, |s| s.update());
    // Queried while unsorted (no update since the last changes).
    compare_with_brute_force(SweepAndPrune::new(SapMode::Persistent), 4, true, |_| {});
    compare_with_brute_force(SweepAndPrune::new(SapMode::Rebuild), 5, true, |s| s.update());
}

/// The tracker implements only the mutable trait: driven through it, its
/// exact pairs after each update equal brute force's pairs.
#[test]
fn pair_tracker_through_the_mutable_trait_matches_brute_force() {
    let mut oracle = World::new(BruteForce::new());
    let mut world = World::new(PairTracker::new());
    for (step, op) in ops(6, 1500).iter().enumerate() {
        let (want, got) = (oracle.apply(op), world.apply(op));
        assert_eq!(want.is_ok(), got.is_ok(), "step {step}: {op:?} gave {want:?} and {got:?}");
        if step % 25 != 24 {
            continue;
        }
        world.structure.update();
        world.structure.validate().expect("valid after the update");
        let labels = world.label_of();
        let mut got: Vec<_> = world
            .structure
            .exact_pairs()
            .map(|(a, b)| (labels[&a].min(labels[&b]), labels[&a].max(labels[&b])))
            .collect();
        got.sort_unstable();
        assert_eq!(got, label_pairs(&oracle), "step {step}: exact pairs differ");
    }
}
