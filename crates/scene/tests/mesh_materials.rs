//! Per-triangle materials of meshes and heightfields: every ray hit reports
//! the material of a closest triangle found by brute force (bare mesh, posed
//! mesh, batches, the scene, the heightfield's walk and its collider),
//! every manifold point names a triangle whose own contact exists and whose
//! material it reports, and bad material lists are typed errors.

mod common;

use std::sync::Arc;

use nalgebra::{DMatrix, Translation3};
use proxima_narrowphase::{
    cast_ray_triangle, closest_point_triangle, contact_manifold_capsule_triangle, contact_manifold_obb_triangle,
    contact_manifold_sphere_triangle, Isometry, Point, Ray, Real, Sphere, Triangle, Vector,
};
use proxima_scene::{
    contact_manifolds, ColliderDesc, ColliderShape, HeightField, HeightFieldError, MeshError, QueryFilter, Scene,
    TriMesh, WorldShape,
};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

fn random_materials(rng: &mut impl Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.random::<u32>()).collect()
}

/// A ray from a random point around `center` (within `reach`) towards
/// another one.
fn random_ray(rng: &mut impl Rng, center: &Point, reach: Real) -> Ray {
    let mut p =
        || center + Vector::new(uniform(rng, -reach, reach), uniform(rng, -reach, reach), uniform(rng, -reach, reach));
    let (from, to) = (p(), p());
    Ray::new(from, to - from, 4.0 * reach)
}

/// The smallest `toi` over `triangles` of `cast_ray_triangle`, and how many
/// triangles reach it.
fn brute_closest(ray: &Ray, triangles: &[Triangle]) -> Option<(Real, usize)> {
    let tois: Vec<Real> = triangles.iter().filter_map(|t| cast_ray_triangle(ray, t).map(|h| h.toi)).collect();
    let min = tois.iter().copied().reduce(Real::min)?;
    Some((min, tois.iter().filter(|&&t| t == min).count()))
}

/// The bare mesh's closest and any hits, and the batch: each hit's material
/// is its triangle's, and the closest triangle's own `toi` is the brute
/// force's smallest (bit for bit, so the triangle is a closest one).
#[test]
fn mesh_ray_hits_report_the_closest_triangles_material() {
    let mut rng = proxima_test_support::rng(0x3A7_0001);
    let (v, t) = proxima_test_support::mesh::bumpy_sphere(16, 24);
    let meshes = [TriMesh::new(v, t).unwrap(), Arc::unwrap_or_clone(common::patch(&mut rng, 16, 0.5, 0.6))];
    for mesh in meshes {
        let n = mesh.indices().len();
        let materials = random_materials(&mut rng, n);
        let plain = mesh.clone();
        let mesh = mesh.with_materials(materials.clone()).unwrap();
        assert_eq!(mesh.materials(), Some(&materials[..]));
        let triangles: Vec<Triangle> = mesh.triangles().collect();
        let center = mesh.local_aabb().center();
        let reach = mesh.local_aabb().half_extents().amax() * 1.3;
        let rays: Vec<Ray> = (0..3_000).map(|_| random_ray(&mut rng, &center, reach)).collect();
        let mut hits = 0;
        for ray in &rays {
            let got = mesh.cast_ray_closest(ray);
            let brute = brute_closest(ray, &triangles);
            assert_eq!(got.is_some(), brute.is_some(), "{ray:?}");
            let any = mesh.cast_ray_any(ray);
            assert_eq!(any.is_some(), brute.is_some());
            if let Some(a) = any {
                assert_eq!(a.triangle.material, materials[a.triangle.index as usize]);
            }
            let (Some(h), Some((toi, tied))) = (got, brute) else { continue };
            hits += 1;
            let i = h.triangle.index as usize;
            assert_eq!(h.triangle.material, materials[i], "{ray:?}");
            assert_eq!(h.triangle.material, mesh.material(i as u32));
            assert_eq!(cast_ray_triangle(ray, &triangles[i]).map(|h| h.toi), Some(toi), "{ray:?}");
            if tied == 1 {
                let j = triangles.iter().position(|t| cast_ray_triangle(ray, t).is_some_and(|h| h.toi == toi));
                assert_eq!(Some(i), j);
            }
            // Without materials: the same hit, material 0.
            let p = plain.cast_ray_closest(ray).unwrap();
            assert_eq!(p.triangle.material, 0);
            assert_eq!((p.triangle.index, p.hit), (h.triangle.index, h.hit));
        }
        assert!((900..=2_100).contains(&hits), "{hits} of 3000 rays hit");
        let mut batch = Vec::new();
        mesh.cast_rays_into(&rays, &mut batch);
        for (ray, b) in rays.iter().zip(&batch) {
            assert_eq!(*b, mesh.cast_ray_closest(ray));
        }
        mesh.cast_rays_any_into(&rays, &mut batch);
        for b in batch.iter().flatten() {
            assert_eq!(b.triangle.material, materials[b.triangle.index as usize]);
        }
    }
}

