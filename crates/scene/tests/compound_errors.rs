//! Bad input to compounds: every `CompoundError`, placements beyond the
//! coordinate bound, random garbage (no panic, and whatever is accepted
//! answers its queries), and a snapshot round trip that validates what it
//! reads.

use std::sync::Arc;

use nalgebra::{Quaternion, Translation3};
use proxima_narrowphase::*;
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

fn ball(r: Real) -> ColliderShape {
    ColliderShape::Sphere { radius: r }
}

#[test]
fn every_error_variant() {
    assert_eq!(Compound::try_new(vec![]).err(), Some(CompoundError::Empty));
    let many = vec![(Isometry::identity(), ball(1.0)); Compound::MAX_CHILDREN + 1];
    assert_eq!(
        Compound::try_new(many).err(),
        Some(CompoundError::TooManyChildren { count: Compound::MAX_CHILDREN + 1 })
    );
    assert_eq!(Compound::try_new(vec![(Isometry::identity(), ball(1.0)); Compound::MAX_CHILDREN]).unwrap().len(), 4096);

    // Not convex: a mesh, a heightfield, a compound.
    let tri = || {
        let v = vec![Point::new(0.0, 0.0, 0.0), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)];
        ColliderShape::TriMesh(Arc::new(TriMesh::new(v, vec![[0, 1, 2]]).unwrap()))
    };
    let field = HeightField::try_new(nalgebra::DMatrix::zeros(3, 3), Vector::repeat(1.0)).unwrap();
    let inner = Arc::new(Compound::try_new(vec![(Isometry::identity(), ball(1.0))]).unwrap());
    for (k, bad) in
        [tri(), ColliderShape::HeightField(Arc::new(field)), ColliderShape::Compound(inner)].into_iter().enumerate()
    {
        let children = vec![(Isometry::identity(), ball(1.0)), (Isometry::identity(), bad)];
        assert_eq!(Compound::try_new(children).err(), Some(CompoundError::NotConvex { child: 1 }), "case {k}");
    }

    // Invalid poses.
    let nan = Isometry::translation(Real::NAN, 0.0, 0.0);
    let inf = Isometry::translation(0.0, Real::INFINITY, 0.0);
    let far = Isometry::translation(0.0, 0.0, MAX_COORDINATE * 2.0);
    let zero_q =
        Isometry::from_parts(Translation3::identity(), Rotation::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 0.0)));
    let long_q =
        Isometry::from_parts(Translation3::identity(), Rotation::new_unchecked(Quaternion::new(1.1, 0.0, 0.0, 0.0)));
    for (pose, error) in [
        (nan, PoseError::NonFiniteTranslation),
        (inf, PoseError::NonFiniteTranslation),
        (far, PoseError::TranslationTooLarge),
        (zero_q, PoseError::InvalidRotation),
        (long_q, PoseError::InvalidRotation),
    ] {
        let children = vec![(Isometry::identity(), ball(1.0)), (Isometry::identity(), ball(1.0)), (pose, ball(1.0))];
        assert_eq!(Compound::try_new(children).err(), Some(CompoundError::InvalidPose { child: 2, error }));
    }
    // A quaternion slightly off unit length is renormalised, as a collider's.
    let near_q =
        Isometry::from_parts(Translation3::identity(), Rotation::new_unchecked(Quaternion::new(1.004, 0.0, 0.0, 0.0)));
    let c = Compound::try_new(vec![(near_q, ball(1.0))]).unwrap();
    assert!((c.children()[0].0.rotation.norm() - 1.0).abs() < 1e-6);

    // Invalid shapes.
    for (k, bad) in [
        ball(-1.0),
        ball(Real::NAN),
        ColliderShape::Cuboid { half_extents: Vector::new(1.0, -1.0, 1.0) },
        ColliderShape::Capsule { half_height: Real::INFINITY, radius: 1.0 },
        ColliderShape::Capsule { half_height: 1.0, radius: -0.5 },
        ball(MAX_COORDINATE * 4.0),
    ]
    .into_iter()
    .enumerate()
    {
        let err = Compound::try_new(vec![(Isometry::identity(), bad)]).err();
        assert!(matches!(err, Some(CompoundError::InvalidShape { child: 0, .. })), "case {k}: {err:?}");
        assert!(!err.unwrap().to_string().is_empty());
    }
}

