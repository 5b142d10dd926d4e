//! `ContactPipeline::with_manifold_reuse`: a pair's manifold kept while its
//! relative pose stays within the tolerance, computed again past it.
//!
//! - A box on a floor, at rest for a step, then moved sideways within the
//!   tolerance gets the kept manifold carried by the bodies (its points
//!   moved by each body's motion, depths measured again), not the exact
//!   one; moved or turned past the
//!   tolerance, reshaped, or replaced by another collider in the same slot,
//!   it gets the exact manifold, bit for bit.
//! - A pile of boxes, capsules and spheres, jittered frame after frame by
//!   moves around the tolerance: every pair's deepest point is within
//!   `2 d` of the exact pipeline's (`d = max_translation + max_rotation r`,
//!   `r` the shapes' largest bounding radius; see `ManifoldReuse`), a pair
//!   has a manifold in one pipeline only when the other's would be within
//!   `2 d` of the prediction's edge, both answers occur (kept and computed
//!   manifolds), and `update_parallel` gives the same output.

use proxima_narrowphase::{ContactManifold, Isometry, Real, Rotation, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;
use std::collections::BTreeMap;

const PREDICTION: Real = 0.02;

fn reuse(max_translation: Real, max_rotation: Real) -> ManifoldReuse {
    ManifoldReuse::new(max_translation, max_rotation).expect("a valid tolerance")
}

/// The manifolds of a pipeline by pair.
fn by_pair(pipeline: &ContactPipeline) -> BTreeMap<(ColliderHandle, ColliderHandle), Vec<ContactManifold>> {
    let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for m in pipeline.manifolds() {
        out.entry((m.a, m.b)).or_default().push(m.manifold);
    }
    out
}

/// A floor and a box turned about the vertical, resting 0.01 into it.
fn box_on_floor() -> (Scene, ColliderHandle, ColliderHandle) {
    let mut scene = Scene::new();
    let floor = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) };
    let floor = scene.insert(ColliderDesc::new(floor, Isometry::identity()).fixed()).unwrap();
    let cube = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.3, 0.4) };
    let pose = Isometry::from_parts(Vector::new(0.2, 0.79, -0.1).into(), Rotation::from_scaled_axis(Vector::y() * 0.3));
    let cube = scene.insert(ColliderDesc::new(cube, pose)).unwrap();
    (scene, floor, cube)
}

/// `pose` moved by `d` and turned by `angle` about `axis` (world frame).
fn moved(pose: &Isometry, d: Vector, axis: Vector, angle: Real) -> Isometry {
    Isometry::from_parts((pose.translation.vector + d).into(), Rotation::from_scaled_axis(axis * angle) * pose.rotation)
}

/// The one manifold of the pipeline's only pair.
fn only(pipeline: &ContactPipeline) -> ContactManifold {
    let [pair] = pipeline.manifolds() else { panic!("one manifold, not {}", pipeline.manifolds().len()) };
    pair.manifold
}

#[test]
fn a_move_within_the_tolerance_carries_the_kept_manifold() {
    // A rotation tolerance of 1e-4 rad too: `cos(1e-4 / 2)` rounds to 1 in
    // f32, the chord test does not.
    for max_rotation in [1e-2, 1e-4] {
        carries_the_kept_manifold(max_rotation);
    }
}

fn carries_the_kept_manifold(max_rotation: Real) {
    let (mut scene, floor, cube) = box_on_floor();
    let mut exact = ContactPipeline::new().with_manifolds(PREDICTION).unwrap();
    let mut kept =
        ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_manifold_reuse(reuse(1e-3, max_rotation));
    // A pair keeps its manifold once it has moved within the tolerance for
    // a step: here, a step without motion.
    for _ in 0..2 {
        exact.update(&mut scene);
        kept.update(&mut scene);
    }
    let before = only(&kept);
    assert_eq!(before, only(&exact));
    // Sideways and down by less than 1 mm: the exact manifold's floor
    // points follow the box, the kept ones stay where they were.
    let (side, down) = (Vector::new(6e-4, 0.0, 0.0), Vector::new(0.0, -3e-4, 0.0));
    let pose = moved(scene.get(cube).unwrap().pose(), side + down, Vector::y(), 0.0);
    scene.set_pose(cube, pose).unwrap();
    exact.update(&mut scene);
    kept.update(&mut scene);
    let after = only(&kept);
    assert_ne!(after, only(&exact), "the exact manifold moved with the box");
    assert_eq!(after.len(), before.len());
    assert_eq!(after.normal, before.normal, "the floor did not move: the same normal");
    for (now, then) in after.points().iter().zip(before.points()) {
        assert_eq!(now.id, then.id);
        assert_eq!(now.point_a, then.point_a, "the floor's point stays in the floor's frame");
        assert!((now.point_b - (then.point_b + side + down)).norm() < 1e-6, "the box's point moves with the box");
        let depth = (now.point_a - now.point_b).dot(&after.normal);
        assert!((now.depth - depth).abs() < 1e-7);
        assert!((now.depth - (then.depth + 3e-4)).abs() < 1e-5, "3e-4 deeper: {} then {}", now.depth, then.depth);
    }
    let _ = floor;
}

