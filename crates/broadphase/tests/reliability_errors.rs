//! The broadphase error cases that `bad_input.rs` does not cover: one test
//! per missing case, each checking the exact variant and that nothing changed.

use proxima_broadphase::{
    BroadPhase, BroadPhaseError, BruteForce, DynamicTreeOptions, PairTracker, ProxyId, ProxyOptions, RefitError,
    SapMode, StaticBvh, SweepAndPrune, ValidationError,
};
use proxima_narrowphase::{Aabb, Point, ShapeError, Vector};

fn unit(x: f32) -> Aabb {
    Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0))
}

/// `PairTracker::move_proxy` with a NaN or infinite displacement:
/// `InvalidDisplacement`, the fat box, the pairs and the next update unchanged.
#[test]
fn pair_tracker_rejects_invalid_displacement_without_change() {
    let mut t = PairTracker::new();
    let a = t.insert(unit(0.0), 'a', ProxyOptions::default());
    let b = t.insert(unit(0.5), 'b', ProxyOptions::default());
    assert_eq!(t.update().len(), 1);
    let (fat, pairs) = (t.fat_aabb(a), t.pairs().collect::<Vec<_>>());
    for d in [Vector::new(f32::NAN, 0.0, 0.0), Vector::new(0.0, f32::INFINITY, 0.0)] {
        assert_eq!(t.move_proxy(a, unit(50.0), d), Err(BroadPhaseError::InvalidDisplacement));
    }
    assert_eq!(t.fat_aabb(a), fat);
    assert!(t.update().is_empty(), "a rejected move produced events");
    assert!(t.pairs().eq(pairs.iter().copied()));
    assert_eq!(t.get(b), Some(&'b'));
}

/// A negative or non-finite margin is rejected by the tracker too.
#[test]
fn pair_tracker_rejects_invalid_margin() {
    for margin in [-1.0, f32::NAN, f32::INFINITY] {
        let r = PairTracker::<()>::with_options(DynamicTreeOptions { margin, prediction: 0.0 });
        assert!(matches!(r, Err(BroadPhaseError::InvalidOption(_))), "margin {margin}");
    }
}

/// Stale ids read as `None` everywhere, never as another proxy's data.
#[test]
fn stale_reads_are_none() {
    let mut sap = SweepAndPrune::new(SapMode::Rebuild);
    let a = sap.insert(unit(0.0), 1);
    sap.remove(a).unwrap();
    let a2 = sap.insert(unit(2.0), 2);
    assert_eq!(a.index(), a2.index());
    assert_eq!((sap.get(a), sap.aabb(a), sap.contains(a)), (None, None, false));
    assert_eq!(sap.get_mut(a), None);
    let mut bf = BruteForce::new();
    let b = bf.insert(unit(0.0), 1);
    bf.remove(b).unwrap();
    bf.insert(unit(0.0), 2);
    assert_eq!((bf.get(b), bf.aabb(b), bf.contains(b)), (None, None, false));
    let mut t = PairTracker::new();
    let c = t.insert(unit(0.0), 1, ProxyOptions::default());
    t.remove(c).unwrap();
    t.insert(unit(0.0), 2, ProxyOptions::default());
    assert_eq!((t.get(c), t.options(c), t.fat_aabb(c), t.contains(c)), (None, None, None, false));
}

/// `StaticBvh::refit` with the wrong number of boxes: a `RefitError` naming
/// both counts, and the tree unchanged.
#[test]
fn refit_reports_both_counts_and_changes_nothing() {
    let boxes: Vec<Aabb> = (0..10).map(|i| unit(i as f32 * 2.0)).collect();
    let mut bvh = StaticBvh::build(&boxes);
    let before = bvh.clone();
    assert_eq!(bvh.refit(&boxes[..7]), Err(RefitError { expected: 10, got: 7 }));
    let longer: Vec<Aabb> = boxes.iter().chain(boxes.iter()).copied().collect();
    assert_eq!(bvh.refit(&longer), Err(RefitError { expected: 10, got: 20 }));
    assert_eq!(bvh, before);
    let msg = RefitError { expected: 10, got: 7 }.to_string();
    assert!(msg.contains("10") && msg.contains('7'), "{msg}");
}

/// Every variant displays what went wrong; only `InvalidAabb` has a source.
#[test]
fn error_messages_and_sources() {
    use std::error::Error;
    let e = BroadPhaseError::InvalidAabb(ShapeError::InvertedBounds { axis: 1 });
    assert!(e.source().is_some() && e.to_string().contains("axis 1"), "{e}");
    let id = ProxyId::new(7, 3);
    let stale = BroadPhaseError::StaleId(id);
    assert!(stale.source().is_none() && stale.to_string().contains('7') && stale.to_string().contains('3'));
    assert!(BroadPhaseError::InvalidDisplacement.to_string().contains("displacement"));
    assert!(BroadPhaseError::InvalidOption("margin must be finite").to_string().contains("margin"));
    assert_eq!(
        BroadPhaseError::from(ShapeError::NegativeExtent),
        BroadPhaseError::InvalidAabb(ShapeError::NegativeExtent)
    );
    assert!(ValidationError("slot 3".into()).to_string().contains("slot 3"));
}

/// An empty structure validates, and `validate` of every structure reports
/// its leaf count.
#[test]
fn validate_reports_counts() {
    let mut t = PairTracker::<()>::new();
    assert_eq!(t.validate().unwrap().leaves, 0);
    t.insert(unit(0.0), (), ProxyOptions::default());
    t.update();
    assert_eq!(t.validate().unwrap().leaves, 1);
    assert_eq!(StaticBvh::build(&[]).validate().unwrap().leaves, 0);
    assert_eq!(BruteForce::<()>::new().validate().unwrap().leaves, 0);
}
