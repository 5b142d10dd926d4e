//! Triangle-triangle overlap and contact against parry3d 0.31 and an f64
//! oracle: 3 x 120,000 seeded random pairs (general pairs at scales 1/128, 1
//! and 128; the same at coordinates around 1e4; nearly coplanar pairs), and
//! the edge cases (coplanar, shared edge, touching vertex, parallel edges,
//! degenerate triangles), as given, rotated and moved to 1e4.
//!
//! Oracles:
//! - the verdict's truth is an f64 distance between the triangles (0 when an
//!   edge crosses the other triangle, else the least of the 6
//!   vertex-triangle and 9 edge-edge distances), on the same f32 inputs and
//!   with no code shared with the library. Ours may call a pair touching
//!   only when that distance is below `1e-5` of the pair's extent;
//! - parry's `intersection_test` (GJK in f32), run on a unit-size copy of
//!   each pair (see [`unit`]). It may disagree with ours where its signed
//!   distance is within `BAND`, or where it contradicts the f64 oracle;
//!   both are counted and bounded;
//! - the depth: moving B by `depth + SEP` along our normal separates (f64
//!   distance >= SEP / 2) and moving it by `depth - SEP` does not (f64
//!   distance 0), so `depth` is the exit distance along the normal to
//!   `SEP`; `depth` is at most the support-function overlap along parry's
//!   normal (an upper bound of the penetration depth) plus `UPPER`; parry's
//!   EPA depth is compared, and every gap above 1e-3 must be parry's depth
//!   falling short (moving by it leaves the f64 pair intersecting);
//! - scale and translation invariance: the contact of a pair equals its
//!   unit copy's times the scale, bit for bit.

mod common_np;

use common_np::{contact_invariants, point_triangle_distance_f64, segment_segment_distance_f64, V64};
use parry3d::query;
use proxima_narrowphase::*;
use proxima_test_support::convert;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::Rng;

/// Random pairs per test: at least 100,000, so rare branches are reached.
const CASES: usize = 120_000;

/// Tangency band of the verdict against parry, on the unit copies: parry's
/// GJK answers either way within about `1e-4` (its f32 tolerances; it calls
/// pairs `1.0e-4` apart intersecting); ours touches within `1e-6` of the
/// extent.
const BAND: f64 = 1e-4;

/// The depth's translation test step, relative to the pair's scale: ten
/// times our depth's error (the `1e-6` tie band plus f32 rounding, both
/// relative to the extent, about 1 to 2 times the scale).
const SEP: f64 = 1e-5;

/// Slack of `depth <=` the support overlap along parry's normal (unit
/// copies): our tie band plus the rounding of both in f32.
const UPPER: f64 = 1e-5;

/// How far parry's EPA depth may exceed ours (unit copies): on nearly flat
/// pairs it overshoots the true depth by up to `9e-6` (seen; our depth is
/// pinned by the translation test there).
const PARRY_OVER: f64 = 2e-5;

fn tri64(t: &Triangle) -> [V64; 3] {
    t.vertices().map(|p| p.coords.cast())
}

/// True when segment `[p, q]` crosses triangle `t` with its endpoints
/// strictly on both sides of its plane: the line meets the triangle when the
/// three triple products `((t_i - p) x (t_{i+1} - p)) . (q - p)` share a sign
/// (Ericson 5.3.4). Differences of the f32 inputs are exact in f64.
fn crosses(p: &V64, q: &V64, t: &[V64; 3]) -> bool {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let (sp, sq) = (n.dot(&(p - t[0])), n.dot(&(q - t[0])));
    if sp * sq >= 0.0 {
        return false;
    }
    let d = q - p;
    let u = [0, 1, 2].map(|i| (t[i] - p).cross(&(t[(i + 1) % 3] - p)).dot(&d));
    u.iter().all(|&x| x >= 0.0) || u.iter().all(|&x| x <= 0.0)
}

