//! Swept spheres: differential tests against the f64 oracle of `common`
//! (every shape, boxes at sizes 0.1, 1, 50 and 5000) and against parry3d 0.31
//! `query::cast_shapes` (ball-ball, ball-cuboid where parry is accurate).
//!
//! Each test draws `CASES` seeded sweeps aimed near a random shape of size
//! `~scale` (radius `[0.05, 0.5] * scale`, start within `~6 scale` of the
//! shape, some starting in contact, motion lengths such that about half the
//! sweeps reach the shape). Notation: `m = |motion|`; `S` = the largest
//! coordinate magnitude of the case; `cos` = the cosine between the motion
//! and the surface normal at the exact contact (the root's conditioning:
//! a position error `e` moves the contact by `e / cos` along the motion);
//! `eps = f32::EPSILON`. Checks:
//! - hit/miss and start-in-contact agree with the oracle except in the
//!   tangency band (the path misses or grazes by at most `BAND * S`, or first
//!   touches within `BAND * S` of the motion's end, or starts within
//!   `BAND * S` of touching); such cases are counted, at most `1e-3` of all;
//! - toi: measured as `|toi - toi*|`; `toi` is the fraction of the motion,
//!   so this is the contact position's error along the motion divided by
//!   `m`. Asserted for every hit: `|toi - toi*| <= max(1e-5, TOI_TOL * S / (m cos))`
//!   (the `sqrt` form of a root at a tangency for `cos < 1e-3`): the contact
//!   is within `1e-5 * m` of the exact one unless the motion is so short or
//!   so grazing, relative to the coordinates' size `S`, that f32 positions
//!   cannot resolve that. Reported: the worst `|toi - toi*|` over
//!   non-grazing hits (`cos >= GRAZING_COS`) and how many exceed `1e-5`
//!   (none with the committed seeds: worst 7.7e-6, for the plane; boxes
//!   5.8e-6 at every size from 0.1 to 5000);
//! - point: within `toi bound * m + TOI_TOL * S` of the exact contact point;
//!   normal: within that distance divided by the radius (radians) of the
//!   exact normal (the Minkowski sums here are smooth for `r > 0`, so the
//!   normal is continuous across faces, edges and vertices);
//! - start in contact: `toi = 0` and `Penetrating`; when the centre starts
//!   outside the shape by more than the band, the normal and point are the
//!   exact closest-point ones within the same bounds.
//!
//! Every test prints its tallies (`cargo test --release --test cast_sphere
//! -- --nocapture`), including, for the parry comparisons, how many cases
//! disagreed with parry but agreed with the oracle.

mod common;

use common::*;
use parry3d::math::Pose;
use parry3d::query::{cast_shapes, ShapeCastOptions};
use proxima_narrowphase::*;
use proxima_test_support::report::{Failures, Worst};
use proxima_test_support::{convert, gen, rng, SmallRng};

/// Tangency band relative to `S` (see `cast_ray.rs`: ~80 eps).
const BAND: f64 = 1e-5;
/// The required toi accuracy (fraction of the motion) for non-grazing hits.
const TOI_ABS: f64 = 1e-5;
/// Hits with `cos` below this are grazing: counted apart in the report of
/// the worst toi error (at `cos = 0.05` the conditioned bound is already
/// `1.5e-4 * S / m`).
const GRAZING_COS: f64 = 0.05;
/// Conditioned position error, in units of `S`: 64 eps covers the frame
/// change, the box growth by `r`, the slab divisions and the capsule
/// quadratic (measured worst cases are a few eps).
const TOI_TOL: f64 = 64.0 * f32::EPSILON as f64;

/// The allowed `|toi - toi*|` for a hit with approach cosine `cos`.
fn toi_bound(s: f64, m: f64, cos: f64) -> f64 {
    let conditioned = if cos >= 1e-3 { TOI_TOL * s / (m * cos) } else { TOI_TOL.sqrt() * s / m };
    TOI_ABS.max(conditioned)
}

/// A shape to sweep against, where to aim, and how far around the aim point.
struct SweepCase<S> {
    shape: S,
    aim: Point,
    reach: Real,
}

/// parry's answer for one sweep: `Some(toi)` or a miss.
type ParryToi = Option<f64>;
/// parry's sweep of a ball against a shape of the test.
type ParrySweep<'a, S> = &'a dyn Fn(&Sphere, &Vector, &S) -> ParryToi;

