//! User-set edge flags of a mesh: every edge `Auto` gives the manifolds of a
//! mesh without flags bit for bit; an edge forced internal yields only face
//! normals where the automatic rule keeps a leaning edge normal; an edge
//! forced active keeps its edge normal; bad flags are typed errors.

mod common;

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{Capsule, ContactManifold, Isometry, Obb, Point, Real, Rotation, Sphere, UnitVector, Vector};
use proxima_scene::{contact_manifolds, EdgeFlags, EdgeMode, MeshError, TriMesh, WorldShape};
use proxima_test_support::gen::uniform;

/// The manifolds of `shape` (A) against `mesh` (B, unposed).
fn manifolds(shape: &WorldShape, mesh: &Arc<TriMesh>, prediction: Real) -> Vec<ContactManifold> {
    let mut out = Vec::new();
    contact_manifolds(shape, &WorldShape::TriMesh(mesh.clone(), Isometry::identity()), prediction, &mut out);
    out
}

/// Random shapes against bumpy patches (gently bumped, where most edges are
/// internal, and rough): every edge flagged `Auto` (as the constant and as
/// bytes) gives the manifolds of the unflagged mesh bit for bit; every edge
/// forced active (gentle patch) or internal (rough patch) changes some (the
/// internal-edge rule is at work in these cases, and the flags are read).
#[test]
fn auto_flags_give_the_unflagged_manifolds_bit_for_bit() {
    let mut rng = proxima_test_support::rng(0x3A8_0001);
    for bump in [0.05, 0.6] {
        let plain = common::patch(&mut rng, 12, 0.5, bump);
        let n = plain.indices().len();
        let auto = Arc::new((*plain).clone().with_edge_flags(vec![EdgeFlags::AUTO; n]).unwrap());
        let from_bits = vec![EdgeFlags::from_bits(0).unwrap(); n];
        let auto_bits = Arc::new((*plain).clone().with_edge_flags(from_bits).unwrap());
        // Forced the other way from what the automatic rule mostly says.
        let forced = if bump < 0.1 { EdgeFlags::ACTIVE } else { EdgeFlags::INTERNAL };
        let forced = Arc::new((*plain).clone().with_edge_flags(vec![forced; n]).unwrap());
        let (mut touching, mut changed) = (0, 0);
        let cases = 4_000;
        for case in 0..cases {
            let shape = common::shape_over_patch(&mut rng, 1.6);
            let prediction = if case % 2 == 0 { 0.0 } else { 0.1 };
            let want = manifolds(&shape, &plain, prediction);
            touching += usize::from(!want.is_empty());
            for mesh in [&auto, &auto_bits] {
                let got = manifolds(&shape, mesh, prediction);
                // Bit for bit: `{:?}` prints each float's shortest exact form.
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "bump {bump}, case {case}");
            }
            changed += usize::from(manifolds(&shape, &forced, prediction) != want);
        }
        assert!((cases * 3 / 10..=cases * 7 / 10).contains(&touching), "{touching} of {cases} cases touch");
        assert!(changed > 20, "bump {bump}: forced edges changed only {changed} cases");
    }
}

/// A quad of two triangles `[0, 1, 2]`, `[0, 2, 3]` over `[-2, 2]^2` (y
/// up) sharing the diagonal from vertex 0 `(-2, 0, -2)` to vertex 2
/// `(2, 0, 2)`, its corners 1 and 3 lowered by `drop`: flat for 0, a ridge
/// along the diagonal for `drop > 0`. The diagonal is edge 2 of triangle 0
/// and edge 0 of triangle 1; `seam` is given to both, the other edges stay
/// `Auto`.
fn quad(drop: Real, seam: EdgeMode) -> Arc<TriMesh> {
    let v = vec![
        Point::new(-2.0, 0.0, -2.0),
        Point::new(2.0, -drop, -2.0),
        Point::new(2.0, 0.0, 2.0),
        Point::new(-2.0, -drop, 2.0),
    ];
    let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    let flags = vec![EdgeFlags::AUTO.with_mode(2, seam), EdgeFlags::AUTO.with_mode(0, seam)];
    Arc::new(mesh.with_edge_flags(flags).unwrap())
}

/// Whether `n` is within 1e-3 of one of the mesh's two face normals (either
/// side).
fn is_face_normal(mesh: &TriMesh, n: &UnitVector) -> bool {
    mesh.triangles().any(|t| t.scaled_normal().normalize().dot(n).abs() >= 1.0 - 1e-6)
}

