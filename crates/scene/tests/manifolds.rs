//! Contact manifolds through the scene: the dispatch for every pair of shape
//! kinds (meshes included) against the single-contact test, internal edges
//! of a flat mesh, and `ContactPipeline::with_manifolds` against the plain
//! pipeline and brute force.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{intersects_aabb_aabb, ContactManifold, Isometry, Real, Rotation, Vector};
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use rand::Rng;

/// `point_a - point_b` may differ from `depth * normal` by rounding of
/// positions of size ~10 (a few ulps of 10, with margin).
const GAP_TOL: Real = 1e-4;

/// A random placed shape of any kind in a cube of side `side`.
fn shape(rng: &mut impl Rng, side: Real, mesh: &Arc<TriMesh>) -> WorldShape {
    let mut pose = common::pose(rng, side);
    let s = |rng: &mut _| uniform(rng, 0.1, 1.0);
    let desc = match rng.random_range(0..5) {
        0 => ColliderShape::Sphere { radius: s(rng) },
        1 => {
            pose.rotation = Rotation::identity(); // stays an axis-aligned box
            ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) }
        }
        2 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        3 => ColliderShape::Capsule { half_height: s(rng), radius: s(rng) * 0.5 },
        _ => ColliderShape::TriMesh(mesh.clone()),
    };
    let mut scene = Scene::new();
    let h = scene.insert(ColliderDesc::new(desc, pose)).expect("valid");
    scene.get(h).unwrap().world_shape().clone()
}

fn kind(s: &WorldShape) -> &'static str {
    match s {
        WorldShape::Sphere(_) => "sphere",
        WorldShape::Aabb(_) => "aabb",
        WorldShape::Obb(_) => "obb",
        WorldShape::Capsule(_) => "capsule",
        WorldShape::TriMesh(..) => "mesh",
        WorldShape::ConvexHull(..) => "hull",
        _ => "other",
    }
}

/// Every manifold's points: `point_a - point_b = depth * normal`, depth at
/// least `-prediction`, ids distinct, 1 to 4 points.
fn check_points(ms: &[ContactManifold], prediction: Real, what: &str) {
    for m in ms {
        assert!((1..=4).contains(&m.len()), "{what}: {} points", m.len());
        let ids: BTreeSet<u32> = m.points().iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), m.len(), "{what}: ids not distinct in {m:?}");
        for p in m.points() {
            let gap = p.point_a - p.point_b - m.normal.into_inner() * p.depth;
            assert!(gap.norm() <= GAP_TOL, "{what}: point {p:?} off its depth by {gap:?}");
            assert!(p.depth >= -prediction - GAP_TOL, "{what}: depth {} below -prediction {prediction}", p.depth);
        }
    }
}

