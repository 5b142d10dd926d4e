//! Every pair within the prediction gets a manifold: shapes placed a gap of
//! 0, 1e-9, 1e-7, 1e-5 or just under the prediction apart (along a random
//! direction, by their support points) for every shape pair, against an f64
//! oracle of their distance computed from the f32 inputs.
//!
//! Checks, with prediction `P = 0.02`:
//! - a pair whose exact distance is at most `P - BAND` has a manifold (the
//!   f32 contact test may call a pair 1e-8 apart "apart" while its computed
//!   distance rounds to 0: that pair touches, it must not lose its contact);
//! - the manifold's deepest point is within `TOL` of the exact distance:
//!   `|max(-depth, 0) - distance| <= TOL`.
//!
//! `BAND = TOL = 1e-5`: the shapes have sizes 0.1-1 and lie within 3 of the
//! origin, where one f32 rounding is ~2e-7 and the distance functions
//! accumulate a few; placed by support points, the gap itself is only
//! approximate (the oracle measures the f32 shapes as given).

mod common_np;

use common_np::*;
use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::minimize::convex_min;
use proxima_test_support::{rng, Rng, SmallRng};

const PREDICTION: Real = 0.02;
const BAND: f64 = 1e-5;
const TOL: f64 = 1e-5;
const CASES: usize = 20_000;
/// Golden-section steps of the exact distances' searches (a bracket of ~1e-17).
const STEPS: u32 = 80;

/// The gaps the shapes are placed at.
fn gap(rng: &mut SmallRng) -> Real {
    [0.0, 1e-9, 1e-7, 1e-5, PREDICTION - 2e-5][rng.random_range(0..5)]
}

/// A shape of the test with its support function and its oracle.
trait Shape: Copy {
    fn support(&self, n: &Vector) -> Point;
    /// A direction along which the shape's support is a face or a side
    /// (a placement along it puts the shapes exactly `gap` apart), if any.
    fn flat_side(&self, _: &mut SmallRng) -> Option<Vector> {
        None
    }
    fn translated(&self, v: &Vector) -> Self;
}

impl Shape for Sphere {
    fn support(&self, n: &Vector) -> Point {
        self.center() + n * self.radius()
    }
    fn translated(&self, v: &Vector) -> Self {
        Sphere::new(self.center() + v, self.radius())
    }
}

impl Shape for Capsule {
    fn support(&self, n: &Vector) -> Point {
        let end = if (self.b() - self.a()).dot(n) >= 0.0 { self.b() } else { self.a() };
        end + n * self.radius()
    }
    fn translated(&self, v: &Vector) -> Self {
        Capsule::new(self.a() + v, self.b() + v, self.radius())
    }
    fn flat_side(&self, rng: &mut SmallRng) -> Option<Vector> {
        let axis = (self.b() - self.a()).try_normalize(0.0)?;
        let w = gen::unit_vector(rng);
        (w - axis * w.dot(&axis)).try_normalize(1e-3)
    }
}

impl Shape for Obb {
    fn support(&self, n: &Vector) -> Point {
        let local = self.to_local_vector(n);
        self.to_world(&self.half_extents().zip_map(&local, |h, d| if d >= 0.0 { h } else { -h }))
    }
    fn translated(&self, v: &Vector) -> Self {
        Obb::new(self.center() + v, *self.rotation(), *self.half_extents())
    }
    fn flat_side(&self, rng: &mut SmallRng) -> Option<Vector> {
        let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        Some(self.axes().column(rng.random_range(0..3)) * sign)
    }
}

impl Shape for Triangle {
    fn support(&self, n: &Vector) -> Point {
        let v = self.vertices();
        *v.iter().max_by(|p, q| p.coords.dot(n).total_cmp(&q.coords.dot(n))).unwrap_or(&v[0])
    }
    fn translated(&self, v: &Vector) -> Self {
        let [a, b, c] = self.vertices();
        Triangle::new(a + v, b + v, c + v)
    }
    fn flat_side(&self, rng: &mut SmallRng) -> Option<Vector> {
        let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        self.scaled_normal().try_normalize(0.0).map(|n| n * sign)
    }
}

