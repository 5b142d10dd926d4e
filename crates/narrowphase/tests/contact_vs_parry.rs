//! Differential tests of every `contact_*` function against parry3d 0.31's
//! `query::contact` (prediction 0).
//!
//! Each function runs `CASES` (200,000) seeded random cases, 30-70% in
//! contact. Shapes have sizes 0.05..1.5 within 3 of the origin.
//!
//! Tolerances, and why:
//! - `BAND = 1e-4`: Some/None may differ only when the true signed distance
//!   is within the band (rounding of a few f32 operations on values <= ~5 is
//!   ~1e-5; see intersect_vs_parry.rs); in-band cases are bounded by 0.1%.
//! - `TOL = 1e-4` for depths, witness points and `point_a - point_b - depth n`
//!   of the sphere contacts, which are closed-form: ~10 roundings of 3e-7.
//! - Normals (sphere contacts): `|n - n_parry| <= 1e-3`, compared only where
//!   the normal is well defined (centre further than `1e-2` from the
//!   feature it is measured from, no tie within `1e-2` between box faces):
//!   near those points the normal turns by `rounding / distance`.
//! - Box-box: parry computes the depth by GJK/EPA, our SAT picks a face axis
//!   over an edge axis unless the edge is 1% smaller, and skips edge axes of
//!   sine < 1e-3. So `depth >= parry - EPA_TOL` always, and
//!   `depth <= parry / (1 - 0.01) + EPA_TOL + skip` (see `obb_obb_vs_parry`).

mod common_np;

use common_np::*;
use parry3d::math::Pose;
use parry3d::query::{self, sat};
use parry3d::shape::Shape;
use proxima_narrowphase::internal::{OBB_EDGE_AXIS_MIN_SINE, OBB_EDGE_AXIS_REL_TOL};
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;
use std::fmt::Debug;

const BAND: Real = 1e-4;
const MAX_IN_BAND: usize = 200;
const TOL: Real = 1e-4;
const NORMAL_TOL: Real = 1e-3;

fn near(spread: Real) -> Placement {
    Placement::new(spread, 0.05, 1.5)
}

/// One case as both libraries see it.
struct Pair<'a> {
    p1: Pose,
    g1: &'a dyn Shape,
    p2: Pose,
    g2: &'a dyn Shape,
}

/// Counts of a contact run.
#[derive(Debug, Default)]
struct Tally {
    n: usize,
    parry_some: usize,
    in_band: usize,
    compared_normals: usize,
}