/// A posed mesh, alone and as the scene's only collider: the hit's material
/// is its triangle's, that triangle is within rounding of the brute force's
/// closest posed triangle, and the scene (single rays, batches, all hits)
/// reports the bare posed cast.
#[test]
fn posed_and_scene_ray_hits_report_materials() {
    let mut rng = proxima_test_support::rng(0x3A7_0002);
    let mesh = Arc::unwrap_or_clone(common::patch(&mut rng, 12, 0.5, 0.8));
    let materials = random_materials(&mut rng, mesh.indices().len());
    let mesh = Arc::new(mesh.with_materials(materials.clone()).unwrap());
    let pose = Isometry::from_parts(Translation3::new(3.0, -1.0, 2.0), gen::rotation(&mut rng));
    let posed: Vec<Triangle> = mesh
        .triangles()
        .map(|t| {
            let [a, b, c] = t.vertices().map(|p| pose.transform_point(&p));
            Triangle::new(a, b, c)
        })
        .collect();
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh.clone()), pose).fixed()).unwrap();
    let center = pose.transform_point(&mesh.local_aabb().center());
    let rays: Vec<Ray> = (0..3_000).map(|_| random_ray(&mut rng, &center, 4.0)).collect();
    let mut batch = Vec::new();
    scene.cast_rays_into(&rays, &QueryFilter::default(), &mut batch);
    let mut hits = 0;
    for (ray, batched) in rays.iter().zip(&batch) {
        let ray = *ray;
        let bare = mesh.cast_ray_closest_posed(&ray, &pose);
        let in_scene = scene.cast_ray_closest(&ray, &QueryFilter::default());
        assert_eq!(*batched, in_scene, "{ray:?}: the scene's batch reports the single cast");
        if let Some(all) = scene.cast_ray_all(&ray, &QueryFilter::default()).first() {
            let t = all.triangle.expect("a mesh hit names its triangle");
            assert_eq!(t.material, materials[t.index as usize]);
        }
        assert_eq!(bare.is_some(), in_scene.is_some(), "{ray:?}");
        let (Some(b), Some(s)) = (bare, in_scene) else { continue };
        hits += 1;
        assert_eq!(s.triangle, Some(b.triangle));
        let i = b.triangle.index as usize;
        assert_eq!(b.triangle.material, materials[i]);
        let (toi, _) = brute_closest(&ray, &posed).expect("the brute force hits too");
        let own = cast_ray_triangle(&ray, &posed[i]).map_or(Real::INFINITY, |h| h.toi);
        assert!((own - toi).abs() <= 1e-4 * (1.0 + toi), "{ray:?}: triangle {i} at {own}, closest at {toi}");
    }
    assert!((600..=2_400).contains(&hits), "{hits} of 3000 rays hit");
}

