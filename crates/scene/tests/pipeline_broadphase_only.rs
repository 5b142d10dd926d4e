//! A broadphase-only contact pipeline (`with_broadphase_only`): its
//! candidate pairs equal brute force over every pair of colliders (pairing
//! kinds, bodies and sensors, interacting groups, boxes grown by the
//! documented slack and half the distance), and its events are the set
//! differences of consecutive brute-force sets, frame after frame, through
//! insertions, removals with slot reuse, moves, teleports, group changes
//! and rest; under either search, the two alternating, and on a pool of two
//! threads.

mod common;

use std::collections::BTreeSet;

use nalgebra::Translation3;
use proxima_narrowphase::{Aabb, Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

type Pairs = BTreeSet<(ColliderHandle, ColliderHandle)>;

/// The box the documented rule grows: `distance / 2` plus `1e-5` of the
/// corners' coordinate magnitudes on each axis.
fn grown(aabb: &Aabb, distance: Real) -> Aabb {
    let slack = (aabb.min().coords.abs() + aabb.max().coords.abs()) * 1e-5 + Vector::repeat(distance * 0.5);
    aabb.loosened_per_axis(&slack)
}

/// Whether two boxes overlap or touch.
fn touch(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.min()[k] <= b.max()[k] && b.min()[k] <= a.max()[k])
}

