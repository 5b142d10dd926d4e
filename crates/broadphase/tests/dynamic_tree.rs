//! `DynamicTree` against the brute-force oracle and parry3d.

mod common_bp;

use common_bp::{parry_pairs, random_box, random_step, translated};
use core::ops::ControlFlow;
use proxima_broadphase::{BroadPhase, BruteForce, DynamicTree, FatBoxOptions, Pair, ProxyId, RayControl};
use proxima_narrowphase::{Aabb, Point, Ray, Real, Vector};
use proxima_test_support::{gen, rng, scene, Rng};

/// The oracle for a tree: a `BruteForce` holding each proxy's fat box.
fn oracle_of(tree: &DynamicTree<u32>) -> BruteForce<ProxyId> {
    let mut bf = BruteForce::new();
    for (id, fat, _) in tree.iter() {
        bf.insert(*fat, id);
    }
    bf
}

/// The oracle's pairs mapped back to tree ids, canonical and sorted.
fn oracle_pairs(bf: &BruteForce<ProxyId>) -> Vec<Pair> {
    let mut raw = Vec::new();
    bf.pairs_into(&mut raw);
    let mut pairs: Vec<Pair> = raw
        .iter()
        .map(|&(a, b)| proxima_broadphase::canonical_pair(*bf.get(a).unwrap(), *bf.get(b).unwrap()))
        .collect();
    pairs.sort_unstable();
    pairs
}

/// One random step of insert / remove / move on `tree` and its mirror of tight boxes.
fn random_step_on(tree: &mut DynamicTree<u32>, tight: &mut Vec<(ProxyId, Aabb)>, rng: &mut impl Rng, side: Real) {
    let roll: f64 = rng.random();
    if tight.is_empty() || (roll < 0.35 && tight.len() < 300) {
        let aabb = random_box(rng, side, 0.05, 2.0);
        let id = tree.insert(aabb, tight.len() as u32);
        // The fat box of a fresh proxy is the tight box grown by the margin.
        assert_eq!(tree.fat_aabb(id), Some(aabb.loosened(tree.options().margin)));
        tight.push((id, aabb));
    } else if roll < 0.5 {
        let i = rng.random_range(0..tight.len());
        let (id, _) = tight.swap_remove(i);
        assert!(tree.remove(id).is_ok());
        assert!(tree.remove(id).is_err(), "a removed id must be stale");
    } else {
        let i = rng.random_range(0..tight.len());
        let (id, old) = tight[i];
        // Small steps mostly stay in the fat box; big ones leave it.
        let step = if rng.random_bool(0.5) { 0.05 } else { 3.0 };
        let d = random_step(rng, step);
        let new = translated(&old, &d);
        let fat_before = tree.fat_aabb(id).unwrap();
        let reinserted = tree.move_proxy(id, new, d).unwrap();
        let fat_after = tree.fat_aabb(id).unwrap();
        assert_eq!(reinserted, !fat_before.contains_aabb(&new), "re-insert iff the tight box left the fat box");
        if !reinserted {
            assert_eq!(fat_after, fat_before);
        } else {
            assert!(fat_after.contains_aabb(&new.loosened(tree.options().margin)));
        }
        tight[i].1 = new;
    }
}

#[test]
fn random_sequences_match_brute_force_after_every_step() {
    let mut hits = 0usize;
    let mut total = 0usize;
    for seed in 0..6u64 {
        let mut rng = rng(1000 + seed);
        let options =
            if seed % 2 == 0 { FatBoxOptions::default() } else { FatBoxOptions { margin: 0.0, prediction: 0.0 } };
        let mut tree = DynamicTree::new_with(options).unwrap();
        let mut tight = Vec::new();
        let side = if seed < 3 { 20.0 } else { 60.0 };
        let mut pairs = Vec::new();
        for step in 0..2500 {
            random_step_on(&mut tree, &mut tight, &mut rng, side);
            let stats = tree.validate().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            assert_eq!(stats.leaves, tight.len());
            assert_eq!(stats.nodes, (2 * tight.len()).saturating_sub(1));
            for (id, t) in &tight {
                assert!(tree.fat_aabb(*id).unwrap().contains_aabb(t), "fat box must contain the tight box");
            }
            let bf = oracle_of(&tree);
            tree.pairs_into(&mut pairs);
            let expected = oracle_pairs(&bf);
            assert_eq!(pairs, expected, "seed {seed} step {step}");
            total += 1;
            hits += usize::from(!pairs.is_empty());
        }
    }
    // The scenes must produce pairs in a good share of steps, or the test is vacuous.
    assert!(hits * 10 > total * 5, "only {hits}/{total} steps had pairs");
}

