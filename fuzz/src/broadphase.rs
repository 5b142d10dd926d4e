//! Properties of the broadphase structures under arbitrary operation
//! sequences: the body of `fuzz_targets/broadphase_ops.rs` and of the
//! proptest suite `crates/broadphase/tests/fuzz_properties.rs`.
//!
//! One sequence drives a [`DynamicTree`], two [`SweepAndPrune`]s (rebuild and
//! persistent modes), a [`PairTracker`] and the [`BruteForce`] oracle with the
//! same inserts, removals, moves and queries. Boxes come from fuzz floats,
//! NaN, infinite, huge (1e30, f32::MAX) and zero-size ones among them.
//!
//! After every operation:
//! - no panic; every `validate()` passes;
//! - invalid input (a NaN/infinite/inverted box, a NaN displacement, a stale
//!   id, bad options) is rejected with the documented typed error and the
//!   structures are unchanged (same proxies, same fat boxes, same pairs);
//! - the tree's pair set equals `BruteForce` over the tree's fat boxes, each
//!   fat box contains its tight box, and the sweep-and-prune pair sets equal
//!   `BruteForce` over the tight boxes;
//! - box and ray queries return exactly the brute-force answer (ray entry
//!   parameters bit for bit);
//! - `PairTracker` box and ray queries return the brute-force answer over
//!   its fat boxes (ray entry parameters bit for bit), before its update as
//!   after;
//! - after `PairTracker::update`, its pairs equal the brute-force pairs of its
//!   fat boxes under its filters (never static-static, groups interacting),
//!   its events are exactly the change of the pair set, in pair order, and
//!   the parallel update gives the same events as the sequential one.

use crate::bytes::Bytes;
use core::ops::ControlFlow;
use proxima_broadphase::*;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Point, Ray, ShapeError, Vector};

/// Operations per input at most.
const MAX_OPS: usize = 96;

/// The structures under test and what the sequence knows about them.
struct World {
    bf: BruteForce<u32>,
    tree: DynamicTree<u32>,
    sap: [SweepAndPrune<u32>; 2],
    tracker: PairTracker<u32>,
    /// Live ids with their tight box and user data (same ids in every structure).
    live: Vec<(ProxyId, Aabb, u32)>,
    /// Ids removed earlier: stale.
    dead: Vec<ProxyId>,
    next_data: u32,
}

/// The state a rejected call must leave unchanged.
#[derive(Debug, PartialEq)]
struct Snapshot {
    tree: Vec<(ProxyId, Aabb, u32)>,
    tree_stats: TreeStats,
    tracker: Vec<(ProxyId, Option<Aabb>, Option<ProxyOptions>)>,
    sap: Vec<Vec<(ProxyId, Option<Aabb>)>>,
    bf: Vec<(ProxyId, Aabb, u32)>,
}

/// Runs one operation sequence decoded from `data`.
pub fn check(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mut w = World::new(&mut b);
    for _ in 0..MAX_OPS {
        if b.is_empty() {
            break;
        }
        w.step(&mut b);
        w.verify();
    }
    // Flush: one last update must agree with the oracle too.
    w.update_tracker();
}

/// A box from fuzz floats, checked against `Aabb::try_new`'s documented
/// verdict: NaN/infinite corners `NonFinite`, else the first inverted axis.
fn decode_box(b: &mut Bytes, wild: bool) -> Result<Aabb, ShapeError> {
    let min = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
    let mut max = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
    match b.byte() % 8 {
        0 => max = min,                                // zero size
        1..=5 => max = min + (max - min).abs() * 0.25, // ordered, nearby
        _ => {}                                        // as decoded: may be inverted
    }
    if b.chance(8) {
        // A huge box.
        let h = if b.chance(128) { 1e30 } else { f32::MAX };
        return Aabb::try_new(Point::new(-h, -h, -h), Point::new(h, h, h));
    }
    let finite = min.iter().chain(max.iter()).all(|x| x.is_finite());
    let want = if !finite {
        Err(ShapeError::NonFinite("aabb corner"))
    } else {
        match (0..3).find(|&i| min[i] > max[i]) {
            Some(axis) => Err(ShapeError::InvertedBounds { axis }),
            None => Ok(()),
        }
    };
    let got = Aabb::try_new(min, max);
    assert_eq!(got.map(|_| ()), want, "Aabb::try_new({min:?}, {max:?})");
    got
}

