//! The contact pipeline against brute force: every frame, the contact pairs
//! equal the exact contact test over all pairs, and the events equal the
//! difference of consecutive pair sets.

mod common;

use std::collections::BTreeSet;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

/// Moves about `fraction` of the dynamic colliders by up to `step` per axis
/// (their rotation kept).
fn jitter(scene: &mut Scene, handles: &[ColliderHandle], rng: &mut impl Rng, fraction: Real, step: Real) {
    for &h in handles {
        let c = scene.get(h).unwrap();
        if c.kind() == BodyKind::Fixed || uniform(rng, 0.0, 1.0) > fraction {
            continue;
        }
        let d = Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step));
        let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation);
        scene.set_pose(h, pose).unwrap();
    }
}

#[test]
fn contacts_and_events_match_brute_force_over_frames() {
    let side = 18.0;
    let (mut scene, handles) = common::mixed_scene(1_200, side, 0xF1);
    let mut pipeline = ContactPipeline::new();
    let mut rng = proxima_test_support::rng(0xF2);
    let mut previous = BTreeSet::new();
    let mut started_total = 0;
    for frame in 0..12 {
        jitter(&mut scene, &handles, &mut rng, 0.3, 0.5);
        let events = pipeline.update(&mut scene).to_vec();
        let ours: BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        let brute = common::brute_pairs(&scene);
        assert_eq!(ours, brute, "frame {frame}: contact pairs differ");
        for p in pipeline.contacts() {
            assert!(p.a < p.b && p.contact.depth >= 0.0);
        }
        let started: BTreeSet<_> = brute.difference(&previous).copied().collect();
        let stopped: BTreeSet<_> = previous.difference(&brute).copied().collect();
        // Events come sorted by pair (checked by `event_sets`).
        let (ev_started, ev_stopped) = common::event_sets(&events);
        assert_eq!(ev_started, started, "frame {frame}");
        assert_eq!(ev_stopped, stopped, "frame {frame}");
        started_total += started.len();
        previous = brute;
    }
    assert!(started_total > 100, "scene too sparse to test: {started_total} pairs started");
}

/// Colliders removed from the highest slot down come back, in the scene's
/// free list, in the reverse of the order in which the pipeline frees their
/// proxies (it reads slots ascending), so the new colliders' proxies are no
/// longer indexed like their slots: the pipeline then renames the tracker's
/// pairs to collider slots (and sorts them) instead of reading them as they
/// stand. Both forms match brute force, frame after frame.
#[test]
fn renamed_proxies_match_brute_force() {
    let side = 14.0;
    let (mut scene, mut handles) = common::mixed_scene(900, side, 0xA1);
    let mut pipeline = ContactPipeline::new();
    let mut rng = proxima_test_support::rng(0xA2);
    let mut previous = common::brute_pairs(&scene);
    pipeline.update(&mut scene);
    for frame in 0..8 {
        if frame % 3 == 1 {
            // Remove a fifth of the colliders, highest slot first, then add as
            // many new ones, which reuse the freed slots in the scene's order.
            let mut gone: Vec<ColliderHandle> =
                handles.iter().copied().filter(|h| h.index() % 5 == frame % 5).collect();
            gone.sort_by_key(|h| std::cmp::Reverse(h.index()));
            for h in &gone {
                scene.remove(*h).unwrap();
            }
            pipeline.update(&mut scene);
            handles.retain(|h| !gone.contains(h));
            previous = common::brute_pairs(&scene);
            for _ in 0..gone.len() {
                let r = uniform(&mut rng, 0.2, 0.9);
                let desc = ColliderDesc::new(ColliderShape::Sphere { radius: r }, common::pose(&mut rng, side));
                handles.push(scene.insert(desc).unwrap());
            }
        }
        jitter(&mut scene, &handles, &mut rng, 0.4, 0.3);
        let events = pipeline.update(&mut scene).to_vec();
        let brute = common::brute_pairs(&scene);
        let ours: Vec<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert!(ours.windows(2).all(|w| w[0] < w[1]), "frame {frame}: contacts not sorted");
        assert_eq!(ours.iter().copied().collect::<BTreeSet<_>>(), brute, "frame {frame}: contact pairs differ");
        assert_eq!(pipeline.stats().contacts, brute.len());
        let started = events.iter().filter(|e| matches!(e, ContactEvent::Started(_))).count();
        let stopped = events.len() - started;
        assert_eq!(started, brute.difference(&previous).count(), "frame {frame}: started");
        assert_eq!(stopped, previous.difference(&brute).count(), "frame {frame}: stopped");
        previous = brute;
    }
}

