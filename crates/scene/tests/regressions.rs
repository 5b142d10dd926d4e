//! Bugs found by the scene fuzz target, reduced to minimal inputs (numbered
//! as in TESTING.md, "Bugs"); each test asserts the documented
//! behaviour and failed before its bug was fixed.

use proxima_narrowphase::{Isometry, Point, Ray, ShapeError, Vector, MAX_COORDINATE};
use proxima_scene::*;

/// B8: `Scene::colliders_containing_point` builds its probe with `Aabb::new(p, p)`, which
/// panics on a NaN point (user input) instead of answering "no collider".
#[test]
fn b8_contains_point_with_nan_does_not_panic() {
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    let hits = scene.colliders_containing_point(&Point::new(f32::NAN, 0.0, 0.0), &QueryFilter::default());
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
    // The fuzz input, a sphere at -f32::MAX, is now rejected (MAX_COORDINATE):
    let far = Isometry::translation(0.0, -3.4028235e38, 0.0);
    let r = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, far));
    assert_eq!(r, Err(SceneError::InvalidPose { handle: None, error: PoseError::TranslationTooLarge }));
    assert!(scene.is_empty());
    // and a sphere at the bound moves back like any other.
    let far = Isometry::translation(0.0, -MAX_COORDINATE, 0.0);
    let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, far)).unwrap();
    scene.set_pose(h, Isometry::translation(5.0, 0.0, 0.0)).unwrap();
    scene.validate().unwrap();
    let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    let hit = scene.cast_ray_closest(&ray, &QueryFilter::default());
    assert_eq!(hit.map(|h| h.collider), Some(h), "the moved sphere is invisible to rays");
}

/// B1 (scene side): a valid sphere near `f32::MAX` got an infinite box. Such
/// a sphere is now rejected; at `MAX_COORDINATE` the box is finite and
/// contains the sphere.
#[test]
fn b1_collider_boxes_stay_finite() {
    let mut scene = Scene::new();
    let far = Isometry::translation(3e38, 0.0, 0.0);
    let r = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1e38 }, far));
    assert_eq!(r, Err(SceneError::InvalidPose { handle: None, error: PoseError::TranslationTooLarge }));
    // Within the bound, the radius alone is too large.
    let r = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1e38 }, Isometry::identity()));
    assert_eq!(r, Err(SceneError::InvalidShape(ShapeError::TooLarge("sphere centre or radius"))));
    let m = MAX_COORDINATE;
    let far = Isometry::translation(m, 0.0, 0.0);
    let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: m }, far)).unwrap();
    let b = *scene.get(h).unwrap().aabb();
    assert!(b.is_valid() && b.min().x <= 0.0 && b.max().x >= 2.0 * m, "collider box {b:?}");
}

/// B22: a dynamic sphere of radius `f32::MAX` (accepted by `Sphere::try_new`)
/// has a surface beyond the f32 range and a box that cannot contain it, and
/// `cast_ray_closest` answered wrongly next to it. Shapes are now bounded by
/// `MAX_COORDINATE` (1e18): the insert is rejected with a typed error and
/// the scene is unchanged; so is a mesh placed beyond the bound, and a mesh
/// vertex beyond it.
#[test]
fn b22_sizes_beyond_the_bound_are_rejected() {
    let mut scene = Scene::new();
    let ok = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    for radius in [f32::MAX, 1e30, 1.0000001e18] {
        let r = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius }, Isometry::translation(0.0, 5.0, 0.0)));
        assert_eq!(
            r,
            Err(SceneError::InvalidShape(ShapeError::TooLarge("sphere centre or radius"))),
            "radius {radius:e}"
        );
    }
    let r = scene
        .insert(ColliderDesc::new(ColliderShape::Capsule { half_height: f32::MAX, radius: 1.0 }, Isometry::identity()));
    assert_eq!(r, Err(SceneError::InvalidShape(ShapeError::TooLarge("capsule endpoint or radius"))));
    // A turned box is placed as an OBB, an unturned one as an AABB: both bounded.
    let r = scene.insert(ColliderDesc::new(
        ColliderShape::Cuboid { half_extents: Vector::new(1.0, f32::MAX, 1.0) },
        Isometry::rotation(Vector::y() * 0.5),
    ));
    assert_eq!(r, Err(SceneError::InvalidShape(ShapeError::TooLarge("obb centre or half-extents"))));
    let r = scene.insert(ColliderDesc::new(
        ColliderShape::Cuboid { half_extents: Vector::new(1.0, 1.0, 3e38) },
        Isometry::identity(),
    ));
    assert_eq!(r, Err(SceneError::InvalidShape(ShapeError::TooLarge("aabb centre or half-extents"))));
    let tri = |z: f32| {
        TriMesh::new(vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, z)], vec![[0, 1, 2]])
    };
    assert_eq!(
        tri(-f32::MAX).err(),
        Some(MeshError::Shape { triangle: 0, error: ShapeError::TooLarge("triangle vertex") })
    );
    let mesh = std::sync::Arc::new(tri(0.0).unwrap());
    let r = scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh), Isometry::translation(0.0, 0.0, 2e18)));
    assert_eq!(r, Err(SceneError::InvalidPose { handle: None, error: PoseError::TranslationTooLarge }));
    assert_eq!(scene.len(), 1);
    scene.validate().unwrap();
    let ray = Ray::new(Point::new(-10.0, 0.0, 0.0), Vector::x(), f32::INFINITY);
    let hit = scene.cast_ray_closest(&ray, &QueryFilter::default()).expect("the unit sphere");
    assert_eq!(hit.collider, ok);
    assert_eq!(hit.toi, 9.0);
}