fn decode_options(b: &mut Bytes) -> FatBoxOptions {
    match b.byte() % 4 {
        0 => FatBoxOptions::TIGHT,
        1 => FatBoxOptions::default(),
        _ => FatBoxOptions { margin: b.f32_or_wild(true) * 0.1, prediction: b.f32_or_wild(true) * 0.25 },
    }
}

fn options_valid(o: &FatBoxOptions) -> bool {
    o.margin.is_finite() && o.margin >= 0.0 && o.prediction.is_finite() && o.prediction >= 0.0
}

/// A ray traversal, given the visitor to call.
type RayQuery<'a> = dyn Fn(&mut dyn FnMut(ProxyId, f32) -> RayControl) + 'a;

fn pairs_of(bp: &impl BroadPhase<Id = ProxyId>) -> Vec<Pair> {
    let mut v = Vec::new();
    bp.pairs_into(&mut v);
    v
}

/// `BruteForce` over the given boxes, its pairs translated back to the given ids.
fn oracle_pairs(boxes: impl Iterator<Item = (ProxyId, Aabb)>) -> Vec<Pair> {
    let mut bf = BruteForce::new();
    for (id, aabb) in boxes {
        bf.insert(aabb, id);
    }
    let mut out: Vec<Pair> = pairs_of(&bf)
        .into_iter()
        .map(|(a, b)| {
            let (a, b) = (*bf.get(a).expect("live"), *bf.get(b).expect("live"));
            canonical_pair(a, b)
        })
        .collect();
    out.sort_unstable();
    out
}

fn sorted(mut v: Vec<Pair>) -> Vec<Pair> {
    v.sort_unstable();
    v
}

impl World {
    fn new(b: &mut Bytes) -> Self {
        let tree_options = decode_options(b);
        let tree = match DynamicTree::new_with(tree_options) {
            Ok(t) => t,
            Err(e) => {
                assert!(!options_valid(&tree_options), "valid options {tree_options:?} rejected: {e}");
                assert!(matches!(e, BroadPhaseError::InvalidOption(_)), "{e:?}");
                DynamicTree::new()
            }
        };
        if options_valid(&tree_options) {
            assert_eq!(tree.options(), tree_options);
        }
        let tracker_options = decode_options(b);
        let tracker = match PairTracker::new_with(tracker_options) {
            Ok(t) => t,
            Err(e) => {
                assert!(!options_valid(&tracker_options), "valid options {tracker_options:?} rejected: {e}");
                assert!(matches!(e, BroadPhaseError::InvalidOption(_)), "{e:?}");
                PairTracker::new()
            }
        };
        Self {
            bf: BruteForce::new(),
            tree,
            sap: [SweepAndPrune::new(SapMode::Rebuild), SweepAndPrune::new(SapMode::Persistent)],
            tracker,
            live: Vec::new(),
            dead: Vec::new(),
            next_data: 0,
        }
    }

    fn snapshot(&self) -> Snapshot {
        let ids: Vec<ProxyId> = self.live.iter().map(|l| l.0).chain(self.dead.iter().copied()).collect();
        Snapshot {
            tree: self.tree.iter().map(|(id, a, d)| (id, *a, *d)).collect(),
            tree_stats: self.tree.validate().expect("valid tree"),
            tracker: ids.iter().map(|&id| (id, self.tracker.fat_aabb(id), self.tracker.options(id))).collect(),
            sap: self.sap.iter().map(|s| ids.iter().map(|&id| (id, s.aabb(id))).collect()).collect(),
            bf: self.bf.iter().map(|(id, a, d)| (id, *a, *d)).collect(),
        }
    }

    /// An id that names no live proxy: a removed one or one never issued.
    fn stale_id(&self, b: &mut Bytes) -> ProxyId {
        if !self.dead.is_empty() && b.chance(192) {
            return self.dead[b.byte() as usize % self.dead.len()];
        }
        let id = ProxyId::new(b.u16() as u32 % 300, b.byte() as u32 % 4);
        if self.live.iter().any(|l| l.0 == id) {
            ProxyId::new(1_000_000, 0)
        } else {
            id
        }
    }

