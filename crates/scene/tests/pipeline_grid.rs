//! The contact pipeline with the grid search (`PairSearch::Grid`): the same
//! contacts, manifolds and events as brute force and as the tracker's
//! search, frame after frame, through moves, removals and slot reuse, group
//! changes, static colliders, the parallel update and a switch of search
//! mid-run; colliders nobody touched are not read again.

mod common;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

use common::{event_sets, interacting, Pairs};

/// Moves about `fraction` of the dynamic colliders by up to `step` per axis.
fn jitter(scene: &mut Scene, rng: &mut impl Rng, fraction: Real, step: Real) {
    let moving: Vec<_> = scene.iter().filter(|(_, c)| c.kind() != BodyKind::Fixed).map(|(h, _)| h).collect();
    for h in moving {
        if uniform(rng, 0.0, 1.0) > fraction {
            continue;
        }
        let c = scene.get(h).unwrap();
        let d = Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step));
        let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation);
        scene.set_pose(h, pose).unwrap();
    }
}

/// Frames of moves, removals (highest slot first, so that new colliders
/// reuse slots out of order), insertions and group changes, on two copies
/// of a scene: one pipeline per search, each checked against brute force
/// (contacts and events), and against each other (the same contacts, in the
/// same order, with the same manifolds).
#[test]
fn grid_search_matches_brute_force_and_the_tracker() {
    let side = 16.0;
    let (mut grid_scene, _) = common::mixed_scene(1_200, side, 0x61D);
    let mut tracker_scene = grid_scene.clone();
    let mut grid = ContactPipeline::new().with_manifolds(0.02).unwrap().with_pair_search(PairSearch::Grid);
    let mut tracker = ContactPipeline::new().with_manifolds(0.02).unwrap();
    let mut rng = proxima_test_support::rng(0x61E);
    let mut previous = Pairs::new();
    let (mut started_total, mut stopped_total, mut regrouped) = (0, 0, 0);
    for frame in 0..14 {
        // The same changes on both scenes, drawn once.
        let seed = rng.random_range(0..u64::MAX);
        for scene in [&mut grid_scene, &mut tracker_scene] {
            let mut rng = proxima_test_support::rng(seed);
            // Removals one frame, as many insertions the next (into the
            // freed slots, out of order): the grid's list shrinks, then grows.
            if frame % 4 == 2 {
                let mut gone: Vec<_> = scene.iter().map(|(h, _)| h).filter(|h| h.index() % 7 == frame % 7).collect();
                gone.sort_by_key(|h| std::cmp::Reverse(h.index()));
                for h in &gone {
                    scene.remove(*h).unwrap();
                }
            }
            if frame % 4 == 3 {
                for _ in 0..scene.len().abs_diff(1_200) {
                    let r = uniform(&mut rng, 0.2, 0.9);
                    scene
                        .insert(ColliderDesc::new(ColliderShape::Sphere { radius: r }, common::pose(&mut rng, side)))
                        .unwrap();
                }
            }
            if frame % 3 == 1 {
                let handles: Vec<_> = scene.iter().map(|(h, _)| h).collect();
                for h in handles {
                    if rng.random_bool(0.1) {
                        let g = CollisionGroups::new(1 + rng.random_range(0..3), 1 + rng.random_range(0..3));
                        scene.set_groups(h, g).unwrap();
                        regrouped += 1;
                    }
                }
            }
            jitter(scene, &mut rng, 0.3, 0.4);
        }
        let events = grid.update(&mut grid_scene).to_vec();
        tracker.update(&mut tracker_scene);
        let brute = interacting(&grid_scene);
        let ours: Vec<_> = grid.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert!(ours.windows(2).all(|w| w[0] < w[1]), "frame {frame}: contacts not sorted");
        assert_eq!(ours.iter().copied().collect::<Pairs>(), brute, "frame {frame}: contacts differ from brute force");
        assert_eq!(grid.contacts(), tracker.contacts(), "frame {frame}: the searches' contacts differ");
        assert_eq!(grid.manifolds(), tracker.manifolds(), "frame {frame}: the searches' manifolds differ");
        let (started, stopped) = event_sets(&events);
        assert_eq!(started, brute.difference(&previous).copied().collect(), "frame {frame}: started");
        assert_eq!(stopped, previous.difference(&brute).copied().collect(), "frame {frame}: stopped");
        if frame > 0 && frame % 4 < 2 {
            assert!(grid.stats().colliders_read < 1_200 / 2, "frame {frame}: every collider read");
        }
        started_total += started.len();
        stopped_total += stopped.len();
        previous = brute;
    }
    assert!(started_total > 300 && stopped_total > 300, "{started_total} started, {stopped_total} stopped");
    assert!(regrouped > 300, "only {regrouped} group changes");
}

