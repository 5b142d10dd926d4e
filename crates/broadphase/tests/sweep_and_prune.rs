//! `SweepAndPrune`, both modes, against the brute-force oracle and parry3d.

mod common_bp;

use common_bp::{parry_pairs, random_box, random_step, translated};
use core::ops::ControlFlow;
use proxima_broadphase::{BroadPhase, BruteForce, Pair, ProxyId, RayControl, SapMode, SweepAndPrune};
use proxima_narrowphase::{Aabb, Point, Ray, Real, Vector};
use proxima_test_support::{gen, rng, scene, Rng};

/// BruteForce and SAP receive the same operations, so their ids match.
struct Mirror {
    sap: SweepAndPrune<u32>,
    bf: BruteForce<u32>,
    ids: Vec<ProxyId>,
    boxes: Vec<Aabb>,
}

impl Mirror {
    fn new(mode: SapMode) -> Self {
        Self { sap: SweepAndPrune::new(mode), bf: BruteForce::new(), ids: Vec::new(), boxes: Vec::new() }
    }

    fn step(&mut self, rng: &mut impl Rng, side: Real, stretched: bool) {
        let roll: f64 = rng.random();
        if self.ids.is_empty() || (roll < 0.3 && self.ids.len() < 250) {
            let mut b = random_box(rng, side, 0.05, 2.0);
            if stretched {
                // Spread along y: the Rebuild mode should pick y.
                b = Aabb::new(
                    Point::new(b.min().x, b.min().y * 10.0, b.min().z),
                    Point::new(b.max().x, b.min().y * 10.0 + 2.0, b.max().z),
                );
            }
            let id = self.sap.insert(b, 0);
            assert_eq!(self.bf.insert(b, 0), id);
            self.ids.push(id);
            self.boxes.push(b);
        } else if roll < 0.45 {
            let i = rng.random_range(0..self.ids.len());
            let id = self.ids.swap_remove(i);
            self.boxes.swap_remove(i);
            self.sap.remove(id).unwrap();
            self.bf.remove(id).unwrap();
            assert!(self.sap.remove(id).is_err());
        } else {
            let i = rng.random_range(0..self.ids.len());
            let step = if rng.random_bool(0.8) { 0.3 } else { 5.0 };
            let d = random_step(rng, step);
            self.boxes[i] = translated(&self.boxes[i], &d);
            self.sap.move_proxy(self.ids[i], self.boxes[i], Vector::zeros()).unwrap();
            self.bf.move_proxy(self.ids[i], self.boxes[i], Vector::zeros()).unwrap();
        }
    }

    fn check_pairs(&self) -> usize {
        let (mut got, mut want): (Vec<Pair>, Vec<Pair>) = (Vec::new(), Vec::new());
        self.sap.pairs_into(&mut got);
        self.bf.pairs_into(&mut want);
        assert_eq!(got, want);
        got.len()
    }
}

#[test]
fn random_sequences_match_brute_force_in_both_modes() {
    for (seed, mode) in
        [(1u64, SapMode::Rebuild), (2, SapMode::Persistent), (3, SapMode::Rebuild), (4, SapMode::Persistent)]
    {
        let mut rng = rng(seed);
        let mut m = Mirror::new(mode);
        let mut with_pairs = 0;
        for step in 0..2500 {
            // Several edits per frame, then one update.
            for _ in 0..rng.random_range(1..6) {
                m.step(&mut rng, 25.0, seed > 2);
            }
            if step % 5 == 0 {
                // Queries on a stale order must be exact too.
                assert!(m.sap.is_dirty());
                m.check_pairs();
            }
            m.sap.update();
            m.sap.validate().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            with_pairs += usize::from(m.check_pairs() > 0);
        }
        assert!(with_pairs > 1000, "{with_pairs} of 2500 frames had pairs");
        if seed > 2 && mode == SapMode::Rebuild {
            assert_eq!(m.sap.axis(), 1, "the stretched scene spreads along y");
        }
    }
}

#[test]
fn box_and_ray_queries_match_brute_force() {
    let mut rng = rng(11);
    for mode in [SapMode::Rebuild, SapMode::Persistent] {
        let mut m = Mirror::new(mode);
        for _ in 0..600 {
            m.step(&mut rng, 40.0, false);
        }
        for dirty in [true, false] {
            if !dirty {
                m.sap.update();
            }
            let mut hits = 0;
            for _ in 0..500 {
                let probe = random_box(&mut rng, 40.0, 0.0, 4.0);
                let (mut got, mut want) = (Vec::new(), Vec::new());
                let _ = m.sap.visit_overlaps(&probe, |id| {
                    got.push(id);
                    ControlFlow::Continue(())
                });
                let _ = m.bf.visit_overlaps(&probe, |id| {
                    want.push(id);
                    ControlFlow::Continue(())
                });
                got.sort_unstable();
                assert_eq!(got, want);
                hits += usize::from(!got.is_empty());
                let ray = Ray::new(
                    Point::new(rng.random_range(0.0..40.0), -5.0, rng.random_range(0.0..40.0)),
                    gen::unit_vector(&mut rng),
                    60.0,
                );
                let mut rg: Vec<(ProxyId, Real)> = Vec::new();
                let mut rw: Vec<(ProxyId, Real)> = Vec::new();
                m.sap.visit_ray(&ray, |id, t| {
                    rg.push((id, t));
                    RayControl::Continue
                });
                m.bf.visit_ray(&ray, |id, t| {
                    rw.push((id, t));
                    RayControl::Continue
                });
                rg.sort_by_key(|h| h.0);
                assert_eq!(rg, rw);
            }
            assert!((50..450).contains(&hits), "{hits} of 500 probes hit");
        }
    }
}

