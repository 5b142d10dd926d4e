//! Heightfields: their triangles against parry3d 0.31's, their validation,
//! their holes, and the collider (a heightfield collider is its triangle
//! mesh: the same contacts as a mesh collider of the same triangles).

use std::sync::Arc;

use nalgebra::DMatrix;
use parry3d::shape::HeightField as PHeightField;
use parry3d::utils::Array2;
use proxima_narrowphase::{Isometry, Point, Ray, Real, Rotation, Triangle, Vector, MAX_COORDINATE};
use proxima_scene::{
    contact, contact_manifolds, ColliderDesc, ColliderShape, ContactPipeline, HeightField, HeightFieldError, Scene,
    TriMesh,
};
use proxima_test_support::{convert, gen};
use rand::Rng;

/// Seeded random heights in `[lo, hi)`, `rows x cols`.
fn random_heights(seed: u64, rows: usize, cols: usize, lo: Real, hi: Real) -> DMatrix<Real> {
    let mut rng = proxima_test_support::rng(seed);
    DMatrix::from_fn(rows, cols, |_, _| gen::uniform(&mut rng, lo, hi))
}

/// The same heights as parry's column-major array (row `i` along z).
fn parry_field(heights: &DMatrix<Real>, scale: &Vector) -> PHeightField {
    let (rows, cols) = heights.shape();
    // nalgebra's storage is column-major too: element (i, j) at i + j rows.
    let data = heights.as_slice().to_vec();
    PHeightField::new(Array2::new(rows, cols, data), convert::vec(scale))
}

fn same_triangle(ours: &Triangle, theirs: &parry3d::shape::Triangle) -> bool {
    [*ours.a(), *ours.b(), *ours.c()] == [theirs.a, theirs.b, theirs.c].map(convert::from_pt)
}

#[test]
fn triangles_equal_parrys() {
    let mut checked = 0;
    for (seed, rows, cols, scale) in [
        (1, 2, 2, Vector::new(1.0, 1.0, 1.0)),
        (2, 17, 23, Vector::new(30.0, 2.0, 20.0)),
        (3, 40, 9, Vector::new(7.5, 0.25, 300.0)),
        (4, 33, 33, Vector::new(1e4, 50.0, 1e4)),
    ] {
        let heights = random_heights(seed, rows, cols, -3.0, 3.0);
        let ours = HeightField::try_new(heights.clone(), scale).unwrap();
        let theirs = parry_field(&heights, &scale);
        assert_eq!((theirs.nrows(), theirs.ncols()), (rows - 1, cols - 1));
        let mesh = ours.mesh();
        assert_eq!(mesh.indices().len(), 2 * (rows - 1) * (cols - 1));
        for i in 0..rows - 1 {
            for j in 0..cols - 1 {
                let [t0, t1] = ours.cell_triangles(i, j).map(Option::unwrap);
                let (p0, p1) = theirs.triangles_at(i, j);
                // Vertex for vertex, bit for bit, in the same order.
                assert!(same_triangle(&t0, &p0.unwrap()), "cell ({i}, {j}) half 0: {t0:?} vs {p0:?}");
                assert!(same_triangle(&t1, &p1.unwrap()), "cell ({i}, {j}) half 1: {t1:?} vs {p1:?}");
                // The mesh's triangle `2 (i (cols - 1) + j) + half`.
                let k = (2 * (i * (cols - 1) + j)) as u32;
                assert_eq!((mesh.triangle(k), mesh.triangle(k + 1)), (t0, t1));
                // Normals up.
                for t in [t0, t1] {
                    assert!((t.b() - t.a()).cross(&(t.c() - t.a())).y > 0.0);
                }
                checked += 2;
            }
        }
        // The mesh shares vertices: one per sample.
        assert_eq!(mesh.vertices().len(), rows * cols);
        for (i, j) in [(0, 0), (rows - 1, cols - 1), (rows / 2, cols / 3)] {
            // Stored scaled: two roundings, `h s` and the division by `s`.
            let h = heights[(i, j)];
            assert!((ours.height(i, j) - h).abs() <= Real::EPSILON * h.abs(), "{} vs {h}", ours.height(i, j));
            assert_eq!(mesh.vertices()[i * cols + j], ours.vertex(i, j));
        }
        let (a, b) = (ours.local_aabb(), theirs.root_aabb());
        assert_eq!((*a.min(), *a.max()), (convert::from_pt(b.mins), convert::from_pt(b.maxs)));
    }
    assert!(checked > 3000);
}

