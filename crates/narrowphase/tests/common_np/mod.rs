//! Shared helpers of the narrowphase differential tests: parry3d oracles and
//! the tallies that compare a boolean or a contact over many seeded cases.
#![allow(dead_code)]

use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::Shape;
use proxima_narrowphase::{Contact, Point, Real, Vector};
use proxima_test_support::SmallRng;
use std::fmt::Debug;

/// Cases per function in the randomized tests: 200,000, so rare branches are reached.
pub const CASES: usize = 200_000;

/// The signed distance between two parry shapes: the separation when they are
/// disjoint (parry's `distance`), minus the penetration depth when they
/// overlap (parry's `contact`, whose `dist` is negative then).
pub fn parry_signed_distance(p1: &Pose, g1: &dyn Shape, p2: &Pose, g2: &dyn Shape) -> Real {
    let d = query::distance(p1, g1, p2, g2).expect("parry supports the pair").distance;
    if d > 0.0 {
        return d;
    }
    match query::contact(p1, g1, p2, g2, 0.0).expect("parry supports the pair") {
        Some(c) => c.dist.min(0.0),
        None => 0.0,
    }
}

/// parry's boolean overlap test.
pub fn parry_intersects(p1: &Pose, g1: &dyn Shape, p2: &Pose, g2: &dyn Shape) -> bool {
    query::intersection_test(p1, g1, p2, g2).expect("parry supports the pair").intersecting
}

/// The outcome of a boolean differential run.
#[derive(Debug, Default)]
pub struct BoolTally {
    /// Cases run.
    pub n: usize,
    /// Cases the oracle calls intersecting (signed distance <= 0).
    pub oracle_true: usize,
    /// Cases within the touching band, `|signed distance| <= band`.
    pub in_band: usize,
    /// Of those, the cases where proxima and parry disagree (allowed).
    pub in_band_disagree: usize,
    /// Cases outside the band where parry disagrees with the oracle.
    pub parry_wrong: usize,
}

/// Runs `CASES` seeded cases of a boolean query against parry and an oracle.
///
/// `ours` and `parry` answer each case; `signed_distance` is the oracle (an
/// f64 computation, or parry's `distance`/`contact`): negative or zero means
/// intersecting. Outside the touching band `|signed distance| <= band`, ours
/// must agree with the oracle and with parry, except that parry may be wrong
/// (disagree with the oracle) in at most `max_parry_wrong` cases, for parry
/// tests that stop at a tolerance (GJK). Asserts at most `max_in_band` cases
/// in the band and an intersecting fraction in `[0.3, 0.7]`.
pub fn check_bool<C: Debug>(
    name: &str,
    seed: u64,
    band: Real,
    max_in_band: usize,
    max_parry_wrong: usize,
    mut gen: impl FnMut(&mut SmallRng) -> C,
    ours: impl Fn(&C) -> bool,
    parry: impl Fn(&C) -> bool,
    signed_distance: impl Fn(&C) -> f64,
) -> BoolTally {
    let mut rng = proxima_test_support::rng(seed);
    let mut t = BoolTally::default();
    let mut hard = Vec::new();
    for k in 0..CASES {
        let c = gen(&mut rng);
        let (o, p) = (ours(&c), parry(&c));
        let sd = signed_distance(&c);
        let truth = sd <= 0.0;
        t.n += 1;
        t.oracle_true += truth as usize;
        if sd.abs() <= band as f64 {
            t.in_band += 1;
            t.in_band_disagree += (o != p) as usize;
            continue;
        }
        if p != truth {
            t.parry_wrong += 1;
        }
        if o != truth || (o != p && max_parry_wrong == 0) {
            hard.push(format!("case {k}: ours {o}, parry {p}, signed distance {sd:e}: {c:?}"));
        }
    }
    let frac = t.oracle_true as f64 / t.n as f64;
    eprintln!(
        "{name}: n {} true {frac:.3} in-band {} (disagree {}) parry-vs-oracle disagreements {}",
        t.n, t.in_band, t.in_band_disagree, t.parry_wrong
    );
    assert!(
        hard.is_empty(),
        "{name}: {} disagreements outside the band {band:e}: {:#?}",
        hard.len(),
        &hard[..hard.len().min(5)]
    );
    assert!(t.parry_wrong <= max_parry_wrong, "{name}: parry disagrees with the oracle {} times", t.parry_wrong);
    assert!((0.3..=0.7).contains(&frac), "{name}: true fraction {frac:.3} outside [0.3, 0.7]");
    assert!(t.in_band <= max_in_band, "{name}: {} cases in the band (max {max_in_band})", t.in_band);
    t
}

/// Checks the conventions every [`Contact`] must satisfy: unit normal,
/// `depth >= 0`, and `point_a - point_b ≈ depth * normal` within `tol`.
pub fn contact_invariants(c: &Contact, tol: Real) -> Result<(), String> {
    let nlen = c.normal.norm();
    if (nlen - 1.0).abs() > 1e-5 {
        return Err(format!("normal length {nlen}"));
    }
    if c.depth.is_nan() || c.depth < 0.0 {
        return Err(format!("depth {}", c.depth));
    }
    let gap = (c.point_a - c.point_b) - c.normal.into_inner() * c.depth;
    if gap.norm() > tol {
        return Err(format!("point_a - point_b - depth * normal = {gap:?}"));
    }
    Ok(())
}

/// Distance between two points as `f32`.
pub fn dist(a: &Point, b: &Point) -> Real {
    (a - b).norm()
}

