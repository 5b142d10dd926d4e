//! Swept-sphere, overlap and point queries against brute force over every
//! collider (the exact per-shape tests are proven against parry3d in the
//! narrowphase crate; here the cull is on trial: it must never lose a collider).

mod common;

use parry3d::query;
use proxima_narrowphase::{Aabb, Capsule, Obb, Ray, Sphere, Vector};
use proxima_scene::{ColliderHandle, QueryFilter, Scene};
use proxima_test_support::gen::{self, uniform};

const QUERIES: usize = 20_000;

fn brute_overlaps(
    scene: &Scene,
    handles: &[ColliderHandle],
    probe: &(parry3d::math::Pose, parry3d::shape::SharedShape),
) -> Vec<ColliderHandle> {
    let mut out: Vec<_> = handles
        .iter()
        .copied()
        .filter(|&h| {
            let (pose, shape) = common::parry_shape(scene.get(h).unwrap().world_shape());
            query::intersection_test(&probe.0, probe.1.as_ref(), &pose, shape.as_ref()).unwrap().intersecting
        })
        .collect();
    out.sort_unstable();
    out
}

/// parry's GJK-based tests (capsules, rotated boxes) have ~1e-4-size
/// tolerances: a set difference is accepted only for colliders within that
/// band of touching, which parry's `distance` measures.
fn assert_same_sets(
    ours: &[ColliderHandle],
    theirs: &[ColliderHandle],
    scene: &Scene,
    probe: &(parry3d::math::Pose, parry3d::shape::SharedShape),
    what: &str,
) -> usize {
    let mut in_band = 0;
    for h in ours.iter().filter(|h| !theirs.contains(h)).chain(theirs.iter().filter(|h| !ours.contains(h))) {
        let (pose, shape) = common::parry_shape(scene.get(*h).unwrap().world_shape());
        let d = query::distance(&probe.0, probe.1.as_ref(), &pose, shape.as_ref()).unwrap().distance;
        assert!(d < 1e-3, "{what}: {h:?} differs at distance {d}");
        in_band += 1;
    }
    in_band
}

#[test]
fn overlap_sets_match_parry_intersection_tests() {
    let side = 40.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x0E1);
    let mut rng = proxima_test_support::rng(0x0E2);
    let (mut nonempty, mut in_band) = (0, 0);
    for _ in 0..QUERIES / 10 {
        let c = common::point_in(&mut rng, side);
        let sphere = Sphere::new(c, uniform(&mut rng, 0.1, 3.0));
        let probe = (proxima_test_support::convert::pose_at(&c), parry3d::shape::SharedShape::ball(sphere.radius()));
        let ours = scene.overlaps_sphere(&sphere, &QueryFilter::default());
        in_band += assert_same_sets(&ours, &brute_overlaps(&scene, &handles, &probe), &scene, &probe, "sphere");
        nonempty += !ours.is_empty() as usize;

        let h = Vector::new(uniform(&mut rng, 0.1, 3.0), uniform(&mut rng, 0.1, 3.0), uniform(&mut rng, 0.1, 3.0));
        let obb = Obb::new(common::point_in(&mut rng, side), gen::rotation(&mut rng), h);
        let probe = (proxima_test_support::convert::obb_pose(&obb), parry3d::shape::SharedShape::cuboid(h.x, h.y, h.z));
        let ours = scene.overlaps_obb(&obb, &QueryFilter::default());
        in_band += assert_same_sets(&ours, &brute_overlaps(&scene, &handles, &probe), &scene, &probe, "obb");

        let aabb = Aabb::try_from_center(common::point_in(&mut rng, side), h).unwrap();
        let probe = (
            proxima_test_support::convert::pose_at(&aabb.center()),
            parry3d::shape::SharedShape::cuboid(h.x, h.y, h.z),
        );
        let ours = scene.overlaps_aabb(&aabb, &QueryFilter::default());
        in_band += assert_same_sets(&ours, &brute_overlaps(&scene, &handles, &probe), &scene, &probe, "aabb");
    }
    assert!(nonempty > QUERIES / 10 / 5, "too few non-empty overlap sets: {nonempty}");
    assert!(in_band < 20, "{in_band} set differences in the tangency band");
}

