//! Rays through scenes of one posed mesh collider (the shipped meshes):
//! `cast_ray_closest` equals the bare `TriMesh::cast_ray_closest_posed`
//! (toi, normal, triangle and barycentrics), `cast_ray_any` equals
//! `TriMesh::cast_ray_any_posed` and finds a hit exactly when the
//! closest-hit cast does, and the barycentrics rebuild the hit point. Poses:
//! rotated, a translation, and the identity; under the last two the posed
//! cast also equals the unposed `TriMesh::cast_ray_closest` / `cast_ray_any`
//! of the translated ray.
//! The batches (`Scene::cast_rays` and `Scene::occluded`, which cast a lone
//! static mesh in packets of rays, and `TriMesh::cast_rays_into`,
//! `cast_rays_any_into` and `occluded_into`) give each ray's single result on
//! 1 and 2 threads, both mesh builds.
// Every test here loads a shipped OBJ mesh.
#![cfg(feature = "obj")]

use std::sync::Arc;

use proxima_narrowphase::{Isometry, Ray, Real, Vector};
use proxima_scene::{
    ColliderDesc, ColliderShape, CollisionGroups, MeshBuild, QueryFilter, Scene, SceneRayHit, TriMesh, TriangleHit,
};
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::Rng;

/// The world point of a triangle hit: `a + u (b - a) + v (c - a)` posed.
fn rebuilt(mesh: &TriMesh, pose: &Isometry, t: TriangleHit) -> proxima_narrowphase::Point {
    let [a, b, c] = mesh.triangle(t.index).vertices();
    pose.transform_point(&(a + (b - a) * t.u + (c - a) * t.v))
}

/// How the mesh collider is placed.
#[derive(Clone, Copy, PartialEq)]
enum Pose {
    Rotated,
    Translated,
    Identity,
}

fn check_mesh(name: &str, seed: u64, dynamic: bool, kind: Pose) {
    check_mesh_built(name, seed, dynamic, kind, MeshBuild::FastBuild);
}

