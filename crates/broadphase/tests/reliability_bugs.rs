//! Bugs found by the reliability fuzzing in code this suite does not own,
//! reduced to minimal inputs; each test asserts the documented behaviour,
//! fails today, and is ignored with the bug's summary
//! (`cargo test --release -p proxima-broadphase --test reliability_bugs -- --ignored`).

use proxima_broadphase::{BroadPhase, DynamicTree, DynamicTreeOptions, PairTracker, ProxyOptions};
use proxima_narrowphase::{Aabb, Point};

/// B1 (broadphase side): `with_options` accepts any finite margin, but
/// `Aabb::loosened` overflows: a box near `f32::MAX` gets an infinite fat box,
/// and the tree's SAH cost becomes NaN (`inf / inf`).
#[test]

fn b1_fat_boxes_stay_finite_with_huge_margins() {
    let options = DynamicTreeOptions { margin: 3.4e37, prediction: 0.0 };
    let mut tree = DynamicTree::with_options(options).expect("a finite margin is valid");
    let near_max = Aabb::new(Point::new(3.3e38, 0.0, 0.0), Point::new(3.4e38, 1.0, 1.0));
    let id = tree.insert(near_max, ());
    tree.insert(Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0)), ());
    let fat = tree.fat_aabb(id).expect("live");
    assert!(fat.is_valid(), "fat box {fat:?}");
    assert!(tree.validate().expect("valid").sah_cost.is_finite());
    let mut tracker = PairTracker::with_options(options).expect("valid");
    let id = tracker.insert(near_max, (), ProxyOptions::default());
    assert!(tracker.fat_aabb(id).expect("live").is_valid());
}
