//! Hull-hull and hull-box manifolds and hull-hull overlaps against parry3d,
//! one thread, interleaved timings, on the inputs of
//! `benches/hull_collider.rs` (other seeds with `--seed`).
//!
//! ```text
//! cargo run --release --example profile_hulls -- [--query manifold|box|overlap] [--passes N] [--seed S] [--only proxima|parry3d]
//! ```
//! Both sides run once per pass, in turn, and each keeps its fastest pass.
//! `--only` runs one side (for `valgrind --tool=callgrind`). The checksum
//! printed beside each time (manifold points, or overlapping pairs) must
//! agree closely between the two libraries.

use std::sync::Arc;
use std::time::Instant;

use parry3d::math::{Pose, Vector as PVec};
use parry3d::query::{self, PersistentQueryDispatcher};
use parry3d::shape::{ConvexPolyhedron, Cuboid, Shape};
use proxima::nalgebra::Translation3;
use proxima::narrowphase::*;
use proxima::scene::{contact_manifolds, ColliderShape, WorldShape};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

const PAIRS: usize = 2_000;
const PREDICTION: Real = 0.02;

struct Pair {
    a: WorldShape,
    b: WorldShape,
    pa: Pose,
    pb: Pose,
    ga: Box<dyn Shape>,
    gb: Box<dyn Shape>,
}

/// A hull of 24 random points of half-size in [0.3, 1), placed at `at`.
fn hull(rng: &mut impl Rng, at: Vector) -> (Arc<ConvexHull>, Isometry) {
    let s = uniform(rng, 0.3, 1.0);
    let points: Vec<Point> =
        (0..24).map(|_| Point::new(uniform(rng, -s, s), uniform(rng, -s, s), uniform(rng, -s, s))).collect();
    let pose = Isometry::from_parts(Translation3::from(at), gen::rotation(rng));
    (Arc::new(ConvexHull::try_new(&points).expect("a hull")), pose)
}

fn parry_pose(pose: &Isometry) -> Pose {
    Pose::from_parts(cv::vec(&pose.translation.vector), cv::rot(&pose.rotation))
}

fn parry_hull(h: &ConvexHull) -> ConvexPolyhedron {
    let points: Vec<PVec> = h.vertices().iter().map(cv::pt).collect();
    ConvexPolyhedron::from_convex_hull(&points).expect("parry builds it")
}

fn pair(rng: &mut impl Rng, boxes: bool) -> Pair {
    let (ha, pose_a) = hull(rng, Vector::zeros());
    let near = Vector::new(uniform(rng, -1.6, 1.6), uniform(rng, -1.6, 1.6), uniform(rng, -1.6, 1.6));
    let a = ColliderShape::ConvexHull(ha.clone()).placed(&pose_a).unwrap();
    let (pa, ga): (Pose, Box<dyn Shape>) = (parry_pose(&pose_a), Box::new(parry_hull(&ha)));
    if boxes {
        let h = Vector::new(uniform(rng, 0.2, 1.0), uniform(rng, 0.2, 1.0), uniform(rng, 0.2, 1.0));
        let pose = Isometry::from_parts(Translation3::from(near), gen::rotation(rng));
        let b = ColliderShape::Cuboid { half_extents: h }.placed(&pose).unwrap();
        Pair { a, b, pa, pb: parry_pose(&pose), ga, gb: Box::new(Cuboid::new(cv::vec(&h))) }
    } else {
        let (hb, pose_b) = hull(rng, near);
        let b = ColliderShape::ConvexHull(hb.clone()).placed(&pose_b).unwrap();
        Pair { a, b, pa, pb: parry_pose(&pose_b), ga, gb: Box::new(parry_hull(&hb)) }
    }
}

/// A placed hull as the scene places one for a query (the rotation as a
/// matrix, GJK from its box's centre), as `benches/hull_collider.rs` has it.
struct Centred<'a> {
    hull: &'a ConvexHull,
    pose: &'a Isometry,
    rotation: proxima::nalgebra::Matrix3<Real>,
}

impl<'a> Centred<'a> {
    fn new(shape: &'a WorldShape) -> Self {
        let WorldShape::ConvexHull(hull, pose) = shape else { unreachable!("hulls only") };
        Self { hull, pose, rotation: pose.rotation.to_rotation_matrix().into_inner() }
    }
}

impl SupportMap for Centred<'_> {
    fn support(&self, dir: &Vector) -> Point {
        let local = self.rotation.tr_mul(dir);
        Point::from(self.rotation * self.hull.support_point(&local).coords + self.pose.translation.vector)
    }
    fn core_center(&self) -> Point {
        self.pose.transform_point(&self.hull.aabb().center())
    }
}

fn main() {
    let (mut query, mut passes, mut seed, mut only) = ("manifold".to_string(), 20, 0xB1u64, String::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--query" => query = value(),
            "--passes" => passes = value().parse().expect("--passes N"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--only" => only = value(),
            other => panic!("unknown argument {other}"),
        }
    }
    let mut rng = proxima_test_support::rng(seed);
    let pairs: Vec<Pair> = (0..PAIRS).map(|_| pair(&mut rng, query == "box")).collect();
    let mut out = Vec::new();
    let mut parry_out: Vec<query::ContactManifold<(), ()>> = Vec::new();
    let overlap = query == "overlap";
    let mut ours = || -> usize {
        pairs
            .iter()
            .map(|p| {
                if overlap {
                    usize::from(intersects_convex(&Centred::new(&p.a), &Centred::new(&p.b)))
                } else {
                    out.clear();
                    contact_manifolds(&p.a, &p.b, PREDICTION, &mut out);
                    out.iter().map(|m| m.len()).sum::<usize>()
                }
            })
            .sum()
    };
    let mut theirs = || -> usize {
        pairs
            .iter()
            .map(|p| {
                if overlap {
                    usize::from(query::intersection_test(&p.pa, &*p.ga, &p.pb, &*p.gb).expect("supported").intersecting)
                } else {
                    parry_out.clear();
                    let pos12 = p.pa.inv_mul(&p.pb);
                    query::DefaultQueryDispatcher
                        .contact_manifolds(&pos12, &*p.ga, &*p.gb, PREDICTION, &mut parry_out, &mut None)
                        .expect("supported");
                    parry_out.iter().map(|m| m.points.len()).sum::<usize>()
                }
            })
            .sum()
    };
    let (mut best_ours, mut best_theirs) = (f64::INFINITY, f64::INFINITY);
    let (mut sum_ours, mut sum_theirs) = (0, 0);
    for _ in 0..passes {
        if only != "parry3d" {
            let t = Instant::now();
            sum_ours = ours();
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
        }
        if only != "proxima" {
            let t = Instant::now();
            sum_theirs = theirs();
            best_theirs = best_theirs.min(t.elapsed().as_secs_f64());
        }
    }
    let per = |s: f64| s * 1e9 / PAIRS as f64;
    println!("{query}, {PAIRS} pairs, seed {seed}, fastest of {passes} passes");
    println!("proxima {:8.1} ns/pair  (checksum {sum_ours})", per(best_ours));
    println!("parry3d {:8.1} ns/pair  (checksum {sum_theirs})", per(best_theirs));
    if best_ours.is_finite() && best_theirs.is_finite() {
        println!("ratio   {:8.2}x", best_theirs / best_ours);
    }
}