/// B moved so that its support point along `-n` lies `gap` beyond A's
/// support point along `n`.
fn place<A: Shape, B: Shape>(a: &A, b: &B, n: &Vector, gap: Real) -> B {
    let along = (a.support(n) - b.support(&-n)).dot(n) + gap;
    b.translated(&(n * along))
}

/// Distance from a point to an OBB in f64 (0 inside).
fn point_obb(p: &V64, o: &Obb) -> f64 {
    let local = o.axes().cast::<f64>().tr_mul(&(p - v64(o.center())));
    point_box_signed_distance_f64(&local, &o.half_extents().cast::<f64>()).max(0.0)
}

/// Segment to triangle distance in f64: 0 when the segment crosses the
/// triangle, else the least of its ends to the triangle and its segment to
/// the three edges.
fn segment_triangle(p: &V64, q: &V64, t: &Triangle) -> f64 {
    let [a, b, c] = t.vertices().map(|x| v64(&x));
    let n = (b - a).cross(&(c - a));
    let (dp, dq) = ((p - a).dot(&n), (q - a).dot(&n));
    if dp * dq < 0.0 {
        let x = p + (q - p) * (dp / (dp - dq));
        if point_triangle_distance_f64(&x, &a, &b, &c) == 0.0 {
            return 0.0;
        }
    }
    [point_triangle_distance_f64(p, &a, &b, &c), point_triangle_distance_f64(q, &a, &b, &c)]
        .into_iter()
        .chain([(a, b), (b, c), (c, a)].iter().map(|(x, y)| segment_segment_distance_f64(p, q, x, y)))
        .fold(f64::INFINITY, f64::min)
}

#[derive(Default)]
struct Tally {
    cases: usize,
    within: usize,
    missing: Vec<String>,
    off: Vec<String>,
    worst: f64,
}

impl Tally {
    fn check(&mut self, what: &str, exact: f64, m: Option<ContactManifold>, describe: impl Fn() -> String) {
        self.cases += 1;
        if exact <= PREDICTION as f64 - BAND {
            self.within += 1;
            if m.is_none() {
                self.missing.push(format!("{what}: distance {exact:.3e}, no manifold: {}", describe()));
                return;
            }
        }
        let Some(m) = m else { return };
        let err = ((-m.deepest().depth as f64).max(0.0) - exact.max(0.0)).abs();
        self.worst = self.worst.max(err);
        if err > TOL {
            self.off.push(format!("{what}: distance {exact:.3e}, deepest {:?}: {}", m.deepest(), describe()));
        }
    }

    fn assert_ok(&self, what: &str) {
        println!(
            "{what}: {} cases, {} within the prediction, {} without a manifold, worst depth error {:.2e}",
            self.cases,
            self.within,
            self.missing.len(),
            self.worst
        );
        assert!(self.within > self.cases / 5, "{what}: too few pairs within the prediction");
        let show = |v: &[String]| v.iter().take(3).cloned().collect::<Vec<_>>().join("\n");
        assert!(
            self.missing.is_empty(),
            "{what}: pairs within the prediction without a manifold:\n{}",
            show(&self.missing)
        );
        assert!(self.off.is_empty(), "{what}: deepest point off the distance:\n{}", show(&self.off));
    }
}

fn run<A: Shape + std::fmt::Debug, B: Shape + std::fmt::Debug>(
    what: &str,
    seed: u64,
    make: impl Fn(&mut SmallRng) -> (A, B),
    manifold: impl Fn(&A, &B, Real) -> Option<ContactManifold>,
    distance: impl Fn(&A, &B) -> f64,
) {
    let mut rng = rng(seed);
    let mut tally = Tally::default();
    for _ in 0..CASES {
        let (a, b) = make(&mut rng);
        // A flat side of A (outward) or of B (inward), or any direction.
        let n = match rng.random_range(0..3) {
            0 => a.flat_side(&mut rng),
            1 => b.flat_side(&mut rng).map(|n| -n),
            _ => None,
        };
        let n = n.unwrap_or_else(|| gen::unit_vector(&mut rng));
        let b = place(&a, &b, &n, gap(&mut rng));
        let m = manifold(&a, &b, PREDICTION);
        tally.check(what, distance(&a, &b), m, || format!("{a:?} {b:?}"));
    }
    tally.assert_ok(what);
}

