//! `DynamicTree`'s loose maintenance (`enlarge_proxy`, `refit_path`,
//! `refit`) against `move_proxy` and the brute-force oracle: the same
//! random insert / remove / move sequences run on a tree that re-inserts
//! and on one that grows in place, and after every step both hold the same
//! fat boxes, answer every box query and the pair search as brute force does
//! over those boxes, and pass validation (containment while loose, exact
//! unions after `refit`).

mod common_bp;

use common_bp::{random_box, random_step, translated};
use core::ops::ControlFlow;
use proxima_broadphase::{BroadPhase, BroadPhaseError, BruteForce, DynamicTree, FatBoxOptions, ProxyId};
use proxima_narrowphase::{Aabb, Point, Real, Vector};
use proxima_test_support::{rng, Rng};

/// The ids whose fat box overlaps `probe`, by brute force over `tree`'s fat boxes.
fn brute_overlaps(tree: &DynamicTree<u32>, probe: &Aabb) -> Vec<ProxyId> {
    let mut bf = BruteForce::new();
    for (id, fat, _) in tree.iter() {
        bf.insert(*fat, id);
    }
    let mut want = Vec::new();
    let _ = bf.visit_overlaps(probe, |id| {
        want.push(*bf.get(id).unwrap());
        ControlFlow::Continue(())
    });
    want.sort_unstable();
    want
}

fn sorted_overlaps(tree: &DynamicTree<u32>, probe: &Aabb) -> Vec<ProxyId> {
    let mut got: Vec<ProxyId> = tree.overlaps(probe).collect();
    got.sort_unstable();
    got
}

/// The union of every fat box (what a tight root holds).
fn union_of_fat_boxes(tree: &DynamicTree<u32>) -> Option<Aabb> {
    tree.iter().map(|(_, fat, _)| *fat).reduce(|a, b| a.merged(&b))
}

#[test]
fn growing_in_place_matches_reinsertion_and_brute_force() {
    let mut probes_hit = 0usize;
    for seed in 0..6u64 {
        let mut rng = rng(4200 + seed);
        let options = if seed % 2 == 0 { FatBoxOptions::default() } else { FatBoxOptions::TIGHT };
        let mut moved = DynamicTree::new_with(options).unwrap();
        let mut grown = DynamicTree::new_with(options).unwrap();
        // (id in `moved`, id in `grown`, tight box): the two trees hand out the same ids.
        let mut tight: Vec<(ProxyId, Aabb)> = Vec::new();
        let mut enlarged: Vec<ProxyId> = Vec::new();
        let side = if seed < 3 { 20.0 } else { 80.0 };
        let mut pairs = (Vec::new(), Vec::new());
        for step in 0..3000 {
            let roll: f64 = rng.random();
            if tight.is_empty() || (roll < 0.2 && tight.len() < 250) {
                let aabb = random_box(&mut rng, side, 0.05, 2.0);
                let id = moved.insert(aabb, step);
                assert_eq!(grown.insert(aabb, step), id);
                tight.push((id, aabb));
            } else if roll < 0.28 {
                let (id, _) = tight.swap_remove(rng.random_range(0..tight.len()));
                assert_eq!(moved.remove(id), grown.remove(id));
                assert_eq!(grown.refit_path(id), Err(BroadPhaseError::StaleId(id)));
            } else {
                let i = rng.random_range(0..tight.len());
                let (id, old) = tight[i];
                // Small slides, long ones, and now and then a teleport across the world.
                let step_len = match rng.random_range(0..10) {
                    0 => side,
                    1..=4 => 2.0,
                    _ => 0.1,
                };
                let d = random_step(&mut rng, step_len);
                let new = translated(&old, &d);
                let left = moved.move_proxy(id, new, d).unwrap();
                assert_eq!(grown.enlarge_proxy(id, new, d), Ok(left), "seed {seed} step {step}");
                if left {
                    enlarged.push(id);
                }
                tight[i].1 = new;
            }
            for (id, t) in &tight {
                let fat = grown.fat_aabb(*id).unwrap();
                assert_eq!(Some(fat), moved.fat_aabb(*id), "the same fat box either way");
                assert!(fat.contains_aabb(t));
            }
            grown.validate().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            let probe = random_box(&mut rng, side, 0.0, 4.0);
            let want = brute_overlaps(&grown, &probe);
            assert_eq!(sorted_overlaps(&grown, &probe), want, "seed {seed} step {step}");
            probes_hit += usize::from(!want.is_empty());
            grown.pairs_into(&mut pairs.0);
            moved.pairs_into(&mut pairs.1);
            assert_eq!(pairs.0, pairs.1, "seed {seed} step {step}");
            // Now and then tighten: the paths of the enlarged proxies, or everything.
            match step % 97 {
                0 => {
                    grown.refit();
                    let stats = grown.validate().unwrap_or_else(|e| panic!("after refit: {e}"));
                    let cost = grown.sah_cost();
                    assert!((stats.sah_cost - cost).abs() <= 1e-9 * cost, "{cost} vs {}", stats.sah_cost);
                    assert_eq!(grown.root_aabb(), union_of_fat_boxes(&grown));
                    enlarged.clear();
                }
                50 => {
                    for id in enlarged.drain(..) {
                        let _ = grown.refit_path(id);
                    }
                    grown.validate().unwrap();
                }
                _ => {}
            }
        }
    }
    assert!(probes_hit > 3000, "probes must find boxes in a good share of steps ({probes_hit})");
}