fn check_mesh_built(name: &str, seed: u64, dynamic: bool, kind: Pose, build: MeshBuild) {
    let path = format!("{}/../../assets/meshes/{name}.obj", env!("CARGO_MANIFEST_DIR"));
    let loaded = TriMesh::from_obj(path).unwrap();
    let mesh = Arc::new(TriMesh::new_with(loaded.vertices().to_vec(), loaded.indices().to_vec(), build).unwrap());
    let mut rng = proxima_test_support::rng(seed);
    let shift = Vector::new(3.0, -2.0, 5.0);
    let pose = match kind {
        Pose::Rotated => Isometry::from_parts(shift.into(), gen::rotation(&mut rng)),
        Pose::Translated => Isometry::translation(shift.x, shift.y, shift.z),
        Pose::Identity => Isometry::identity(),
    };
    let groups = CollisionGroups { memberships: 0b01, filter: 0b11 };
    let mut scene = Scene::new();
    let mut desc = ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(&mesh)), pose).with_groups(groups);
    if !dynamic {
        desc = desc.fixed();
    }
    let handle = scene.insert(desc).unwrap();
    let excluded = [handle];
    let accept_all = |_: proxima_scene::ColliderHandle, _: &proxima_scene::Collider| true;
    let reject_all = |_: proxima_scene::ColliderHandle, _: &proxima_scene::Collider| false;
    // (filter, whether it accepts the mesh)
    let filters = [
        (QueryFilter::default(), true),
        (QueryFilter { groups: CollisionGroups { memberships: 0b10, filter: 0b01 }, ..QueryFilter::default() }, true),
        (QueryFilter { groups: CollisionGroups { memberships: 0b10, filter: 0b10 }, ..QueryFilter::default() }, false),
        (QueryFilter::excluding(&excluded), false),
        (QueryFilter { predicate: Some(&accept_all), ..QueryFilter::default() }, true),
        (QueryFilter { predicate: Some(&reject_all), ..QueryFilter::default() }, false),
    ];
    let world = mesh.world_aabb(&pose);
    let scale = world.min().coords.amax().max(world.max().coords.amax());
    let around = Placement::new(2.0 * world.half_extents().norm(), 0.0, 0.0).at(world.center());
    let inside = Placement::new(world.half_extents().max(), 0.0, 0.0).at(world.center());
    let (mut hits, n) = (0, 3_000);
    let mut rays = Vec::with_capacity(n);
    let mut closests: Vec<Vec<Option<SceneRayHit>>> = vec![Vec::with_capacity(n); filters.len()];
    let mut anys: Vec<Vec<bool>> = vec![Vec::with_capacity(n); filters.len()];
    let mut bare_hits = Vec::with_capacity(n);
    for i in 0..n {
        let origin = gen::point(&mut rng, &around);
        let target = match rng.random_range(0..2) {
            0 => pose.transform_point(&mesh.vertices()[rng.random_range(0..mesh.vertices().len())]),
            _ => gen::point(&mut rng, &inside),
        };
        let max_toi = if i % 4 == 0 { gen::uniform(&mut rng, 0.0, 1.0) } else { Real::INFINITY };
        let ray = Ray::new(origin, target - origin, max_toi);
        let bare = mesh.cast_ray_closest_posed(&ray, &pose);
        let bare_any = mesh.cast_ray_any_posed(&ray, &pose);
        rays.push(ray);
        bare_hits.push((bare, bare_any));
        if kind != Pose::Rotated {
            // A pose without rotation moves the origin only: the same hits,
            // bit for bit, as the unposed mesh and the moved ray.
            let local = Ray::new(ray.origin() - pose.translation.vector, *ray.dir(), ray.max_toi());
            assert_eq!(bare, mesh.cast_ray_closest(&local), "{name} ray {i}: posed vs unposed");
            assert_eq!(bare_any, mesh.cast_ray_any(&local), "{name} ray {i}: posed vs unposed any-hit");
        }
        assert_eq!(bare_any.is_some(), bare.is_some(), "{name} ray {i}: bare any-hit vs closest");
        hits += usize::from(bare.is_some());
        for (k, (filter, accepts)) in filters.iter().enumerate() {
            let closest = scene.cast_ray_closest(&ray, filter);
            closests[k].push(closest);
            let any = scene.cast_ray_any(&ray, filter);
            anys[k].push(any.is_some());
            let expected = bare.filter(|_| *accepts);
            let as_scene = |h: proxima_scene::MeshRayHit| SceneRayHit {
                collider: handle,
                toi: h.hit.toi,
                normal: h.hit.normal,
                triangle: Some(h.triangle),
                child: None,
            };
            assert_eq!(closest, expected.map(as_scene), "{name} ray {i} filter {k}: closest");
            assert_eq!(any, bare_any.filter(|_| *accepts).map(as_scene), "{name} ray {i} filter {k}: any");
            assert_eq!(any.is_some(), closest.is_some(), "{name} ray {i} filter {k}: any vs closest");
            for hit in [closest, any].into_iter().flatten() {
                let t = hit.triangle.expect("a mesh hit has its triangle");
                let err = (rebuilt(&mesh, &pose, t) - ray.point_at(hit.toi)).norm();
                // f32: the toi and the weights are rounded on their own; the
                // pose adds its own rounding of the mesh's coordinates.
                assert!(err <= 2e-5 * scale, "{name} ray {i}: barycentric point off by {err} ({t:?})");
            }
        }
    }
    assert!((3 * n / 10..7 * n / 10).contains(&hits), "{name}: {hits} hits of {n}");
    // The batches: each ray's single result, on 1 and 2 threads.
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for (k, (filter, _)) in filters.iter().enumerate() {
            let batch = pool.install(|| scene.cast_rays(&rays, filter));
            for (i, (got, single)) in batch.iter().zip(&closests[k]).enumerate() {
                assert_eq!(got, single, "{name} ray {i} filter {k}, {threads} threads: cast_rays");
            }
            let blocked = pool.install(|| scene.occluded(&rays, filter));
            for (i, (got, single)) in blocked.iter().zip(&anys[k]).enumerate() {
                assert_eq!(got, single, "{name} ray {i} filter {k}, {threads} threads: occluded");
            }
        }
        if kind == Pose::Identity {
            let (mut closest, mut any, mut blocked) = (Vec::new(), Vec::new(), Vec::new());
            pool.install(|| mesh.cast_rays_into(&rays, &mut closest));
            pool.install(|| mesh.cast_rays_any_into(&rays, &mut any));
            pool.install(|| mesh.occluded_into(&rays, &mut blocked));
            for (i, (&(bare, bare_any), (c, a))) in bare_hits.iter().zip(closest.iter().zip(&any)).enumerate() {
                assert_eq!((*c, *a), (bare, bare_any), "{name} ray {i}, {threads} threads: TriMesh batches");
                assert_eq!(blocked[i], bare_any.is_some(), "{name} ray {i}, {threads} threads: occluded");
            }
        }
    }
}