/// `overlaps_capsule` equals parry's intersection test over every collider
/// (outside parry's tangency band).
#[test]
fn overlap_capsule_sets_match_parry_intersection_tests() {
    let side = 40.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x0C1);
    let mut rng = proxima_test_support::rng(0x0C2);
    let (mut nonempty, mut in_band) = (0, 0);
    let n = QUERIES / 10;
    for _ in 0..n {
        let a = common::point_in(&mut rng, side);
        let b = a + gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 4.0);
        let capsule = Capsule::new(a, b, uniform(&mut rng, 0.05, 1.5));
        let probe = (
            parry3d::math::Pose::identity(),
            parry3d::shape::SharedShape::capsule(
                proxima_test_support::convert::pt(&a),
                proxima_test_support::convert::pt(&b),
                capsule.radius(),
            ),
        );
        let ours = scene.overlaps_capsule(&capsule, &QueryFilter::default());
        in_band += assert_same_sets(&ours, &brute_overlaps(&scene, &handles, &probe), &scene, &probe, "capsule");
        nonempty += !ours.is_empty() as usize;
    }
    let frac = nonempty as f64 / n as f64;
    assert!((0.3..0.95).contains(&frac), "non-empty fraction {frac}");
    assert!(in_band < 10, "{in_band} set differences in the tangency band");
}

/// `cast_sphere_all` is every collider's own sweep hit, sorted by toi then
/// handle (brute force over every collider); its first hit has
/// `cast_sphere`'s toi.
#[test]
fn swept_sphere_all_hits_match_brute_force() {
    let side = 25.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x5A1);
    let mut rng = proxima_test_support::rng(0x5A2);
    let (mut several, mut none) = (0, 0);
    let n = QUERIES / 4;
    for i in 0..n {
        let sphere = Sphere::new(common::point_in(&mut rng, side), uniform(&mut rng, 0.05, 0.5));
        let motion = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 10.0);
        let f = QueryFilter::default();
        let ours: Vec<_> = scene.cast_sphere_all(&sphere, &motion, &f).iter().map(|h| (h.collider, h.hit)).collect();
        let mut brute: Vec<_> = handles
            .iter()
            .filter_map(|&h| scene.get(h).unwrap().world_shape().cast_sphere(&sphere, &motion).map(|hit| (h, hit)))
            .collect();
        brute.sort_by(|a, b| a.1.toi.total_cmp(&b.1.toi).then(a.0.cmp(&b.0)));
        assert_eq!(ours, brute, "query {i}");
        assert_eq!(ours.first().map(|h| h.1.toi), scene.cast_sphere(&sphere, &motion, &f).map(|h| h.hit.toi));
        several += (ours.len() > 1) as usize;
        none += ours.is_empty() as usize;
    }
    assert!(several > n / 4 && none > n / 20, "{several} multi-hit and {none} empty sweeps of {n}");
}

/// `cast_ray_all` is every collider's own ray hit, sorted by toi then
/// handle; its first hit has `cast_ray_closest`'s toi.
#[test]
fn ray_all_hits_match_brute_force() {
    let side = 25.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x7A1);
    let mut rng = proxima_test_support::rng(0x7A2);
    let (mut several, mut none) = (0, 0);
    let n = QUERIES / 4;
    for i in 0..n {
        let ray = Ray::new(common::point_in(&mut rng, side), gen::unit_vector(&mut rng), uniform(&mut rng, 0.0, 20.0));
        let f = QueryFilter::default();
        let ours: Vec<_> = scene.cast_ray_all(&ray, &f).iter().map(|h| (h.collider, h.toi, h.normal)).collect();
        let mut brute: Vec<_> = handles
            .iter()
            .filter_map(|&h| scene.get(h).unwrap().world_shape().cast_ray(&ray).map(|hit| (h, hit.toi, hit.normal)))
            .collect();
        brute.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(ours, brute, "ray {i}");
        assert_eq!(ours.first().map(|h| h.1), scene.cast_ray_closest(&ray, &f).map(|h| h.toi), "ray {i}");
        several += (ours.len() > 1) as usize;
        none += ours.is_empty() as usize;
    }
    assert!(several > n / 4 && none > n / 20, "{several} multi-hit and {none} empty rays of {n}");
}

