//! Random shapes, seeded. Positions are uniform in a cube of side `2 * spread`
//! around `origin`, sizes uniform in `[size_lo, size_hi)`.

use proxima_narrowphase::{Aabb, Capsule, Obb, Point, Real, Rotation, Sphere, Triangle, Vector};
use rand::Rng;

/// Where and how large random shapes are.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Centre of the region.
    pub origin: Point,
    /// Half the side of the cube that centres are drawn from.
    pub spread: Real,
    /// Smallest size (radius or half-extent).
    pub size_lo: Real,
    /// Largest size (exclusive).
    pub size_hi: Real,
}

impl Placement {
    /// Centres in `[-spread, spread]^3`, sizes in `[size_lo, size_hi)`.
    pub fn new(spread: Real, size_lo: Real, size_hi: Real) -> Self {
        Self { origin: Point::origin(), spread, size_lo, size_hi }
    }

    /// The same placement moved to `origin`.
    pub fn at(self, origin: Point) -> Self {
        Self { origin, ..self }
    }
}

/// A uniform random value in `[lo, hi)` (returns `lo` when `lo >= hi`).
pub fn uniform(rng: &mut impl Rng, lo: Real, hi: Real) -> Real {
    if lo >= hi {
        lo
    } else {
        rng.random_range(lo..hi)
    }
}

/// A point uniform in the placement's cube.
pub fn point(rng: &mut impl Rng, p: &Placement) -> Point {
    p.origin
        + Vector::new(
            uniform(rng, -p.spread, p.spread),
            uniform(rng, -p.spread, p.spread),
            uniform(rng, -p.spread, p.spread),
        )
}

/// A direction uniform on the unit sphere.
pub fn unit_vector(rng: &mut impl Rng) -> Vector {
    loop {
        let v = Vector::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0));
        let n2 = v.norm_squared();
        if n2 > 1e-4 && n2 <= 1.0 {
            return v / n2.sqrt();
        }
    }
}

/// A rotation uniform over SO(3) (normalised 4D Gaussian-free: rejection in the 4-ball).
pub fn rotation(rng: &mut impl Rng) -> Rotation {
    loop {
        let q = nalgebra::Quaternion::new(
            uniform(rng, -1.0, 1.0),
            uniform(rng, -1.0, 1.0),
            uniform(rng, -1.0, 1.0),
            uniform(rng, -1.0, 1.0),
        );
        let n2 = q.norm_squared();
        if n2 > 1e-4 && n2 <= 1.0 {
            return Rotation::from_quaternion(q);
        }
    }
}

/// Half-extents with each component in the size range.
pub fn half_extents(rng: &mut impl Rng, p: &Placement) -> Vector {
    Vector::new(
        uniform(rng, p.size_lo, p.size_hi),
        uniform(rng, p.size_lo, p.size_hi),
        uniform(rng, p.size_lo, p.size_hi),
    )
}

/// A random sphere.
pub fn sphere(rng: &mut impl Rng, p: &Placement) -> Sphere {
    let c = point(rng, p);
    Sphere::new(c, uniform(rng, p.size_lo, p.size_hi))
}

/// A random axis-aligned box.
pub fn aabb(rng: &mut impl Rng, p: &Placement) -> Aabb {
    let c = point(rng, p);
    Aabb::try_from_center(c, half_extents(rng, p)).expect("valid box")
}

/// A random oriented box.
pub fn obb(rng: &mut impl Rng, p: &Placement) -> Obb {
    let c = point(rng, p);
    let h = half_extents(rng, p);
    Obb::new(c, rotation(rng), h)
}

/// A random capsule whose segment has half-length in the size range.
pub fn capsule(rng: &mut impl Rng, p: &Placement) -> Capsule {
    let c = point(rng, p);
    let half = unit_vector(rng) * uniform(rng, p.size_lo, p.size_hi);
    Capsule::new(c - half, c + half, uniform(rng, p.size_lo, p.size_hi))
}

/// A random triangle: three vertices within the size range of a centre.
pub fn triangle(rng: &mut impl Rng, p: &Placement) -> Triangle {
    let c = point(rng, p);
    let mut v = || c + unit_vector(rng) * uniform(rng, p.size_lo, p.size_hi);
    Triangle::new(v(), v(), v())
}