    fn step(&mut self, b: &mut Bytes) {
        let wild = b.chance(64);
        match b.byte() % 16 {
            0..=3 => self.insert(b, wild),
            4 | 5 => self.remove(b),
            6..=8 => self.move_proxy(b, wild),
            9 => self.stale_calls(b, wild),
            10 => self.set_options(b),
            11 => self.update_tracker(),
            12 => {
                self.sap.iter_mut().for_each(|s| s.update());
                if b.chance(64) {
                    self.tree.rebuild();
                    self.tracker.rebuild();
                } else if b.chance(64) {
                    self.tree.refit();
                } else if !self.live.is_empty() {
                    let id = self.live[b.byte() as usize % self.live.len()].0;
                    self.tree.refit_path(id).expect("live");
                }
            }
            13 => self.box_query(b, wild),
            14 => self.ray_query(b, wild),
            _ => self.parallel_update_matches(),
        }
    }

    fn insert(&mut self, b: &mut Bytes, wild: bool) {
        let aabb = match decode_box(b, wild) {
            Ok(a) => a,
            Err(e) => {
                // The one-step fallible insert: the error converts and nothing changes.
                let before = self.snapshot();
                let r: Result<ProxyId, BroadPhaseError> = Err(e.into());
                assert_eq!(r, Err(BroadPhaseError::InvalidAabb(e)));
                assert_eq!(self.snapshot(), before);
                return;
            }
        };
        let data = self.next_data;
        self.next_data += 1;
        let statik = b.chance(32);
        let options = ProxyOptions { is_static: statik, ..ProxyOptions::default() };
        let id = self.bf.insert(aabb, data);
        assert_eq!(self.tree.insert(aabb, data), id, "every structure issues the same id");
        for s in &mut self.sap {
            assert_eq!(s.insert(aabb, data), id);
        }
        assert_eq!(self.tracker.insert(aabb, data, options), id);
        self.live.push((id, aabb, data));
    }

    fn remove(&mut self, b: &mut Bytes) {
        if self.live.is_empty() {
            return;
        }
        let (id, _, data) = self.live.swap_remove(b.byte() as usize % self.live.len());
        assert_eq!(self.bf.remove(id), Ok(data));
        assert_eq!(self.tree.remove(id), Ok(data));
        for s in &mut self.sap {
            assert_eq!(s.remove(id), Ok(data));
        }
        assert_eq!(self.tracker.remove(id), Ok(data));
        self.dead.push(id);
    }

    fn move_proxy(&mut self, b: &mut Bytes, wild: bool) {
        if self.live.is_empty() {
            return;
        }
        let i = b.byte() as usize % self.live.len();
        let id = self.live[i].0;
        let aabb = match decode_box(b, wild) {
            Ok(a) => a,
            Err(_) => return, // rejected at construction: nothing reaches a structure
        };
        let d = Vector::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        if !d.iter().all(|x| x.is_finite()) {
            let before = self.snapshot();
            assert_eq!(self.tree.move_proxy(id, aabb, d), Err(BroadPhaseError::InvalidDisplacement));
            assert_eq!(self.tree.enlarge_proxy(id, aabb, d), Err(BroadPhaseError::InvalidDisplacement));
            assert_eq!(self.tracker.move_proxy(id, aabb, d), Err(BroadPhaseError::InvalidDisplacement));
            assert_eq!(self.snapshot(), before, "a rejected move changed the state");
            return;
        }
        let old_fat = self.tree.fat_aabb(id).expect("live");
        // Re-inserted, or grown in place (the same fat box, the tree loose).
        let moved = if b.chance(96) {
            self.tree.enlarge_proxy(id, aabb, d).expect("valid move")
        } else {
            self.tree.move_proxy(id, aabb, d).expect("valid move")
        };
        // Ok(false) exactly when the new box was inside the old fat box.
        assert_eq!(moved, !old_fat.contains_aabb(&aabb), "move_proxy's verdict");
        if !moved {
            assert_eq!(self.tree.fat_aabb(id), Some(old_fat));
        }
        // The tracker moves either way: with the displacement given, or with
        // the tight box centre's move (`move_proxy_to`); the verdict is the
        // same rule.
        let tracker_fat = self.tracker.fat_aabb(id).expect("live");
        let moved = if b.chance(128) {
            self.tracker.move_proxy_to(id, aabb).expect("valid move")
        } else {
            self.tracker.move_proxy(id, aabb, d).expect("valid move")
        };
        assert_eq!(moved, !tracker_fat.contains_aabb(&aabb), "the tracker's move verdict");
        for s in &mut self.sap {
            s.move_proxy(id, aabb, d).expect("live");
        }
        self.bf.move_proxy(id, aabb, d).expect("live");
        self.live[i].1 = aabb;
    }

