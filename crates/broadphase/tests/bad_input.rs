//! Bad input at the broadphase boundary: invalid boxes, displacements and
//! options, stale ids, huge and degenerate boxes, on every structure; each
//! error case checks the exact variant and that nothing changed, and every
//! error displays what went wrong.

mod common_bp;

use common_bp::random_box;
use proxima_broadphase::{
    BroadPhase, BroadPhaseError, BruteForce, DynamicTree, FatBoxOptions, PairTracker, ProxyId, ProxyOptions,
    RayControl, RefitError, SapMode, StaticBvh, SweepAndPrune, ValidationError,
};
use proxima_narrowphase::{Aabb, Point, Ray, ShapeError, Vector};
use proxima_test_support::rng;

fn unit() -> Aabb {
    Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0))
}

/// The unit box at `(x, 0, 0)`.
fn unit_at(x: f32) -> Aabb {
    Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0))
}

/// Builds a box and inserts it in one fallible step: the box error converts.
fn insert_checked(tree: &mut DynamicTree<()>, min: Point, max: Point) -> Result<ProxyId, BroadPhaseError> {
    let aabb = Aabb::try_new(min, max)?;
    Ok(tree.insert(aabb, ()))
}

#[test]
fn invalid_boxes_cannot_reach_a_structure() {
    let mut tree = DynamicTree::new();
    let nan = Point::new(f32::NAN, 0.0, 0.0);
    let inf = Point::new(0.0, f32::INFINITY, 0.0);
    assert_eq!(
        insert_checked(&mut tree, nan, Point::origin()),
        Err(BroadPhaseError::InvalidAabb(ShapeError::NonFinite("aabb corner")))
    );
    assert!(matches!(insert_checked(&mut tree, Point::origin(), inf), Err(BroadPhaseError::InvalidAabb(_))));
    assert_eq!(
        insert_checked(&mut tree, Point::new(1.0, 0.0, 0.0), Point::origin()),
        Err(BroadPhaseError::InvalidAabb(ShapeError::InvertedBounds { axis: 0 }))
    );
    assert!(tree.is_empty());
    assert!(insert_checked(&mut tree, Point::origin(), Point::new(f32::MAX, f32::MAX, f32::MAX)).is_ok());
}

#[test]
fn invalid_displacement_and_options_are_rejected_without_change() {
    let mut tree = DynamicTree::new();
    let a = tree.insert(unit(), 1);
    let b = tree.insert(Aabb::new(Point::new(3.0, 0.0, 0.0), Point::new(4.0, 1.0, 1.0)), 2);
    let (before, fat) = (tree.validate().unwrap(), tree.fat_aabb(a));
    let far = Aabb::new(Point::new(10.0, 0.0, 0.0), Point::new(11.0, 1.0, 1.0));
    for d in [
        Vector::new(f32::NAN, 0.0, 0.0),
        Vector::new(0.0, f32::INFINITY, 0.0),
        Vector::new(0.0, 0.0, f32::NEG_INFINITY),
    ] {
        assert_eq!(tree.move_proxy(a, far, d), Err(BroadPhaseError::InvalidDisplacement));
    }
    assert_eq!(tree.validate().unwrap(), before);
    assert_eq!(tree.fat_aabb(a), fat);

    // The exact-box structures take the same displacement, check it, and
    // change nothing on a bad one.
    let mut bf = BruteForce::new();
    let mut sap = SweepAndPrune::new(SapMode::Persistent);
    let (fa, sa) = (bf.insert(unit(), ()), sap.insert(unit(), ()));
    sap.update();
    let bad = Vector::new(f32::NAN, 0.0, 0.0);
    assert_eq!(bf.move_proxy(fa, far, bad), Err(BroadPhaseError::InvalidDisplacement));
    assert_eq!(sap.move_proxy(sa, far, bad), Err(BroadPhaseError::InvalidDisplacement));
    assert_eq!((bf.aabb(fa), sap.aabb(sa)), (Some(unit()), Some(unit())));
    assert!(!sap.is_dirty(), "a rejected move dirtied the sweep");
    assert_eq!(bf.move_proxy(fa, far, Vector::new(9.0, 0.0, 0.0)), Ok(true));
    assert_eq!(sap.move_proxy(sa, far, Vector::new(9.0, 0.0, 0.0)), Ok(true));
    assert_eq!((bf.aabb(fa), sap.aabb(sa)), (Some(far), Some(far)));
    assert_eq!(tree.get(b), Some(&2));
    for bad in [f32::NAN, -0.1, f32::INFINITY] {
        let o = FatBoxOptions { margin: bad, prediction: 1.0 };
        assert!(matches!(DynamicTree::<()>::new_with(o), Err(BroadPhaseError::InvalidOption(_))));
        let o = FatBoxOptions { margin: 0.1, prediction: bad };
        assert!(matches!(PairTracker::<()>::new_with(o), Err(BroadPhaseError::InvalidOption(_))));
    }
}