#[derive(Default, Debug)]
struct Tally {
    n: usize,
    starts: usize,
    hits: usize,
    in_band: usize,
    grazing: usize,
    failures: Failures,
    /// Worst `|toi - toi*|` over non-grazing hits.
    worst_toi: Worst,
    /// Non-grazing hits with `|toi - toi*| > 1e-5` (allowed only within the
    /// conditioned bound; reported).
    over_abs: usize,
    /// Worst error / bound over all hits (grazing included).
    worst_ratio: Worst,
    worst_point_ratio: Worst,
    worst_normal_ratio: Worst,
    /// parry comparison: cases compared, and disagreements (hit/miss outside
    /// the band, or toi differing by more than `1e-5`) ...
    parry_n: usize,
    parry_disagree: usize,
    /// ... of which ours agreed with the oracle (all, or a failure is logged).
    parry_disagree_ours_right: usize,
    worst_parry_toi: Worst,
}

impl Tally {
    fn report_and_check(&self, name: &str) {
        let rate = self.hits as f64 / self.n as f64;
        eprintln!(
            "{name}: {} cases, hit rate {rate:.3} (starts in contact {}), in-band disagreements {}, \
             worst |toi err| (non-grazing) {:.2e} ({} over 1e-5), grazing hits {}, worst err/bound {:.3}, \
             point {:.3}, normal {:.3}",
            self.n,
            self.starts,
            self.in_band,
            self.worst_toi.value,
            self.over_abs,
            self.grazing,
            self.worst_ratio.value,
            self.worst_point_ratio.value,
            self.worst_normal_ratio.value,
        );
        if self.parry_n > 0 {
            eprintln!(
                "{name}: vs parry3d cast_shapes: {} compared, {} disagreements (hit/miss outside the band or \
                 |toi diff| > 1e-5), of which {} agreed with the f64 oracle; worst |toi diff| {:.2e}",
                self.parry_n, self.parry_disagree, self.parry_disagree_ours_right, self.worst_parry_toi.value
            );
        }
        if std::env::var("CAST_VERBOSE").is_ok() {
            eprintln!("  worst toi: {}\n  worst ratio: {}", self.worst_toi.case, self.worst_ratio.case);
            eprintln!(
                "  worst point: {}\n  worst normal: {}",
                self.worst_point_ratio.case, self.worst_normal_ratio.case
            );
            eprintln!("  worst parry: {}", self.worst_parry_toi.case);
        }
        self.failures.assert_none(name);
        assert!((0.3..=0.7).contains(&rate), "{name}: hit rate {rate} outside [0.3, 0.7]");
        assert!(self.in_band * 1000 <= self.n, "{name}: {} in-band disagreements", self.in_band);
    }
}

/// The case's coordinate scale `S`.
fn case_scale(c: &V, motion: &V, sdf: &dyn Sdf) -> f64 {
    c.amax().max((c + motion).amax()).max(sdf.scale())
}

/// Runs `n` sweeps against shapes from `make` at `scale`; `parry` (optional)
/// gives parry's toi for the same sweep.
fn run<S: std::fmt::Debug>(
    seed: u64,
    n: usize,
    scale: Real,
    make: impl Fn(&mut SmallRng, Real) -> SweepCase<S>,
    ours: impl Fn(&Sphere, &Vector, &S) -> Option<SweepHit>,
    oracle: impl Fn(&S) -> Box<dyn Sdf>,
    parry: Option<ParrySweep<S>>,
) -> Tally {
    let mut rng = rng(seed);
    let mut t = Tally::default();
    for i in 0..n {
        let case = make(&mut rng, scale);
        debug_assert!(scale > 0.0);
        let r = gen::uniform(&mut rng, 0.05, 0.5) * scale;
        let start = case.aim + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, case.reach + r + 5.0 * scale);
        let target = case.aim + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 1.5 * (case.reach + r));
        let motion = (target - start) * gen::uniform(&mut rng, 0.3, 1.3);
        let sphere = Sphere::new(start, r);
        let sdf = oracle(&case.shape);
        let (c, mv) = (p64(&start), v64(&motion));
        let s = case_scale(&c, &mv, sdf.as_ref());
        let band = BAND * s;
        let exact = first_contact(sdf.as_ref(), &c, &mv, r as f64, 1.0);
        let hit = ours(&sphere, &motion, &case.shape);
        t.n += 1;
        t.hits += exact.toi().is_some() as usize;
        let describe =
            || format!("case {i}: {sphere:?} motion {motion:?} vs {:?}: ours {hit:?}, oracle {exact:?}", case.shape);
        let tangent = match exact {
            Oracle::Start { depth } => depth <= band,
            Oracle::Hit { t: th, slope, depth } => depth <= band || (1.0 - th) * slope <= band,
            Oracle::Miss { margin } => margin <= band,
        };
        let ours_ok = check(&mut t, &exact, hit.as_ref(), sdf.as_ref(), &c, &mv, r as f64, s, tangent, &describe);
        if let Some(parry) = parry {
            let p = parry(&sphere, &motion, &case.shape);
            t.parry_n += 1;
            let disagree = match (hit.as_ref(), p) {
                (Some(h), Some(pt)) => {
                    let d = (h.toi as f64 - pt).abs();
                    t.worst_parry_toi.see(d, describe);
                    d > TOI_ABS
                }
                (None, None) => false,
                _ => !tangent,
            };
            if disagree {
                t.parry_disagree += 1;
                t.parry_disagree_ours_right += ours_ok as usize;
            }
        }
    }
    t
}

