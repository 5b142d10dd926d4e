//! Rays against sphere, oriented box, capsule and triangle: differential
//! tests against parry3d 0.31 (`RayCast::cast_ray_and_get_normal`, solid) and
//! the f64 oracle of `common`.
//!
//! Each test draws `CASES` seeded rays aimed near a random shape at a random
//! scale (log-uniform in `[0.1, 1000]`), and checks (`S` = the largest
//! coordinate magnitude of the case: `max(|origin|_inf, |centre|_inf + size)`,
//! `eps = f32::EPSILON`):
//! - hit/miss: proxima agrees with parry and with the oracle, except in the
//!   tangency band: the oracle's path misses by at most `BAND * S`, grazes
//!   no deeper than `BAND * S`, or reaches the shape within `BAND * S` of
//!   `max_toi`. Those cases are counted and must stay below `1e-3` of all;
//! - toi: against the oracle, `|toi - toi*| * |dir| <= TOI_TOL * S / cos`,
//!   where `cos = -g'(toi*) / |dir|` is the cosine between the ray and the
//!   surface normal (the conditioning of the root: a position error `e`
//!   moves the hit by `e / cos` along the ray); against parry with the same
//!   form and the looser `PARRY_TOI_TOL` (parry's own rounding adds in);
//! - normals, for hits at `toi > 0` outside the band: within `NORMAL_TOL`
//!   radians of the exact f64 normal and `PARRY_NORMAL_TOL` of parry's,
//!   except for a box hit within `BAND * S` of an edge (the face is
//!   ambiguous) and grazing hits (`cos < GRAZING_COS_NORMAL`, counted and
//!   reported); `-dir / |dir|` for a start inside.
//!
//! The hit rate of every test lies in `[0.3, 0.7]`.

mod common;

use common::*;
use parry3d::query::{Ray as PRay, RayCast, RayIntersection};
use proxima_narrowphase::*;
use proxima_test_support::report::{Failures, Worst};
use proxima_test_support::{convert, gen, rng, SmallRng};

/// Tangency band, relative to `S`. f32 inputs are exact, but every f32
/// kernel (ours and parry's) rounds intermediate positions to `~eps * S`
/// (`eps = 1.2e-7`), and the decision at a tangency flips on that. `1e-5` is
/// ~80 eps: a generous multiple, still a band of width 1e-5 of the scene.
const BAND: f64 = 1e-5;
/// toi error against the f64 oracle, in units of `S / cos` (distance along
/// the ray): 64 eps covers the few roundings of the frame change,
/// differences and the quadratic (measured worst: 18 eps for a thin
/// triangle hit from afar, under 5 eps for the other shapes).
const TOI_TOL: f64 = 64.0 * f32::EPSILON as f64;
/// toi difference to parry: both carry f32 error, and parry's ball solves
/// `b^2 - ac` (cancellation for a far origin), so 4x ours.
const PARRY_TOI_TOL: f64 = 4.0 * TOI_TOL;
/// Cosines below this are grazing: the toi check switches to the looser
/// `sqrt` bound of a root at a tangency (see `toi_bound`).
const GRAZING_COS: f64 = 1e-3;
/// Normals against the exact f64 normal: a curved surface's normal is the
/// hit point's offset divided by the radius, whose rounding is
/// ~eps * |origin - centre| / r <= ~60 eps = 7e-6 rad in these cases (worst
/// measured 2e-5); a flat face's normal is exact up to the rotation's
/// rounding. 2e-4 is 10x the worst measured.
const NORMAL_TOL: f64 = 2e-4;
/// Normals against parry's: parry's ball solves `b^2 - ac`, whose toi (so
/// its hit point, so its normal) is off by up to ~2e-3 rad in our cases.
const PARRY_NORMAL_TOL: f64 = 1e-2;
/// Below this cosine a hit is grazing for the normal check: the hit point
/// slides along the surface by the (ill-conditioned) toi error, so the
/// normals are counted and reported, not compared.
const GRAZING_COS_NORMAL: f64 = 0.05;

/// The allowed `|toi - toi*| * |dir|`: `tol * S / cos`, and for grazing hits
/// (where `g` is flat at the root and a position error `e` moves the root by
/// `sqrt(2 e R)` for a curvature radius `R ~ S`) `sqrt(tol) * S`.
fn toi_bound(tol: f64, s: f64, cos: f64) -> f64 {
    if cos >= GRAZING_COS {
        tol * s / cos
    } else {
        (tol.sqrt() * s).max(tol * s / GRAZING_COS)
    }
}