/// Runs `CASES` cases: Some/None must agree with parry outside the band, and
/// every `Some` from both sides goes to `compare` (which returns an error
/// text on a mismatch), every `Some` from us to `contact_invariants`.
fn run<C: Debug>(
    name: &str,
    seed: u64,
    mut gen: impl FnMut(&mut SmallRng) -> C,
    ours: impl Fn(&C) -> Option<Contact>,
    with_parry: impl Fn(&C, &mut dyn FnMut(Pair<'_>)),
    compare: impl Fn(&C, &Contact, &query::Contact) -> Result<bool, String>,
) -> Tally {
    let mut rng = proxima_test_support::rng(seed);
    let mut t = Tally::default();
    let mut failures = Vec::new();
    for k in 0..CASES {
        let c = gen(&mut rng);
        let o = ours(&c);
        let (mut pc, mut sd) = (None, 0.0);
        with_parry(&c, &mut |pair| {
            pc = query::contact(&pair.p1, pair.g1, &pair.p2, pair.g2, 0.0).expect("supported");
            sd = parry_signed_distance(&pair.p1, pair.g1, &pair.p2, pair.g2);
        });
        t.n += 1;
        t.parry_some += pc.is_some() as usize;
        if sd.abs() <= BAND {
            t.in_band += 1;
        } else if o.is_some() != pc.is_some() {
            failures.push(format!("case {k}: ours {o:?} parry {pc:?} sd {sd:e}: {c:?}"));
        }
        if let Some(oc) = &o {
            if let Err(e) = contact_invariants(oc, TOL) {
                failures.push(format!("case {k}: invariant: {e}: {oc:?} {c:?}"));
            }
        }
        if let (Some(oc), Some(p)) = (&o, &pc) {
            match compare(&c, oc, p) {
                Ok(normal_compared) => t.compared_normals += normal_compared as usize,
                Err(e) => failures.push(format!("case {k}: {e}\n ours {oc:?}\n parry {p:?}\n {c:?}")),
            }
        }
    }
    let frac = t.parry_some as f64 / t.n as f64;
    eprintln!("{name}: {t:?}, contact fraction {frac:.3}");
    assert!(
        failures.is_empty(),
        "{name}: {} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!((0.3..=0.7).contains(&frac), "{name}: contact fraction {frac:.3} outside [0.3, 0.7]");
    assert!(t.in_band <= MAX_IN_BAND, "{name}: {} in-band cases", t.in_band);
    t
}

/// Depth, points and (when `normal_defined`) the normal against parry's.
fn compare_closed_form(oc: &Contact, p: &query::Contact, normal_defined: bool) -> Result<bool, String> {
    let pdepth = -p.dist;
    if (oc.depth - pdepth).abs() > TOL {
        return Err(format!("depth {} vs parry {pdepth}", oc.depth));
    }
    if !normal_defined {
        return Ok(false);
    }
    let pn = cv::from_vec(p.normal1);
    if (oc.normal.into_inner() - pn).norm() > NORMAL_TOL {
        return Err(format!("normal {:?} vs parry {pn:?}", oc.normal));
    }
    if dist(&oc.point_a, &cv::from_pt(p.point1)) > TOL || dist(&oc.point_b, &cv::from_pt(p.point2)) > TOL {
        return Err("witness points differ".into());
    }
    Ok(true)
}

#[test]
fn sphere_sphere_vs_parry() {
    let p = near(1.2);
    let t = run(
        "contact_sphere_sphere",
        21,
        |r| (gen::sphere(r, &p), gen::sphere(r, &p)),
        |(a, b)| contact_sphere_sphere(a, b),
        |(a, b), f| {
            let ((pa, ba), (pb, bb)) = (cv::ball(a), cv::ball(b));
            f(Pair { p1: pa, g1: &ba, p2: pb, g2: &bb })
        },
        |(a, b), oc, p| compare_closed_form(oc, p, dist(a.center(), b.center()) > 1e-2),
    );
    assert!(t.compared_normals > t.parry_some * 9 / 10);
}

/// True when the sphere centre's nearest box feature is well separated from
/// the next: outside by more than `1e-2`, or inside with the two nearest
/// faces more than `1e-2` apart in distance. `local` is the centre in the box
/// frame, `h` the half-extents. Computed in f64.
fn box_normal_defined(local: &Vector, h: &Vector) -> bool {
    let mut outside = 0.0f64;
    let mut faces = Vec::with_capacity(6);
    for i in 0..3 {
        let (x, hi) = (local[i] as f64, h[i] as f64);
        let out = (x.abs() - hi).max(0.0);
        outside += out * out;
        faces.push(hi - x);
        faces.push(x + hi);
    }
    if outside.sqrt() > 1e-2 {
        return true;
    }
    if outside > 0.0 {
        return false;
    }
    faces.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    faces[1] - faces[0] > 1e-2 && faces[0] > 1e-2
}

#[test]
fn sphere_aabb_vs_parry() {
    let p = near(1.3);
    let t = run(
        "contact_sphere_aabb",
        22,
        |r| (gen::sphere(r, &p), gen::aabb(r, &p)),
        |(s, b)| contact_sphere_aabb(s, b),
        |(s, b), f| {
            let ((ps, bs), (pb, cb)) = (cv::ball(s), cv::aabb_cuboid(b));
            f(Pair { p1: ps, g1: &bs, p2: pb, g2: &cb })
        },
        |(s, b), oc, p| compare_closed_form(oc, p, box_normal_defined(&(s.center() - b.center()), &b.half_extents())),
    );
    assert!(t.compared_normals > t.parry_some * 8 / 10);
}

#[test]
fn sphere_obb_vs_parry() {
    let p = near(1.3);
    let t = run(
        "contact_sphere_obb",
        23,
        |r| (gen::sphere(r, &p), gen::obb(r, &p)),
        |(s, b)| contact_sphere_obb(s, b),
        |(s, b), f| {
            let ((ps, bs), (pb, cb)) = (cv::ball(s), cv::cuboid(b));
            f(Pair { p1: ps, g1: &bs, p2: pb, g2: &cb })
        },
        |(s, b), oc, p| compare_closed_form(oc, p, box_normal_defined(&b.to_local(s.center()), b.half_extents())),
    );
    assert!(t.compared_normals > t.parry_some * 8 / 10);
}

#[test]
fn sphere_capsule_vs_parry() {
    let p = near(1.4);
    let t = run(
        "contact_sphere_capsule",
        24,
        |r| (gen::sphere(r, &p), gen::capsule(r, &p)),
        |(s, c)| contact_sphere_capsule(s, c),
        |(s, c), f| {
            let ((ps, bs), (pc, cc)) = (cv::ball(s), cv::capsule(c));
            f(Pair { p1: ps, g1: &bs, p2: pc, g2: &cc })
        },
        |(s, c), oc, p| {
            // The normal joins the centre to the segment: defined away from it,
            // and away from the capsule's surface, where parry switches from
            // "outside" to "inside" projection.
            let axis_dist = distance_point_segment(s.center(), c.a(), c.b());
            compare_closed_form(oc, p, axis_dist > 1e-2 && (axis_dist - c.radius()).abs() > 1e-2)
        },
    );
    assert!(t.compared_normals > t.parry_some * 8 / 10);
}

#[test]
fn sphere_triangle_vs_parry() {
    let p = near(0.8);
    let t = run(
        "contact_sphere_triangle",
        25,
        |r| (gen::sphere(r, &p), gen::triangle(r, &p)),
        |(s, tri)| contact_sphere_triangle(s, tri),
        |(s, tri), f| {
            let ((ps, bs), (pt, tt)) = (cv::ball(s), cv::triangle(tri));
            f(Pair { p1: ps, g1: &bs, p2: pt, g2: &tt })
        },
        |(s, tri), oc, p| {
            // The normal joins the centre to its closest triangle point:
            // defined when the centre is further than 1e-2 from the triangle
            // (on it, either face normal is right). Skinny triangles whose
            // closest feature is ambiguous are excluded by the same distance.
            let d = distance_point_triangle(s.center(), tri);
            compare_closed_form(oc, p, d > 1e-2)
        },
    );
    assert!(t.compared_normals > t.parry_some * 8 / 10);
}

/// Signed distance of `p` to the box's surface (f64): positive outside.
fn obb_surface_distance(p: &Point, b: &Obb) -> f64 {
    point_box_signed_distance_f64(&obb_local_f64(p, b), &b.half_extents().cast())
}

/// parry's answer to "do these boxes intersect", after moving `b` by `d`.
fn parry_boxes_intersect(a: &Obb, b: &Obb, d: &Vector) -> bool {
    let moved = Obb::new(b.center() + d, *b.rotation(), *b.half_extents());
    let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::cuboid(&moved));
    common_np::parry_intersects(&pa, &ca, &pb, &cb)
}

/// parry's SAT for two cuboids (`query::sat`): the least overlap over A's
/// faces, B's faces and the edge pairs (parry skips only edge axes of length
/// below `f32::EPSILON` and has no face preference), with its world normal
/// from A to B.
fn parry_sat_depth(a: &Obb, b: &Obb) -> (Real, Vector) {
    let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::cuboid(b));
    let pos12 = pa.inv_mul(&pb);
    let s1 = sat::cuboid_cuboid_find_local_separating_normal_oneway(&ca, &cb, &pos12);
    let s2 = sat::cuboid_cuboid_find_local_separating_normal_oneway(&cb, &ca, &pos12.inverse());
    let s3 = sat::cuboid_cuboid_find_local_separating_edge_twoway(&ca, &cb, &pos12);
    let (sep, n) = if s1.0 >= s2.0 && s1.0 >= s3.0 {
        (s1.0, pa.rotation * s1.1)
    } else if s2.0 >= s3.0 {
        (s2.0, -(pb.rotation * s2.1))
    } else {
        (s3.0, pa.rotation * s3.1)
    };
    (-sep, cv::from_vec(n))
}

/// Box-box contacts.
///
/// The oracle for depth and normal is parry's cuboid SAT (`query::sat`), not
/// `query::contact`: for cuboids `contact` runs GJK/EPA, whose depth falls
/// short of the true one by more than 1e-3 in ~0.07% of these cases (EPA's
/// polytope lies inside the Minkowski difference, so it can only
/// underestimate), and parry's unused `details::contact_cuboid_cuboid`
/// measures face depths to the nearest face of the support point, not the
/// SAT face. `query::contact` also answers `Some` for boxes up to ~2e-4
/// apart (GJK's tolerance), so Some/None is compared (outside the band) with
/// parry's SAT `intersection_test` and the signed distance. Per contact:
/// - `depth >= sat - TOL` and `depth >= epa - TOL` (no axis overlaps less
///   than the true penetration, and EPA underestimates it);
/// - `depth <= sat / (1 - OBB_EDGE_AXIS_REL_TOL) + TOL + SKIP`, with
///   `SKIP = OBB_EDGE_AXIS_MIN_SINE * 6` (the sum of half-extents is < 6) for
///   the skipped near-parallel edge axes;
/// - moving B by `(depth + 1e-3) * normal` separates the boxes (parry's SAT
///   `intersection_test` says disjoint): normal and depth always form a
///   valid separating translation, whichever axis was picked;
/// - `point_a - point_b ≈ depth * normal` within `1e-4`;
/// - `point_a` on A's surface and `point_b` on B's, within `1e-3`, except
///   where the face preference kept a face axis over a slightly smaller edge
///   axis (its support vertex may then sit off the other face): at most 1%;
/// - where the depths agree within `TOL` the normals agree within `1e-2`,
///   except for ties between two axes of equal overlap: at most 0.2%.
#[test]
fn obb_obb_vs_parry() {
    let skip = OBB_EDGE_AXIS_MIN_SINE * 6.0;
    let p = near(1.5);
    let mut rng = proxima_test_support::rng(25);
    let (mut n_some, mut parry_some, mut in_band, mut inflated, mut normal_mismatch, mut point_off) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for k in 0..CASES {
        let (a, b) = (gen::obb(&mut rng, &p), gen::obb(&mut rng, &p));
        let ours = contact_obb_obb(&a, &b);
        let ((pa, ca), (pb, cb)) = (cv::cuboid(&a), cv::cuboid(&b));
        let epa = query::contact(&pa, &ca, &pb, &cb, 0.0).expect("supported");
        let sd = parry_signed_distance(&pa, &ca, &pb, &cb);
        let parry_hit = parry_intersects(&pa, &ca, &pb, &cb);
        parry_some += parry_hit as usize;
        if sd.abs() <= BAND {
            in_band += 1;
        } else if ours.is_some() != parry_hit || parry_hit != (sd < 0.0) {
            failures.push(format!("case {k}: ours {ours:?} vs parry {parry_hit} sd {sd}: {a:?} {b:?}"));
        }
        let Some(oc) = ours else { continue };
        n_some += 1;
        let n = oc.normal.into_inner();
        if let Err(e) = contact_invariants(&oc, TOL) {
            failures.push(format!("case {k}: invariant {e}: {oc:?}"));
        }
        if parry_boxes_intersect(&a, &b, &(n * (oc.depth + 1e-3))) {
            failures.push(format!("case {k}: depth * normal does not separate: {oc:?} {a:?} {b:?}"));
        }
        let (sat_depth, sat_normal) = parry_sat_depth(&a, &b);
        let epa_depth = epa.map_or(Real::NEG_INFINITY, |c| -c.dist);
        if oc.depth < sat_depth - TOL
            || oc.depth < epa_depth - TOL
            || oc.depth > sat_depth / (1.0 - OBB_EDGE_AXIS_REL_TOL) + TOL + skip
        {
            failures.push(format!("case {k}: depth {} vs SAT {sat_depth} EPA {epa_depth}: {a:?} {b:?}", oc.depth));
        }
        if oc.depth > sat_depth + TOL {
            inflated += 1;
        } else if (n - sat_normal).norm() > 1e-2 {
            normal_mismatch += 1;
        }
        let on_a = obb_surface_distance(&oc.point_a, &a).abs() <= 1e-3;
        let on_b = obb_surface_distance(&oc.point_b, &b).abs() <= 1e-3;
        point_off += !(on_a && on_b) as usize;
    }
    let frac = parry_some as f64 / CASES as f64;
    eprintln!(
        "contact_obb_obb: contacts {n_some}, fraction {frac:.3}, in-band {in_band}, depth > SAT + tol {inflated}, \
         normal mismatches {normal_mismatch}, witness points off a surface {point_off}"
    );
    assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!((0.3..=0.7).contains(&frac), "contact fraction {frac:.3}");
    assert!(in_band <= MAX_IN_BAND, "{in_band} in-band cases");
    assert!(normal_mismatch * 500 <= n_some, "{normal_mismatch} normal mismatches of {n_some}");
    assert!(point_off * 100 <= n_some, "{point_off} witness points off the surfaces of {n_some}");
}

/// Box-box manifolds on the same cases as `obb_obb_vs_parry`:
/// - `Some` exactly when `contact_obb_obb` is, with the same normal;
/// - 1 to 4 points, each with `0 <= depth <= contact depth + TOL` and
///   `point_a - point_b ≈ depth * normal` within `TOL`;
/// - the deepest point reaches the contact depth within `1e-3` unless the
///   face preference or the clipping changed the feature (counted, < 2%);
/// - every point on its box's surface within `1e-3` (counted with the
///   single-point fallbacks, which inherit `contact_obb_obb`'s witness
///   points: < 1%);
/// - face contacts of same-rotation boxes give more than one point (counted
///   over the random cases: most face contacts between random boxes are
///   vertex-face, so this is checked in narrowphase_edge_cases.rs instead).
#[test]
fn obb_manifold_properties() {
    let p = near(1.5);
    let mut rng = proxima_test_support::rng(26);
    let (mut n_some, mut shallow_deepest, mut point_off) = (0usize, 0usize, 0usize);
    let mut sizes = [0usize; 5];
    let mut failures = Vec::new();
    for k in 0..CASES {
        let (a, b) = (gen::obb(&mut rng, &p), gen::obb(&mut rng, &p));
        let (m, c) = (contact_manifold_obb_obb(&a, &b, 0.0), contact_obb_obb(&a, &b));
        let (m, c) = match (m, c) {
            (None, None) => continue,
            (Some(m), Some(c)) => (m, c),
            (m, c) => {
                failures.push(format!("case {k}: manifold {m:?} vs contact {c:?}"));
                continue;
            }
        };
        n_some += 1;
        sizes[m.len()] += 1;
        if m.is_empty() || m.len() > 4 || (m.normal.into_inner() - c.normal.into_inner()).norm() > 1e-6 {
            failures.push(format!("case {k}: bad manifold {m:?} for {c:?}"));
        }
        for q in m.points() {
            let gap = (q.point_a - q.point_b) - m.normal.into_inner() * q.depth;
            if q.depth < 0.0 || q.depth > c.depth + TOL || gap.norm() > TOL {
                failures.push(format!("case {k}: point {q:?} of {m:?}, contact depth {}", c.depth));
            }
            let on_a = obb_surface_distance(&q.point_a, &a).abs() <= 1e-3;
            let on_b = obb_surface_distance(&q.point_b, &b).abs() <= 1e-3;
            point_off += !(on_a && on_b) as usize;
        }
        shallow_deepest += (m.deepest().depth < c.depth - 1e-3) as usize;
    }
    eprintln!(
        "contact_manifold_obb_obb: {n_some} manifolds, sizes 1..4 {:?}, deepest short of the depth {shallow_deepest}, \
         points off a surface {point_off}",
        &sizes[1..]
    );
    assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!(shallow_deepest * 50 <= n_some, "{shallow_deepest} manifolds short of the depth of {n_some}");
    assert!(point_off * 100 <= n_some, "{point_off} points off the surfaces of {n_some}");
}