#[test]
fn every_validation_error() {
    let ok = DMatrix::from_element(3, 4, 1.0);
    let one = Vector::repeat(1.0);
    let err = |h: DMatrix<Real>, s: Vector| HeightField::try_new(h, s).err();
    assert_eq!(err(DMatrix::from_element(1, 4, 0.0), one), Some(HeightFieldError::TooFewSamples { rows: 1, cols: 4 }));
    assert_eq!(err(DMatrix::from_element(5, 1, 0.0), one), Some(HeightFieldError::TooFewSamples { rows: 5, cols: 1 }));
    assert_eq!(err(DMatrix::from_element(0, 0, 0.0), one), Some(HeightFieldError::TooFewSamples { rows: 0, cols: 0 }));
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        let mut h = ok.clone();
        h[(2, 1)] = bad;
        assert_eq!(err(h, one), Some(HeightFieldError::NonFiniteHeight { row: 2, col: 1 }));
        for axis in 0..3 {
            let mut s = one;
            s[axis] = bad;
            assert_eq!(err(ok.clone(), s), Some(HeightFieldError::NonFiniteScale));
        }
    }
    for bad in [0.0, -0.0, -1.0] {
        for axis in 0..3 {
            let mut s = one;
            s[axis] = bad;
            assert_eq!(err(ok.clone(), s), Some(HeightFieldError::NonPositiveScale));
        }
    }
    // Coordinates beyond MAX_COORDINATE: a height, its product with the
    // scale (finite factors, an overflowing or too large product), the extent.
    let mut h = ok.clone();
    h[(1, 3)] = 2.0 * MAX_COORDINATE;
    assert_eq!(err(h, one), Some(HeightFieldError::TooLarge { row: 1, col: 3 }));
    let mut h = ok.clone();
    h[(0, 2)] = 1e30;
    assert_eq!(err(h, Vector::new(1.0, 1e10, 1.0)), Some(HeightFieldError::TooLarge { row: 0, col: 2 }));
    assert_eq!(
        err(ok.clone(), Vector::new(4.0 * MAX_COORDINATE, 1.0, 1.0)),
        Some(HeightFieldError::TooLarge { row: 0, col: 0 })
    );
    // At the limit exactly: accepted.
    let mut h = ok.clone();
    h[(1, 1)] = -MAX_COORDINATE;
    assert!(HeightField::try_new(h, Vector::new(2.0 * MAX_COORDINATE, 1.0, 1.0)).is_ok());
    // The hole mask: one flag per cell; not all holes.
    let holes = |r, c, v| DMatrix::from_element(r, c, v);
    let with = |m: &DMatrix<bool>| HeightField::try_with_holes(ok.clone(), one, m).err();
    assert_eq!(with(&holes(3, 4, false)), Some(HeightFieldError::HolesShape { expected: (2, 3), got: (3, 4) }));
    assert_eq!(with(&holes(2, 2, false)), Some(HeightFieldError::HolesShape { expected: (2, 3), got: (2, 2) }));
    assert_eq!(with(&holes(2, 3, true)), Some(HeightFieldError::AllHoles));
    assert_eq!(with(&holes(2, 3, false)), None);
    // The samples are checked before the mask.
    assert_eq!(
        HeightField::try_with_holes(DMatrix::from_element(1, 1, 0.0), one, &holes(1, 1, false)).err(),
        Some(HeightFieldError::TooFewSamples { rows: 1, cols: 1 })
    );
    // Every error displays.
    assert!(!HeightFieldError::AllHoles.to_string().is_empty());
}

/// A 9 x 9 sample field (8 x 8 cells over `[-4, 4]^2`) at height 0 with
/// holes at the cells in `holes`.
fn holed_field(holes: &[(usize, usize)]) -> HeightField {
    let mut mask = DMatrix::from_element(8, 8, false);
    for &(i, j) in holes {
        mask[(i, j)] = true;
    }
    HeightField::try_with_holes(DMatrix::from_element(9, 9, 0.0), Vector::new(8.0, 1.0, 8.0), &mask).unwrap()
}