/// Tallies of one differential run.
#[derive(Default, Debug)]
struct Tally {
    n: usize,
    oracle_hits: usize,
    ours_hits: usize,
    /// Hit/miss disagreements (ours vs parry, or ours vs oracle) inside the band.
    in_band: usize,
    /// Failures, described (must stay empty).
    failures: Failures,
    /// Worst toi error against the oracle, in units of the bound.
    worst_toi: Worst,
    /// Worst toi difference to parry, in units of its bound.
    worst_parry_toi: Worst,
    /// Worst normal angle to the exact normal (radians), non-grazing hits
    /// outside ambiguous edges.
    worst_normal: Worst,
    /// Worst normal angle to parry's, same cases.
    worst_parry_normal: Worst,
    /// Grazing hits (cos < GRAZING_COS_NORMAL), whose normals are not compared.
    grazing_normals: usize,
    /// Worst normal angle to the exact normal among grazing hits (reported).
    worst_grazing_normal: Worst,
    /// Normal disagreements at box edges (ambiguous face).
    edge_normals: usize,
}

impl Tally {
    fn report_and_check(&self, name: &str) {
        let rate = self.oracle_hits as f64 / self.n as f64;
        eprintln!(
            "{name}: {} cases, hit rate {rate:.3}, in-band hit/miss disagreements {}, box-edge normals {}, \
             worst toi err/bound {:.3}, worst toi diff to parry/bound {:.3}, worst normal angle {:.2e} rad \
             (to parry {:.2e}), grazing hits {} (worst normal angle {:.2e})",
            self.n,
            self.in_band,
            self.edge_normals,
            self.worst_toi.value,
            self.worst_parry_toi.value,
            self.worst_normal.value,
            self.worst_parry_normal.value,
            self.grazing_normals,
            self.worst_grazing_normal.value,
        );
        if std::env::var("CAST_VERBOSE").is_ok() {
            eprintln!("  worst toi: {}\n  worst parry toi: {}", self.worst_toi.case, self.worst_parry_toi.case);
            eprintln!(
                "  worst normal: {}\n  worst parry normal: {}",
                self.worst_normal.case, self.worst_parry_normal.case
            );
        }
        self.failures.assert_none(name);
        assert!((0.3..=0.7).contains(&rate), "{name}: hit rate {rate} outside [0.3, 0.7]");
        assert!(self.in_band * 1000 <= self.n, "{name}: {} in-band disagreements", self.in_band);
    }
}

/// The oracle's answer for one ray: the contact, the exact outward normal at
/// the hit, and the shape's coordinate scale.
struct Exact {
    contact: Oracle,
    normal: Option<V>,
    scale: f64,
}

/// The oracle for a solid with an f64 signed distance.
fn solid(sdf: &dyn Sdf, o: &V, d: &V, t_max: f64) -> Exact {
    let contact = first_contact(sdf, o, d, 0.0, t_max);
    let normal = match contact {
        Oracle::Hit { t, .. } => Some(sdf_normal(sdf, &(o + d * t))),
        _ => None,
    };
    Exact { contact, normal, scale: sdf.scale() }
}

/// A shape of one test with its parry form and f64 oracle.
struct Case<S> {
    shape: S,
    /// Where rays are aimed, and how far around it.
    aim: Point,
    reach: Real,
}