/// The f64 distance between two triangles: 0 when an edge of one crosses
/// the other, else the least vertex-triangle or edge-edge distance (the
/// closest pair of two disjoint triangles involves a vertex and a face or
/// two edges, Ericson 5.1.9).
fn distance64(a: &[V64; 3], b: &[V64; 3]) -> f64 {
    let edge = |t: &[V64; 3], i: usize| (t[i], t[(i + 1) % 3]);
    for i in 0..3 {
        let ((p, q), (r, s)) = (edge(a, i), edge(b, i));
        if crosses(&p, &q, b) || crosses(&r, &s, a) {
            return 0.0;
        }
    }
    let mut d = f64::INFINITY;
    for i in 0..3 {
        d = d.min(point_triangle_distance_f64(&a[i], &b[0], &b[1], &b[2]));
        d = d.min(point_triangle_distance_f64(&b[i], &a[0], &a[1], &a[2]));
        for j in 0..3 {
            let ((p, q), (r, s)) = (edge(a, i), edge(b, j));
            d = d.min(segment_segment_distance_f64(&p, &q, &r, &s));
        }
    }
    d
}

/// B translated by `t` along the unit `n`, in f64.
fn moved64(t: &[V64; 3], n: &V64, by: f64) -> [V64; 3] {
    t.map(|v| v + n * by)
}

/// parry's signed distance: the gap when apart, minus its depth otherwise.
fn parry_signed(a: &Triangle, b: &Triangle) -> f64 {
    let ((pa, ta), (pb, tb)) = (convert::triangle(a), convert::triangle(b));
    let d = query::distance(&pa, &ta, &pb, &tb).unwrap().distance as f64;
    if d > 0.0 {
        return d;
    }
    match query::contact(&pa, &ta, &pb, &tb, 0.0).unwrap() {
        Some(c) => (c.dist as f64).min(0.0),
        None => 0.0,
    }
}

fn parry_intersects(a: &Triangle, b: &Triangle) -> bool {
    let ((pa, ta), (pb, tb)) = (convert::triangle(a), convert::triangle(b));
    query::intersection_test(&pa, &ta, &pb, &tb).unwrap().intersecting
}

/// A random pair of unit size, scaled by one of `scales` (powers of two, so
/// exactly) and moved to `origin`; and that scale. A is a random triangle
/// (vertices 0.1 to 1 from a centre); B is built around a random point of A
/// moved by up to `OFFSET` on each axis: B's vertices are random points
/// shifted so that a random convex combination of them is that moved point.
/// About half of the pairs intersect, many of them barely.
fn random_pair(rng: &mut impl Rng, origin: &Point, scales: &[Real]) -> (Triangle, Triangle, Real) {
    const OFFSET: Real = 0.25;
    let scale = scales[rng.random_range(0..scales.len())];
    let a = gen::triangle(rng, &Placement::new(0.5, 0.1, 1.0));
    let mut weights = || {
        let w = [0; 3].map(|_| gen::uniform(rng, 0.05, 1.0));
        w.map(|x| x / (w[0] + w[1] + w[2]))
    };
    let (wa, wb) = (weights(), weights());
    let on_a = a.vertices().iter().zip(wa).map(|(p, w)| p.coords * w).sum::<Vector>();
    let target = on_a + Vector::from_fn(|_, _| gen::uniform(rng, -OFFSET, OFFSET));
    let u = [0; 3].map(|_| gen::unit_vector(rng) * gen::uniform(rng, 0.1, 1.0));
    let mean = u.iter().zip(wb).map(|(x, w)| x * w).sum::<Vector>();
    let b = u.map(|x| Point::from(target + x - mean));
    let place = |v: [Point; 3]| {
        let v = v.map(|p| origin + p.coords * scale);
        Triangle::new(v[0], v[1], v[2])
    };
    (place(a.vertices()), place(b), scale)
}