/// Checks one of our answers against the oracle; returns whether it agreed.
fn check(
    t: &mut Tally,
    exact: &Oracle,
    hit: Option<&SweepHit>,
    sdf: &dyn Sdf,
    c: &V,
    mv: &V,
    r: f64,
    s: f64,
    tangent: bool,
    describe: &dyn Fn() -> String,
) -> bool {
    let m = mv.norm();
    match (exact, hit) {
        (Oracle::Start { .. }, Some(h)) => {
            t.starts += 1;
            if h.toi != 0.0 || h.status != SweepStatus::Penetrating {
                t.failures.push(|| format!("start in contact not reported as Penetrating at 0: {}", describe()));
                return false;
            }
            let dist = sdf.sdf(c);
            if dist > BAND * s {
                // Outside the shape: the closest point and its direction.
                let n = sdf_normal(sdf, c);
                let pos_bound = TOI_TOL * s;
                let pe = (p64(&h.point) - (c - n * dist)).norm();
                let ne = angle(&v64(&h.normal), &n);
                t.worst_point_ratio.see(pe / pos_bound, describe);
                t.worst_normal_ratio.see(ne * dist / pos_bound, describe);
                if pe > pos_bound || ne * dist > pos_bound {
                    t.failures.push(|| format!("start contact point {pe:.3e} / normal {ne:.3e}: {}", describe()));
                    return false;
                }
            }
            true
        }
        (Oracle::Hit { t: te, slope, .. }, Some(h)) => {
            let cos = slope / m;
            let err = (h.toi as f64 - te).abs();
            let bound = toi_bound(s, m, cos);
            if cos >= GRAZING_COS {
                t.worst_toi.see(err, describe);
                t.over_abs += (err > TOI_ABS) as usize;
            } else {
                t.grazing += 1;
            }
            t.worst_ratio.see(err / bound, describe);
            if (err > bound || h.status != SweepStatus::Hit && *te > 0.0) && !tangent {
                t.failures.push(|| format!("toi error {err:.3e} > {bound:.3e} (cos {cos:.3e}): {}", describe()));
                return false;
            }
            if tangent {
                return true;
            }
            // Point and normal against the exact contact geometry.
            let centre = c + mv * *te;
            let n = sdf_normal(sdf, &centre);
            let point = centre - n * r;
            let pos_bound = bound * m + TOI_TOL * s;
            let pe = (p64(&h.point) - point).norm();
            let ne = angle(&v64(&h.normal), &n);
            t.worst_point_ratio.see(pe / pos_bound, describe);
            let n_bound = if r > 0.0 { pos_bound / r } else { f64::INFINITY };
            t.worst_normal_ratio.see(ne / n_bound, describe);
            if pe > pos_bound || ne > n_bound {
                t.failures
                    .push(|| format!("point error {pe:.3e} (bound {pos_bound:.3e}), normal {ne:.3e}: {}", describe()));
                return false;
            }
            true
        }
        (Oracle::Miss { .. }, None) => true,
        _ => {
            if tangent {
                t.in_band += 1;
            } else {
                t.failures.push(|| format!("hit/miss disagreement: {}", describe()));
            }
            tangent
        }
    }
}

fn placement(scale: Real) -> gen::Placement {
    gen::Placement::new(2.0 * scale, 0.2 * scale, scale)
}

