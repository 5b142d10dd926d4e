//! `Scene::cast_sphere_with` under `CastOptions`: with
//! `stop_at_penetration: false` a start overlap that the motion does not go
//! into (`motion . normal >= 0`) is ignored, a mesh's triangle by triangle.
//! Checked against brute force over seeded random scenes with random
//! filters, and on the edge cases of every target shape: start touching,
//! start sunk, moving away, tangentially, deeper, obliquely, not at all.

mod query_oracles;

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Point, Real, Rotation, Sphere, SweepStatus, Vector};
use proxima_scene::{
    CastOptions, ColliderDesc, ColliderHandle, ColliderShape, QueryFilter, Scene, SceneSweepHit, TriMesh, WorldShape,
};
use proxima_test_support::gen::{self, uniform};
use query_oracles::{brute_sweep, leaves, point_in, sweep, FilterSpec};

const QUERIES: usize = 4_000;

/// Asserts that `ours` is the brute-force first hit: the same `toi`, a
/// collider hit at it, and that collider's own sweep (for a mesh, the
/// `toi`: triangles tied at it may give another point).
#[allow(clippy::too_many_arguments)]
fn check(
    scene: &Scene,
    handles: &[ColliderHandle],
    spec: &FilterSpec,
    sphere: &Sphere,
    motion: &Vector,
    stop: bool,
    ours: Option<SceneSweepHit>,
    what: &str,
) {
    match (ours, brute_sweep(scene, handles, spec, sphere, motion, stop)) {
        (Some(o), Some((toi, tied))) => {
            assert_eq!(o.hit.toi, toi, "{what}");
            assert!(tied.contains(&o.collider), "{what}: {:?} is not among {tied:?}", o.collider);
            let shape = scene.get(o.collider).unwrap().world_shape();
            if !matches!(shape, WorldShape::TriMesh(..)) {
                assert_eq!(Some(o.hit), sweep(shape, sphere, motion, stop), "{what}");
            }
        }
        (None, None) => {}
        (o, b) => panic!("{what}: scene {o:?} vs brute force {b:?}"),
    }
}

/// Distance from `p` to a convex placed shape (0 inside).
fn distance(shape: &WorldShape, p: &Point) -> Real {
    (shape.closest_point(p) - p).norm()
}

#[test]
fn leaving_casts_match_brute_force() {
    let side = 20.0;
    let (scene, handles) = query_oracles::scene(1_500, 6, side, 0xCA1);
    let mut rng = proxima_test_support::rng(0xCA2);
    let leave = CastOptions::no_stop_at_penetration();
    let (mut started_in, mut casts, mut changed, mut hits, mut left) = (0, 0, 0, 0, 0);
    for i in 0..QUERIES {
        let spec = if i % 2 == 0 { FilterSpec::all() } else { FilterSpec::random(&mut rng, &handles) };
        let filter = spec.filter();
        let sphere = Sphere::new(point_in(&mut rng, side), uniform(&mut rng, 0.2, 0.8));
        let motion = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 6.0);
        let stopped = scene.cast_sphere(&sphere, &motion, &filter);
        assert_eq!(scene.cast_sphere_with(&sphere, &motion, &filter, &CastOptions::default()), stopped, "query {i}");
        check(&scene, &handles, &spec, &sphere, &motion, true, stopped, &format!("query {i}, stopping"));
        // The motion as drawn; after a start overlap, also the motion made
        // tangential to its normal, straight out along it, and none.
        let mut motions = vec![motion];
        if let Some(s) = stopped.filter(|s| s.hit.status == SweepStatus::Penetrating) {
            started_in += 1;
            let n = s.hit.normal.into_inner();
            motions.extend([motion - n * motion.dot(&n), n * motion.norm(), Vector::zeros()]);
        }
        for (k, m) in motions.iter().enumerate() {
            let ours = scene.cast_sphere_with(&sphere, m, &filter, &leave);
            check(&scene, &handles, &spec, &sphere, m, false, ours, &format!("query {i}, motion {k}, leaving"));
            casts += 1;
            hits += ours.is_some() as usize;
            changed += (ours != scene.cast_sphere(&sphere, m, &filter)) as usize;
        }
        // An ignored start overlap on a convex shape never gets deeper: the
        // centre's distance to the shape does not drop along the motion.
        for &h in handles.iter().filter(|&&h| spec.admits(&scene, h)) {
            let shape = scene.get(h).unwrap().world_shape();
            if matches!(shape, WorldShape::TriMesh(..)) {
                continue;
            }
            let Some(hit) = shape.cast_sphere(&sphere, &motion) else { continue };
            if !leaves(&hit, &motion) {
                continue;
            }
            left += 1;
            let d0 = distance(shape, sphere.center());
            for t in [0.25, 0.5, 0.75, 1.0] {
                let d = distance(shape, &(sphere.center() + motion * t));
                assert!(d >= d0 - 1e-5 * (1.0 + motion.norm()), "query {i}: {h:?} gets deeper at t = {t}");
            }
        }
    }
    let frac = started_in as f64 / QUERIES as f64;
    assert!((0.3..0.7).contains(&frac), "{started_in} of {QUERIES} casts start in an overlap");
    assert!(changed * 5 > casts && hits * 5 > casts, "{changed} changed and {hits} hits of {casts} leaving casts");
    assert!(left > QUERIES / 10, "{left} start overlaps left");
}

