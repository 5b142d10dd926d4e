//! The overlap queries' visitor and `_into` forms (`Scene::visit_overlaps`,
//! `Scene::overlaps_into`) and the ray batches' `_into` forms
//! (`cast_rays_into`, `cast_rays_any_into`, `occluded_into`) against the
//! `Vec` forms and brute force, and the
//! `QueryFilter` builders (`groups`, `exclude_fixed`, `exclude_dynamic`,
//! `exclude_kinematic`, `exclude_collider`, `predicate`) in every query, against the filter's
//! rule written out, over seeded random scenes with meshes.

mod query_oracles;

use core::ops::ControlFlow;
use std::sync::Arc;

use proxima_narrowphase::{Isometry, Point, Ray, Real, Sphere, Vector};
use proxima_scene::{
    BodyKind, ColliderDesc, ColliderHandle, ColliderShape, CollisionGroups, OverlapShape, QueryFilter, Scene, TriMesh,
};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;
use query_oracles::{brute_overlaps, point_in, probe, FilterSpec};

const QUERIES: usize = 5_000;

/// The `Vec` form of the query `probe` names.
fn vec_form(scene: &Scene, probe: &OverlapShape, filter: &QueryFilter) -> Vec<ColliderHandle> {
    match probe {
        OverlapShape::Point(p) => scene.colliders_containing_point(p, filter),
        OverlapShape::Aabb(a) => scene.overlaps_aabb(a, filter),
        OverlapShape::Sphere(s) => scene.overlaps_sphere(s, filter),
        OverlapShape::Obb(o) => scene.overlaps_obb(o, filter),
        OverlapShape::Capsule(c) => scene.overlaps_capsule(c, filter),
    }
}