#[test]
fn bullet_through_thin_wall_is_stopped_by_ccd() {
    let mut scene = Scene::new();
    let wall = scene
        .insert(
            ColliderDesc::new(
                ColliderShape::Cuboid { half_extents: Vector::new(0.05, 5.0, 5.0) },
                Isometry::translation(5.0, 0.0, 0.0),
            )
            .fixed(),
        )
        .unwrap();
    let bullet = scene
        .insert(ColliderDesc::new(ColliderShape::Sphere { radius: 0.1 }, Isometry::identity()).with_ccd())
        .unwrap();
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    // One frame moves the bullet from x = 0 to x = 10, through the wall.
    scene.set_pose(bullet, Isometry::translation(10.0, 0.0, 0.0)).unwrap();
    pipeline.update(&mut scene);
    assert!(pipeline.contacts().is_empty(), "discrete test sees nothing: the bullet tunnelled");
    let impact = pipeline.ccd_impacts().first().expect("CCD impact");
    assert_eq!((impact.collider, impact.other), (bullet, wall));
    // First contact when the centre reaches x = 5 - 0.05 - 0.1 = 4.85, i.e. toi 0.485.
    assert!((impact.hit.toi - 0.485).abs() < 1e-5, "toi {}", impact.hit.toi);
    assert!((impact.hit.normal.into_inner() - -Vector::x()).norm() < 1e-5);
    // Next frame without motion: no sweep, no impact.
    pipeline.update(&mut scene);
    assert!(pipeline.ccd_impacts().is_empty());
}

#[test]
fn static_pairs_are_never_reported() {
    let mut scene = Scene::new();
    let shape = ColliderShape::Sphere { radius: 1.0 };
    scene.insert(ColliderDesc::new(shape.clone(), Isometry::identity()).fixed()).unwrap();
    scene.insert(ColliderDesc::new(shape, Isometry::translation(0.5, 0.0, 0.0)).fixed()).unwrap();
    let mut pipeline = ContactPipeline::new();
    assert!(pipeline.update(&mut scene).is_empty());
    assert_eq!(pipeline.stats().candidate_pairs, 0);
}

#[test]
fn group_filter_removes_pairs() {
    let mut scene = Scene::new();
    let shape = ColliderShape::Sphere { radius: 1.0 };
    let g1 = CollisionGroups { memberships: 1, filter: 1 };
    let g2 = CollisionGroups { memberships: 2, filter: 2 };
    scene.insert(ColliderDesc::new(shape.clone(), Isometry::identity()).with_groups(g1)).unwrap();
    scene.insert(ColliderDesc::new(shape, Isometry::translation(0.5, 0.0, 0.0)).with_groups(g2)).unwrap();
    let mut pipeline = ContactPipeline::new();
    assert!(pipeline.update(&mut scene).is_empty());
}