/// Runs `CASES` rays against shapes from `make`.
fn run<S: std::fmt::Debug>(
    seed: u64,
    make: impl Fn(&mut SmallRng, Real) -> Case<S>,
    ours: impl Fn(&Ray, &S) -> Option<RayHit>,
    parry: impl Fn(&PRay, Real, &S) -> Option<RayIntersection>,
    oracle: impl Fn(&S, &V, &V, f64) -> Exact,
    near_edge: impl Fn(&S, &V, f64) -> bool,
) -> Tally {
    let mut rng = rng(seed);
    let mut t = Tally::default();
    for i in 0..CASES {
        let scale = 10f32.powf(gen::uniform(&mut rng, -1.0, 3.0));
        let case = make(&mut rng, scale);
        let origin = case.aim + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 6.0 * scale);
        let target = case.aim + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, case.reach);
        let to_target = target - origin;
        let dir_len = gen::uniform(&mut rng, 0.25, 4.0);
        let Some(dir) = (to_target.norm() > 1e-3 * scale).then(|| to_target.normalize() * dir_len) else {
            continue;
        };
        let max_toi = to_target.norm() / dir_len * gen::uniform(&mut rng, 0.5, 2.0);
        let ray = Ray::new(origin, dir, max_toi);
        let (o, d) = (p64(&origin), v64(&dir));
        let Exact { contact: exact, normal: exact_normal, scale } = oracle(&case.shape, &o, &d, max_toi as f64);
        let s = o.amax().max(scale);
        let band = BAND * s;
        let dn = d.norm();
        let ours_hit = ours(&ray, &case.shape);
        let parry_hit = parry(&PRay::new(convert::pt(&origin), convert::vec(&dir)), max_toi, &case.shape);
        t.n += 1;
        t.oracle_hits += exact.toi().is_some() as usize;
        t.ours_hits += ours_hit.is_some() as usize;
        let describe = || {
            format!("case {i}: {ray:?} vs {:?}: ours {ours_hit:?}, parry {parry_hit:?}, oracle {exact:?}", case.shape)
        };
        let tangent = match exact {
            Oracle::Start { depth } => depth <= band,
            Oracle::Hit { t: th, depth, slope } => depth <= band || (max_toi as f64 - th) * slope <= band,
            Oracle::Miss { margin } => margin <= band,
        };
        if ours_hit.is_some() != exact.toi().is_some() || ours_hit.is_some() != parry_hit.is_some() {
            if tangent && t.in_band < 3 && std::env::var("DEBUG_BAND").is_ok() {
                eprintln!("in band: {}", describe());
            }
            if tangent {
                t.in_band += 1;
            } else {
                t.failures.push(describe);
            }
            continue;
        }
        let (Some(h), Some(p), Some(te)) = (ours_hit, parry_hit, exact.toi()) else { continue };
        // toi against the oracle and against parry, conditioned by the cosine.
        let cos = match exact {
            Oracle::Hit { slope, .. } => slope / dn,
            _ => 1.0,
        };
        let err = (h.toi as f64 - te).abs() * dn;
        let bound = toi_bound(TOI_TOL, s, cos);
        t.worst_toi.see(err / bound, describe);
        if err > bound && !tangent {
            t.failures.push(|| format!("toi error {err:.3e} > {bound:.3e}: {}", describe()));
        }
        let perr = (h.toi - p.time_of_impact).abs() as f64 * dn;
        let pbound = toi_bound(PARRY_TOI_TOL, s, cos);
        t.worst_parry_toi.see(perr / pbound, describe);
        if perr > pbound && !tangent {
            t.failures.push(|| format!("toi vs parry {perr:.3e} > {pbound:.3e}: {}", describe()));
        }
        // Normals.
        if h.toi == 0.0 {
            let back = -d / dn;
            if angle(&v64(&h.normal), &back) > 1e-6 {
                t.failures.push(|| format!("inside normal is not -dir: {}", describe()));
            }
            continue;
        }
        if p.time_of_impact == 0.0 || tangent {
            continue;
        }
        let hit_point = o + d * te;
        let ours_n = v64(&h.normal);
        let a_exact = exact_normal.map_or(0.0, |n| angle(&ours_n, &n));
        let a_parry = angle(&ours_n, &v64(&convert::from_vec(p.normal)));
        if a_exact.max(a_parry) > NORMAL_TOL && near_edge(&case.shape, &hit_point, band) {
            t.edge_normals += 1;
            continue;
        }
        if cos < GRAZING_COS_NORMAL {
            t.grazing_normals += 1;
            t.worst_grazing_normal.see(a_exact, describe);
            continue;
        }
        t.worst_normal.see(a_exact, describe);
        t.worst_parry_normal.see(a_parry, String::new);
        if a_exact > NORMAL_TOL || a_parry > PARRY_NORMAL_TOL {
            t.failures.push(|| format!("normal angle {a_exact:.3e} to exact, {a_parry:.3e} to parry: {}", describe()));
        }
    }
    t
}

fn no_edges<S>(_: &S, _: &V, _: f64) -> bool {
    false
}

/// True when `p` is within `band` of two faces' planes of the box (an edge or vertex).
fn near_box_edge(b: &BoxF, p: &V, band: f64) -> bool {
    let l = b.local(p);
    (0..3).filter(|&i| (l[i].abs() - b.h[i]).abs() <= band).count() >= 2
}

