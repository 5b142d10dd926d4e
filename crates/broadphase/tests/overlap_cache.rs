//! `StaticBvh::visit_overlaps_cached` against brute force: random walks of
//! query boxes through seeded scenes, the set of ids equal to a scan of every
//! box at every step, whatever the margin, across refits and across trees.

use core::ops::ControlFlow;
use proxima_broadphase::{InvalidMargin, OverlapCache, StaticBvh};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Point, Vector};
use proxima_test_support::{gen, rng, scene, Rng};

fn cached(bvh: &StaticBvh, cache: &mut OverlapCache, q: &Aabb) -> Vec<u32> {
    let mut ids = Vec::new();
    let _ = bvh.visit_overlaps_cached(cache, q, |id| {
        ids.push(id);
        ControlFlow::Continue(())
    });
    ids.sort_unstable();
    ids
}

fn brute(boxes: &[Aabb], q: &Aabb) -> Vec<u32> {
    (0..boxes.len() as u32).filter(|&i| intersects_aabb_aabb(&boxes[i as usize], q)).collect()
}

fn query_box(c: Point, h: f32) -> Aabb {
    Aabb::try_from_center(c, Vector::repeat(h)).unwrap()
}

/// Walks `walkers` query boxes for `steps` steps through a dense scene (so
/// most queries hit something) and compares every answer with brute force.
fn walk(margin: f32, step_len: f32, seed: u64) -> (usize, u64) {
    let boxes = scene::boxes(2_000, true, seed);
    let side = scene::scene_side(2_000, true);
    let bvh = StaticBvh::build(&boxes);
    let mut r = rng(seed + 100);
    let mut hits = 0;
    let mut refills = 0;
    for _ in 0..20 {
        let mut cache = OverlapCache::new(margin).unwrap();
        let mut c = Point::new(r.random_range(0.0..side), r.random_range(0.0..side), r.random_range(0.0..side));
        let h = r.random_range(0.0..1.5);
        for _ in 0..200 {
            c += gen::unit_vector(&mut r) * r.random_range(0.0..step_len);
            let q = query_box(c, h);
            let got = cached(&bvh, &mut cache, &q);
            assert_eq!(got, brute(&boxes, &q), "margin {margin}, query {q:?}");
            hits += got.len();
        }
        refills += cache.refills();
    }
    (hits, refills)
}

#[test]
fn cached_queries_equal_brute_force_for_every_margin() {
    for (k, margin) in [0.0, 0.1, 0.5, 2.0, 10.0].into_iter().enumerate() {
        let (hits, refills) = walk(margin, 0.4, 7 + k as u64);
        // The walks must exercise hits, and (except with margin 0, where any
        // motion leaves the fat box) reuse the cache between refills.
        assert!(hits > 1_000, "margin {margin}: only {hits} hits");
        assert!(refills <= 20 * 200);
        if margin >= 2.0 {
            assert!(refills < 20 * 200 / 2, "margin {margin}: {refills} refills, the cache is not reused");
        }
    }
}

#[test]
fn a_refit_or_another_tree_refills_the_cache() {
    let mut boxes = scene::boxes(1_000, true, 3);
    let mut bvh = StaticBvh::build(&boxes);
    let q = query_box(Point::from(boxes[10].center().coords), 1.0);
    let mut cache = OverlapCache::new(5.0).unwrap();
    assert_eq!(cached(&bvh, &mut cache, &q), brute(&boxes, &q));
    // Move every box away from the query, refit: the same query box (inside
    // the old fat box) must see the new boxes, not the cached ones.
    for b in &mut boxes {
        *b = Aabb::new(b.min() + Vector::repeat(1e3), b.max() + Vector::repeat(1e3));
    }
    bvh.refit(&boxes).unwrap();
    assert_eq!(cached(&bvh, &mut cache, &q), brute(&boxes, &q));
    assert!(brute(&boxes, &q).is_empty());
    assert_eq!(cache.refills(), 2);
    // The same cache on a different tree.
    let other_boxes = scene::boxes(1_000, true, 4);
    let other = StaticBvh::build(&other_boxes);
    assert_eq!(cached(&other, &mut cache, &q), brute(&other_boxes, &q));
    assert_eq!(cache.refills(), 3);
    // A clone is the same tree: the cache stays valid, and exact.
    let clone = other.clone();
    assert_eq!(cached(&clone, &mut cache, &q), brute(&other_boxes, &q));
    cache.clear();
    assert!(cache.is_empty());
    assert_eq!(cached(&clone, &mut cache, &q), brute(&other_boxes, &q));
}

#[test]
fn bad_margins_are_rejected_and_huge_ones_saturate() {
    for m in [-1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let err = OverlapCache::new(m).unwrap_err();
        assert!(err.0.is_nan() || err == InvalidMargin(m));
    }
    // A margin that overflows the fat box to +-f32::MAX: every box is cached
    // and the answers stay exact.
    let boxes = scene::boxes(500, false, 5);
    let bvh = StaticBvh::build(&boxes);
    let mut cache = OverlapCache::new(f32::MAX).unwrap();
    let q = query_box(Point::from(boxes[0].center().coords), 0.5);
    assert_eq!(cached(&bvh, &mut cache, &q), brute(&boxes, &q));
    assert_eq!(cache.len(), boxes.len());
    // An empty tree answers nothing.
    let empty = StaticBvh::build(&[]);
    assert!(cached(&empty, &mut OverlapCache::new(1.0).unwrap(), &q).is_empty());
}

#[test]
fn early_exit_stops_the_visit() {
    let boxes = scene::boxes(2_000, true, 9);
    let bvh = StaticBvh::build(&boxes);
    let q = query_box(Point::from(boxes[0].center().coords), 3.0);
    assert!(brute(&boxes, &q).len() > 2);
    let mut cache = OverlapCache::new(1.0).unwrap();
    let mut seen = 0;
    let flow = bvh.visit_overlaps_cached(&mut cache, &q, |_| {
        seen += 1;
        if seen == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert_eq!((flow, seen), (ControlFlow::Break(()), 2));
}