#[test]
fn swept_sphere_matches_brute_force() {
    let side = 40.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x5E1);
    let mut rng = proxima_test_support::rng(0x5E2);
    let mut hits = 0;
    for i in 0..QUERIES {
        let sphere = Sphere::new(common::point_in(&mut rng, side), uniform(&mut rng, 0.05, 0.5));
        let motion = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 10.0);
        let ours = scene.cast_sphere(&sphere, &motion, &QueryFilter::default());
        let brute = handles
            .iter()
            .filter_map(|&h| scene.get(h).unwrap().world_shape().cast_sphere(&sphere, &motion).map(|hit| (h, hit)))
            .min_by(|a, b| a.1.toi.total_cmp(&b.1.toi));
        match (ours, brute) {
            (Some(o), Some((h, b))) => {
                hits += 1;
                assert_eq!(o.hit.toi, b.toi, "query {i}");
                if o.collider != h {
                    let other = scene.get(o.collider).unwrap().world_shape().cast_sphere(&sphere, &motion).unwrap();
                    assert_eq!(other.toi, b.toi, "query {i}: different collider at a different toi");
                }
            }
            (None, None) => {}
            (o, b) => panic!("query {i}: scene {o:?} vs brute force {b:?}"),
        }
    }
    let frac = hits as f64 / QUERIES as f64;
    assert!((0.3..0.9).contains(&frac), "hit fraction {frac}");
}

#[test]
fn point_queries_match_brute_force() {
    let side = 30.0;
    let (scene, handles) = common::mixed_scene(3_000, side, 0x9E1);
    let mut rng = proxima_test_support::rng(0x9E2);
    for i in 0..QUERIES {
        let p = common::point_in(&mut rng, side);
        let ours = scene.colliders_containing_point(&p, &QueryFilter::default());
        let mut brute: Vec<_> =
            handles.iter().copied().filter(|&h| scene.get(h).unwrap().world_shape().contains_point(&p)).collect();
        brute.sort_unstable();
        assert_eq!(ours, brute, "point {i}");

        let max_d = 2.0;
        let closest = scene.closest_point(&p, max_d, &QueryFilter::default());
        let brute = handles
            .iter()
            .map(|&h| (h, (scene.get(h).unwrap().world_shape().closest_point(&p) - p).norm()))
            .filter(|&(_, d)| d <= max_d)
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(closest.map(|c| (c.collider, c.distance)), brute, "closest point {i}");
    }
}

/// Random inserts, removals, moves and reshapes of static and dynamic
/// colliders (static removals swap positions in the static set, moves
/// invalidate its BVH): after each operation, box overlap queries equal brute
/// force over the live colliders, and stale handles stay rejected.
#[test]
fn churn_keeps_queries_exact() {
    use proxima_scene::{ColliderDesc, ColliderShape, SceneError};
    let side = 20.0;
    let mut rng = proxima_test_support::rng(0xC4);
    let mut scene = Scene::new();
    let mut live: Vec<ColliderHandle> = Vec::new();
    let mut dead: Vec<ColliderHandle> = Vec::new();
    for step in 0..3_000 {
        let op = uniform(&mut rng, 0.0, 1.0);
        if op < 0.4 || live.len() < 10 {
            let pose = common::pose(&mut rng, side);
            let shape = ColliderShape::Cuboid { half_extents: Vector::repeat(uniform(&mut rng, 0.2, 1.5)) };
            let mut desc = ColliderDesc::new(shape, pose);
            if op < 0.2 {
                desc = desc.fixed();
            }
            live.push(scene.insert(desc).unwrap());
        } else if op < 0.7 {
            let k = (uniform(&mut rng, 0.0, 1.0) * live.len() as f32) as usize % live.len();
            let h = live.swap_remove(k);
            scene.remove(h).unwrap();
            dead.push(h);
        } else if op < 0.9 {
            let k = (uniform(&mut rng, 0.0, 1.0) * live.len() as f32) as usize % live.len();
            scene.set_pose(live[k], common::pose(&mut rng, side)).unwrap();
        } else {
            let k = (uniform(&mut rng, 0.0, 1.0) * live.len() as f32) as usize % live.len();
            scene.set_shape(live[k], ColliderShape::Sphere { radius: uniform(&mut rng, 0.2, 1.5) }).unwrap();
        }
        let probe =
            Aabb::try_from_center(common::point_in(&mut rng, side), Vector::repeat(uniform(&mut rng, 0.5, 4.0)))
                .unwrap();
        let ours = scene.overlaps_aabb(&probe, &QueryFilter::default());
        let mut brute: Vec<_> = live
            .iter()
            .copied()
            .filter(|&h| {
                let w = scene.get(h).unwrap().world_shape();
                match w {
                    proxima_scene::WorldShape::Obb(o) => proxima_narrowphase::intersects_aabb_obb(&probe, o),
                    proxima_scene::WorldShape::Sphere(s) => proxima_narrowphase::intersects_sphere_aabb(s, &probe),
                    _ => unreachable!(),
                }
            })
            .collect();
        brute.sort_unstable();
        assert_eq!(ours, brute, "step {step}");
        assert_eq!(scene.len(), live.len());
        let sizes = scene.tree_sizes();
        assert_eq!(sizes.statics + sizes.dynamics, live.len(), "step {step}: trees out of sync");
        if let Some(&h) = dead.last() {
            assert_eq!(scene.get(h).map(|_| ()), None);
            assert_eq!(scene.set_pose(h, common::pose(&mut rng, side)), Err(SceneError::StaleHandle));
        }
    }
}

