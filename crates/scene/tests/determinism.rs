//! Determinism of the scene: the same inputs give bit-identical contact
//! events and query results across runs, across rayon thread counts (1 and
//! 2, `Scene::cast_rays`), after `clone`, and (with `--features serde`) after
//! a serde_json round trip in the middle of a simulation.
//!
//! The golden hash of the contact list after N frames is compared with the
//! hash of a brute-force contact list over the same colliders, computed in
//! the same test.
//!
//! `cargo test --release -p proxima-scene --test determinism`.

use proxima_narrowphase::{Isometry, Point, Ray, Rotation, Vector};
use proxima_scene::*;
use proxima_test_support::gen::{uniform, unit_vector};
use proxima_test_support::{rng, Rng, SmallRng};

/// FNV-1a over 64-bit words, written here so the hashes depend on nothing else.
fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for byte in w.to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The words of a contact: the handles' slots and every float's bits.
fn contact_words(a: ColliderHandle, b: ColliderHandle, c: &proxima_narrowphase::Contact) -> Vec<u64> {
    let mut v = vec![a.index() as u64, b.index() as u64, c.depth.to_bits() as u64];
    v.extend(c.point_a.iter().chain(c.point_b.iter()).chain(c.normal.iter()).map(|x| x.to_bits() as u64));
    v
}

fn hash_events(events: &[ContactEvent]) -> u64 {
    fnv1a(events.iter().flat_map(|e| match e {
        ContactEvent::Started(p) => {
            let mut w = vec![1];
            w.extend(contact_words(p.a, p.b, &p.contact));
            w
        }
        ContactEvent::Stopped { a, b } => vec![0, a.index() as u64, b.index() as u64],
    }))
}

fn hash_hits(hits: &[Option<SceneRayHit>]) -> u64 {
    fnv1a(hits.iter().flat_map(|h| match h {
        Some(h) => {
            let mut w = vec![h.collider.index() as u64, h.toi.to_bits() as u64];
            w.extend(h.normal.iter().map(|x| x.to_bits() as u64));
            w
        }
        None => vec![u64::MAX],
    }))
}

/// A fixed world: static boxes and capsules, dynamic spheres, boxes and
/// capsules, some CCD spheres. Returns the handles of the dynamic colliders.
fn world(n: usize, seed: u64) -> (Scene, Vec<ColliderHandle>, SmallRng) {
    let mut rng = rng(seed);
    let side = (4.0 * n as f64).cbrt() as f32;
    let mut scene = Scene::new();
    let mut dynamic = Vec::new();
    for i in 0..n {
        let p = Vector::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
        let rot = Rotation::from_axis_angle(
            &nalgebra::Unit::new_normalize(unit_vector(&mut rng)),
            uniform(&mut rng, 0.0, 3.0),
        );
        let pose = Isometry::from_parts(p.into(), rot);
        let r = uniform(&mut rng, 0.2, 0.8);
        let shape = match i % 4 {
            0 => ColliderShape::Sphere { radius: r },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(r, r * 0.5, r * 0.8) },
            2 => ColliderShape::Capsule { half_height: r, radius: r * 0.5 },
            _ => ColliderShape::Cuboid { half_extents: Vector::repeat(r) },
        };
        let mut desc = ColliderDesc::new(shape, pose).with_user_data(i as u64);
        if i % 5 == 0 {
            desc = desc.fixed();
        } else if i % 4 == 0 && i % 3 == 0 {
            desc = desc.with_ccd();
        }
        let h = scene.insert(desc).expect("valid collider");
        if i % 5 != 0 {
            dynamic.push(h);
        }
    }
    (scene, dynamic, rng)
}

/// One frame: a quarter of the dynamic colliders move a little.
fn step(scene: &mut Scene, dynamic: &[ColliderHandle], rng: &mut SmallRng) {
    for _ in 0..dynamic.len() / 4 {
        let h = dynamic[rng.random_range(0..dynamic.len())];
        let mut pose = *scene.get(h).expect("live").pose();
        pose.translation.vector +=
            Vector::new(uniform(rng, -0.3, 0.3), uniform(rng, -0.3, 0.3), uniform(rng, -0.3, 0.3));
        scene.set_pose(h, pose).expect("valid pose");
    }
}

fn rays(n: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    (0..n).map(|_| Ray::new(Point::new(-3.0, 5.0, 5.0), unit_vector(&mut rng), 100.0)).collect()
}