/// With prediction 0, a pair has manifolds exactly when `contact` reports a
/// contact; the deepest manifold point is then `>= 0` deep and (convex
/// pairs) no deeper than the contact (`+ 1e-3`: the manifold may take a
/// face normal within 1.4 degrees of the contact's). With prediction 0.3,
/// touching pairs still have a point `>= 0` deep, and pairs that do not
/// touch have only speculative points. That a manifold exists for every
/// pair within the prediction is tested per pair in the narrowphase.
#[test]
fn dispatch_agrees_with_contact_for_every_pair_of_kinds() {
    let mut rng = proxima_test_support::rng(0x3A1);
    let mesh = common::patch(&mut rng, 4, 0.6, 0.4);
    let mut kinds = BTreeSet::new();
    let (mut touching, mut speculative_only) = (0, 0);
    for case in 0..150_000 {
        let (a, b) = (shape(&mut rng, 3.0, &mesh), shape(&mut rng, 3.0, &mesh));
        let what = format!("case {case}: {} vs {}", kind(&a), kind(&b));
        let c = contact(&a, &b);
        let mut out = Vec::new();
        contact_manifolds(&a, &b, 0.0, &mut out);
        assert_eq!(!out.is_empty(), c.is_some(), "{what}: manifolds {out:?} vs contact {c:?}");
        check_points(&out, 0.0, &what);
        if let Some(c) = c {
            touching += 1;
            kinds.insert((kind(&a), kind(&b)));
            let deepest = out.iter().map(|m| m.deepest().depth).fold(Real::MIN, Real::max);
            assert!(deepest >= 0.0, "{what}: touching, but the deepest manifold point is {deepest} deep");
            // The manifolds' deepest point is the contact's depth, up to
            // the face preference of boxes and the internal-edge removal of
            // meshes (which may drop the deepest edge contact).
            if !matches!(a, WorldShape::TriMesh(..)) && !matches!(b, WorldShape::TriMesh(..)) {
                assert!(deepest <= c.depth + 1e-3, "{what}: deepest {deepest} > contact depth {}", c.depth);
            }
        }
        let mut spec = Vec::new();
        contact_manifolds(&a, &b, 0.3, &mut spec);
        check_points(&spec, 0.3, &what);
        if c.is_some() {
            assert!(!spec.is_empty(), "{what}: touching but no manifold with prediction 0.3");
            let deepest = spec.iter().map(|m| m.deepest().depth).fold(Real::MIN, Real::max);
            assert!(deepest >= 0.0, "{what}: touching, prediction 0.3: deepest {deepest}");
        } else if !spec.is_empty() {
            speculative_only += 1;
            for m in &spec {
                assert!(m.points().iter().all(|p| p.depth < 1e-4), "{what}: apart, yet a point is deep: {m:?}");
            }
        }
        // The flipped pair gives the flipped manifolds.
        let mut flipped = Vec::new();
        contact_manifolds(&b, &a, 0.0, &mut flipped);
        assert_eq!(flipped.len(), out.len(), "{what}: flipped pair");
    }
    eprintln!("touching {touching}, speculative only {speculative_only}, kinds {}", kinds.len());
    assert!(touching > 2_000 && speculative_only > 1_000, "too few cases: {touching} / {speculative_only}");
    assert_eq!(kinds.len(), 25, "every ordered pair of kinds touched: {kinds:?}");
}

/// A box sliding over a flat floor made of many triangles never gets a
/// tilted normal, however it sits over the triangles' shared edges and
/// vertices (internal-edge removal): one manifold, normal +y, four points
/// at the expected depth. Without the removal a rotated box's corner over a
/// shared edge gets the edge's sideways normal from the triangle it leaves.
#[test]
fn box_sliding_on_a_flat_mesh_does_not_catch_on_internal_edges() {
    let mut rng = proxima_test_support::rng(0x3A2);
    let floor = common::patch(&mut rng, 8, 1.0, 0.0);
    let floor = WorldShape::TriMesh(floor, Isometry::identity());
    let mut tilted = 0;
    for step in 0..2_000 {
        let x = 1.5 + 5.0 * step as Real / 2_000.0;
        let z = 1.5 + uniform(&mut rng, 0.0, 5.0);
        let yaw = uniform(&mut rng, 0.0, std::f32::consts::TAU);
        let sink = 0.01;
        let pose =
            Isometry::from_parts(Translation3::new(x, 0.5 - sink, z), Rotation::from_euler_angles(0.0, yaw, 0.0));
        let mut scene = Scene::new();
        let h =
            scene.insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) }, pose)).unwrap();
        let cube = scene.get(h).unwrap().world_shape().clone();
        let mut out = Vec::new();
        contact_manifolds(&cube, &floor, 0.02, &mut out);
        assert!(!out.is_empty(), "step {step}: no manifold");
        for m in &out {
            if (m.normal.into_inner() + Vector::y()).norm() > 1e-3 {
                tilted += 1;
            }
        }
        assert_eq!(out.len(), 1, "step {step} at ({x}, {z}), yaw {yaw}: {out:#?}");
        let m = &out[0];
        assert_eq!(m.len(), 4, "step {step}: {m:?}");
        for p in m.points() {
            assert!((p.depth - sink).abs() < 1e-4, "step {step}: depth {}", p.depth);
        }
    }
    assert_eq!(tilted, 0, "{tilted} tilted normals");
}