/// A heightfield with holes and materials: its walk reports the material
/// of the cell triangle it hits, which is a closest cell triangle by brute
/// force; the scene's ray on its collider reports the mesh triangle's
/// material, the same cell triangle's.
#[test]
fn heightfield_ray_hits_report_the_cell_triangles_material() {
    let mut rng = proxima_test_support::rng(0x3A7_0003);
    let (rows, cols) = (33, 29);
    let heights = DMatrix::from_fn(rows, cols, |_, _| uniform(&mut rng, 0.0, 1.0));
    let holes = DMatrix::from_fn(rows - 1, cols - 1, |_, _| rng.random_range(0..10) == 0);
    let materials = random_materials(&mut rng, 2 * (rows - 1) * (cols - 1));
    let field = HeightField::try_with_holes(heights, Vector::new(16.0, 2.0, 16.0), &holes).unwrap();
    let field = Arc::new(field.with_materials(materials.clone()).unwrap());
    // Every cell triangle, and the mesh's triangles' cells (holes skipped).
    let mut tris = Vec::new();
    let mut mesh_cells = Vec::new();
    for i in 0..rows - 1 {
        for j in 0..cols - 1 {
            for (half, t) in field.cell_triangles(i, j).into_iter().enumerate() {
                if let Some(t) = t {
                    tris.push(t);
                    mesh_cells.push((i, j, half));
                }
            }
        }
    }
    let mesh = field.mesh();
    assert_eq!(mesh.indices().len(), mesh_cells.len());
    for (t, &(i, j, half)) in mesh_cells.iter().enumerate() {
        assert_eq!(mesh.material(t as u32), materials[2 * (i * (cols - 1) + j) + half]);
        assert_eq!(mesh.triangle(t as u32), field.cell_triangles(i, j)[half].unwrap());
    }
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::HeightField(field.clone()), Isometry::identity()).fixed()).unwrap();
    let mut hits = 0;
    for _ in 0..3_000 {
        let ray = random_ray(&mut rng, &Point::new(0.0, 1.0, 0.0), 8.0);
        let got = field.cast_ray_closest(&ray);
        let brute = brute_closest(&ray, &tris);
        assert_eq!(got.is_some(), brute.is_some(), "{ray:?}");
        let (Some(h), Some((toi, _))) = (got, brute) else { continue };
        hits += 1;
        assert_eq!(h.material, materials[2 * (h.row * (cols - 1) + h.col) + h.half], "{ray:?}");
        assert_eq!(h.material, field.material(h.row, h.col, h.half));
        assert_eq!(h.hit.toi, toi, "{ray:?}");
        let s = scene.cast_ray_closest(&ray, &QueryFilter::default()).expect("the scene hits the field too");
        let t = s.triangle.expect("a heightfield hit names its mesh triangle");
        let (i, j, half) = mesh_cells[t.index as usize];
        assert_eq!(t.material, materials[2 * (i * (cols - 1) + j) + half], "{ray:?}");
        assert!((s.toi - toi).abs() <= 1e-4 * (1.0 + toi));
    }
    assert!((900..=2_100).contains(&hits), "{hits} of 3000 rays hit");
}

/// The shape's own manifold against one triangle.
fn triangle_manifold(shape: &WorldShape, t: &Triangle, prediction: Real) -> bool {
    match shape {
        WorldShape::Sphere(s) => contact_manifold_sphere_triangle(s, t, prediction).is_some(),
        WorldShape::Obb(o) => contact_manifold_obb_triangle(o, t, prediction).is_some(),
        WorldShape::Capsule(c) => contact_manifold_capsule_triangle(c, t, prediction).is_some(),
        _ => unreachable!(),
    }
}

