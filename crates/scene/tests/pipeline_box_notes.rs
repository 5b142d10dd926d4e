//! The pipeline's box pairs test last frame's separating axis first
//! (`SeparatingAxis`): over frames of a jittered pile of boxes and balls,
//! every contact and manifold the pipeline reports is the per-pair
//! function's, bit for bit (compared through their `Debug` text), on one
//! thread and on two, in contacts mode and with manifolds.

mod common;

use nalgebra::{Translation3, UnitQuaternion};
use proxima_narrowphase::{Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// Moves every dynamic collider by up to `step` per axis and turns it by up
/// to `turn` radians: the motion of a pile between two steps.
fn shake(scene: &mut Scene, handles: &[ColliderHandle], rng: &mut impl Rng, step: Real, turn: Real) {
    for &h in handles {
        let c = scene.get(h).unwrap();
        if c.kind() == BodyKind::Fixed {
            continue;
        }
        let d = Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step));
        let spin = UnitQuaternion::from_scaled_axis(gen::unit_vector(rng) * uniform(rng, 0.0, turn));
        let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), spin * c.pose().rotation);
        scene.set_pose(h, pose).unwrap();
    }
}

/// The pipeline's contacts and manifolds against the per-pair functions;
/// returns the number of box pairs apart (candidates with no contact).
fn check(scene: &Scene, pipeline: &ContactPipeline, frame: usize) -> usize {
    let world = |h: ColliderHandle| scene.get(h).unwrap().world_shape();
    for p in pipeline.contacts() {
        if pipeline.manifolds().is_empty() {
            let want = contact(world(p.a), world(p.b));
            assert_eq!(format!("{:?}", Some(p.contact)), format!("{want:?}"), "frame {frame}: {:?} {:?}", p.a, p.b);
        }
    }
    // No pair lost: in contacts mode the touching pairs are brute force's;
    // with manifolds, every pair with a manifold within the prediction
    // (the boxes grown by it overlap first) has one from the pipeline.
    let mut out = Vec::new();
    if pipeline.manifolds().is_empty() {
        let ours: std::collections::BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ours, common::brute_pairs(scene), "frame {frame}: contact pairs");
    } else {
        let ours: std::collections::BTreeSet<_> = pipeline.manifolds().iter().map(|m| (m.a, m.b)).collect();
        let all: Vec<_> = scene.iter().collect();
        for (i, (ha, a)) in all.iter().enumerate() {
            for (hb, b) in &all[i + 1..] {
                let grown = a.aabb().loosened(0.02);
                if (a.kind() == BodyKind::Fixed && b.kind() == BodyKind::Fixed)
                    || !proxima_narrowphase::intersects_aabb_aabb(&grown, b.aabb())
                {
                    continue;
                }
                out.clear();
                contact_manifolds(a.world_shape(), b.world_shape(), 0.02, &mut out);
                let pair = if ha < hb { (*ha, *hb) } else { (*hb, *ha) };
                assert_eq!(ours.contains(&pair), !out.is_empty(), "frame {frame}: manifolds of {pair:?}");
            }
        }
    }
    for m in pipeline.manifolds() {
        out.clear();
        contact_manifolds(world(m.a), world(m.b), 0.02, &mut out);
        assert!(
            out.iter().any(|o| format!("{o:?}") == format!("{:?}", m.manifold)),
            "frame {frame}: {:?} {:?}: {:?} not in {out:?}",
            m.a,
            m.b,
            m.manifold
        );
    }
    let boxes = |h: ColliderHandle| matches!(world(h), WorldShape::Obb(_));
    let touching: std::collections::BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
    let overlap = |x: &Collider, y: &Collider| proxima_narrowphase::intersects_aabb_aabb(x.aabb(), y.aabb());
    scene
        .iter()
        .filter(|(h, _)| boxes(*h))
        .flat_map(|(a, ca)| {
            scene.iter().filter(move |(b, cb)| a < *b && boxes(*b) && overlap(ca, cb)).map(move |(b, _)| (a, b))
        })
        .filter(|pair| !touching.contains(pair))
        .count()
}

/// Replaces about one dynamic collider in twenty by a new box (the scene
/// hands out the freed slots again, so last frame's notes name other pairs).
fn replace_some(scene: &mut Scene, handles: &mut [ColliderHandle], rng: &mut impl Rng) {
    for h in handles.iter_mut() {
        let c = scene.get(*h).unwrap();
        if c.kind() == BodyKind::Fixed || uniform(rng, 0.0, 1.0) > 0.05 {
            continue;
        }
        let pose = *c.pose();
        scene.remove(*h).unwrap();
        let half = Vector::new(uniform(rng, 0.1, 1.0), uniform(rng, 0.1, 1.0), uniform(rng, 0.1, 1.0));
        *h = scene.insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: half }, pose)).unwrap();
    }
}

/// Frames of the shaken pile through a pipeline (with manifolds within
/// `prediction`, with or without reuse, on `threads` threads), checked
/// against the per-pair functions and brute force each frame.
fn run(prediction: Option<Real>, reuse: bool, threads: usize) {
    let (mut scene, mut handles) = common::mixed_scene(900, 14.0, 0xB0C5);
    let mut pipeline = ContactPipeline::new();
    if let Some(p) = prediction {
        pipeline = pipeline.with_manifolds(p).unwrap();
    }
    if reuse {
        // A tolerance every shaken body leaves each frame: no manifold is
        // kept, each goes through the reuse's computation path.
        pipeline = pipeline.with_manifold_reuse(ManifoldReuse::new(1e-6, 1e-6).unwrap());
    }
    #[cfg(feature = "parallel")]
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let mut rng = proxima_test_support::rng(0xB0C6);
    let mut apart = 0;
    for frame in 0..16 {
        shake(&mut scene, &handles, &mut rng, 0.02, 0.02);
        if frame % 4 == 2 {
            replace_some(&mut scene, &mut handles, &mut rng);
        }
        if threads == 1 {
            pipeline.update(&mut scene);
        } else {
            #[cfg(feature = "parallel")]
            pool.install(|| pipeline.update_parallel(&mut scene));
        }
        // Several slices on two threads, so that one starts inside the notes.
        assert!(pipeline.stats().candidate_pairs > 1_024, "{} candidates", pipeline.stats().candidate_pairs);
        apart += check(&scene, &pipeline, frame);
    }
    // Box pairs whose boxes overlap but the shapes do not: the pairs the
    // noted axes serve.
    assert!(apart > 1_000, "{apart} box pairs apart");
}

#[test]
fn noted_axes_change_no_contact() {
    run(None, false, 1);
}

#[test]
fn noted_axes_change_no_manifold() {
    run(Some(0.02), false, 1);
    run(Some(0.02), true, 1);
}

#[cfg(feature = "parallel")]
#[test]
fn noted_axes_change_nothing_on_two_threads() {
    run(None, false, 2);
    run(Some(0.02), false, 2);
}