fn placement(scale: Real) -> gen::Placement {
    gen::Placement::new(2.0 * scale, 0.1 * scale, scale)
}

#[test]
fn ray_sphere_vs_parry_and_oracle() {
    let t = run(
        0x5EED_0001,
        |rng, scale| {
            let s = gen::sphere(rng, &placement(scale));
            Case { aim: *s.center(), reach: 1.6 * s.radius(), shape: s }
        },
        cast_ray_sphere,
        |ray, max_toi, s| {
            let (pose, ball) = convert::ball(s);
            ball.cast_ray_and_get_normal(&pose, ray, max_toi, true)
        },
        |s, o, d, t| solid(&BallF::new(s), o, d, t),
        no_edges,
    );
    t.report_and_check("ray-sphere");
}

#[test]
fn ray_obb_vs_parry_and_oracle() {
    let t = run(
        0x5EED_0002,
        |rng, scale| {
            let b = gen::obb(rng, &placement(scale));
            Case { aim: *b.center(), reach: 1.5 * b.half_extents().amax(), shape: b }
        },
        cast_ray_obb,
        |ray, max_toi, b| {
            let (pose, cuboid) = convert::cuboid(b);
            cuboid.cast_ray_and_get_normal(&pose, ray, max_toi, true)
        },
        |b, o, d, t| solid(&BoxF::from_obb(b), o, d, t),
        |b, p, band| near_box_edge(&BoxF::from_obb(b), p, band),
    );
    t.report_and_check("ray-obb");
}

#[test]
fn ray_aabb_vs_parry_aabb_and_oracle() {
    let t = run(
        0x5EED_0003,
        |rng, scale| {
            let b = gen::aabb(rng, &placement(scale));
            Case { aim: b.center(), reach: 1.5 * b.half_extents().amax(), shape: b }
        },
        cast_ray_aabb,
        |ray, max_toi, b| {
            convert::aabb(b).cast_ray_and_get_normal(&parry3d::math::Pose::identity(), ray, max_toi, true)
        },
        |b, o, d, t| solid(&BoxF::from_aabb(b), o, d, t),
        |b, p, band| near_box_edge(&BoxF::from_aabb(b), p, band),
    );
    t.report_and_check("ray-aabb");
}

#[test]
fn ray_aabb_vs_parry_cuboid() {
    let t = run(
        0x5EED_0004,
        |rng, scale| {
            let b = gen::aabb(rng, &placement(scale));
            Case { aim: b.center(), reach: 1.5 * b.half_extents().amax(), shape: b }
        },
        cast_ray_aabb,
        |ray, max_toi, b| {
            let (pose, cuboid) = convert::aabb_cuboid(b);
            cuboid.cast_ray_and_get_normal(&pose, ray, max_toi, true)
        },
        |b, o, d, t| solid(&BoxF::from_aabb(b), o, d, t),
        |b, p, band| near_box_edge(&BoxF::from_aabb(b), p, band),
    );
    t.report_and_check("ray-aabb-cuboid");
}

#[test]
fn ray_capsule_vs_parry_and_oracle() {
    let t = run(
        0x5EED_0005,
        |rng, scale| {
            let c = gen::capsule(rng, &placement(scale));
            let aim = nalgebra::center(c.a(), c.b());
            Case { aim, reach: 0.5 * (c.b() - c.a()).norm() + 1.6 * c.radius(), shape: c }
        },
        cast_ray_capsule,
        |ray, max_toi, c| {
            let (pose, capsule) = convert::capsule(c);
            capsule.cast_ray_and_get_normal(&pose, ray, max_toi, true)
        },
        |c, o, d, t| solid(&CapsuleF::new(c), o, d, t),
        no_edges,
    );
    t.report_and_check("ray-capsule");
}

