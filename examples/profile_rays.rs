//! Mesh rays against parry3d on any mesh, one thread, interleaved timings.
//!
//! ```text
//! cargo run --release --example profile_rays -- [mesh.obj ...] [--fill] [--res N] [--passes N] [--only TEXT]
//! ```
//! Without a mesh: the two shipped meshes and a generated 100k-triangle bumpy
//! sphere. For each mesh: camera rays (closest hit, 4 x 2 tiles, `--fill`
//! narrows the view until the mesh fills it) and shadow rays from the hits
//! towards a light (any hit), through the bare `TriMesh` (both builds), a
//! one-collider `Scene` (single rays and the batches, on the calling thread)
//! and parry3d's `TriMesh`. Every variant runs once per pass, in turn, and
//! its fastest pass is kept: on a shared machine the interleaving gives every
//! variant the same chances, so the ratios hold even when absolute times
//! swing. Each batch's answers are checked against the single calls first.

#[path = "support/meshes.rs"]
mod meshes_support;

use std::sync::Arc;
use std::time::Instant;

use parry3d::query::{Ray as PRay, RayCast};
use proxima::narrowphase::{offset_ray_origin, Isometry, Ray, Real, Vector};
use proxima::scene::*;
use proxima_test_support::{convert, mesh as meshes};

/// One timed variant: its name and the rays it casts per pass.
struct Variant<'a> {
    name: &'static str,
    rays: usize,
    run: Box<dyn FnMut() -> usize + 'a>,
}

fn main() {
    let mut paths = Vec::new();
    let (mut fill, mut res, mut passes) = (false, 256, 15);
    // `--only TEXT`: time only the variants whose name contains TEXT (for
    // `perf record`; parry3d's rows then read as not run).
    let mut only = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--fill" => fill = true,
            "--res" => res = args.next().and_then(|v| v.parse().ok()).expect("--res N"),
            "--passes" => passes = args.next().and_then(|v| v.parse().ok()).expect("--passes N"),
            "--only" => only = args.next().expect("--only TEXT"),
            path => paths.push(path.to_string()),
        }
    }
    let inputs = meshes_support::profile_meshes(&paths);
    for (name, mesh) in inputs {
        profile(&name, mesh, if fill { 0.15 } else { 0.45 }, res, passes, &only);
    }
}