fn shapes() -> Placement {
    Placement::new(0.0, 0.1, 1.0)
}

#[test]
fn round_pairs_keep_their_manifold_at_contact() {
    let p = shapes();
    run(
        "sphere-sphere",
        3301,
        |r| (gen::sphere(r, &p), gen::sphere(r, &p)),
        contact_manifold_sphere_sphere,
        |a, b| (v64(a.center()) - v64(b.center())).norm() - a.radius() as f64 - b.radius() as f64,
    );
    run(
        "sphere-obb",
        3302,
        |r| (gen::sphere(r, &p), gen::obb(r, &p)),
        contact_manifold_sphere_obb,
        |a, b| point_obb(&v64(a.center()), b) - a.radius() as f64,
    );
    run(
        "sphere-capsule",
        3303,
        |r| (gen::sphere(r, &p), gen::capsule(r, &p)),
        contact_manifold_sphere_capsule,
        |a, b| {
            point_segment_distance_f64(&v64(a.center()), &v64(b.a()), &v64(b.b())) - (a.radius() + b.radius()) as f64
        },
    );
    run(
        "sphere-triangle",
        3304,
        |r| (gen::sphere(r, &p), gen::triangle(r, &p)),
        contact_manifold_sphere_triangle,
        |a, b| {
            let [x, y, z] = b.vertices().map(|v| v64(&v));
            point_triangle_distance_f64(&v64(a.center()), &x, &y, &z) - a.radius() as f64
        },
    );
    run(
        "capsule-capsule",
        3305,
        |r| (gen::capsule(r, &p), gen::capsule(r, &p)),
        contact_manifold_capsule_capsule,
        |a, b| {
            segment_segment_distance_f64(&v64(a.a()), &v64(a.b()), &v64(b.a()), &v64(b.b()))
                - (a.radius() + b.radius()) as f64
        },
    );
}

#[test]
fn faceted_pairs_keep_their_manifold_at_contact() {
    let p = shapes();
    run(
        "capsule-obb",
        3306,
        |r| (gen::capsule(r, &p), gen::obb(r, &p)),
        contact_manifold_capsule_obb,
        |a, b| {
            let (s, t) = (v64(a.a()), v64(a.b()));
            convex_min(|u| point_obb(&(s + (t - s) * u), b), 0.0, 1.0, STEPS).value - a.radius() as f64
        },
    );
    run(
        "capsule-triangle",
        3307,
        |r| (gen::capsule(r, &p), gen::triangle(r, &p)),
        contact_manifold_capsule_triangle,
        |a, b| segment_triangle(&v64(a.a()), &v64(a.b()), b) - a.radius() as f64,
    );
    run(
        "obb-triangle",
        3308,
        |r| (gen::obb(r, &p), gen::triangle(r, &p)),
        contact_manifold_obb_triangle,
        |a, b| {
            // Over the triangle `x + u (y - x) + v (z - x)`, `v <= 1 - u`:
            // the distance is convex in (u, v), so nested searches find it.
            let [x, y, z] = b.vertices().map(|v| v64(&v));
            let in_u =
                |u: f64| convex_min(|w| point_obb(&(x + (y - x) * u + (z - x) * ((1.0 - u) * w)), a), 0.0, 1.0, STEPS);
            convex_min(|u| in_u(u).value, 0.0, 1.0, STEPS).value
        },
    );
    run(
        "obb-obb (axis-aligned)",
        3309,
        |r| {
            let a = gen::aabb(r, &p);
            let b = gen::aabb(r, &p);
            (Obb::from_aabb(&a), Obb::from_aabb(&b))
        },
        contact_manifold_obb_obb,
        |a, b| {
            // The largest per-axis gap: the separation along the SAT's most
            // separating axis, which the box manifold reports. It equals the
            // distance for boxes apart along one axis, and is below it (a
            // speculative point nearer than the boxes are: conservative for
            // a solver) for boxes apart along two or three.
            (0..3)
                .map(|i| {
                    let d = (a.center()[i] as f64 - b.center()[i] as f64).abs();
                    d - a.half_extents()[i] as f64 - b.half_extents()[i] as f64
                })
                .fold(0.0, f64::max)
        },
    );
}