#[test]
fn ray_triangle_vs_parry_and_oracle() {
    let t = run(
        0x5EED_0006,
        |rng, scale| {
            let tri = gen::triangle(rng, &placement(scale));
            // Aim at a random point of the triangle grown by 1.3 about its centroid.
            let centroid = (tri.a().coords + tri.b().coords + tri.c().coords) / 3.0;
            let (u, v) = (gen::uniform(rng, 0.0, 1.0), gen::uniform(rng, 0.0, 1.0));
            let (u, v) = if u + v > 1.0 { (1.0 - u, 1.0 - v) } else { (u, v) };
            let on = tri.a().coords + (tri.b() - tri.a()) * u + (tri.c() - tri.a()) * v;
            Case { aim: Point::from(centroid + (on - centroid) * 1.3), reach: 0.0, shape: tri }
        },
        cast_ray_triangle,
        |ray, max_toi, tri| {
            let (pose, t) = convert::triangle(tri);
            t.cast_ray_and_get_normal(&pose, ray, max_toi, true)
        },
        |tri, o, d, t| {
            let f = TriF::new(tri);
            let contact = ray_triangle(&f, o, d, t);
            let n = (f.b - f.a).cross(&(f.c - f.a)).normalize();
            let normal = contact.toi().map(|_| if n.dot(d) > 0.0 { -n } else { n });
            Exact { contact, normal, scale: f.scale() }
        },
        no_edges,
    );
    t.report_and_check("ray-triangle");
}

/// `cast_ray_triangle_uv` against `cast_ray_triangle` and an f64 oracle, on
/// 200,000 random triangles and rays at scales 1e-2 to 1e3: the same hit or
/// miss and the same hit bit for bit; the barycentrics rebuild the hit point
/// within `1e-5 * size * cond` (`size` the largest coordinate involved: the
/// `toi` and the weights are each rounded on their own, in f32, after the
/// coordinates are shifted to the ray's origin; `cond = |e1| |e2| / |e1 x
/// e2|`, 1 over the sine of the angle at `a`: a weight is a quotient of edge
/// functions by their sum, the doubled area, whose relative error grows as
/// the triangle thins; times `1 / |cos(n, d)|`, 1 over the sine of the ray's
/// angle to the plane: a grazing ray's crossing moves far along the plane
/// for a small error across it); and they lie in the triangle up to
/// `1e-4 * cond` (weights alone: the plane's angle does not enter).
#[test]
fn ray_triangle_uv_matches_the_hit_and_rebuilds_the_point() {
    let mut rng = rng(0x5EED_00AB);
    let (mut hits, n) = (0, 200_000);
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let scale = [1e-2, 1.0, 1e3][i % 3];
        let tri = gen::triangle(&mut rng, &placement(scale));
        let (u, v) = (gen::uniform(&mut rng, -0.2, 1.2), gen::uniform(&mut rng, -0.2, 1.2));
        let aim = tri.a() + (tri.b() - tri.a()) * u + (tri.c() - tri.a()) * v;
        let origin = gen::point(&mut rng, &placement(scale));
        let max_toi = if i % 5 == 0 { gen::uniform(&mut rng, 0.0, 1.0) } else { 2.0 };
        let Ok(ray) = Ray::try_new(origin, aim - origin, max_toi) else { continue };
        let got = cast_ray_triangle_uv(&ray, &tri);
        assert_eq!(got.map(|h| h.hit), cast_ray_triangle(&ray, &tri), "case {i}: {ray:?} {tri:?}");
        let Some(TriangleRayHit { hit, u, v }) = got else { continue };
        hits += 1;
        let f = |p: &Point| V::new(p.x as f64, p.y as f64, p.z as f64);
        let (a, b, c) = (f(tri.a()), f(tri.b()), f(tri.c()));
        let rebuilt = a + (b - a) * u as f64 + (c - a) * v as f64;
        let point = f(ray.origin()) + f(&Point::from(*ray.dir())) * hit.toi as f64;
        let size = [a, b, c, f(ray.origin()), point].iter().map(|p| p.amax()).fold(0.0, f64::max);
        let n = (b - a).cross(&(c - a));
        let cond = (b - a).norm() * (c - a).norm() / n.norm();
        let d = f(&Point::from(*ray.dir()));
        let grazing = n.norm() * d.norm() / n.dot(&d).abs();
        let err = (rebuilt - point).norm() / size;
        assert!(
            err <= 1e-5 * cond * grazing,
            "case {i}: point off by {err} of {size} (cond {cond}, grazing {grazing}); {ray:?} {tri:?}"
        );
        worst = worst.max(err);
        let tol = (1e-4 * cond) as Real;
        assert!(u >= -tol && v >= -tol && u + v <= 1.0 + tol, "case {i}: u {u}, v {v}; {ray:?} {tri:?}");
    }
    // Aims fill a square of weights in [-0.2, 1.2]: about a quarter hit.
    assert!(hits > n / 8, "{hits} hits of {n}");
    // The bound is not loose by orders of magnitude (the check could fail).
    assert!(worst > 1e-8, "largest relative error {worst}");
}
