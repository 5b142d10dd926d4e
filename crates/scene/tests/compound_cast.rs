//! A compound as the moving shape of `Scene::cast_shape` and of continuous
//! collision.
//!
//! - Against its children: in random scenes of every collider kind (boxes,
//!   capsules, spheres, hulls, a mesh, a compound; fixed, dynamic and
//!   kinematic; sensors; collision groups) at offsets 0, 1e3 and 1e5 from
//!   the world origin, under every filter kind, the compound's hit is the
//!   earliest of its children's hits, each child cast alone by
//!   `cast_shape` at `pose * child_pose`, the lowest child on a tie. No
//!   tolerance: each child's cast is the very call the brute force makes, so
//!   the hits are equal bit for bit, the collider and the child named
//!   included.
//! - Continuous collision: a compound bullet crossing a thin wall in one
//!   step is stopped by it, at the impact the same per-child casts give
//!   (start translation, end orientation).
//! - Bad input: a NaN motion or pose, a child placed beyond the coordinate
//!   bound, a mesh or a heightfield as the moving shape.

mod common;

use std::sync::Arc;

use common::compound::convex_shape;
use nalgebra::{DMatrix, Translation3};
use proxima_narrowphase::*;
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{rng, Rng};

/// Scenes of 10 casts per offset: many in release, a few in a debug build.
const SCENES: usize = if cfg!(debug_assertions) { 5 } else { 200 };

/// A random pose: translation `centre`, uniform rotation.
fn pose_at(centre: Vector, rng: &mut impl Rng) -> Isometry {
    Isometry::from_parts(Translation3::from(centre), gen::rotation(rng))
}

/// A point with each coordinate uniform in `[-r, r]`.
fn within(rng: &mut impl Rng, r: Real) -> Vector {
    Vector::from_fn(|_, _| uniform(rng, -r, r))
}

/// A random compound of `1..=24` children within about 1.5 of its origin
/// (both the linear scan of up to 16 children and the tree over more);
/// now and then a child keeps the identity pose.
fn compound(rng: &mut impl Rng, size: Real) -> Arc<Compound> {
    let n = if rng.random_bool(0.5) { rng.random_range(1..=4) } else { rng.random_range(5..=24) };
    let children = (0..n)
        .map(|_| {
            let local = if rng.random_bool(0.1) { Isometry::identity() } else { pose_at(within(rng, 1.5), rng) };
            (local, convex_shape(rng, size))
        })
        .collect();
    Arc::new(Compound::try_new(children).expect("valid compound"))
}

/// A small closed mesh (a bumpy sphere of radius about 1.5).
fn mesh() -> Arc<TriMesh> {
    let (v, i) = proxima_test_support::mesh::bumpy_sphere(8, 10);
    let v = v.into_iter().map(|p| p * 1.5).collect();
    Arc::new(TriMesh::new(v, i).expect("valid mesh"))
}

/// The brute force: each child cast alone at `pose * child_pose`, the
/// earliest kept (the first child on a tie), named as the moving child.
fn per_child(
    scene: &Scene,
    c: &Compound,
    pose: &Isometry,
    motion: &Vector,
    filter: &QueryFilter,
) -> Option<SceneSweepHit> {
    let mut best: Option<SceneSweepHit> = None;
    for (i, (local, child)) in c.children().iter().enumerate() {
        let hit = scene.cast_shape(child, &(pose * local), motion, filter).expect("a valid child cast");
        if let Some(hit) = hit {
            assert_eq!(hit.moving_child, None, "a convex cast names no moving child");
            if best.is_none_or(|b| hit.hit.toi < b.hit.toi) {
                best = Some(SceneSweepHit { moving_child: Some(i as u32), ..hit });
            }
        }
    }
    best
}

/// A scene of 14 colliders of every kind within 6 of `offset`: the mesh,
/// a compound, convex shapes; fixed, dynamic or kinematic, some sensors, in
/// groups 1 to 3.
fn random_scene(rng: &mut impl Rng, offset: Vector, mesh: &Arc<TriMesh>) -> (Scene, Vec<ColliderHandle>) {
    let mut scene = Scene::new();
    let mut handles = Vec::new();
    for i in 0..14u64 {
        let shape = match i {
            0 => ColliderShape::TriMesh(Arc::clone(mesh)),
            1 => ColliderShape::Compound(compound(rng, 0.8)),
            _ => convex_shape(rng, 1.2),
        };
        let pose = pose_at(offset + within(rng, 6.0), rng);
        let groups = CollisionGroups { memberships: rng.random_range(1..4), filter: u32::MAX };
        let mut desc = ColliderDesc::new(shape, pose).with_groups(groups).with_user_data(i);
        desc = match rng.random_range(0..3) {
            0 => desc.fixed(),
            1 => desc.kinematic(),
            _ => desc,
        };
        if rng.random_bool(0.15) {
            desc = desc.sensor();
        }
        handles.push(scene.insert(desc).unwrap());
    }
    (scene, handles)
}