/// `ContactPipeline::with_manifolds`: the touching pairs and events equal
/// those of the plain pipeline (prediction 0 and 0.2) frame after frame,
/// manifolds are sorted by pair, every touching pair has one, and a pair
/// with manifolds but no contact is within the prediction (its boxes grown
/// by it overlap).
#[test]
fn pipeline_manifolds_agree_with_the_plain_pipeline() {
    for prediction in [0.0, 0.2] {
        let (mut scene, handles) = common::mixed_scene(600, 14.0, 0xF7);
        let mut plain = ContactPipeline::new();
        let mut with = ContactPipeline::new().with_manifolds(prediction).unwrap();
        let mut rng = proxima_test_support::rng(0xF8);
        let mut speculative = 0;
        for frame in 0..8 {
            for &h in &handles {
                let c = scene.get(h).unwrap();
                if c.kind() == BodyKind::Fixed || uniform(&mut rng, 0.0, 1.0) > 0.3 {
                    continue;
                }
                let d = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 0.5);
                let pose = Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), c.pose().rotation);
                scene.set_pose(h, pose).unwrap();
            }
            let e1 = plain.update(&mut scene).iter().map(|e| format!("{e:?}").len()).count();
            let e2 = with.update(&mut scene).len();
            assert_eq!(e1, e2, "prediction {prediction}, frame {frame}: event counts");
            let pairs = |p: &ContactPipeline| p.contacts().iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
            assert_eq!(pairs(&plain), pairs(&with), "prediction {prediction}, frame {frame}: contact pairs");
            let keys: Vec<_> = with.manifolds().iter().map(|m| (m.a, m.b)).collect();
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "manifolds not sorted");
            let with_manifold: BTreeSet<_> = keys.iter().copied().collect();
            for p in pairs(&plain) {
                assert!(with_manifold.contains(&p), "touching pair {p:?} without a manifold");
            }
            for m in with.manifolds() {
                check_points(std::slice::from_ref(&m.manifold), prediction, "pipeline");
                let (ba, bb) = (scene.get(m.a).unwrap().aabb(), scene.get(m.b).unwrap().aabb());
                assert!(
                    intersects_aabb_aabb(&ba.loosened(prediction + 1e-4), &bb.loosened(1e-4)),
                    "pair {m:?} beyond the prediction"
                );
            }
            speculative += with_manifold.len() - pairs(&plain).len();
        }
        if prediction > 0.0 {
            assert!(speculative > 20, "too few speculative pairs: {speculative}");
        } else {
            assert_eq!(speculative, 0);
        }
    }
}

/// A box resting on the floor keeps the same point ids frame after frame
/// while it jitters by 1e-4 (what warm starting relies on).
#[test]
fn resting_box_keeps_its_point_ids() {
    let mut scene = Scene::new();
    let floor = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) };
    scene.insert(ColliderDesc::new(floor, Isometry::identity()).fixed()).unwrap();
    let mesh = common::patch(&mut proxima_test_support::rng(1), 4, 1.0, 0.0);
    scene
        .insert(ColliderDesc::new(ColliderShape::TriMesh(mesh), Isometry::translation(10.0, 0.5, 0.0)).fixed())
        .unwrap();
    let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) };
    let turn = Rotation::from_euler_angles(0.0, 0.3, 0.0);
    let on_box = scene
        .insert(ColliderDesc::new(cube.clone(), Isometry::from_parts(Translation3::new(0.0, 0.99, 0.0), turn)))
        .unwrap();
    let on_mesh =
        scene.insert(ColliderDesc::new(cube, Isometry::from_parts(Translation3::new(12.2, 0.99, 2.1), turn))).unwrap();
    let mut pipeline = ContactPipeline::new().with_manifolds(0.05).unwrap();
    let mut rng = proxima_test_support::rng(2);
    let mut first: Vec<BTreeSet<u32>> = Vec::new();
    for frame in 0..30 {
        for (h, x, z) in [(on_box, 0.0, 0.0), (on_mesh, 12.2, 2.1)] {
            let j = Vector::new(
                uniform(&mut rng, -1e-4, 1e-4),
                uniform(&mut rng, -1e-4, 1e-4),
                uniform(&mut rng, -1e-4, 1e-4),
            );
            let pose = Isometry::from_parts(Translation3::new(x + j.x, 0.99 + j.y, z + j.z), turn);
            scene.set_pose(h, pose).unwrap();
        }
        pipeline.update(&mut scene);
        let ids: Vec<BTreeSet<u32>> =
            pipeline.manifolds().iter().map(|m| m.manifold.points().iter().map(|p| p.id).collect()).collect();
        assert_eq!(ids.len(), 2, "frame {frame}: {:?}", pipeline.manifolds());
        assert!(ids.iter().all(|s| s.len() == 4), "frame {frame}: {ids:?}");
        if frame == 0 {
            first = ids;
        } else {
            assert_eq!(ids, first, "frame {frame}: ids changed");
        }
    }
}
