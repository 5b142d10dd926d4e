//! `Scene::set_poses` against `set_pose` called on each pair in order: the
//! same scene after a call that passes, an unchanged scene after one that is
//! rejected (stale handle, invalid pose, a placement out of bounds), wherever
//! the bad pair sits in the list.

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{ConvexHull, Isometry, Point, Real, Rotation, Sphere, Vector, MAX_COORDINATE};
use proxima_scene::{
    ColliderDesc, ColliderHandle, ColliderShape, Compound, ContactEvent, ContactPipeline, QueryFilter, Scene,
    SceneError,
};
use proxima_test_support::gen::uniform;
use rand::Rng;

/// A scene of `n` mixed colliders (every third one fixed) and their handles:
/// spheres, boxes and capsules, which `set_poses` places once its checks
/// pass, and hulls and compounds, which its checks place.
fn scene(n: usize, rng: &mut impl Rng) -> (Scene, Vec<ColliderHandle>) {
    let mut scene = Scene::new();
    let corners: Vec<Point> =
        (0..8).map(|i| Point::new((i & 1) as Real, (i >> 1 & 1) as Real, (i >> 2) as Real)).collect();
    let hull = Arc::new(ConvexHull::try_new(&corners).expect("a unit cube"));
    let ball = ColliderShape::Sphere { radius: 0.3 };
    let pair =
        vec![(Isometry::translation(0.5, 0.0, 0.0), ball.clone()), (Isometry::translation(-0.5, 0.0, 0.0), ball)];
    let compound = Arc::new(Compound::try_new(pair).expect("valid compound"));
    let handles = (0..n)
        .map(|i| {
            let shape = match i % 6 {
                0 => ColliderShape::Sphere { radius: uniform(rng, 0.2, 1.0) },
                1 => ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.3, 0.8) },
                2 => ColliderShape::Capsule { half_height: 0.6, radius: 0.3 },
                3 => ColliderShape::ConvexHull(Arc::clone(&hull)),
                4 => ColliderShape::Compound(Arc::clone(&compound)),
                _ => ColliderShape::Cuboid { half_extents: Vector::repeat(0.4) },
            };
            let desc = ColliderDesc::new(shape, random_pose(rng, 10.0));
            scene.insert(if i % 3 == 0 { desc.fixed() } else { desc }).unwrap()
        })
        .collect();
    (scene, handles)
}

fn random_pose(rng: &mut impl Rng, extent: Real) -> Isometry {
    let t =
        Translation3::new(uniform(rng, -extent, extent), uniform(rng, -extent, extent), uniform(rng, -extent, extent));
    let r = Rotation::from_euler_angles(uniform(rng, -3.0, 3.0), uniform(rng, -3.0, 3.0), uniform(rng, -3.0, 3.0));
    // One in four poses unrotated: the boxes placed axis-aligned.
    if rng.random_range(0..4) == 0 {
        Isometry::from_parts(t, Rotation::identity())
    } else {
        Isometry::from_parts(t, r)
    }
}

/// A bad pair for `set_poses` and the test its error must pass.
type BadMove = (ColliderHandle, Isometry, fn(&SceneError) -> bool);

/// What a collider holds after a move, compared bit for bit.
fn state(scene: &Scene, handles: &[ColliderHandle]) -> Vec<String> {
    handles.iter().map(|h| format!("{:?}", scene.get(*h).map(|c| (c.pose(), c.aabb(), c.world_shape())))).collect()
}

/// The colliders each probe sphere overlaps: the dynamic tree's answer.
fn probes(scene: &Scene, rng: &mut impl Rng) -> Vec<Vec<ColliderHandle>> {
    (0..40)
        .map(|_| {
            let c = Point::new(uniform(rng, -12.0, 12.0), uniform(rng, -12.0, 12.0), uniform(rng, -12.0, 12.0));
            let mut hits = scene.overlaps_sphere(&Sphere::new(c, 2.0), &QueryFilter::default());
            hits.sort_by_key(|h| h.index());
            hits
        })
        .collect()
}

