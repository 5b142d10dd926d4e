//! The meshes the profiling examples run on: the OBJ files named on the
//! command line, or without any, the two shipped meshes and a generated
//! 100k-triangle bumpy sphere (the meshes of `benches/scene.rs`).

use proxima::scene::TriMesh;
use proxima_test_support::mesh::bumpy_sphere;

/// `(name, mesh)` for each path, or the default meshes when `paths` is empty.
pub fn profile_meshes(paths: &[String]) -> Vec<(String, TriMesh)> {
    if !paths.is_empty() {
        return paths
            .iter()
            .map(|p| (p.clone(), TriMesh::from_obj(p).unwrap_or_else(|e| panic!("{p}: {e:?}"))))
            .collect();
    }
    let obj = |name: &str| {
        let path = format!("{}/assets/meshes/{name}.obj", env!("CARGO_MANIFEST_DIR"));
        (name.to_string(), TriMesh::from_obj(path).unwrap())
    };
    let (v, i) = bumpy_sphere(200, 250);
    vec![obj("spot"), obj("nefertiti-lowres"), ("bumpy-sphere".to_string(), TriMesh::new(v, i).unwrap())]
}