#[test]
fn overlap_forms_match_the_vec_forms_and_brute_force() {
    let side = 20.0;
    let (scene, handles) = query_oracles::scene(2_000, 6, side, 0x0F1);
    let mut rng = proxima_test_support::rng(0x0F2);
    let mut out = Vec::new(); // kept across queries: `overlaps_into` clears it
    let mut nonempty = [0; 5];
    for i in 0..QUERIES {
        let spec = if i % 3 == 0 { FilterSpec::all() } else { FilterSpec::random(&mut rng, &handles) };
        let filter = spec.filter();
        let probe = probe(&mut rng, i, side);
        let vec = vec_form(&scene, &probe, &filter);
        assert_eq!(vec, brute_overlaps(&scene, &handles, &spec, &probe), "query {i}: {probe:?} {spec:?}");
        scene.overlaps_into(&probe, &filter, &mut out);
        assert_eq!(out, vec, "query {i}: into");
        let mut visited = Vec::new();
        let flow = scene.visit_overlaps(&probe, &filter, |h| {
            visited.push(h);
            ControlFlow::Continue(())
        });
        assert!(flow.is_continue());
        visited.sort_unstable();
        assert_eq!(visited, vec, "query {i}: visitor (each collider once)");
        // Breaking at the k-th collider stops there.
        if !vec.is_empty() {
            nonempty[i % 5] += 1;
            let k = rng.random_range(1..=vec.len());
            let mut calls = 0;
            let flow = scene.visit_overlaps(&probe, &filter, |_| {
                calls += 1;
                if calls == k {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            assert!(flow.is_break() && calls == k, "query {i}: {calls} calls to break at {k}");
        }
    }
    // Points are seldom inside; the other probes hit about half the time.
    let per_kind = QUERIES / 5;
    assert!(nonempty[0] * 20 > per_kind, "{nonempty:?} non-empty of {per_kind} per kind");
    for n in &nonempty[1..] {
        assert!((per_kind * 3 / 10..per_kind * 7 / 10).contains(n), "{nonempty:?} non-empty of {per_kind} per kind");
    }
}

#[test]
fn non_finite_points_are_in_nothing() {
    let (scene, _) = query_oracles::scene(50, 1, 10.0, 0x0F3);
    let mut out = vec![scene.iter().next().unwrap().0];
    for p in [Point::new(Real::NAN, 0.0, 0.0), Point::new(0.0, Real::INFINITY, 0.0)] {
        scene.overlaps_into(&OverlapShape::Point(p), &QueryFilter::default(), &mut out);
        assert!(out.is_empty());
        assert!(scene
            .visit_overlaps(&OverlapShape::Point(p), &QueryFilter::default(), |_| ControlFlow::Break(()))
            .is_continue());
    }
}

/// The admitted colliders' ray hits `(toi, handle)`, sorted.
fn brute_ray(scene: &Scene, handles: &[ColliderHandle], spec: &FilterSpec, ray: &Ray) -> Vec<(Real, ColliderHandle)> {
    let mut hits: Vec<_> = handles
        .iter()
        .filter(|&&h| spec.admits(scene, h))
        .filter_map(|&h| scene.get(h).unwrap().world_shape().cast_ray(ray).map(|hit| (hit.toi, h)))
        .collect();
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    hits
}

#[test]
fn ray_queries_honour_the_filter_builders() {
    let side = 20.0;
    let (scene, handles) = query_oracles::scene(2_000, 6, side, 0x0F4);
    let mut rng = proxima_test_support::rng(0x0F5);
    let mut hits = 0;
    // The `_into` forms fill the same vectors every round (cleared first).
    let (mut batch_into, mut any_into, mut occluded_into) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..QUERIES / 10 {
        let spec = FilterSpec::random(&mut rng, &handles);
        let filter = spec.filter();
        let rays: Vec<Ray> = (0..10)
            .map(|_| Ray::new(point_in(&mut rng, side), gen::unit_vector(&mut rng), uniform(&mut rng, 0.0, 15.0)))
            .collect();
        let batch = scene.cast_rays(&rays, &filter);
        let any_batch = scene.cast_rays_any(&rays, &filter);
        let occluded = scene.occluded(&rays, &filter);
        scene.cast_rays_into(&rays, &filter, &mut batch_into);
        scene.cast_rays_any_into(&rays, &filter, &mut any_into);
        scene.occluded_into(&rays, &filter, &mut occluded_into);
        assert_eq!((&batch_into, &any_into, &occluded_into), (&batch, &any_batch, &occluded), "rays {i}: _into forms");
        for (j, ray) in rays.iter().enumerate() {
            let what = format!("rays {i}.{j}: {spec:?}");
            let brute = brute_ray(&scene, &handles, &spec, ray);
            let closest = scene.cast_ray_closest(ray, &filter);
            assert_eq!(batch[j], closest, "{what}");
            match (closest, brute.first()) {
                (Some(c), Some(&(toi, _))) => {
                    hits += 1;
                    assert_eq!(c.toi, toi, "{what}");
                    assert!(brute.iter().any(|&(t, h)| t == toi && h == c.collider), "{what}");
                }
                (None, None) => {}
                (c, b) => panic!("{what}: scene {c:?} vs brute force {b:?}"),
            }
            let any = scene.cast_ray_any(ray, &filter);
            assert_eq!(any.is_some(), !brute.is_empty(), "{what}");
            assert!(any.is_none_or(|a| spec.admits(&scene, a.collider)), "{what}");
            assert_eq!((any_batch[j].is_some(), occluded[j]), (any.is_some(), any.is_some()), "{what}");
            let all: Vec<_> = scene.cast_ray_all(ray, &filter).iter().map(|h| (h.toi, h.collider)).collect();
            assert_eq!(all, brute, "{what}");
        }
    }
    let n = QUERIES;
    assert!((n * 3 / 10..n * 7 / 10).contains(&hits), "{hits} of {n} rays hit");
}

#[test]
fn point_and_sweep_queries_honour_the_filter_builders() {
    let side = 20.0;
    let (scene, handles) = query_oracles::scene(2_000, 6, side, 0x0F6);
    let mut rng = proxima_test_support::rng(0x0F7);
    for i in 0..QUERIES / 5 {
        let spec = FilterSpec::random(&mut rng, &handles);
        let filter = spec.filter();
        let admitted: Vec<_> = handles.iter().copied().filter(|&h| spec.admits(&scene, h)).collect();
        let p = point_in(&mut rng, side);
        let closest = scene.closest_point(&p, 2.0, &filter).map(|c| (c.collider, c.distance));
        let brute = admitted
            .iter()
            .map(|&h| (h, (scene.get(h).unwrap().world_shape().closest_point(&p) - p).norm()))
            .filter(|&(_, d)| d <= 2.0)
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(closest, brute, "closest point {i}: {spec:?}");

        let sphere = Sphere::new(p, uniform(&mut rng, 0.1, 0.6));
        let motion = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 8.0);
        let all: Vec<_> =
            scene.cast_sphere_all(&sphere, &motion, &filter).iter().map(|h| (h.hit.toi, h.collider)).collect();
        let mut brute: Vec<_> = admitted
            .iter()
            .filter_map(|&h| scene.get(h).unwrap().world_shape().cast_sphere(&sphere, &motion).map(|hit| (hit.toi, h)))
            .collect();
        brute.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        assert_eq!(all, brute, "sweep {i}: {spec:?}");
        assert_eq!(scene.cast_sphere(&sphere, &motion, &filter).map(|h| h.hit.toi), brute.first().map(|h| h.0));
    }
}

/// A flat 20 x 20 static mesh floor at y = 0, a dynamic ball under it
/// (top at y = -2) and a kinematic one under that (top at y = -5).
fn floor_over_balls() -> (Scene, [ColliderHandle; 3]) {
    let v = [(-10.0, -10.0), (10.0, -10.0), (10.0, 10.0), (-10.0, 10.0)].map(|(x, z)| Point::new(x, 0.0, z));
    let mesh = Arc::new(TriMesh::new(v.to_vec(), vec![[0, 2, 1], [0, 3, 2]]).unwrap());
    let mut scene = Scene::new();
    let floor = scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh), Isometry::identity()).fixed()).unwrap();
    let ball = |y| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(0.0, y, 0.0));
    let dynamic = scene.insert(ball(-3.0)).unwrap();
    let kinematic = scene.insert(ball(-6.0).kinematic()).unwrap();
    (scene, [floor, dynamic, kinematic])
}