/// The pair as parry gets it: moved back to the origin and divided by its
/// scale, both exact (Sterbenz for `x - 1e4` with `x` in `[5e3, 2e4]`, and
/// a power of two), so parry sees the same geometry at unit size, where its
/// absolute GJK tolerances are meant to work (at size 0.01 it reports
/// pairs 10% of their size apart as intersecting).
fn unit(t: &Triangle, origin: &Point, scale: Real) -> Triangle {
    let v = t.vertices().map(|p| Point::from((p - origin) / scale));
    Triangle::new(v[0], v[1], v[2])
}

#[derive(Debug, Default)]
struct Tally {
    hits: usize,
    parry_band: usize,
    parry_wrong: usize,
    oracle_band: usize,
    /// The largest f64 distance of a pair we call touching, over the pair's
    /// extent (the kernel's band is `1e-6` of it).
    oracle_band_max: f64,
    compared: usize,
    /// Largest `ours - parry` and `parry - ours` (unit-size copies).
    over_parry: f64,
    under_parry: f64,
    /// Cases where `|ours - parry| > 1e-3` (unit-size copies), each one
    /// where parry's depth is shown too small by the f64 oracle.
    far_from_parry: usize,
}

/// Checks one intersecting pair's contact: the f64 oracle on the pair as
/// given, and parry on its unit-size copy `(ua, ub)` (see [`unit`]).
fn check_contact(
    i: usize,
    (a, b): (&Triangle, &Triangle),
    (ua, ub): (&Triangle, &Triangle),
    scale: Real,
    t: &mut Tally,
) {
    let c = contact_triangle_triangle(a, b).expect("intersects_triangle_triangle said true");
    // The world points carry the rounding of their coordinates.
    let tol = 1e-4 * scale + 8.0 * Real::EPSILON * c.point_a.coords.amax();
    contact_invariants(&c, tol).unwrap_or_else(|e| panic!("case {i}: {e}; {c:?}; {a:?} {b:?}"));
    // Scale and translation invariance: the kernel works relative to A's
    // first vertex, and those differences are the unit copy's times `scale`,
    // exactly.
    let cu = contact_triangle_triangle(ua, ub).expect("the unit copy intersects too");
    assert!(c.depth == cu.depth * scale && c.normal == cu.normal, "case {i}: {c:?} vs unit {cu:?}");
    let (a64, b64) = (tri64(a), tri64(b));
    let n: V64 = c.normal.into_inner().cast();
    let (depth, scale) = (c.depth as f64, scale as f64);
    let sep = SEP * scale;
    let out = distance64(&a64, &moved64(&b64, &n, depth + sep));
    assert!(out >= 0.5 * sep, "case {i}: moving by depth {depth} + {sep} leaves a gap {out}; {a:?} {b:?} {c:?}");
    if depth > sep {
        let inside = distance64(&a64, &moved64(&b64, &n, depth - sep));
        assert!(inside == 0.0, "case {i}: moving by depth {depth} - {sep} separates ({inside}); {a:?} {b:?} {c:?}");
    }
    let ((pa, ta), (pb, tb)) = (convert::triangle(ua), convert::triangle(ub));
    let Ok(Some(p)) = query::contact(&pa, &ta, &pb, &tb, 0.0) else { return };
    let pn: V64 = convert::from_vec(p.normal1).cast::<f64>();
    if pn.norm().is_nan() || pn.norm() <= 0.5 {
        return; // parry gave no usable normal
    }
    let pn = pn.normalize();
    let support = |t: &[V64; 3], d: &V64| t.iter().map(|v| v.dot(d)).fold(f64::NEG_INFINITY, f64::max);
    let (ua64, ub64) = (tri64(ua), tri64(ub));
    let bound = support(&ua64, &pn) + support(&ub64, &-pn);
    let ours = cu.depth as f64;
    assert!(ours <= bound + UPPER, "case {i}: unit depth {ours} > {bound} along parry's normal; {cu:?}");
    let theirs = -(p.dist as f64);
    t.over_parry = t.over_parry.max(ours - theirs);
    t.under_parry = t.under_parry.max(theirs - ours);
    if (ours - theirs).abs() > 1e-3 {
        // Every large gap must be parry's EPA stopping short: moving B by
        // parry's depth (plus the step) along parry's normal leaves the
        // unit copies intersecting.
        let after = distance64(&ua64, &moved64(&ub64, &pn, theirs + SEP));
        assert!(after == 0.0, "case {i}: ours {ours}, parry {theirs} (a separating translation, gap {after})");
        t.far_from_parry += 1;
    }
    t.compared += 1;
}