#[test]
fn holes_let_rays_and_shapes_through() {
    let field = holed_field(&[(2, 5), (6, 0)]);
    assert_eq!(field.mesh().indices().len(), 2 * (64 - 2));
    assert!(field.is_hole(2, 5) && field.is_hole(6, 0) && !field.is_hole(5, 2));
    assert_eq!(field.cell_triangles(2, 5), [None, None]);
    // Cell (i, j) spans x in [j - 4, j - 3], z in [i - 4, i - 3].
    let centre = |i: usize, j: usize| Point::new(j as Real - 3.5, 0.0, i as Real - 3.5);
    let pose = Isometry::translation(0.3, -2.0, 0.1);
    let world = ColliderShape::HeightField(Arc::new(field.clone())).placed(&pose).unwrap();
    let mut rng = proxima_test_support::rng(7);
    let mut blocked = 0;
    for i in 0..8 {
        for j in 0..8 {
            let hole = field.is_hole(i, j);
            for _ in 0..20 {
                // Points strictly inside the cell, so a hole's neighbours are
                // not touched: rays straight down, and small spheres.
                let p = centre(i, j) + Vector::new(rng.random_range(-0.4..0.4), 0.0, rng.random_range(-0.4..0.4));
                let ray = Ray::new(p + Vector::y(), -Vector::y(), 5.0);
                let hit = field.cast_ray_closest(&ray);
                assert_eq!(hit.is_none(), hole, "cell ({i}, {j}): {hit:?}");
                assert_eq!(field.mesh().cast_ray_closest(&ray).is_none(), hole);
                if let Some(h) = hit {
                    assert_eq!(((h.row, h.col), h.hit.toi), ((i, j), 1.0));
                    blocked += 1;
                }
                let ball =
                    ColliderShape::Sphere { radius: 0.05 }.placed(&(pose * Isometry::translation(p.x, 0.02, p.z)));
                assert_eq!(contact(&ball.unwrap(), &world).is_none(), hole, "cell ({i}, {j})");
            }
        }
    }
    assert_eq!(blocked, 62 * 20);
    // A slanted ray into a hole of a flat field passes through: a miss.
    let through = Ray::new(centre(2, 5) + Vector::new(0.0, 1.0, 0.0), Vector::new(0.01, -1.0, 0.0), 3.0);
    assert!(field.cast_ray_closest(&through).is_none());
}

/// A scene with one fixed terrain collider of `shape` and the handle.
fn terrain_scene(shape: ColliderShape, pose: Isometry) -> Scene {
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(shape, pose).fixed()).unwrap();
    scene
}

#[test]
fn collider_contacts_equal_the_meshs() {
    let heights = random_heights(11, 21, 26, -1.0, 1.0);
    let field = Arc::new(HeightField::try_new(heights, Vector::new(20.0, 1.5, 16.0)).unwrap());
    let mesh = Arc::new(TriMesh::new(field.mesh().vertices().to_vec(), field.mesh().indices().to_vec()).unwrap());
    let mut rng = proxima_test_support::rng(12);
    let (mut touching, mut manifolds) = (0, 0);
    let (mut out_f, mut out_m) = (Vec::new(), Vec::new());
    for n in 0..4000 {
        let pose = Isometry::from_parts(
            Vector::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)).into(),
            if n % 2 == 0 { Rotation::identity() } else { gen::rotation(&mut rng) },
        );
        let f = ColliderShape::HeightField(Arc::clone(&field)).placed(&pose).unwrap();
        let m = ColliderShape::TriMesh(Arc::clone(&mesh)).placed(&pose).unwrap();
        let at =
            pose * Point::new(rng.random_range(-11.0..11.0), rng.random_range(-2.0..2.0), rng.random_range(-9.0..9.0));
        let other = match n % 3 {
            0 => ColliderShape::Sphere { radius: rng.random_range(0.1..1.5) },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.3, 0.8) },
            _ => ColliderShape::Capsule { half_height: 0.6, radius: 0.3 },
        };
        let rot = if n % 5 == 0 { Rotation::identity() } else { gen::rotation(&mut rng) };
        let other = other.placed(&Isometry::from_parts(at.coords.into(), rot)).unwrap();
        let (cf, cm) = (contact(&other, &f), contact(&other, &m));
        assert_eq!(cf, cm, "case {n}");
        touching += usize::from(cf.is_some());
        out_f.clear();
        out_m.clear();
        contact_manifolds(&other, &f, 0.05, &mut out_f);
        contact_manifolds(&f, &other, 0.05, &mut out_m);
        let mut flipped = Vec::new();
        contact_manifolds(&m, &other, 0.05, &mut flipped);
        assert_eq!(out_m, flipped, "case {n}");
        manifolds += out_f.len();
    }
    // Both branches exercised.
    assert!((1000..3000).contains(&touching), "{touching} of 4000 touch");
    assert!(manifolds > 1000);

    // Through the scene and the pipeline: the same contacts frame by frame.
    let pose = Isometry::translation(1.0, -0.5, 2.0);
    let mut scenes = [
        terrain_scene(ColliderShape::HeightField(Arc::clone(&field)), pose),
        terrain_scene(ColliderShape::TriMesh(mesh), pose),
    ];
    for scene in &mut scenes {
        let mut rng = proxima_test_support::rng(13);
        for _ in 0..200 {
            let at = Vector::new(rng.random_range(-9.0..9.0), rng.random_range(-2.0..1.5), rng.random_range(-7.0..7.0));
            scene
                .insert(ColliderDesc::new(
                    ColliderShape::Sphere { radius: 0.5 },
                    Isometry::translation(at.x, at.y, at.z),
                ))
                .unwrap();
        }
    }
    let contacts: Vec<_> = scenes
        .iter_mut()
        .map(|scene| {
            let mut pipeline = ContactPipeline::new();
            pipeline.update(scene);
            let mut pairs: Vec<_> =
                pipeline.contacts().iter().map(|p| format!("{:?}", (p.a.index(), p.b.index(), p.contact))).collect();
            pairs.sort();
            pairs
        })
        .collect();
    assert!(contacts[0].len() > 20, "{} contacts", contacts[0].len());
    assert_eq!(contacts[0], contacts[1]);
}