#[test]
fn kind_exclusions_on_a_lone_static_mesh() {
    // The lone static mesh takes the packet path of the batches: the kind
    // exclusions hold there as in the single casts.
    let (scene, [floor, ball, lift]) = floor_over_balls();
    let down = Ray::new(Point::new(0.0, 5.0, 0.0), -Vector::y(), 20.0);
    let rays = vec![down; 12];
    let f = QueryFilter::default;
    for (filter, first, overlapping) in [
        (f(), Some((floor, 5.0)), vec![floor, ball, lift]),
        (f().exclude_fixed(), Some((ball, 7.0)), vec![ball, lift]),
        (f().exclude_dynamic(), Some((floor, 5.0)), vec![floor, lift]),
        (f().exclude_kinematic(), Some((floor, 5.0)), vec![floor, ball]),
        (f().exclude_fixed().exclude_dynamic(), Some((lift, 10.0)), vec![lift]),
        (f().exclude_fixed().exclude_dynamic().exclude_kinematic(), None, vec![]),
        (f().exclude_collider(floor), Some((ball, 7.0)), vec![ball, lift]),
        (f().exclude_fixed().exclude_collider(ball), Some((lift, 10.0)), vec![lift]),
    ] {
        let what = format!("{filter:?}");
        let hit = |h: Option<proxima_scene::SceneRayHit>| h.map(|h| (h.collider, h.toi));
        assert_eq!(hit(scene.cast_ray_closest(&down, &filter)), first, "{what}");
        assert!(scene.cast_rays(&rays, &filter).into_iter().all(|h| hit(h) == first), "{what}");
        assert!(scene.cast_rays_any(&rays, &filter).into_iter().all(|h| h.is_some() == first.is_some()), "{what}");
        assert!(scene.occluded(&rays, &filter).into_iter().all(|b| b == first.is_some()), "{what}");
        let probe = OverlapShape::Sphere(Sphere::new(Point::new(0.0, -3.0, 0.0), 3.5));
        let mut out = Vec::new();
        scene.overlaps_into(&probe, &filter, &mut out);
        assert_eq!(out, overlapping, "{what}");
    }
}

