//! Sweeps at every scale: swept spheres against oriented boxes, capsules and
//! moving spheres (axis-aligned boxes as a control) with shape sizes from
//! 0.1 to 5000, motions of 0.01 to 3 units that do not grow with the shape,
//! and shapes anywhere in `[-1e4, 1e4]^3`; and ray normals on spheres seen
//! from far origins.
//!
//! The oracle is written here, in f64, on the f32 inputs taken exactly:
//! `g(t) = dist(c + t m, shape) - r`, the gap between the moving sphere and
//! the shape, is convex in `t` (the distance to a convex set along a line),
//! so `g(0) <= 0` is a start in contact; otherwise a golden-section search
//! finds the minimum of `g` on `[0, 1]` (a positive minimum is a miss, by
//! that margin), and bisection finds the one root of `g` before it. The
//! distances are evaluated in f64 from the exact inputs (error ~1e-16 of
//! the coordinates, ~1e-12 at 1e4: 1e-10 of the shortest motion).
//!
//! The oriented box is the one its rotation defines: local coordinates
//! `A^T (y - c)` with `A` the rotation matrix of the quaternion normalised in
//! f64 (the f32 components taken exactly), not the f32 matrix `obb.axes()`,
//! whose ~6e-8 rounding moves a face of a box of size 5000 by 3e-4 (3e-2 of a
//! 0.01 motion).
//!
//! Checks per shape and size class (`CASES` seeded cases each, 30-70% hits):
//! - hit/miss and start-in-contact agree with the oracle outside the grazing
//!   band: the path's minimum gap (or the start's gap) within `BAND * |m|`
//!   of zero, where the answer turns on the last bits of the inputs;
//! - `|toi - toi*| <= TOI_TOL` (the contact within `1e-5 |m|` of the exact
//!   one along the motion) for every hit both report outside the band whose
//!   approach cosine `cos = -n.m / |m|` is at least `COS_MIN` (below it the
//!   root of the tangency is ill-conditioned: an error `e` in the gap moves
//!   it by `e / (|m| cos)`);
//! - the normal within `NORMAL_TOL` radians of the exact one, for the same
//!   hits and for starts in contact whose centre is outside the shape by
//!   more than the band.
//!
//! `cargo test --release -p proxima-narrowphase --test sweep_precision -- --nocapture`
//! prints the worst errors and the flips per class.

use nalgebra::{Matrix3, Vector3};
use proxima_narrowphase::*;
use proxima_test_support::{gen, rng, Rng, SmallRng};

type V = Vector3<f64>;

/// Shape size classes (box half-extent, capsule and sphere radius scale).
const SIZES: [f64; 5] = [0.1, 5.0, 50.0, 500.0, 5000.0];
/// Cases per size class.
const CASES: usize = 20_000;
/// Shapes are placed in `[-OFFSET, OFFSET]^3`.
const OFFSET: f32 = 1e4;
/// The required toi accuracy, as a fraction of the motion.
const TOI_TOL: f64 = 1e-5;
/// The grazing band, as a fraction of `|m|`: hit/miss is decided by the
/// sign of a gap; within `1e-5 |m|` (`>= 1e-7` units) of zero it is left
/// to rounding. The f32 inputs alone are exact, so outside the band an
/// answer computed with ~1e-12 error cannot flip.
const BAND: f64 = 1e-5;
/// Hits approaching with a cosine below this are tangential (see above);
/// they are checked for hit/miss only.
const COS_MIN: f64 = 1e-3;
/// The normal accuracy, radians.
const NORMAL_TOL: f64 = 1e-4;

fn v64(v: &Vector) -> V {
    v.cast::<f64>()
}

fn p64(p: &Point) -> V {
    p.coords.cast::<f64>()
}

fn f32v(v: &V) -> Vector {
    v.cast::<f32>()
}

/// `|m|` log-uniform in `[0.01, 3]`.
fn motion_length(rng: &mut SmallRng) -> f64 {
    (rng.random_range(0.01f64.ln()..3.0f64.ln())).exp()
}

fn unit(rng: &mut SmallRng) -> V {
    v64(&gen::unit_vector(rng))
}

/// The oracle's first contact of one sweep, from its gap function.
struct Exact {
    /// `g(0)`: `<= 0` is a start in contact.
    start: f64,
    /// `min g` over `[0, 1]`: `<= 0` is a hit.
    min: f64,
    /// The first root (0 for a start in contact), or `None` for a miss.
    toi: Option<f64>,
}