#[test]
fn placements_beyond_the_bound_are_refused() {
    let edge = Compound::try_new(vec![(Isometry::translation(MAX_COORDINATE * 0.75, 0.0, 0.0), ball(1.0))]).unwrap();
    let shape = ColliderShape::Compound(Arc::new(edge));
    // The compound's pose is in bounds, its child's world placement is not.
    let at = Isometry::translation(MAX_COORDINATE * 0.75, 0.0, 0.0);
    assert!(matches!(shape.placed(&at), Err(ShapeError::TooLarge(_))), "{:?}", shape.placed(&at).err());
    let mut scene = Scene::new();
    assert!(scene.insert(ColliderDesc::new(shape.clone(), at)).is_err());
    assert!(shape.placed(&Isometry::translation(Real::NAN, 0.0, 0.0)).is_err());
    assert!(shape.placed(&Isometry::identity()).is_ok());
}

/// A float that is now and then NaN, infinite, huge, negative or zero.
fn garbage(rng: &mut impl Rng) -> Real {
    match rng.random_range(0..40) {
        0 => Real::NAN,
        1 => Real::INFINITY * if rng.random_bool(0.5) { 1.0 } else { -1.0 },
        2 => uniform(rng, -1.0, 1.0) * MAX_COORDINATE * 3.0,
        3 => 0.0,
        4 => -uniform(rng, 0.0, 2.0),
        _ => uniform(rng, -3.0, 3.0),
    }
}

fn garbage_pose(rng: &mut impl Rng) -> Isometry {
    let t = Translation3::new(garbage(rng), garbage(rng), garbage(rng));
    let q = if rng.random_bool(0.1) {
        Quaternion::new(garbage(rng), garbage(rng), garbage(rng), garbage(rng))
    } else {
        *proxima_test_support::gen::rotation(rng).quaternion()
    };
    Isometry::from_parts(t, Rotation::new_unchecked(q))
}

fn garbage_shape(rng: &mut impl Rng) -> ColliderShape {
    match rng.random_range(0..3) {
        0 => ball(garbage(rng)),
        1 => ColliderShape::Cuboid { half_extents: Vector::new(garbage(rng), garbage(rng), garbage(rng)) },
        _ => ColliderShape::Capsule { half_height: garbage(rng), radius: garbage(rng) },
    }
}

#[test]
fn random_garbage_does_not_panic() {
    let mut rng = proxima_test_support::rng(0x000B_ADC0);
    let (mut built, mut placed) = (0, 0);
    for _ in 0..20_000 {
        let n = rng.random_range(0..5);
        let children = (0..n).map(|_| (garbage_pose(&mut rng), garbage_shape(&mut rng))).collect();
        let Ok(c) = Compound::try_new(children) else { continue };
        built += 1;
        assert!(c.local_aabb().is_valid());
        let Ok(world) = ColliderShape::Compound(Arc::new(c)).placed(&garbage_pose(&mut rng)) else { continue };
        placed += 1;
        let probe = WorldShape::Sphere(Sphere::new(Point::new(uniform(&mut rng, -9.0, 9.0), 0.0, 0.0), 1.0));
        assert!(world.aabb().is_valid());
        let _ = contact(&world, &probe);
        let _ = contact(&probe, &world);
        let _ = contact(&world, &world);
        contact_manifolds(&world, &probe, 0.1, &mut Vec::new());
        let dir = Vector::new(garbage(&mut rng), 1.0, 0.0);
        if let Ok(ray) = Ray::try_new(Point::new(-5.0, 0.0, 0.0), dir, Real::MAX) {
            let _ = world.cast_ray(&ray);
        }
        let p = Point::new(garbage(&mut rng), garbage(&mut rng), garbage(&mut rng));
        let _ = world.contains_point(&p);
        let _ = world.closest_point(&p);
        if let Ok(s) = Sphere::try_new(Point::new(5.0, 0.0, 0.0), 0.5) {
            let _ = world.cast_sphere(&s, &Vector::new(garbage(&mut rng), 0.0, 0.0));
        }
    }
    // Both outcomes are exercised.
    assert!(built > 500 && placed > 300 && built < 16_000, "built {built}, placed {placed}");
}

