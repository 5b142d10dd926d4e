//! Triangle-mesh queries on the shipped public-domain meshes against parry3d
//! 0.31's `TriMesh`, on camera rays (primary), shadow-style any-hit rays, and
//! sphere queries.
// Every test here loads a shipped OBJ mesh.
#![cfg(feature = "obj")]

use parry3d::query::{Ray as PRay, RayCast};
use parry3d::shape::TriMesh as PTriMesh;
use proxima_narrowphase::{Ray, Real, Vector};
use proxima_scene::{MeshRayHit, TriMesh};
use proxima_test_support::{convert, Rng};

fn mesh_path(name: &str) -> String {
    format!("{}/../../assets/meshes/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn parry_twin(mesh: &TriMesh) -> PTriMesh {
    let v = mesh.vertices().iter().map(convert::pt).collect();
    PTriMesh::new(v, mesh.indices().to_vec()).expect("valid mesh")
}

/// Pinhole camera rays: `res x res` pixels looking at the mesh's box centre
/// from 2.2 box radii away, so the mesh fills the view.
fn camera_rays(mesh: &TriMesh, res: usize) -> Vec<Ray> {
    let b = mesh.local_aabb();
    let c = b.center();
    let radius = b.half_extents().norm();
    let eye = c + Vector::new(0.3, 0.2, 1.0).normalize() * (2.2 * radius);
    let forward = (c - eye).normalize();
    let right = forward.cross(&Vector::y()).normalize();
    let up = right.cross(&forward);
    let half = (radius / (2.2 * radius)) * 1.05;
    let mut rays = Vec::with_capacity(res * res);
    for j in 0..res {
        for i in 0..res {
            let u = (2.0 * (i as Real + 0.5) / res as Real - 1.0) * half;
            let v = (1.0 - 2.0 * (j as Real + 0.5) / res as Real) * half;
            rays.push(Ray::new(eye, forward + right * u + up * v, Real::INFINITY));
        }
    }
    rays
}

fn compare_camera_rays(name: &str, res: usize) {
    let mesh = TriMesh::from_obj(mesh_path(name)).expect("mesh loads");
    let theirs = parry_twin(&mesh);
    let pose = parry3d::math::Pose::identity();
    let (mut hits, mut disagree) = (0usize, 0usize);
    let rays = camera_rays(&mesh, res);
    for (i, ray) in rays.iter().enumerate() {
        let pray = PRay::new(convert::pt(ray.origin()), convert::vec(ray.dir()));
        let t = theirs.cast_ray(&pose, &pray, Real::MAX, true);
        let o = mesh.cast_ray_closest(ray);
        match (o, t) {
            (Some(MeshRayHit { hit, .. }), Some(t)) => {
                hits += 1;
                // Both intersect the same triangles in f32; toi agrees to a
                // few ulps of the distance (~3 units here): 1e-5 relative.
                assert!((hit.toi - t).abs() <= 1e-5 * t.max(1.0), "{name} ray {i}: toi {} vs parry {t}", hit.toi);
            }
            (None, None) => {}
            // Rays through a shared edge or vertex: one side's edge rule
            // accepts, the other's rejects. Counted and bounded below.
            _ => disagree += 1,
        }
    }
    let frac = hits as f64 / rays.len() as f64;
    eprintln!("{name}: {} rays, {frac:.3} hit, {disagree} disagreements", rays.len());
    assert!(frac > 0.1, "the camera misses the mesh: {frac}");
    assert!(disagree * 10_000 <= rays.len(), "{name}: {disagree} hit/miss disagreements");
}

#[test]
fn spot_camera_rays_match_parry() {
    compare_camera_rays("spot.obj", 512);
}

#[test]
fn nefertiti_camera_rays_match_parry() {
    compare_camera_rays("nefertiti-lowres.obj", 512);
}

#[test]
fn any_hit_agrees_with_closest_hit_on_mesh() {
    let mesh = TriMesh::from_obj(mesh_path("spot.obj")).unwrap();
    for (i, ray) in camera_rays(&mesh, 256).iter().enumerate() {
        let closest = mesh.cast_ray_closest(ray);
        let any = mesh.cast_ray_any(ray);
        assert_eq!(closest.is_some(), any.is_some(), "ray {i}");
    }
}

#[test]
fn sphere_mesh_overlap_matches_parry() {
    let mesh = TriMesh::from_obj(mesh_path("spot.obj")).unwrap();
    let theirs = parry_twin(&mesh);
    let mut rng = proxima_test_support::rng(0x5B07);
    let (mut hits, mut band) = (0, 0);
    for i in 0..20_000 {
        // Centres near the surface: a random vertex pushed off by up to 0.1
        // (the mesh is ~2 units across), radii U[0.01, 0.1).
        let v = mesh.vertices()[rng.random_range(0..mesh.vertices().len())];
        let c = v + proxima_test_support::gen::unit_vector(&mut rng)
            * proxima_test_support::gen::uniform(&mut rng, 0.0, 0.1);
        let r = proxima_test_support::gen::uniform(&mut rng, 0.01, 0.1);
        let sphere = proxima_narrowphase::Sphere::new(c, r);
        let ours = mesh.intersects_sphere(&sphere);
        // parry's distance to the surface: project the centre (solid = false).
        use parry3d::query::PointQuery;
        let proj = theirs.project_point(&parry3d::math::Pose::identity(), convert::pt(&c), false);
        let dist = (convert::from_pt(proj.point) - c).norm();
        let d = dist - r;
        // Band: f32 projection onto triangles ~2 units across, 1e-5.
        if d.abs() < 1e-5 {
            band += 1;
            continue;
        }
        assert_eq!(ours, d <= 0.0, "sphere {i}: parry distance {d}");
        hits += ours as usize;
    }
    assert!(hits > 2_000 && hits < 18_000, "{hits} overlaps");
    assert!(band < 20, "{band} in band");
}