/// A nearly coplanar pair of unit size, scaled and moved as in
/// [`random_pair`]: B is a random triangle in A's plane, shifted sideways,
/// then tilted by `10^U(-5, -2)` radians about a random axis through its
/// centroid and lifted off the plane by up to 0.15 times that angle.
fn near_coplanar_pair(rng: &mut impl Rng, origin: &Point, scales: &[Real]) -> (Triangle, Triangle, Real) {
    let scale = scales[rng.random_range(0..scales.len())];
    let a = gen::triangle(rng, &Placement::new(0.5, 0.1, 1.0));
    let n = a.scaled_normal().normalize();
    let in_plane = |rng: &mut _| {
        let v = gen::unit_vector(rng);
        (v - n * v.dot(&n)) * gen::uniform(rng, 0.1, 1.0)
    };
    let centre = a.vertices().iter().map(|p| p.coords).sum::<Vector>() / 3.0 + in_plane(rng) * 0.5;
    let angle = 10f32.powf(gen::uniform(rng, -5.0, -2.0));
    let tilt = Rotation::from_scaled_axis(gen::unit_vector(rng) * angle);
    let lift = n * angle * gen::uniform(rng, -0.15, 0.15);
    let b = [0; 3].map(|_| Point::from(centre + lift + tilt * in_plane(rng)));
    let place = |v: [Point; 3]| {
        let v = v.map(|p| origin + p.coords * scale);
        Triangle::new(v[0], v[1], v[2])
    };
    (place(a.vertices()), place(b), scale)
}

/// The generator of a random run.
type PairGen = fn(&mut proxima_test_support::SmallRng, &Point, &[Real]) -> (Triangle, Triangle, Real);

/// The kernel's extent: the largest coordinate of the six vertices measured
/// from A's first vertex.
fn extent(a: &Triangle, b: &Triangle) -> f64 {
    a.vertices().iter().chain(&b.vertices()).map(|p| (p - a.a()).amax() as f64).fold(0.0, f64::max)
}

/// Runs `CASES` random pairs around `origin`; returns the tally.
fn run(seed: u64, pairs: PairGen, origin: Point, scales: &[Real]) -> Tally {
    let mut rng = proxima_test_support::rng(seed);
    let mut t = Tally::default();
    for i in 0..CASES {
        let (a, b, scale) = pairs(&mut rng, &origin, scales);
        let ours = intersects_triangle_triangle(&a, &b);
        assert_eq!(ours, contact_triangle_triangle(&a, &b).is_some(), "case {i}: intersects and contact disagree");
        let (ua, ub) = (unit(&a, &origin, scale), unit(&b, &origin, scale));
        let d64 = distance64(&tri64(&a), &tri64(&b));
        let truth = d64 == 0.0;
        if ours != truth {
            // Ours touches when every axis' gap is below 1e-6 of the extent
            // (the distance can be a small multiple of that); the oracle
            // needs 0.
            let band = 1e-5 * extent(&a, &b);
            assert!(ours && d64 < band, "case {i}: ours {ours}, f64 distance {d64}; {a:?} {b:?}");
            t.oracle_band += 1;
            t.oracle_band_max = t.oracle_band_max.max(d64 / extent(&a, &b));
        }
        let theirs = parry_intersects(&ua, &ub);
        if theirs != ours {
            let signed = parry_signed(&ua, &ub);
            if signed.abs() < BAND {
                t.parry_band += 1;
            } else {
                assert!(theirs != truth, "case {i}: ours {ours}, parry {theirs} at {signed}, f64 distance {d64}");
                t.parry_wrong += 1;
            }
        }
        if ours {
            t.hits += 1;
            check_contact(i, (&a, &b), (&ua, &ub), scale, &mut t);
        }
    }
    t
}