#[test]
fn box_and_ray_queries_match_brute_force() {
    let mut rng = rng(77);
    let mut tree = DynamicTree::new();
    for i in 0..2000u32 {
        tree.insert(random_box(&mut rng, 50.0, 0.1, 2.0), i);
    }
    // Remove a third and move a third, so the tree has been edited (steps
    // of up to 1 per axis: the default prediction stretches a fat box by 4
    // steps, and longer jumps would crowd the world until nearly every probe
    // hits).
    let ids: Vec<ProxyId> = tree.iter().map(|(id, _, _)| id).collect();
    for (k, id) in ids.iter().enumerate() {
        match k % 3 {
            0 => {
                tree.remove(*id).unwrap();
            }
            1 => {
                let d = random_step(&mut rng, 1.0);
                let moved = translated(&tree.fat_aabb(*id).unwrap(), &d);
                tree.move_proxy(*id, moved, d).unwrap();
            }
            _ => {}
        }
    }
    tree.validate().unwrap();
    let bf = oracle_of(&tree);
    let (mut nonempty, mut ray_hits) = (0, 0);
    const CASES: usize = 200_000;
    for _ in 0..CASES {
        let probe = random_box(&mut rng, 50.0, 0.0, 1.5);
        let mut got: Vec<ProxyId> = tree.overlaps(&probe).collect();
        got.sort_unstable();
        let mut want = Vec::new();
        let _ = bf.visit_overlaps(&probe, |id| {
            want.push(*bf.get(id).unwrap());
            ControlFlow::Continue(())
        });
        want.sort_unstable();
        assert_eq!(got, want);
        nonempty += usize::from(!got.is_empty());
        // The visitor's early out stops after one hit.
        let mut seen = 0;
        let flow = tree.visit_overlaps(&probe, |_| {
            seen += 1;
            ControlFlow::Break(())
        });
        assert_eq!(seen, usize::from(!got.is_empty()));
        assert_eq!(flow.is_break(), !got.is_empty());

        // Rays: every entered leaf, and the closest hit with clipping.
        let origin =
            Point::new(rng.random_range(-5.0..55.0), rng.random_range(-5.0..55.0), rng.random_range(-5.0..55.0));
        let dir = gen::unit_vector(&mut rng);
        let ray = Ray::new(origin, dir, rng.random_range(1.0..80.0));
        let mut all_tree: Vec<(ProxyId, Real)> = Vec::new();
        tree.visit_ray(&ray, |id, t| {
            all_tree.push((id, t));
            RayControl::Continue
        });
        let mut all_bf: Vec<(ProxyId, Real)> = Vec::new();
        bf.visit_ray(&ray, |id, t| {
            all_bf.push((*bf.get(id).unwrap(), t));
            RayControl::Continue
        });
        all_tree.sort_by_key(|h| h.0);
        all_bf.sort_by_key(|h| h.0);
        // Same slab test on the same boxes: entry tois are bit-identical.
        assert_eq!(all_tree, all_bf);
        ray_hits += usize::from(!all_bf.is_empty());
        let closest_bf = all_bf.iter().map(|h| h.1).fold(Real::INFINITY, Real::min);
        let mut closest = Real::INFINITY;
        tree.visit_ray(&ray, |_, t| {
            assert!(t <= closest, "after a clip only nearer entries are reported");
            closest = closest.min(t);
            RayControl::Clip(t)
        });
        assert_eq!(closest, closest_bf);
        let mut stops = 0;
        tree.visit_ray(&ray, |_, _| {
            stops += 1;
            RayControl::Stop
        });
        assert_eq!(stops, usize::from(!all_bf.is_empty()));
    }
    // Both branches exercised: some probes and rays hit, some miss (30-70% target band widened to 10-90%).
    assert!((CASES / 10..CASES * 9 / 10).contains(&nonempty), "{nonempty} of {CASES} probes hit");
    assert!((CASES / 10..CASES * 9 / 10).contains(&ray_hits), "{ray_hits} of {CASES} rays hit");
}