#[test]
fn a_moving_compound_hits_as_the_earliest_of_its_children() {
    let mut rng = rng(7207);
    let mesh = mesh();
    let (mut casts, mut hits, mut starts, mut later_child) = (0usize, 0usize, 0usize, 0usize);
    for offset in [0.0, 1e3, 1e5] {
        let offset = Vector::repeat(offset);
        for s in 0..SCENES {
            let (scene, handles) = random_scene(&mut rng, offset, &mesh);
            let exclude = [handles[rng.random_range(0..14)], handles[rng.random_range(0..14)]];
            let odd = |_: ColliderHandle, c: &Collider| c.user_data() % 3 != 1;
            for k in 0..10 {
                let filter = match k % 10 {
                    0 => QueryFilter::default(),
                    1 => QueryFilter::default().groups(CollisionGroups { memberships: u32::MAX, filter: 1 }),
                    2 => QueryFilter::excluding(&exclude),
                    3 => QueryFilter::default().exclude_collider(exclude[0]),
                    4 => QueryFilter::default().predicate(&odd),
                    5 => QueryFilter::default().exclude_fixed(),
                    6 => QueryFilter::default().exclude_dynamic(),
                    7 => QueryFilter::default().exclude_kinematic(),
                    8 => QueryFilter::default().exclude_sensors(),
                    _ => QueryFilter::excluding(&exclude).exclude_fixed().exclude_sensors(),
                };
                let c = compound(&mut rng, 0.6);
                let start = within(&mut rng, 8.0);
                let pose = pose_at(offset + start, &mut rng);
                let motion = -start * uniform(&mut rng, 0.3, 2.0) + within(&mut rng, 3.0);
                let shape = ColliderShape::Compound(Arc::clone(&c));
                let ours = scene.cast_shape(&shape, &pose, &motion, &filter).unwrap();
                let brute = per_child(&scene, &c, &pose, &motion, &filter);
                assert_eq!(ours, brute, "offset {offset:?} scene {s} cast {k}");
                casts += 1;
                if let Some(hit) = ours {
                    hits += 1;
                    starts += usize::from(hit.hit.toi == 0.0);
                    later_child += usize::from(hit.moving_child != Some(0));
                    assert!(filter.accepts(hit.collider, scene.get(hit.collider).unwrap()));
                }
            }
        }
    }
    eprintln!("{hits}/{casts} hits, {starts} at the start, {later_child} by a child other than the first");
    let rate = hits as f64 / casts as f64;
    assert!((0.3..=0.9).contains(&rate), "hit rate {rate}");
    assert!(starts < hits / 2 && later_child > hits / 4, "{starts} starts, {later_child} later children");
}

