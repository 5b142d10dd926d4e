//! `contact_capsule_hull` and `contact_manifold_capsule_hull` against an f64
//! oracle, parry3d 0.31 (`query::contact` of a `Capsule` and a
//! `ConvexPolyhedron` of the same vertices) and the GJK/EPA path
//! (`contact_convex`), on random hulls (`common_hull`: clouds in a box, on a
//! sphere, thin slabs) and random capsules around them, at offsets 0, 1e3
//! and 1e5; then a few placements the random cases rarely reach.
//!
//! The oracle owes nothing to the closed form: the distance from the core
//! segment to the hull is the least over the segment's parameter (convex:
//! golden-section search, test-support's `convex_min`) of the point-hull
//! distance, itself the least over the faces' fan triangles, in f64; the
//! segment meets the hull when a point of it is under every face plane
//! (Cyrus-Beck clipping in f64). For a segment meeting the hull the oracle
//! has no depth: the contact must then separate the shapes (moving the hull
//! by `depth + 1e-4 L` along the normal leaves the segment at least
//! `r - BAND` away, by the oracle) and agree with GJK/EPA's depth.
//!
//! Tolerances, as in `sphere_hull_vs_parry.rs` (`L` the hull's size,
//! `tol = 1e-5 L` its planar tolerance, `M` the largest coordinate):
//! `BAND = 3 tol + 64 eps L` for hit or miss and depths against the oracle;
//! normals of segments apart by `sd >= 1e-2 L` within `4 BAND / sd` (plus
//! `1e-6 |d| / sd` for the search's parameter); parry within `BAND + 1e-3 L`
//! and `1e-2` (its normal), GJK/EPA within `BAND + 4e-6 L + 16 eps M`, where
//! a peer that is itself off the oracle by more is counted (at most 1% of
//! the cases), not held against ours.
//!
//! `cargo test --release -p proxima-narrowphase --test capsule_hull_vs_parry`

mod common_hull;
mod common_np;

use common_hull::{parry_keeps_every_vertex, random_placed, unit_cube, Placed, Posed, V64};
use parry3d::query;
use parry3d::shape::Capsule as PCapsule;
use proxima_narrowphase::{
    contact_capsule_hull, contact_convex, contact_manifold_capsule_hull, Capsule, Isometry, Point, Real, Vector,
};
use proxima_test_support::convert::{convex_hull, from_vec, pt};
use proxima_test_support::gen::{uniform, unit_vector};
use proxima_test_support::minimize::convex_min;
use proxima_test_support::SmallRng;

/// Random cases at the origin in release builds (a fifth at the offsets, a
/// twentieth in debug).
const CASES: usize = if cfg!(debug_assertions) { 5_000 } else { 100_000 };
/// Capsules drawn around each hull.
const PER_HULL: usize = 40;
/// The speculative checks' prediction, in units of `L`.
const PREDICTION: Real = 0.1;
/// Peer normal tolerance (norm of the difference).
const PEER_NORMAL: Real = 1e-2;

/// The oracle: the segment's signed distance to the hull when apart
/// (`> 0`) with the closest segment point and hull point (local, f64), or
/// `None` when the segment meets the hull.
fn oracle(p: &Placed, c: &Capsule) -> Option<(f64, V64, V64)> {
    let (a, b) = (p.local(c.a()), p.local(c.b()));
    let d = b - a;
    // Cyrus-Beck in f64: the part of [0, 1] under every plane.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for (n, o) in &p.planes {
        let (s, v) = (n.dot(&a) - o, n.dot(&d));
        if v > 0.0 {
            hi = hi.min(-s / v);
        } else if v < 0.0 {
            lo = lo.max(-s / v);
        } else if s > 0.0 {
            hi = f64::NEG_INFINITY;
        }
    }
    if lo <= hi {
        return None;
    }
    let closest = |x: &V64| {
        let mut best = (f64::INFINITY, V64::zeros());
        for [u, v, w] in &p.tris {
            let q = common_np::closest_on_triangle_f64(x, u, v, w);
            if (x - q).norm() < best.0 {
                best = ((x - q).norm(), q);
            }
        }
        best
    };
    let m = convex_min(|t| closest(&(a + d * t)).0, 0.0, 1.0, 90);
    let s = a + d * m.at;
    let (dist, q) = closest(&s);
    Some((dist, s, q))
}

