//! The collision step's contenders agree on which pairs touch, and the
//! recorded shapes and poses are rapier's.
//!
//! A pair touches when its deepest manifold point has depth >= 0. proxima
//! and parry3d compute that depth with different algorithms, so a pair
//! grazed at the rounding level may touch in one and not in the other: a
//! disagreement is tolerated where parry3d's depth is within [`BAND`] of 0,
//! and counted. parry3d's kept manifolds reuse their points while a pair
//! moves little, so their depth may be off by more than the band: a
//! disagreement outside the band is tolerated, and counted apart, where
//! parry3d's one-shot `query::contact` (nothing reused) sides with proxima.
//! proxima's manifold reuse row is not exact: its disagreements are held to
//! its documented bound instead.

use proxima::scene::{ColliderDesc, Scene};
use proxima_bench_rapier::*;

/// The tolerance band on parry3d's deepest depth, in metres.
const BAND: f32 = 1e-4;

/// What a replay of every contender found, compared with parry3d at every step.
struct Replayed {
    /// Per proxima contender (name, its bound when not exact, agreement with
    /// parry3d).
    agreements: Vec<(&'static str, Option<f32>, Agreement)>,
    /// Steps where the proxima contenders' deepest points differ.
    searches_differ: usize,
    /// parry3d's pairs with manifold points at the last step.
    last_parry: Vec<PairDepth>,
}

fn replay_all(recording: &Recording) -> Replayed {
    let mut contenders = all_steps();
    assert_eq!(contenders[0].name(), "parry3d");
    for contender in contenders.iter_mut() {
        contender.start(recording);
    }
    let mut agreements: Vec<_> =
        contenders[1..].iter().map(|c| (c.name(), c.approximate_within(), Agreement::default())).collect();
    let (mut reference, mut first, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let mut searches_differ = 0;
    for (k, frame) in recording.frames.iter().enumerate().skip(1) {
        for contender in contenders.iter_mut() {
            contender.step(frame);
        }
        contenders[0].deepest_points(&mut reference);
        contenders[1].deepest_points(&mut first);
        let exact = |a, b| one_shot_depth(recording, frame, a, b);
        compare_touching(k, &reference, &first, BAND, exact, &mut agreements[0].2);
        for (contender, (_, _, agreement)) in contenders[2..].iter().zip(&mut agreements[1..]) {
            contender.deepest_points(&mut other);
            compare_touching(k, &reference, &other, BAND, exact, agreement);
            if contender.approximate_within().is_none() {
                searches_differ += usize::from(other != first);
            }
        }
    }
    Replayed { agreements, searches_differ, last_parry: reference }
}

/// Checks every proxima contender against parry3d and prints the counts.
fn check(scene: &str, replayed: &Replayed) {
    for (name, approximate, a) in &replayed.agreements {
        eprintln!(
            "{scene}, {name} vs parry3d over {} steps: {} touching pairs in both, {} in one only within the band, \
             {} outside it where parry3d's one-shot contact sides with proxima, {} other; {} pairs with points in \
             both; largest depth difference {:.2e} m",
            a.steps,
            a.touching_in_both,
            a.in_band,
            a.reference_off,
            a.outside_band.len(),
            a.with_points_in_both,
            a.max_depth_difference
        );
        match approximate {
            None => {
                assert!(
                    a.outside_band.is_empty(),
                    "{name}: touching pairs differ outside the band: {:?}",
                    &a.outside_band
                )
            }
            // Not exact: its depths within its bound of parry3d's (whose own
            // kept manifolds differ from the exact depth by a few mm).
            Some(bound) => {
                let off = bound + 5e-3;
                assert!(a.max_depth_difference <= off, "{name}: depths off by {} > {off}", a.max_depth_difference);
                for d in &a.outside_band {
                    let depth = d.reference.or(d.other).map_or(0.0, |p| p.depth);
                    assert!(depth.abs() <= off, "{name}: touching pairs differ by more than its bound: {d:?}");
                }
            }
        }
    }
    assert_eq!(replayed.searches_differ, 0, "the tracker and the grid give different manifolds");
}

/// The bench scene (8,000 balls and cuboids, 300 steps): the pile lands,
/// collapses and settles.
#[test]
fn proxima_and_parry_touch_the_same_pairs_on_the_bench_scene() {
    let recording = record(&SceneOptions::default());
    let replayed = replay_all(&recording);
    check("bench scene", &replayed);
    let a = &replayed.agreements[0].2;
    assert_eq!(a.steps, 299);
    assert!(a.touching_in_both > 1_000_000, "too few contacts to test anything: {}", a.touching_in_both);
}

/// A pile with 30% capsules: every pair of shapes, the ground included.
#[test]
fn proxima_and_parry_touch_the_same_pairs_with_capsules() {
    let options = SceneOptions { bodies: 2000, columns: 20, steps: 150, capsules: 0.3, ..SceneOptions::default() };
    let recording = record(&options);
    let replayed = replay_all(&recording);
    check("2,000 bodies with capsules", &replayed);
    let is_capsule = |i: u32| matches!(recording.shapes[i as usize], RecordedShape::Capsule { .. });
    let touching = replayed.last_parry.iter().filter(|p| p.depth >= 0.0);
    let capsule_capsule = touching.clone().filter(|p| is_capsule(p.a) && is_capsule(p.b)).count();
    let capsule_ground = touching.filter(|p| p.a == 0 && is_capsule(p.b)).count();
    assert!(
        capsule_capsule >= 20 && capsule_ground >= 20,
        "{capsule_capsule} capsule pairs, {capsule_ground} on the ground"
    );
}

/// A small pile with capsules on the bumpy mesh floor: balls, cuboids and
/// capsules against the mesh's triangles, landing in its hollows.
#[test]
fn proxima_and_parry_touch_the_same_pairs_on_the_mesh_floor() {
    let options = SceneOptions {
        bodies: 300,
        columns: 10,
        steps: 90,
        capsules: 0.3,
        floor: Floor::TriMesh,
        ..SceneOptions::default()
    };
    let recording = record(&options);
    let RecordedShape::TriMesh { indices, .. } = &recording.shapes[0] else { panic!("a mesh floor") };
    assert_eq!(indices.len(), 8192);
    let replayed = replay_all(&recording);
    check("300 bodies on the mesh floor", &replayed);
    let on_floor = |f: fn(&RecordedShape) -> bool| {
        let touching = replayed.last_parry.iter().filter(|p| p.a == 0 && p.depth >= 0.0);
        touching.filter(|p| f(&recording.shapes[p.b as usize])).count()
    };
    let balls = on_floor(|s| matches!(s, RecordedShape::Ball { .. }));
    let cuboids = on_floor(|s| matches!(s, RecordedShape::Cuboid { .. }));
    let capsules = on_floor(|s| matches!(s, RecordedShape::Capsule { .. }));
    assert!(
        balls >= 10 && cuboids >= 10 && capsules >= 5,
        "on the floor: {balls} balls, {cuboids} cuboids, {capsules} capsules"
    );
}

#[test]
fn capsules_are_spread_evenly_and_the_rest_alternate() {
    let options = SceneOptions { bodies: 100, columns: 10, steps: 2, capsules: 0.3, ..SceneOptions::default() };
    assert_eq!((0..1000).filter(|&k| options.is_capsule(k)).count(), 300);
    assert!(!(0..1000).any(|k| SceneOptions::default().is_capsule(k)));
    let recording = record(&options);
    let shapes = &recording.shapes[1..];
    let count = |f: fn(&RecordedShape) -> bool| shapes.iter().filter(|s| f(s)).count();
    assert_eq!(count(|s| matches!(s, RecordedShape::Capsule { .. })), 30);
    assert_eq!(count(|s| matches!(s, RecordedShape::Ball { .. })), 35);
    assert_eq!(count(|s| matches!(s, RecordedShape::Cuboid { .. })), 35);
    // No capsule: balls and cuboids alternate, as the broadphase replays recorded them.
    let plain = record(&SceneOptions { capsules: 0.0, ..options });
    for (k, shape) in plain.shapes[1..].iter().enumerate() {
        assert_eq!(matches!(shape, RecordedShape::Ball { .. }), k % 2 == 0);
    }
}

/// Each recorded pose and shape gives, through parry3d, the box rapier
/// computed bit for bit, and through proxima the same box to rounding.
#[test]
fn recorded_poses_and_shapes_are_rapiers() {
    let options = SceneOptions { bodies: 300, columns: 10, steps: 40, capsules: 0.3, ..SceneOptions::default() };
    check_boxes(&record(&options));
    // The mesh floor, on its first steps.
    check_boxes(&record(&SceneOptions { steps: 3, floor: Floor::TriMesh, ..options }));
}

fn check_boxes(recording: &Recording) {
    for frame in &recording.frames {
        for (i, shape) in recording.shapes.iter().enumerate() {
            let theirs = parry_shape(shape).compute_aabb(&frame.poses[i]);
            assert_eq!(theirs, frame.parry[i], "collider {i}");
            let mut scene = Scene::new();
            let handle = scene.insert(ColliderDesc::new(proxima_shape(shape), frame.isometries[i])).unwrap();
            let ours = scene.get(handle).unwrap().aabb();
            let tolerance = 1e-5 * (1.0 + frame.boxes[i].max().coords.amax());
            for k in 0..3 {
                assert!((ours.min()[k] - frame.boxes[i].min()[k]).abs() <= tolerance, "collider {i}: {ours:?}");
                assert!((ours.max()[k] - frame.boxes[i].max()[k]).abs() <= tolerance, "collider {i}: {ours:?}");
            }
        }
    }
}
