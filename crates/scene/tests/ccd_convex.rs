//! Continuous collision for every convex collider: boxes, capsules and hulls
//! flagged with `with_ccd` and moved through thin walls (boxes and a mesh)
//! in one frame get the first wall in their way as a `CcdImpact`, at the
//! time of impact of an independent f64 oracle (bisection on an overlap
//! test of its own, `cast_shape_oracle`). The sweep is the step's
//! translation at the collider's end orientation, and so is the oracle's.

mod cast_shape_oracle;

use std::sync::Arc;

use cast_shape_oracle::{first_contact_all, pieces, Verdict, V64};
use nalgebra::Translation3;
use proxima_narrowphase::{ConvexHull, Isometry, Point, Real, Rotation, Vector};
use proxima_scene::{ColliderDesc, ColliderHandle, ColliderShape, ContactPipeline, Scene, TriMesh};
use proxima_test_support::gen::uniform;
use rand::Rng;

/// The tolerance on `toi`, in units of the step's motion: the sweep's
/// accuracy (`Scene::cast_shape`'s, checked against the same oracle).
const TOI_TOLERANCE: f64 = 1e-5;

fn hull(rng: &mut impl Rng) -> Arc<ConvexHull> {
    let points: Vec<Point> = (0..12)
        .map(|_| Point::new(uniform(rng, -0.4, 0.4), uniform(rng, -0.3, 0.3), uniform(rng, -0.5, 0.5)))
        .collect();
    Arc::new(ConvexHull::try_new(&points).expect("a solid cloud"))
}

