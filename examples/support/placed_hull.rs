//! A convex hull placed by a pose as a support map, and random ones: the
//! shape-cast workloads of `benches/casts.rs` and `examples/profile_casts.rs`.

use proxima::narrowphase::{ConvexHull, Isometry, Point, Real, SupportMap, Vector};
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{Rng, SmallRng};

/// A convex hull placed by a pose, as a support map: the hull's support
/// point along the direction turned into its frame, placed back.
pub struct PlacedHull {
    pub hull: ConvexHull,
    pub pose: Isometry,
    /// The pose's rotation as a matrix, as the scene's placed hulls keep it.
    rotation: proxima::nalgebra::Matrix3<Real>,
}

impl SupportMap for PlacedHull {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        let local = self.rotation.tr_mul(dir);
        Point::from(self.rotation * self.hull.support_point(&local).coords + self.pose.translation.vector)
    }
    #[inline]
    fn core_center(&self) -> Point {
        self.pose.transform_point(&self.hull.aabb().center())
    }
}

/// A hull of 8-20 points within a box of half-size 0.1..1, placed at a
/// random pose of `p`.
pub fn placed_hull(rng: &mut SmallRng, p: &Placement) -> PlacedHull {
    let size = gen::uniform(rng, 0.1, 1.0);
    loop {
        let n = rng.random_range(8..20);
        let points: Vec<Point> =
            (0..n).map(|_| Point::from(Vector::from_fn(|_, _| gen::uniform(rng, -size, size)))).collect();
        if let Ok(hull) = ConvexHull::try_new(&points) {
            let pose = Isometry::from_parts(gen::point(rng, p).coords.into(), gen::rotation(rng));
            return PlacedHull { hull, pose, rotation: pose.rotation.to_rotation_matrix().into_inner() };
        }
    }
}