/// Runs `frames` frames; the per-frame event hashes.
fn simulate(n: usize, frames: usize, seed: u64) -> (Vec<u64>, Scene, ContactPipeline) {
    let (mut scene, dynamic, mut rng) = world(n, seed);
    let mut pipeline = ContactPipeline::new();
    let mut out = vec![hash_events(pipeline.update(&mut scene))];
    for _ in 0..frames {
        step(&mut scene, &dynamic, &mut rng);
        out.push(hash_events(pipeline.update(&mut scene)));
    }
    (out, scene, pipeline)
}

/// Two runs give the same events, bit for bit; the final contact list's
/// hash equals the hash of the brute-force contact list (every pair of
/// colliders, not both static, whose boxes overlap, with `contact`).
#[test]
fn golden_contact_hash_matches_brute_force_and_runs_repeat() {
    let (a, scene, pipeline) = simulate(3_000, 30, 910);
    let (b, _, _) = simulate(3_000, 30, 910);
    assert_eq!(a, b, "two runs of the same simulation differ");
    let golden = fnv1a(pipeline.contacts().iter().flat_map(|p| contact_words(p.a, p.b, &p.contact)));
    let all: Vec<(ColliderHandle, &Collider)> = scene.iter().collect();
    let mut brute = Vec::new();
    for (i, &(ha, ca)) in all.iter().enumerate() {
        for &(hb, cb) in &all[i + 1..] {
            let ((ha, ca), (hb, cb)) = if ha < hb { ((ha, ca), (hb, cb)) } else { ((hb, cb), (ha, ca)) };
            if ca.kind() == BodyKind::Fixed && cb.kind() == BodyKind::Fixed {
                continue;
            }
            if !proxima_narrowphase::intersects_aabb_aabb(ca.aabb(), cb.aabb()) {
                continue;
            }
            if let Some(c) = contact(ca.world_shape(), cb.world_shape()) {
                brute.push((ha, hb, c));
            }
        }
    }
    brute.sort_by_key(|x| (x.0, x.1));
    let independent = fnv1a(brute.iter().flat_map(|(a, b, c)| contact_words(*a, *b, c)));
    assert_eq!(golden, independent, "pipeline contact hash != brute-force contact hash");
    assert!(brute.len() > 300, "the scene must have contacts ({})", brute.len());
}

/// A clone of the scene and pipeline taken mid-simulation continues
/// identically; its ray answers are the same bits.
#[test]
fn clone_continues_identically() {
    for search in [PairSearch::Tracker, PairSearch::Grid] {
        let (mut scene, dynamic, mut rng) = world(2_000, 5);
        let mut pipeline = ContactPipeline::new().with_pair_search(search);
        for _ in 0..5 {
            step(&mut scene, &dynamic, &mut rng);
            pipeline.update(&mut scene);
        }
        let copy = (scene.clone(), pipeline.clone(), rng.clone());
        assert_continue_alike((scene, pipeline, rng), copy, &dynamic, 8, &format!("{search:?}: the clone"));
    }
}

/// Two copies of a world (scene, pipeline, motion generator) answer a batch
/// of rays alike, then step ten frames with the same motion and report the
/// same events every frame.
fn assert_continue_alike(
    (mut scene, mut pipeline, mut rng): (Scene, ContactPipeline, SmallRng),
    (mut scene2, mut pipeline2, mut rng2): (Scene, ContactPipeline, SmallRng),
    dynamic: &[ColliderHandle],
    ray_seed: u64,
    what: &str,
) {
    let rays = rays(2_000, ray_seed);
    let f = QueryFilter::default();
    assert_eq!(hash_hits(&scene.cast_rays(&rays, &f)), hash_hits(&scene2.cast_rays(&rays, &f)), "{what}: rays");
    // Each collider's contacts, looked up before the copy's first update.
    let mut looked_up = 0;
    for (h, _) in scene.iter() {
        let of = |p: &ContactPipeline| p.contacts_of(h).map(|c| (c.a, c.b)).collect::<Vec<_>>();
        let mine = of(&pipeline);
        assert_eq!(mine, of(&pipeline2), "{what}: contacts of {h:?}");
        looked_up += mine.len();
    }
    assert_eq!(looked_up, 2 * pipeline.contacts().len(), "{what}: each contact under both colliders");
    assert!(looked_up > 0, "{what}: the world must have contacts");
    for frame in 0..10 {
        step(&mut scene, dynamic, &mut rng);
        step(&mut scene2, dynamic, &mut rng2);
        let (a, b) = (hash_events(pipeline.update(&mut scene)), hash_events(pipeline2.update(&mut scene2)));
        assert_eq!(a, b, "{what} diverged at frame {frame}");
    }
}

