//! The scene's setters and builders: `set_groups`, `set_user_data`,
//! `ColliderDesc::capsule`.

use proxima_narrowphase::{Isometry, Point, Ray, ShapeError, Vector, MAX_COORDINATE};
use proxima_scene::*;
use proxima_test_support::gen::{uniform, unit_vector};

/// A static box's groups are cached in the static set's ray table: after
/// `set_groups` every ray query sees the new groups (closest, any, all, the
/// batch), and so do overlap queries.
#[test]
fn set_groups_reaches_every_query_of_static_and_dynamic_colliders() {
    for fixed in [true, false] {
        let mut scene = Scene::new();
        let mut desc = ColliderDesc::new(
            ColliderShape::Cuboid { half_extents: Vector::new(0.5, 5.0, 5.0) },
            Isometry::translation(10.0, 0.0, 0.0),
        );
        if fixed {
            desc = desc.fixed();
        }
        let wall = scene.insert(desc).unwrap();
        let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
        let only_2 = QueryFilter { groups: CollisionGroups::new(2, 2), ..QueryFilter::default() };
        let probe = proxima_narrowphase::Sphere::new(Point::new(10.0, 0.0, 0.0), 1.0);
        // Default groups interact with everything: the filter sees the wall.
        assert_eq!(scene.cast_ray_closest(&ray, &only_2).map(|h| h.collider), Some(wall));
        scene.set_groups(wall, CollisionGroups::new(1, 1)).unwrap();
        assert_eq!(scene.get(wall).unwrap().groups(), CollisionGroups::new(1, 1));
        assert_eq!(scene.cast_ray_closest(&ray, &only_2), None, "fixed = {fixed}");
        assert_eq!(scene.cast_ray_any(&ray, &only_2), None);
        assert!(scene.cast_ray_all(&ray, &only_2).is_empty());
        assert_eq!(scene.cast_rays(&[ray], &only_2), vec![None]);
        assert!(scene.overlaps_sphere(&probe, &only_2).is_empty());
        let only_1 = QueryFilter { groups: CollisionGroups::new(1, 1), ..QueryFilter::default() };
        assert_eq!(scene.cast_ray_closest(&ray, &only_1).map(|h| h.collider), Some(wall));
        assert_eq!(scene.overlaps_sphere(&probe, &only_1), vec![wall]);
        scene.validate().unwrap();
    }
}

#[test]
fn set_user_data_changes_only_the_user_data() {
    let mut scene = Scene::new();
    let desc = ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity()).with_user_data(7);
    let h = scene.insert(desc).unwrap();
    assert_eq!(scene.get(h).unwrap().user_data(), 7);
    scene.set_user_data(h, u64::MAX).unwrap();
    let c = scene.get(h).unwrap();
    assert_eq!((c.user_data(), c.groups(), c.pose()), (u64::MAX, CollisionGroups::default(), &Isometry::identity()));
    scene.remove(h).unwrap();
    assert_eq!(scene.set_user_data(h, 1), Err(SceneError::StaleHandle));
}