/// Two thin walls across the x axis, at x = 5 (a box) and x = 9 (a mesh
/// quad), the scene's fixed colliders, offset by `offset` on every axis.
fn walls(scene: &mut Scene, offset: Real) -> [ColliderHandle; 2] {
    let o = Vector::repeat(offset);
    let slab = ColliderShape::Cuboid { half_extents: Vector::new(0.01, 4.0, 4.0) };
    let near = scene.insert(ColliderDesc::new(slab, Isometry::translation(5.0 + o.x, o.y, o.z)).fixed()).unwrap();
    let quad = TriMesh::new(
        vec![
            Point::new(0.0, -4.0, -4.0),
            Point::new(0.0, 4.0, -4.0),
            Point::new(0.0, 4.0, 4.0),
            Point::new(0.0, -4.0, 4.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap();
    let far = ColliderDesc::new(ColliderShape::TriMesh(Arc::new(quad)), Isometry::translation(9.0 + o.x, o.y, o.z));
    [near, scene.insert(far.fixed()).unwrap()]
}

fn random_rotation(rng: &mut impl Rng) -> Rotation {
    Rotation::from_euler_angles(uniform(rng, -3.1, 3.1), uniform(rng, -1.5, 1.5), uniform(rng, -3.1, 3.1))
}

#[test]
fn fast_convex_colliders_stop_at_the_first_wall() {
    let mut rng = proxima_test_support::rng(44);
    let (mut hits, mut misses, mut unclear) = (0, 0, 0);
    let mut worst: f64 = 0.0;
    for offset in [0.0, 1e3, 1e5] {
        for case in 0..300 {
            let mut scene = Scene::new();
            let walls = walls(&mut scene, offset);
            let shape = match case % 3 {
                0 => ColliderShape::Cuboid {
                    half_extents: Vector::new(uniform(&mut rng, 0.05, 0.5), 0.2, uniform(&mut rng, 0.05, 0.5)),
                },
                1 => ColliderShape::Capsule { half_height: uniform(&mut rng, 0.0, 0.6), radius: 0.1 },
                _ => ColliderShape::ConvexHull(hull(&mut rng)),
            };
            let o = Vector::repeat(offset);
            // From the left of both walls to a random point: before the
            // first, between them, past both, or off to the side.
            let start =
                Vector::new(uniform(&mut rng, -2.0, 3.0), uniform(&mut rng, -3.0, 3.0), uniform(&mut rng, -3.0, 3.0));
            let end =
                Vector::new(uniform(&mut rng, 3.0, 14.0), uniform(&mut rng, -6.0, 6.0), uniform(&mut rng, -3.0, 3.0));
            let (start_rotation, end_rotation) = (random_rotation(&mut rng), random_rotation(&mut rng));
            let from = Isometry::from_parts(Translation3::from(start + o), start_rotation);
            let to = Isometry::from_parts(Translation3::from(end + o), end_rotation);
            let body = scene.insert(ColliderDesc::new(shape.clone(), from).with_ccd()).unwrap();
            let mut pipeline = ContactPipeline::new();
            pipeline.update(&mut scene);
            scene.set_pose(body, to).unwrap();
            pipeline.update(&mut scene);
            let impact = pipeline.ccd_impacts().iter().find(|i| i.collider == body);

            // The oracle: the shape at its end orientation, swept from the
            // start position as stored (f32) to the end as stored, the
            // difference taken in f64, against the walls' pieces.
            let stored_start = from.translation.vector;
            let stored_end = scene.get(body).unwrap().pose().translation.vector;
            let swept_from = Isometry::from_parts(Translation3::from(stored_start), end_rotation);
            let r: V64 = stored_start.cast();
            let moving = &pieces(&shape.placed(&swept_from).unwrap(), &r)[0];
            let targets: Vec<_> = walls.iter().flat_map(|w| pieces(scene.get(*w).unwrap().world_shape(), &r)).collect();
            let motion: V64 = stored_end.cast::<f64>() - stored_start.cast::<f64>();
            match (first_contact_all(moving, &motion, &targets), impact) {
                (Verdict::Unclear(_), _) => unclear += 1,
                (Verdict::Miss, None) => misses += 1,
                (Verdict::Hit(t), Some(i)) => {
                    hits += 1;
                    let error = (f64::from(i.hit.toi) - t).abs();
                    worst = worst.max(error);
                    assert!(error <= TOI_TOLERANCE, "offset {offset} case {case}: toi {} against {t}", i.hit.toi);
                    // The first wall in the way: the box wall unless the
                    // start is past its reach.
                    assert!(walls.contains(&i.other), "offset {offset} case {case}: hit {:?}", i.other);
                }
                (verdict, impact) => {
                    panic!("offset {offset} case {case}: oracle {verdict:?}, pipeline {impact:?} ({shape:?})")
                }
            }
        }
    }
    println!("hits {hits}, misses {misses}, unclear {unclear}, worst toi error {worst:.2e} of the motion");
    assert!(hits > 300 && misses > 50, "both outcomes exercised: {hits} hits, {misses} misses");
}

#[test]
fn a_box_wider_than_the_gap_between_steps_never_tunnels_a_thin_wall() {
    // A fast box (20 units per step) through a wall 0.02 thick: every step
    // that crosses the wall reports it.
    let mut scene = Scene::new();
    let [wall, _] = walls(&mut scene, 0.0);
    let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.1) };
    let body = scene.insert(ColliderDesc::new(cube, Isometry::translation(-10.0, 0.0, 0.0)).with_ccd()).unwrap();
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    scene.set_pose(body, Isometry::translation(10.0, 0.5, 0.0)).unwrap();
    pipeline.update(&mut scene);
    let impact = pipeline.ccd_impacts().iter().find(|i| i.collider == body).expect("the wall is in the way");
    assert_eq!(impact.other, wall);
    // The box's face x = +0.1 meets the wall's face x = 4.99 after 14.89 of 20.
    assert!((impact.hit.toi - 14.89 / 20.0).abs() < 1e-5, "toi {}", impact.hit.toi);
    // Teleported back: no sweep.
    scene.teleport(body, Isometry::translation(-10.0, 0.0, 0.0)).unwrap();
    pipeline.update(&mut scene);
    assert!(pipeline.ccd_impacts().is_empty());
    // At rest: no motion, no impact.
    pipeline.update(&mut scene);
    assert!(pipeline.ccd_impacts().is_empty());
}