/// Yawed boxes sliding across the quad's diagonal, sunk a little below the
/// surface under their centre: with the diagonal flagged internal every
/// manifold normal is a face normal, on the flat quad and on a 10-degree
/// ridge. On the ridge the automatic rule calls the diagonal active and
/// some boxes get its leaning edge normal (the flag is what removes them).
#[test]
fn an_internal_seam_gives_only_face_normals() {
    let mut rng = proxima_test_support::rng(0x3A8_0002);
    // Corners 2 sqrt 2 from the diagonal, each face tilted 5 degrees.
    let ridge_drop = 2.0 * core::f32::consts::SQRT_2 * (5.0 as Real).to_radians().tan();
    for (drop, expect_leaning_auto) in [(0.0, false), (ridge_drop, true)] {
        let internal = quad(drop, EdgeMode::Internal);
        let auto = quad(drop, EdgeMode::Auto);
        let (mut leaning_auto, mut touching) = (0, 0);
        let steps = 2_000;
        for step in 0..steps {
            // Across the diagonal x = z, from the side of triangle 0 to that of 1.
            let s = -1.0 + 2.0 * step as Real / steps as Real;
            let along = uniform(&mut rng, -0.6, 0.6);
            let (x, z) = (along - 0.6 * s, along + 0.6 * s);
            // The surface's height under the centre: the ridge falls off
            // linearly with the distance to the diagonal.
            let y = -drop * (x - z).abs() / (4.0 * core::f32::consts::SQRT_2);
            let half = Vector::new(uniform(&mut rng, 0.2, 0.5), 0.3, uniform(&mut rng, 0.2, 0.5));
            let sink = uniform(&mut rng, 0.0, 0.02);
            let yaw = uniform(&mut rng, 0.0, core::f32::consts::TAU);
            let pose = Isometry::from_parts(
                Translation3::new(x, y + half.y - sink, z),
                Rotation::from_euler_angles(0.0, yaw, 0.0),
            );
            let cube = WorldShape::Obb(Obb::new(pose.translation.vector.into(), pose.rotation, half));
            let got = manifolds(&cube, &internal, 0.02);
            touching += usize::from(!got.is_empty());
            for m in &got {
                assert!(is_face_normal(&internal, &m.normal), "drop {drop}, step {step}: normal {:?}", m.normal);
            }
            let auto_got = manifolds(&cube, &auto, 0.02);
            leaning_auto += auto_got.iter().filter(|m| !is_face_normal(&auto, &m.normal)).count();
        }
        assert!(touching > steps * 9 / 10, "drop {drop}: {touching} of {steps} boxes touch");
        if expect_leaning_auto {
            assert!(leaning_auto > 20, "drop {drop}: only {leaning_auto} leaning normals without the flag");
        } else {
            assert_eq!(leaning_auto, 0, "the flat quad's diagonal is internal by the automatic rule too");
        }
    }
}

