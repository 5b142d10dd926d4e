//! Bugs found by fuzzing, the seeded suites and review, reduced to minimal
//! inputs (numbered as in TESTING.md, "Bugs"); each test asserts the
//! documented behaviour. The fixed ones run with `cargo test`;
//! an open one would be ignored with the bug's summary
//! (`cargo test --release -p proxima-broadphase --test regressions -- --ignored`).

use proxima_broadphase::{
    BroadPhase, BuildOptions, DynamicTree, FatBoxOptions, PairTracker, ProxyOptions, RayControl, StaticBvh,
};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Point, Ray, Vector};

/// B1 (broadphase side): `new_with` accepts any finite margin, but
/// `Aabb::loosened` overflows: a box near `f32::MAX` gets an infinite fat box,
/// and the tree's SAH cost becomes NaN (`inf / inf`).
#[test]

fn b1_fat_boxes_stay_finite_with_huge_margins() {
    let options = FatBoxOptions { margin: 3.4e37, prediction: 0.0 };
    let mut tree = DynamicTree::new_with(options).expect("a finite margin is valid");
    let near_max = Aabb::new(Point::new(3.3e38, 0.0, 0.0), Point::new(3.4e38, 1.0, 1.0));
    let id = tree.insert(near_max, ());
    tree.insert(Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0)), ());
    let fat = tree.fat_aabb(id).expect("live");
    assert!(fat.is_valid(), "fat box {fat:?}");
    assert!(tree.validate().expect("valid").sah_cost.is_finite());
    let mut tracker = PairTracker::new_with(options).expect("valid");
    let id = tracker.insert(near_max, (), ProxyOptions::default());
    assert!(tracker.fat_aabb(id).expect("live").is_valid());
}

/// B33, found by code review: a `PairTracker` query between `move_proxy` and
/// `update` missed a proxy that had left its fat box: the lanes above its
/// leaf kept its old box until the update's refit.
#[test]
fn b33_queries_see_a_move_before_the_update() {
    let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    let mut tracker = PairTracker::new();
    let ids: Vec<_> = (0..200).map(|i| tracker.insert(unit(i as f32 * 3.0), i, ProxyOptions::default())).collect();
    tracker.update();
    tracker.move_proxy(ids[5], unit(1000.0), Vector::zeros()).expect("live");
    assert_eq!(tracker.overlaps(&unit(1000.0)).collect::<Vec<_>>(), [ids[5]], "at its new place");
    assert!(tracker.overlaps(&unit(15.0)).all(|id| id != ids[5]), "not at its old one");
    let mut hits = Vec::new();
    tracker.visit_ray(&Ray::new(Point::new(990.0, 0.5, 0.5), Vector::x(), 100.0), |id, _| {
        hits.push(id);
        RayControl::Continue
    });
    assert_eq!(hits, [ids[5]], "a ray finds it too");
}

/// B35, found by the `broadphase_ops` fuzz target: the SAH-optimal collapse
/// (`BuildOptions::PAIRS`, what `PairTracker` builds) panicked on boxes
/// spanning `f32::MAX`: their areas are infinite or NaN, no split compared
/// below infinity, and the collapse read an unset split of 0 lanes. Every
/// split now starts valid, and only a subtree of at most `max_leaf_size`
/// boxes may become a leaf (infinite costs compared equal).
#[test]
fn b35_builds_over_boxes_spanning_f32_max() {
    let m = f32::MAX;
    let boxes: Vec<Aabb> = (0..40)
        .map(|i| {
            let f = i as f32;
            match i % 4 {
                0 => Aabb::new(Point::new(-m, -m, -m), Point::new(m, m, m)),
                1 => Aabb::new(Point::new(-m, 0.0, f), Point::new(m, 0.0, f)), // flat: inf * 0 = NaN
                2 => Aabb::new(Point::new(f, f, f), Point::new(f + 1.0, f + 1.0, f + 1.0)),
                _ => Aabb::new(Point::new(-m, -m, f), Point::new(m, m, f)),
            }
        })
        .collect();
    for options in [BuildOptions::PAIRS, BuildOptions::default()] {
        let bvh = StaticBvh::build_with(&boxes, options);
        bvh.validate().expect("a valid tree");
        for query in &boxes {
            let mut got: Vec<u32> = bvh.overlaps(query).collect();
            got.sort_unstable();
            let want: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&i| proxima_narrowphase::intersects_aabb_aabb(&boxes[i as usize], query))
                .collect();
            assert_eq!(got, want, "query {query:?}");
        }
    }
    let proxies = boxes.iter().enumerate().map(|(i, b)| (*b, i, ProxyOptions::default()));
    let mut tracker = PairTracker::from_proxies(FatBoxOptions::default(), proxies).expect("valid options");
    tracker.update();
    tracker.validate().expect("a valid tracker");
}

/// B37, found by code review: a box query testing a leaf's boxes as one mask
/// shifted a bit per box into a `u32`, while a leaf may hold up to 255 boxes
/// (`BuildOptions::max_leaf_size`): boxes past the 32nd were visited at the
/// wrong slot or not at all. Coincident boxes make one leaf of all of them
/// (no split lowers the SAH cost); every query must equal brute force.
#[test]
fn b37_box_queries_over_leaves_of_more_than_32_boxes() {
    let mut boxes: Vec<Aabb> = (0..100).map(|_| Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0))).collect();
    // A few apart, so that the tree has more than one leaf.
    boxes.extend((0..5).map(|i| {
        let lo = Point::new(10.0 + 3.0 * i as f32, 0.0, 0.0);
        Aabb::new(lo, lo + Vector::repeat(1.0))
    }));
    for max_leaf_size in [64, 255] {
        let options = BuildOptions { max_leaf_size, ..BuildOptions::default() };
        let bvh = StaticBvh::build_with(&boxes, options);
        let largest = bvh.leaf_ranges().iter().map(|r| r.len()).max().unwrap_or(0);
        assert!(largest > 32, "max_leaf_size {max_leaf_size}: the largest leaf holds {largest} boxes");
        for query in [
            Aabb::new(Point::new(0.5, 0.5, 0.5), Point::new(0.6, 0.6, 0.6)),
            Aabb::new(Point::new(-1.0, -1.0, -1.0), Point::new(30.0, 2.0, 2.0)),
            Aabb::new(Point::new(12.5, 0.0, 0.0), Point::new(13.5, 1.0, 1.0)),
        ] {
            let mut want: Vec<u32> =
                (0..boxes.len() as u32).filter(|&i| intersects_aabb_aabb(&boxes[i as usize], &query)).collect();
            want.sort_unstable();
            let mut got: Vec<u32> = Vec::new();
            let _ = bvh.visit_overlaps(&query, |id| {
                got.push(id);
                core::ops::ControlFlow::Continue(())
            });
            got.sort_unstable();
            assert_eq!(got, want, "max_leaf_size {max_leaf_size}, query {query:?}");
        }
    }
}