#[test]
fn touching_boxes_overlap() {
    let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
    let a = tree.insert(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0)), ());
    let b = tree.insert(Aabb::new(Point::new(1.0, 1.0, 1.0), Point::new(2.0, 2.0, 2.0)), ()); // corner contact
    let c = tree.insert(Aabb::new(Point::new(2.0 + 1e-6, 0.0, 0.0), Point::new(3.0, 1.0, 1.0)), ()); // gap
    let mut pairs = Vec::new();
    tree.pairs_into(&mut pairs);
    assert_eq!(pairs, vec![(a, b)]);
    let flat = Aabb::new(Point::new(1.0, 0.5, 0.5), Point::new(1.0, 0.5, 0.5)); // a point on a's face
    let mut got: Vec<_> = tree.overlaps(&flat).collect();
    got.sort();
    assert_eq!(got, vec![a]);
    let _ = c;
}

/// Self pairs of the scenes equal parry3d's `Bvh` pairs on the same boxes.
#[test]
fn self_pairs_match_parry3d() {
    for (n, dense, seed) in [(3000, false, 1), (3000, true, 2), (20_000, true, 3), (20_000, false, 4)] {
        let boxes = scene::boxes(n, dense, seed);
        let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
        let ids: Vec<ProxyId> = boxes.iter().map(|b| tree.insert(*b, ())).collect();
        // Fresh slots are handed out in order, so id index == box index.
        assert!(ids.iter().enumerate().all(|(i, id)| id.index() as usize == i));
        let stats = tree.validate().unwrap();
        let mut pairs = Vec::new();
        tree.pairs_into(&mut pairs);
        let ours: Vec<(usize, usize)> = pairs.iter().map(|(a, b)| (a.index() as usize, b.index() as usize)).collect();
        let theirs = parry_pairs(&boxes);
        assert_eq!(ours, theirs, "n {n} dense {dense}");
        assert!(!theirs.is_empty());
        // The unsorted list holds the same pairs, each once, and is the same
        // list on every call.
        let mut unsorted = Vec::new();
        tree.pairs_unsorted_into(&mut unsorted);
        let mut again = Vec::new();
        tree.pairs_unsorted_into(&mut again);
        assert_eq!(unsorted, again);
        unsorted.sort_unstable();
        assert_eq!(unsorted, pairs);
        // SAH insertion with rotations keeps the tree shallow: a balanced tree
        // has height log2(n); allow 3x that.
        assert!(stats.height as f64 <= 3.0 * (n as f64).log2(), "height {}", stats.height);
    }
}

#[test]
fn huge_boxes_are_handled() {
    let mut rng = rng(5);
    let mut tree = DynamicTree::new();
    let mut ids = Vec::new();
    for i in 0..400u32 {
        let aabb = match i % 10 {
            // Extents of 1e30: surface areas of ~1e61 overflow f32, not f64.
            0 => {
                Aabb::try_from_center(gen::point(&mut rng, &gen::Placement::new(1e30, 0.0, 0.0)), Vector::repeat(1e30))
                    .unwrap()
            }
            // Corners at the edge of the f32 range: extents of 6.8e38 overflow f32.
            1 => Aabb::new(Point::new(-3.0e38, -3.0e38, -3.0e38), Point::new(3.0e38, 3.0e38, 3.0e38)),
            _ => random_box(&mut rng, 100.0, 0.1, 1.0),
        };
        ids.push(tree.insert(aabb, i));
    }
    let stats = tree.validate().unwrap();
    assert!(stats.sah_cost.is_finite());
    // A huge displacement: the prediction would overflow, so the margin alone is used.
    let id = ids[5];
    let moved = Aabb::new(Point::new(3.0e38, 0.0, 0.0), Point::new(3.1e38, 1.0, 1.0));
    assert_eq!(tree.move_proxy(id, moved, Vector::new(3.0e38, 0.0, 0.0)), Ok(true));
    assert!(tree.fat_aabb(id).unwrap().contains_aabb(&moved));
    for k in 0..200 {
        let id = ids[(k * 7) % ids.len()];
        let d = random_step(&mut rng, 1e29);
        let moved = translated(&tree.fat_aabb(id).unwrap(), &d);
        tree.move_proxy(id, moved, d).unwrap();
    }
    tree.validate().unwrap();
    let mut pairs = Vec::new();
    tree.pairs_into(&mut pairs);
    assert_eq!(pairs, oracle_pairs(&oracle_of(&tree)));
}

