//! Mesh builds against parry3d's, interleaved, one thread (and proxima's on
//! all threads as its own row).
//!
//! ```text
//! cargo run --release --example profile_mesh_build -- [mesh.obj ...] [--passes N] [--only TEXT]
//! ```
//! `--only TEXT` times only the variants whose name contains TEXT (for `perf record`).
//! Without a mesh: the two shipped meshes and a generated 100k-triangle bumpy
//! sphere. Each variant builds the mesh from the same vertex and index
//! arrays (their copies included, as parry3d's constructor takes them by
//! value too), once per pass, in turn; the fastest pass is kept.

#[path = "support/meshes.rs"]
mod meshes_support;

use std::time::Instant;

use proxima::scene::{MeshBuild, TriMesh};
use proxima_test_support::convert;

/// One timed build: it returns the built mesh's memory, so that it is used.
type Build<'a> = Box<dyn FnMut() -> usize + 'a>;

fn main() {
    let mut paths = Vec::new();
    let mut passes = 9;
    let mut only = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--passes" => passes = args.next().and_then(|v| v.parse().ok()).expect("--passes N"),
            "--only" => only = args.next().expect("--only TEXT"),
            path => paths.push(path.to_string()),
        }
    }
    let inputs = meshes_support::profile_meshes(&paths);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, mesh) in inputs {
        let (vertices, indices) = (mesh.vertices().to_vec(), mesh.indices().to_vec());
        let pvertices: Vec<_> = vertices.iter().map(convert::pt).collect();
        let build = |b: MeshBuild| TriMesh::new_with(vertices.clone(), indices.clone(), b).unwrap();
        let mut variants: Vec<(&str, Build)> = vec![
            ("FastBuild", Box::new(|| one.install(|| build(MeshBuild::FastBuild)).memory_bytes())),
            ("FastRays", Box::new(|| one.install(|| build(MeshBuild::FastRays)).memory_bytes())),
            ("FastRays, all threads", Box::new(|| build(MeshBuild::FastRays).memory_bytes())),
            (
                "parry3d",
                Box::new(|| {
                    parry3d::shape::TriMesh::new(pvertices.clone(), indices.clone()).unwrap().total_memory_size()
                }),
            ),
        ];
        let mut best = vec![f64::INFINITY; variants.len()];
        for _ in 0..passes {
            for ((_, run), b) in variants.iter_mut().zip(&mut best).filter(|((v, _), _)| v.contains(only.as_str())) {
                let t = Instant::now();
                std::hint::black_box(run());
                *b = b.min(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        println!("{name}: {} triangles; ms per build, fastest of {passes} passes", indices.len());
        let parry = best[3];
        for ((v, _), b) in variants.iter().zip(&best) {
            println!("  {v:<24} {b:>8.2} ms  {:>5.2}x parry3d", parry / b);
        }
    }
}
