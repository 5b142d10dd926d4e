//! `contact_sphere_hull` and `contact_manifold_sphere_hull` against an f64
//! oracle, parry3d 0.31 (`query::contact` of a `Ball` and a
//! `ConvexPolyhedron` built from the same vertices) and the GJK/EPA path
//! (`contact_convex`) they replace, on random hulls (clouds in a box, on a
//! sphere, thin slabs) and random spheres around them, placed at offsets 0,
//! 1e3 and 1e5; then the degenerate placements.
//!
//! The oracle owes nothing to the closed form: the signed distance from the
//! centre to the hull surface is the least distance to the triangles of the
//! faces' fans (`closest_on_triangle_f64`), negative when the centre is
//! under every face plane taken through the face's own vertices (Newell
//! normal), all in f64 from the exact f32 inputs. The hull's faces are
//! planar to within its tolerance `tol = 1e-5 L` (`L` the hull's size), so
//! oracle and closed form may differ by that much.
//!
//! Tolerances, with `M` the largest world coordinate and `eps = f32::EPSILON`:
//! - band and depth: `BAND = 3 tol + 64 eps L`; hit or miss must match the
//!   oracle when `|sd - r| > BAND` and the depth `r - sd` within `BAND`;
//! - the points: `point_b` within `BAND + 8 eps M` of the surface, and
//!   `point_a - point_b = depth n` within `8 eps (M + L)` (world rounding);
//! - the normal, centre outside at `sd >= 1e-2 L`: within `4 BAND / sd` of
//!   the oracle's `(q - c) / |q - c|` (an error `BAND` in the closest point
//!   turns it by `BAND / sd`); centre inside: `-n_k` of a face whose plane
//!   depth is within `BAND` of the least;
//! - parry (offset 0 only: its hull is built from world-size vertices; on
//!   hulls where its polyhedron keeps all our vertices, at least 3/4 of the
//!   cases):
//!   hit or miss outside `PARRY_BAND = BAND + 1e-4 L` (its GJK/EPA stop at
//!   absolute tolerances), depth within the same, normal within
//!   `PARRY_NORMAL = 1e-2` for centres outside at `sd >= 1e-2 L`;
//! - GJK/EPA (`contact_convex`): as parry, with `4e-6 L` for its relative
//!   stops in place of parry's `1e-4 L`.
//!
//! `cargo test --release -p proxima-narrowphase --test sphere_hull_vs_parry`

mod common_hull;
mod common_np;

use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::{Ball, ConvexPolyhedron};
use proxima_narrowphase::{
    contact_convex, contact_manifold_sphere_hull, contact_sphere_hull, Contact, Point, Real, Sphere, Vector,
};
use proxima_test_support::convert::{convex_hull, from_vec, pose_at};
use proxima_test_support::gen::uniform;
use proxima_test_support::SmallRng;

use common_hull::{random_placed, Placed, Posed, V64};

/// Random cases per offset in release builds (a twentieth in debug).
const CASES: usize = if cfg!(debug_assertions) { 6_000 } else { 120_000 };
/// Spheres drawn around each hull.
const PER_HULL: usize = 40;
/// The speculative checks' prediction, in units of `L`.
const PREDICTION: Real = 0.1;
/// parry's extra band and depth tolerance, in units of `L`.
const PARRY_SLACK: Real = 1e-4;
/// GJK/EPA's extra band and depth tolerance, in units of `L`.
const GJK_SLACK: Real = 4e-6;
/// Normal tolerance against parry and GJK/EPA (norm of the difference).
const PARRY_NORMAL: Real = 1e-2;

/// A random sphere around the placed hull: centre in its box grown by
/// `0.2 L`, radius `0..0.4 L` (30-40% hits).
fn sphere_near(rng: &mut SmallRng, p: &Placed) -> Sphere {
    let (lo, hi) = (*p.hull.aabb().min(), *p.hull.aabb().max());
    let g = 0.2 * p.l;
    let local = Point::new(
        uniform(rng, lo.x - g, hi.x + g),
        uniform(rng, lo.y - g, hi.y + g),
        uniform(rng, lo.z - g, hi.z + g),
    );
    Sphere::new(p.pose.transform_point(&local), uniform(rng, 0.0, 0.4) * p.l)
}

/// The worst errors of a run, in units of `L`.
#[derive(Debug, Default)]
struct Worst {
    cases: usize,
    hits: usize,
    in_band: usize,
    depth: f64,
    point_b: f64,
    normal: f64,
    speculative: f64,
    peer_disagree_in_band: usize,
    parry_cases: usize,
    parry_wrong: usize,
    gjk_wrong: usize,
    parry_depth: Real,
    parry_normal: Real,
    gjk_depth: Real,
    gjk_normal: Real,
}

