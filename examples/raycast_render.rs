//! Renders an OBJ mesh with proxima's ray caster: primary rays for visibility,
//! shadow rays (any-hit, stopping at the first occluder) for the light.
//!
//! ```text
//! cargo run --release --example raycast_render -- [mesh.obj] [--out PATH] [--size W H]
//! ```
//! Default mesh: `assets/meshes/spot.obj` (public domain, see its README).

#[path = "support/render.rs"]
mod render;

use std::sync::Arc;
use std::time::Instant;

use proxima::narrowphase::{Isometry, Point, Real, Vector};
use proxima::scene::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut path = format!("{}/assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"));
    let mut out = std::path::PathBuf::from("target/raycast_render.png");
    let (mut width, mut height) = (800usize, 600usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().ok_or("--out needs a path")?.into(),
            "--size" => {
                width = args.next().ok_or("--size needs W H")?.parse()?;
                height = args.next().ok_or("--size needs W H")?.parse()?;
            }
            other => path = other.to_string(),
        }
    }

    let t = Instant::now();
    let mesh = Arc::new(TriMesh::from_obj(&path)?);
    println!("{path}: {} triangles, BVH built in {:.1} ms", mesh.triangles().len(), t.elapsed().as_secs_f64() * 1e3);
    let bounds = *mesh.local_aabb();
    let radius = bounds.half_extents().norm();
    let centre = bounds.center();

    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(mesh), Isometry::identity()).fixed())?;
    // A ground slab just under the mesh, to catch its shadow.
    let ground = Vector::new(radius * 4.0, radius * 0.01, radius * 4.0);
    let ground_at = Isometry::translation(centre.x, bounds.min().y - ground.y, centre.z);
    scene.insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: ground }, ground_at).fixed())?;

    let eye = centre + Vector::new(0.55, 0.35, 1.0).normalize() * (2.6 * radius);
    let camera = render::Camera::look_at(eye, centre, 45.0);
    let rays = camera.rays(width, height, Real::INFINITY);

    let t = Instant::now();
    let hits = scene.cast_rays(&rays, &QueryFilter::default());
    let primary = t.elapsed().as_secs_f64();
    let light = Vector::new(-0.5, 1.0, 0.4).normalize();
    let t = Instant::now();
    let rgb = render::shade(&scene, &rays, &hits, &light, |h| {
        if h.collider.index() == 0 {
            [0.9, 0.85, 0.8]
        } else {
            [0.45, 0.5, 0.45]
        }
    });
    let shading = t.elapsed().as_secs_f64();
    let shadow_rays = hits.iter().flatten().count();

    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    render::write_png(&out, width, height, &rgb)?;
    println!(
        "primary: {} rays in {:.1} ms ({:.2} Mrays/s, all threads); shading with {} shadow rays: {:.1} ms ({:.2} Mrays/s, all threads)",
        rays.len(),
        primary * 1e3,
        rays.len() as f64 / primary / 1e6,
        shadow_rays,
        shading * 1e3,
        shadow_rays as f64 / shading / 1e6
    );
    println!("picture: {}", out.display());
    let _ = Point::origin();
    Ok(())
}