/// First contact of a convex gap function `g` on `[0, 1]`.
fn first_contact(g: impl Fn(f64) -> f64) -> Exact {
    let start = g(0.0);
    if start <= 0.0 {
        return Exact { start, min: start, toi: Some(0.0) };
    }
    // Golden section on the convex g.
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut x1, mut x2) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
    let (mut g1, mut g2) = (g(x1), g(x2));
    for _ in 0..120 {
        if g1 <= g2 {
            hi = x2;
            (x2, g2) = (x1, g1);
            x1 = hi - phi * (hi - lo);
            g1 = g(x1);
        } else {
            lo = x1;
            (x1, g1) = (x2, g2);
            x2 = lo + phi * (hi - lo);
            g2 = g(x2);
        }
    }
    let mut best = (x1, g1);
    for t in [0.0, 1.0, x2] {
        let gt = g(t);
        if gt < best.1 {
            best = (t, gt);
        }
    }
    let (t_min, min) = best;
    if min > 0.0 {
        return Exact { start, min, toi: None };
    }
    let (mut a, mut b) = (0.0f64, t_min);
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if mid <= a || mid >= b {
            break;
        }
        if g(mid) > 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    Exact { start, min, toi: Some(b) }
}

/// One sweep as the oracle sees it: the gap and the exact normal (world
/// frame, out of the shape) at any `t`, and the motion that `toi` scales.
struct Case {
    gap: Box<dyn Fn(f64) -> f64>,
    normal: Box<dyn Fn(f64) -> V>,
    motion: V,
    /// True when the centre at `t = 0` is strictly outside the core shape
    /// (box, segment, sphere centre), so the start's normal is defined.
    outside_core: bool,
}

/// Tallies of one shape and size class.
#[derive(Default)]
struct Stats {
    cases: usize,
    hits: usize,
    starts: usize,
    banded: usize,
    flips: usize,
    toi_max: f64,
    toi_over: usize,
    normal_max: f64,
    normal_over: usize,
    first_failure: Option<String>,
}

impl Stats {
    fn fail(&mut self, what: String) {
        if self.first_failure.is_none() {
            self.first_failure = Some(what);
        }
    }

    fn check(&mut self, i: usize, case: &Case, got: Option<SweepHit>) {
        let len = case.motion.norm();
        let band = BAND * len;
        let exact = first_contact(&case.gap);
        self.cases += 1;
        self.hits += exact.toi.is_some() as usize;
        self.starts += (exact.start <= 0.0) as usize;
        if exact.min.abs() <= band || exact.start.abs() <= band {
            self.banded += 1;
        }
        let hit_decided = exact.min.abs() > band;
        let start_decided = exact.start.abs() > band;
        if hit_decided && exact.toi.is_some() != got.is_some() {
            self.flips += 1;
            self.fail(format!("case {i}: oracle {:?} (min gap {:e}), got {got:?}", exact.toi, exact.min));
            return;
        }
        let (Some(t), Some(h)) = (exact.toi, got) else { return };
        if start_decided && (exact.start <= 0.0) != (h.status == SweepStatus::Penetrating) {
            self.flips += 1;
            self.fail(format!("case {i}: start gap {:e}, got {h:?}", exact.start));
            return;
        }
        let n = (case.normal)(t);
        if exact.start <= 0.0 {
            if start_decided && case.outside_core {
                self.normal(i, &n, &h);
            }
            return;
        }
        let cos = -n.dot(&case.motion) / len;
        if !hit_decided || !start_decided || cos < COS_MIN {
            return;
        }
        let err = (h.toi as f64 - t).abs();
        self.toi_max = self.toi_max.max(err);
        if err > TOI_TOL {
            self.toi_over += 1;
            self.fail(format!("case {i}: toi {} vs {t} (cos {cos:.3e}, |m| {len:.3e})", h.toi));
        }
        self.normal(i, &n, &h);
    }

    fn normal(&mut self, i: usize, exact: &V, h: &SweepHit) {
        let err = (v64(&h.normal) - exact).norm();
        self.normal_max = self.normal_max.max(err);
        if err > NORMAL_TOL {
            self.normal_over += 1;
            self.fail(format!("case {i}: normal {:?} vs {exact:?}", h.normal));
        }
    }