    /// Calls with stale ids on every structure: `StaleId`, nothing changes.
    fn stale_calls(&mut self, b: &mut Bytes, wild: bool) {
        let id = self.stale_id(b);
        let aabb = decode_box(b, wild).unwrap_or(Aabb::new(Point::origin(), Point::origin()));
        let before = self.snapshot();
        let stale = Err(BroadPhaseError::StaleId(id));
        assert_eq!(self.bf.remove(id), stale.map(|_: ()| 0));
        assert_eq!(self.bf.move_proxy(id, aabb, Vector::zeros()), stale.map(|_: ()| true));
        assert_eq!(self.tree.remove(id), stale.map(|_: ()| 0));
        assert_eq!(self.tree.move_proxy(id, aabb, Vector::zeros()), stale.map(|_: ()| false));
        assert_eq!(self.tree.enlarge_proxy(id, aabb, Vector::zeros()), stale.map(|_: ()| false));
        assert_eq!(self.tree.refit_path(id), stale);
        for s in &mut self.sap {
            let dirty = s.is_dirty();
            assert_eq!(s.remove(id), stale.map(|_: ()| 0));
            assert_eq!(s.move_proxy(id, aabb, Vector::zeros()), stale.map(|_: ()| true));
            assert_eq!(s.is_dirty(), dirty, "a rejected call dirtied the sweep");
        }
        assert_eq!(self.tracker.remove(id), stale.map(|_: ()| 0));
        assert_eq!(self.tracker.move_proxy(id, aabb, Vector::zeros()), stale.map(|_: ()| false));
        assert_eq!(self.tracker.move_proxy_to(id, aabb), stale.map(|_: ()| false));
        assert_eq!(self.tracker.set_options(id, ProxyOptions::STATIC), stale);
        assert!(self.tree.get(id).is_none() && self.tracker.get(id).is_none() && self.bf.get(id).is_none());
        assert_eq!(self.snapshot(), before, "a rejected call changed the state");
    }

    fn set_options(&mut self, b: &mut Bytes) {
        if self.live.is_empty() {
            return;
        }
        let id = self.live[b.byte() as usize % self.live.len()].0;
        let groups = CollisionGroups::new(b.byte() as u32 & 3, b.byte() as u32 & 3);
        let options = ProxyOptions { groups, is_static: b.chance(64) };
        self.tracker.set_options(id, options).expect("live");
        assert_eq!(self.tracker.options(id), Some(options));
    }

    /// Updates the tracker and checks its pairs and events against the oracle.
    fn update_tracker(&mut self) {
        let before: Vec<_> = self.tracker.pairs().collect();
        let events = self.tracker.update().to_vec();
        self.check_tracker(&before, &events);
    }