/// The most cases allowed in each band, as fractions of `CASES`.
struct Limits {
    /// Ours and parry disagree, parry's signed distance below `BAND`.
    parry_band: f64,
    /// parry contradicts the f64 oracle outside `BAND`.
    parry_wrong: f64,
    /// Ours touches, the f64 distance is positive (below `1e-5` of the extent).
    oracle_band: f64,
}

/// General pairs: few are near tangency.
const GENERAL: Limits = Limits { parry_band: 1e-3, parry_wrong: 1e-4, oracle_band: 1e-4 };

fn assert_tally(t: &Tally, limits: &Limits) {
    eprintln!("{t:?}");
    let frac = |n: usize| n as f64 / CASES as f64;
    assert!((0.3..0.7).contains(&frac(t.hits)), "hit fraction {}", frac(t.hits));
    assert!(frac(t.parry_band) <= limits.parry_band, "{} disagreements with parry in the band", t.parry_band);
    assert!(frac(t.oracle_band) <= limits.oracle_band, "{} touching pairs the oracle says apart", t.oracle_band);
    assert!(t.oracle_band_max < 2e-6, "a touching pair {} of its extent apart", t.oracle_band_max);
    assert!(t.compared > t.hits / 2, "{} of {} compared with parry", t.compared, t.hits);
    assert!(frac(t.parry_wrong) <= limits.parry_wrong, "parry contradicts the f64 oracle {} times", t.parry_wrong);
    assert!(t.under_parry < PARRY_OVER, "ours below parry's EPA depth by {}", t.under_parry);
    assert!(t.far_from_parry < CASES / 10_000, "{} depths 1e-3 away from parry's", t.far_from_parry);
}

#[test]
fn random_pairs_match_parry_and_f64_oracle() {
    assert_tally(&run(0x7717, random_pair, Point::origin(), &[1.0 / 128.0, 1.0, 128.0]), &GENERAL);
}

#[test]
fn random_pairs_at_1e4_match_parry_and_f64_oracle() {
    // At 1e4 the f32 spacing is 1e-3: triangles of size 1 and 128.
    assert_tally(&run(0x7718, random_pair, Point::new(1e4, -1e4, 1e4), &[1.0, 128.0]), &GENERAL);
}

#[test]
fn near_coplanar_pairs_match_parry_and_f64_oracle() {
    // Most of these pairs are within 1e-4 of touching, where parry's GJK
    // answers either way (and often contradicts the oracle beyond that);
    // ours must match the oracle outside its band, as everywhere.
    let limits = Limits { parry_band: 0.5, parry_wrong: 0.05, oracle_band: 0.05 };
    assert_tally(&run(0x7719, near_coplanar_pair, Point::origin(), &[1.0 / 128.0, 1.0, 128.0]), &limits);
}

/// What an edge case must give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// `None`.
    Apart,
    /// `Some` with `depth <= 1e-5` (the pair's size is about 2).
    Touch,
    /// `Some` with this depth (to `1e-5`).
    Depth(Real),
}

fn tri(a: [Real; 3], b: [Real; 3], c: [Real; 3]) -> Triangle {
    Triangle::new(Point::from(a), Point::from(b), Point::from(c))
}