/// The checks of one case against the oracle; failures as text.
fn check_oracle(p: &Placed, s: &Sphere, w: &mut Worst, fail: &mut Vec<String>) {
    let (l, r) = (p.l as f64, s.radius() as f64);
    let band = 3.0 * p.hull.tolerance() as f64 + 64.0 * Real::EPSILON as f64 * l;
    let m = (s.center().coords.amax() + p.pose.translation.vector.amax() + p.l) as f64;
    let (sd, q) = p.oracle(s.center());
    let c = contact_sphere_hull(s, &p.hull, &p.pose);
    let m0 = contact_manifold_sphere_hull(s, &p.hull, &p.pose, 0.0);
    if c.is_some() != m0.is_some() {
        fail.push(format!("contact {c:?} but manifold {m0:?}"));
    }
    let near = (sd - r).abs() <= band;
    w.in_band += usize::from(near);
    w.hits += usize::from(sd <= r);
    match c {
        None if sd <= r && !near => fail.push(format!("miss, oracle distance {sd} radius {r}")),
        Some(c) if sd > r && !near => fail.push(format!("hit {c:?}, oracle distance {sd} radius {r}")),
        Some(c) => {
            let e = (c.depth as f64 - (r - sd).max(0.0)).abs();
            w.depth = w.depth.max(e / l);
            let off = p.off_surface(&c.point_b);
            w.point_b = w.point_b.max(off / l);
            let gap = ((c.point_a - c.point_b) - c.normal.into_inner() * c.depth).norm() as f64;
            let rounding = 8.0 * Real::EPSILON as f64 * (m + l);
            if e > band || off > band + rounding || gap > rounding {
                fail.push(format!("contact {c:?}: depth error {e:e}, point_b off {off:e}, gap {gap:e}, sd {sd}"));
            }
            check_normal(p, s, &c, sd, &q, band, w, fail);
        }
        None => {}
    }
    // Speculative: within r + prediction, depth = r - sd.
    let pred = PREDICTION * p.l;
    let spec = contact_manifold_sphere_hull(s, &p.hull, &p.pose, pred);
    let reach = r + pred as f64;
    match spec {
        Some(mf) => {
            let e = (mf.points()[0].depth as f64 - (r - sd)).abs();
            w.speculative = w.speculative.max(e / l);
            if (sd > reach + band) || e > band {
                fail.push(format!("speculative {mf:?}, oracle distance {sd}, reach {reach}"));
            }
        }
        None if sd < reach - band => fail.push(format!("no speculative point, oracle distance {sd}, reach {reach}")),
        None => {}
    }
}

/// The normal against the oracle's (see the module's tolerances).
#[allow(clippy::too_many_arguments)]
fn check_normal(
    p: &Placed,
    s: &Sphere,
    c: &Contact,
    sd: f64,
    q: &V64,
    band: f64,
    w: &mut Worst,
    fail: &mut Vec<String>,
) {
    let l = p.l as f64;
    let n = p.rot.transpose() * c.normal.into_inner().cast::<f64>();
    if sd >= 1e-2 * l {
        let want = (q - p.local(s.center())).normalize();
        let e = (n - want).norm();
        w.normal = w.normal.max(e * sd / l);
        if e > 4.0 * band / sd {
            fail.push(format!("normal {n:?} vs oracle {want:?}, error {e:e}, sd {sd}"));
        }
    } else if sd < 0.0 {
        let c64 = p.local(s.center());
        let depth_of = |(nk, o): &(V64, f64)| o - nk.dot(&c64);
        let least = p.planes.iter().map(depth_of).fold(f64::INFINITY, f64::min);
        let fits = p.planes.iter().any(|pl| (n + pl.0).norm() <= 1e-4 && depth_of(pl) <= least + band);
        if !fits {
            fail.push(format!("inside: normal {n:?} is no face of least depth {least}"));
        }
    }
}