#[test]
fn stale_ids_are_rejected_by_every_structure() {
    let never = ProxyId::new(12_345, 0);
    let stale = |id| BroadPhaseError::StaleId(id);

    let mut bf = BruteForce::new();
    let a = bf.insert(unit(), 'a');
    bf.remove(a).unwrap();
    let a2 = bf.insert(unit(), 'b');
    assert_eq!(a2.index(), a.index());
    assert_eq!(bf.remove(a), Err(stale(a)));
    assert_eq!(bf.move_proxy(a, unit(), Vector::zeros()), Err(stale(a)));
    assert_eq!(bf.remove(never), Err(stale(never)));
    assert_eq!((bf.get(a), bf.get(a2)), (None, Some(&'b')));

    let mut sap = SweepAndPrune::new(SapMode::Persistent);
    let s = sap.insert(unit(), 1u8);
    sap.remove(s).unwrap();
    let s2 = sap.insert(unit(), 2u8);
    sap.update();
    assert_eq!(sap.remove(s), Err(stale(s)));
    assert_eq!(sap.move_proxy(s, unit(), Vector::zeros()), Err(stale(s)));
    assert_eq!(sap.move_proxy(never, unit(), Vector::zeros()), Err(stale(never)));
    assert!(!sap.is_dirty());
    assert_eq!(sap.get(s2), Some(&2));

    let mut tree = DynamicTree::new();
    let t = tree.insert(unit(), ());
    tree.remove(t).unwrap();
    assert_eq!(tree.move_proxy(t, unit(), Vector::zeros()), Err(stale(t)));
    assert_eq!(tree.move_proxy(never, unit(), Vector::zeros()), Err(stale(never)));
    assert!(tree.is_empty());
    tree.validate().unwrap();

    let mut tracker = PairTracker::new();
    let p = tracker.insert(unit(), (), ProxyOptions::default());
    tracker.remove(p).unwrap();
    assert_eq!(tracker.remove(p), Err(stale(p)));
    assert_eq!(tracker.move_proxy_to(p, unit()), Err(stale(p)));
    assert_eq!(tracker.move_proxy_to(never, unit()), Err(stale(never)));
    assert_eq!(tracker.set_options(never, ProxyOptions::STATIC), Err(stale(never)));
    assert!(tracker.update().is_empty());
}

/// Huge boxes (extents of 1e30 and corners at ±3e38, whose f32 extents
/// overflow to infinity) in every structure: no panic, finite SAH cost,
/// exactly the brute-force pairs.
#[test]
fn huge_boxes_everywhere() {
    let mut rng = rng(404);
    let mut boxes: Vec<Aabb> = (0..500).map(|_| random_box(&mut rng, 100.0, 0.1, 1.0)).collect();
    for i in 0..20 {
        boxes[i * 25] = if i % 2 == 0 {
            Aabb::try_from_center(Point::new(i as f32 * 1e29, 0.0, 0.0), Vector::repeat(1e30)).unwrap()
        } else {
            Aabb::new(Point::new(-3.0e38, -3.0e38, -3.0e38), Point::new(3.0e38, 3.0e38, 3.0e38))
        };
    }
    let mut bf = BruteForce::new();
    let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
    let mut sap = SweepAndPrune::new(SapMode::Rebuild);
    for b in &boxes {
        bf.insert(*b, ());
        tree.insert(*b, ());
        sap.insert(*b, ());
    }
    sap.update();
    let stats = tree.validate().unwrap();
    assert!(stats.sah_cost.is_finite() && stats.sah_cost > 0.0);
    let mut want = Vec::new();
    bf.pairs_into(&mut want);
    for (name, got) in [("tree", pairs_of(&tree)), ("sap", pairs_of(&sap))] {
        assert_eq!(got, want, "{name}");
    }
    tree.rebuild();
    tree.validate().unwrap();
    assert_eq!(pairs_of(&tree), want);
    // An unbounded ray through the huge boxes.
    let ray = Ray::new(Point::new(-1e38, 0.5, 0.5), Vector::x(), f32::INFINITY);
    let (mut n_tree, mut n_bf) = (0, 0);
    tree.visit_ray(&ray, |_, _| {
        n_tree += 1;
        RayControl::Continue
    });
    bf.visit_ray(&ray, |_, _| {
        n_bf += 1;
        RayControl::Continue
    });
    assert_eq!(n_tree, n_bf);
    assert!(n_bf >= 10);
}