#[test]
fn past_the_tolerance_a_shape_change_or_a_new_collider_computes_again() {
    // Each change, from a kept manifold, gives the exact one.
    type Change = fn(&mut Scene, ColliderHandle) -> ColliderHandle;
    let changes: [(&str, Change); 4] = [
        ("moved 2 mm", |scene, cube| {
            let pose = moved(scene.get(cube).unwrap().pose(), Vector::new(2e-3, 0.0, 0.0), Vector::y(), 0.0);
            scene.set_pose(cube, pose).unwrap();
            cube
        }),
        ("turned 0.02 rad", |scene, cube| {
            let pose = moved(scene.get(cube).unwrap().pose(), Vector::zeros(), Vector::x(), 0.02);
            scene.set_pose(cube, pose).unwrap();
            cube
        }),
        ("reshaped", |scene, cube| {
            scene.set_shape(cube, ColliderShape::Cuboid { half_extents: Vector::new(0.4, 0.3, 0.4) }).unwrap();
            cube
        }),
        ("replaced in its slot", |scene, cube| {
            let pose = *scene.get(cube).unwrap().pose();
            scene.remove(cube).unwrap();
            let shape = ColliderShape::Capsule { half_height: 0.3, radius: 0.29 };
            let other = scene.insert(ColliderDesc::new(shape, pose)).unwrap();
            assert_eq!(other.index(), cube.index(), "the freed slot is reused");
            other
        }),
    ];
    for (what, change) in changes {
        let (mut scene, _, cube) = box_on_floor();
        let mut exact = ContactPipeline::new().with_manifolds(PREDICTION).unwrap();
        let mut kept =
            ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_manifold_reuse(reuse(1e-3, 1e-2));
        for _ in 0..2 {
            exact.update(&mut scene);
            kept.update(&mut scene);
        }
        // A small move first, so that the kept manifold differs from the
        // exact one.
        let pose = moved(scene.get(cube).unwrap().pose(), Vector::new(5e-4, 0.0, 0.0), Vector::y(), 0.0);
        scene.set_pose(cube, pose).unwrap();
        exact.update(&mut scene);
        kept.update(&mut scene);
        assert_ne!(only(&kept), only(&exact), "{what}: kept before the change");
        change(&mut scene, cube);
        exact.update(&mut scene);
        kept.update(&mut scene);
        assert_eq!(by_pair(&kept), by_pair(&exact), "{what}: computed again");
    }
}

#[test]
fn a_new_prediction_drops_the_kept_manifolds() {
    // A box 0.03 above the floor: no manifold within 0.02, kept as such
    // while it rests; within 0.05 it has one at once, with and without
    // reuse (the mirrored boxes' slack follows the prediction), with each
    // pair search.
    for search in [PairSearch::Tracker, PairSearch::Grid] {
        for tolerance in [None, Some(reuse(1e-3, 1e-2))] {
            let (mut scene, _, cube) = box_on_floor();
            let pose = moved(scene.get(cube).unwrap().pose(), Vector::new(0.0, 0.04, 0.0), Vector::y(), 0.0);
            scene.set_pose(cube, pose).unwrap();
            let mut pipeline = ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_pair_search(search);
            if let Some(tolerance) = tolerance {
                pipeline = pipeline.with_manifold_reuse(tolerance);
            }
            for _ in 0..3 {
                pipeline.update(&mut scene);
                assert!(pipeline.manifolds().is_empty(), "0.03 apart: none within 0.02");
            }
            let mut pipeline = pipeline.with_manifolds(0.05).unwrap();
            pipeline.update(&mut scene);
            let mut exact = ContactPipeline::new().with_manifolds(0.05).unwrap();
            exact.update(&mut scene);
            assert!(!exact.manifolds().is_empty());
            assert_eq!(by_pair(&pipeline), by_pair(&exact), "{search:?} {tolerance:?}: the new prediction's manifold");
        }
    }
}

