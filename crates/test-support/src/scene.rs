//! The broadphase scenes of the benchmarks and tests, seeded.

use crate::gen::{self, uniform};
use proxima_narrowphase::{Aabb, Point, Ray, Real, Vector};
use rand::Rng;

/// The side of the cube that holds `n` boxes: `100 * cbrt(n / 1000)` for the
/// sparse scene, `cbrt(5 n)` for the dense one (about one pair per box).
pub fn scene_side(n: usize, dense: bool) -> Real {
    if dense {
        (5.0 * n as f64).cbrt() as Real
    } else {
        (100.0 * (n as f64 / 1000.0).cbrt()) as Real
    }
}

/// `n` boxes, centres uniform in `[0, side)^3`, half-extents uniform in `[0.1, 1.0)`.
pub fn boxes(n: usize, dense: bool, seed: u64) -> Vec<Aabb> {
    let mut rng = crate::rng(seed);
    let side = scene_side(n, dense);
    (0..n)
        .map(|_| {
            let c =
                Point::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
            let h = Vector::new(uniform(&mut rng, 0.1, 1.0), uniform(&mut rng, 0.1, 1.0), uniform(&mut rng, 0.1, 1.0));
            Aabb::try_from_center(c, h).expect("valid box")
        })
        .collect()
}

/// `count` rays through the sparse scene of `n` boxes (the box-scene ray
/// benches' workload): origins uniform in its cube, uniform directions,
/// `max_toi` the cube's diagonal.
pub fn rays(n: usize, count: usize, seed: u64) -> Vec<Ray> {
    let side = scene_side(n, false);
    let mut rng = crate::rng(seed);
    (0..count)
        .map(|_| {
            let o =
                Point::new(uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side), uniform(&mut rng, 0.0, side));
            Ray::new(o, gen::unit_vector(&mut rng), side * 3.0f32.sqrt())
        })
        .collect()
}

/// One frame of motion: about `fraction` of the boxes move by `U[-step, step)^3`.
/// Returns the indices moved and their displacements.
pub fn moves(n: usize, fraction: f64, step: Real, rng: &mut impl Rng) -> Vec<(usize, Vector)> {
    let mut out = Vec::new();
    for i in 0..n {
        if rng.random_bool(fraction) {
            let d = Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step));
            out.push((i, d));
        }
    }
    out
}

/// Translates a box by `d` (stays valid for finite `d`).
pub fn translated(aabb: &Aabb, d: &Vector) -> Aabb {
    Aabb::try_new(aabb.min() + d, aabb.max() + d).expect("finite translation")
}
