//! Capsules a hair from a triangle's or a box's vertex, edge or face, at
//! coordinates of magnitude 1, 1e3 and 1e5: `contact_capsule_triangle`,
//! `contact_manifold_capsule_triangle`, `distance_capsule_triangle`,
//! `contact_capsule_obb`, `contact_manifold_capsule_obb` and
//! `distance_capsule_obb` against an f64 oracle written here, and parry3d
//! 0.31's `query::contact`.
//!
//! Each case (`CASES` per offset and shape, cycling through the feature
//! pairs of [`Feature`]) builds the capsule's core segment at a known
//! closest feature pair of B, at a core distance from `1e-6` to `1e-2` of B's
//! size (1 to 1000), moves both to the offset and rounds them to f32 there
//! (which moves the features by up to `~6e-8` of the offset), then computes
//! the core distance `D64` of the rounded shapes in f64 by brute force: a
//! ternary search along the segment of the point-to-shape distance, which
//! is convex in the segment's parameter. The radius is `D64 - gap` rounded
//! to f32, the gap from `1e-7` to `1e-2` of the size either way (at most
//! `0.9 D64`), so the capsule's gap `D64 - r` is known to f64 precision
//! however small: the capsules overlap or clear the feature by as little as
//! `1e-7` of the size. Cases whose rounded core crosses B (`D64` below
//! `1e-12` of the size) are counted and skipped.
//!
//! Tolerances, in units of `size = |q - p| + |b - a| + |c - a|` (triangle)
//! or `|q - p| + |h|` (box), the extent that the code rounds relative to:
//! - depth `r - D64`, distance `max(D64 - r, 0)` and the deepest manifold
//!   point within [`TOL`] (measured up to `3.5e-7`): the f32 closest points,
//!   relative to a point of the shapes, carry a few roundings of `1.2e-7
//!   size` each, and within `1e-4 size` of B the pair is taken in f64;
//! - `Some` exactly when the gap is negative, outside that band;
//! - moving B by the depth plus `2 TOL` along the normal separates the
//!   shapes (the f64 oracle on B moved in f64). The normal's error is
//!   reported, not bounded: where the distance along the segment is nearly
//!   flat (a segment almost parallel to an edge or a face) the closest
//!   direction turns fast with the point on the segment, and the f32 pair
//!   outside the band is off by up to `1e-2` rad (measured) while its
//!   distance is right;
//! - `point_a - point_b = depth * normal` within [`TOL`] plus the rounding
//!   of the points at the offset (`4.8e-7` of it).
//!
//! parry3d rounds in f32 at the offset and its GJK and EPA stop at a
//! tolerance: its hit-or-miss must agree outside a band of [`PARRY_TOL`] of
//! the size plus `1e-6` of the offset, and its depth be within that band in
//! 99% of the contacts (measured: all but 0.1%, the worst off by 0.5 of the
//! size).

mod common_np;

use common_np::closest_on_triangle_f64;
use nalgebra::Vector3;
use parry3d::query;
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen;
use proxima_test_support::SmallRng;

type V = Vector3<f64>;

/// Cases per offset and shape.
const CASES: usize = if cfg!(debug_assertions) { 2_000 } else { 40_000 };

/// Depth and distance tolerance, in units of the size (see the module comment).
const TOL: f64 = 2e-6;
/// parry3d's depth tolerance, in units of the size.
const PARRY_TOL: f64 = 1e-2;

/// The feature pair a case is built on: the closest points of the capsule's
/// core and B, before rounding.
#[derive(Clone, Copy, Debug)]
enum Feature {
    /// The segment passes a vertex, its interior closest.
    SegmentByVertex,
    /// An endpoint next to a vertex.
    EndByVertex,
    /// An endpoint next to an edge's interior.
    EndByEdge,
    /// The segment across an edge, both interiors closest.
    SegmentAcrossEdge,
    /// The segment parallel to an edge, beside it.
    SegmentAlongEdge,
    /// An endpoint over the face.
    EndOverFace,
}