/// Both builds, every pose: the batches and the single casts agree (the
/// `FastRays` tree has other blocks, so other ties between them).
#[test]
fn fast_rays_mesh_collider_matches_the_bare_mesh_and_its_batches() {
    check_mesh_built("spot", 0xB1, false, Pose::Identity, MeshBuild::FastRays);
    check_mesh_built("spot", 0xB2, false, Pose::Rotated, MeshBuild::FastRays);
    check_mesh_built("nefertiti-lowres", 0xB3, true, Pose::Translated, MeshBuild::FastRays);
}

#[test]
fn static_mesh_collider_any_and_closest_match_the_bare_mesh() {
    check_mesh("spot", 0xA1, false, Pose::Rotated);
    check_mesh("nefertiti-lowres", 0xA2, false, Pose::Rotated);
}

#[test]
fn dynamic_mesh_collider_any_and_closest_match_the_bare_mesh() {
    check_mesh("spot", 0xA3, true, Pose::Rotated);
    check_mesh("nefertiti-lowres", 0xA4, true, Pose::Rotated);
}

#[test]
fn unrotated_mesh_collider_any_and_closest_match_the_bare_mesh() {
    for (k, kind) in [Pose::Translated, Pose::Identity].into_iter().enumerate() {
        for dynamic in [false, true] {
            check_mesh("spot", 0xA5 + 2 * k as u64 + u64::from(dynamic), dynamic, kind);
        }
    }
    check_mesh("nefertiti-lowres", 0xA9, false, Pose::Identity);
}

/// A lone static mesh with dynamic spheres about it: `cast_rays` and
/// `occluded` (the mesh in packets, then each ray's dynamic pass) against the
/// single calls, rays from around the mesh towards its vertices and the
/// spheres, on 1 and 2 threads.
#[test]
fn batches_over_a_static_mesh_and_dynamic_spheres_match_single_rays() {
    let path = format!("{}/../../assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"));
    let mesh = Arc::new(TriMesh::from_obj(path).unwrap());
    let mut rng = proxima_test_support::rng(0xB7);
    let mut scene = Scene::new();
    let pose = Isometry::from_parts(Vector::new(1.0, 0.5, -2.0).into(), gen::rotation(&mut rng));
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(&mesh)), pose).fixed()).unwrap();
    let world = mesh.world_aabb(&pose);
    let around = Placement::new(2.0 * world.half_extents().norm(), 0.0, 0.0).at(world.center());
    let near = Placement::new(1.2 * world.half_extents().max(), 0.0, 0.0).at(world.center());
    let mut centres = Vec::new();
    for _ in 0..20 {
        let c = gen::point(&mut rng, &near);
        let radius = 0.05 * world.half_extents().max();
        scene
            .insert(ColliderDesc::new(ColliderShape::Sphere { radius }, Isometry::translation(c.x, c.y, c.z)))
            .unwrap();
        centres.push(c);
    }
    let rays: Vec<Ray> = (0..4_000)
        .map(|i| {
            let origin = gen::point(&mut rng, &around);
            let target = match i % 3 {
                0 => pose.transform_point(&mesh.vertices()[rng.random_range(0..mesh.vertices().len())]),
                1 => centres[rng.random_range(0..centres.len())],
                _ => gen::point(&mut rng, &near),
            };
            Ray::new(origin, target - origin, Real::INFINITY)
        })
        .collect();
    let filter = QueryFilter::default();
    let closest: Vec<_> = rays.iter().map(|r| scene.cast_ray_closest(r, &filter)).collect();
    let any: Vec<bool> = rays.iter().map(|r| scene.cast_ray_any(r, &filter).is_some()).collect();
    let on_spheres = closest.iter().flatten().filter(|h| h.triangle.is_none()).count();
    assert!(on_spheres > 100, "only {on_spheres} rays end on a sphere");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        assert_eq!(pool.install(|| scene.cast_rays(&rays, &filter)), closest, "{threads} threads: cast_rays");
        assert_eq!(pool.install(|| scene.occluded(&rays, &filter)), any, "{threads} threads: occluded");
    }
}