/// B26, found by cargo-fuzz: a mesh whose vertices are all
/// the point `(1e-38; 3)` (f32::MIN_POSITIVE), placed at `(3.6391602; 3)`,
/// and a sphere of radius 0 at that placement. In the mesh frame the sphere's
/// centre is the origin, `1.2e-38 * sqrt 3` from the mesh: the box cull
/// rightly rejects the mesh, but the exact test squared that distance to 0
/// (underflow) and said "touching", so `overlaps_sphere` disagreed with the
/// exact test run over every triangle. The touch tests now square out of
/// f32's normal range in f64. Replay:
/// `cargo fuzz run scene_ops -O regressions/scene_ops/b26-point-mesh-overlaps-sphere`.
#[test]
fn b26_overlaps_sphere_agrees_with_the_exact_test_on_a_point_mesh() {
    use proxima_narrowphase::{intersects_sphere_triangle, Sphere};
    let p = Point::new(f32::MIN_POSITIVE, f32::MIN_POSITIVE, f32::MIN_POSITIVE);
    let mesh = std::sync::Arc::new(TriMesh::new(vec![p, p, p], vec![[2, 2, 2]; 4]).unwrap());
    let place = 3.6391602;
    let mut scene = Scene::new();
    scene
        .insert(ColliderDesc::new(ColliderShape::TriMesh(mesh.clone()), Isometry::translation(place, place, place)))
        .unwrap();
    for radius in [0.0, 1e-39, 1e-38, 2.5e-38, 1e-30, 1e-7] {
        let query = Sphere::new(Point::new(place, place, place), radius);
        let local = Sphere::new(Point::origin(), radius);
        let exact = mesh.triangles().collect::<Vec<_>>().iter().any(|t| intersects_sphere_triangle(&local, t));
        // The mesh is |p| = 2.04e-38 from the local centre.
        assert_eq!(exact, radius >= 2.5e-38, "radius {radius:e}: exact test");
        let got = scene.overlaps_sphere(&query, &QueryFilter::default());
        assert_eq!(got.len() == 1, exact, "radius {radius:e}: scene {got:?}, exact test {exact}");
    }
}