/// The moving sphere of the edge cases: radius 0.5 at the origin.
fn body() -> Sphere {
    Sphere::new(Point::origin(), 0.5)
}

/// A 4 x 4 square in the plane x = `x0`, two triangles whose shared
/// diagonal passes through (x0, 0, 0).
fn wall_mesh(x0: Real) -> Arc<TriMesh> {
    let v = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)].map(|(y, z)| Point::new(x0, y, z));
    Arc::new(TriMesh::new(v.to_vec(), vec![[0, 1, 2], [0, 2, 3]]).unwrap())
}

/// One target of each shape whose surface nearest the origin is the point
/// (x0, 0, 0), with outward normal -x there.
fn targets(x0: Real) -> Vec<(&'static str, ColliderDesc)> {
    let at = |x: Real| Isometry::translation(x, 0.0, 0.0);
    let tilted =
        Isometry::from_parts(Translation3::new(x0 + 1.0, 0.0, 0.0), Rotation::from_euler_angles(0.3, 0.0, 0.0));
    let unit = Vector::repeat(1.0);
    vec![
        ("sphere", ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, at(x0 + 1.0))),
        ("box", ColliderDesc::new(ColliderShape::Cuboid { half_extents: unit }, at(x0 + 1.0))),
        ("oriented box", ColliderDesc::new(ColliderShape::Cuboid { half_extents: unit }, tilted)),
        ("capsule", ColliderDesc::new(ColliderShape::Capsule { half_height: 1.0, radius: 0.5 }, at(x0 + 0.5))),
        ("mesh", ColliderDesc::new(ColliderShape::TriMesh(wall_mesh(x0)), Isometry::identity()).fixed()),
    ]
}

/// A scene holding only `desc`.
fn alone(desc: ColliderDesc) -> (Scene, ColliderHandle) {
    let mut scene = Scene::new();
    let h = scene.insert(desc).unwrap();
    (scene, h)
}

#[test]
fn start_overlaps_by_direction_on_every_shape() {
    let f = QueryFilter::default();
    let leave = CastOptions::no_stop_at_penetration();
    // Touching exactly (x0 = 0.5) and sunk by 0.01.
    for x0 in [0.5, 0.49] {
        for (name, desc) in targets(x0) {
            let (scene, h) = alone(desc);
            let cases = [
                ("none", Vector::zeros(), false),
                ("away", Vector::new(-2.0, 0.0, 0.0), false),
                ("tangential y", Vector::new(0.0, 2.0, 0.0), false),
                ("tangential z", Vector::new(0.0, 0.0, -2.0), false),
                ("obliquely away", Vector::new(-1.0, 1.0, 0.0), false),
                ("deeper", Vector::new(2.0, 0.0, 0.0), true),
                ("obliquely deeper", Vector::new(1.0, -1.0, 1.0), true),
            ];
            for (case, motion, stops) in cases {
                let what = format!("{name} at x0 = {x0}, moving {case}");
                let stopped = scene.cast_sphere(&body(), &motion, &f).expect(&what);
                assert_eq!((stopped.collider, stopped.hit.toi), (h, 0.0), "{what}");
                assert_eq!(stopped.hit.status, SweepStatus::Penetrating, "{what}");
                assert!((stopped.hit.normal.into_inner() + Vector::x()).norm() < 1e-6, "{what}: {stopped:?}");
                let ours = scene.cast_sphere_with(&body(), &motion, &f, &leave);
                if stops {
                    assert_eq!(ours, Some(stopped), "{what}");
                } else {
                    assert_eq!(ours, None, "{what}");
                }
            }
        }
    }
}

#[test]
fn centre_inside_a_box_leaves_through_the_nearest_face() {
    // The box spans x in [-0.5, 3.5]: the centre is 0.5 from the face
    // x = -0.5, 1.5 or more from the others, so the normal is -x.
    let boxed = ColliderDesc::new(
        ColliderShape::Cuboid { half_extents: Vector::repeat(2.0) },
        Isometry::translation(1.5, 0.0, 0.0),
    );
    let (scene, h) = alone(boxed);
    let (f, leave) = (QueryFilter::default(), CastOptions::no_stop_at_penetration());
    assert_eq!(scene.cast_sphere_with(&body(), &Vector::new(-2.0, 0.0, 0.0), &f, &leave), None);
    assert_eq!(scene.cast_sphere_with(&body(), &Vector::new(0.0, 1.0, 0.0), &f, &leave), None);
    let deeper = scene.cast_sphere_with(&body(), &Vector::new(2.0, 0.0, 0.0), &f, &leave).unwrap();
    assert_eq!((deeper.collider, deeper.hit.toi, deeper.hit.status), (h, 0.0, SweepStatus::Penetrating));
}