/// Distance between two vectors.
pub fn vdist(a: &Vector, b: &Vector) -> Real {
    (a - b).norm()
}

/// f64 vectors for the oracles.
pub type V64 = nalgebra::Vector3<f64>;

/// A point or vector widened to f64.
pub fn v64(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// Distance from `p` to the segment `[a, b]` in f64: the projection
/// parameter clamped to `[0, 1]`; a zero-length segment is the point `a`.
pub fn point_segment_distance_f64(p: &V64, a: &V64, b: &V64) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    let t = if len2 > 0.0 { ((p - a).dot(&ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).norm()
}

/// Distance between segments `[p1, q1]` and `[p2, q2]` in f64, by brute
/// force over the candidate set: `|p1 + s d1 - p2 - t d2|^2` is a convex
/// quadratic on the unit square, so its minimum is either the interior
/// critical point (when the 2x2 normal equations are regular and their
/// solution lies in the square) or on one of the square's four edges, each of
/// which is an endpoint-to-segment distance.
pub fn segment_segment_distance_f64(p1: &V64, q1: &V64, p2: &V64, q2: &V64) -> f64 {
    let mut best = point_segment_distance_f64(p1, p2, q2)
        .min(point_segment_distance_f64(q1, p2, q2))
        .min(point_segment_distance_f64(p2, p1, q1))
        .min(point_segment_distance_f64(q2, p1, q1));
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, b, e) = (d1.dot(&d1), d1.dot(&d2), d2.dot(&d2));
    let (c, f) = (d1.dot(&r), d2.dot(&r));
    let det = a * e - b * b;
    // Regular when the lines are not parallel (relative to their lengths).
    if det > 1e-12 * a * e {
        // Normal equations: a s - b t = -c, b s - e t = -f.
        let s = (b * f - c * e) / det;
        let t = (a * f - b * c) / det;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min((r + d1 * s - d2 * t).norm());
        }
    }
    best
}

/// Distance from `p` to the triangle `abc` in f64: the distance to its plane
/// when the projection falls inside (all three edge tests agree with the
/// normal), else the nearest of the three edges. Degenerate triangles have no
/// plane and use the edges.
pub fn point_triangle_distance_f64(p: &V64, a: &V64, b: &V64, c: &V64) -> f64 {
    let n = (b - a).cross(&(c - a));
    let n2 = n.norm_squared();
    let scale2 = (b - a).norm_squared().max((c - a).norm_squared()).max((c - b).norm_squared());
    if n2 > 1e-12 * scale2 * scale2 {
        let inside = (b - a).cross(&(p - a)).dot(&n) >= 0.0
            && (c - b).cross(&(p - b)).dot(&n) >= 0.0
            && (a - c).cross(&(p - c)).dot(&n) >= 0.0;
        if inside {
            return (p - a).dot(&n).abs() / n2.sqrt();
        }
    }
    point_segment_distance_f64(p, a, b)
        .min(point_segment_distance_f64(p, b, c))
        .min(point_segment_distance_f64(p, c, a))
}

/// Signed distance from a point, given in the box frame, to the box
/// `[-h, h]`, in f64: outside, the distance to the clamped point; inside,
/// minus the distance to the nearest face.
pub fn point_box_signed_distance_f64(local: &V64, h: &V64) -> f64 {
    let mut out = 0.0f64;
    let mut inside = f64::INFINITY;
    for i in 0..3 {
        let o = (local[i].abs() - h[i]).max(0.0);
        out += o * o;
        inside = inside.min(h[i] - local[i].abs());
    }
    if out > 0.0 {
        out.sqrt()
    } else {
        -inside
    }
}

/// A point expressed in an OBB's frame, in f64 (the rotation matrix widened).
pub fn obb_local_f64(p: &Point, obb: &proxima_narrowphase::Obb) -> V64 {
    let r = obb.axes().cast::<f64>();
    r.tr_mul(&(v64(p) - v64(obb.center())))
}

/// The point of segment `[a, b]` closest to `p`, in f64.
pub fn closest_on_segment_f64(p: &V64, a: &V64, b: &V64) -> V64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    let t = if len2 > 0.0 { ((p - a).dot(&ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    a + ab * t
}

/// The point of triangle `abc` closest to `p`, in f64: the projection onto
/// the plane when it falls inside (edge-side tests against the normal), else
/// the nearest of the three edge projections. An independent formulation
/// from Ericson's Voronoi-region walk used by the library.
pub fn closest_on_triangle_f64(p: &V64, a: &V64, b: &V64, c: &V64) -> V64 {
    let n = (b - a).cross(&(c - a));
    let n2 = n.norm_squared();
    let scale2 = (b - a).norm_squared().max((c - a).norm_squared()).max((c - b).norm_squared());
    if n2 > 1e-12 * scale2 * scale2 {
        let q = p - n * ((p - a).dot(&n) / n2);
        let inside = (b - a).cross(&(q - a)).dot(&n) >= 0.0
            && (c - b).cross(&(q - b)).dot(&n) >= 0.0
            && (a - c).cross(&(q - c)).dot(&n) >= 0.0;
        if inside {
            return q;
        }
    }
    let cands = [closest_on_segment_f64(p, a, b), closest_on_segment_f64(p, b, c), closest_on_segment_f64(p, c, a)];
    let mut best = cands[0];
    for q in &cands[1..] {
        if (p - q).norm_squared() < (p - best).norm_squared() {
            best = *q;
        }
    }
    best
}