#[test]
fn refit_paths_tighten_the_root_without_a_whole_refit() {
    let mut rng = rng(99);
    let mut tree = DynamicTree::new();
    let ids: Vec<ProxyId> = (0..500).map(|i| tree.insert(random_box(&mut rng, 40.0, 0.1, 1.0), i)).collect();
    tree.rebuild();
    // A quarter of the proxies slide far, growing their ancestors.
    let mut enlarged = Vec::new();
    for id in ids.iter().step_by(4) {
        let d = random_step(&mut rng, 10.0);
        let new = translated(&tree.fat_aabb(*id).unwrap(), &d);
        if tree.enlarge_proxy(*id, new, d).unwrap() {
            enlarged.push(*id);
        }
    }
    assert!(enlarged.len() > 100);
    let loose = tree.validate().unwrap().sah_cost;
    for id in &enlarged {
        tree.refit_path(*id).unwrap();
    }
    assert_eq!(tree.root_aabb(), union_of_fat_boxes(&tree));
    let after_paths = tree.validate().unwrap().sah_cost;
    assert!(after_paths < loose, "the moves loosened boxes: {after_paths} vs {loose}");
    // Every box is tight already: a whole refit changes no box, so the
    // validation walk sums the very same areas.
    tree.refit();
    assert_eq!(tree.validate().unwrap().sah_cost, after_paths);
}

#[test]
fn enlarge_rejects_stale_ids_and_bad_displacements_and_changes_nothing() {
    let mut tree = DynamicTree::new();
    let unit = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let a = tree.insert(unit, 0u32);
    let b = tree.insert(translated(&unit, &Vector::new(5.0, 0.0, 0.0)), 1);
    let far = translated(&unit, &Vector::new(20.0, 0.0, 0.0));
    let before: Vec<(ProxyId, Aabb)> = tree.iter().map(|(id, fat, _)| (id, *fat)).collect();
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        assert_eq!(tree.enlarge_proxy(a, far, Vector::new(bad, 0.0, 0.0)), Err(BroadPhaseError::InvalidDisplacement));
    }
    tree.remove(b).unwrap();
    assert_eq!(tree.enlarge_proxy(b, far, Vector::zeros()), Err(BroadPhaseError::StaleId(b)));
    let after: Vec<(ProxyId, Aabb)> = tree.iter().map(|(id, fat, _)| (id, *fat)).collect();
    assert_eq!(after, before[..1]);
    tree.validate().unwrap();
    // A lone proxy is the root: growing it in place leaves the tree tight.
    assert_eq!(tree.enlarge_proxy(a, far, Vector::new(19.0, 0.0, 0.0)), Ok(true));
    assert_eq!(tree.root_aabb(), tree.fat_aabb(a));
    tree.validate().unwrap();
}