#[test]
fn centre_on_the_core_stops_the_cast() {
    // The centre at a sphere's centre, on a capsule's segment, on a
    // triangle: no way out is defined, the normal faces the motion, and the
    // overlap stops the cast whichever way it moves.
    let cores = [
        ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity()),
        ColliderDesc::new(ColliderShape::Capsule { half_height: 1.0, radius: 0.2 }, Isometry::identity()),
        ColliderDesc::new(ColliderShape::TriMesh(wall_mesh(0.0)), Isometry::identity()).fixed(),
    ];
    let (f, leave) = (QueryFilter::default(), CastOptions::no_stop_at_penetration());
    for desc in cores {
        let (scene, h) = alone(desc);
        for motion in [Vector::new(2.0, 0.0, 0.0), Vector::new(-1.0, 0.5, 0.25)] {
            let hit = scene.cast_sphere_with(&body(), &motion, &f, &leave).unwrap();
            assert_eq!((hit.collider, hit.hit.toi), (h, 0.0));
            assert!(motion.dot(&hit.hit.normal) < 0.0);
        }
    }
}

#[test]
fn a_character_walks_out_of_the_floor_into_a_wall() {
    // Floor and wall as boxes, then as one mesh; the character's own
    // collider sits where it is, excluded by the filter.
    let floor = ColliderShape::Cuboid { half_extents: Vector::new(10.0, 0.5, 10.0) };
    let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 2.0, 10.0) };
    let mut boxes = Scene::new();
    let floor_box = boxes.insert(ColliderDesc::new(floor, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
    let wall_box = boxes.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 2.0, 0.0)).fixed()).unwrap();
    // The floor (y = 0, x < 4.5) and the wall's face x = 4.5 as one mesh.
    let v = [
        (-10.0, 0.0, -10.0),
        (4.5, 0.0, -10.0),
        (4.5, 0.0, 10.0),
        (-10.0, 0.0, 10.0),
        (4.5, 4.0, -10.0),
        (4.5, 4.0, 10.0),
    ]
    .map(|(x, y, z)| Point::new(x, y, z));
    let room = Arc::new(TriMesh::new(v.to_vec(), vec![[0, 2, 1], [0, 3, 2], [1, 2, 5], [1, 5, 4]]).unwrap());
    let mut mesh = Scene::new();
    let room = mesh.insert(ColliderDesc::new(ColliderShape::TriMesh(room), Isometry::identity()).fixed()).unwrap();

    let leave = CastOptions::no_stop_at_penetration();
    for (scene, floor, wall) in [(&mut boxes, floor_box, wall_box), (&mut mesh, room, room)] {
        let me = scene
            .insert(ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(0.0, 0.49, 0.0)))
            .unwrap();
        let f = QueryFilter::default().exclude_collider(me);
        let body = Sphere::new(Point::new(0.0, 0.49, 0.0), 0.5);
        // Walking along x: out of nothing, along the floor, to the wall at x = 4.
        let walk = Vector::new(8.0, 0.0, 0.0);
        assert_eq!(scene.cast_sphere(&body, &walk, &f).map(|h| (h.collider, h.hit.toi)), Some((floor, 0.0)));
        let hit = scene.cast_sphere_with(&body, &walk, &f, &leave).unwrap();
        assert_eq!((hit.collider, hit.hit.status), (wall, SweepStatus::Hit));
        assert!((hit.hit.toi - 0.5).abs() < 1e-6, "{hit:?}");
        assert!((hit.hit.normal.into_inner() + Vector::x()).norm() < 1e-6, "{hit:?}");
        // Without the exclusion its own collider stops it whichever way it moves.
        let mine = scene.cast_sphere_with(&body, &walk, &QueryFilter::default(), &leave).unwrap();
        assert_eq!((mine.collider, mine.hit.toi), (me, 0.0));
        // Jumping: up and away from the floor, nothing; falling into it, the floor.
        assert_eq!(scene.cast_sphere_with(&body, &Vector::new(0.0, 3.0, 0.0), &f, &leave), None);
        let fall = scene.cast_sphere_with(&body, &Vector::new(1.0, -1.0, 0.0), &f, &leave).unwrap();
        assert_eq!((fall.collider, fall.hit.toi), (floor, 0.0));
    }
}

#[test]
fn options_default_to_stopping() {
    assert!(CastOptions::default().stop_at_penetration);
    assert!(!CastOptions::no_stop_at_penetration().stop_at_penetration);
    // A non-finite motion is a miss under both (release builds; debug ones assert).
    if !cfg!(debug_assertions) {
        let (scene, _) = alone(targets(0.49).swap_remove(0).1);
        let nan = Vector::new(Real::NAN, 0.0, 0.0);
        for o in [CastOptions::default(), CastOptions::no_stop_at_penetration()] {
            assert_eq!(scene.cast_sphere_with(&body(), &nan, &QueryFilter::default(), &o), None);
        }
    }
}