#[test]
fn stale_ids_are_rejected_without_change() {
    let mut tree = DynamicTree::new();
    let a = tree.insert(Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0)), 1);
    let b = tree.insert(Aabb::new(Point::origin(), Point::new(2.0, 1.0, 1.0)), 2);
    assert_eq!(tree.remove(a), Ok(1));
    // The slot of `a` is reused with a new generation.
    let c = tree.insert(Aabb::new(Point::new(5.0, 5.0, 5.0), Point::new(6.0, 6.0, 6.0)), 3);
    assert_eq!(c.index(), a.index());
    assert_ne!(c.generation(), a.generation());
    let before = tree.validate().unwrap();
    let box_c = tree.fat_aabb(c);
    let stale = proxima_broadphase::BroadPhaseError::StaleId(a);
    assert_eq!(tree.remove(a), Err(stale));
    assert_eq!(tree.move_proxy(a, Aabb::new(Point::origin(), Point::origin()), Vector::zeros()), Err(stale));
    assert_eq!(tree.get(a), None);
    assert_eq!(tree.fat_aabb(a), None);
    assert!(!tree.contains(a));
    // Never-issued ids too.
    let bogus = ProxyId::new(1000, 0);
    assert!(tree.remove(bogus).is_err());
    assert_eq!(tree.validate().unwrap(), before);
    assert_eq!(tree.fat_aabb(c), box_c);
    assert_eq!(tree.get(c), Some(&3));
    assert_eq!(tree.get(b), Some(&2));
}

#[test]
fn same_sequence_gives_same_tree_and_pairs() {
    let run = || {
        let mut rng = rng(99);
        let mut tree = DynamicTree::new();
        let mut tight = Vec::new();
        for _ in 0..3000 {
            random_step_on(&mut tree, &mut tight, &mut rng, 30.0);
        }
        let mut pairs = Vec::new();
        tree.pairs_into(&mut pairs);
        (pairs, tree.validate().unwrap())
    };
    let (p1, s1) = run();
    let (p2, s2) = run();
    assert_eq!(p1, p2);
    assert_eq!(s1, s2);
}

#[test]
fn memory_per_proxy_is_reported() {
    let boxes = scene::boxes(10_000, false, 8);
    let mut tree = DynamicTree::new();
    for b in &boxes {
        tree.insert(*b, ());
    }
    // Two 32-byte nodes per proxy plus a 16-byte slot-map entry and a 4-byte
    // generation: 84 bytes, plus up to 2x Vec growth slack on each part.
    let per_proxy = tree.bytes_per_proxy();
    assert!((84.0..=2.0 * 84.0).contains(&per_proxy), "{per_proxy} bytes per proxy");
}

