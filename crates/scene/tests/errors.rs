//! Every scene error, one test each: the call is rejected and nothing stored
//! changes (stale handles, invalid poses, shapes and meshes, CCD on a
//! non-sphere, a handle of another scene), rejected inserts leave no trace,
//! and the error messages name the problem.

use nalgebra::Translation3 as Translation;
use proxima_narrowphase::{Isometry, Point, Ray, Rotation, ShapeError, Vector};
use proxima_scene::*;
use std::sync::Arc;

fn sphere(x: f32) -> ColliderDesc {
    ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, 0.0, 0.0))
}

#[test]
fn stale_handle_after_remove_and_slot_reuse() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere(0.0)).unwrap();
    scene.remove(a).unwrap();
    let b = scene.insert(sphere(3.0)).unwrap();
    assert_eq!(a.index(), b.index(), "the slot is reused");
    assert_eq!(scene.remove(a).unwrap_err(), SceneError::StaleHandle);
    assert_eq!(scene.set_pose(a, Isometry::identity()).unwrap_err(), SceneError::StaleHandle);
    assert!(scene.get(a).is_none());
    // b is untouched.
    assert_eq!(scene.get(b).unwrap().pose().translation.vector.x, 3.0);
    assert_eq!(scene.tree_sizes(), TreeSizes { statics: 0, dynamics: 1 });
}

#[test]
fn nan_pose_is_rejected_and_nothing_moves() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere(1.0)).unwrap();
    let bad = Isometry::translation(f32::NAN, 0.0, 0.0);
    assert_eq!(
        scene.set_pose(a, bad),
        Err(SceneError::InvalidPose { handle: Some(a), error: PoseError::NonFiniteTranslation })
    );
    assert_eq!(scene.get(a).unwrap().pose().translation.vector.x, 1.0);
    let hit = scene.cast_ray_closest(&Ray::new(Point::new(-5.0, 0.0, 0.0), Vector::x(), 10.0), &QueryFilter::default());
    assert!((hit.unwrap().toi - 5.5).abs() < 1e-5);
    assert!(scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, bad)).is_err());
    assert_eq!(scene.len(), 1);
}

#[test]
fn negative_size_is_rejected() {
    let mut scene = Scene::new();
    let err = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: -1.0 }, Isometry::identity()));
    assert_eq!(err.unwrap_err(), SceneError::InvalidShape(ShapeError::NegativeRadius));
    let err = scene.insert(ColliderDesc::new(
        ColliderShape::Cuboid { half_extents: Vector::new(1.0, -1.0, 1.0) },
        Isometry::identity(),
    ));
    assert_eq!(err.unwrap_err(), SceneError::InvalidShape(ShapeError::NegativeExtent));
    assert!(scene.is_empty());
}

fn one_triangle() -> Arc<TriMesh> {
    let vertices = vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)];
    Arc::new(TriMesh::new(vertices, vec![[0, 1, 2]]).unwrap())
}

#[test]
fn ccd_needs_a_convex_shape() {
    let mut scene = Scene::new();
    let mesh = ColliderShape::TriMesh(one_triangle());
    let desc = ColliderDesc::new(mesh.clone(), Isometry::identity());
    assert_eq!(scene.insert(desc.with_ccd()).unwrap_err(), SceneError::ShapeNotConvex);
    assert!(scene.is_empty());
    // Every convex shape takes the flag.
    let cube = ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::repeat(1.0) }, Isometry::identity());
    let c = scene.insert(cube.with_ccd()).unwrap();
    let err = scene.set_shape(c, mesh);
    assert_eq!(err.unwrap_err(), SceneError::ShapeNotConvex);
    assert!(matches!(scene.get(c).unwrap().shape(), ColliderShape::Cuboid { .. }));
    scene.set_shape(c, ColliderShape::Capsule { half_height: 1.0, radius: 0.5 }).unwrap();
    // A heightfield is a surface too.
    let field = HeightField::try_new(nalgebra::DMatrix::zeros(3, 3), Vector::repeat(1.0)).unwrap();
    let terrain = ColliderDesc::new(ColliderShape::HeightField(Arc::new(field)), Isometry::identity());
    assert_eq!(scene.insert(terrain.with_ccd()).unwrap_err(), SceneError::ShapeNotConvex);
    assert_eq!(scene.len(), 1);
}