/// A 90-degree ridge along z (faces sloping down towards +x and -x): a
/// sphere, a box or a capsule over the ridge touches only its edge. With
/// the edge `Active` (or `Auto`: a 90-degree edge is active) the manifold
/// keeps the edge normal (from the shape's deepest point straight to the
/// edge); with it `Internal` the normal is one of the two face normals.
#[test]
fn an_active_sharp_edge_keeps_its_normal() {
    let mut rng = proxima_test_support::rng(0x3A8_0003);
    let ridge = |mode: EdgeMode| {
        let v = vec![
            Point::new(0.0, 0.0, -3.0),
            Point::new(0.0, 0.0, 3.0),
            Point::new(2.0, -2.0, 0.0),
            Point::new(-2.0, -2.0, 0.0),
        ];
        // The ridge [0, 1] is edge 0 of both triangles.
        let mesh = TriMesh::new(v, vec![[0, 1, 2], [1, 0, 3]]).unwrap();
        let f = EdgeFlags::AUTO.with_mode(0, mode);
        Arc::new(mesh.with_edge_flags(vec![f, f]).unwrap())
    };
    let (active, auto, internal) = (ridge(EdgeMode::Active), ridge(EdgeMode::Auto), ridge(EdgeMode::Internal));
    let mut checked = 0;
    for case in 0..3_000 {
        // Over the edge, within 25 degrees of vertical: the edge is the
        // closest feature.
        let h = uniform(&mut rng, 0.3, 0.6);
        let x = h * uniform(&mut rng, -0.45, 0.45);
        let z = uniform(&mut rng, -1.5, 1.5);
        let c = Point::new(x, h, z);
        let r = c.coords.xy().norm() + uniform(&mut rng, -0.05, 0.03);
        let (shape, edge_normal) = match case % 3 {
            0 => (WorldShape::Sphere(Sphere::new(c, r)), Vector::new(-x, -h, 0.0).normalize()),
            1 => {
                // A box whose lowest edge (along x) is the deepest part, over the ridge.
                let pose = Rotation::from_euler_angles(core::f32::consts::FRAC_PI_4, 0.0, 0.0);
                let half = Vector::new(0.4, r / core::f32::consts::SQRT_2, r / core::f32::consts::SQRT_2);
                (WorldShape::Obb(Obb::new(Point::new(0.0, h, z), pose, half)), -Vector::y())
            }
            _ => {
                let d = Vector::new(0.0, 0.0, 0.5);
                let capsule = Capsule::new(c - d, c + d, r);
                (WorldShape::Capsule(capsule), Vector::new(-x, -h, 0.0).normalize())
            }
        };
        let prediction = 0.1;
        let want = manifolds(&shape, &auto, prediction);
        assert_eq!(manifolds(&shape, &active, prediction), want, "case {case}: Auto is Active on a 90-degree edge");
        assert_eq!(want.len(), 1, "case {case}: {want:?}");
        let n = want[0].normal.into_inner();
        assert!((n - edge_normal).norm() < 2e-3, "case {case}: normal {n:?}, edge normal {edge_normal:?}");
        assert!(!is_face_normal(&active, &want[0].normal));
        let flat = manifolds(&shape, &internal, prediction);
        assert!(!flat.is_empty(), "case {case}: the internal edge drops every contact");
        for m in &flat {
            assert!(is_face_normal(&internal, &m.normal), "case {case}: {m:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 3_000);
}

/// Bad flag bytes and lists are typed errors, nothing panics; the modes
/// round-trip through the byte; flags cost one byte a triangle.
#[test]
fn bad_edge_flags_are_typed_errors() {
    let modes = [EdgeMode::Auto, EdgeMode::Active, EdgeMode::Internal];
    let mut valid = 0;
    for bits in 0..=u8::MAX {
        let ok = bits >> 6 == 0 && (0..3).all(|e| bits & (9 << e) != 9 << e);
        match EdgeFlags::from_bits(bits) {
            Ok(f) => {
                assert!(ok, "{bits:#b} accepted");
                assert_eq!(f.bits(), bits);
                assert_eq!(EdgeFlags::new([f.mode(0), f.mode(1), f.mode(2)]), f);
                valid += 1;
            }
            Err(e) => {
                assert!(!ok, "{bits:#b} rejected");
                assert_eq!(e, MeshError::InvalidEdgeFlags { bits });
                assert!(e.to_string().contains("edge flags"));
            }
        }
    }
    assert_eq!(valid, 27);
    for m0 in modes {
        for m1 in modes {
            for m2 in modes {
                let f = EdgeFlags::new([m0, m1, m2]);
                assert_eq!([f.mode(0), f.mode(1), f.mode(2)], [m0, m1, m2]);
                assert_eq!(f.with_mode(1, EdgeMode::Auto).mode(1), EdgeMode::Auto);
            }
        }
    }
    assert_eq!(EdgeFlags::new([EdgeMode::Active; 3]), EdgeFlags::ACTIVE);
    assert_eq!(EdgeFlags::new([EdgeMode::Internal; 3]), EdgeFlags::INTERNAL);

    let mesh =
        TriMesh::new(vec![Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 0.0, 1.0)], vec![[0, 1, 2]])
            .unwrap();
    assert_eq!(mesh.edge_flags(), None);
    for got in [0, 2, 5] {
        let e = mesh.clone().with_edge_flags(vec![EdgeFlags::AUTO; got]).unwrap_err();
        assert_eq!(e, MeshError::EdgeFlagCount { expected: 1, got });
        assert!(e.to_string().contains(&format!("{got} edge flags")));
    }
    let flagged = mesh.clone().with_edge_flags(vec![EdgeFlags::INTERNAL]).unwrap();
    assert_eq!(flagged.edge_flags(), Some(&[EdgeFlags::INTERNAL][..]));
    // (Clones hold their vectors at their lengths: the same capacities.)
    assert_eq!(flagged.memory_bytes(), mesh.clone().memory_bytes() + 1);
    // Flags set again replace the first ones.
    let again = flagged.with_edge_flags(vec![EdgeFlags::AUTO]).unwrap();
    assert_eq!(again.edge_flags(), Some(&[EdgeFlags::AUTO][..]));
}