/// The checks against parry (offset 0) and GJK/EPA. GJK/EPA works in world
/// coordinates: its tolerances take `16 eps M` more (the rounding of
/// coordinates of size `M`), its normal that over the distance more.
fn check_peers(p: &Placed, s: &Sphere, w: &mut Worst, fail: &mut Vec<String>) {
    let (l, r) = (p.l, s.radius());
    let band = 3.0 * p.hull.tolerance() + 64.0 * Real::EPSILON * l;
    let m = s.center().coords.amax() + p.pose.translation.vector.amax() + l;
    let (sd, q) = p.oracle(s.center());
    let sd = sd as Real;
    // The oracle's normal, world frame (outside only).
    let want = p.rot * (q - p.local(s.center())).normalize();
    let want = Vector::new(want.x as Real, want.y as Real, want.z as Real);
    let ours = contact_sphere_hull(s, &p.hull, &p.pose);
    // A peer is wrong where it disagrees with the oracle by more than its
    // slack: a hit or miss outside the band, the depth, or the normal of a
    // centre outside at `sd >= 1e-2 L`. Such cases are
    // counted, not held against ours (checked against the oracle already).
    let peer_wrong = |theirs: &Option<(Real, Vector)>, slack: Real| match theirs {
        Some((depth, n)) => {
            sd > r + band + slack
                || (depth - (r - sd).max(0.0)).abs() > band + slack
                || (sd >= 1e-2 * l && (n - want).norm() > PARRY_NORMAL + slack / sd)
        }
        None => sd < r - band - slack,
    };
    let mut compare = |name: &str, theirs: Option<(Real, Vector)>, slack: Real| -> (Real, Real, usize) {
        let near = (sd - r).abs() <= band + slack;
        if peer_wrong(&theirs, slack) {
            return (0.0, 0.0, 2);
        }
        match (ours, theirs) {
            (Some(c), Some((depth, normal))) => {
                let e = (c.depth - depth).abs();
                let ne = if sd >= 1e-2 * l { (c.normal.into_inner() - normal).norm() } else { 0.0 };
                if e > band + slack || ne > PARRY_NORMAL + slack / sd.max(1e-2 * l) {
                    fail.push(format!("{name}: depth {depth} normal {normal:?}, ours {c:?}, sd {sd}"));
                }
                (e / l, ne, 0)
            }
            (None, None) => (0.0, 0.0, 0),
            (a, b) if !near => {
                fail.push(format!("{name}: ours {a:?}, theirs {b:?}, sd {sd} r {r}"));
                (0.0, 0.0, 0)
            }
            _ => (0.0, 0.0, 1),
        }
    };
    if let Some((pose_h, poly)) = &p.parry {
        w.parry_cases += 1;
        let pc =
            query::contact(&pose_at(s.center()), &Ball::new(r), pose_h, poly, 0.0).expect("parry supports the pair");
        let (e, ne, k) = compare("parry", pc.map(|pc| (-pc.dist, from_vec(pc.normal1))), PARRY_SLACK * l);
        (w.parry_depth, w.parry_normal) = (w.parry_depth.max(e), w.parry_normal.max(ne));
        w.peer_disagree_in_band += usize::from(k == 1);
        w.parry_wrong += usize::from(k == 2);
    }
    let g = contact_convex(s, &Posed(p), 0.0).map(|c| (c.depth, c.normal.into_inner()));
    let (e, ne, k) = compare("gjk", g, GJK_SLACK * l + 16.0 * Real::EPSILON * m);
    (w.gjk_depth, w.gjk_normal) = (w.gjk_depth.max(e), w.gjk_normal.max(ne));
    w.peer_disagree_in_band += usize::from(k == 1);
    w.gjk_wrong += usize::from(k == 2);
}

/// parry's polyhedron of the hull's vertices, `None` when it drops some:
/// its hull of a slab a few percent thick and 0.1 to 1 wide keeps some
/// vertices only (an absolute merging tolerance), and is then another
/// shape, up to 3% of its size away.
fn parry_hull(p: &Placed) -> Option<(Pose, ConvexPolyhedron)> {
    let (pose, poly) = convex_hull(&p.hull, &p.pose);
    (poly.points().len() == p.hull.vertices().len()).then_some((pose, poly))
}

/// `CASES` random cases with hulls placed around `offset`.
fn run(seed: u64, offset: Real, parry: bool) -> Worst {
    let mut rng = proxima_test_support::rng(seed);
    let mut w = Worst::default();
    let mut fail = Vec::new();
    while w.cases < CASES {
        let Some(mut placed) = random_placed(&mut rng, offset) else { continue };
        if parry {
            placed.parry = parry_hull(&placed);
        }
        for _ in 0..PER_HULL {
            let s = sphere_near(&mut rng, &placed);
            let before = fail.len();
            check_oracle(&placed, &s, &mut w, &mut fail);
            check_peers(&placed, &s, &mut w, &mut fail);
            for f in &mut fail[before..] {
                *f = format!(
                    "case {}: {f}; sphere {s:?}, hull {:?}, pose {:?}",
                    w.cases,
                    placed.hull.vertices(),
                    placed.pose
                );
            }
            w.cases += 1;
        }
    }
    eprintln!("offset {offset:e}: {w:?}");
    assert!(fail.is_empty(), "{} failures: {:#?}", fail.len(), &fail[..fail.len().min(4)]);
    let hit = w.hits as f64 / w.cases as f64;
    assert!((0.3..=0.7).contains(&hit), "hit fraction {hit:.3} outside [0.3, 0.7]");
    assert!(w.in_band * 100 < w.cases, "{} of {} cases in the band", w.in_band, w.cases);
    assert!(w.parry_wrong * 100 <= w.cases, "parry off the oracle in {} cases", w.parry_wrong);
    assert!(w.gjk_wrong * 100 <= w.cases, "GJK/EPA off the oracle in {} cases", w.gjk_wrong);
    assert!(!parry || w.parry_cases * 4 >= w.cases * 3, "parry compared on {} of {} cases", w.parry_cases, w.cases);
    w
}

#[test]
fn random_spheres_at_the_origin_match_the_oracle_parry_and_gjk() {
    run(0x5ee_d001, 0.0, true);
}

#[test]
fn random_spheres_at_1e3_match_the_oracle_and_gjk() {
    run(0x5ee_d002, 1e3, false);
}

#[test]
fn random_spheres_at_1e5_match_the_oracle_and_gjk() {
    run(0x5ee_d003, 1e5, false);
}