#[test]
fn bad_meshes_are_rejected() {
    assert_eq!(TriMesh::new(vec![], vec![]).unwrap_err(), MeshError::Empty);
    let v = vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)];
    assert_eq!(TriMesh::new(v.clone(), vec![[0, 1, 3]]).unwrap_err(), MeshError::IndexOutOfRange { triangle: 0 });
    let mut bad = v;
    bad[2].x = f32::INFINITY;
    assert!(matches!(TriMesh::new(bad, vec![[0, 1, 2]]), Err(MeshError::Shape { triangle: 0, .. })));
    #[cfg(feature = "obj")]
    assert!(matches!(TriMesh::from_obj("does/not/exist.obj"), Err(MeshError::Obj(_))));
}

/// The mesh's one-pass vertex check against `Triangle::try_new` on each
/// triangle: every coordinate of every kind of bad value is rejected with the
/// first bad triangle named, a coordinate of exactly `MAX_COORDINATE` is
/// accepted, and a bad vertex that no triangle uses is no error.
#[test]
fn mesh_vertex_check_agrees_with_the_triangle_check() {
    use proxima_narrowphase::{Triangle, MAX_COORDINATE};
    let good = vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0), Point::new(0.0, 0.0, 1.0)];
    let indices = vec![[0, 1, 2], [0, 1, 3], [1, 2, 3]];
    let next_up = |x: f32| f32::from_bits(x.to_bits() + 1);
    let values = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, next_up(MAX_COORDINATE), -next_up(MAX_COORDINATE)];
    for value in values.into_iter().chain([MAX_COORDINATE, -MAX_COORDINATE]) {
        for axis in 0..3 {
            let mut v = good.clone();
            v[3][axis] = value;
            let expected = indices.iter().enumerate().find_map(|(i, t)| {
                Triangle::try_new(v[t[0] as usize], v[t[1] as usize], v[t[2] as usize])
                    .err()
                    .map(|error| MeshError::Shape { triangle: i, error })
            });
            assert_eq!(TriMesh::new(v.clone(), indices.clone()).err(), expected, "{value} on axis {axis}");
            assert_eq!(expected.is_some(), values.iter().any(|b| b.to_bits() == value.to_bits()), "{value}");
            // Vertex 3 unused: no error, whatever it holds.
            assert!(TriMesh::new(v, vec![[0, 1, 2]]).is_ok(), "{value} on axis {axis}, unused");
        }
    }
}

/// A pose with the raw quaternion `(w, x, y, z)`, unnormalised.
fn raw_pose(x: f32, q: [f32; 4]) -> Isometry {
    let q = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
    Isometry::from_parts(Translation::new(x, 0.0, 0.0), Rotation::new_unchecked(q))
}

#[test]
fn every_shape_follows_one_pose_rule() {
    let shapes = [
        ColliderShape::Sphere { radius: 0.5 },
        ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) },
        ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) },
        ColliderShape::Capsule { half_height: 0.5, radius: 0.25 },
    ];
    let rejected = [
        (raw_pose(0.0, [f32::NAN, 0.0, 0.0, 0.0]), PoseError::InvalidRotation),
        (raw_pose(0.0, [0.0, 0.0, 0.0, 0.0]), PoseError::InvalidRotation),
        (raw_pose(0.0, [1.1, 0.0, 0.0, 0.0]), PoseError::InvalidRotation),
        (raw_pose(f32::INFINITY, [1.0, 0.0, 0.0, 0.0]), PoseError::NonFiniteTranslation),
        (raw_pose(2e18, [1.0, 0.0, 0.0, 0.0]), PoseError::TranslationTooLarge),
    ];
    for shape in shapes {
        let mut scene = Scene::new();
        for (pose, error) in rejected {
            let err = scene.insert(ColliderDesc::new(shape.clone(), pose)).unwrap_err();
            assert_eq!(err, SceneError::InvalidPose { handle: None, error }, "{shape:?} {pose:?}");
        }
        assert!(scene.is_empty());
        // A quaternion 1.001 long (|q|^2 = 1.002) is renormalised, for every shape.
        let drifted = raw_pose(3.0, [1.001 * 0.8, 1.001 * 0.6, 0.0, 0.0]);
        let h = scene.insert(ColliderDesc::new(shape.clone(), drifted)).unwrap();
        let stored = *scene.get(h).unwrap().pose();
        assert!((stored.rotation.as_ref().norm() - 1.0).abs() < 1e-6, "{shape:?}: {stored:?}");
        let aabb = *scene.get(h).unwrap().aabb();
        scene.set_pose(h, drifted).unwrap();
        assert_eq!(*scene.get(h).unwrap().aabb(), aabb);
        // Rejected moves name the handle and change nothing.
        for (pose, error) in rejected {
            assert_eq!(scene.set_pose(h, pose), Err(SceneError::InvalidPose { handle: Some(h), error }));
            assert_eq!(scene.teleport(h, pose), Err(SceneError::InvalidPose { handle: Some(h), error }));
            assert_eq!(*scene.get(h).unwrap().pose(), stored);
            assert_eq!(*scene.get(h).unwrap().aabb(), aabb);
        }
        let err = SceneError::InvalidPose { handle: Some(h), error: PoseError::NonFiniteTranslation };
        assert!(err.to_string().contains("pose") && err.to_string().contains(&h.index().to_string()));
    }
}