/// The world distance from the segment moved by `-v` (the hull moved by
/// `v`) to the hull, by the oracle; 0 when they meet.
fn apart_after(p: &Placed, c: &Capsule, v: &Vector) -> f64 {
    let moved = Capsule::new(c.a() - v, c.b() - v, c.radius());
    oracle(p, &moved).map_or(0.0, |o| o.0)
}

/// A random capsule around the placed hull: core centre in its box grown by
/// `0.2 L`, half-length `0..0.5 L`, radius `0..0.3 L` (30-70% hits).
fn capsule_near(rng: &mut SmallRng, p: &Placed) -> Capsule {
    let (lo, hi) = (*p.hull.aabb().min(), *p.hull.aabb().max());
    let g = 0.2 * p.l;
    let mid = Point::new(
        uniform(rng, lo.x - g, hi.x + g),
        uniform(rng, lo.y - g, hi.y + g),
        uniform(rng, lo.z - g, hi.z + g),
    );
    let half = unit_vector(rng) * uniform(rng, 0.0, 0.5) * p.l;
    let (a, b) = (p.pose.transform_point(&(mid - half)), p.pose.transform_point(&(mid + half)));
    Capsule::new(a, b, uniform(rng, 0.0, 0.3) * p.l)
}

/// The worst errors of a run (depths and normals in units of `L`).
#[derive(Debug, Default)]
struct Worst {
    cases: usize,
    hits: usize,
    meeting: usize,
    in_band: usize,
    depth: f64,
    normal: f64,
    separation: f64,
    speculative: f64,
    parry_wrong: usize,
    gjk_wrong: usize,
    parry_depth: Real,
    parry_normal: Real,
    gjk_depth: Real,
    gjk_normal: Real,
}

/// The checks of one case; failures as text.
fn check(p: &Placed, c: &Capsule, with_parry: bool, w: &mut Worst, fail: &mut Vec<String>) {
    let (l, r) = (p.l as f64, c.radius() as f64);
    let band = 3.0 * p.hull.tolerance() as f64 + 64.0 * Real::EPSILON as f64 * l;
    let m = (c.a().coords.amax().max(c.b().coords.amax()) + p.pose.translation.vector.amax() + p.l) as f64;
    let rounding = 8.0 * Real::EPSILON as f64 * (m + l);
    let o = oracle(p, c);
    let ours = contact_capsule_hull(c, &p.hull, &p.pose);
    let m0 = contact_manifold_capsule_hull(c, &p.hull, &p.pose, 0.0);
    if ours.is_some() != m0.is_some() {
        fail.push(format!("contact {ours:?} but manifold {m0:?}"));
    }
    let sd = o.map_or(f64::NEG_INFINITY, |o| o.0);
    w.meeting += usize::from(o.is_none());
    w.hits += usize::from(sd <= r);
    let near = o.is_some() && (sd - r).abs() <= band;
    w.in_band += usize::from(near);
    match (ours, o) {
        (None, _) if sd <= r && !near => fail.push(format!("miss, oracle {o:?}")),
        (Some(k), Some(_)) if sd > r && !near => fail.push(format!("hit {k:?}, oracle distance {sd}")),
        (Some(k), _) => {
            let gap = ((k.point_a - k.point_b) - k.normal.into_inner() * k.depth).norm() as f64;
            if gap > rounding {
                fail.push(format!("points {k:?} not depth apart: {gap:e}"));
            }
            if let Some((sd, s, q)) = o {
                let e = (k.depth as f64 - (r - sd).max(0.0)).abs();
                w.depth = w.depth.max(e / l);
                if e > band {
                    fail.push(format!("depth {k:?} vs {}", r - sd));
                }
                if sd >= 1e-2 * l {
                    let n = p.rot.transpose() * k.normal.into_inner().cast::<f64>();
                    let want = (q - s).normalize();
                    let ne = (n - want).norm();
                    w.normal = w.normal.max(ne * sd / l);
                    if ne > (4.0 * band + 1e-6 * l) / sd {
                        fail.push(format!("normal {n:?} vs {want:?} ({ne:e}), sd {sd}"));
                    }
                }
            } else {
                let after = apart_after(p, c, &(k.normal.into_inner() * (k.depth + 1e-4 * p.l)));
                w.separation = w.separation.max((r - after).max(0.0) / l);
                if after < r - band - rounding {
                    fail.push(format!("{k:?} leaves the segment {after} from the hull (radius {r})"));
                }
            }
        }
        _ => {}
    }
    let pred = PREDICTION * p.l;
    if let Some((sd, ..)) = o {
        let reach = r + pred as f64;
        match contact_manifold_capsule_hull(c, &p.hull, &p.pose, pred) {
            Some(mf) => {
                let e = (mf.deepest().depth as f64 - (r - sd)).abs();
                w.speculative = w.speculative.max(e / l);
                if sd > reach + band || e > band {
                    fail.push(format!("speculative {mf:?}, oracle distance {sd}, reach {reach}"));
                }
            }
            None if sd < reach - band => fail.push(format!("no speculative point at {sd}, reach {reach}")),
            None => {}
        }
    }
    peers(p, c, ours, o, with_parry, band as Real, w, fail);
}

