//! A convex hull placed by a pose as a support map, and random ones: the
//! shape-cast workloads of `benches/casts.rs` and `examples/profile_casts.rs`.

use proxima::narrowphase::{ConvexHull, Isometry, PlacedHull, Point, SupportMap, Vector};
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{Rng, SmallRng};

/// A convex hull placed by a pose, as a support map: narrowphase's
/// `PlacedHull` (the hull's support point along the direction turned into
/// its frame, placed back). The hull is leaked: a workload's hulls live as
/// long as the process.
pub struct PosedHull {
    pub hull: &'static ConvexHull,
    pub pose: Isometry,
    placed: PlacedHull<'static>,
}

impl SupportMap for PosedHull {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        self.placed.support(dir)
    }
    #[inline]
    fn core_center(&self) -> Point {
        self.placed.core_center()
    }
}

/// A hull of 8-20 points within a box of half-size 0.1..1, placed at a
/// random pose of `p`.
pub fn placed_hull(rng: &mut SmallRng, p: &Placement) -> PosedHull {
    let size = gen::uniform(rng, 0.1, 1.0);
    loop {
        let n = rng.random_range(8..20);
        let points: Vec<Point> =
            (0..n).map(|_| Point::from(Vector::from_fn(|_, _| gen::uniform(rng, -size, size)))).collect();
        if let Ok(hull) = ConvexHull::try_new(&points) {
            let pose = Isometry::from_parts(gen::point(rng, p).coords.into(), gen::rotation(rng));
            let hull: &'static ConvexHull = Box::leak(Box::new(hull));
            return PosedHull { hull, pose, placed: PlacedHull::new(hull, &pose) };
        }
    }
}