#[test]
fn a_compound_bullet_stops_at_a_thin_wall() {
    let mut rng = rng(9011);
    let mut checked = 0;
    for offset in [0.0, 1e3, 1e5] {
        let o = Vector::repeat(offset);
        for case in 0..if cfg!(debug_assertions) { 10 } else { 200 } {
            let mut scene = Scene::new();
            let slab = ColliderShape::Cuboid { half_extents: Vector::new(0.01, 6.0, 6.0) };
            let wall =
                scene.insert(ColliderDesc::new(slab, Isometry::translation(5.0 + o.x, o.y, o.z)).fixed()).unwrap();
            let c = compound(&mut rng, 0.4);
            let shape = ColliderShape::Compound(Arc::clone(&c));
            let from = pose_at(o + within(&mut rng, 0.5) - Vector::new(1.0, 0.0, 0.0), &mut rng);
            let to =
                pose_at(o + Vector::new(uniform(&mut rng, 12.0, 20.0), 0.0, 0.0) + within(&mut rng, 1.0), &mut rng);
            let body = scene.insert(ColliderDesc::new(shape, from).with_ccd()).unwrap();
            let mut pipeline = ContactPipeline::new();
            pipeline.update(&mut scene);
            scene.set_pose(body, to).unwrap();
            pipeline.update(&mut scene);
            let impact = pipeline.ccd_impacts().iter().find(|i| i.collider == body);
            let impact = impact.unwrap_or_else(|| panic!("offset {offset} case {case}: the bullet tunnelled"));
            assert_eq!(impact.other, wall);
            // The oracle: each child cast from the start translation at the
            // end orientation, as the pipeline sweeps the compound.
            let stored = scene.get(body).unwrap().pose();
            let sweep_from = Isometry::from_parts(from.translation, stored.rotation);
            let motion = stored.translation.vector - from.translation.vector;
            let me = [body];
            let filter = QueryFilter::excluding(&me).groups(scene.get(body).unwrap().groups()).exclude_sensors();
            let oracle = per_child(&scene, &c, &sweep_from, &motion, &filter).expect("the oracle hits the wall");
            assert_eq!(
                (impact.other, impact.hit, impact.collider_child),
                (oracle.collider, oracle.hit, oracle.moving_child)
            );
            // The impact is at the wall's near face, before the far one.
            let x = impact.hit.point.x - o.x;
            assert!((4.98..=5.02).contains(&x), "offset {offset} case {case}: impact at x = {x}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn a_compound_can_be_flagged_for_ccd_and_cast() {
    let ball = ColliderShape::Sphere { radius: 0.5 };
    let c = Arc::new(
        Compound::try_new(vec![
            (Isometry::translation(-1.0, 0.0, 0.0), ball.clone()),
            (Isometry::translation(1.0, 0.0, 0.0), ball.clone()),
        ])
        .unwrap(),
    );
    let shape = ColliderShape::Compound(Arc::clone(&c));
    assert!(shape.is_sweepable() && !shape.is_convex());
    let mut scene = Scene::new();
    let h = scene.insert(ColliderDesc::new(shape.clone(), Isometry::identity()).with_ccd()).unwrap();
    assert!(scene.get(h).unwrap().ccd());
    let other = scene.insert(ColliderDesc::new(ball.clone(), Isometry::translation(0.0, 9.0, 0.0)).with_ccd()).unwrap();
    scene.set_shape(other, shape.clone()).unwrap();
    // The compound at the origin moving up by 10 meets the one at y = 9
    // when their balls are 1 apart (toi 8 / 10), with both children.
    let filter = QueryFilter::default().exclude_collider(h);
    let hit = scene.cast_shape(&shape, &Isometry::identity(), &Vector::new(0.0, 10.0, 0.0), &filter).unwrap().unwrap();
    assert_eq!(hit.collider, other);
    assert!(hit.moving_child.is_some());
    assert!((hit.hit.toi - 0.8).abs() < 1e-6, "{hit:?}");
    // Overlapping at the start (its child 0 at x = 0.5 in the ball at x = 1):
    // toi 0, penetrating, whichever way it moves.
    let any = QueryFilter::default();
    let hit = scene.cast_shape(&shape, &Isometry::translation(1.5, 0.0, 0.0), &Vector::x(), &any).unwrap().unwrap();
    assert_eq!((hit.collider, hit.moving_child, hit.hit.toi), (h, Some(0), 0.0));
    assert_eq!(hit.hit.status, SweepStatus::Penetrating);
    // A zero motion is the static overlap test.
    let still = scene.cast_shape(&shape, &Isometry::translation(0.0, 4.5, 0.0), &Vector::zeros(), &filter);
    assert_eq!(still, Ok(None));
}

#[test]
fn bad_input_is_a_typed_error() {
    let ball = ColliderShape::Sphere { radius: 0.5 };
    let c = Compound::try_new(vec![(Isometry::translation(MAX_COORDINATE * 0.75, 0.0, 0.0), ball.clone())]).unwrap();
    let far = ColliderShape::Compound(Arc::new(c));
    let pair =
        Compound::try_new(vec![(Isometry::identity(), ball.clone()), (Isometry::translation(1.0, 0.0, 0.0), ball)]);
    let shape = ColliderShape::Compound(Arc::new(pair.unwrap()));
    let mut scene = Scene::new();
    scene
        .insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::repeat(1.0) }, Isometry::identity()))
        .unwrap();
    let any = QueryFilter::default();
    let id = Isometry::identity();
    let x = Vector::x();
    for bad in [Vector::new(Real::NAN, 0.0, 0.0), Vector::new(0.0, Real::INFINITY, 0.0)] {
        assert_eq!(scene.cast_shape(&shape, &id, &bad, &any), Err(SceneError::InvalidMotion));
    }
    let nan_pose = Isometry::translation(Real::NAN, 0.0, 0.0);
    let err = SceneError::InvalidPose { handle: None, error: PoseError::NonFiniteTranslation };
    assert_eq!(scene.cast_shape(&shape, &nan_pose, &x, &any), Err(err));
    // The compound's pose is in bounds, its child's placement is not.
    let at = Isometry::translation(MAX_COORDINATE * 0.75, 0.0, 0.0);
    assert!(matches!(scene.cast_shape(&far, &at, &x, &any), Err(SceneError::InvalidShape(ShapeError::TooLarge(_)))));
    // A pose beyond the coordinate bound.
    let beyond = Isometry::translation(MAX_COORDINATE * 2.0, 0.0, 0.0);
    let err = SceneError::InvalidPose { handle: None, error: PoseError::TranslationTooLarge };
    assert_eq!(scene.cast_shape(&shape, &beyond, &x, &any), Err(err));
    // Meshes and heightfields are still refused, as cast and for CCD.
    let (v, i) = proxima_test_support::mesh::bumpy_sphere(4, 4);
    let tri = ColliderShape::TriMesh(Arc::new(TriMesh::new(v, i).unwrap()));
    let field = HeightField::try_new(DMatrix::from_element(3, 3, 0.0), Vector::repeat(1.0)).unwrap();
    let field = ColliderShape::HeightField(Arc::new(field));
    for surface in [tri, field] {
        assert!(!surface.is_sweepable());
        assert_eq!(scene.cast_shape(&surface, &id, &x, &any), Err(SceneError::ShapeNotConvex));
        let desc = ColliderDesc::new(surface, id).with_ccd();
        assert_eq!(scene.insert(desc).err(), Some(SceneError::ShapeNotConvex));
    }
}