/// Every pair the documented rule lists, by testing all of them.
fn brute(scene: &Scene, distance: Real) -> Pairs {
    let colliders: Vec<_> = scene.iter().collect();
    let mut pairs = Pairs::new();
    for (i, &(a, ca)) in colliders.iter().enumerate() {
        let box_a = grown(ca.aabb(), distance);
        for &(b, cb) in &colliders[i + 1..] {
            let (ga, gb) = (ca.groups(), cb.groups());
            let interact = ga.memberships & gb.filter != 0 && gb.memberships & ga.filter != 0;
            if ca.pairs_with(cb) && interact && touch(&box_a, &grown(cb.aabb(), distance)) {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    pairs
}

/// A scene of `n` colliders of every kind: dynamic, kinematic and fixed;
/// some sensors, some sharing a body, some in a group that meets only
/// itself.
fn scene(n: usize, side: Real, rng: &mut impl Rng) -> Scene {
    let mut scene = Scene::new();
    for i in 0..n {
        insert(&mut scene, rng, side, i);
    }
    scene
}

fn insert(scene: &mut Scene, rng: &mut impl Rng, side: Real, i: usize) -> ColliderHandle {
    let s = |rng: &mut _| uniform(rng, 0.1, 1.0);
    let shape = match i % 3 {
        0 => ColliderShape::Sphere { radius: s(rng) },
        1 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        _ => ColliderShape::Capsule { half_height: s(rng), radius: s(rng) * 0.5 },
    };
    let mut desc = ColliderDesc::new(shape, common::pose(rng, side));
    desc = match i % 7 {
        0 => desc.fixed(),
        1 => desc.kinematic(),
        2 => desc.sensor(),
        3 => desc.with_body(i as u64 % 4),
        4 => desc.with_groups(CollisionGroups::new(0b10, 0b10)),
        _ => desc,
    };
    scene.insert(desc).unwrap()
}

/// One frame's edits: removals (some slots reused out of order by the next
/// insertions), insertions, moves of a share of the movable colliders,
/// teleports, a group change; some frames leave everything at rest.
fn edit(scene: &mut Scene, rng: &mut impl Rng, frame: usize, side: Real) {
    if frame % 6 == 2 {
        let mut gone: Vec<_> = scene.iter().map(|(h, _)| h).filter(|h| h.index() % 11 == frame as u32 % 11).collect();
        gone.sort_by_key(|h| std::cmp::Reverse(h.index()));
        for h in gone {
            scene.remove(h).unwrap();
        }
        // Two of the freed slots taken again at once: a pair's `Stopped`
        // (old handle) and `Started` (new handle) in one frame.
        for i in 0..2 {
            insert(scene, rng, side, i + frame);
        }
    }
    if frame % 6 == 4 {
        for i in 0..scene.len().abs_diff(500) {
            insert(scene, rng, side, i + frame);
        }
    }
    if frame % 5 == 3 {
        let h = scene.iter().map(|(h, _)| h).nth(rng.random_range(0..scene.len())).unwrap();
        let groups = if rng.random_range(0..2) == 0 { CollisionGroups::default() } else { CollisionGroups::new(1, 1) };
        scene.set_groups(h, groups).unwrap();
    }
    let moved = [0.0, 0.3, 0.9][frame % 3];
    let movers: Vec<_> = scene.iter().filter(|(_, c)| c.kind() != BodyKind::Fixed).map(|(h, _)| h).collect();
    for h in movers {
        let draw = uniform(rng, 0.0, 1.0);
        if draw < 0.02 * moved {
            scene.teleport(h, common::pose(rng, side)).unwrap();
        } else if draw < moved {
            let c = scene.get(h).unwrap();
            let d = Vector::new(uniform(rng, -0.3, 0.3), uniform(rng, -0.3, 0.3), uniform(rng, -0.3, 0.3));
            let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation);
            scene.set_pose(h, pose).unwrap();
        }
    }
}

/// The events as (started, stopped) sets; asserts that they come in pair
/// order, each pair once.
fn event_sets(events: &[CandidateEvent]) -> (Pairs, Pairs) {
    let key = |e: &CandidateEvent| match *e {
        CandidateEvent::Started { a, b } | CandidateEvent::Stopped { a, b } => (a, b),
    };
    assert!(events.windows(2).all(|w| key(&w[0]) < key(&w[1])), "events out of pair order");
    let (mut started, mut stopped) = (Pairs::new(), Pairs::new());
    for e in events {
        match *e {
            CandidateEvent::Started { a, b } => started.insert((a, b)),
            CandidateEvent::Stopped { a, b } => stopped.insert((a, b)),
        };
    }
    (started, stopped)
}

/// Runs `frames` frames under `pipeline` and checks each against brute
/// force; `parallel` updates on a two-thread pool.
fn check(mut pipeline: ContactPipeline, distance: Real, parallel: bool, seed: u64) {
    let side = 12.0;
    let mut rng = proxima_test_support::rng(seed);
    let mut scene = scene(500, side, &mut rng);
    let pool = parallel.then(|| rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap());
    let mut previous = Pairs::new();
    let (mut started_total, mut stopped_total) = (0, 0);
    for frame in 0..30 {
        edit(&mut scene, &mut rng, frame, side);
        match &pool {
            #[cfg(feature = "parallel")]
            Some(pool) => {
                pool.install(|| pipeline.update_parallel(&mut scene));
            }
            _ => {
                pipeline.update(&mut scene);
            }
        }
        let expected = brute(&scene, distance);
        let listed = pipeline.candidate_pairs();
        assert!(listed.windows(2).all(|w| w[0] < w[1]), "frame {frame}: pairs not sorted and unique");
        assert_eq!(listed.iter().copied().collect::<Pairs>(), expected, "frame {frame}: pairs differ from brute force");
        let (started, stopped) = event_sets(pipeline.candidate_events());
        assert_eq!(started, expected.difference(&previous).copied().collect(), "frame {frame}: started");
        assert_eq!(stopped, previous.difference(&expected).copied().collect(), "frame {frame}: stopped");
        assert!(pipeline.contacts().is_empty() && pipeline.manifolds().is_empty() && pipeline.events().is_empty());
        assert!(pipeline.stats().candidate_pairs >= listed.len());
        started_total += started.len();
        stopped_total += stopped.len();
        previous = expected;
    }
    assert!(started_total > 300 && stopped_total > 200, "{started_total} started, {stopped_total} stopped");
}

#[test]
fn candidates_match_brute_force_with_each_search() {
    for (search, seed) in [(PairSearch::Tracker, 0xB0), (PairSearch::Grid, 0xB1), (PairSearch::Auto, 0xB2)] {
        for distance in [0.0, 0.25] {
            let pipeline = ContactPipeline::new().with_broadphase_only(distance).unwrap().with_pair_search(search);
            check(pipeline, distance, false, seed);
        }
    }
}

#[test]
fn candidates_match_brute_force_across_search_switches() {
    for (every, seed) in [(1, 0xB3), (3, 0xB4)] {
        let pipeline = ContactPipeline::new().with_broadphase_only(0.1).unwrap().with_alternating_search(every);
        check(pipeline, 0.1, false, seed);
    }
}

#[cfg(feature = "parallel")]
#[test]
fn candidates_match_brute_force_on_two_threads() {
    let pipeline = ContactPipeline::new().with_broadphase_only(0.1).unwrap().with_alternating_search(2);
    check(pipeline, 0.1, true, 0xB5);
}

#[test]
fn the_mode_is_left_and_taken_again() {
    let mut rng = proxima_test_support::rng(0xB6);
    let mut scene = scene(300, 8.0, &mut rng);
    let mut pipeline = ContactPipeline::new().with_broadphase_only(0.0).unwrap();
    assert_eq!(pipeline.broadphase_only(), Some(0.0));
    pipeline.update(&mut scene);
    assert_eq!(pipeline.candidate_pairs().iter().copied().collect::<Pairs>(), brute(&scene, 0.0));
    // Exact tests again: the contacts are brute force's, the candidate lists
    // empty.
    let mut pipeline = pipeline.with_manifolds(0.02).unwrap();
    assert_eq!(pipeline.broadphase_only(), None);
    pipeline.update(&mut scene);
    assert!(pipeline.candidate_pairs().is_empty() && pipeline.candidate_events().is_empty());
    assert_eq!(
        pipeline.contacts().iter().map(|p| (p.a, p.b)).collect::<Pairs>(),
        common::interacting(&scene)
            .into_iter()
            .filter(|&(a, b)| scene.get(a).unwrap().pairs_with(scene.get(b).unwrap()))
            .filter(|&(a, b)| !scene.get(a).unwrap().is_sensor() && !scene.get(b).unwrap().is_sensor())
            .collect()
    );
    assert!(!pipeline.contacts().is_empty() && !pipeline.sensor_pairs().is_empty());
    // Broadphase-only again, at a larger distance: every pair listed starts;
    // the contacts, manifolds and sensor pairs go without events.
    let mut pipeline = pipeline.with_broadphase_only(0.5).unwrap();
    assert_eq!(pipeline.prediction(), None);
    assert!(pipeline.contacts().is_empty() && pipeline.manifolds().is_empty() && pipeline.sensor_pairs().is_empty());
    assert!(pipeline.update(&mut scene).is_empty());
    assert!(pipeline.sensor_events().is_empty() && pipeline.contacts_of(scene.iter().next().unwrap().0).count() == 0);
    let expected = brute(&scene, 0.5);
    assert_eq!(pipeline.candidate_pairs().iter().copied().collect::<Pairs>(), expected);
    assert_eq!(event_sets(pipeline.candidate_events()).0, expected);
    for bad in [-1.0, Real::NAN, Real::INFINITY] {
        assert_eq!(ContactPipeline::new().with_broadphase_only(bad).unwrap_err(), SceneError::InvalidPrediction);
    }
}
