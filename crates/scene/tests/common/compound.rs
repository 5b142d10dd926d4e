//! Compound builders shared by the compound tests.

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{ConvexHull, Isometry, Point, Real, Vector};
use proxima_scene::{ColliderShape, Compound};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// A table: child 0 the top (half-extents 1 x 0.1 x 1, centre at y = 1),
/// children 1 to 4 legs (half-extents 0.1 x 0.45 x 0.1, from y = 0 to 0.9),
/// leg 3 reaching 0.05 lower than the others.
pub fn table() -> Arc<Compound> {
    let top =
        (Isometry::translation(0.0, 1.0, 0.0), ColliderShape::Cuboid { half_extents: Vector::new(1.0, 0.1, 1.0) });
    let mut children = vec![top];
    for (k, (x, z)) in [(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)].into_iter().enumerate() {
        let long = if k == 2 { 0.025 } else { 0.0 };
        let leg = ColliderShape::Cuboid { half_extents: Vector::new(0.1, 0.45 + long, 0.1) };
        children.push((Isometry::translation(x, 0.45 - long, z), leg));
    }
    Arc::new(Compound::try_new(children).unwrap())
}

/// A random pose: translation in `[-spread, spread]^3`, uniform rotation.
pub fn pose_near_origin(rng: &mut impl Rng, spread: Real) -> Isometry {
    let t = Vector::new(uniform(rng, -spread, spread), uniform(rng, -spread, spread), uniform(rng, -spread, spread));
    Isometry::from_parts(Translation3::from(t), gen::rotation(rng))
}

/// A random convex shape of size about `size`: a sphere, a box, a capsule
/// or the hull of 5 to 15 points in `[-size, size]^3`.
pub fn convex_shape(rng: &mut impl Rng, size: Real) -> ColliderShape {
    let s = |rng: &mut _| uniform(rng, 0.2 * size, size);
    match rng.random_range(0..4) {
        0 => ColliderShape::Sphere { radius: s(rng) },
        1 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        2 => ColliderShape::Capsule { half_height: s(rng), radius: 0.5 * s(rng) },
        _ => loop {
            let points: Vec<Point> = (0..rng.random_range(5..16))
                .map(|_| Point::new(uniform(rng, -size, size), uniform(rng, -size, size), uniform(rng, -size, size)))
                .collect();
            if let Ok(hull) = ConvexHull::try_new(&points) {
                break ColliderShape::ConvexHull(Arc::new(hull));
            }
        },
    }
}
