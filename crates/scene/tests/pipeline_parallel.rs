//! `ContactPipeline::update_parallel` against `update`: three copies of one
//! scene, moved alike frame by frame, one per way of updating (`update`,
//! `update_parallel` on pools of 1 and 2 threads). Every frame the contacts,
//! manifolds, events, CCD impacts and counts are identical (bit for bit,
//! in the same order), and the contact pairs equal brute force. The scene
//! is dense enough for many slices of exact tests, with meshes, CCD spheres,
//! heavy frames (the tracker's marked descent), quiet ones, and a frame that
//! scatters the bodies (fewer slices than the frame before).
#![cfg(feature = "parallel")]

mod common;

use std::collections::BTreeSet;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use rand::Rng;

/// The mixed scene of the other pipeline tests, with static meshes and CCD
/// spheres added.
fn scene(n: usize, side: Real, seed: u64) -> (Scene, Vec<ColliderHandle>) {
    let (mut scene, mut handles) = common::mixed_scene(n, side, seed);
    let mut rng = proxima_test_support::rng(seed + 1);
    // A flat 4 x 4 grid of side 3.
    let mesh = common::patch(&mut rng, 4, 0.75, 0.0);
    for _ in 0..12 {
        let pose = common::pose(&mut rng, side);
        handles.push(scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh.clone()), pose).fixed()).unwrap());
    }
    for _ in 0..24 {
        let pose = Isometry::translation(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), 0.0);
        let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 0.2 }, pose).with_ccd();
        handles.push(scene.insert(ball).unwrap());
    }
    (scene, handles)
}

/// The frame's moves: `fraction` of the dynamic colliders moved by up to
/// `step` per axis (CCD spheres by up to 6 along x: fast bullets).
fn moves(
    scene: &Scene,
    handles: &[ColliderHandle],
    rng: &mut impl Rng,
    fraction: f64,
    step: Real,
) -> Vec<(ColliderHandle, Isometry)> {
    let mut out = Vec::new();
    for &h in handles {
        let c = scene.get(h).unwrap();
        if c.kind() == BodyKind::Fixed || !rng.random_bool(fraction) {
            continue;
        }
        let d = if c.ccd() {
            Vector::new(uniform(rng, -6.0, 6.0), 0.0, 0.0)
        } else {
            Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step))
        };
        out.push((h, Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation)));
    }
    out
}

/// What a frame gives, for comparison.
#[derive(Debug, PartialEq)]
struct Frame {
    events: Vec<ContactEvent>,
    contacts: Vec<ContactPair>,
    manifolds: Vec<ManifoldPair>,
    ccd: Vec<CcdImpact>,
    candidates: usize,
    read: usize,
}

fn frame(pipeline: &ContactPipeline, events: &[ContactEvent]) -> Frame {
    let stats = pipeline.stats();
    Frame {
        events: events.to_vec(),
        contacts: pipeline.contacts().to_vec(),
        manifolds: pipeline.manifolds().to_vec(),
        ccd: pipeline.ccd_impacts().to_vec(),
        candidates: stats.candidate_pairs,
        read: stats.colliders_read,
    }
}

fn run(manifolds: bool) {
    let side = 22.0;
    let (base, mut handles) = scene(6_000, side, 0xA7);
    // A fixed search: the frames' read counts are compared, and `Auto`'s
    // clock-driven switches read every collider.
    let make = || {
        let pipeline =
            if manifolds { ContactPipeline::new().with_manifolds(0.02).unwrap() } else { ContactPipeline::new() };
        pipeline.with_pair_search(PairSearch::Tracker)
    };
    let mut scenes = [base.clone(), base.clone(), base];
    let mut pipelines = [make(), make(), make()];
    let pools: Vec<_> =
        [1, 2].iter().map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool")).collect();
    let mut rng = proxima_test_support::rng(0xA8);
    let (mut most, mut fewer_after_more, mut impacts) = (0usize, false, 0);
    let mut gone: Vec<ColliderHandle> = Vec::new();
    for k in 0..14 {
        // Light frames, a heavy one (60% moved), quiet ones, a scatter.
        let (fraction, step) = match k {
            4 => (0.6, 0.8),
            7 | 8 => (0.0, 0.0),
            11 => (1.0, 0.5 * side),
            _ => (0.15, 0.3),
        };
        if k == 9 {
            // A seventh of the colliders removed from the highest slot down
            // (this frame), then as many new ones (the next): they reuse the
            // freed slots lowest first, while the pipelines freed the proxies
            // in slot order, so from here on proxies and slots differ and the
            // candidates are renamed.
            gone = handles.iter().copied().filter(|h| h.index() % 7 == 3).collect();
            gone.sort_by_key(|h| std::cmp::Reverse(h.index()));
            handles.retain(|h| !gone.contains(h));
            for scene in &mut scenes {
                for h in &gone {
                    scene.remove(*h).unwrap();
                }
            }
        }
        if k == 10 {
            let fresh: Vec<ColliderDesc> = (0..gone.len())
                .map(|_| ColliderDesc::new(ColliderShape::Sphere { radius: 0.4 }, common::pose(&mut rng, side)))
                .collect();
            let mut added = Vec::new();
            for scene in &mut scenes {
                added = fresh.iter().map(|d| scene.insert(d.clone()).unwrap()).collect();
            }
            handles.extend(added);
        }
        let moved = moves(&scenes[0], &handles, &mut rng, fraction, step);
        for scene in &mut scenes {
            for &(h, pose) in &moved {
                scene.set_pose(h, pose).unwrap();
            }
        }
        let [s0, s1, s2] = &mut scenes;
        let [p0, p1, p2] = &mut pipelines;
        let sequential = {
            let events = p0.update(s0).to_vec();
            frame(p0, &events)
        };
        let one = pools[0].install(|| {
            let events = p1.update_parallel(s1).to_vec();
            frame(p1, &events)
        });
        let two = pools[1].install(|| {
            let events = p2.update_parallel(s2).to_vec();
            frame(p2, &events)
        });
        assert_eq!(one, sequential, "frame {k}: update_parallel on 1 thread differs from update");
        assert_eq!(two, sequential, "frame {k}: update_parallel on 2 threads differs from update");
        // Brute force is O(n^2): on the first frame, the heavy one, the
        // scatter and the last.
        let ours: BTreeSet<_> = two.contacts.iter().map(|p| (p.a, p.b)).collect();
        if !manifolds && matches!(k, 0 | 4 | 10 | 11 | 13) {
            assert_eq!(ours, common::brute_pairs(s2), "frame {k}: contact pairs differ from brute force");
        }
        fewer_after_more |= two.candidates.div_ceil(2048) < most.div_ceil(2048);
        impacts += two.ccd.len();
        most = most.max(two.candidates);
    }
    // The slices are 2,048 candidates: the test must cut many of them, and
    // see a frame with fewer than before.
    assert!(most > 4 * 2048, "{most} candidates: too few slices to test");
    assert!(fewer_after_more, "no frame with fewer slices of candidates than an earlier one");
    assert!(impacts > 0, "no CCD impact to compare");
}

#[test]
fn parallel_update_is_the_sequential_update_contacts() {
    run(false);
}

#[test]
fn parallel_update_is_the_sequential_update_manifolds() {
    run(true);
}