fn obb_case(rng: &mut SmallRng, scale: Real) -> SweepCase<Obb> {
    let b = gen::obb(rng, &placement(scale));
    SweepCase { aim: *b.center(), reach: b.half_extents().norm(), shape: b }
}

fn aabb_case(rng: &mut SmallRng, scale: Real) -> SweepCase<Aabb> {
    let b = gen::aabb(rng, &placement(scale));
    SweepCase { aim: b.center(), reach: b.half_extents().norm(), shape: b }
}

/// parry's toi for a ball moving by `motion` against a static shape.
fn parry_toi(sphere: &Sphere, motion: &Vector, pose: &Pose, shape: &dyn parry3d::shape::Shape) -> ParryToi {
    let (p1, ball) = convert::ball(sphere);
    let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
    let hit = cast_shapes(&p1, convert::vec(motion), &ball, pose, convert::vec(&Vector::zeros()), shape, opts)
        .expect("parry supports the pair");
    hit.map(|h| h.time_of_impact as f64)
}

fn parry_obb(sphere: &Sphere, motion: &Vector, b: &Obb) -> ParryToi {
    let (pose, cuboid) = convert::cuboid(b);
    parry_toi(sphere, motion, &pose, &cuboid)
}

fn parry_aabb(sphere: &Sphere, motion: &Vector, b: &Aabb) -> ParryToi {
    let (pose, cuboid) = convert::aabb_cuboid(b);
    parry_toi(sphere, motion, &pose, &cuboid)
}

fn obb_at(scale: Real, seed: u64, name: &str) {
    let t = run(seed, CASES, scale, obb_case, cast_sphere_obb, |b| Box::new(BoxF::from_obb(b)), Some(&parry_obb));
    t.report_and_check(name);
}

fn aabb_at(scale: Real, seed: u64, name: &str) {
    let t = run(seed, CASES, scale, aabb_case, cast_sphere_aabb, |b| Box::new(BoxF::from_aabb(b)), Some(&parry_aabb));
    t.report_and_check(name);
}

#[test]
fn sphere_obb_size_0_1() {
    obb_at(0.1, 0xB0B_0001, "sphere-obb @0.1");
}

#[test]
fn sphere_obb_size_1() {
    obb_at(1.0, 0xB0B_0002, "sphere-obb @1");
}

#[test]
fn sphere_obb_size_50() {
    obb_at(50.0, 0xB0B_0003, "sphere-obb @50");
}

#[test]
fn sphere_obb_size_5000() {
    obb_at(5000.0, 0xB0B_0004, "sphere-obb @5000");
}

#[test]
fn sphere_aabb_size_0_1() {
    aabb_at(0.1, 0xAAB_0001, "sphere-aabb @0.1");
}

#[test]
fn sphere_aabb_size_1() {
    aabb_at(1.0, 0xAAB_0002, "sphere-aabb @1");
}

#[test]
fn sphere_aabb_size_50() {
    aabb_at(50.0, 0xAAB_0003, "sphere-aabb @50");
}

#[test]
fn sphere_aabb_size_5000() {
    aabb_at(5000.0, 0xAAB_0004, "sphere-aabb @5000");
}

#[test]
fn sphere_sphere_vs_parry_and_oracle() {
    let parry = |s: &Sphere, m: &Vector, b: &Sphere| {
        let (pose, ball) = convert::ball(b);
        parry_toi(s, m, &pose, &ball)
    };
    let t = run(
        0x5_0001,
        CASES,
        1.0,
        |rng, scale| {
            let b = gen::sphere(rng, &placement(scale));
            SweepCase { aim: *b.center(), reach: b.radius(), shape: b }
        },
        cast_sphere_sphere,
        |b| Box::new(BallF::new(b)),
        Some(&parry),
    );
    t.report_and_check("sphere-sphere");
    assert_eq!(t.parry_disagree, t.parry_disagree_ours_right);
}

