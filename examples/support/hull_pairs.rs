//! Random hulls and hull pairs for both libraries, and a placed hull as a
//! support map: the workloads of `benches/hull_collider.rs` and
//! `examples/profile_hulls.rs`.

use std::sync::Arc;

use parry3d::math::{Pose, Vector as PVec};
use parry3d::shape::{ConvexPolyhedron, Cuboid};
use proxima::nalgebra::Translation3;
use proxima::narrowphase::{ConvexHull, Isometry, PlacedHull, Point, SupportMap, Vector};
use proxima::scene::{ColliderShape, WorldShape};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// Pairs per workload.
pub const PAIRS: usize = 2_000;

/// A hull of 24 random points of half-size in [0.3, 1), placed at `at`.
pub fn hull(rng: &mut impl Rng, at: Vector) -> (Arc<ConvexHull>, Isometry) {
    let s = uniform(rng, 0.3, 1.0);
    let points: Vec<Point> =
        (0..24).map(|_| Point::new(uniform(rng, -s, s), uniform(rng, -s, s), uniform(rng, -s, s))).collect();
    let pose = Isometry::from_parts(Translation3::from(at), gen::rotation(rng));
    (Arc::new(ConvexHull::try_new(&points).expect("a hull")), pose)
}

/// The pose as parry3d's.
pub fn parry_pose(pose: &Isometry) -> Pose {
    Pose::from_parts(cv::vec(&pose.translation.vector), cv::rot(&pose.rotation))
}

/// The hull as parry3d's `ConvexPolyhedron` (of its vertices).
pub fn parry_hull(h: &ConvexHull) -> ConvexPolyhedron {
    let points: Vec<PVec> = h.vertices().iter().map(cv::pt).collect();
    ConvexPolyhedron::from_convex_hull(&points).expect("parry builds it")
}

/// A pair for both libraries.
pub struct Pair {
    pub a: WorldShape,
    pub b: WorldShape,
    pub pa: Pose,
    pub pb: Pose,
    pub ga: Box<dyn parry3d::shape::Shape>,
    pub gb: Box<dyn parry3d::shape::Shape>,
}

/// `PAIRS` seeded pairs: a hull at the origin and, within reach, another
/// hull or (with `boxes`) an oriented box.
pub fn pairs(seed: u64, boxes: bool) -> Vec<Pair> {
    let mut rng = proxima_test_support::rng(seed);
    (0..PAIRS)
        .map(|_| {
            let (ha, pose_a) = hull(&mut rng, Vector::zeros());
            let near =
                Vector::new(uniform(&mut rng, -1.6, 1.6), uniform(&mut rng, -1.6, 1.6), uniform(&mut rng, -1.6, 1.6));
            let a = ColliderShape::ConvexHull(ha.clone()).placed(&pose_a).unwrap();
            let (pa, ga): (Pose, Box<dyn parry3d::shape::Shape>) = (parry_pose(&pose_a), Box::new(parry_hull(&ha)));
            if boxes {
                let h =
                    Vector::new(uniform(&mut rng, 0.2, 1.0), uniform(&mut rng, 0.2, 1.0), uniform(&mut rng, 0.2, 1.0));
                let pose = Isometry::from_parts(Translation3::from(near), gen::rotation(&mut rng));
                let b = ColliderShape::Cuboid { half_extents: h }.placed(&pose).unwrap();
                Pair { a, b, pa, pb: parry_pose(&pose), ga, gb: Box::new(Cuboid::new(cv::vec(&h))) }
            } else {
                let (hb, pose_b) = hull(&mut rng, near);
                let b = ColliderShape::ConvexHull(hb.clone()).placed(&pose_b).unwrap();
                Pair { a, b, pa, pb: parry_pose(&pose_b), ga, gb: Box::new(parry_hull(&hb)) }
            }
        })
        .collect()
}

/// A placed hull as the scene's support map (narrowphase's `PlacedHull`):
/// GJK starts from its box's centre.
pub struct Centred<'a>(PlacedHull<'a>);

impl<'a> Centred<'a> {
    pub fn new(shape: &'a WorldShape) -> Self {
        let WorldShape::ConvexHull(hull, pose) = shape else { unreachable!("hulls only") };
        Self(PlacedHull::new(hull, pose))
    }
}

impl SupportMap for Centred<'_> {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        self.0.support(dir)
    }
    #[inline]
    fn core_center(&self) -> Point {
        self.0.core_center()
    }
}