const FEATURES: [Feature; 6] = [
    Feature::SegmentByVertex,
    Feature::EndByVertex,
    Feature::EndByEdge,
    Feature::SegmentAcrossEdge,
    Feature::SegmentAlongEdge,
    Feature::EndOverFace,
];

fn v64(p: &Point) -> V {
    p.coords.cast()
}

fn p32(v: &V) -> Point {
    Point::from(v.map(|x| x as Real))
}

fn u(r: &mut SmallRng, lo: f64, hi: f64) -> f64 {
    f64::from(gen::uniform(r, lo as Real, hi as Real))
}

fn log_u(r: &mut SmallRng, lo: f64, hi: f64) -> f64 {
    10f64.powf(u(r, lo.log10(), hi.log10()))
}

fn unit(r: &mut SmallRng) -> V {
    gen::unit_vector(r).cast()
}

/// A unit vector normal to the unit `n`.
fn normal_to(r: &mut SmallRng, n: &V) -> V {
    loop {
        let x = unit(r);
        if let Some(t) = (x - n * x.dot(n)).try_normalize(1e-3) {
            return t;
        }
    }
}

/// The core segment for a feature point `x` with outward unit direction
/// `n` (B lies in `n . (y - x) <= 0`), at distance `d`, of length `len`:
/// the segment lies in `n . (y - x) >= d` and touches that plane at
/// `x + n d`, so its distance to B is `d`. `along` (normal to `n`) is the
/// direction for a segment passing the feature; an endpoint case turns away.
fn segment(r: &mut SmallRng, x: &V, n: &V, along: &V, d: f64, len: f64, through: bool) -> (V, V) {
    let s = x + n * d;
    if through {
        let f = u(r, 0.1, 0.9);
        (s - along * (len * f), s + along * (len * (1.0 - f)))
    } else {
        let dir = (along + n * u(r, 0.0, 1.0)).normalize();
        (s, s + dir * len)
    }
}

/// A triangle of size about `size` around the origin and a segment at
/// core distance `d` from it at `feature` (all in f64, before rounding).
fn triangle_case(r: &mut SmallRng, feature: Feature, size: f64, d: f64, len: f64) -> ([V; 3], (V, V)) {
    let rot = gen::rotation(r).cast::<f64>();
    let start = u(r, 0.0, std::f64::consts::TAU);
    let v: [V; 3] = std::array::from_fn(|k| {
        let t = start + k as f64 * std::f64::consts::TAU / 3.0 + u(r, -0.5, 0.5);
        rot * V::new(t.cos(), t.sin(), 0.0) * (size * u(r, 0.4, 1.0))
    });
    let face = (v[1] - v[0]).cross(&(v[2] - v[0])).normalize();
    let face = if u(r, 0.0, 1.0) < 0.5 { face } else { -face };
    let tilt = u(r, -1.4, 1.4);
    let k = (u(r, 0.0, 3.0) as usize).min(2);
    let (a, b, c) = (v[k], v[(k + 1) % 3], v[(k + 2) % 3]);
    let seg = match feature {
        Feature::SegmentByVertex | Feature::EndByVertex => {
            // Minus the sum of the unit edges at `a`: outward in its normal
            // cone, as is any tilt towards the face normal.
            let out = -((b - a).normalize() + (c - a).normalize()).normalize();
            let n = out * tilt.cos() + face * tilt.sin();
            let along = normal_to(r, &n);
            segment(r, &a, &n, &along, d, len, matches!(feature, Feature::SegmentByVertex))
        }
        Feature::EndByEdge | Feature::SegmentAcrossEdge | Feature::SegmentAlongEdge => {
            let e = (b - a).normalize();
            let x = a + (b - a) * u(r, 0.1, 0.9);
            let out = (x - c) - e * (x - c).dot(&e);
            let n = out.normalize() * tilt.cos() + face * tilt.sin();
            let along = match feature {
                Feature::SegmentAlongEdge => e,
                _ => normal_to(r, &n),
            };
            segment(r, &x, &n, &along, d, len, !matches!(feature, Feature::EndByEdge))
        }
        Feature::EndOverFace => {
            let (s, t) = (u(r, 0.05, 0.9), u(r, 0.05, 0.9));
            let (s, t) = if s + t > 0.95 { (1.0 - s, 1.0 - t) } else { (s, t) };
            let x = a + (b - a) * s + (c - a) * t;
            let along = normal_to(r, &face);
            segment(r, &x, &face, &along, d, len, false)
        }
    };
    (v, seg)
}