#[test]
fn sphere_sphere_moving_vs_parry_and_oracle() {
    // Both spheres move; the oracle sweeps a against b in b's frame (relative
    // motion), parry gets both velocities. `SphereWithMotion` carries b's motion.
    let mut rng = rng(0x5_0002);
    let mut t = Tally::default();
    for i in 0..CASES {
        let scale = 10f32.powf(gen::uniform(&mut rng, -1.0, 3.0));
        let b = gen::sphere(&mut rng, &placement(scale));
        let ra = gen::uniform(&mut rng, 0.05, 0.5) * scale;
        let start =
            b.center() + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, b.radius() + ra + 5.0 * scale);
        let a = Sphere::new(start, ra);
        let target = b.center() + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 1.5 * (b.radius() + ra));
        let rel = (target - start) * gen::uniform(&mut rng, 0.3, 1.3);
        let motion_b = gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 3.0 * scale);
        let motion_a = rel + motion_b;
        let hit = cast_sphere_moving_sphere(&a, &motion_a, &b, &motion_b);
        // The oracle in b's frame, with the relative motion as the f32 sum
        // and difference actually produce it (motion_a - motion_b).
        let rel32 = motion_a - motion_b;
        let sdf = BallF::new(&b);
        let (c, mv) = (p64(&start), v64(&rel32));
        let s = case_scale(&c, &mv, &sdf).max(v64(&motion_a).amax()).max(v64(&motion_b).amax());
        let band = BAND * s;
        let exact = first_contact(&sdf, &c, &mv, ra as f64, 1.0);
        t.n += 1;
        t.hits += exact.toi().is_some() as usize;
        let describe = || format!("case {i}: {a:?} {motion_a:?} vs {b:?} {motion_b:?}: ours {hit:?}, oracle {exact:?}");
        let tangent = match exact {
            Oracle::Start { depth } => depth <= band,
            Oracle::Hit { t: th, slope, depth } => depth <= band || (1.0 - th) * slope <= band,
            Oracle::Miss { margin } => margin <= band,
        };
        // The point check runs in b's frame: move our point back by toi * motion_b.
        let local = hit.map(|h| SweepHit { point: h.point - motion_b * h.toi, ..h });
        let ours_ok = check(&mut t, &exact, local.as_ref(), &sdf, &c, &mv, ra as f64, s, tangent, &describe);
        let (pa, ball_a) = convert::ball(&a);
        let (pb, ball_b) = convert::ball(&b);
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        let p = cast_shapes(&pa, convert::vec(&motion_a), &ball_a, &pb, convert::vec(&motion_b), &ball_b, opts)
            .expect("ball-ball")
            .map(|h| h.time_of_impact as f64);
        t.parry_n += 1;
        let disagree = match (hit.as_ref(), p) {
            (Some(h), Some(pt)) => {
                let d = (h.toi as f64 - pt).abs();
                t.worst_parry_toi.see(d, describe);
                d > TOI_ABS
            }
            (None, None) => false,
            _ => !tangent,
        };
        if disagree {
            t.parry_disagree += 1;
            t.parry_disagree_ours_right += ours_ok as usize;
        }
    }
    t.report_and_check("sphere-sphere moving");
    assert_eq!(t.parry_disagree, t.parry_disagree_ours_right);
}

#[test]
fn sphere_capsule_vs_oracle() {
    let t = run(
        0xCA_0001,
        CASES,
        1.0,
        |rng, scale| {
            let c = gen::capsule(rng, &placement(scale));
            let aim = nalgebra::center(c.a(), c.b());
            SweepCase { aim, reach: 0.5 * (c.b() - c.a()).norm() + c.radius(), shape: c }
        },
        cast_sphere_capsule,
        |c| Box::new(CapsuleF::new(c)),
        None,
    );
    t.report_and_check("sphere-capsule");
}

#[test]
fn sphere_triangle_vs_oracle() {
    let t = run(
        0x7_0001,
        CASES,
        1.0,
        |rng, scale| {
            let tri = gen::triangle(rng, &placement(scale));
            let centroid = Point::from((tri.a().coords + tri.b().coords + tri.c().coords) / 3.0);
            let reach = tri.vertices().iter().map(|v| (v - centroid).norm()).fold(0.0, Real::max);
            SweepCase { aim: centroid, reach: 0.6 * reach, shape: tri }
        },
        cast_sphere_triangle,
        |tri| Box::new(TriF::new(tri)),
        None,
    );
    t.report_and_check("sphere-triangle");
}

#[test]
fn sphere_plane_vs_oracle() {
    let t = run(
        0x9_0001,
        CASES,
        1.0,
        |rng, scale| {
            let p = gen::point(rng, &placement(scale));
            let plane = Plane::try_new(p, gen::unit_vector(rng)).expect("valid plane");
            SweepCase { aim: p, reach: 2.0 * scale, shape: plane }
        },
        cast_sphere_plane,
        |p| Box::new(PlaneF::new(p)),
        None,
    );
    t.report_and_check("sphere-plane");
}