#[test]
fn a_handle_from_another_scene_is_refused() {
    let mut first = Scene::new();
    let mut second = Scene::new();
    // Same slot and generation in both scenes: only the scene tells them apart.
    let a = first.insert(sphere(1.0)).unwrap();
    let b = second.insert(sphere(5.0)).unwrap();
    assert_eq!((a.index(), b.index()), (0, 0));
    assert!(second.get(a).is_none() && first.get(b).is_none());
    assert_eq!(second.set_pose(a, Isometry::identity()), Err(SceneError::StaleHandle));
    assert_eq!(second.remove(a).err(), Some(SceneError::StaleHandle));
    assert_eq!(second.get(b).unwrap().pose().translation.vector.x, 5.0);
    assert_eq!(second.len(), 1);
    // A clone is the same world: its colliders answer to the original's handles.
    let copy = first.clone();
    assert_eq!(copy.get(a).unwrap().pose().translation.vector.x, 1.0);
    // Handles that the scene itself reports (iteration, queries) are its own.
    let (h, _) = second.iter().next().unwrap();
    assert_eq!(h, b);
    let hit = second.cast_ray_closest(&Ray::new(Point::new(0.0, 0.0, 0.0), Vector::x(), 10.0), &QueryFilter::default());
    assert_eq!(hit.unwrap().collider, b);
}

/// What must not change when a call is rejected.
fn snapshot(scene: &Scene) -> Vec<(ColliderHandle, Isometry, proxima_narrowphase::Aabb)> {
    scene.iter().map(|(h, c)| (h, *c.pose(), *c.aabb())).collect()
}

#[test]
fn teleport_and_set_shape_reject_stale_handles() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere(0.0)).unwrap();
    scene.remove(a).unwrap();
    let b = scene.insert(sphere(5.0)).unwrap();
    let before = snapshot(&scene);
    assert_eq!(scene.teleport(a, Isometry::identity()), Err(SceneError::StaleHandle));
    assert_eq!(scene.set_shape(a, ColliderShape::Sphere { radius: 2.0 }), Err(SceneError::StaleHandle));
    assert_eq!(snapshot(&scene), before);
    assert!(scene.get(b).is_some());
}

#[test]
fn set_shape_rejects_invalid_sizes_without_change() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere(0.0)).unwrap();
    let before = snapshot(&scene);
    let cases = [
        (ColliderShape::Sphere { radius: -1.0 }, SceneError::InvalidShape(ShapeError::NegativeRadius)),
        (
            ColliderShape::Cuboid { half_extents: Vector::new(1.0, -1.0, 1.0) },
            SceneError::InvalidShape(ShapeError::NegativeExtent),
        ),
        (
            ColliderShape::Capsule { half_height: -1.0, radius: 0.5 },
            SceneError::InvalidShape(ShapeError::NegativeExtent),
        ),
        (
            ColliderShape::Capsule { half_height: 1.0, radius: -0.5 },
            SceneError::InvalidShape(ShapeError::NegativeRadius),
        ),
    ];
    for (shape, want) in cases {
        assert_eq!(scene.set_shape(a, shape.clone()), Err(want), "{shape:?}");
        assert_eq!(snapshot(&scene), before);
    }
    // A NaN half-height is rejected too (reported as NegativeExtent, since
    // the check is `!(h.is_finite() && h >= 0)`; NonFinite would be more precise).
    let r = scene.set_shape(a, ColliderShape::Capsule { half_height: f32::NAN, radius: 0.5 });
    assert!(matches!(r, Err(SceneError::InvalidShape(_))), "{r:?}");
    assert!(matches!(scene.get(a).unwrap().shape(), ColliderShape::Sphere { .. }));
}