#[test]
fn set_poses_is_set_pose_on_each_pair_in_order() {
    let mut rng = proxima_test_support::rng(31);
    for round in 0..50 {
        let (mut bulk, handles) = scene(60, &mut rng);
        let mut single = bulk.clone();
        let (mut p_bulk, mut p_single) = (ContactPipeline::new(), ContactPipeline::new());
        p_bulk.update(&mut bulk);
        p_single.update(&mut single);
        for _ in 0..5 {
            // A random subset, some handles twice (the last pose wins).
            let mut moves: Vec<(ColliderHandle, Isometry)> = Vec::new();
            for h in &handles {
                if rng.random_range(0..3) > 0 {
                    moves.push((*h, random_pose(&mut rng, 10.0)));
                }
            }
            for _ in 0..3 {
                let h = handles[rng.random_range(0..handles.len())];
                moves.push((h, random_pose(&mut rng, 10.0)));
            }
            bulk.set_poses(&moves).unwrap();
            for (h, pose) in &moves {
                single.set_pose(*h, *pose).unwrap();
            }
            assert_eq!(state(&bulk, &handles), state(&single, &handles), "round {round}");
            let seed = rng.random::<u64>();
            let (mut r1, mut r2) = (proxima_test_support::rng(seed), proxima_test_support::rng(seed));
            assert_eq!(probes(&bulk, &mut r1), probes(&single, &mut r2), "round {round}");
            let events_bulk: Vec<ContactEvent> = p_bulk.update(&mut bulk).to_vec();
            let events_single: Vec<ContactEvent> = p_single.update(&mut single).to_vec();
            assert_eq!(events_bulk, events_single, "round {round}");
            assert_eq!(p_bulk.contacts(), p_single.contacts(), "round {round}");
        }
        bulk.validate().unwrap();
    }
}

#[test]
fn a_rejected_set_poses_changes_nothing() {
    let mut rng = proxima_test_support::rng(32);
    let (mut scene, handles) = scene(40, &mut rng);
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let removed = handles[5];
    scene.remove(removed).unwrap();
    pipeline.update(&mut scene);
    // A capsule whose core reaches past the coordinate bound at the bad
    // pose, though its centre is within it.
    let long_capsule = ColliderShape::Capsule { half_height: MAX_COORDINATE / 2.0, radius: 1.0 };
    let capsule = scene.insert(ColliderDesc::new(long_capsule, Isometry::identity())).unwrap();
    let mut nan = Isometry::identity();
    nan.translation.vector.y = Real::NAN;
    let mut long = Isometry::identity();
    long.rotation = Rotation::new_unchecked(nalgebra::Quaternion::new(2.0, 0.0, 0.0, 0.0));
    let edge = Isometry::translation(0.0, 0.75 * MAX_COORDINATE, 0.0);
    let live: Vec<ColliderHandle> = handles.iter().copied().filter(|h| *h != removed).chain([capsule]).collect();
    pipeline.update(&mut scene);
    let bad: [BadMove; 4] = [
        (removed, Isometry::identity(), |e| *e == SceneError::StaleHandle),
        (handles[7], nan, |e| matches!(e, SceneError::InvalidPose { .. })),
        (handles[9], long, |e| matches!(e, SceneError::InvalidPose { .. })),
        (capsule, edge, |e| matches!(e, SceneError::InvalidShape(_))),
    ];
    for (bad_handle, bad_pose, is_expected) in bad {
        for at in [0, 10, 20] {
            let before = state(&scene, &live);
            let mut moves: Vec<(ColliderHandle, Isometry)> =
                live.iter().take(20).map(|h| (*h, random_pose(&mut rng, 10.0))).collect();
            moves.insert(at, (bad_handle, bad_pose));
            let Err(error) = scene.set_poses(&moves) else { panic!("{bad_handle:?} {bad_pose:?} accepted") };
            assert!(is_expected(&error), "{error:?} at {at}");
            if let SceneError::InvalidPose { handle, .. } = error {
                assert_eq!(handle, Some(bad_handle), "the error names the bad pair's handle");
            }
            assert_eq!(state(&scene, &live), before, "a rejected call moved something");
            // Nothing logged: the next update reports no change.
            assert!(pipeline.update(&mut scene).is_empty());
            scene.validate().unwrap();
        }
    }
}