    fn check_tracker(&self, before: &[Pair], events: &[PairEvent]) {
        self.tracker.validate().unwrap_or_else(|e| panic!("tracker: {e}"));
        let boxes = self.live.iter().map(|l| (l.0, self.tracker.fat_aabb(l.0).expect("live")));
        let want: Vec<Pair> = oracle_pairs(boxes)
            .into_iter()
            .filter(|&(a, b)| {
                let (oa, ob) = (self.tracker.options(a).expect("live"), self.tracker.options(b).expect("live"));
                !(oa.is_static && ob.is_static) && oa.groups.interacts_with(ob.groups)
            })
            .collect();
        assert_eq!(sorted(self.tracker.pairs().collect()), want, "tracker pairs != brute force");
        // The events are exactly the change of the pair set, each pair once.
        let mut started: Vec<Pair> = want.iter().filter(|p| !before.contains(p)).copied().collect();
        let mut stopped: Vec<Pair> = before.iter().filter(|p| !want.contains(p)).copied().collect();
        let mut got_started: Vec<Pair> =
            events.iter().filter(|e| matches!(e, PairEvent::Started(..))).map(|e| e.pair()).collect();
        let mut got_stopped: Vec<Pair> =
            events.iter().filter(|e| matches!(e, PairEvent::Stopped(..))).map(|e| e.pair()).collect();
        for v in [&mut started, &mut stopped, &mut got_started, &mut got_stopped] {
            v.sort_unstable();
        }
        assert_eq!(got_started, started, "Started events");
        assert_eq!(got_stopped, stopped, "Stopped events");
        // In pair order by slot indices (a reused slot's Stopped first).
        let keys: Vec<(u32, u32)> = events.iter().map(|e| (e.pair().0.index(), e.pair().1.index())).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "events not in pair order: {events:?}");
    }

    fn parallel_update_matches(&mut self) {
        let mut sequential = self.tracker.clone();
        let before: Vec<_> = self.tracker.pairs().collect();
        let want = sequential.update().to_vec();
        let got = update_parallel(&mut self.tracker);
        assert_eq!(got, want, "parallel update events differ from the sequential ones");
        assert!(self.tracker.pairs().eq(sequential.pairs()));
        self.check_tracker(&before, &got);
    }

    fn box_query(&self, b: &mut Bytes, wild: bool) {
        let Ok(q) = decode_box(b, wild) else { return };
        let mut want_tight: Vec<ProxyId> = Vec::new();
        let _ = self.bf.visit_overlaps(&q, |id| {
            want_tight.push(id);
            ControlFlow::Continue(())
        });
        want_tight.sort_unstable();
        let mut brute: Vec<ProxyId> =
            self.live.iter().filter(|l| intersects_aabb_aabb(&l.1, &q)).map(|l| l.0).collect();
        brute.sort_unstable();
        assert_eq!(want_tight, brute, "BruteForce::visit_overlaps");
        for s in &self.sap {
            let mut got: Vec<ProxyId> = Vec::new();
            let _ = s.visit_overlaps(&q, |id| {
                got.push(id);
                ControlFlow::Continue(())
            });
            got.sort_unstable();
            assert_eq!(got, want_tight, "sweep-and-prune box query");
        }
        let sorted_ids = |mut v: Vec<ProxyId>| {
            v.sort_unstable();
            v
        };
        // The live proxies whose fat box (by `fat_of`) overlaps `q`, sorted.
        let fat_hits = |fat_of: &dyn Fn(ProxyId) -> Option<Aabb>| -> Vec<ProxyId> {
            sorted_ids(
                self.live
                    .iter()
                    .filter(|l| intersects_aabb_aabb(&fat_of(l.0).expect("live"), &q))
                    .map(|l| l.0)
                    .collect(),
            )
        };
        let want_fat = fat_hits(&|id| self.tree.fat_aabb(id));
        assert_eq!(sorted_ids(self.tree.overlaps(&q).collect()), want_fat, "tree box query");
        // The tracker's fat boxes, whether or not an update ran since the moves.
        let want_tracker = fat_hits(&|id| self.tracker.fat_aabb(id));
        assert_eq!(sorted_ids(self.tracker.overlaps(&q).collect()), want_tracker, "tracker box query");
        // Early exit: a visitor that breaks at once sees at most one proxy.
        let mut seen = 0;
        let flow = self.tree.visit_overlaps(&q, |_| {
            seen += 1;
            ControlFlow::Break(())
        });
        assert_eq!(seen, usize::from(!want_fat.is_empty()));
        assert_eq!(flow.is_break(), !want_fat.is_empty());
    }

    fn ray_query(&self, b: &mut Bytes, wild: bool) {
        let o = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let d = Vector::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let max_toi = if b.chance(64) { f32::INFINITY } else { b.f32_or_wild(wild).abs() * 4.0 };
        let Ok(ray) = Ray::try_new(o, d, max_toi) else { return };
        let visit_all = |bp: &RayQuery| {
            let mut v: Vec<(ProxyId, u32)> = Vec::new();
            bp(&mut |id, t| {
                v.push((id, t.to_bits()));
                RayControl::Continue
            });
            v.sort_unstable();
            v
        };
        let want_tight = visit_all(&|f| self.bf.visit_ray(&ray, f));
        for s in &self.sap {
            assert_eq!(visit_all(&|f| s.visit_ray(&ray, f)), want_tight, "sweep-and-prune ray query");
        }
        let mut fat = BruteForce::new();
        for l in &self.live {
            fat.insert(self.tree.fat_aabb(l.0).expect("live"), l.0);
        }
        let want_fat: Vec<(ProxyId, u32)> = {
            let mut v = visit_all(&|f| fat.visit_ray(&ray, &mut |id, t| f(*fat.get(id).expect("live"), t)));
            v.sort_unstable();
            v
        };
        assert_eq!(visit_all(&|f| self.tree.visit_ray(&ray, f)), want_fat, "tree ray query");
        // The tracker's fat boxes (its 8-lane kernel equals the scalar slab
        // test bit for bit), before its update as after.
        let mut tracker_fat = BruteForce::new();
        for l in &self.live {
            tracker_fat.insert(self.tracker.fat_aabb(l.0).expect("live"), l.0);
        }
        let want_tracker =
            visit_all(&|f| tracker_fat.visit_ray(&ray, &mut |id, t| f(*tracker_fat.get(id).expect("live"), t)));
        assert_eq!(visit_all(&|f| self.tracker.visit_ray(&ray, f)), want_tracker, "tracker ray query");
        // Closest hit with clipping: the smallest entry toi.
        let mut best: Option<(f32, ProxyId)> = None;
        self.tree.visit_ray(&ray, |id, t| {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, id));
            }
            RayControl::Clip(t)
        });
        let want_best = want_fat
            .iter()
            .map(|&(_, t)| f32::from_bits(t))
            .fold(None, |m: Option<f32>, t| Some(m.map_or(t, |m| m.min(t))));
        assert_eq!(best.map(|b| b.0), want_best, "closest entry with clipping");
    }

    fn verify(&self) {
        let stats = self.tree.validate().unwrap_or_else(|e| panic!("tree: {e}"));
        assert_eq!(stats.leaves, self.live.len());
        assert_eq!(stats.nodes, if self.live.is_empty() { 0 } else { 2 * self.live.len() - 1 });
        assert!(
            stats.sah_cost.is_finite(),
            "SAH cost {} with options {:?}, root {:?}",
            stats.sah_cost,
            self.tree.options(),
            self.tree.root_aabb()
        );
        // The one-pass measure sums the same areas in another order.
        let cost = self.tree.sah_cost();
        assert!((cost - stats.sah_cost).abs() <= 1e-9 * stats.sah_cost, "sah_cost {cost} vs {}", stats.sah_cost);
        self.bf.validate().unwrap_or_else(|e| panic!("brute force: {e}"));
        for s in &self.sap {
            s.validate().unwrap_or_else(|e| panic!("sweep and prune: {e}"));
        }
        for &(id, tight, data) in &self.live {
            let fat = self.tree.fat_aabb(id).expect("live");
            assert!(fat.contains_aabb(&tight), "fat box {fat:?} does not contain {tight:?}");
            assert_eq!(self.tree.get(id), Some(&data));
            assert_eq!(self.bf.aabb(id), Some(tight));
        }
        let tight = oracle_pairs(self.live.iter().map(|l| (l.0, l.1)));
        assert_eq!(sorted(pairs_of(&self.bf)), tight, "BruteForce pairs");
        for s in &self.sap {
            assert_eq!(sorted(pairs_of(s)), tight, "sweep-and-prune pairs != brute force");
        }
        let fat = oracle_pairs(self.live.iter().map(|l| (l.0, self.tree.fat_aabb(l.0).expect("live"))));
        let tree_pairs = pairs_of(&self.tree);
        assert_eq!(sorted(tree_pairs.clone()), fat, "tree pairs != brute force over its fat boxes");
        assert!(tight.iter().all(|p| fat.binary_search(p).is_ok()), "a tight pair is missing from the tree");
        assert_eq!(tree_pairs, fat, "tree pairs are not sorted (min, max)");
    }
}

#[cfg(feature = "parallel")]
fn update_parallel(t: &mut PairTracker<u32>) -> Vec<PairEvent> {
    t.update_parallel().to_vec()
}

#[cfg(not(feature = "parallel"))]
fn update_parallel(t: &mut PairTracker<u32>) -> Vec<PairEvent> {
    t.update().to_vec()
}