/// The comparisons with parry and GJK/EPA (see the module's tolerances).
#[allow(clippy::too_many_arguments)]
fn peers(
    p: &Placed,
    c: &Capsule,
    ours: Option<proxima_narrowphase::Contact>,
    o: Option<(f64, V64, V64)>,
    with_parry: bool,
    band: Real,
    w: &mut Worst,
    fail: &mut Vec<String>,
) {
    let (l, r) = (p.l, c.radius());
    let m = c.a().coords.amax().max(c.b().coords.amax()) + p.pose.translation.vector.amax() + l;
    let sd = o.map_or(Real::NEG_INFINITY, |o| o.0 as Real);
    let want = o.map(|(_, s, q)| {
        let n = p.rot * (q - s).normalize();
        Vector::new(n.x as Real, n.y as Real, n.z as Real)
    });
    let outside = sd >= 1e-2 * l;
    let g = contact_convex(c, &Posed(p), 0.0).map(|k| (k.depth, k.normal.into_inner()));
    let gjk_slack = 4e-6 * l + 16.0 * Real::EPSILON * m;
    // The reference depth: the oracle's for a segment apart, GJK/EPA's for
    // one meeting the hull (then GJK/EPA itself is checked against ours).
    let reference = if o.is_some() { Some((r - sd).max(0.0)) } else { g.map(|g| g.0) };
    // A peer off the reference: a hit or miss outside the band, the depth
    // (beyond the references' slacks), or an apart normal.
    let wrong = |theirs: &Option<(Real, Vector)>, slack: Real| match theirs {
        Some((depth, n)) => {
            sd > r + band + slack
                || reference.is_some_and(|d| (depth - d).abs() > band + slack + gjk_slack)
                || (outside && want.is_some_and(|v| (n - v).norm() > PEER_NORMAL + slack / sd))
        }
        None => sd < r - band - slack,
    };
    let mut compare = |theirs: Option<(Real, Vector)>, slack: Real, name: &str| -> Option<(Real, Real)> {
        if wrong(&theirs, slack) {
            return None;
        }
        let near = (sd - r).abs() <= band + slack;
        match (ours, theirs) {
            (Some(k), Some((depth, n))) => {
                let e = (k.depth - depth).abs();
                let ne = if outside { (k.normal.into_inner() - n).norm() } else { 0.0 };
                if e > band + slack || ne > PEER_NORMAL + slack / sd.max(1e-2 * l) {
                    fail.push(format!("{name}: depth {depth} normal {n:?}, ours {k:?}, sd {sd}"));
                }
                Some((e / l, ne))
            }
            (a, b) if a.is_some() != b.is_some() && !near => {
                fail.push(format!("{name}: ours {a:?}, theirs {b:?}, sd {sd} r {r}"));
                Some((0.0, 0.0))
            }
            _ => Some((0.0, 0.0)),
        }
    };
    if let Some((pose_h, poly)) = with_parry.then(|| convex_hull(&p.hull, &p.pose)) {
        let cap = PCapsule::new(pt(c.a()), pt(c.b()), r);
        let pc = query::contact(&parry3d::math::Pose::identity(), &cap, &pose_h, &poly, 0.0).expect("supported");
        match compare(pc.map(|pc| (-pc.dist, from_vec(pc.normal1))), 1e-3 * l, "parry") {
            Some((e, ne)) => (w.parry_depth, w.parry_normal) = (w.parry_depth.max(e), w.parry_normal.max(ne)),
            None => w.parry_wrong += 1,
        }
    }
    match compare(g, gjk_slack, "gjk") {
        Some((e, ne)) => (w.gjk_depth, w.gjk_normal) = (w.gjk_depth.max(e), w.gjk_normal.max(ne)),
        None => w.gjk_wrong += 1,
    }
}