/// `PairTracker::move_proxy_to` takes the displacement from the tight boxes'
/// centres: the same answers, fat boxes, pairs and events as `move_proxy`
/// given that displacement. A box whose centre overflows (corners at `3e38`
/// and `f32::MAX`: `min + max` is infinite) is still accepted, with a valid
/// fat box.
#[test]
fn move_proxy_to_takes_the_centres_move() {
    let mut rng = rng(405);
    let mut by_centre = PairTracker::new();
    let mut given = PairTracker::new();
    let boxes: Vec<Aabb> = (0..200).map(|_| random_box(&mut rng, 30.0, 0.1, 1.0)).collect();
    let ids: Vec<ProxyId> = boxes.iter().map(|b| by_centre.insert(*b, (), ProxyOptions::default())).collect();
    for b in &boxes {
        given.insert(*b, (), ProxyOptions::default());
    }
    for step in 0..4 {
        for id in &ids {
            let moved = random_box(&mut rng, 30.0, 0.1, 1.0);
            let d = moved.center() - by_centre.tight_aabb(*id).unwrap().center();
            assert_eq!(by_centre.move_proxy_to(*id, moved), given.move_proxy(*id, moved, d), "step {step}");
            assert_eq!(by_centre.fat_aabb(*id), given.fat_aabb(*id));
        }
        assert_eq!(by_centre.update(), given.update(), "step {step}");
        assert!(by_centre.exact_pairs().eq(given.exact_pairs()));
    }
    // A centre that overflows: accepted, the fat box valid and containing it.
    let wide = Aabb::new(Point::new(3e38, 0.0, 0.0), Point::new(f32::MAX, 1.0, 1.0));
    let half = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let (mut a, mut b) = (PairTracker::new(), PairTracker::new());
    let (ia, ib) = (a.insert(half, (), ProxyOptions::default()), b.insert(half, (), ProxyOptions::default()));
    assert_eq!(a.move_proxy_to(ia, wide), b.move_proxy(ib, wide, Vector::zeros()));
    assert_eq!(a.fat_aabb(ia), b.fat_aabb(ib));
    let fat = a.fat_aabb(ia).unwrap();
    assert!(fat.is_valid() && fat.contains_aabb(&wide), "{fat:?}");
}

fn pairs_of(bp: &impl BroadPhase<Id = ProxyId>) -> Vec<(ProxyId, ProxyId)> {
    let mut v = Vec::new();
    bp.pairs_into(&mut v);
    v
}

/// Many identical boxes: insertion ties are broken pseudo-randomly, so the
/// tree stays shallow instead of becoming a chain.
#[test]
fn identical_boxes_keep_the_tree_shallow() {
    let n = 4096;
    for b in [unit(), Aabb::new(Point::origin(), Point::origin())] {
        let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
        for _ in 0..n {
            tree.insert(b, ());
        }
        let stats = tree.validate().unwrap();
        // A random binary search tree of n keys has expected height about
        // 4.3 ln n = 36 for n = 4096; a chain would be 4095.
        assert!(stats.height <= 60, "height {}", stats.height);
        assert_eq!(pairs_of(&tree).len(), n * (n - 1) / 2);
    }
    // Small boxes under a 1e30 box, whose merged areas all round to one f64.
    let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).unwrap();
    tree.insert(Aabb::try_from_center(Point::origin(), Vector::repeat(1e30)).unwrap(), ());
    let mut rng = rng(5);
    for _ in 0..n {
        tree.insert(random_box(&mut rng, 10.0, 0.1, 0.5), ());
    }
    let stats = tree.validate().unwrap();
    assert!(stats.height <= 60, "height {}", stats.height);
}