/// A pose whose rotation is not a unit quaternion: oriented boxes reject it
/// (`InvalidRotation`) at insert and at `set_pose`.
#[test]
fn oriented_boxes_reject_non_unit_rotations() {
    let mut scene = Scene::new();
    let q = Rotation::new_unchecked(nalgebra::Quaternion::new(2.0, 0.0, 0.0, 0.0));
    let bad = Isometry::from_parts(Vector::zeros().into(), q);
    let obb = ColliderShape::Cuboid { half_extents: Vector::repeat(1.0) };
    let r = scene.insert(ColliderDesc::new(obb.clone(), bad));
    assert_eq!(r.unwrap_err(), SceneError::InvalidPose { handle: None, error: PoseError::InvalidRotation });
    let h = scene.insert(ColliderDesc::new(obb, Isometry::identity())).unwrap();
    let before = snapshot(&scene);
    assert_eq!(
        scene.set_pose(h, bad),
        Err(SceneError::InvalidPose { handle: Some(h), error: PoseError::InvalidRotation })
    );
    assert_eq!(snapshot(&scene), before);
}

#[test]
fn meshes_reject_non_finite_poses() {
    let mesh =
        TriMesh::new(vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)], vec![[0, 1, 2]])
            .unwrap();
    let shape = ColliderShape::TriMesh(Arc::new(mesh));
    let mut scene = Scene::new();
    let r = scene.insert(ColliderDesc::new(shape.clone(), Isometry::translation(0.0, f32::INFINITY, 0.0)));
    assert_eq!(r.err(), Some(SceneError::InvalidPose { handle: None, error: PoseError::NonFiniteTranslation }));
    let h = scene.insert(ColliderDesc::new(shape, Isometry::identity())).unwrap();
    let q = Rotation::new_unchecked(nalgebra::Quaternion::new(f32::NAN, 0.0, 0.0, 0.0));
    let r = scene.set_pose(h, Isometry::from_parts(Vector::zeros().into(), q));
    assert_eq!(r, Err(SceneError::InvalidPose { handle: Some(h), error: PoseError::InvalidRotation }));
    assert_eq!(scene.get(h).unwrap().pose(), &Isometry::identity());
}

/// A rejected insert leaves no trace: the next handle is the one it would
/// have had, and the trees hold only the valid colliders.
#[test]
fn rejected_inserts_leave_no_trace() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere(0.0)).unwrap();
    for bad in [
        ColliderDesc::new(ColliderShape::Sphere { radius: f32::NAN }, Isometry::identity()),
        ColliderDesc::new(ColliderShape::TriMesh(one_triangle()), Isometry::identity()).with_ccd(),
        sphere(f32::NEG_INFINITY).fixed(),
    ] {
        assert!(scene.insert(bad).is_err());
    }
    let b = scene.insert(sphere(3.0)).unwrap();
    assert_eq!(b.index(), a.index() + 1);
    assert_eq!(scene.tree_sizes(), TreeSizes { statics: 0, dynamics: 2 });
    scene.validate().unwrap();
}

#[test]
fn error_messages_name_the_problem() {
    assert!(SceneError::StaleHandle.to_string().contains("stale"));
    assert!(SceneError::ShapeNotConvex.to_string().contains("convex"));
    let e = SceneError::from(ShapeError::NegativeRadius);
    assert_eq!(e, SceneError::InvalidShape(ShapeError::NegativeRadius));
    assert!(e.to_string().contains("radius"));
    for (m, needle) in [
        (MeshError::Empty, "no triangles"),
        (MeshError::IndexOutOfRange { triangle: 4 }, "4"),
        (MeshError::Shape { triangle: 2, error: ShapeError::NonFinite("triangle vertex") }, "triangle 2"),
        (MeshError::Obj("missing file".into()), "missing file"),
    ] {
        assert!(m.to_string().contains(needle), "{m}");
    }
}