    fn report(&self, shape: &str, size: f64) -> bool {
        println!(
            "{shape:>14} size {size:>6}: {} cases, {:.0}% hits, {:.0}% starts, {} in band; flips {}; \
             max |toi - toi*| {:.2e} ({} > {TOI_TOL:e}); max normal error {:.2e} ({} > {NORMAL_TOL:e})",
            self.cases,
            100.0 * self.hits as f64 / self.cases as f64,
            100.0 * self.starts as f64 / self.cases as f64,
            self.banded,
            self.flips,
            self.toi_max,
            self.toi_over,
            self.normal_max,
            self.normal_over,
        );
        if let Some(f) = &self.first_failure {
            println!("{:>14} first failure: {f}", "");
        }
        let hit_rate = self.hits as f64 / self.cases as f64;
        self.flips == 0 && self.toi_over == 0 && self.normal_over == 0 && (0.3..=0.7).contains(&hit_rate)
    }
}

/// The kinds of start the generators draw: a general approach, a start in
/// contact (gap exactly 0 before rounding), a motion parallel to the
/// surface (sliding), a grazing pass at a gap of `~BAND |m|`.
#[derive(Clone, Copy)]
enum Kind {
    Approach,
    Touching,
    Parallel,
    Grazing,
}

fn kind(rng: &mut SmallRng) -> Kind {
    match rng.random_range(0..20) {
        0 => Kind::Touching,
        1 | 2 => Kind::Parallel,
        3 => Kind::Grazing,
        _ => Kind::Approach,
    }
}

/// Start offset and motion direction for a surface point with outward
/// normal `n` and a sphere `reach` from the surface when touching (`r`, or
/// `r + rc`), with a random [`Kind`] and motion length: (centre - surface
/// point, motion).
fn approach(rng: &mut SmallRng, n: &V, reach: f64) -> (V, V) {
    let (k, len) = (kind(rng), motion_length(rng));
    let side = {
        let w = unit(rng);
        let s = w - n * w.dot(n);
        if s.norm() > 1e-3 {
            s.normalize()
        } else {
            n.cross(&V::x()).try_normalize(0.0).unwrap_or_else(|| n.cross(&V::y()).normalize())
        }
    };
    match k {
        Kind::Approach => {
            let gap = len * rng.random_range(-0.2..1.3);
            let dir = (-n + unit(rng) * 0.8).normalize();
            (n * (reach + gap), dir * len)
        }
        Kind::Touching => {
            let dir = (-n * rng.random_range(-1.0..1.0) + side).normalize();
            (n * reach, dir * len)
        }
        Kind::Parallel => (n * (reach + len * rng.random_range(-0.5..0.5)), side * len),
        Kind::Grazing => (n * (reach + len * BAND * rng.random_range(-3.0..3.0)), side * len),
    }
}