/// The edge cases, on coordinates that are multiples of 1/64 (exact in f32
/// even after adding 1e4). `base` is the triangle (0,0,0), (2,0,0), (0,2,0).
fn edge_cases() -> Vec<(&'static str, Triangle, Triangle, Expect)> {
    use Expect::*;
    let base = tri([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
    let d = 1.0 / 64.0;
    let seg = |p: [Real; 3], q: [Real; 3]| tri(p, [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0, (p[2] + q[2]) / 2.0], q);
    let pt = |p: [Real; 3]| tri(p, p, p);
    vec![
        ("coplanar overlapping", base, tri([0.5, 0.5, 0.0], [3.0, 0.5, 0.0], [0.5, 3.0, 0.0]), Touch),
        ("coplanar, one inside the other", base, tri([0.25, 0.25, 0.0], [0.75, 0.25, 0.0], [0.25, 0.75, 0.0]), Touch),
        ("coplanar, edges crossing", base, tri([1.5, 1.5, 0.0], [-0.5, 0.5, 0.0], [0.5, -0.5, 0.0]), Touch),
        ("coplanar, apart across an edge", base, tri([1.0 + d, 1.0 + d, 0.0], [3.0, 1.0, 0.0], [1.0, 3.0, 0.0]), Apart),
        ("coplanar, apart across a vertex", base, tri([2.0 + d, 0.0, 0.0], [3.0, -1.0, 0.0], [3.0, 1.0, 0.0]), Apart),
        ("shared edge, hinge", base, tri([2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]), Touch),
        ("shared edge, coplanar", base, tri([2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, -1.0, 0.0]), Touch),
        ("vertex on the face", base, tri([0.5, 0.5, 0.0], [1.0, 0.5, 1.0], [0.5, 1.0, 1.0]), Touch),
        ("vertex above the face", base, tri([0.5, 0.5, d], [1.0, 0.5, 1.0], [0.5, 1.0, 1.0]), Apart),
        ("shared vertex", base, tri([2.0, 0.0, 0.0], [3.0, 1.0, 1.0], [3.0, -1.0, 1.0]), Touch),
        ("vertex on an edge", base, tri([1.0, 0.0, 0.0], [1.5, -1.0, 1.0], [0.5, -1.0, 1.0]), Touch),
        ("parallel planes, apart", base, tri([0.5, 0.5, d], [3.0, 0.5, d], [0.5, 3.0, d]), Apart),
        ("parallel edges crossing", base, tri([0.0, 0.5, -1.0], [2.0, 0.5, -1.0], [1.0, 0.5, 1.0]), Depth(0.5)),
        ("collinear overlapping edges", base, tri([1.0, 0.0, 0.0], [3.0, 0.0, 0.0], [2.0, -1.0, 1.0]), Touch),
        ("parallel edges, apart", base, tri([1.0, -d, 0.0], [3.0, -d, 0.0], [2.0, -1.0, 1.0]), Apart),
        ("piercing", base, tri([0.5, 0.5, -1.0], [0.75, 0.5, 1.0], [0.5, 0.75, 1.0]), Depth(0.616_315_6)),
        (
            "segment piercing a triangle",
            seg([0.0, 0.0, 0.0], [2.0, 2.0, 2.0]),
            tri([3.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.0]),
            Depth(1.224_744_9),
        ),
        ("segment in the plane, crossing", seg([-1.0, 0.5, 0.0], [2.0, 0.5, 0.0]), base, Touch),
        ("segment in the plane, apart", seg([-1.0, -0.5, 0.0], [1.0, -0.5, 0.0]), base, Apart),
        ("segment in the plane, apart along itself", seg([2.5, -1.0, 0.0], [2.0, 1.0, 0.0]), base, Apart),
        ("segment beside", seg([3.0, 3.0, -1.0], [3.0, 3.0, 1.0]), base, Apart),
        ("point on the face", pt([0.5, 0.5, 0.0]), base, Touch),
        ("point above the face", pt([0.5, 0.5, d]), base, Apart),
        ("point beside, in the plane", base, pt([1.5, 1.5, 0.0]), Apart),
        ("segments crossing", seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]), seg([1.0, -1.0, 0.0], [1.0, 1.0, 0.0]), Touch),
        ("segments parallel, apart", seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]), seg([0.0, d, 0.0], [2.0, d, 0.0]), Apart),
        (
            "segments collinear, overlapping",
            seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
            seg([1.5, 0.0, 0.0], [3.5, 0.0, 0.0]),
            Touch,
        ),
        (
            "segments collinear, apart",
            seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
            seg([2.0 + d, 0.0, 0.0], [3.5, 0.0, 0.0]),
            Apart,
        ),
        ("segments skew, apart", seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]), seg([1.0, -1.0, d], [1.0, 1.0, d]), Apart),
        ("points equal", pt([1.0, 1.0, 1.0]), pt([1.0, 1.0, 1.0]), Touch),
        ("points apart", pt([1.0, 1.0, 1.0]), pt([1.0, 1.0, 1.0 + d]), Apart),
    ]
}

