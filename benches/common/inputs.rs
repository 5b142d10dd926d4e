//! Inputs shared by benches and the profiling example that replays them
//! (`examples/profile_gjk.rs`): the seeded pairs of `benches/gjk.rs` and the
//! compounds and rays of `benches/compound.rs`, so a profile runs exactly
//! what a bench row measures. Included by `#[path]`; each includer uses a
//! part of it.

use std::sync::Arc;

use parry3d::math::Pose;
use parry3d::shape::{Compound as PCompound, SharedShape};
use proxima::nalgebra::Translation3;
use proxima::narrowphase::{Isometry, Point, Ray, Real, Vector};
use proxima::scene::{ColliderShape, Compound, WorldShape};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{Rng, SmallRng};

/// Cases per batch of the generic convex queries (one criterion iteration).
pub const CASES: usize = 2048;
/// Rays per compound.
pub const RAYS: usize = 4_096;

/// `CASES` seeded pairs accepted by `keep`.
pub fn cases<T>(seed: u64, mut f: impl FnMut(&mut SmallRng) -> T, keep: impl Fn(&T) -> bool) -> Vec<T> {
    let mut rng = proxima_test_support::rng(seed);
    let mut out = Vec::with_capacity(CASES);
    while out.len() < CASES {
        let c = f(&mut rng);
        if keep(&c) {
            out.push(c);
        }
    }
    out
}

/// A pose as parry sees it.
pub fn parry_pose(pose: &Isometry) -> Pose {
    Pose::from_parts(cv::vec(&pose.translation.vector), cv::rot(&pose.rotation))
}

/// A translation in `[-spread, spread]^3` and a random rotation.
pub fn random_pose(rng: &mut impl Rng, spread: Real) -> Isometry {
    let t = Vector::from_fn(|_, _| uniform(rng, -spread, spread));
    Isometry::from_parts(Translation3::from(t), gen::rotation(rng))
}

/// A box, sphere or capsule of size 0.1 to 0.7 and its parry twin.
pub fn child(rng: &mut impl Rng) -> (ColliderShape, SharedShape) {
    let s = |rng: &mut _| uniform(rng, 0.1, 0.7);
    match rng.random_range(0..3) {
        0 => {
            let h = Vector::new(s(rng), s(rng), s(rng));
            (ColliderShape::Cuboid { half_extents: h }, SharedShape::cuboid(h.x, h.y, h.z))
        }
        1 => {
            let r = s(rng);
            (ColliderShape::Sphere { radius: r }, SharedShape::ball(r))
        }
        _ => {
            let (h, r) = (s(rng), 0.5 * s(rng));
            (ColliderShape::Capsule { half_height: h, radius: r }, SharedShape::capsule_y(h, r))
        }
    }
}

/// A compound of `n` children placed at a random pose: proxima's placed
/// compound, parry's compound and pose, and each child's centre (world
/// frame) to aim at.
pub struct Both {
    pub world: WorldShape,
    pub parry: PCompound,
    pub pose: Pose,
    pub centres: Vec<Point>,
}

/// `n` children at random local poses (within 1.5 of the origin for up to 8
/// children, 2.4 beyond), the compound at a random pose.
pub fn compound(rng: &mut impl Rng, n: usize) -> Both {
    let spread = if n > 8 { 2.4 } else { 1.5 };
    let (mut ours, mut theirs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let local = random_pose(rng, spread);
        let (shape, twin) = child(rng);
        ours.push((local, shape));
        theirs.push((parry_pose(&local), twin));
    }
    let at = random_pose(rng, 5.0);
    let centres = ours.iter().map(|(l, _)| at * Point::from(l.translation.vector)).collect();
    let world = ColliderShape::Compound(Arc::new(Compound::try_new(ours).expect("a valid compound")))
        .placed(&at)
        .expect("placed");
    Both { world, parry: PCompound::new(theirs), pose: parry_pose(&at), centres }
}

/// `RAYS` rays aimed near a random one of `centres` (within 0.8), from 3 to
/// 10 away.
pub fn aimed_rays(rng: &mut impl Rng, centres: &[Point]) -> Vec<Ray> {
    (0..RAYS)
        .map(|_| {
            let target = centres[rng.random_range(0..centres.len())] + gen::unit_vector(rng) * uniform(rng, 0.0, 0.8);
            let origin = target + gen::unit_vector(rng) * uniform(rng, 3.0, 10.0);
            Ray::new(origin, (target - origin).normalize(), 100.0)
        })
        .collect()
}