/// `cases` random cases with hulls placed around `offset`.
fn run(seed: u64, offset: Real, cases: usize, with_parry: bool) -> Worst {
    let mut rng = proxima_test_support::rng(seed);
    let mut w = Worst::default();
    let mut fail = Vec::new();
    while w.cases < cases {
        let Some(placed) = random_placed(&mut rng, offset) else { continue };
        let parry = with_parry && parry_keeps_every_vertex(&placed);
        for _ in 0..PER_HULL {
            let c = capsule_near(&mut rng, &placed);
            let before = fail.len();
            check(&placed, &c, parry, &mut w, &mut fail);
            for f in &mut fail[before..] {
                *f = format!("case {}: {f}; {c:?}, hull {:?}, pose {:?}", w.cases, placed.hull.vertices(), placed.pose);
            }
            w.cases += 1;
        }
    }
    eprintln!("offset {offset:e}: {w:?}");
    assert!(fail.is_empty(), "{} failures: {:#?}", fail.len(), &fail[..fail.len().min(4)]);
    let hit = w.hits as f64 / w.cases as f64;
    assert!((0.3..=0.7).contains(&hit), "hit fraction {hit:.3} outside [0.3, 0.7]");
    assert!(w.in_band * 100 < w.cases, "{} of {} cases in the band", w.in_band, w.cases);
    assert!(w.parry_wrong * 50 <= w.cases && w.gjk_wrong * 100 <= w.cases, "peers off the oracle: {w:?}");
    w
}

#[test]
fn random_capsules_at_the_origin_match_the_oracle_parry_and_gjk() {
    run(0xca9_0001, 0.0, CASES, true);
}

#[test]
fn random_capsules_at_1e3_and_1e5_match_the_oracle_and_gjk() {
    run(0xca9_0002, 1e3, CASES / 5, false);
    run(0xca9_0003, 1e5, CASES / 5, false);
}

#[test]
fn degenerate_capsules() {
    let hull = unit_cube();
    let id = Isometry::identity();
    // A zero-length core is a sphere: depth 0.5 - 0.25 over the top face.
    let dot = Capsule::new(Point::new(0.5, 0.5, 1.25), Point::new(0.5, 0.5, 1.25), 0.5);
    let k = contact_capsule_hull(&dot, &hull, &id).unwrap();
    assert!((k.depth - 0.25).abs() < 1e-6 && (k.normal.z + 1.0).abs() < 1e-6);
    // Lying on the top face exactly (core in the face's plane), zero radius.
    let flat = Capsule::new(Point::new(0.2, 0.5, 1.0), Point::new(0.8, 0.5, 1.0), 0.0);
    assert_eq!(contact_capsule_hull(&flat, &hull, &id).unwrap().depth, 0.0);
    // Along an edge of the cube, beside it: the normal is in the edge's cone.
    let by_edge = Capsule::new(Point::new(-0.5, 1.25, 1.25), Point::new(1.5, 1.25, 1.25), 0.5);
    let k = contact_capsule_hull(&by_edge, &hull, &id).unwrap();
    let want = Vector::new(0.0, -1.0, -1.0).normalize();
    assert!((k.normal.into_inner() - want).norm() < 1e-5 && (k.depth - (0.5 - 0.25 * 2f32.sqrt())).abs() < 1e-6);
    // Through the cube along its diagonal: least overlap is a face's or an
    // edge axis's, and the contact separates the shapes.
    let diag = Capsule::new(Point::new(-0.5, -0.5, -0.5), Point::new(1.5, 1.5, 1.5), 0.1);
    let k = contact_capsule_hull(&diag, &hull, &id).unwrap();
    let placed = Placed::new(hull.clone(), id);
    assert!(apart_after(&placed, &diag, &(k.normal.into_inner() * (k.depth + 1e-4))) >= 0.1 - 1e-5, "{k:?}");
}