#[test]
fn exclude_collider_reaches_static_boxes() {
    // Static boxes alone: with groups only, the static pass accepts a box
    // without reading its collider; an excluded handle must still be skipped.
    let mut scene = Scene::new();
    let wall = |x| {
        ColliderDesc::new(
            ColliderShape::Cuboid { half_extents: Vector::new(0.5, 5.0, 5.0) },
            Isometry::translation(x, 0.0, 0.0),
        )
        .fixed()
    };
    let near = scene.insert(wall(5.0)).unwrap();
    let far = scene.insert(wall(10.0)).unwrap();
    let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    let hit = |f: &QueryFilter| scene.cast_ray_closest(&ray, f).map(|h| (h.collider, h.toi));
    assert_eq!(hit(&QueryFilter::default()), Some((near, 4.5)));
    assert_eq!(hit(&QueryFilter::default().exclude_dynamic()), Some((near, 4.5)));
    assert_eq!(hit(&QueryFilter::default().exclude_collider(near)), Some((far, 9.5)));
    assert_eq!(hit(&QueryFilter::default().exclude_collider(near).groups(CollisionGroups::ALL)), Some((far, 9.5)));
    assert_eq!(hit(&QueryFilter::default().exclude_fixed()), None);
    let any = scene.cast_ray_any(&ray, &QueryFilter::default().exclude_collider(near).exclude_collider(far));
    assert_eq!(any.map(|h| h.collider), Some(near), "a second exclude_collider replaces the first");
}

#[test]
fn builders_set_their_fields() {
    let mut scene = Scene::new();
    let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    let none = |_: ColliderHandle, _: &proxima_scene::Collider| false;
    let g = CollisionGroups::new(0b10, 0b01);
    let f = QueryFilter::default().groups(g).exclude_fixed().exclude_dynamic().exclude_kinematic();
    let f = f.exclude_collider(h).predicate(&none);
    assert_eq!((f.groups, f.exclude_fixed, f.exclude_dynamic, f.exclude_kinematic), (g, true, true, true));
    assert_eq!(f.exclude_collider, Some(h));
    assert!(f.predicate.is_some() && f.exclude.is_empty());
    let d = QueryFilter::default();
    assert_eq!(
        (d.groups, d.exclude_fixed, d.exclude_dynamic, d.exclude_kinematic, d.exclude_collider),
        (CollisionGroups::ALL, false, false, false, None)
    );
    let text = format!("{f:?}");
    assert!(text.contains("exclude_fixed: true") && text.contains("predicate: true"), "{text}");
    // Each exclusion alone rejects the one dynamic collider or not.
    let c = scene.get(h).unwrap();
    assert_eq!(c.kind(), BodyKind::Dynamic);
    assert!(QueryFilter::default().exclude_fixed().accepts(h, c));
    assert!(QueryFilter::default().exclude_kinematic().accepts(h, c));
    assert!(!QueryFilter::default().exclude_dynamic().accepts(h, c));
    assert!(!QueryFilter::default().exclude_collider(h).accepts(h, c));
    assert!(!QueryFilter::default().predicate(&none).accepts(h, c));
    assert!(!QueryFilter::default().groups(CollisionGroups::NONE).accepts(h, c));
}