/// B38, found by code review: a pipeline updated
/// from a second scene (or a restored one) reads every slot, but mirrored only
/// a change of groups. A collider of the other kind at the same slot and
/// generation kept the first scene's static flag: here a dynamic ball resting
/// on a static floor kept the flag of the static box that held its slot in
/// the first scene, so the two were "static-static" and their contact was
/// never reported. The mirror now compares the whole proxy options when it
/// reads every slot.
#[test]
fn b38_a_pipeline_moved_to_another_scene_mirrors_the_kind() {
    let floor = || {
        ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) }, Isometry::identity())
            .fixed()
    };
    let ball = |kind_static: bool| {
        let desc = ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(0.0, 1.4, 0.0));
        if kind_static {
            desc.fixed()
        } else {
            desc
        }
    };
    // Scene A: the slot-0 collider is static (and so is the floor).
    let mut a = Scene::new();
    a.insert(ball(true)).unwrap();
    a.insert(floor()).unwrap();
    // Scene B: the same slots and generations, the slot-0 collider dynamic.
    let mut b = Scene::new();
    let hb = b.insert(ball(false)).unwrap();
    let hf = b.insert(floor()).unwrap();
    for prediction in [None, Some(0.02)] {
        let mut pipeline = match prediction {
            None => ContactPipeline::new(),
            Some(p) => ContactPipeline::new().with_manifolds(p).unwrap(),
        };
        pipeline.update(&mut a);
        assert!(pipeline.contacts().is_empty(), "static-static pairs are never reported");
        pipeline.update(&mut b);
        let pairs: Vec<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(pairs, vec![(hb.min(hf), hb.max(hf))], "the dynamic ball rests on the floor");
        // And back: the ball is static again, the contact ends.
        pipeline.update(&mut a);
        assert!(pipeline.contacts().is_empty());
    }
}

/// B40, found by the `scene_ops` properties on another seed (with manifolds
/// and their reuse on, where the properties ask for finite contacts): a box
/// 1.8e13 tall (half-extents `(1.03, 8.8e12, 1.69)`, not turned) beside a
/// turned hull gave a contact and a manifold point at NaN. The hull-box test
/// took the closest points of a hull edge and the whole box edge, whose
/// products overflowed f32 (`closest_points_segment_segment` now solves
/// such lengths in f64), and placed the box's point only to the rounding of
/// its edge's length (the box edge is now cut to the hull edge's projection
/// first). The contact is the edge-edge one: its box point on the box's
/// edge, and the points `depth` apart along the normal.
#[test]
fn b40_a_huge_box_and_a_hull_give_finite_manifolds() {
    use proxima_narrowphase::{ConvexHull, Rotation};
    let half = Vector::new(1.03125, 8_796_093_000_000.0, 1.6875);
    let slab =
        ColliderShape::Cuboid { half_extents: half }.placed(&Isometry::translation(11.5, 0.0, -0.7128906)).unwrap();
    let mut points = Vec::new();
    for x in [-2.53125, 2.53125] {
        for y in [-0.03125, 0.03125] {
            for z in [-0.6599121, 0.6599121] {
                points.push(Point::new(x, y, z));
            }
        }
    }
    points.push(Point::new(3.796875, 0.0, 0.0));
    let hull = std::sync::Arc::new(ConvexHull::new(&points));
    let rotation =
        Rotation::from_quaternion(nalgebra::Quaternion::new(0.070784375, -0.33268657, -0.50964755, -0.79029655));
    let pose = Isometry::from_parts(nalgebra::Translation3::new(9.020508, 0.0, 1.9902344), rotation);
    let rock = ColliderShape::ConvexHull(hull).placed(&pose).unwrap();
    for (a, b) in [(&slab, &rock), (&rock, &slab)] {
        let mut manifolds = Vec::new();
        contact_manifolds(a, b, 0.02, &mut manifolds);
        assert!(!manifolds.is_empty(), "the hull crosses the slab");
        for m in &manifolds {
            for p in m.points() {
                let coords = p.point_a.iter().chain(p.point_b.iter()).chain(m.normal.iter());
                assert!(coords.chain([&p.depth]).all(|x| x.is_finite()), "{m:?}");
            }
        }
        let c = contact(a, b).expect("the hull crosses the slab");
        let coords = c.point_a.iter().chain(c.point_b.iter()).chain(c.normal.iter());
        assert!(coords.chain([&c.depth]).all(|x| x.is_finite()), "{c:?}");
        let (on_slab, gap) = if std::ptr::eq(a, &slab) {
            (c.point_a, c.point_b - c.point_a)
        } else {
            (c.point_b, c.point_a - c.point_b)
        };
        let local = on_slab - Vector::new(11.5, 0.0, -0.7128906);
        assert!(local.x.abs() <= half.x + 1e-3 && local.z.abs() <= half.z + 1e-3, "{c:?}");
        assert!((gap.norm() - c.depth).abs() < 1e-3 && c.depth > 0.5, "{c:?}");
    }
}