/// Bodies that fall together, scatter, and teleport: the dynamic tree grows
/// in place on every move and is tightened (or rebuilt) by `prepare`. Box
/// queries equal brute force both before and after `prepare`, and the tree
/// validates after every frame.
#[test]
fn moving_bodies_keep_queries_exact_between_and_after_upkeep() {
    use proxima_narrowphase::{Isometry, Rotation};
    use proxima_scene::{ColliderDesc, ColliderShape, WorldShape};
    let mut rng = proxima_test_support::rng(0x7EE);
    let mut scene = Scene::new();
    let mut bodies: Vec<(ColliderHandle, Vector)> = Vec::new();
    for i in 0..600 {
        let p = Vector::new((i % 10) as f32 * 2.0, (i / 100) as f32 * 2.0 + 40.0, (i / 10 % 10) as f32 * 2.0);
        let shape = if i % 2 == 0 {
            ColliderShape::Sphere { radius: uniform(&mut rng, 0.2, 0.9) }
        } else {
            ColliderShape::Cuboid { half_extents: Vector::repeat(uniform(&mut rng, 0.2, 0.9)) }
        };
        let h = scene.insert(ColliderDesc::new(shape, Isometry::translation(p.x, p.y, p.z))).unwrap();
        bodies.push((h, p));
    }
    scene.prepare();
    let mut poses = Vec::new();
    let mut hits = 0usize;
    let brute = |scene: &Scene, probe: &Aabb| {
        let mut out: Vec<ColliderHandle> = bodies_of(scene)
            .filter(|&h| match scene.get(h).unwrap().world_shape() {
                WorldShape::Obb(o) => proxima_narrowphase::intersects_aabb_obb(probe, o),
                WorldShape::Sphere(s) => proxima_narrowphase::intersects_sphere_aabb(s, probe),
                WorldShape::Aabb(a) => proxima_narrowphase::intersects_aabb_aabb(a, probe),
                _ => unreachable!(),
            })
            .collect();
        out.sort_unstable();
        out
    };
    for frame in 0..240 {
        poses.clear();
        for (h, p) in &mut bodies {
            let step = match frame {
                // Falling together, then spreading out, then a few teleports.
                0..=79 => Vector::new(0.0, -0.3, 0.0) + gen::unit_vector(&mut rng) * 0.02,
                80..=159 => gen::unit_vector(&mut rng) * 1.5,
                _ if uniform(&mut rng, 0.0, 1.0) < 0.1 => {
                    Vector::new(uniform(&mut rng, -90.0, 90.0), 0.0, uniform(&mut rng, -90.0, 90.0)) - *p
                }
                _ => gen::unit_vector(&mut rng) * 0.05,
            };
            *p += step;
            let rotation = Rotation::from_scaled_axis(gen::unit_vector(&mut rng) * 0.1 * frame as f32);
            poses.push((*h, Isometry::from_parts(nalgebra::Translation3::from(*p), rotation)));
        }
        scene.set_poses(&poses).unwrap();
        for upkeep in [false, true] {
            if upkeep {
                scene.prepare();
                scene.validate().unwrap_or_else(|e| panic!("frame {frame}: {e}"));
            }
            for _ in 0..8 {
                let (k, _) = bodies[(uniform(&mut rng, 0.0, 1.0) * bodies.len() as f32) as usize % bodies.len()];
                let at = scene.get(k).unwrap().pose().translation.vector;
                let probe = Aabb::try_from_center(at.into(), Vector::repeat(uniform(&mut rng, 0.5, 6.0))).unwrap();
                let ours = scene.overlaps_aabb(&probe, &QueryFilter::default());
                assert_eq!(ours, brute(&scene, &probe), "frame {frame}, after prepare: {upkeep}");
                hits += ours.len();
            }
        }
    }
    assert!(hits > 240 * 16, "probes centred on bodies must find them ({hits})");
}

/// Every live collider's handle.
fn bodies_of(scene: &Scene) -> impl Iterator<Item = ColliderHandle> + '_ {
    scene.iter().map(|(h, _)| h)
}