/// `Scene::cast_rays` gives the same bits on pools of 1 and 2 threads, and
/// equals the single-ray `cast_ray_closest`.
#[test]
fn cast_rays_is_identical_across_thread_counts() {
    let (scene, _, _) = world(5_000, 12);
    let rays = rays(20_000, 13);
    let f = QueryFilter::default();
    let pool = |t: usize| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool");
    let one = pool(1).install(|| scene.cast_rays(&rays, &f));
    let two = pool(2).install(|| scene.cast_rays(&rays, &f));
    let single: Vec<Option<SceneRayHit>> = rays.iter().map(|r| scene.cast_ray_closest(r, &f)).collect();
    assert_eq!(hash_hits(&one), hash_hits(&two), "1 vs 2 threads");
    assert_eq!(hash_hits(&one), hash_hits(&single), "batch vs single");
    let hits = one.iter().filter(|h| h.is_some()).count();
    assert!(hits > rays.len() / 10 && hits < rays.len(), "rays must both hit and miss ({hits})");
}

#[cfg(feature = "serde")]
mod serde_round_trip {
    use super::*;
    use proxima_test_support::serde::round_trip;

    /// A scene and its pipeline saved mid-simulation and restored continue
    /// with bit-identical contact events and ray answers (the static BVH is
    /// not stored: it is rebuilt at the first query, deterministically).
    #[test]
    fn scene_restored_mid_simulation_continues_identically() {
        for search in [PairSearch::Tracker, PairSearch::Grid] {
            let (mut scene, dynamic, mut rng) = world(2_000, 31);
            let mut pipeline = ContactPipeline::new().with_pair_search(search);
            for _ in 0..5 {
                step(&mut scene, &dynamic, &mut rng);
                pipeline.update(&mut scene);
            }
            let (scene2, pipeline2): (Scene, ContactPipeline) = (round_trip(&scene), round_trip(&pipeline));
            scene2.validate().expect("restored scene is valid");
            assert_eq!(pipeline2.pair_search(), search, "the search is part of the snapshot");
            let restored = (scene2, pipeline2, rng.clone());
            assert_continue_alike(
                (scene, pipeline, rng),
                restored,
                &dynamic,
                32,
                &format!("{search:?}: the restored scene"),
            );
        }
    }

    /// A broadphase-only pipeline restored mid-simulation keeps its mode,
    /// its distance and its last candidate pairs and events, and its next
    /// updates report the same pairs and events as the original's.
    #[test]
    fn broadphase_only_pipeline_restored_continues_identically() {
        let (mut scene, dynamic, mut rng) = world(2_000, 33);
        let mut pipeline = ContactPipeline::new().with_broadphase_only(0.1).unwrap();
        for _ in 0..5 {
            step(&mut scene, &dynamic, &mut rng);
            pipeline.update(&mut scene);
        }
        let (mut scene2, mut pipeline2): (Scene, ContactPipeline) = (round_trip(&scene), round_trip(&pipeline));
        assert_eq!(pipeline2.broadphase_only(), Some(0.1));
        assert_eq!(pipeline2.candidate_pairs(), pipeline.candidate_pairs());
        assert_eq!(pipeline2.candidate_events(), pipeline.candidate_events());
        let mut rng2 = rng.clone();
        for frame in 0..5 {
            step(&mut scene, &dynamic, &mut rng);
            step(&mut scene2, &dynamic, &mut rng2);
            pipeline.update(&mut scene);
            pipeline2.update(&mut scene2);
            assert_eq!(pipeline2.candidate_pairs(), pipeline.candidate_pairs(), "frame {frame}");
            assert_eq!(pipeline2.candidate_events(), pipeline.candidate_events(), "frame {frame}");
            assert!(!pipeline.candidate_pairs().is_empty());
        }
    }