#[cfg(feature = "serde")]
#[test]
fn snapshot_round_trip_validates() {
    let hull = ConvexHull::try_new(&[
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
        Point::new(0.0, 0.0, 1.0),
    ])
    .unwrap();
    let children = vec![
        (Isometry::translation(1.0, 0.0, 0.0), ball(0.5)),
        (Isometry::rotation(Vector::new(0.0, 0.3, 0.0)), ColliderShape::Cuboid { half_extents: Vector::repeat(0.2) }),
        (Isometry::identity(), ColliderShape::ConvexHull(Arc::new(hull))),
    ];
    let shape = ColliderShape::Compound(Arc::new(Compound::try_new(children).unwrap()));
    let json = serde_json::to_string(&shape).unwrap();
    let ColliderShape::Compound(back) = serde_json::from_str::<ColliderShape>(&json).unwrap() else { panic!() };
    let ColliderShape::Compound(orig) = &shape else { unreachable!() };
    assert_eq!(back.len(), 3);
    assert_eq!(back.local_aabb(), orig.local_aabb());
    for ((pa, _), (pb, _)) in back.children().iter().zip(orig.children()) {
        assert_eq!(pa, pb);
    }
    // An empty compound and a bad child are refused on load.
    assert!(serde_json::from_str::<Compound>("[]").is_err());
    let bad = json.replacen("0.5", "-0.5", 1);
    assert!(bad != json && serde_json::from_str::<ColliderShape>(&bad).is_err(), "{bad}");
}

/// A scene holding compound colliders survives a snapshot: it validates on
/// load, and answers rays and contacts as before, bit for bit.
#[cfg(feature = "serde")]
#[test]
fn scenes_with_compounds_survive_a_snapshot() {
    let mut rng = proxima_test_support::rng(0x5EED);
    let mut scene = Scene::new();
    for k in 0..40 {
        let children = (0..rng.random_range(1..24))
            .map(|_| {
                let t = Translation3::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0), 0.0);
                let r = proxima_test_support::gen::rotation(&mut rng);
                (Isometry::from_parts(t, r), ColliderShape::Cuboid { half_extents: Vector::new(0.3, 0.2, 0.1) })
            })
            .collect();
        let c = Arc::new(Compound::try_new(children).unwrap());
        let t = Translation3::new(uniform(&mut rng, -9.0, 9.0), uniform(&mut rng, -9.0, 9.0), 0.0);
        let desc = ColliderDesc::new(
            ColliderShape::Compound(c),
            Isometry::from_parts(t, proxima_test_support::gen::rotation(&mut rng)),
        );
        scene.insert(if k % 2 == 0 { desc.fixed() } else { desc }).unwrap();
    }
    let json = serde_json::to_string(&scene).unwrap();
    let back: Scene = serde_json::from_str(&json).unwrap();
    back.validate().unwrap();
    let mut hits = 0;
    for _ in 0..500 {
        let origin = Point::new(uniform(&mut rng, -12.0, 12.0), uniform(&mut rng, -12.0, 12.0), 5.0);
        let ray = Ray::new(origin, Vector::new(uniform(&mut rng, -0.3, 0.3), uniform(&mut rng, -0.3, 0.3), -1.0), 20.0);
        let any = QueryFilter::default();
        let hit = scene.cast_ray_closest(&ray, &any);
        assert_eq!(hit, back.cast_ray_closest(&ray, &any));
        hits += usize::from(hit.is_some());
    }
    assert!((25..450).contains(&hits), "{hits} hits");
    let (mut a, mut b) =
        (ContactPipeline::new().with_manifolds(0.01).unwrap(), ContactPipeline::new().with_manifolds(0.01).unwrap());
    let mut back = back;
    a.update(&mut scene);
    b.update(&mut back);
    assert!(!a.manifolds().is_empty());
    assert_eq!(a.manifolds(), b.manifolds());
}
