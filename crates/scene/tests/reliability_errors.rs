//! The scene error cases that `errors.rs` does not cover: one test per
//! missing case, each checking the exact variant and that the scene is unchanged.

use proxima_narrowphase::{Isometry, Point, Rotation, ShapeError, Vector};
use proxima_scene::*;
use std::sync::Arc;

fn sphere_at(x: f32) -> ColliderDesc {
    ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, 0.0, 0.0))
}

/// What must not change when a call is rejected.
fn snapshot(scene: &Scene) -> Vec<(ColliderHandle, Isometry, proxima_narrowphase::Aabb)> {
    scene.iter().map(|(h, c)| (h, *c.pose(), *c.aabb())).collect()
}

#[test]
fn teleport_and_set_shape_reject_stale_handles() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere_at(0.0)).unwrap();
    scene.remove(a).unwrap();
    let b = scene.insert(sphere_at(5.0)).unwrap();
    let before = snapshot(&scene);
    assert_eq!(scene.teleport(a, Isometry::identity()), Err(SceneError::StaleHandle));
    assert_eq!(scene.set_shape(a, ColliderShape::Sphere { radius: 2.0 }), Err(SceneError::StaleHandle));
    assert_eq!(snapshot(&scene), before);
    assert!(scene.get(b).is_some());
}

#[test]
fn set_shape_rejects_invalid_sizes_without_change() {
    let mut scene = Scene::new();
    let a = scene.insert(sphere_at(0.0)).unwrap();
    let before = snapshot(&scene);
    let cases = [
        (ColliderShape::Sphere { radius: -1.0 }, SceneError::InvalidShape(ShapeError::NegativeRadius)),
        (
            ColliderShape::Aabb { half_extents: Vector::new(1.0, -1.0, 1.0) },
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
    let obb = ColliderShape::Obb { half_extents: Vector::repeat(1.0) };
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
    let a = scene.insert(sphere_at(0.0)).unwrap();
    for bad in [
        ColliderDesc::new(ColliderShape::Sphere { radius: f32::NAN }, Isometry::identity()),
        ColliderDesc::new(ColliderShape::Aabb { half_extents: Vector::repeat(1.0) }, Isometry::identity()).with_ccd(),
        sphere_at(f32::NEG_INFINITY).fixed(),
    ] {
        assert!(scene.insert(bad).is_err());
    }
    let b = scene.insert(sphere_at(3.0)).unwrap();
    assert_eq!(b.index(), a.index() + 1);
    assert_eq!(scene.tree_sizes(), TreeSizes { statics: 0, dynamics: 2 });
    scene.validate().unwrap();
}

#[test]
fn error_messages_name_the_problem() {
    assert!(SceneError::StaleHandle.to_string().contains("stale"));
    assert!(SceneError::CcdNeedsSphere.to_string().contains("sphere"));
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