#[test]
fn nan_clip_values_are_ignored() {
    let mut tree = DynamicTree::new();
    for i in 0..10 {
        let x = i as f32 * 2.0;
        tree.insert(Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0)), ());
    }
    let ray = Ray::new(Point::new(-1.0, 0.5, 0.5), Vector::x(), 100.0);
    let mut seen = 0;
    tree.visit_ray(&ray, |_, _| {
        seen += 1;
        RayControl::Clip(f32::NAN)
    });
    assert_eq!(seen, 10, "a NaN clip must not shorten the ray");
    let mut bf = BruteForce::new();
    bf.insert(unit(), ());
    bf.insert(unit(), ());
    let mut seen = 0;
    bf.visit_ray(&ray, |_, _| {
        seen += 1;
        RayControl::Clip(f32::NAN)
    });
    assert_eq!(seen, 2);
}

/// `PairTracker::move_proxy` with a NaN or infinite displacement:
/// `InvalidDisplacement`, the fat box, the pairs and the next update unchanged.
#[test]
fn pair_tracker_rejects_invalid_displacement_without_change() {
    let mut t = PairTracker::new();
    let a = t.insert(unit_at(0.0), 'a', ProxyOptions::default());
    let b = t.insert(unit_at(0.5), 'b', ProxyOptions::default());
    assert_eq!(t.update().len(), 1);
    let (fat, pairs) = (t.fat_aabb(a), t.pairs().collect::<Vec<_>>());
    for d in [Vector::new(f32::NAN, 0.0, 0.0), Vector::new(0.0, f32::INFINITY, 0.0)] {
        assert_eq!(t.move_proxy(a, unit_at(50.0), d), Err(BroadPhaseError::InvalidDisplacement));
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
        let r = PairTracker::<()>::new_with(FatBoxOptions { margin, prediction: 0.0 });
        assert!(matches!(r, Err(BroadPhaseError::InvalidOption(_))), "margin {margin}");
    }
}

/// Stale ids read as `None` everywhere, never as another proxy's data.
#[test]
fn stale_reads_are_none() {
    let mut sap = SweepAndPrune::new(SapMode::Rebuild);
    let a = sap.insert(unit_at(0.0), 1);
    sap.remove(a).unwrap();
    let a2 = sap.insert(unit_at(2.0), 2);
    assert_eq!(a.index(), a2.index());
    assert_eq!((sap.get(a), sap.aabb(a), sap.contains(a)), (None, None, false));
    assert_eq!(sap.get_mut(a), None);
    let mut bf = BruteForce::new();
    let b = bf.insert(unit_at(0.0), 1);
    bf.remove(b).unwrap();
    bf.insert(unit_at(0.0), 2);
    assert_eq!((bf.get(b), bf.aabb(b), bf.contains(b)), (None, None, false));
    let mut t = PairTracker::new();
    let c = t.insert(unit_at(0.0), 1, ProxyOptions::default());
    t.remove(c).unwrap();
    t.insert(unit_at(0.0), 2, ProxyOptions::default());
    assert_eq!((t.get(c), t.options(c), t.fat_aabb(c), t.contains(c)), (None, None, None, false));
}

/// `StaticBvh::refit` with the wrong number of boxes: a `RefitError` naming
/// both counts, and the tree unchanged.
#[test]
fn refit_reports_both_counts_and_changes_nothing() {
    let boxes: Vec<Aabb> = (0..10).map(|i| unit_at(i as f32 * 2.0)).collect();
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
    t.insert(unit_at(0.0), (), ProxyOptions::default());
    t.update();
    assert_eq!(t.validate().unwrap().leaves, 1);
    assert_eq!(StaticBvh::build(&[]).validate().unwrap().leaves, 0);
    assert_eq!(BruteForce::<()>::new().validate().unwrap().leaves, 0);
}