    /// With colliders removed just before the snapshot, the original and the
    /// restored scene must hand out the same handles to the same inserts.
    #[test]
    fn scene_restored_with_free_slots_issues_the_same_handles() {
        let (mut scene, dynamic, _) = world(500, 33);
        for k in [40usize, 3, 250] {
            scene.remove(dynamic[k]).expect("live");
        }
        let mut restored: Scene = round_trip(&scene);
        for i in 0..3 {
            let desc =
                ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(i as f32, 0.0, 0.0));
            assert_eq!(scene.insert(desc.clone()).unwrap(), restored.insert(desc).unwrap(), "insert {i}");
        }
        restored.validate().expect("restored scene is valid");
    }

    /// The colliders' slot map is validated on load: a snapshot whose free
    /// list was tampered with (a head on a live slot, a cycle, a vacant slot
    /// left out, generations of the wrong length) is an error, not a scene
    /// that hands out a live collider's slot.
    #[test]
    fn tampered_collider_slots_are_rejected() {
        let (mut scene, dynamic, _) = world(50, 34);
        for k in [7usize, 2, 20] {
            scene.remove(dynamic[k]).expect("live");
        }
        let json: serde_json::Value = serde_json::to_value(&scene).expect("serialize");
        let slots = &json["colliders"]["map"];
        let head = slots["free_head"].as_u64().expect("a free list head");
        assert_eq!(head, dynamic[20].index() as u64, "the last freed slot heads the free list");
        let next = slots["entries"][head as usize]["Vacant"].as_u64().expect("a vacant slot's link");
        assert_eq!(next, dynamic[2].index() as u64);
        let load = |v: &serde_json::Value| serde_json::from_value::<Scene>(v.clone());
        assert!(load(&json).is_ok(), "the untouched snapshot loads");
        type Edit<'a> = &'a dyn Fn(&mut serde_json::Value);
        let tampered = |edit: Edit| {
            let mut v = json.clone();
            edit(&mut v["colliders"]["map"]);
            load(&v).expect_err("a tampered snapshot must be refused").to_string()
        };
        let live = dynamic[0].index() as u64;
        let cases: [(&str, Edit); 5] = [
            ("occupied", &|c| c["free_head"] = live.into()),
            ("names slot", &|c| c["free_head"] = 100_000.into()),
            ("reaches 2 of the 3", &|c| c["free_head"] = next.into()),
            ("cycle", &|c| c["entries"][next as usize]["Vacant"] = head.into()),
            ("generations", &|c| {
                c["generations"].as_array_mut().expect("an array").pop();
            }),
        ];
        for (reason, edit) in cases {
            let err = tampered(edit);
            assert!(err.contains(reason), "expected {reason:?} in {err:?}");
        }
    }

    /// A snapshot whose colliders disagree with the trees is refused: a
    /// collider whose box was moved without its tree entry, a pose that no
    /// longer gives its box, a tree entry that names another collider.
    #[test]
    fn tampered_colliders_and_trees_are_rejected() {
        let (scene, dynamic, _) = world(30, 35);
        let json: serde_json::Value = serde_json::to_value(&scene).expect("serialize");
        let load = |v: &serde_json::Value| serde_json::from_value::<Scene>(v.clone());
        assert!(load(&json).is_ok(), "the untouched snapshot loads");
        let slot = dynamic[3].index() as usize;
        let collider = |v: &mut serde_json::Value| -> serde_json::Value {
            v["colliders"]["map"]["entries"][slot]["Occupied"].take()
        };
        let tampered = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = json.clone();
            edit(&mut v);
            load(&v).expect_err("a tampered snapshot must be refused").to_string()
        };
        // The collider's cached box moved far away (its tree box no longer contains it).
        let moved = tampered(&|v| {
            let mut c = collider(v);
            c["aabb"]["min"][0] = 1.0e5.into();
            c["aabb"]["max"][0] = 1.0e5.into();
            v["colliders"]["map"]["entries"][slot]["Occupied"] = c;
        });
        assert!(moved.contains("collider"), "{moved}");
        // The pose moved but not the cached shape and box.
        let pose = tampered(&|v| {
            let mut c = collider(v);
            let t = &mut c["desc"]["pose"]["translation"];
            let x = t[0].as_f64().or_else(|| t["vector"][0].as_f64()).unwrap_or(0.0);
            if t[0].is_number() {
                t[0] = (x + 50.0).into();
            } else {
                t["vector"][0] = (x + 50.0).into();
            }
            v["colliders"]["map"]["entries"][slot]["Occupied"] = c;
        });
        assert!(pose.contains("disagree"), "{pose}");
    }

    /// Meshes are not serializable (their BVH is not): a clear error, no panic.
    #[test]
    fn mesh_colliders_fail_to_serialize_cleanly() {
        let mesh =
            TriMesh::new(vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)], vec![[0, 1, 2]])
                .unwrap();
        let mut scene = Scene::new();
        scene
            .insert(ColliderDesc::new(ColliderShape::TriMesh(std::sync::Arc::new(mesh)), Isometry::identity()))
            .unwrap();
        assert!(serde_json::to_string(&scene).is_err());
    }
}