/// A box of half-extents about `size / 2` centred at the origin (its frame)
/// and a segment at core distance `d` from it at `feature`, in the box frame.
fn box_case(r: &mut SmallRng, feature: Feature, size: f64, d: f64, len: f64) -> (V, (V, V)) {
    let h = V::new(u(r, 0.2, 0.5), u(r, 0.2, 0.5), u(r, 0.2, 0.5)) * size;
    let sign = V::from_fn(|_, _| if u(r, 0.0, 1.0) < 0.5 { -1.0 } else { 1.0 });
    let i = (u(r, 0.0, 3.0) as usize).min(2);
    let positive = |r: &mut SmallRng| V::new(u(r, 0.05, 1.0), u(r, 0.05, 1.0), u(r, 0.05, 1.0));
    let seg = match feature {
        Feature::SegmentByVertex | Feature::EndByVertex => {
            let n = positive(r).component_mul(&sign).normalize();
            let along = normal_to(r, &n);
            segment(r, &h.component_mul(&sign), &n, &along, d, len, matches!(feature, Feature::SegmentByVertex))
        }
        Feature::EndByEdge | Feature::SegmentAcrossEdge | Feature::SegmentAlongEdge => {
            // The edge along axis `i` at the corner's other two coordinates.
            let mut n = positive(r).component_mul(&sign);
            n[i] = 0.0;
            let n = n.normalize();
            let mut x = h.component_mul(&sign);
            x[i] = h[i] * u(r, -0.8, 0.8);
            let along = match feature {
                Feature::SegmentAlongEdge => V::ith(i, 1.0),
                _ => normal_to(r, &n),
            };
            segment(r, &x, &n, &along, d, len, !matches!(feature, Feature::EndByEdge))
        }
        Feature::EndOverFace => {
            let n = V::ith(i, sign[i]);
            let mut x = V::from_fn(|k, _| h[k] * u(r, -0.9, 0.9));
            x[i] = h[i] * sign[i];
            let along = normal_to(r, &n);
            segment(r, &x, &n, &along, d, len, false)
        }
    };
    (h, seg)
}