/// A pile of boxes, capsules and spheres (bounding radii below
/// `RADIUS`) on a floor box, close enough to touch.
fn pile(seed: u64) -> (Scene, Vec<ColliderHandle>) {
    let mut rng = proxima_test_support::rng(seed);
    let mut scene = Scene::new();
    let floor = ColliderShape::Cuboid { half_extents: Vector::new(20.0, 0.5, 20.0) };
    scene.insert(ColliderDesc::new(floor, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
    let mut handles = Vec::new();
    for i in 0..300 {
        let s = |rng: &mut _| uniform(rng, 0.1, 0.3);
        let shape = match i % 3 {
            0 => ColliderShape::Cuboid { half_extents: Vector::new(s(&mut rng), s(&mut rng), s(&mut rng)) },
            1 => ColliderShape::Capsule { half_height: s(&mut rng), radius: s(&mut rng) * 0.5 },
            _ => ColliderShape::Sphere { radius: s(&mut rng) },
        };
        let t = Vector::new(uniform(&mut rng, -3.0, 3.0), uniform(&mut rng, 0.0, 1.5), uniform(&mut rng, -3.0, 3.0));
        let pose = Isometry::from_parts(t.into(), proxima_test_support::gen::rotation(&mut rng));
        handles.push(scene.insert(ColliderDesc::new(shape, pose)).unwrap());
    }
    (scene, handles)
}

/// The largest bounding radius of the pile's shapes: `0.3 sqrt 3` for the
/// boxes, `0.3 + 0.15` for the capsules.
const RADIUS: Real = 0.52;

#[test]
fn a_jittered_pile_stays_within_the_bound_of_the_exact_manifolds() {
    let (max_translation, max_rotation) = (1e-3, 5e-3);
    // `d` of `ManifoldReuse` for the floor too: its points lie within
    // `RADIUS` of the body's origin whichever shape is second.
    let d = max_translation + max_rotation * RADIUS;
    let slack = 1e-4;
    let (mut scene, handles) = pile(0x2E05E);
    let mut exact = ContactPipeline::new().with_manifolds(PREDICTION).unwrap();
    let mut kept = ContactPipeline::new()
        .with_manifolds(PREDICTION)
        .unwrap()
        .with_manifold_reuse(reuse(max_translation, max_rotation));
    let mut rng = proxima_test_support::rng(7);
    let (mut same, mut differ) = (0usize, 0usize);
    for frame in 0..60 {
        if frame > 0 {
            // Most bodies still or barely moving, some past the tolerance.
            let movers: Vec<ColliderHandle> = handles.iter().copied().filter(|_| rng.random_bool(0.6)).collect();
            let poses: Vec<_> = movers
                .into_iter()
                .map(|h| {
                    let step = if rng.random_bool(0.8) { 3e-4 } else { 3e-3 };
                    let d = Vector::new(uniform(&mut rng, -step, step), uniform(&mut rng, -step, step), 0.0);
                    let axis = proxima_test_support::gen::unit_vector(&mut rng);
                    (h, moved(scene.get(h).unwrap().pose(), d, axis, uniform(&mut rng, 0.0, 4.0 * step)))
                })
                .collect();
            scene.set_poses(&poses).unwrap();
        }
        exact.update(&mut scene);
        kept.update(&mut scene);
        let (e, k) = (by_pair(&exact), by_pair(&kept));
        let deepest = |ms: &[ContactManifold]| ms.iter().map(|m| m.deepest().depth).fold(Real::NEG_INFINITY, Real::max);
        for pair in e.keys().chain(k.keys()) {
            match (e.get(pair), k.get(pair)) {
                (Some(a), Some(b)) if a == b => same += 1,
                (Some(a), Some(b)) => {
                    differ += 1;
                    let (de, dk) = (deepest(a), deepest(b));
                    assert!((de - dk).abs() <= 2.0 * d + slack, "frame {frame} {pair:?}: depth {dk} kept, {de} exact");
                }
                (Some(a), None) => {
                    let de = deepest(a);
                    assert!(de <= -PREDICTION + 2.0 * d + slack, "frame {frame} {pair:?}: none kept, {de} exact");
                }
                (None, Some(b)) => {
                    let dk = deepest(b);
                    assert!(dk <= -PREDICTION + 2.0 * d + slack, "frame {frame} {pair:?}: {dk} kept, none exact");
                }
                (None, None) => unreachable!("a pair from one of the lists"),
            }
        }
        // The contacts follow the manifolds handed out.
        for c in kept.contacts() {
            let ms = &k[&(c.a, c.b)];
            assert_eq!(c.contact.depth, deepest(ms), "frame {frame}: the contact is the deepest point");
        }
    }
    assert!(same > 1000 && differ > 1000, "{same} pairs equal to the exact ones, {differ} kept and carried");
}

#[cfg(feature = "parallel")]
#[test]
fn two_threads_keep_and_compute_the_same_manifolds() {
    let (mut one, handles) = pile(0xBEE);
    let mut two = one.clone();
    let tolerance = reuse(1e-3, 5e-3);
    let mut serial = ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_manifold_reuse(tolerance);
    let mut parallel = ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_manifold_reuse(tolerance);
    let mut exact = ContactPipeline::new().with_manifolds(PREDICTION).unwrap();
    let mut three = one.clone();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut rng = proxima_test_support::rng(11);
    let mut reused_frames = 0;
    for frame in 0..30 {
        let poses: Vec<_> = handles
            .iter()
            .map(|&h| {
                let step = if rng.random_bool(0.8) { 3e-4 } else { 3e-3 };
                let d = Vector::new(uniform(&mut rng, -step, step), uniform(&mut rng, -step, step), 0.0);
                (h, moved(one.get(h).unwrap().pose(), d, Vector::z(), uniform(&mut rng, 0.0, step)))
            })
            .collect();
        one.set_poses(&poses).unwrap();
        two.set_poses(&poses).unwrap();
        three.set_poses(&poses).unwrap();
        exact.update(&mut three);
        let events = serial.update(&mut one).to_vec();
        let parallel_events = pool.install(|| parallel.update_parallel(&mut two).to_vec());
        assert_eq!(events, parallel_events, "frame {frame}");
        assert_eq!(serial.manifolds(), parallel.manifolds(), "frame {frame}");
        assert_eq!(serial.contacts(), parallel.contacts(), "frame {frame}");
        reused_frames += usize::from(serial.manifolds() != exact.manifolds());
    }
    assert!(reused_frames > 10, "kept manifolds in {reused_frames} frames of 30");
}

#[test]
fn invalid_tolerances_are_refused() {
    for (t, r) in [(-1e-3, 0.0), (Real::NAN, 0.0), (Real::INFINITY, 0.0), (0.0, -0.1), (0.0, Real::NAN), (0.0, 3.2)] {
        assert_eq!(ManifoldReuse::new(t, r), Err(SceneError::InvalidReuseTolerance), "{t} {r}");
    }
    let zero = reuse(0.0, 0.0);
    assert_eq!((zero.max_translation(), zero.max_rotation()), (0.0, 0.0));
    let pipeline = ContactPipeline::new().with_manifold_reuse(zero);
    assert_eq!(pipeline.manifold_reuse(), Some(zero));
    assert_eq!(ContactPipeline::new().manifold_reuse(), None);
}

#[cfg(feature = "serde")]
#[test]
fn a_snapshot_keeps_the_tolerance_and_refuses_an_invalid_one() {
    let tolerance = reuse(1e-3, 0.03);
    let pipeline = ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_manifold_reuse(tolerance);
    let json = serde_json::to_string(&pipeline).unwrap();
    let restored: ContactPipeline = serde_json::from_str(&json).unwrap();
    assert_eq!(restored.manifold_reuse(), Some(tolerance));
    assert_eq!(serde_json::from_str::<ManifoldReuse>("[0.001,0.03]").unwrap(), tolerance);
    assert!(serde_json::from_str::<ManifoldReuse>("[-0.001,0.03]").is_err());
    assert!(serde_json::from_str::<ManifoldReuse>("[0.001,4.0]").is_err());
}