/// Static colliders overlapping each other are binned like the others, and
/// their pairs are dropped; a static one and a dynamic one pair.
#[test]
fn grid_search_never_reports_static_pairs() {
    let mut scene = Scene::new();
    let slab = ColliderShape::Cuboid { half_extents: Vector::new(1.0, 0.5, 1.0) };
    let a = scene.insert(ColliderDesc::new(slab.clone(), Isometry::identity()).fixed()).unwrap();
    scene.insert(ColliderDesc::new(slab, Isometry::translation(0.5, 0.0, 0.0)).fixed()).unwrap();
    let ball = scene
        .insert(ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(-0.9, 0.9, 0.0)))
        .unwrap();
    let mut pipeline = ContactPipeline::new().with_pair_search(PairSearch::Grid);
    pipeline.update(&mut scene);
    let pairs: Vec<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(pairs, [(a, ball)]);
}

/// The parallel update and a switch of search between frames give the
/// contacts and events of the sequential tracker search.
#[test]
fn grid_search_parallel_and_switches_match_the_tracker() {
    // Past the grid's 2,048 boxes, below which its parallel search runs on
    // one thread.
    let side = 19.5;
    let (mut scene, _) = common::mixed_scene(2_500, side, 0x62A);
    let mut reference_scene = scene.clone();
    let mut reference = ContactPipeline::new();
    let mut switching = ContactPipeline::new();
    #[cfg(feature = "parallel")]
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut rng = proxima_test_support::rng(0x62B);
    for frame in 0..12 {
        let seed = rng.random_range(0..u64::MAX);
        for s in [&mut scene, &mut reference_scene] {
            let mut rng = proxima_test_support::rng(seed);
            // Removals while the tracker searches (frame 4), insertions later
            // (frame 7): the grid's list must not keep the removed colliders.
            if frame == 4 {
                let gone: Vec<_> = s.iter().map(|(h, _)| h).filter(|h| h.index() % 5 == 0).collect();
                for h in gone {
                    s.remove(h).unwrap();
                }
            }
            if frame == 7 {
                for _ in 0..100 {
                    let desc = ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, common::pose(&mut rng, side));
                    s.insert(desc).unwrap();
                }
            }
            jitter(s, &mut rng, 0.4, 0.4);
        }
        // Tracker, grid, grid, tracker, ... : each switch reads every collider.
        let search = if frame % 4 == 1 || frame % 4 == 2 { PairSearch::Grid } else { PairSearch::Tracker };
        if switching.pair_search() != search {
            switching = switching.with_pair_search(search);
        }
        #[cfg(feature = "parallel")]
        let events = if frame % 2 == 0 {
            pool.install(|| switching.update_parallel(&mut scene).to_vec())
        } else {
            switching.update(&mut scene).to_vec()
        };
        #[cfg(not(feature = "parallel"))]
        let events = switching.update(&mut scene).to_vec();
        let expected = reference.update(&mut reference_scene).to_vec();
        assert_eq!(switching.contacts(), reference.contacts(), "frame {frame} ({search:?}): contacts differ");
        assert_eq!(events, expected, "frame {frame} ({search:?}): events differ");
    }
}
