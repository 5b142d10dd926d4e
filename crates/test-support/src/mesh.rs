//! Mesh workloads for the ray benches and profilers: a generated mesh and a
//! camera's rays.

use proxima_narrowphase::{Aabb, Point, Ray, Real, Vector};

/// A bumpy sphere of `2 * lat * lon` triangles (a UV sphere whose radius
/// waves with latitude and longitude): a mesh unlike the scanned ones, with
/// long thin triangles near the poles and no flat regions. Returns the
/// vertices and the index triples.
pub fn bumpy_sphere(lat: usize, lon: usize) -> (Vec<Point>, Vec<[u32; 3]>) {
    let mut vertices = Vec::with_capacity((lat + 1) * lon);
    for i in 0..=lat {
        let theta = core::f32::consts::PI * i as Real / lat as Real;
        for j in 0..lon {
            let phi = core::f32::consts::TAU * j as Real / lon as Real;
            let r = 1.0 + 0.15 * (7.0 * theta).sin() * (5.0 * phi).cos() + 0.04 * (23.0 * theta + 3.0 * phi).sin();
            vertices.push(Point::new(r * theta.sin() * phi.cos(), r * theta.cos(), r * theta.sin() * phi.sin()));
        }
    }
    let at = |i: usize, j: usize| (i * lon + j % lon) as u32;
    let mut indices = Vec::with_capacity(2 * lat * lon);
    for i in 0..lat {
        for j in 0..lon {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (vertices, indices)
}

/// A `res x res` pinhole camera looking at the centre of `bounds` from
/// 1.6 times its half-diagonal away, with a view half-width of `half` (tan
/// of the half angle: 0.45 leaves a margin around a compact mesh, 0.15
/// fills the view with it). The pixels come in 4 x 2 tiles, row by row of
/// tiles, so consecutive rays are neighbours as a renderer hands them to a
/// packet. `res` must be a multiple of 4.
pub fn camera_rays(bounds: &Aabb, res: usize, half: Real) -> Vec<Ray> {
    assert!(res.is_multiple_of(4), "res {res} is not a multiple of 4");
    let c = bounds.center();
    let radius = bounds.half_extents().norm();
    let eye = c + Vector::new(0.3, 0.2, 1.0).normalize() * (1.6 * radius);
    let forward = (c - eye).normalize();
    let right = forward.cross(&Vector::y()).normalize();
    let up = right.cross(&forward);
    (0..res * res)
        .map(|k| {
            let (tile, within) = (k / 8, k % 8);
            let (i, j) = ((tile % (res / 4)) * 4 + within % 4, (tile / (res / 4)) * 2 + within / 4);
            let u = (2.0 * (i as Real + 0.5) / res as Real - 1.0) * half;
            let v = (1.0 - 2.0 * (j as Real + 0.5) / res as Real) * half;
            Ray::new(eye, forward + right * u + up * v, Real::INFINITY)
        })
        .collect()
}
