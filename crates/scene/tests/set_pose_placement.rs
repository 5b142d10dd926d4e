//! `Scene::set_pose` places a collider as `ColliderShape::placed` does at the
//! validated pose (the translation kept, the rotation renormalised by
//! `renormalized_rotation`), bit for bit: the stored pose, the placed shape
//! and its box, for every kind of shape and for rotations off unit length
//! within the accepted tolerance; and a move its shape cannot take leaves
//! the collider as it was.

use std::sync::Arc;

use nalgebra::{Quaternion, Translation3};
use proxima_narrowphase::{renormalized_rotation, ConvexHull, Isometry, Point, Real, Rotation, Vector, MAX_COORDINATE};
use proxima_scene::{ColliderDesc, ColliderHandle, ColliderShape, Compound, Scene, SceneError};
use proxima_test_support::gen::{self, uniform};
use rand::Rng;

fn shapes() -> Vec<ColliderShape> {
    let points: Vec<Point> = (0..12)
        .map(|i| {
            let a = i as Real * 0.9;
            Point::new(a.cos(), (i % 3) as Real - 1.0, a.sin() * 0.7)
        })
        .collect();
    let hull = Arc::new(ConvexHull::try_new(&points).expect("a solid cloud"));
    let ball = ColliderShape::Sphere { radius: 0.4 };
    let bar = ColliderShape::Capsule { half_height: 0.5, radius: 0.2 };
    let children = vec![(Isometry::translation(1.0, 0.0, 0.0), ball.clone()), (Isometry::identity(), bar.clone())];
    let compound = Arc::new(Compound::try_new(children).expect("valid compound"));
    vec![
        ball,
        ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.3, 0.8) },
        bar,
        ColliderShape::ConvexHull(hull),
        ColliderShape::Compound(compound),
    ]
}

/// A pose whose rotation is a unit one (one in four: the identity, so a box
/// places axis-aligned) scaled off unit length by up to `4e-3` (`|q|^2`
/// within the accepted `1e-2`), one in three times not at all.
fn pose(rng: &mut impl Rng) -> Isometry {
    let t = Translation3::new(uniform(rng, -50.0, 50.0), uniform(rng, -50.0, 50.0), uniform(rng, -50.0, 50.0));
    let unit = if rng.random_range(0..4) == 0 { Rotation::identity() } else { gen::rotation(rng) };
    let scale = if rng.random_range(0..3) == 0 { 1.0 } else { 1.0 + uniform(rng, -4e-3, 4e-3) };
    let q: Quaternion<Real> = unit.into_inner() * scale;
    Isometry::from_parts(t, Rotation::new_unchecked(q))
}

/// The pose, placed shape and box of a collider, bit for bit.
fn state(scene: &Scene, h: ColliderHandle) -> String {
    let c = scene.get(h).expect("live");
    format!("{:?}", (c.pose(), c.world_shape(), c.aabb()))
}

#[test]
fn set_pose_places_as_placed_does_at_the_validated_pose() {
    let mut rng = proxima_test_support::rng(41);
    let mut scene = Scene::new();
    let handles: Vec<ColliderHandle> = shapes()
        .into_iter()
        .map(|shape| scene.insert(ColliderDesc::new(shape, Isometry::identity())).unwrap())
        .collect();
    for round in 0..2000 {
        for &h in &handles {
            let pose = pose(&mut rng);
            scene.set_pose(h, pose).unwrap();
            let expected_pose = Isometry::from_parts(pose.translation, renormalized_rotation(&pose.rotation));
            let world = scene.get(h).unwrap().shape().placed(&expected_pose).unwrap();
            let expected = format!("{:?}", (&expected_pose, &world, &world.aabb()));
            assert_eq!(state(&scene, h), expected, "round {round}");
        }
    }
    scene.validate().unwrap();
}

#[test]
fn a_move_the_shape_cannot_take_leaves_the_collider_as_it_was() {
    let mut scene = Scene::new();
    let long = ColliderShape::Capsule { half_height: MAX_COORDINATE / 2.0, radius: 1.0 };
    let h = scene.insert(ColliderDesc::new(long, Isometry::translation(1.0, 2.0, 3.0))).unwrap();
    scene.set_pose(h, Isometry::translation(2.0, 3.0, 4.0)).unwrap();
    // Everything the collider holds, its sweep start included.
    let before = format!("{:?}", scene.get(h).unwrap());
    // The centre is within the bound; the end of the core is not.
    let edge = Isometry::translation(0.0, 0.75 * MAX_COORDINATE, 0.0);
    assert!(matches!(scene.set_pose(h, edge), Err(SceneError::InvalidShape(_))));
    assert_eq!(format!("{:?}", scene.get(h).unwrap()), before);
    scene.validate().unwrap();
}