/// Convex shapes against a bumpy patch with random materials (and against
/// a heightfield's collider): every manifold point names a triangle of the
/// mesh (both orders of the pair), the shape's own manifold against that
/// triangle alone exists (the brute force over the triangles), the point's
/// mesh-side witness lies on the triangle's plane, and its material is the
/// triangle's.
#[test]
fn manifold_points_report_the_material_of_their_triangle() {
    let mut rng = proxima_test_support::rng(0x3A7_0004);
    let mesh = Arc::unwrap_or_clone(common::patch(&mut rng, 12, 0.5, 0.6));
    let materials = random_materials(&mut rng, mesh.indices().len());
    let mesh = Arc::new(mesh.with_materials(materials.clone()).unwrap());
    let placed = WorldShape::TriMesh(mesh.clone(), Isometry::identity());
    let (mut touching, mut points) = (0, 0);
    let cases = 4_000;
    for case in 0..cases {
        let shape = common::shape_over_patch(&mut rng, 2.0);
        let prediction = if case % 2 == 0 { 0.0 } else { 0.1 };
        let mut out = Vec::new();
        contact_manifolds(&shape, &placed, prediction, &mut out);
        let mut flipped = Vec::new();
        contact_manifolds(&placed, &shape, prediction, &mut flipped);
        assert_eq!(out.len(), flipped.len());
        touching += usize::from(!out.is_empty());
        for (m, f) in out.iter().zip(&flipped) {
            for (p, q) in m.points().iter().zip(f.points()) {
                points += 1;
                assert_eq!(p.id, q.id, "case {case}: the flipped pair keeps the ids");
                let t = mesh.triangle_of_point_id(p.id).unwrap_or_else(|| panic!("case {case}: id {:#x}", p.id));
                let tri = mesh.triangle(t);
                assert!(triangle_manifold(&shape, &tri, prediction), "case {case}: triangle {t} has no contact");
                let n = tri.scaled_normal().normalize();
                let off_plane = (p.point_b - tri.a()).dot(&n).abs();
                assert!(off_plane <= 1e-4, "case {case}: point {p:?} is {off_plane} off triangle {t}'s plane");
                assert_eq!(mesh.material_of_point_id(p.id), Some(materials[t as usize]));
            }
        }
    }
    assert!((cases * 3 / 10..=cases * 7 / 10).contains(&touching), "{touching} of {cases} cases touch");
    assert!(points > cases, "{points} points");

    // A heightfield collider: its manifolds are its mesh's.
    let (rows, cols) = (13, 13);
    let heights = DMatrix::from_fn(rows, cols, |_, _| uniform(&mut rng, 0.0, 0.6));
    let cell_materials = random_materials(&mut rng, 2 * (rows - 1) * (cols - 1));
    let field = HeightField::try_new(heights, Vector::new(6.0, 1.0, 6.0)).unwrap();
    let field = Arc::new(field.with_materials(cell_materials.clone()).unwrap());
    let mut scene = Scene::new();
    let h = scene.insert(ColliderDesc::new(ColliderShape::HeightField(field.clone()), Isometry::identity())).unwrap();
    let placed = scene.get(h).unwrap().world_shape().clone();
    let mut found = 0;
    for _ in 0..1_000 {
        let WorldShape::Sphere(s) = common::shape_over_patch(&mut rng, 2.0) else { continue };
        let s = WorldShape::Sphere(Sphere::new(s.center() - Vector::new(3.0, 0.0, 3.0), s.radius()));
        let mut out = Vec::new();
        contact_manifolds(&s, &placed, 0.0, &mut out);
        for p in out.iter().flat_map(|m| m.points()) {
            found += 1;
            let t = field.mesh().triangle_of_point_id(p.id).unwrap() as usize;
            // No holes: mesh triangle `t` is half `t % 2` of cell `t / 2`.
            let (i, j) = ((t / 2) / (cols - 1), (t / 2) % (cols - 1));
            assert_eq!(field.mesh().material_of_point_id(p.id), Some(field.material(i, j, t % 2)));
            assert_eq!(field.material(i, j, t % 2), cell_materials[t]);
            let tri = field.mesh().triangle(t as u32);
            let d = (closest_point_triangle(&p.point_b, &tri) - p.point_b).dot(&tri.scaled_normal().normalize());
            assert!(d.abs() <= 1e-4, "point {p:?} is {d} off triangle {t}'s plane");
        }
    }
    assert!(found > 50, "{found} heightfield points");
}

/// Material lists of the wrong length are typed errors; nothing panics; a
/// mesh without materials reports 0 and no list; ids that name no triangle
/// give `None`.
#[test]
fn bad_material_lists_are_typed_errors() {
    let p = |x, z| Point::new(x, 0.0, z);
    let mesh =
        TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)], vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    assert_eq!(mesh.materials(), None);
    assert_eq!((mesh.material(0), mesh.material(1)), (0, 0));
    for got in [0, 1, 3, 100] {
        assert_eq!(
            mesh.clone().with_materials(vec![1; got]).err(),
            Some(MeshError::MaterialCount { expected: 2, got })
        );
    }
    let e = mesh.clone().with_materials(vec![]).unwrap_err();
    assert!(e.to_string().contains("0 material ids"), "{e}");
    assert_eq!(mesh.triangle_of_point_id(1 << 11), Some(1));
    assert_eq!(mesh.triangle_of_point_id(2 << 11), None);
    assert_eq!(mesh.material_of_point_id(u32::MAX), None);
    assert_eq!(mesh.material_of_point_id(5), Some(0));

    let holes = DMatrix::from_fn(3, 4, |i, j| i == j);
    let field = HeightField::try_with_holes(DMatrix::zeros(4, 5), Vector::repeat(1.0), &holes).unwrap();
    assert_eq!(field.material(2, 3, 1), 0);
    for got in [0, 12, 23, 25] {
        assert_eq!(
            field.clone().with_materials(vec![7; got]).err(),
            Some(HeightFieldError::MaterialCount { expected: 24, got })
        );
    }
    // Holes keep their (unused) slots: 24 ids for 12 cells, 9 of them solid.
    // The field's mesh is shared here: the original keeps its own, bare.
    let shared = field.clone();
    let field = field.with_materials((0..24).collect()).unwrap();
    assert_eq!((shared.mesh().materials(), shared.material(0, 1, 1)), (None, 0));
    assert_eq!(field.mesh().indices().len(), 18);
    assert_eq!(field.mesh().materials().unwrap()[..4], [2, 3, 4, 5]);
    assert_eq!(field.to_trimesh().unwrap().materials(), field.mesh().materials());
}