/// Spheres, boxes and capsules around a static mesh: the pipeline's contact
/// pairs equal brute force, and each mesh contact's depth equals the deepest
/// contact over all the mesh's triangles (computed without the mesh's BVH).
#[test]
#[cfg(feature = "obj")]
fn mesh_contacts_match_all_triangles() {
    use proxima_narrowphase::{contact_capsule_triangle, contact_obb_triangle, contact_sphere_sphere, Sphere};
    let path = format!("{}/../../assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"));
    let mesh = std::sync::Arc::new(TriMesh::from_obj(path).unwrap());
    let mut scene = Scene::new();
    let m =
        scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh.clone()), Isometry::identity()).fixed()).unwrap();
    let mut rng = proxima_test_support::rng(0x3E5);
    for i in 0..600 {
        let v = mesh.vertices()
            [(uniform(&mut rng, 0.0, 1.0) * mesh.vertices().len() as f32) as usize % mesh.vertices().len()];
        let p = v + proxima_test_support::gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 0.15);
        let pose = Isometry::from_parts(Translation3::from(p.coords), proxima_test_support::gen::rotation(&mut rng));
        let shape = match i % 3 {
            0 => ColliderShape::Sphere { radius: uniform(&mut rng, 0.02, 0.1) },
            1 => ColliderShape::Cuboid { half_extents: Vector::repeat(uniform(&mut rng, 0.02, 0.1)) },
            _ => ColliderShape::Capsule {
                half_height: uniform(&mut rng, 0.02, 0.1),
                radius: uniform(&mut rng, 0.01, 0.05),
            },
        };
        scene.insert(ColliderDesc::new(shape, pose)).unwrap();
    }
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let ours: BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(ours, common::brute_pairs(&scene));
    let mut with_mesh = 0;
    for pair in pipeline.contacts().iter().filter(|p| p.a == m || p.b == m) {
        let other = scene.get(if pair.a == m { pair.b } else { pair.a }).unwrap();
        let deepest = mesh
            .triangles()
            .collect::<Vec<_>>()
            .iter()
            .filter_map(|t| match other.world_shape() {
                WorldShape::Sphere(s) => {
                    let q = proxima_narrowphase::closest_point_triangle(s.center(), t);
                    contact_sphere_sphere(s, &Sphere::new(q, 0.0))
                }
                WorldShape::Obb(o) => contact_obb_triangle(o, t),
                WorldShape::Capsule(c) => contact_capsule_triangle(c, t),
                _ => unreachable!(),
            })
            .map(|c| c.depth)
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            (pair.contact.depth - deepest).abs() <= 1e-6,
            "{:?}: depth {} vs {deepest}",
            other.world_shape(),
            pair.contact.depth
        );
        with_mesh += 1;
    }
    assert!(with_mesh > 150, "only {with_mesh} mesh contacts");
}

/// Groups changed with `Scene::set_groups` take effect at the next update:
/// two touching spheres stop interacting (a `Stopped` event), then interact
/// again (a `Started` event); a static box's new groups hide it from rays.
#[test]
fn set_groups_takes_effect_at_the_next_update() {
    let mut scene = Scene::new();
    let sphere = |x: f32| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    let a = scene.insert(sphere(0.0)).unwrap();
    let b = scene.insert(sphere(1.5)).unwrap();
    let mut pipeline = ContactPipeline::new();
    let started = |e: &[ContactEvent]| matches!(e, [ContactEvent::Started(p)] if (p.a, p.b) == (a, b));
    assert!(started(pipeline.update(&mut scene)), "the spheres touch");
    assert!(pipeline.update(&mut scene).is_empty());
    // Group 1 sees only group 1, group 2 only group 2.
    scene.set_groups(a, CollisionGroups::new(1, 1)).unwrap();
    scene.set_groups(b, CollisionGroups::new(2, 2)).unwrap();
    assert_eq!(pipeline.update(&mut scene), &[ContactEvent::Stopped { a, b }]);
    assert!(pipeline.contacts().is_empty());
    assert!(pipeline.update(&mut scene).is_empty());
    scene.set_groups(b, CollisionGroups::default()).unwrap();
    assert!(started(pipeline.update(&mut scene)), "the spheres interact again");
    assert_eq!(pipeline.contacts().len(), 1);
    scene.remove(a).unwrap();
    assert_eq!(scene.set_groups(a, CollisionGroups::NONE), Err(SceneError::StaleHandle));
}