fn profile(name: &str, fast: TriMesh, half: Real, res: usize, passes: usize, only: &str) {
    let sah =
        Arc::new(TriMesh::new_with(fast.vertices().to_vec(), fast.indices().to_vec(), MeshBuild::FastRays).unwrap());
    let theirs =
        parry3d::shape::TriMesh::new(fast.vertices().iter().map(convert::pt).collect(), fast.indices().to_vec())
            .unwrap();
    let pose = parry3d::math::Pose::identity();
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(&sah)), Isometry::identity()).fixed()).unwrap();
    let all = QueryFilter::default();

    let camera = meshes::camera_rays(fast.local_aabb(), res, half);
    let light = Vector::new(-0.5, 1.0, 0.4).normalize();
    let shadow: Vec<Ray> = camera
        .iter()
        .filter_map(|r| fast.cast_ray_closest(r).map(|h| (r, h.hit)))
        .map(|(r, h)| Ray::new(offset_ray_origin(&r.point_at(h.toi), &h.normal), light, Real::INFINITY))
        .collect();
    let to_parry = |rays: &[Ray]| -> Vec<PRay> {
        rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect()
    };
    let (pcamera, pshadow) = (to_parry(&camera), to_parry(&shadow));

    // The batches answer what the single calls do.
    let mut out = Vec::new();
    sah.cast_rays_into(&camera, &mut out);
    assert!(camera.iter().zip(&out).all(|(r, h)| sah.cast_ray_closest(r) == *h), "{name}: TriMesh::cast_rays_into");
    let batch = scene.cast_rays(&camera, &all);
    assert!(camera.iter().zip(&batch).all(|(r, h)| scene.cast_ray_closest(r, &all) == *h), "{name}: cast_rays");
    let blocked = scene.occluded(&shadow, &all);
    assert!(shadow.iter().zip(&blocked).all(|(r, &b)| scene.cast_ray_any(r, &all).is_some() == b), "{name}");

    let (nc, ns) = (camera.len(), shadow.len());
    let count = |v: &[Option<MeshRayHit>]| v.iter().flatten().count();
    let mut variants = vec![
        Variant { name: "camera: TriMesh FastBuild", rays: nc, run: Box::new(|| cast(&fast, &camera, false)) },
        Variant { name: "camera: TriMesh FastRays", rays: nc, run: Box::new(|| cast(&sah, &camera, false)) },
        Variant {
            name: "camera: Scene (FastRays)",
            rays: nc,
            run: Box::new(|| camera.iter().filter(|r| scene.cast_ray_closest(r, &all).is_some()).count()),
        },
        Variant {
            name: "camera: TriMesh::cast_rays_into (packets)",
            rays: nc,
            run: Box::new(|| {
                let mut out = Vec::new();
                sah.cast_rays_into(&camera, &mut out);
                count(&out)
            }),
        },
        Variant {
            name: "camera: Scene::cast_rays (packets)",
            rays: nc,
            run: Box::new(|| scene.cast_rays(&camera, &all).iter().flatten().count()),
        },
        Variant {
            name: "camera: parry3d",
            rays: nc,
            run: Box::new(|| pcamera.iter().filter(|r| theirs.cast_ray(&pose, r, Real::MAX, true).is_some()).count()),
        },
        Variant { name: "shadow: TriMesh FastBuild", rays: ns, run: Box::new(|| cast(&fast, &shadow, true)) },
        Variant { name: "shadow: TriMesh FastRays", rays: ns, run: Box::new(|| cast(&sah, &shadow, true)) },
        Variant {
            name: "shadow: Scene (FastRays)",
            rays: ns,
            run: Box::new(|| shadow.iter().filter(|r| scene.cast_ray_any(r, &all).is_some()).count()),
        },
        Variant {
            name: "shadow: Scene::occluded (packets)",
            rays: ns,
            run: Box::new(|| scene.occluded(&shadow, &all).iter().filter(|&&b| b).count()),
        },
        Variant {
            name: "shadow: parry3d intersects_ray",
            rays: ns,
            run: Box::new(|| pshadow.iter().filter(|r| theirs.intersects_ray(&pose, r, Real::MAX)).count()),
        },
    ];
    let mut best = vec![f64::INFINITY; variants.len()];
    for _ in 0..passes {
        for (v, b) in variants.iter_mut().zip(&mut best).filter(|(v, _)| v.name.contains(only)) {
            let t = Instant::now();
            std::hint::black_box((v.run)());
            *b = b.min(t.elapsed().as_secs_f64() * 1e9 / v.rays as f64);
        }
    }
    let hits = camera.iter().filter(|r| fast.cast_ray_closest(r).is_some()).count();
    println!(
        "{name}: {} triangles, {nc} camera rays ({:.0}% hit), {ns} shadow rays; ns per ray, fastest of {passes} passes",
        fast.indices().len(),
        100.0 * hits as f64 / nc as f64
    );
    let parry_of = |v: &Variant| if v.name.starts_with("camera") { best[5] } else { best[10] };
    for (v, b) in variants.iter().zip(&best) {
        println!("  {:<40} {:>7.1} ns  {:>5.2}x parry3d", v.name, b, parry_of(v) / b);
    }
}

/// Casts every ray on `mesh`; the number of hits.
fn cast(mesh: &TriMesh, rays: &[Ray], any: bool) -> usize {
    rays.iter().filter(|r| if any { mesh.cast_ray_any(r) } else { mesh.cast_ray_closest(r) }.is_some()).count()
}