/// The closest pair `(on the segment, on B)` and their distance, in f64:
/// `t -> |x(t) - closest(x(t))|` is convex (the distance to a convex set
/// along a line), so a ternary search on `[0, 1]` finds its minimum; the
/// endpoints are tried too.
fn closest_pair(p: &V, q: &V, closest: impl Fn(&V) -> V) -> (V, V, f64) {
    let at = |t: f64| {
        let x = p + (q - p) * t;
        let y = closest(&x);
        (x, y, (y - x).norm())
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..120 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if at(m1).2 <= at(m2).2 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    [at(0.5 * (lo + hi)), at(0.0), at(1.0)].into_iter().min_by(|x, y| x.2.total_cmp(&y.2)).expect("three")
}

/// The f64 oracle of one case, relative to the capsule's first endpoint
/// (differences of f32 values, exact in f64).
struct Exact {
    /// Core distance `D64`.
    core: f64,
    /// Unit direction from the segment to B at the closest pair.
    normal: V,
}

/// The oracle of the capsule's core and the triangle moved by `shift` (in
/// f64, unrounded).
fn exact_triangle(cap: &Capsule, tri: &Triangle, shift: &V) -> Exact {
    let o = v64(cap.a());
    let v = tri.vertices().map(|x| v64(&x) + shift - o);
    let (x, y, core) =
        closest_pair(&V::zeros(), &(v64(cap.b()) - o), |x| closest_on_triangle_f64(x, &v[0], &v[1], &v[2]));
    Exact { core, normal: (y - x) / core }
}

/// The box's rotation in f64: its quaternion normalised in f64 (the f32
/// one is unit only to `~1e-7`, which would move a face at 300 by `3e-5`).
fn rotation_f64(obb: &Obb) -> nalgebra::Matrix3<f64> {
    let q = obb.rotation().into_inner().cast::<f64>();
    nalgebra::UnitQuaternion::new_normalize(q).to_rotation_matrix().into_inner()
}

/// The oracle of the capsule's core and the box moved by `shift` (in f64,
/// unrounded).
fn exact_box(cap: &Capsule, obb: &Obb, shift: &V) -> Exact {
    let rot = rotation_f64(obb);
    let c = v64(obb.center()) + shift;
    let h = obb.half_extents().cast::<f64>();
    let local = |p: &Point| rot.tr_mul(&(v64(p) - c));
    let (x, y, core) = closest_pair(&local(cap.a()), &local(cap.b()), |x| x.zip_map(&h, |x, h| x.clamp(-h, h)));
    Exact { core, normal: rot * (y - x) / core }
}

/// The worst errors of a run, in units of the size.
#[derive(Debug, Default)]
struct Worst {
    depth: f64,
    distance: f64,
    normal: f64,
    witness: f64,
    /// Overlap left after moving B out by the depth and the margin.
    separation: f64,
    manifold: f64,
    parry_depth: f64,
    /// Contacts compared with parry, and how many of its depths are off by
    /// more than its band.
    parry_compared: usize,
    parry_off: usize,
    /// Hit-or-miss disagreements outside the band.
    wrong_hit: usize,
    parry_wrong_hit: usize,
    /// Cases whose rounded core crosses B.
    crossing: usize,
    /// Cases in the tangency band.
    band: usize,
    hits: usize,
}

/// The offsets: the shapes are built around the origin and moved to
/// `offset * (1, -1, 1)` before rounding. Sizes from 1 to 1000.
const OFFSETS: [f64; 3] = [0.0, 1e3, 1e5];

/// Draws a case's size, core distance, segment length and gap (a fraction
/// of the size, negative for an overlap).
fn draw(r: &mut SmallRng) -> (f64, f64, f64, f64) {
    let size = log_u(r, 1.0, 1e3);
    let d = size * log_u(r, 1e-6, 1e-2);
    let len = size * log_u(r, 1e-3, 1.0);
    let gap = log_u(r, 1e-7, 1e-2) * if u(r, 0.0, 1.0) < 0.5 { -1.0 } else { 1.0 };
    (size, d, len, gap)
}

/// The capsule of radius `core - gap` around the rounded segment (`gap` at
/// most `0.9 core`, so that the radius stays positive).
fn capsule(p: &V, q: &V, core: f64, gap: f64) -> Capsule {
    Capsule::new(p32(p), p32(q), (core - gap.min(0.9 * core)) as Real)
}

/// Checks one contact against the oracle (`after(v)`: the core distance
/// with B moved by `v`); returns the gap `D64 - r`.
#[allow(clippy::too_many_arguments)]
fn check_contact(
    w: &mut Worst,
    fails: &mut Vec<String>,
    what: &str,
    ex: &Exact,
    cap: &Capsule,
    size: f64,
    offset: f64,
    c: Option<Contact>,
    after: impl Fn(&V) -> f64,
) -> f64 {
    let gap = ex.core - f64::from(cap.radius());
    if gap.abs() <= TOL * size {
        w.band += 1;
        return gap;
    }
    if c.is_some() != (gap < 0.0) {
        w.wrong_hit += 1;
        fails.push(format!("{what}: contact {c:?}, gap {gap:e}"));
        return gap;
    }
    let Some(c) = c else { return gap };
    w.hits += 1;
    let depth = (f64::from(c.depth) + gap).abs() / size;
    let n = (c.normal.into_inner().cast::<f64>() - ex.normal).norm();
    let rounding = 1.2e-7 * offset * 4.0;
    let witness = ((c.point_a - c.point_b).cast::<f64>() - c.normal.into_inner().cast::<f64>() * f64::from(c.depth))
        .norm()
        .max(rounding)
        - rounding;
    // Moving B by the depth and a margin along the normal separates them.
    let out = f64::from(c.depth) + 2.0 * TOL * size;
    let left = f64::from(cap.radius()) - after(&(c.normal.into_inner().cast::<f64>() * out));
    w.depth = w.depth.max(depth);
    w.normal = w.normal.max(n);
    w.witness = w.witness.max(witness / size);
    w.separation = w.separation.max(left / size);
    if depth > TOL || witness > TOL * size || left > 0.0 {
        fails.push(format!(
            "{what}: depth {} vs {}, normal {n:e}, witness {witness:e}, left {left:e}: {c:?}",
            c.depth, -gap
        ));
    }
    gap
}

/// The distance against the gap, and the manifold at prediction 0 against
/// the contact: present exactly with it, its deepest point as deep (the
/// contact's normal, or the face's with the clipped points).
#[allow(clippy::too_many_arguments)]
fn check_distance_and_manifold(
    w: &mut Worst,
    fails: &mut Vec<String>,
    tag: impl Fn(&str) -> String,
    gap: f64,
    dist: f64,
    c: Option<Contact>,
    m: Option<ContactManifold>,
    size: f64,
) {
    let de = (dist - gap.max(0.0)).abs() / size;
    w.distance = w.distance.max(de);
    if de > TOL {
        fails.push(tag(&format!("distance {dist} vs {}", gap.max(0.0))));
    }
    if m.is_some() != c.is_some() {
        fails.push(tag(&format!("manifold {m:?}, contact {c:?}")));
    } else if let (Some(m), Some(c)) = (m, c) {
        let deepest = m.points().iter().map(|x| x.depth).fold(Real::MIN, Real::max);
        let me = f64::from((deepest - c.depth).abs()) / size;
        w.manifold = w.manifold.max(me);
        if me > TOL {
            fails.push(tag(&format!("manifold depth {deepest} vs {}", c.depth)));
        }
    }
}

impl Worst {
    /// Records parry's contact (`dist`, minus its depth) against the gap.
    fn parry(&mut self, dist: Option<Real>, gap: f64, band: f64, size: f64) {
        if gap.abs() > band && dist.is_some() != (gap < 0.0) {
            self.parry_wrong_hit += 1;
        }
        if let Some(dist) = dist {
            let e = (f64::from(dist) - gap).abs();
            self.parry_depth = self.parry_depth.max(e / size);
            self.parry_compared += 1;
            self.parry_off += usize::from(e > band);
        }
    }
}

fn report(name: &str, w: &Worst, fails: &[String]) {
    eprintln!("{name}: {w:?}");
    assert!(fails.is_empty(), "{name}: {} failures: {:#?}", fails.len(), &fails[..fails.len().min(6)]);
    assert!(w.wrong_hit == 0 && w.parry_wrong_hit == 0, "{name}: hit or miss wrong");
    assert!(w.hits > CASES / 5, "{name}: {} contacts", w.hits);
    // parry stops at a tolerance: a few of its depths are off by more.
    assert!(w.parry_off * 100 <= w.parry_compared, "{name}: parry's depth off in {} cases", w.parry_off);
}

#[test]
fn capsule_triangle_near_features() {
    for (k, &offset) in OFFSETS.iter().enumerate() {
        let mut rng = proxima_test_support::rng(0xCA39 + k as u64);
        let (mut w, mut fails) = (Worst::default(), Vec::new());
        let at = V::new(offset, -offset, offset);
        for i in 0..CASES {
            let feature = FEATURES[i % FEATURES.len()];
            let (size, d, len, g) = draw(&mut rng);
            let (v, (p, q)) = triangle_case(&mut rng, feature, size, d, len);
            let tri = Triangle::new(p32(&(v[0] + at)), p32(&(v[1] + at)), p32(&(v[2] + at)));
            let core = capsule(&(p + at), &(q + at), 0.0, 0.0);
            let ex = exact_triangle(&core, &tri, &V::zeros());
            let size = (core.b() - core.a()).norm() as f64
                + (tri.b() - tri.a()).norm() as f64
                + (tri.c() - tri.a()).norm() as f64;
            if ex.core <= 1e-12 * size {
                w.crossing += 1;
                continue;
            }
            let cap = capsule(&v64(core.a()), &v64(core.b()), ex.core, g * size);
            let tag = |s: &str| format!("case {i} {feature:?} {s}: {cap:?} {tri:?}");
            let c = contact_capsule_triangle(&cap, &tri);
            let after = |v: &V| exact_triangle(&cap, &tri, v).core;
            let gap = check_contact(&mut w, &mut fails, &tag("contact"), &ex, &cap, size, offset, c, after);
            let dist = f64::from(distance_capsule_triangle(&cap, &tri).distance);
            let m = contact_manifold_capsule_triangle(&cap, &tri, 0.0);
            check_distance_and_manifold(&mut w, &mut fails, tag, gap, dist, c, m, size);
            // parry3d.
            let (pc, pcap) = cv::capsule(&cap);
            let (pt, ptri) = cv::triangle(&tri);
            let pc = query::contact(&pc, &pcap, &pt, &ptri, 0.0).expect("parry supports the pair");
            let band = PARRY_TOL * size + 1e-6 * offset;
            w.parry(pc.map(|pc| pc.dist), gap, band, size);
        }
        report(&format!("capsule_triangle offset {offset:e}"), &w, &fails);
    }
}

#[test]
fn capsule_obb_near_features() {
    for (k, &offset) in OFFSETS.iter().enumerate() {
        let mut rng = proxima_test_support::rng(0xCB39 + k as u64);
        let (mut w, mut fails) = (Worst::default(), Vec::new());
        let at = V::new(offset, -offset, offset);
        for i in 0..CASES {
            let feature = FEATURES[i % FEATURES.len()];
            let (size, d, len, g) = draw(&mut rng);
            let (h, (p, q)) = box_case(&mut rng, feature, size, d, len);
            let rot = gen::rotation(&mut rng);
            let obb = Obb::new(p32(&at), rot, h.map(|x| x as Real));
            // The segment into the world by the box's f64 rotation.
            let r64 = rotation_f64(&obb);
            let core = capsule(&(r64 * p + at), &(r64 * q + at), 0.0, 0.0);
            let ex = exact_box(&core, &obb, &V::zeros());
            let size = (core.b() - core.a()).norm() as f64 + obb.half_extents().norm() as f64;
            if ex.core <= 1e-12 * size {
                w.crossing += 1;
                continue;
            }
            let cap = capsule(&v64(core.a()), &v64(core.b()), ex.core, g * size);
            let tag = |s: &str| format!("case {i} {feature:?} {s}: {cap:?} {obb:?}");
            let c = contact_capsule_obb(&cap, &obb);
            let after = |v: &V| exact_box(&cap, &obb, v).core;
            let gap = check_contact(&mut w, &mut fails, &tag("contact"), &ex, &cap, size, offset, c, after);
            let dist = f64::from(distance_capsule_obb(&cap, &obb).distance);
            let m = contact_manifold_capsule_obb(&cap, &obb, 0.0);
            check_distance_and_manifold(&mut w, &mut fails, tag, gap, dist, c, m, size);
            let (pc, pcap) = cv::capsule(&cap);
            let (po, pbox) = cv::cuboid(&obb);
            let pc = query::contact(&pc, &pcap, &po, &pbox, 0.0).expect("parry supports the pair");
            let band = PARRY_TOL * size + 1e-6 * offset;
            w.parry(pc.map(|pc| pc.dist), gap, band, size);
        }
        report(&format!("capsule_obb offset {offset:e}"), &w, &fails);
    }
}