/// A box surface point in local coordinates and its outward (face, edge or
/// vertex) direction.
fn box_surface(rng: &mut SmallRng, h: &V) -> (V, V) {
    let mut x = V::from_fn(|i, _| h[i] * rng.random_range(-1.0..1.0));
    let snapped = match rng.random_range(0..10) {
        0..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    let first = rng.random_range(0..3usize);
    let mut n = V::zeros();
    for j in 0..snapped {
        let i = (first + j) % 3;
        let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        x[i] = s * h[i];
        n[i] = s;
    }
    if snapped > 1 {
        // A direction inside the edge's or vertex's normal cone.
        n = V::from_fn(|i, _| n[i] * rng.random_range(0.05..1.0));
    }
    (x, n.normalize())
}

/// Gap and normal of a sphere of radius `r` starting at world `p`, moving by
/// `m`, against the box of local frame `x = A^T (y - c)` and half-extents `h`.
fn box_case(p: V, m: V, r: f64, c: V, a: Matrix3<f64>, h: V) -> Case {
    let local = move |t: f64| a.tr_mul(&(p - c)) + a.tr_mul(&m) * t;
    let clamp = move |x: V| x.sup(&-h).inf(&h);
    let x0 = local(0.0);
    Case {
        gap: Box::new(move |t| {
            let x = local(t);
            (x - clamp(x)).norm() - r
        }),
        normal: Box::new(move |t| {
            let x = local(t);
            a * (x - clamp(x)).normalize()
        }),
        motion: m,
        outside_core: x0 != clamp(x0),
    }
}

/// The rotation matrix of the f32 quaternion `q`, normalised in f64:
/// `v -> q v q^-1` with every component taken exactly (nalgebra's own
/// conversion, in f64, as an oracle independent of the library's).
fn exact_rotation(q: &Rotation) -> Matrix3<f64> {
    let q = q.as_ref().cast::<f64>();
    nalgebra::UnitQuaternion::new_normalize(q).to_rotation_matrix().into_inner()
}

/// A random rotated box, sphere and motion of size class `size`.
fn obb_case(rng: &mut SmallRng, size: f64) -> (Sphere, Vector, Obb, Case) {
    let c = gen::point(rng, &gen::Placement::new(OFFSET, 0.0, 0.0));
    let h = V::from_fn(|_, _| size * rng.random_range(0.2..1.0));
    let obb = Obb::new(c, gen::rotation(rng), f32v(&h));
    let (c, a, h) = (p64(obb.center()), exact_rotation(obb.rotation()), v64(obb.half_extents()));
    let r = (size * rng.random_range(0.05..0.5)) as f32;
    let (q, n) = box_surface(rng, &h);
    let (off, dir) = approach(rng, &n, r as f64);
    let sphere = Sphere::new(Point::from(f32v(&(c + a * (q + off)))), r);
    let motion = f32v(&(a * dir));
    let case = box_case(p64(sphere.center()), v64(&motion), r as f64, c, a, h);
    (sphere, motion, obb, case)
}

/// The same with an axis-aligned box (the control: no frame change).
fn aabb_case(rng: &mut SmallRng, size: f64) -> (Sphere, Vector, Aabb, Case) {
    let c = gen::point(rng, &gen::Placement::new(OFFSET, 0.0, 0.0));
    let h = V::from_fn(|_, _| size * rng.random_range(0.2..1.0));
    let aabb = Aabb::new(c - f32v(&h), c + f32v(&h));
    let (lo, hi) = (p64(aabb.min()), p64(aabb.max()));
    // Centre and half-extents of [lo, hi] are exact in f64.
    let (c, h) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
    let r = (size * rng.random_range(0.05..0.5)) as f32;
    let (q, n) = box_surface(rng, &h);
    let (off, dir) = approach(rng, &n, r as f64);
    let sphere = Sphere::new(Point::from(f32v(&(c + q + off))), r);
    let motion = f32v(&dir);
    let case = box_case(p64(sphere.center()), v64(&motion), r as f64, c, Matrix3::identity(), h);
    (sphere, motion, aabb, case)
}

fn closest_on_segment(p: &V, a: &V, b: &V) -> V {
    let ab = b - a;
    let l2 = ab.norm_squared();
    if l2 == 0.0 {
        return *a;
    }
    a + ab * ((p - a).dot(&ab) / l2).clamp(0.0, 1.0)
}

/// A random capsule, sphere and motion of size class `size`.
fn capsule_case(rng: &mut SmallRng, size: f64) -> (Sphere, Vector, Capsule, Case) {
    let c = p64(&gen::point(rng, &gen::Placement::new(OFFSET, 0.0, 0.0)));
    let u = unit(rng) * size * rng.random_range(0.0..1.0);
    let capsule = Capsule::new(
        Point::from(f32v(&(c - u))),
        Point::from(f32v(&(c + u))),
        (size * rng.random_range(0.1..0.5)) as f32,
    );
    let (a, b, rc) = (p64(capsule.a()), p64(capsule.b()), capsule.radius() as f64);
    let r = (size * rng.random_range(0.05..0.5)) as f32;
    let s = rng.random_range(-0.3..1.3f64);
    let q = a + (b - a) * s.clamp(0.0, 1.0);
    let axis = (b - a).try_normalize(0.0).unwrap_or_else(V::z);
    let w = unit(rng);
    let n = if (0.0..=1.0).contains(&s) {
        (w - axis * w.dot(&axis)).normalize()
    } else {
        let along = if s < 0.0 { -axis } else { axis };
        (w + along * (w.dot(&along).abs() - w.dot(&along))).normalize()
    };
    let reach = r as f64 + rc;
    let (off, dir) = approach(rng, &n, reach);
    let sphere = Sphere::new(Point::from(f32v(&(q + off))), r);
    let motion = f32v(&dir);
    let (p, m) = (p64(sphere.center()), v64(&motion));
    let p0 = closest_on_segment(&p, &a, &b);
    let case = Case {
        gap: Box::new(move |t| {
            let x = p + m * t;
            (x - closest_on_segment(&x, &a, &b)).norm() - reach
        }),
        normal: Box::new(move |t| {
            let x = p + m * t;
            (x - closest_on_segment(&x, &a, &b)).normalize()
        }),
        motion: m,
        outside_core: p != p0,
    };
    (sphere, motion, capsule, case)
}

/// Two random spheres of size class `size`, both moving.
fn spheres_case(rng: &mut SmallRng, size: f64) -> (Sphere, Vector, Sphere, Vector, Case) {
    let target = Sphere::new(
        gen::point(rng, &gen::Placement::new(OFFSET, 0.0, 0.0)),
        (size * rng.random_range(0.1..1.0)) as f32,
    );
    let r = (size * rng.random_range(0.1..1.0)) as f32;
    let n = unit(rng);
    let reach = r as f64 + target.radius() as f64;
    let (off, rel) = approach(rng, &n, reach);
    let sphere = Sphere::new(Point::from(f32v(&(p64(target.center()) + off))), r);
    let motion_b = f32v(&(unit(rng) * rng.random_range(0.0..3.0)));
    let motion_a = f32v(&(rel + v64(&motion_b)));
    // The relative motion, exactly.
    let m = v64(&motion_a) - v64(&motion_b);
    let (p, cb) = (p64(sphere.center()), p64(target.center()));
    let case = Case {
        gap: Box::new(move |t| (p + m * t - cb).norm() - reach),
        normal: Box::new(move |t| (p + m * t - cb).normalize()),
        motion: m,
        outside_core: p != cb,
    };
    (sphere, motion_a, target, motion_b, case)
}

/// Runs `CASES` cases per size class through `run`; reports, then asserts.
fn sweep_classes(shape: &str, seed: u64, mut run: impl FnMut(&mut SmallRng, f64) -> (Case, Option<SweepHit>)) {
    let mut ok = true;
    for (k, &size) in SIZES.iter().enumerate() {
        let mut rng = rng(seed + k as u64);
        let mut stats = Stats::default();
        for i in 0..CASES {
            let (case, got) = run(&mut rng, size);
            stats.check(i, &case, got);
        }
        ok &= stats.report(shape, size);
    }
    assert!(ok, "{shape}: see the report above");
}

#[test]
fn sphere_obb_at_every_scale() {
    sweep_classes("sphere-obb", 1300, |rng, size| {
        let (s, m, b, case) = obb_case(rng, size);
        (case, cast_sphere_obb(&s, &m, &b))
    });
}

/// A pool of f32 quaternions unit to 1e-12 in f64 (`||q|^2 - 1|` computed
/// exactly from the f32 components), so the f32 input is the rotation
/// itself, whichever way a reader normalises it: the first three
/// components from a random unit quaternion, the fourth the f32 rounding of
/// `sqrt(1 - x^2 - y^2 - z^2)`, and `z` stepped by one ulp until that
/// rounding lands within 1e-12 (about one step in 10^5).
fn unit_quaternions(rng: &mut SmallRng, count: usize) -> Vec<Rotation> {
    (0..count)
        .map(|_| loop {
            // `z` walked towards 0 one ulp at a time (a nonzero float's bits
            // less one are the next float towards 0, whatever its sign) until
            // `w` comes out exact; a draw whose walk reaches 0 is redrawn.
            let u = gen::rotation(rng).into_inner().coords;
            let (x, y, mut z) = (u.x, u.y, u.z);
            while z != 0.0 {
                let s = 1.0 - [x, y, z].iter().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>();
                if s > 0.0 {
                    let w = (s.sqrt() as f32).copysign(u.w);
                    let err = (f64::from(w) * f64::from(w) - s).abs();
                    if err < 1e-12 {
                        return Rotation::new_unchecked(nalgebra::Quaternion::new(w, x, y, z));
                    }
                }
                z = f32::from_bits(z.to_bits() - 1);
            }
        })
        .collect()
}

/// Large rotated boxes, short motions: a sphere of radius 0.5 against boxes
/// of half-extent `h` on every axis, `h` in {0.1, 1, 50, 5000}, centred at
/// the origin or at (1e4, -1e4, 1e4), rotated by a quaternion that is exact
/// in f32. The sphere starts 0.01-3 outside a point `P` of a face (within
/// 0.9 h of its centre), an edge or a corner with outward normal `n`, in a
/// direction within ~70 degrees of `n`, and moves by 1.25 times the vector
/// to `P + 0.5 k n`, `k` in U(-0.5, 4) (`k < 1` ends in contact; the wider
/// range than the hits need keeps 30-70% of the sweeps hitting): hits,
/// grazes and misses with motions of 1-5 units that do not grow with the box. The f32 matrix of
/// the rotation put faces of the largest boxes ~1e-2 of the motion off.
#[test]
fn sphere_obb_large_rotated_boxes_short_motions() {
    const SWEEPS: usize = 20_000;
    let mut ok = true;
    for (k, &h) in [0.1f64, 1.0, 50.0, 5000.0].iter().enumerate() {
        for (j, centre) in [V::zeros(), V::new(1e4, -1e4, 1e4)].into_iter().enumerate() {
            let mut rng = rng(2600 + 10 * k as u64 + j as u64);
            let rotations = unit_quaternions(&mut rng, 256);
            let mut stats = Stats::default();
            for i in 0..SWEEPS {
                let rotation = rotations[i % rotations.len()];
                let obb = Obb::new(Point::from(f32v(&centre)), rotation, Vector::repeat(h as f32));
                let (c, a, hv) = (p64(obb.center()), exact_rotation(obb.rotation()), V::repeat(h));
                // A face point within 0.9 h of the face's centre, an edge point, or a corner.
                let snapped = rng.random_range(1..=3usize);
                let first = rng.random_range(0..3usize);
                let mut p = V::from_fn(|_, _| h * rng.random_range(-0.9..0.9));
                let mut n = V::zeros();
                for s in 0..snapped {
                    let axis = (first + s) % 3;
                    let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                    p[axis] = sign * h;
                    n[axis] = sign;
                }
                let n = n.normalize();
                // A direction within ~70 degrees of n (tan 70 = 2.75).
                let tilt = unit(&mut rng);
                let w = (n + (tilt - n * tilt.dot(&n)) * rng.random_range(0.0..2.75)).normalize();
                let start = p + w * (0.5 + rng.random_range(0.01..3.0));
                let target = p + n * 0.5 * rng.random_range(-0.5..4.0);
                let (start_w, motion_w) = (c + a * start, a * ((target - start) * 1.25));
                let sphere = Sphere::new(Point::from(f32v(&start_w)), 0.5);
                let motion = f32v(&motion_w);
                let case = box_case(p64(sphere.center()), v64(&motion), 0.5, c, a, hv);
                stats.check(i, &case, cast_sphere_obb(&sphere, &motion, &obb));
            }
            let label = if j == 0 { "obb at origin" } else { "obb at 1e4" };
            ok &= stats.report(label, h);
        }
    }
    assert!(ok, "see the report above");
}

#[test]
fn sphere_aabb_at_every_scale() {
    sweep_classes("sphere-aabb", 1400, |rng, size| {
        let (s, m, b, case) = aabb_case(rng, size);
        (case, cast_sphere_aabb(&s, &m, &b))
    });
}

#[test]
fn sphere_capsule_at_every_scale() {
    sweep_classes("sphere-capsule", 1500, |rng, size| {
        let (s, m, c, case) = capsule_case(rng, size);
        (case, cast_sphere_capsule(&s, &m, &c))
    });
}

#[test]
fn moving_spheres_at_every_scale() {
    sweep_classes("sphere-sphere", 1600, |rng, size| {
        let (a, ma, b, mb, case) = spheres_case(rng, size);
        let got = cast_sphere_moving_sphere(&a, &ma, &b, &mb);
        // The contact point is in world space at `toi`: check it against
        // the normal (it must be on `b`'s surface, moved with `b`).
        (case, got)
    });
}

/// The static target (`cast_sphere_sphere`): the moving case with `b` still.
#[test]
fn sphere_sphere_at_every_scale() {
    sweep_classes("sphere-static", 1700, |rng, size| {
        let (a, ma, b, mb, _) = spheres_case(rng, size);
        let m = ma - mb;
        let (p, cb, reach) = (p64(a.center()), p64(b.center()), a.radius() as f64 + b.radius() as f64);
        let mv = v64(&m);
        let case = Case {
            gap: Box::new(move |t| (p + mv * t - cb).norm() - reach),
            normal: Box::new(move |t| (p + mv * t - cb).normalize()),
            motion: mv,
            outside_core: p != cb,
        };
        (case, cast_sphere_sphere(&a, &m, &b))
    });
}

/// Rays on spheres from far origins (up to `2e4` away, `1e5` radii for the
/// smallest spheres): the unit normal at the hit within `RAY_NORMAL_TOL` of
/// the exact `(o + toi* d - c) / r` (f64 closed form on the exact inputs),
/// for hits approaching with `cos >= RAY_COS_MIN = 0.05`; hit/miss agreement when
/// the line passes farther than `BAND * r` from tangency.
#[test]
fn ray_sphere_normals_from_far_origins() {
    /// Normal accuracy: a few f32 roundings of a unit vector.
    const RAY_NORMAL_TOL: f64 = 1e-5;
    /// At a tangent hit the hit point slides fast along the sphere: an
    /// error `e` in the line's distance moves the normal by `~e / (r cos)`.
    /// The f32 kernel (origins within 8 radii) has `e ~ eps |m| <= 8 eps r`,
    /// `5e-6 / cos`: within the tolerance for `cos >= 0.05`.
    const RAY_COS_MIN: f64 = 0.05;
    let mut ok = true;
    for (k, &size) in SIZES.iter().enumerate() {
        let mut rng = rng(1800 + k as u64);
        let (mut hits, mut flips, mut worst, mut over) = (0, 0, 0.0f64, 0);
        let mut first = None;
        for i in 0..CASES {
            let sphere = Sphere::new(
                gen::point(&mut rng, &gen::Placement::new(OFFSET, 0.0, 0.0)),
                (size * rng.random_range(0.5..1.0)) as f32,
            );
            let (c, r) = (p64(sphere.center()), sphere.radius() as f64);
            let dist = (rng.random_range((2.0 * r).ln()..2e4f64.max(4.0 * r).ln())).exp();
            let origin = Point::from(f32v(&(c + unit(&mut rng) * dist)));
            let aim = c + unit(&mut rng) * r * rng.random_range(0.0..1.4);
            let dir = f32v(&(aim - p64(&origin)).normalize());
            let ray = Ray::new(origin, dir, 1e6);
            // Oracle: |m + t d|^2 = r^2 with the Lagrange discriminant.
            let (m, d) = (p64(&origin) - c, v64(&dir));
            let dd = d.norm_squared();
            let b = m.dot(&d);
            let disc = dd * r * r - m.cross(&d).norm_squared();
            let got = cast_ray_sphere(&ray, &sphere);
            let exact_hit = b < 0.0 && disc >= 0.0;
            hits += exact_hit as usize;
            // The line's distance from the centre is sqrt(r^2 - disc / dd).
            if (disc / dd).abs() > 2.0 * BAND * r * r && exact_hit != got.is_some() {
                flips += 1;
                first.get_or_insert(format!("case {i}: oracle hit {exact_hit}, got {got:?}"));
                continue;
            }
            let (true, Some(h)) = (exact_hit, got) else { continue };
            let toi = (m.norm_squared() - r * r) / (disc.sqrt() - b);
            let n = (m + d * toi) / r;
            if -n.dot(&d) / dd.sqrt() < RAY_COS_MIN {
                continue;
            }
            let err = (v64(&h.normal) - n).norm();
            worst = worst.max(err);
            if err > RAY_NORMAL_TOL {
                over += 1;
                first.get_or_insert(format!(
                    "case {i}: normal {:?} vs {n:?} (|m| / r = {:.1e}, cos {:.1e})",
                    h.normal,
                    m.norm() / r,
                    -n.dot(&d) / dd.sqrt()
                ));
            }
        }
        println!(
            "    ray-sphere size {size:>6}: {CASES} cases, {:.0}% hits; flips {flips}; max normal error {worst:.2e} ({over} > {RAY_NORMAL_TOL:e})",
            100.0 * hits as f64 / CASES as f64
        );
        if let Some(f) = first {
            println!("{:>14} first failure: {f}", "");
        }
        ok &= flips == 0 && over == 0;
    }
    assert!(ok, "ray-sphere: see the report above");
}