#[test]
fn sphere_resting_on_a_slope_meets_the_closed_form() {
    // A plane `y = a x + b z + c` sampled on the grid: every triangle lies
    // in it (up to the rounding of the samples), so a sphere of radius r
    // at signed distance s above it penetrates by `r - s` along the plane's
    // normal `(-a, 1, -b) / |(-a, 1, -b)|`. Tolerance 1e-5: the samples and
    // vertices are rounded to f32 (heights up to ~10, so ~1e-6), and the
    // contact is computed in f32 from them.
    let (a, b, c): (f64, f64, f64) = (0.3, -0.2, 1.0);
    let (rows, cols) = (65, 49);
    let scale = Vector::new(24.0, 1.0, 32.0);
    let field = HeightField::try_new(
        DMatrix::from_fn(rows, cols, |i, j| {
            let x = (-0.5 + j as f64 / (cols - 1) as f64) * scale.x as f64;
            let z = (-0.5 + i as f64 / (rows - 1) as f64) * scale.z as f64;
            (a * x + b * z + c) as Real
        }),
        scale,
    )
    .unwrap();
    let world = ColliderShape::HeightField(Arc::new(field)).placed(&Isometry::identity()).unwrap();
    let n = Vector::new(-a as Real, 1.0, -b as Real).normalize();
    let mut rng = proxima_test_support::rng(21);
    let (mut worst, mut worst_normal, mut worst_point): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for _ in 0..2000 {
        let (x, z) = (rng.random_range(-10.0..10.0), rng.random_range(-14.0..14.0));
        let r: f64 = rng.random_range(0.2..1.0);
        let depth: f64 = rng.random_range(0.0..0.5) * r;
        let on_plane = nalgebra::Point3::new(x, a * x + b * z + c, z);
        let n64 = nalgebra::Vector3::new(-a, 1.0, -b).normalize();
        let centre = on_plane + n64 * (r - depth);
        let sphere = ColliderShape::Sphere { radius: r as Real }
            .placed(&Isometry::translation(centre.x as Real, centre.y as Real, centre.z as Real))
            .unwrap();
        let hit = contact(&world, &sphere).expect("the sphere penetrates the slope");
        worst = worst.max((hit.depth as f64 - depth).abs());
        assert!((hit.depth as f64 - depth).abs() < 1e-5, "depth {} vs {depth}", hit.depth);
        // The normal is the direction from the closest point of a triangle
        // to the centre: its lateral error is the closest point's, which
        // the mesh's sphere-triangle kernel leaves at up to ~1e-4 on these
        // coordinates (up to 16, a point 0.2 to 1 from the plane; the depth,
        // second order in that error, stays within 1e-5 above).
        let normal_error = f64::from((hit.normal.into_inner() - n).norm());
        worst_normal = worst_normal.max(normal_error);
        assert!(normal_error < 1e-3, "normal {:?} vs {n:?}: {hit:?}", hit.normal);
        let p = hit.point_a.map(f64::from);
        worst_point = worst_point.max((p - on_plane).norm());
        assert!((p - on_plane).norm() < 1e-3, "point {p:?} vs {on_plane:?}");
    }
    eprintln!("slope: worst depth error {worst:e}, normal {worst_normal:e}, point {worst_point:e}");
}