/// The capsule placed by `ColliderDesc::capsule` has the given end points
/// (up to rounding relative to their size) and radius, in every direction:
/// random ones, the axes, `-y` (no shortest rotation) and a zero-length core.
#[test]
fn capsule_from_end_points_has_those_end_points() {
    let mut rng = proxima_test_support::rng(0xCA9);
    let mut cases: Vec<(Point, Point)> = vec![
        (Point::new(1.0, 2.0, 3.0), Point::new(1.0, 5.0, 3.0)),
        (Point::new(1.0, 5.0, 3.0), Point::new(1.0, 2.0, 3.0)),
        (Point::new(0.0, 0.0, 0.0), Point::new(3.0, 0.0, 0.0)),
        (Point::new(0.0, 0.0, 0.0), Point::new(0.0, 0.0, -3.0)),
        (Point::new(4.0, 4.0, 4.0), Point::new(4.0, 4.0, 4.0)),
        (Point::new(0.0, 0.0, 0.0), Point::new(1e-7, -2.0, 0.0)),
    ];
    for _ in 0..2_000 {
        let scale = 10f32.powf(uniform(&mut rng, -2.0, 4.0));
        let a = Point::from(unit_vector(&mut rng) * uniform(&mut rng, 0.0, 1e4));
        cases.push((a, a + unit_vector(&mut rng) * scale));
    }
    let mut scene = Scene::new();
    for (i, (a, b)) in cases.into_iter().enumerate() {
        let h = scene.insert(ColliderDesc::capsule(a, b, 0.25).unwrap()).unwrap();
        let WorldShape::Capsule(c) = scene.get(h).unwrap().world_shape() else { panic!("case {i}: not a capsule") };
        let size = a.coords.amax().max(b.coords.amax()).max((b - a).norm());
        let tol = 8.0 * f32::EPSILON * size;
        assert!((c.a() - a).norm() <= tol && (c.b() - b).norm() <= tol, "case {i}: {a} {b} -> {} {}", c.a(), c.b());
        assert_eq!(c.radius(), 0.25);
    }
    let nan = Point::new(f32::NAN, 0.0, 0.0);
    assert!(matches!(ColliderDesc::capsule(nan, Point::origin(), 1.0), Err(ShapeError::NonFinite(_))));
    assert_eq!(ColliderDesc::capsule(Point::origin(), Point::origin(), -1.0).err(), Some(ShapeError::NegativeRadius));
    let far = Point::new(2.0 * MAX_COORDINATE, 0.0, 0.0);
    assert!(matches!(ColliderDesc::capsule(Point::origin(), far, 1.0), Err(ShapeError::TooLarge(_))));
}

/// An `Aabb` collider under a rotated pose is the rotated box: the same
/// world shape as an `Obb` collider, hit where the rotated box is; without
/// rotation (`w = ±1`) it stays axis-aligned; a non-unit rotation is
/// refused as it is for an `Obb`, at insert and at `set_pose`.
#[test]
fn aabb_collider_under_a_rotated_pose_is_the_rotated_box() {
    use proxima_narrowphase::{Obb, Rotation};
    let h = Vector::new(2.0, 0.5, 0.5);
    let turn = Rotation::from_axis_angle(&Vector::z_axis(), core::f32::consts::FRAC_PI_2);
    let pose = Isometry::from_parts(Vector::new(10.0, 0.0, 0.0).into(), turn);
    let mut scene = Scene::new();
    let aabb = scene.insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: h }, pose)).unwrap();
    let WorldShape::Obb(o) = scene.get(aabb).unwrap().world_shape() else { panic!("a rotated box is an OBB") };
    assert_eq!(*o, Obb::new(Point::new(10.0, 0.0, 0.0), turn, h));
    // Turned a quarter about z, the box is 1 wide along x and 4 tall along y.
    let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    let hit = scene.cast_ray_closest(&ray, &QueryFilter::default()).unwrap();
    assert!((hit.toi - 9.5).abs() < 1e-5, "entered at x = {}", hit.toi);
    let high = Ray::new(Point::new(0.0, 1.5, 0.0), Vector::x(), 100.0);
    assert_eq!(scene.cast_ray_closest(&high, &QueryFilter::default()).map(|h| h.collider), Some(aabb));
    // Back to no rotation, then the negated identity quaternion: axis-aligned.
    for w in [1.0, -1.0] {
        let q = Rotation::new_unchecked(nalgebra::Quaternion::new(w, 0.0, 0.0, 0.0));
        scene.set_pose(aabb, Isometry::from_parts(Vector::new(10.0, 0.0, 0.0).into(), q)).unwrap();
        assert!(matches!(scene.get(aabb).unwrap().world_shape(), WorldShape::Aabb(_)), "w = {w}");
        assert_eq!(scene.cast_ray_closest(&high, &QueryFilter::default()), None, "w = {w}: 1 tall along y");
    }
    let bad = Rotation::new_unchecked(nalgebra::Quaternion::new(1.0, 1.0, 0.0, 0.0));
    let bad_pose = Isometry::from_parts(Vector::zeros().into(), bad);
    let refused = |handle| Err(SceneError::InvalidPose { handle, error: PoseError::InvalidRotation });
    assert_eq!(scene.set_pose(aabb, bad_pose), refused(Some(aabb)));
    let inserted = scene.insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: h }, bad_pose));
    assert_eq!(inserted.err(), refused(None).err());
    scene.validate().unwrap();
}