/// Collision groups decide the contacts: colliders get random groups of two
/// bits (some pairs interact, some do not, some only one way, which is no
/// interaction), a tenth of them new groups every frame, a third of them
/// move. Every frame the contacts equal brute force over the pairs whose
/// groups interact, with `update` (which reads only the colliders changed)
/// and with `update_parallel` (on a copy of the scene, read whole). The
/// pipeline passes no predicate: the tracker filters new pairs by the
/// groups the mirror copies from the colliders, so a mirror that misses a
/// change of groups fails this.
#[test]
fn collision_groups_filter_contacts_like_brute_force() {
    let side = 14.0;
    let (mut scene, handles) = common::mixed_scene(900, side, 0x6A);
    let mut rng = proxima_test_support::rng(0x6B);
    let random_groups = |rng: &mut dyn FnMut() -> u32| CollisionGroups::new(1 + rng() % 3, 1 + rng() % 3);
    let mut draw = || rng.random_range(0..u32::MAX);
    for &h in &handles {
        scene.set_groups(h, random_groups(&mut draw)).unwrap();
    }
    // The tracker: its incremental reads are checked (a switch of `Auto` reads all).
    let mut sequential = ContactPipeline::new().with_pair_search(PairSearch::Tracker);
    #[cfg(feature = "parallel")]
    let mut parallel = ContactPipeline::new();
    #[cfg(feature = "parallel")]
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let (mut filtered_total, mut regrouped, mut flips) = (0, 0, 0);
    // Touching pairs and whether their groups interacted, last frame.
    let mut last: std::collections::BTreeMap<(ColliderHandle, ColliderHandle), bool> = Default::default();
    for frame in 0..10 {
        let mut rng = proxima_test_support::rng(0x6C + frame);
        jitter(&mut scene, &handles, &mut rng, 0.3, 0.4);
        for &h in &handles {
            if rng.random_bool(0.1) {
                let mut draw = || rng.random_range(0..u32::MAX);
                scene.set_groups(h, random_groups(&mut draw)).unwrap();
                regrouped += 1;
            }
        }
        sequential.update(&mut scene);
        let ours: BTreeSet<_> = sequential.contacts().iter().map(|p| (p.a, p.b)).collect();
        let touching = common::brute_pairs(&scene);
        let brute = common::interacting(&scene);
        if frame > 0 {
            // Only the colliders moved or regrouped: the mirror's incremental path.
            assert!(sequential.stats().colliders_read < handles.len() / 2, "frame {frame}: every collider read");
        }
        assert_eq!(ours, brute, "frame {frame}: contact pairs differ");
        filtered_total += touching.len() - brute.len();
        // Pairs touching in both frames whose groups began or stopped to
        // interact: the case a mirror that misses a change gets wrong.
        let now: std::collections::BTreeMap<_, _> = touching.iter().map(|&p| (p, brute.contains(&p))).collect();
        flips += now.iter().filter(|&(p, interacts)| last.get(p).is_some_and(|was| was != interacts)).count();
        last = now;
        // On a copy of the scene (a second pipeline on the same scene would
        // take its change log, and both would read every collider): the
        // copy is read whole, so this checks the parallel update with the
        // full mirror (its searches may run on one thread in light frames;
        // the test of new pairs is shared).
        #[cfg(feature = "parallel")]
        {
            let mut copy = scene.clone();
            pool.install(|| parallel.update_parallel(&mut copy));
            assert_eq!(parallel.contacts(), sequential.contacts(), "frame {frame}: update_parallel differs");
        }
    }
    assert!(filtered_total > 200, "only {filtered_total} touching pairs filtered out by their groups");
    assert!(regrouped > 500, "only {regrouped} group changes");
    assert!(flips > 20, "only {flips} touching pairs changed whether they interact");
}

/// Without the `timing` feature the pipeline reads no clock (`Instant::now`
/// panics on `wasm32-unknown-unknown`): the durations are zero, the counts
/// are still kept.
#[cfg(not(feature = "timing"))]
#[test]
fn without_timing_durations_are_zero_and_counts_kept() {
    let (mut scene, _) = common::mixed_scene(400, 8.0, 0x71);
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let s = *pipeline.stats();
    assert_eq!((s.broadphase, s.narrowphase, s.ccd), (Default::default(), Default::default(), Default::default()));
    assert!(s.contacts > 0 && s.candidate_pairs >= s.contacts, "{s:?}");
}