fn check_expect(name: &str, a: &Triangle, b: &Triangle, expect: Expect) -> Option<Contact> {
    let c = contact_triangle_triangle(a, b);
    assert_eq!(intersects_triangle_triangle(a, b), c.is_some(), "{name}: intersects and contact disagree");
    let flipped = contact_triangle_triangle(b, a);
    match (expect, c) {
        (Expect::Apart, None) => assert!(flipped.is_none(), "{name}: not symmetric"),
        (Expect::Touch, Some(c)) => assert!(c.depth <= 1e-5, "{name}: depth {} for touching", c.depth),
        (Expect::Depth(d), Some(c)) => assert!((c.depth - d).abs() <= 1e-5, "{name}: depth {} != {d}", c.depth),
        _ => panic!("{name}: expected {expect:?}, got {c:?}"),
    }
    if let (Some(c), Some(f)) = (c, flipped) {
        contact_invariants(&c, 1e-5).unwrap_or_else(|e| panic!("{name}: {e}; {c:?}"));
        assert!((c.depth - f.depth).abs() <= 1e-5, "{name}: depth {} but {} with A and B swapped", c.depth, f.depth);
        // The f64 oracle: the depth along the normal is a separating translation.
        let out = distance64(&tri64(a), &moved64(&tri64(b), &c.normal.into_inner().cast(), c.depth as f64 + SEP));
        assert!(out >= 0.5 * SEP, "{name}: moving by the depth leaves a gap {out}; {c:?}");
    } else {
        assert!(flipped.is_none() == c.is_none(), "{name}: not symmetric: {c:?} vs {flipped:?}");
    }
    c
}

#[test]
fn edge_cases_as_given_and_at_1e4() {
    let offset = Vector::new(1e4, -1e4, 1e4);
    let shift = |t: &Triangle| Triangle::new(t.a() + offset, t.b() + offset, t.c() + offset);
    for (name, a, b, expect) in edge_cases() {
        let c = check_expect(name, &a, &b, expect);
        // Coordinates are multiples of 1/64 below 4, so adding 1e4 is exact
        // and the kernel, working relative to A's first vertex, sees the
        // same numbers: the same answer, bit for bit.
        let far = contact_triangle_triangle(&shift(&a), &shift(&b));
        assert_eq!(c.map(|c| (c.depth, c.normal)), far.map(|c| (c.depth, c.normal)), "{name} at 1e4");
    }
}

#[test]
fn edge_cases_rotated() {
    // Rotations round the vertices by ~1e-7: touching stays touching (the
    // band is 1e-6 of the extent), and the 1/64 gaps stay gaps.
    let mut rng = proxima_test_support::rng(0xED6E);
    for k in 0..200 {
        let rot = gen::rotation(&mut rng);
        let centre = gen::point(&mut rng, &Placement::new(3.0, 0.0, 0.0));
        let place = |t: &Triangle| {
            let v = t.vertices().map(|p| centre + rot * p.coords);
            Triangle::new(v[0], v[1], v[2])
        };
        for (name, a, b, expect) in edge_cases() {
            check_expect(&format!("{name} (rotation {k})"), &place(&a), &place(&b), expect);
        }
    }
}