#[test]
fn touching_intervals_overlap() {
    let mut sap = SweepAndPrune::new(SapMode::Persistent);
    let a = sap.insert(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0)), ());
    let b = sap.insert(Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(2.0, 1.0, 1.0)), ()); // touches a in x
    let c = sap.insert(Aabb::new(Point::new(1.0, 1.0, 0.0), Point::new(2.0, 2.0, 1.0)), ()); // touches b in y, a at an edge
    sap.update();
    let mut pairs = Vec::new();
    sap.pairs_into(&mut pairs);
    assert_eq!(pairs, vec![(a, b), (a, c), (b, c)]);
}

#[test]
fn self_pairs_match_parry3d() {
    for (n, dense, seed) in [(3000, false, 21), (3000, true, 22), (10_000, true, 23)] {
        let boxes = scene::boxes(n, dense, seed);
        for mode in [SapMode::Rebuild, SapMode::Persistent] {
            let mut sap = SweepAndPrune::new(mode);
            for b in &boxes {
                sap.insert(*b, ());
            }
            sap.update();
            sap.validate().unwrap();
            let mut pairs = Vec::new();
            sap.pairs_into(&mut pairs);
            let ours: Vec<(usize, usize)> =
                pairs.iter().map(|(a, b)| (a.index() as usize, b.index() as usize)).collect();
            assert_eq!(ours, parry_pairs(&boxes), "n {n} dense {dense} {mode:?}");
        }
    }
}

/// Coherent motion: persistent mode repairs the order frame after frame.
#[test]
fn persistent_mode_follows_coherent_motion() {
    let boxes = scene::boxes(4000, true, 9);
    let mut rng = rng(10);
    let mut sap = SweepAndPrune::new(SapMode::Persistent);
    let mut bf = BruteForce::new();
    let ids: Vec<ProxyId> = boxes
        .iter()
        .map(|b| {
            bf.insert(*b, ());
            sap.insert(*b, ())
        })
        .collect();
    let mut cur = boxes.clone();
    sap.update();
    for _ in 0..30 {
        for (i, d) in scene::moves(cur.len(), 0.3, 0.2, &mut rng) {
            cur[i] = translated(&cur[i], &d);
            sap.move_proxy(ids[i], cur[i], Vector::zeros()).unwrap();
            bf.move_proxy(ids[i], cur[i], Vector::zeros()).unwrap();
        }
        sap.update();
        sap.validate().unwrap();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        sap.pairs_into(&mut got);
        bf.pairs_into(&mut want);
        assert_eq!(got, want);
    }
    let _ = Vector::zeros();
}

#[test]
fn stale_ids_and_huge_boxes() {
    let mut sap = SweepAndPrune::new(SapMode::Rebuild);
    let mut bf = BruteForce::new();
    let mut rng = rng(12);
    let mut ids = Vec::new();
    for i in 0..300 {
        let b = match i % 20 {
            0 => Aabb::new(Point::new(-3.0e38, -3.0e38, -3.0e38), Point::new(3.0e38, 3.0e38, 3.0e38)),
            1 => Aabb::try_from_center(Point::new(1e30, 0.0, -1e30), Vector::repeat(1e30)).unwrap(),
            _ => random_box(&mut rng, 50.0, 0.1, 1.0),
        };
        bf.insert(b, ());
        ids.push(sap.insert(b, ()));
    }
    sap.update();
    sap.validate().unwrap();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    sap.pairs_into(&mut got);
    bf.pairs_into(&mut want);
    assert_eq!(got, want);
    let gone = ids[3];
    sap.remove(gone).unwrap();
    sap.update();
    let before = sap.validate().unwrap();
    let err = proxima_broadphase::BroadPhaseError::StaleId(gone);
    assert_eq!(sap.remove(gone), Err(err));
    assert_eq!(sap.move_proxy(gone, Aabb::new(Point::origin(), Point::origin()), Vector::zeros()), Err(err));
    assert_eq!(sap.aabb(gone), None);
    assert!(!sap.is_dirty(), "a rejected call changes nothing");
    assert_eq!(sap.validate().unwrap(), before);
}
