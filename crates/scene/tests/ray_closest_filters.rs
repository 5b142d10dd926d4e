//! `Scene::cast_ray_closest` against a scan of every collider's exact ray
//! test, on scenes where the static set holds every shape kind (box
//! colliders take the static pass's fast path, the others their exact
//! test), under every kind of filter, and again after the static set
//! changes. The batch `cast_rays` must equal the sequential calls.
//! `cast_ray_any` must find a hit exactly when `cast_ray_closest` does, and
//! a genuine one.

use std::sync::Arc;

use proxima_narrowphase::{Isometry, Point, Ray, Real, Vector};
use proxima_scene::{
    ColliderDesc, ColliderHandle, ColliderShape, CollisionGroups, QueryFilter, Scene, SceneRayHit, TriMesh,
};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

const SIDE: Real = 40.0;

fn shape(rng: &mut impl Rng, kind: u32) -> ColliderShape {
    let mut s = || uniform(rng, 0.2, 2.0);
    match kind {
        0 => ColliderShape::Sphere { radius: s() },
        1 => ColliderShape::Cuboid { half_extents: Vector::new(s(), s(), s()) },
        2 => ColliderShape::Capsule { half_height: s(), radius: 0.5 * s() },
        _ => ColliderShape::Cuboid { half_extents: Vector::new(s(), s(), s()) },
    }
}

/// 1,500 colliders, two thirds static; half the static ones are boxes.
/// Groups use 3 bits so filters reject a fair share; `user_data` is the index.
fn scene(seed: u64) -> (Scene, Vec<ColliderHandle>) {
    let mut rng = proxima_test_support::rng(seed);
    let mut scene = Scene::new();
    let mesh = TriMesh::new(
        vec![
            Point::new(0.0, 0.0, 0.0),
            Point::new(3.0, 0.0, 0.0),
            Point::new(0.0, 3.0, 0.0),
            Point::new(0.0, 0.0, 3.0),
        ],
        vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]],
    )
    .unwrap();
    let mesh = Arc::new(mesh);
    let mut handles = Vec::new();
    for i in 0..1_500u64 {
        let t = Vector::new(uniform(&mut rng, 0.0, SIDE), uniform(&mut rng, 0.0, SIDE), uniform(&mut rng, 0.0, SIDE));
        let pose = Isometry::from_parts(t.into(), gen::rotation(&mut rng));
        let kind = rng.random_range(0..8);
        let shape = if i % 50 == 0 { ColliderShape::TriMesh(mesh.clone()) } else { shape(&mut rng, kind) };
        let groups = CollisionGroups { memberships: 1 << rng.random_range(0..3), filter: rng.random_range(1..8) };
        let mut desc = ColliderDesc::new(shape, pose).with_groups(groups).with_user_data(i);
        if i % 3 != 0 {
            desc = desc.fixed();
        }
        handles.push(scene.insert(desc).unwrap());
    }
    (scene, handles)
}

