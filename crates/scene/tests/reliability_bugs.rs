//! Bugs found by the scene fuzz target in code this suite does not own,
//! reduced to minimal inputs; each test asserts the documented behaviour,
//! fails today, and is ignored with the bug's summary
//! (`cargo test --release -p proxima-scene --test reliability_bugs -- --ignored`).

use proxima_narrowphase::{Isometry, Point, Ray, Vector};
use proxima_scene::*;

/// B8: `Scene::contains_point` builds its probe with `Aabb::new(p, p)`, which
/// panics on a NaN point (user input) instead of answering "no collider".
#[test]

fn b8_contains_point_with_nan_does_not_panic() {
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    let hits = scene.contains_point(&Point::new(f32::NAN, 0.0, 0.0), &QueryFilter::default());
    assert!(hits.is_empty());
}

/// B9: `Aabb::center` is `(min + max) / 2`, which overflows for a box near
/// `-f32::MAX`. Moving such a collider with `set_pose` passes an infinite
/// displacement to `DynamicTree::move_proxy`, which rejects it; the scene's
/// tree wrapper only `debug_assert`s the result, so in release the tree
/// keeps the old box and the collider disappears from every query (and
/// `Scene::validate` still passes).
#[test]

fn b9_collider_moved_from_far_away_is_found() {
    let mut scene = Scene::new();
    let far = Isometry::translation(0.0, -3.4028235e38, 0.0);
    let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, far)).unwrap();
    scene.set_pose(h, Isometry::translation(5.0, 0.0, 0.0)).unwrap();
    scene.validate().unwrap();
    let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    let hit = scene.cast_ray_closest(&ray, &QueryFilter::default());
    assert_eq!(hit.map(|h| h.collider), Some(h), "the moved sphere is invisible to rays");
}

/// B1 (scene side): a valid sphere near `f32::MAX` gets an infinite box.
#[test]

fn b1_collider_boxes_stay_finite() {
    let mut scene = Scene::new();
    let h = scene
        .insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1e38 }, Isometry::translation(3e38, 0.0, 0.0)))
        .unwrap();
    let b = *scene.get(h).unwrap().aabb();
    assert!(b.is_valid(), "collider box {b:?}");
}
