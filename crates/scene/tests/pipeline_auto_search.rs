//! The contact pipeline's automatic pair search (`PairSearch::Auto`):
//! whichever search a frame runs, and however often it switches, the
//! contacts equal brute force, the events are the set differences of
//! brute-force pair sets, and contacts and manifolds equal a pipeline fixed
//! on the tracker; through insertions, removals with slot reuse, moves,
//! teleports and colliders left at rest.

mod common;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

use common::{event_sets, interacting, Pairs};

/// One frame's edits, drawn from `rng`: some colliders removed (highest slot
/// first, so new ones reuse slots out of order) or inserted, a fraction
/// moved by a small step, a few teleported across the world; the rest stay
/// at rest (the tracker's cheap case).
fn edit(scene: &mut Scene, rng: &mut impl Rng, frame: usize, side: f32) {
    match frame % 5 {
        1 => {
            let mut gone: Vec<_> = scene.iter().map(|(h, _)| h).filter(|h| h.index() % 9 == frame as u32 % 9).collect();
            gone.sort_by_key(|h| std::cmp::Reverse(h.index()));
            for h in gone {
                scene.remove(h).unwrap();
            }
        }
        3 => {
            for _ in 0..scene.len().abs_diff(900) {
                let r = uniform(rng, 0.2, 0.9);
                scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: r }, common::pose(rng, side))).unwrap();
            }
        }
        _ => {}
    }
    // Quiet frames (every fourth) move nothing; others move a share that
    // changes from frame to frame, so the searches' costs cross.
    let moved = if frame % 4 == 0 { 0.0 } else { [0.05, 0.6, 0.9][frame % 3] };
    let movers: Vec<_> = scene.iter().filter(|(_, c)| c.kind() != BodyKind::Fixed).map(|(h, _)| h).collect();
    for h in movers {
        let draw = uniform(rng, 0.0, 1.0);
        if draw < 0.01 * moved {
            scene.teleport(h, common::pose(rng, side)).unwrap();
        } else if draw < moved {
            let c = scene.get(h).unwrap();
            let d = Vector::new(uniform(rng, -0.4, 0.4), uniform(rng, -0.4, 0.4), uniform(rng, -0.4, 0.4));
            let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation);
            scene.set_pose(h, pose).unwrap();
        }
    }
}

/// Runs `frames` frames of [`edit`] on two copies of a scene, one under
/// `pipeline`, one under a pipeline fixed on the tracker, and checks each
/// frame; returns the searches `pipeline` ran.
fn check(mut pipeline: ContactPipeline, frames: usize, seed: u64) -> Vec<PairSearch> {
    let side = 15.0;
    let (mut scene, _) = common::mixed_scene(900, side, seed);
    let mut reference_scene = scene.clone();
    let mut reference = ContactPipeline::new().with_manifolds(0.02).unwrap().with_pair_search(PairSearch::Tracker);
    let mut rng = proxima_test_support::rng(seed + 1);
    let mut previous = Pairs::new();
    let mut ran = Vec::new();
    let (mut started_total, mut stopped_total) = (0, 0);
    for frame in 0..frames {
        let edits = rng.random_range(0..u64::MAX);
        for s in [&mut scene, &mut reference_scene] {
            edit(s, &mut proxima_test_support::rng(edits), frame, side);
        }
        let events = pipeline.update(&mut scene).to_vec();
        let expected = reference.update(&mut reference_scene).to_vec();
        ran.push(pipeline.running_pair_search());
        let brute = interacting(&scene);
        let ours: Pairs = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ours, brute, "frame {frame} ({:?}): contacts differ from brute force", ran[frame]);
        let (started, stopped) = event_sets(&events);
        assert_eq!(started, brute.difference(&previous).copied().collect(), "frame {frame}: started");
        assert_eq!(stopped, previous.difference(&brute).copied().collect(), "frame {frame}: stopped");
        assert_eq!(events, expected, "frame {frame}: events differ from the tracker's");
        assert_eq!(pipeline.contacts(), reference.contacts(), "frame {frame}: contacts differ from the tracker's");
        assert_eq!(pipeline.manifolds(), reference.manifolds(), "frame {frame}: manifolds differ from the tracker's");
        started_total += started.len();
        stopped_total += stopped.len();
        previous = brute;
    }
    assert!(started_total > 200 && stopped_total > 200, "{started_total} started, {stopped_total} stopped");
    ran
}

/// On a fixed schedule the searches alternate every 1, 2 or 3 frames: every
/// kind of frame (edits, removals, insertions, quiet frames) meets a switch
/// both ways.
#[test]
fn alternating_searches_match_brute_force_and_the_tracker() {
    for (every, seed) in [(1, 0xA1), (2, 0xA2), (3, 0xA3)] {
        let pipeline = ContactPipeline::new().with_manifolds(0.02).unwrap().with_alternating_search(every);
        let ran = check(pipeline, 24, seed);
        let switches = ran.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(switches >= 23 / every as usize - 1, "every {every}: only {switches} switches");
        assert!(ran.contains(&PairSearch::Grid) && ran.contains(&PairSearch::Tracker));
    }
}

/// The clock-driven choice (the default): whatever it picks, frame after
/// frame, the output is the tracker's. Its first probe of the other search
/// comes after 8 frames, so 40 frames run both.
#[test]
fn measured_choice_matches_brute_force_and_the_tracker() {
    let pipeline = ContactPipeline::new().with_manifolds(0.02).unwrap();
    assert_eq!(pipeline.pair_search(), PairSearch::Auto);
    let ran = check(pipeline, 40, 0xA4);
    assert!(ran.iter().all(|&s| s == PairSearch::Tracker || s == PairSearch::Grid));
    if cfg!(feature = "timing") {
        assert!(ran.contains(&PairSearch::Grid), "no probe of the grid in 40 frames");
    }
}

/// `with_pair_search` fixes the search: `Auto` never runs the other one.
#[test]
fn a_fixed_search_is_kept() {
    for search in [PairSearch::Tracker, PairSearch::Grid] {
        let (mut scene, _) = common::mixed_scene(300, 10.0, 0xA5);
        let mut pipeline = ContactPipeline::new().with_pair_search(search);
        let mut rng = proxima_test_support::rng(0xA6);
        for frame in 0..30 {
            edit(&mut scene, &mut rng, frame, 10.0);
            pipeline.update(&mut scene);
            assert_eq!(pipeline.running_pair_search(), search, "frame {frame}");
        }
    }
}