/// The closest hit by scanning every collider the filter accepts.
fn scan(scene: &Scene, ray: &Ray, filter: &QueryFilter) -> Option<(ColliderHandle, Real)> {
    scene
        .iter()
        .filter(|(h, c)| filter.accepts(*h, c))
        .filter_map(|(h, c)| c.world_shape().cast_ray(ray).map(|hit| (h, hit.toi)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `cast_ray_any` agrees with the closest hit on hit or miss, and its hit is
/// one: an accepted collider whose own exact test hits at or before the
/// reported `toi` (a mesh's any-hit may be a farther triangle), never before
/// the closest hit.
fn check_any(scene: &Scene, ray: &Ray, filter: &QueryFilter, closest: Option<SceneRayHit>, label: &str) {
    let any = scene.cast_ray_any(ray, filter);
    assert_eq!(any.is_some(), closest.is_some(), "{label}: any-hit vs closest-hit on {ray:?}");
    let (Some(any), Some(closest)) = (any, closest) else { return };
    assert!(any.toi >= closest.toi, "{label}: any-hit before the closest hit");
    let c = scene.get(any.collider).unwrap();
    assert!(filter.accepts(any.collider, c), "{label}: any-hit on a filtered-out collider");
    let own = c.world_shape().cast_ray(ray).expect("the any-hit collider is hit");
    assert!(own.toi <= any.toi, "{label}");
    let is_mesh = matches!(c.shape(), ColliderShape::TriMesh(_));
    assert_eq!(any.triangle.is_some(), is_mesh, "{label}: triangle detail exactly on meshes");
}

/// Ours equals the scan: the same toi bits, and the collider reported is
/// one the scan hits there, with its own exact normal (ties may pick either).
fn check(scene: &Scene, ray: &Ray, filter: &QueryFilter, label: &str) -> bool {
    let ours = scene.cast_ray_closest(ray, filter);
    let theirs = scan(scene, ray, filter);
    assert_eq!(ours.map(|h| h.toi.to_bits()), theirs.map(|t| t.1.to_bits()), "{label}: {ray:?}");
    if let Some(SceneRayHit { collider, toi, normal, .. }) = ours {
        let c = scene.get(collider).unwrap();
        assert!(filter.accepts(collider, c), "{label}: a filtered-out collider was hit");
        let own = c.world_shape().cast_ray(ray).expect("the reported collider is hit");
        assert_eq!((own.toi, own.normal), (toi, normal), "{label}: {ray:?}");
    }
    ours.is_some()
}

#[test]
fn closest_hits_match_a_scan_under_every_filter() {
    let (mut scene, handles) = scene(0xF11);
    let mut rng = proxima_test_support::rng(0xF12);
    let excluded: Vec<ColliderHandle> = handles.iter().copied().step_by(7).collect();
    let odd = |_: ColliderHandle, c: &proxima_scene::Collider| c.user_data() % 2 == 1;
    let filters = [
        ("default", QueryFilter::default()),
        (
            "groups",
            QueryFilter { groups: CollisionGroups { memberships: 0b001, filter: 0b011 }, ..QueryFilter::default() },
        ),
        ("exclude", QueryFilter::excluding(&excluded)),
        ("predicate", QueryFilter { predicate: Some(&odd), ..QueryFilter::default() }),
    ];
    let pools = [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap());
    let mut hits = 0;
    let mut total = 0;
    for round in 0..3 {
        if round > 0 {
            // Changes to the static set: removals, moves, a box turned into a
            // sphere and a sphere into a box; the leaf table must follow.
            for &h in handles.iter().skip(round).step_by(11) {
                if scene.get(h).is_some_and(|c| c.kind() == proxima_scene::BodyKind::Fixed) {
                    let _ = scene.remove(h);
                }
            }
            for &h in handles.iter().skip(round + 1).step_by(13) {
                let Some(c) = scene.get(h) else { continue };
                let new_shape = match c.shape() {
                    ColliderShape::Cuboid { .. } => shape(&mut rng, 0),
                    ColliderShape::Sphere { .. } => shape(&mut rng, 3),
                    _ => continue,
                };
                scene.set_shape(h, new_shape).unwrap();
                let p = *scene.get(h).unwrap().pose();
                scene
                    .set_pose(h, Isometry::from_parts((p.translation.vector + Vector::repeat(0.5)).into(), p.rotation))
                    .unwrap();
            }
        }
        let rays: Vec<Ray> = (0..4_000)
            .map(|_| {
                let o = Point::new(
                    uniform(&mut rng, 0.0, SIDE),
                    uniform(&mut rng, 0.0, SIDE),
                    uniform(&mut rng, 0.0, SIDE),
                );
                Ray::new(o, gen::unit_vector(&mut rng), uniform(&mut rng, 0.0, SIDE))
            })
            .collect();
        for (label, filter) in &filters {
            for ray in &rays {
                hits += usize::from(check(&scene, ray, filter, label));
                check_any(&scene, ray, filter, scene.cast_ray_closest(ray, filter), label);
                total += 1;
            }
            let batch = scene.cast_rays(&rays, filter);
            for (ray, b) in rays.iter().zip(&batch) {
                assert_eq!(*b, scene.cast_ray_closest(ray, filter), "{label}: batch");
            }
            // The batches run in the caller's pool: 1 and 2 threads give the
            // sequential results.
            for pool in &pools {
                assert_eq!(pool.install(|| scene.cast_rays(&rays, filter)), batch, "{label}: batch in a pool");
                let any = pool.install(|| scene.cast_rays_any(&rays, filter));
                for (ray, a) in rays.iter().zip(&any) {
                    assert_eq!(*a, scene.cast_ray_any(ray, filter), "{label}: batch any-hit");
                }
            }
        }
    }
    let frac = hits as f64 / total as f64;
    assert!((0.3..0.7).contains(&frac), "hit fraction {frac}");
}

/// From 200,000 static colliders `cast_rays` batches the static pass: its
/// results must still equal the sequential calls, on every thread count and
/// under every filter.
#[test]
fn batched_static_pass_equals_sequential() {
    let mut rng = proxima_test_support::rng(0xBA7);
    let side = 320.0;
    let mut scene = Scene::new();
    let mut handles = Vec::new();
    for i in 0..210_000u64 {
        let t = Vector::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
        let pose = Isometry::from_parts(t.into(), gen::rotation(&mut rng));
        let kind = if i % 10 == 0 { rng.random_range(0..3) } else { 3 };
        let groups = CollisionGroups { memberships: 1 << rng.random_range(0..3), filter: rng.random_range(1..8) };
        let mut desc = ColliderDesc::new(shape(&mut rng, kind), pose).with_groups(groups).with_user_data(i);
        if i % 100 != 0 {
            desc = desc.fixed();
        }
        handles.push(scene.insert(desc).unwrap());
    }
    assert!(scene.tree_sizes().statics >= 200_000);
    let excluded: Vec<ColliderHandle> = handles.iter().copied().step_by(7).collect();
    let odd = |_: ColliderHandle, c: &proxima_scene::Collider| c.user_data() % 2 == 1;
    let filters = [
        QueryFilter::default(),
        QueryFilter { groups: CollisionGroups { memberships: 0b001, filter: 0b011 }, ..QueryFilter::default() },
        QueryFilter::excluding(&excluded),
        QueryFilter { predicate: Some(&odd), ..QueryFilter::default() },
    ];
    let rays: Vec<Ray> = (0..3_000)
        .map(|_| {
            let o =
                Point::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
            Ray::new(o, gen::unit_vector(&mut rng), uniform(&mut rng, 0.0, 40.0))
        })
        .collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut hits = 0;
    for (k, filter) in filters.iter().enumerate() {
        let batch = scene.cast_rays(&rays, filter);
        let batch_one_thread = one.install(|| scene.cast_rays(&rays, filter));
        for (i, ray) in rays.iter().enumerate() {
            let seq = scene.cast_ray_closest(ray, filter);
            check_any(&scene, ray, filter, seq, "batched scene");
            assert_eq!(batch[i], seq, "filter {k} ray {i}");
            assert_eq!(batch_one_thread[i], seq, "filter {k} ray {i}");
            hits += usize::from(seq.is_some());
        }
    }
    let frac = hits as f64 / (rays.len() * filters.len()) as f64;
    assert!((0.3..0.7).contains(&frac), "hit fraction {frac}");
}