#[test]
fn rebuild_keeps_proxies_and_pairs() {
    let mut rng = rng(31);
    let mut tree = DynamicTree::new();
    let mut tight = Vec::new();
    for _ in 0..4000 {
        random_step_on(&mut tree, &mut tight, &mut rng, 25.0);
    }
    let mut before = Vec::new();
    tree.pairs_into(&mut before);
    let fat_before: Vec<_> = tree.iter().map(|(id, fat, data)| (id, *fat, *data)).collect();
    let worn = tree.validate().unwrap();
    tree.rebuild();
    let rebuilt = tree.validate().unwrap();
    assert_eq!(rebuilt.leaves, worn.leaves);
    assert_eq!(rebuilt.nodes, worn.nodes);
    let fat_after: Vec<_> = tree.iter().map(|(id, fat, data)| (id, *fat, *data)).collect();
    assert_eq!(fat_before, fat_after);
    let mut after = Vec::new();
    tree.pairs_into(&mut after);
    assert_eq!(before, after);
    // The tree keeps working after a rebuild.
    for _ in 0..500 {
        random_step_on(&mut tree, &mut tight, &mut rng, 25.0);
        tree.validate().unwrap();
    }
    tree.pairs_into(&mut after);
    assert_eq!(after, oracle_pairs(&oracle_of(&tree)));
    // Degenerate inputs: all boxes identical (centres coincide on every axis).
    let mut same = DynamicTree::new();
    let b = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    for i in 0..100u32 {
        same.insert(b, i);
    }
    same.rebuild();
    assert_eq!(same.validate().unwrap().height, 7, "median splits of 100 equal boxes give a balanced tree");
    let mut pairs = Vec::new();
    same.pairs_into(&mut pairs);
    assert_eq!(pairs.len(), 100 * 99 / 2);
    // Empty and single-proxy trees.
    let mut empty: DynamicTree<()> = DynamicTree::new();
    empty.rebuild();
    assert_eq!(empty.validate().unwrap().leaves, 0);
    let mut one = DynamicTree::new();
    one.insert(b, ());
    one.rebuild();
    assert_eq!(one.validate().unwrap().nodes, 1);
}

/// `cast_ray_closest` with an exact test on the tight boxes equals the
/// minimum over all boxes of `cast_ray_aabb` (same f32 kernel: exact equality).
#[test]
fn cast_ray_closest_matches_brute_force() {
    let mut rng = rng(606);
    let tight: Vec<Aabb> = (0..3000).map(|_| random_box(&mut rng, 40.0, 0.1, 1.5)).collect();
    let mut tree = DynamicTree::new();
    let ids: Vec<ProxyId> = tight.iter().enumerate().map(|(i, b)| tree.insert(*b, i)).collect();
    let mut hits = 0;
    for _ in 0..20_000 {
        let origin =
            Point::new(rng.random_range(-5.0..45.0), rng.random_range(-5.0..45.0), rng.random_range(-5.0..45.0));
        let ray = Ray::new(origin, gen::unit_vector(&mut rng), rng.random_range(0.5..30.0));
        let got = tree.cast_ray_closest(&ray, |id, r| {
            let i = *tree.get(id).unwrap();
            proxima_narrowphase::cast_ray_aabb(r, &tight[i]).map(|h| h.toi)
        });
        let want = tight
            .iter()
            .enumerate()
            .filter_map(|(i, b)| proxima_narrowphase::cast_ray_aabb(&ray, b).map(|h| (i, h.toi)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match (got, want) {
            (None, None) => {}
            (Some(g), Some((i, toi))) => {
                assert_eq!(g.toi, toi);
                // Ties (two boxes entered at the same toi) may pick either.
                let gi = *tree.get(g.id).unwrap();
                assert!(gi == i || proxima_narrowphase::cast_ray_aabb(&ray, &tight[gi]).map(|h| h.toi) == Some(toi));
                assert!(ids.contains(&g.id));
                hits += 1;
            }
            (g, w) => panic!("tree {g:?} vs brute force {w:?}"),
        }
    }
    assert!((2_000..18_000).contains(&hits), "{hits} of 20000 rays hit");
}

/// Insertion quality: the SAH cost of a tree built by SAH insertion with
/// rotations stays within 1.8x of a binned-SAH rebuild of the same leaves
/// (measured: about 1.4x on this scene; a tie-breaking regression once made it 2.2x).
#[test]
fn insertion_quality_is_close_to_a_rebuild() {
    for dense in [false, true] {
        let boxes = scene::boxes(20_000, dense, 17);
        let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
        for b in &boxes {
            tree.insert(*b, ());
        }
        let inserted = tree.validate().unwrap().sah_cost;
        tree.rebuild();
        let rebuilt = tree.validate().unwrap().sah_cost;
        assert!(inserted < 1.8 * rebuilt, "dense {dense}: inserted {inserted}, rebuilt {rebuilt}");
    }
}
